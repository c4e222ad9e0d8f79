"""Idempotency stores on PostgreSQL (`pip install 'delayed-tasks[postgres]'`, psycopg 3): for
replicas, and for effects written to the same database, where the inbox marks the key done in
the caller's own transaction.

```python
import psycopg
from delayed_tasks.postgres import SqlIdempotencyStore

store = SqlIdempotencyStore(psycopg.connect(DSN, autocommit=True))  # or a psycopg_pool pool
store.migrate()  # CREATE TABLE IF NOT EXISTS (also shipped as delayed_tasks/schema.sql)

# The inbox: the order row and the key's done mark commit or roll back together.
with psycopg.connect(DSN) as conn:
    store.run_in_transaction(conn, key, lambda tx: tx.execute("INSERT INTO orders ..."))
```

`claim` is one `INSERT ... ON CONFLICT (key) DO UPDATE ... WHERE expires_at < now()` (one row
returned wins; otherwise one `SELECT` tells `DONE` from `IN_PROGRESS`); `complete` and `release`
one statement each. The store's own calls run in short transactions of their own: give it a
connection (autocommit or not) or pool it does not share with a transaction of yours.

SQLAlchemy (on the `postgresql+psycopg` dialect): the psycopg connection under a session is
`session.connection().connection.driver_connection`; `run_in_transaction` on it, inside the
session's transaction, adds the mark to that transaction (as a savepoint), so `session.commit()`
commits both."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager, AbstractContextManager
from datetime import timedelta
from typing import Any, Protocol

import psycopg
from psycopg import sql

from ._idempotency import (
    DEFAULT_CLAIM_TTL,
    DEFAULT_DONE_TTL,
    Claim,
    ClaimResult,
    bounded_key,
    milliseconds,
    new_token,
)

DEFAULT_TABLE = "delayed_tasks_idempotency"

__all__ = ["DEFAULT_TABLE", "AsyncSqlIdempotencyStore", "SqlIdempotencyStore"]


class ConnectionPool(Protocol):
    """What the store needs of `psycopg_pool.ConnectionPool`."""

    def connection(self) -> AbstractContextManager[psycopg.Connection[Any]]: ...


class AsyncConnectionPool(Protocol):
    """What the store needs of `psycopg_pool.AsyncConnectionPool`."""

    def connection(self) -> AbstractAsyncContextManager[psycopg.AsyncConnection[Any]]: ...


class _Statements:
    def __init__(self, table: str, done_ttl: timedelta) -> None:
        t = sql.Identifier(table)
        self.done_ms = milliseconds(done_ttl)
        self._create = sql.SQL(
            "CREATE TABLE IF NOT EXISTS {} (key text PRIMARY KEY, state text NOT NULL,"
            " token text, expires_at timestamptz NOT NULL)"
        ).format(t)
        # A row whose claim (or done mark) expired is taken over; a live one is left alone.
        self._claim = sql.SQL(
            "INSERT INTO {t} (key, state, token, expires_at)"
            " VALUES (%s, 'claimed', %s, now() + %s * interval '1 millisecond')"
            " ON CONFLICT (key) DO UPDATE SET state = 'claimed', token = excluded.token,"
            " expires_at = excluded.expires_at WHERE {t}.expires_at < now() RETURNING key"
        ).format(t=t)
        self._state = sql.SQL("SELECT state FROM {} WHERE key = %s").format(t)
        self._complete = sql.SQL(
            "INSERT INTO {t} (key, state, token, expires_at)"
            " VALUES (%s, 'done', NULL, now() + %s * interval '1 millisecond')"
            " ON CONFLICT (key) DO UPDATE SET state = 'done', token = NULL,"
            " expires_at = excluded.expires_at"
        ).format(t=t)
        self._release = sql.SQL(
            "DELETE FROM {} WHERE key = %s AND state = 'claimed' AND token = %s"
        ).format(t)
        # The inbox's mark: inserted as done, in the caller's transaction. A concurrent
        # duplicate blocks on the uncommitted row, then finds it (DONE) or, rolled back, wins.
        self._mark = sql.SQL(
            "INSERT INTO {t} (key, state, token, expires_at)"
            " VALUES (%s, 'done', NULL, now() + %s * interval '1 millisecond')"
            " ON CONFLICT (key) DO UPDATE SET state = 'done', token = NULL,"
            " expires_at = excluded.expires_at WHERE {t}.expires_at < now() RETURNING key"
        ).format(t=t)


Row = tuple[Any, ...] | None


def _lost(row: Row) -> Claim:
    done = row is not None and row[0] == "done"
    return Claim(ClaimResult.DONE if done else ClaimResult.IN_PROGRESS)


class SqlIdempotencyStore(_Statements):
    """`IdempotencyStore` on a table of PostgreSQL, through psycopg 3: a `psycopg.Connection`
    (its own: the store's calls take turns on it) or a `psycopg_pool.ConnectionPool`."""

    def __init__(
        self,
        conn: psycopg.Connection[Any] | ConnectionPool,
        *,
        table: str = DEFAULT_TABLE,
        done_ttl: timedelta = DEFAULT_DONE_TTL,
    ) -> None:
        super().__init__(table, done_ttl)
        self._conn = conn
        self._lock = threading.Lock()

    def _call(self, query: sql.Composed, params: tuple[Any, ...]) -> Row:
        if isinstance(self._conn, psycopg.Connection):
            with self._lock:
                return _one_statement(self._conn, query, params)
        with self._conn.connection() as conn:
            return _one_statement(conn, query, params)

    def migrate(self) -> None:
        """Creates the table when missing (`schema.sql`, for your own migration tool)."""
        self._call(self._create, ())

    def claim(self, key: str, claim_ttl: timedelta = DEFAULT_CLAIM_TTL) -> Claim:
        key, token = bounded_key(key), new_token()
        if self._call(self._claim, (key, token, milliseconds(claim_ttl))) is not None:
            return Claim(ClaimResult.CLAIMED, token)
        return _lost(self._call(self._state, (key,)))

    def complete(self, key: str) -> None:
        self._call(self._complete, (bounded_key(key), self.done_ms))

    def release(self, key: str, token: str) -> None:
        self._call(self._release, (bounded_key(key), token))

    def run_in_transaction(
        self,
        conn: psycopg.Connection[Any],
        key: str,
        effect: Callable[[psycopg.Connection[Any]], object],
    ) -> ClaimResult:
        """The inbox: marks `key` done and runs `effect(conn)` in one transaction of `conn` (a
        savepoint when one is open: your commit then commits both). `CLAIMED`: the effect ran;
        `DONE`: a duplicate, nothing ran. An exception from the effect rolls the mark back with
        it and propagates."""
        with conn.transaction():
            if conn.execute(self._mark, (bounded_key(key), self.done_ms)).fetchone() is None:
                return ClaimResult.DONE
            effect(conn)
        return ClaimResult.CLAIMED


class AsyncSqlIdempotencyStore(_Statements):
    """`AsyncIdempotencyStore` through a `psycopg.AsyncConnection` (its own) or a
    `psycopg_pool.AsyncConnectionPool`."""

    def __init__(
        self,
        conn: psycopg.AsyncConnection[Any] | AsyncConnectionPool,
        *,
        table: str = DEFAULT_TABLE,
        done_ttl: timedelta = DEFAULT_DONE_TTL,
    ) -> None:
        super().__init__(table, done_ttl)
        self._conn = conn
        self._lock = asyncio.Lock()

    async def _call(self, query: sql.Composed, params: tuple[Any, ...]) -> Row:
        if isinstance(self._conn, psycopg.AsyncConnection):
            async with self._lock:
                return await _aone_statement(self._conn, query, params)
        async with self._conn.connection() as conn:
            return await _aone_statement(conn, query, params)

    async def migrate(self) -> None:
        await self._call(self._create, ())

    async def claim(self, key: str, claim_ttl: timedelta = DEFAULT_CLAIM_TTL) -> Claim:
        key, token = bounded_key(key), new_token()
        if await self._call(self._claim, (key, token, milliseconds(claim_ttl))) is not None:
            return Claim(ClaimResult.CLAIMED, token)
        return _lost(await self._call(self._state, (key,)))

    async def complete(self, key: str) -> None:
        await self._call(self._complete, (bounded_key(key), self.done_ms))

    async def release(self, key: str, token: str) -> None:
        await self._call(self._release, (bounded_key(key), token))

    async def run_in_transaction(
        self,
        conn: psycopg.AsyncConnection[Any],
        key: str,
        effect: Callable[[psycopg.AsyncConnection[Any]], Awaitable[object]],
    ) -> ClaimResult:
        """`SqlIdempotencyStore.run_in_transaction`, awaited (`effect` is awaited too)."""
        async with conn.transaction():
            cursor = await conn.execute(self._mark, (bounded_key(key), self.done_ms))
            if await cursor.fetchone() is None:
                return ClaimResult.DONE
            await effect(conn)
        return ClaimResult.CLAIMED


def _one_statement(
    conn: psycopg.Connection[Any], query: sql.Composed, params: tuple[Any, ...]
) -> Row:
    """One statement in a transaction of its own: one round trip on an autocommit connection
    (the fastest: `psycopg.connect(..., autocommit=True)`, or a pool's `kwargs`), three else."""
    if conn.autocommit:
        cursor = conn.execute(query, params)
        return cursor.fetchone() if cursor.description is not None else None
    with conn.transaction():
        cursor = conn.execute(query, params)
        return cursor.fetchone() if cursor.description is not None else None


async def _aone_statement(
    conn: psycopg.AsyncConnection[Any], query: sql.Composed, params: tuple[Any, ...]
) -> Row:
    if conn.autocommit:
        cursor = await conn.execute(query, params)
        return await cursor.fetchone() if cursor.description is not None else None
    async with conn.transaction():
        cursor = await conn.execute(query, params)
        return await cursor.fetchone() if cursor.description is not None else None
