"""A loopback HTTP server on the standard library that answers a case's responses in order and
records every request it receives."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes


@dataclass
class Script:
    responses: list[dict[str, Any]]
    requests: list[Recorded] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def _serve(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        url = urlsplit(self.path)
        recorded = Recorded(
            method=self.command,
            path=url.path,
            query=dict(parse_qsl(url.query, keep_blank_values=True)),
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
        )
        script = self.server.script
        with script.lock:
            script.requests.append(recorded)
            index = len(script.requests) - 1
            answer = script.responses[index] if index < len(script.responses) else None
        if answer is None:
            answer = {"status": 599, "body": {"stub": "no response scripted for this request"}}
        headers = {k.lower(): str(v) for k, v in (answer.get("headers") or {}).items()}
        if "bodyText" in answer:
            raw = str(answer["bodyText"]).encode()
        elif answer.get("body") is not None:
            raw = json.dumps(answer["body"]).encode()
            headers.setdefault("content-type", "application/json")
        else:
            raw = b""
        self.send_response(answer["status"])
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    # The standard library dispatches on these names.
    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def do_PATCH(self) -> None:
        self._serve()

    def do_DELETE(self) -> None:
        self._serve()

    def log_message(self, format: str, *args: Any) -> None:
        return


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    script: Script


@contextmanager
def stub_server(responses: list[dict[str, Any]]) -> Iterator[tuple[str, Script]]:
    server = _Server(("127.0.0.1", 0), _Handler)
    server.script = Script(responses)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        host, port = server.server_address[:2]
        yield f"http://{host!s}:{port}", server.script
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
