"""The ASGI and WSGI adapters, through httpx's ASGI and WSGI transports."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from delayed_tasks import (
    Callback,
    CallbackASGIApp,
    CallbackRejectedError,
    CallbackWSGIApp,
    Idempotency,
    InMemoryIdempotencyStore,
    PermanentError,
    RetryableError,
)

from ..signing import OTHER_SECRET, SECRET, headers

NOW = 1_764_756_000


def body(task_type: str = "order.close", **payload: Any) -> bytes:
    return json.dumps(
        {
            "taskId": "t-1",
            "taskType": task_type,
            "payload": payload,
            "payloadVersion": 1,
            "executeAt": "2026-12-03T10:00:00.000Z",
            "attempt": 1,
            "traceId": None,
        }
    ).encode()


def signed(content: bytes, msg_id: str = "msg_1", secret: str = SECRET) -> dict[str, str]:
    """Signed as the service does: `msg_id` is the task's webhook-id, the same on every attempt."""
    return {**headers(secret, content, timestamp=NOW, msg_id=msg_id), "idempotency-key": "t-1"}


class Handlers:
    """Handlers whose behaviour the payload picks, recording each run."""

    def __init__(self) -> None:
        self.runs: list[Callback] = []

    def __call__(self, callback: Callback) -> None:
        self.runs.append(callback)
        match callback.payload.get("do"):
            case "retry":
                raise RetryableError("later", retry_after=7.2)
            case "permanent":
                raise PermanentError("never")
            case "crash":
                raise RuntimeError("bug")


def wsgi_client(handlers: Handlers, **options: Any) -> httpx.Client:
    app = CallbackWSGIApp(secrets=[SECRET], clock=lambda: NOW, **options)
    app.register("order.close", handlers)
    return httpx.Client(transport=httpx.WSGITransport(app=app), base_url="http://receiver")


CASES = [
    # (payload, status, handler runs)
    ({}, 200, 1),
    ({"do": "retry"}, 503, 1),
    ({"do": "permanent"}, 422, 1),
    ({"do": "crash"}, 500, 1),
]


@pytest.mark.parametrize(("payload", "status", "runs"), CASES)
def test_wsgi_maps_handler_outcomes(payload: dict[str, str], status: int, runs: int) -> None:
    handlers = Handlers()
    with wsgi_client(handlers) as http:
        content = body(**payload)
        answer = http.post("/cb", content=content, headers=signed(content))
    assert answer.status_code == status
    assert len(handlers.runs) == runs
    if status == 503:
        assert answer.headers["retry-after"] == "8"


def test_wsgi_refuses_without_running_a_handler() -> None:
    handlers = Handlers()
    with wsgi_client(handlers) as http:
        content = body()
        assert (
            http.post(
                "/", content=content, headers=signed(content, secret=OTHER_SECRET)
            ).status_code
            == 401
        )
        assert http.post("/", content=content).status_code == 401
        bad = b"{not json"
        assert http.post("/", content=bad, headers=signed(bad)).status_code == 400
        other = body("coupon.expire")
        assert http.post("/", content=other, headers=signed(other)).status_code == 422
        assert http.get("/").status_code == 405
    assert handlers.runs == []


def test_wsgi_idempotency_records_a_webhook_id_only_after_success() -> None:
    handlers = Handlers()
    store = InMemoryIdempotencyStore()
    with wsgi_client(handlers, idempotency_store=store) as http:
        failing = body(do="crash")
        assert http.post("/", content=failing, headers=signed(failing, "msg_k1")).status_code == 500
        assert not store.contains("msg_k1")
        ok = body()
        assert http.post("/", content=ok, headers=signed(ok, "msg_k1")).status_code == 200
        assert store.contains("msg_k1")
        assert http.post("/", content=ok, headers=signed(ok, "msg_k1")).status_code == 200
    assert len(handlers.runs) == 2  # the failed attempt and the success; the repeat did not run


def test_unsigned_mode_and_body_limit() -> None:
    handlers = Handlers()
    app = CallbackWSGIApp(allow_unsigned=True, max_body_bytes=2048)
    app.register("order.close", handlers)
    with httpx.Client(transport=httpx.WSGITransport(app=app), base_url="http://r") as http:
        assert http.post("/", content=body()).json() == {"status": "handled"}
        too_large = http.post("/", content=body(pad="x" * 4096))
        assert too_large.status_code == 413
        assert too_large.json() == {"status": "refused", "reason": "body_too_large"}
        get = http.get("/")
        assert (get.status_code, get.headers["allow"]) == (405, "POST")
        assert get.json() == {"status": "refused", "reason": "method_not_allowed"}
    assert len(handlers.runs) == 1


