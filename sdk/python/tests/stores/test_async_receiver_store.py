"""The ASGI receiver on an asyncio store (AsyncRedisIdempotencyStore, AsyncSqlIdempotencyStore)
on the real servers: handled once, a duplicate after, 503 while another holder's claim lives."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from typing import Any

import httpx
import psycopg
import pytest
import redis.asyncio

from delayed_tasks import Callback, CallbackASGIApp, ClaimResult
from delayed_tasks.postgres import AsyncSqlIdempotencyStore
from delayed_tasks.redis import AsyncRedisIdempotencyStore

from ..signing import SECRET, headers


def callback(msg_id: str) -> tuple[dict[str, str], bytes]:
    body = json.dumps(
        {
            "taskId": msg_id,
            "taskType": "order.close",
            "payload": {},
            "payloadVersion": 1,
            "executeAt": "2026-12-05T10:00:00.000Z",
            "attempt": 1,
            "traceId": None,
        }
    ).encode()
    return headers(SECRET, body, timestamp=int(time.time()), msg_id=msg_id), body


async def scenario(store: Any) -> None:
    runs: list[str] = []
    app = CallbackASGIApp(secrets=[SECRET], idempotency_store=store)

    @app.handler("order.close")
    async def close(cb: Callback) -> None:
        runs.append(cb.task_id)

    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://r") as http:
        first, busy = f"m-{uuid.uuid4().hex}", f"m-{uuid.uuid4().hex}"
        hdrs, body = callback(first)
        assert (await http.post("/", headers=hdrs, content=body)).json() == {"status": "handled"}
        assert (await http.post("/", headers=hdrs, content=body)).json() == {"status": "duplicate"}
        held = await store.claim(busy)
        assert held.result is ClaimResult.CLAIMED
        hdrs, body = callback(busy)
        answer = await http.post("/", headers=hdrs, content=body)
        assert (answer.status_code, answer.headers["retry-after"]) == (503, "5")
    assert runs == [first]


@pytest.mark.parametrize("kind", ["redis", "sql"])
def test_the_asgi_receiver_on_an_async_store(kind: str, request: pytest.FixtureRequest) -> None:
    async def main() -> None:
        if kind == "redis":
            async with redis.asyncio.Redis.from_url(request.getfixturevalue("redis_url")) as r:
                await scenario(AsyncRedisIdempotencyStore(r))
        else:
            url = request.getfixturevalue("postgres_url")
            async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
                await scenario(AsyncSqlIdempotencyStore(conn))

    asyncio.run(main())
