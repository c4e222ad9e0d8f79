"""From the attacker's side: someone who captured a signed callback sends it again within the
tolerance with the unsigned `Idempotency-Key` header removed, changed, or set to another task's
key. The receiver deduplicates on the signed `webhook-id`, so the handler does not run a second
time, and another task's genuine callback is never taken for a duplicate. The WSGI adapter is
served on loopback (wsgiref), the ASGI one through httpx's transport."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from wsgiref.simple_server import WSGIRequestHandler, make_server

import httpx
import pytest

from delayed_tasks import Callback, CallbackASGIApp, CallbackWSGIApp, WebhookVerifier

from ..signing import OTHER_SECRET, SECRET, headers

NOW = 1_764_756_000

Capture = tuple[dict[str, str], bytes]
Send = Callable[[Capture], tuple[int, object]]


def delivery(task_id: str, msg_id: str, *, secret: str = SECRET, attempt: int = 1) -> Capture:
    """A callback as the service signs it: `Idempotency-Key` is the task id, not signed."""
    body = json.dumps(
        {
            "taskId": task_id,
            "taskType": "order.close",
            "payload": {"orderId": task_id},
            "payloadVersion": 1,
            "executeAt": "2026-12-03T10:00:00.000Z",
            "attempt": attempt,
            "traceId": None,
        }
    ).encode()
    signed = headers(secret, body, timestamp=NOW + attempt - 1, msg_id=msg_id)
    return {**signed, "idempotency-key": task_id}, body


def with_key(capture: Capture, key: str | None) -> Capture:
    """The same captured bytes, the unsigned header changed (`None`: removed)."""
    hdrs = {k: v for k, v in capture[0].items() if k != "idempotency-key"}
    if key is not None:
        hdrs["idempotency-key"] = key
    return hdrs, capture[1]


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def wsgi_on_loopback(app: CallbackWSGIApp) -> Iterator[Send]:
    server = make_server("127.0.0.1", 0, app, handler_class=_Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{server.server_port}") as http:

            def send(capture: Capture) -> tuple[int, object]:
                answer = http.post("/callbacks", headers=capture[0], content=capture[1])
                return answer.status_code, answer.json()

            yield send
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def asgi_in_process(app: CallbackASGIApp) -> Iterator[Send]:
    import anyio.from_thread

    with anyio.from_thread.start_blocking_portal() as portal:
        http = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://r")

        def send(capture: Capture) -> tuple[int, object]:
            async def post() -> tuple[int, object]:
                answer = await http.post("/callbacks", headers=capture[0], content=capture[1])
                return answer.status_code, answer.json()

            return portal.call(post)

        try:
            yield send
        finally:
            portal.call(http.aclose)


@contextmanager
def receiver(
    kind: str, secrets: list[str] | None = None, allow_unsigned: bool = False
) -> Iterator[tuple[Send, list[str]]]:
    """A receiver whose handler records the task ids it ran for."""
    ran: list[str] = []

    def handle(callback: Callback) -> None:
        ran.append(callback.task_id)

    if kind == "wsgi":
        wsgi = CallbackWSGIApp(secrets=secrets, allow_unsigned=allow_unsigned, clock=lambda: NOW)
        wsgi.register("order.close", handle)
        with wsgi_on_loopback(wsgi) as send:
            yield send, ran
    else:
        asgi = CallbackASGIApp(secrets=secrets, allow_unsigned=allow_unsigned, clock=lambda: NOW)
        asgi.register("order.close", handle)
        with asgi_in_process(asgi) as send:
            yield send, ran


HANDLED = (200, {"status": "handled"})
DUPLICATE = (200, {"status": "duplicate"})
A = delivery("t-1", "msg_a")
B = delivery("t-2", "msg_b")
ADAPTERS = pytest.mark.parametrize("kind", ["wsgi", "asgi"])


@ADAPTERS
@pytest.mark.parametrize("key", [None, "replayed-1", "t-2"], ids=["removed", "changed", "B's"])
def test_a_replay_with_a_tampered_idempotency_key_does_not_run_again(
    kind: str, key: str | None
) -> None:
    with receiver(kind, secrets=[SECRET]) as (send, ran):
        assert send(A) == HANDLED
        assert send(with_key(A, key)) == DUPLICATE
    assert ran == ["t-1"]


@ADAPTERS
def test_the_genuine_callback_runs_after_a_replay_carrying_its_key(kind: str) -> None:
    with receiver(kind, secrets=[SECRET]) as (send, ran):
        assert send(A) == HANDLED
        assert send(with_key(A, "t-2")) == DUPLICATE
        assert send(B) == HANDLED
        # B's own retry: the same webhook-id, a later timestamp and attempt.
        assert send(delivery("t-2", "msg_b", attempt=2)) == DUPLICATE
    assert ran == ["t-1", "t-2"]


@ADAPTERS
def test_a_forged_callback_naming_another_tasks_webhook_id_records_nothing(kind: str) -> None:
    with receiver(kind, secrets=[SECRET]) as (send, ran):
        forged = delivery("t-2", "msg_b", secret=OTHER_SECRET)
        assert send(forged) == (401, {"status": "refused", "reason": "no_matching_signature"})
        assert send(B) == HANDLED
    assert ran == ["t-2"]


@ADAPTERS
def test_unsigned_receivers_key_on_the_bodys_task_id(kind: str) -> None:
    def unsigned(capture: Capture, key: str) -> Capture:
        return {"content-type": "application/json", "idempotency-key": key}, capture[1]

    with receiver(kind, allow_unsigned=True) as (send, ran):
        assert send(unsigned(A, "t-1")) == HANDLED
        assert send(unsigned(A, "replayed-1")) == DUPLICATE
        assert send(unsigned(B, "t-1")) == HANDLED
    assert ran == ["t-1", "t-2"]


def test_verify_returns_the_signed_webhook_id() -> None:
    verifier = WebhookVerifier(SECRET, clock=lambda: NOW)
    assert verifier.verify(with_key(A, "t-2")[0], A[1]) == "msg_a"
