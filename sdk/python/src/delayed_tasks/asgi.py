"""The callback receiver as an ASGI application (Starlette, FastAPI, uvicorn, ...), no framework
needed. Handlers may be `async def` or plain functions (which then run on the event loop)."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from ._callback import Callback
from ._receiver import Accepted, CallbackReceiver, Reply

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

AsyncCallbackHandler = Callable[[Callback], Awaitable[object] | object]


class CallbackASGIApp(CallbackReceiver[AsyncCallbackHandler]):
    """```python
    app = CallbackASGIApp(secrets=["whsec_..."])

    @app.handler("order.close")
    async def close_order(callback: Callback) -> None: ...
    ```
    Served on its own (`uvicorn module:app`) it answers every path. Inside a Starlette or
    FastAPI application, route it with `delayed_tasks.starlette.callback_routes` or
    `delayed_tasks.fastapi.callback_router`, which answer both `/path` and `/path/`: `mount`
    answers the bare `/path` with a 307 redirect, and the service takes a 3xx as a permanent
    failure.
    """

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            raise RuntimeError(f"CallbackASGIApp serves HTTP, not {scope['type']}")
        body = await _read_body(receive, self.max_body_bytes)
        if body is None:
            await _send_reply(send, Reply.refused(413, "body_too_large"))
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        await _send_reply(send, await self._handle(scope["method"], headers, body))

    async def _handle(self, method: str, headers: dict[str, str], body: bytes) -> Reply:
        step = self.accept(method, headers, body)
        if not isinstance(step, Accepted):
            return step
        try:
            result = step.handler(step.callback)
            if inspect.isawaitable(result):
                await result
        except Exception as exc:  # noqa: BLE001 - every failure is mapped to a status
            return self.finish(step, exc)
        return self.finish(step, None)


async def _read_body(receive: Receive, limit: int) -> bytes | None:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


async def _send_reply(send: Send, reply: Reply) -> None:
    headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in reply.headers]
    headers.append((b"content-length", str(len(reply.body)).encode()))
    await send({"type": "http.response.start", "status": reply.status, "headers": headers})
    await send({"type": "http.response.body", "body": reply.body})


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