@pytest.mark.parametrize("adapter", [CallbackASGIApp, CallbackWSGIApp])
@pytest.mark.parametrize("secrets", [None, [], ()])
def test_no_secret_refuses_to_build_unless_unsigned_is_allowed(
    adapter: type[CallbackASGIApp | CallbackWSGIApp], secrets: list[str] | None
) -> None:
    with pytest.raises(ValueError, match="allow_unsigned=True"):
        adapter(secrets=secrets)
    adapter(secrets=secrets, allow_unsigned=True)


def test_a_malformed_secret_fails_the_build() -> None:
    with pytest.raises(CallbackRejectedError) as caught:
        CallbackWSGIApp(secrets="not-whsec", allow_unsigned=True)
    assert caught.value.reason == "invalid_secret"


def test_registering_a_type_twice_is_an_error() -> None:
    app = CallbackWSGIApp(secrets=SECRET)
    app.register("a", Handlers())
    with pytest.raises(ValueError, match="already registered"):
        app.register("a", Handlers())


@pytest.mark.anyio
@pytest.mark.parametrize(("payload", "status", "runs"), CASES)
async def test_asgi_maps_handler_outcomes_for_async_and_sync_handlers(
    payload: dict[str, str], status: int, runs: int
) -> None:
    sync_handlers = Handlers()
    async_runs: list[Callback] = []
    app = CallbackASGIApp(secrets=SECRET, clock=lambda: NOW)
    app.register("order.close", sync_handlers)

    @app.handler("order.open")
    async def open_order(callback: Callback) -> None:
        async_runs.append(callback)
        sync_handlers(callback)

    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://r"
    ) as http:
        for task_type in ("order.close", "order.open"):
            content = body(task_type, **payload)
            answer = await http.post(
                "/cb", content=content, headers=signed(content, f"msg_{task_type}")
            )
            assert answer.status_code == status
            assert answer.headers["content-type"] == "application/json"
    assert len(async_runs) == runs
    assert len(sync_handlers.runs) == 2 * runs


@pytest.mark.anyio
async def test_asgi_refusals_and_duplicates() -> None:
    runs: list[str] = []
    app = CallbackASGIApp(secrets=[SECRET], clock=lambda: NOW)
    app.register("order.close", lambda cb: runs.append(cb.task_id))
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://r"
    ) as http:
        content = body()
        stale = {**headers(SECRET, content, timestamp=NOW - 3600), "idempotency-key": "t-1"}
        assert (await http.post("/", content=content, headers=stale)).status_code == 401
        assert (await http.post("/", content=content, headers=signed(content))).status_code == 200
        again = await http.post("/", content=content, headers=signed(content))
        assert again.status_code == 200
        assert again.json() == {"status": "duplicate"}
    assert runs == ["t-1"]


def test_idempotency_helper_without_adapters() -> None:
    idem = Idempotency()
    calls: list[int] = []

    def failing() -> None:
        calls.append(1)
        raise RuntimeError

    with pytest.raises(RuntimeError):
        idem.run("k", failing)
    assert idem.run("k", lambda: calls.append(2)) is True
    assert idem.run("k", lambda: calls.append(3)) is False
    assert idem.run(None, lambda: calls.append(4)) is True
    assert calls == [1, 2, 4]


def test_in_memory_store_is_bounded_and_expires() -> None:
    now = [0.0]
    store = InMemoryIdempotencyStore(max_keys=2, ttl_seconds=10, clock=lambda: now[0])
    for key in ("a", "b", "c"):
        store.add(key)
    assert [store.contains(k) for k in ("a", "b", "c")] == [False, True, True]
    now[0] = 11
    assert not store.contains("c")


@pytest.mark.anyio
async def test_asgi_lifespan_completes() -> None:
    app = CallbackASGIApp(allow_unsigned=True)
    incoming = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return incoming.pop(0)

    async def send(message: Any) -> None:
        sent.append(message)

    await app({"type": "lifespan"}, receive, send)
    assert [m["type"] for m in sent] == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
