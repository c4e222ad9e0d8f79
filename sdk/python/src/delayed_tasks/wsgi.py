"""The callback receiver as a WSGI application (Flask, Django, gunicorn, wsgiref, ...), no
framework needed."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from ._callback import Callback
from ._receiver import Accepted, CallbackReceiver, Reply

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIEnvironment
else:
    StartResponse = Callable[..., Any]
    WSGIEnvironment = dict[str, Any]

CallbackHandler = Callable[[Callback], object]

_STATUS_TEXT = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    405: "Method Not Allowed",
    411: "Length Required",
    413: "Content Too Large",
    422: "Unprocessable Content",
    500: "Internal Server Error",
    503: "Service Unavailable",
}


class CallbackWSGIApp(CallbackReceiver[CallbackHandler]):
    """```python
    app = CallbackWSGIApp(secrets=["whsec_..."])

    @app.handler("order.close")
    def close_order(callback: Callback) -> None: ...
    ```
    Mount it at the task's `callbackUrl`; it answers every path.
    """

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        reply = self._handle(environ)
        status = f"{reply.status} {_STATUS_TEXT.get(reply.status, '')}".rstrip()
        headers = [*reply.headers, ("content-length", str(len(reply.body)))]
        start_response(status, headers)
        return [reply.body]

    def _handle(self, environ: WSGIEnvironment) -> Reply:
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return Reply.refused(411, "invalid_content_length")
        if length > self.max_body_bytes:
            return Reply.refused(413, "body_too_large")
        body = environ["wsgi.input"].read(length) if length > 0 else b""
        step = self.accept(environ.get("REQUEST_METHOD", ""), _headers(environ), body)
        if not isinstance(step, Accepted):
            return step
        try:
            step.handler(step.callback)
        except Exception as exc:  # noqa: BLE001 - every failure is mapped to a status
            return self.finish(step, exc)
        return self.finish(step, None)


def _headers(environ: WSGIEnvironment) -> dict[str, str]:
    headers = {
        key[5:].replace("_", "-").lower(): str(value)
        for key, value in environ.items()
        if key.startswith("HTTP_")
    }
    if "CONTENT_TYPE" in environ:
        headers["content-type"] = str(environ["CONTENT_TYPE"])
    return headers
