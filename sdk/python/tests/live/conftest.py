"""Live scenarios need the service: `DTS_URL` (and `DTS_API_KEY`, `DTS_WEBHOOK_SECRET` when the
stack has them). Without `DTS_URL` they are skipped, or fail under `CI=true`."""

from __future__ import annotations

import os
import queue
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import pytest
import uvicorn

from delayed_tasks import Callback, CallbackWSGIApp, Client, PermanentError


@pytest.fixture(scope="session")
def dts_url() -> str:
    url = os.environ.get("DTS_URL")
    if not url:
        if os.environ.get("CI") == "true":
            pytest.fail("DTS_URL is not set: the live scenarios must run in CI")
        pytest.skip("DTS_URL is not set")
    return url


@pytest.fixture
def client(dts_url: str) -> Iterator[Client]:
    with Client(dts_url, api_key=os.environ.get("DTS_API_KEY") or None) as c:
        yield c


@pytest.fixture
def run_id() -> str:
    return uuid.uuid4().hex[:12]


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return


@dataclass
class Receiver:
    """A callback endpoint on a loopback port, written with the SDK's receiving helpers."""

    url: str
    app: CallbackWSGIApp
    delivered: queue.Queue[Callback] = field(default_factory=queue.Queue)

    def next(self, timeout: float = 90) -> Callback:
        return self.delivered.get(timeout=timeout)


@contextmanager
def serve_receiver(secret: str | None) -> Iterator[Receiver]:
    """Handles type `sdk.py`: a payload `{"fail": true}` fails permanently (422)."""
    app = CallbackWSGIApp(secrets=secret, allow_unsigned=not secret)
    server: WSGIServer = make_server("127.0.0.1", 0, app, handler_class=_QuietHandler)
    recv = Receiver(f"http://127.0.0.1:{server.server_port}/callbacks", app)

    @app.handler("sdk.py")
    def handle(callback: Callback) -> None:
        recv.delivered.put(callback)
        if callback.payload.get("fail"):
            raise PermanentError("told to fail")

    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield recv
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@contextmanager
def serve_asgi(app: Any) -> Iterator[str]:
    """`app` under uvicorn on a loopback port: yields `http://127.0.0.1:<port>`."""
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            pytest.fail("uvicorn did not start")
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    """A receiver checking signatures with the stack's secret (when it signs)."""
    with serve_receiver(os.environ.get("DTS_WEBHOOK_SECRET") or None) as recv:
        yield recv
