"""The fake service of the shell vectors (conformance/pull/README.md): a loopback server that
queues every request (lease calls apart from the others) and answers one only when the runner
says so. A request never answered is let go (599) when the fake closes."""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ..wire import utc_ms

LEASES = "/api/v1/leases"


@dataclass
class Pending:
    path: str
    body: Any
    arrived: float
    answered: threading.Event = field(default_factory=threading.Event)
    status: int = 599
    answer: Any = None

    def reply(self, status: int, answer: Any) -> None:
        self.status, self.answer = status, answer
        self.answered.set()


class Fake:
    def __init__(self) -> None:
        self.leases: queue.Queue[Pending] = queue.Queue()
        self.calls: queue.Queue[Pending] = queue.Queue()
        self.everything: list[Pending] = []
        self.lock = threading.Lock()

        self.stash: list[Pending] = []

    def take(self, which: queue.Queue[Pending], what: str) -> Pending:
        try:
            return which.get(timeout=5)
        except queue.Empty:
            raise AssertionError(f"no {what} request within 5 s") from None

    def take_call(self, path: str, body: Any) -> Pending:
        """The next call, or one like it among those that arrived at the same moment: handlers
        that finish together on threads send their answers in no fixed order."""
        for pending in self.stash:
            if (pending.path, pending.body) == (path, body):
                self.stash.remove(pending)
                return pending
        while True:
            pending = self.take(self.calls, path)
            if (pending.path, pending.body) == (path, body) or self.stash:
                return pending
            self.stash.append(pending)

    @staticmethod
    def in_ms(ms: int) -> str:
        return utc_ms(datetime.now(UTC) + timedelta(milliseconds=ms))

    def close(self) -> None:
        with self.lock:
            for pending in self.everything:
                if not pending.answered.is_set():
                    pending.reply(599, {"fake": "closed"})


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def do_POST(self) -> None:
        import time

        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        pending = Pending(self.path, json.loads(raw) if raw else None, time.monotonic())
        fake = self.server.fake
        with fake.lock:
            fake.everything.append(pending)
        (fake.leases if self.path == LEASES else fake.calls).put(pending)
        pending.answered.wait()
        content = json.dumps(pending.answer).encode()
        try:
            self.send_response(pending.status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(content)))
            self.end_headers()
            self.wfile.write(content)
        except OSError:
            pass  # the worker hung up

    def log_message(self, format: str, *args: Any) -> None:
        return


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    fake: Fake


@contextmanager
def fake_service() -> Iterator[tuple[str, Fake]]:
    server = _Server(("127.0.0.1", 0), _Handler)
    server.fake = Fake()
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", server.fake
    finally:
        server.fake.close()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
