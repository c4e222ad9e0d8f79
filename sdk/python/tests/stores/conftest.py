"""The stores' real servers: `DTS_REDIS_URL` and `DTS_POSTGRES_URL` (test.sh starts both through
scripts/local-server.sh). Without them the store tests are skipped, or fail under `CI=true`."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import timedelta
from functools import partial
from typing import Any

import psycopg
import pytest
import redis
import redis.asyncio

from delayed_tasks import Claim, IdempotencyStore, InMemoryIdempotencyStore
from delayed_tasks._idempotency import DEFAULT_CLAIM_TTL
from delayed_tasks.postgres import AsyncSqlIdempotencyStore, SqlIdempotencyStore
from delayed_tasks.redis import AsyncRedisIdempotencyStore, RedisIdempotencyStore


def server_url(name: str) -> str:
    url = os.environ.get(name)
    if not url:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{name} is not set: the store tests must run in CI")
        pytest.skip(f"{name} is not set")
    return url


@pytest.fixture(scope="session")
def redis_url() -> str:
    return server_url("DTS_REDIS_URL")


@pytest.fixture(scope="session")
def postgres_url() -> str:
    url = server_url("DTS_POSTGRES_URL")
    with psycopg.connect(url, autocommit=True) as conn:
        SqlIdempotencyStore(conn).migrate()
    return url


class Threaded:
    """A synchronous store driven from asyncio on threads of its own, so that concurrent claims
    really run at once."""

    def __init__(self, store: IdempotencyStore, pool: ThreadPoolExecutor) -> None:
        self.store = store
        self._pool = pool

    async def _run(self, call: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._pool, partial(call, *args))

    async def claim(self, key: str, claim_ttl: timedelta = DEFAULT_CLAIM_TTL) -> Claim:
        result: Claim = await self._run(self.store.claim, key, claim_ttl)
        return result

    async def complete(self, key: str) -> None:
        await self._run(self.store.complete, key)

    async def release(self, key: str, token: str) -> None:
        await self._run(self.store.release, key, token)

    async def run_in_transaction(
        self, conn: psycopg.Connection[Any], key: str, effect: Callable[[Any], object]
    ) -> Any:
        assert isinstance(self.store, SqlIdempotencyStore)
        return await self._run(self.store.run_in_transaction, conn, key, effect)


StoreFactory = Callable[[], AbstractAsyncContextManager[Any]]
STORE_KINDS = ["memory", "redis", "redis-async", "sql", "sql-async"]


def store_factory(kind: str, request: pytest.FixtureRequest) -> StoreFactory:
    """An async context manager yielding the store `kind` (sync ones wrapped in `Threaded`)."""

    @asynccontextmanager
    async def open_store() -> AsyncIterator[Any]:
        with ThreadPoolExecutor(32) as pool:
            if kind == "memory":
                yield Threaded(InMemoryIdempotencyStore(), pool)
            elif kind == "redis":
                client = redis.Redis.from_url(request.getfixturevalue("redis_url"))
                with client:
                    yield Threaded(RedisIdempotencyStore(client), pool)
            elif kind == "redis-async":
                aclient = redis.asyncio.Redis.from_url(request.getfixturevalue("redis_url"))
                async with aclient:
                    yield AsyncRedisIdempotencyStore(aclient)
            elif kind == "sql":
                from psycopg_pool import ConnectionPool

                url = request.getfixturevalue("postgres_url")
                with ConnectionPool(url, min_size=4, max_size=20, open=True) as cpool:
                    yield Threaded(SqlIdempotencyStore(cpool), pool)
            else:
                from psycopg_pool import AsyncConnectionPool

                url = request.getfixturevalue("postgres_url")
                async with AsyncConnectionPool(
                    url, min_size=4, max_size=20, open=False, kwargs={"autocommit": True}
                ) as apool:
                    yield AsyncSqlIdempotencyStore(apool)

    return open_store


@pytest.fixture
def sync_pg(postgres_url: str) -> Iterator[psycopg.Connection[Any]]:
    with psycopg.connect(postgres_url) as conn:
        yield conn


def run(coro: Awaitable[Any]) -> Any:
    async def main() -> Any:
        return await coro

    return asyncio.run(main())
