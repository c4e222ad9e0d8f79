"""The sync `PullWorker`'s long polls, on connections of their own that another thread can end.

Closing a socket does not wake a thread blocked reading it (the read waits out its timeout, up to
`wait_seconds` + 10 s, and the service keeps the poll open as long); shutting it down does, and the
service sees the hang-up at once: it ends the poll and hands back a task the poll got, without
spending an attempt. So the polls go through an httpx client of their own whose sockets are
recorded as httpcore opens them (its `trace` extension), and `cancel()` shuts them down."""

from __future__ import annotations

import contextlib
import socket
import threading
from typing import TYPE_CHECKING, Any

import httpx

from ._pull import Lease, LeaseRequest, lease_request

if TYPE_CHECKING:
    from ._client import Client

OPENED = frozenset({"connection.connect_tcp.complete", "connection.start_tls.complete"})


class PollCancelledError(Exception):
    """A long poll asked for after `cancel()`: nothing is sent."""


class LongPoll:
    """`lease` through `http` (a client of its own, see `Client._own_connections`); `cancel`
    hangs up the call in flight and refuses later ones."""

    def __init__(self, client: Client, http: httpx.Client) -> None:
        self._client = client
        self._http = http
        self._lock = threading.Lock()
        self._streams: list[Any] = []
        self._cancelled = False

    def lease(self, request: LeaseRequest) -> list[Lease]:
        return self._client._send(lease_request(request), http=self._http, trace=self._trace)

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            streams, self._streams = self._streams, []
        for stream in streams:
            _shut_down(stream)

    def close(self) -> None:
        self.cancel()
        self._http.close()

    def _trace(self, event: str, info: dict[str, Any]) -> None:
        with self._lock:
            cancelled = self._cancelled
            if event in OPENED and not cancelled:
                # One poll at a time: the pool holds one connection (its TCP and TLS streams).
                self._streams = [*self._streams[-1:], info["return_value"]]
        if cancelled:
            if event in OPENED:
                _shut_down(info["return_value"])
            elif event.endswith(".started"):
                # A retry after the hang-up (or a poll begun as it came): stop before it is sent.
                raise PollCancelledError("the worker is shutting down")


def _shut_down(stream: Any) -> None:
    sock = stream.get_extra_info("socket")
    if isinstance(sock, socket.socket):
        # Already closed, or a TCP socket since wrapped in TLS (whose own stream is shut down).
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
