"""PullWorker's behaviour beyond the shared shell vectors, against the fake service (unit tests of
the shell): shutdown from a signal handler on run()'s own thread, as the README advises, and a
shutdown that hangs up the long poll in flight rather than leave it open on the service."""

from __future__ import annotations

import signal
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from delayed_tasks import Client, PullWorker, PullWorkerOptions, RetryPolicy

from ..conformance.pull_fake import fake_service


def test_shutdown_from_a_signal_handler_on_the_run_thread_ends_run() -> None:
    assert threading.current_thread() is threading.main_thread()
    with (
        fake_service() as (base_url, fake),
        Client(base_url, retry=RetryPolicy(max_retries=0)) as client,
    ):
        worker = PullWorker(client, PullWorkerOptions(worker_identity="w"))
        worker.handle("order.close", lambda task: None)
        previous = signal.signal(signal.SIGALRM, lambda *_: worker.shutdown(1))
        try:
            signal.setitimer(signal.ITIMER_REAL, 0.3)
            worker.run()  # the long poll stays pending; the signal's shutdown ends run()
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        pending = fake.take(fake.leases, "lease")
        assert pending.body["workerIdentity"] == "w"
        assert fake.calls.empty()


class _SilentService:
    """A loopback service that reads one request and never answers it, noting when the client
    hangs up (EOF on the connection) and whether another request follows."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.server.getsockname()[1]}"
        self.request = threading.Event()
        self.hung_up = threading.Event()
        self.received = b""
        self.connections = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._read, args=(conn,), daemon=True).start()

    def _read(self, conn: socket.socket) -> None:
        with conn:
            while data := conn.recv(65536):
                self.received += data
                if b"\r\n\r\n" in self.received:
                    self.request.set()
            self.hung_up.set()


@contextmanager
def silent_service() -> Iterator[_SilentService]:
    service = _SilentService()
    try:
        yield service
    finally:
        service.server.close()


def test_shutdown_hangs_up_the_long_poll_in_flight() -> None:
    """Without the hang-up the poll stays open on the service for up to waitSeconds (a task it
    gets meanwhile is held by a worker that is gone); closing the client would not end it, as a
    thread blocked reading a socket is not woken by its close."""
    with silent_service() as service, Client(service.url) as client:
        worker = PullWorker(client, PullWorkerOptions(queues=["q"], wait_seconds=20))
        worker.handle("q", lambda task: None)
        run = threading.Thread(target=worker.run, daemon=True)
        run.start()
        assert service.request.wait(5), "no lease call arrived"
        assert b"POST /api/v1/leases " in service.received
        started = time.monotonic()
        worker.shutdown(1)
        run.join(5)
        assert not run.is_alive()
        assert service.hung_up.wait(3), "the long poll was still open 3 s after shutdown"
        print(f"shutdown -> the service saw the hang-up: {time.monotonic() - started:.3f} s")
        time.sleep(0.3)  # nothing follows: no retry of the lease call after the hang-up
        assert service.connections == 1
        assert service.received.count(b"POST ") == 1
