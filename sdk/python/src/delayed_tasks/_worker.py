"""`PullWorker`: the shell around the lease verbs (conformance/pull/README.md). One lease call
at a time asks for as many tasks as there are free slots; each leased task runs its type's
handler on a thread of its own while another thread extends the lease every third of the time
left; the handler's return acks, `PermanentError` nacks not retryable, any other exception nacks
retryable with its message. `shutdown` stops leasing, hangs up the long poll in flight (so the
service hands back what it would have answered), waits for the handlers in flight up to the
timeout and releases the rest, so another worker takes them at once without spending an
attempt."""

from __future__ import annotations

import inspect
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, cast

from ._idempotency import IdempotencyStore
from ._long_poll import LongPoll
from ._pull import Lease, LeasedTask, LeaseRequest
from ._worker_core import (
    NO_HANDLER_NACK,
    RELEASE,
    Answer,
    PullWorkerOptions,
    Registry,
    claim_answer,
    extend_interval,
    handler_answer,
    is_lost,
    lease_backoff,
    seconds,
)

if TYPE_CHECKING:
    from ._client import Client

logger = logging.getLogger("delayed_tasks.worker")

LeaseHandler = Callable[[LeasedTask], object]


@dataclass(eq=False)
class _Job:
    lease: Lease
    state: str = "running"  # running -> settling | released
    lost: bool = False
    finished: threading.Event = field(default_factory=threading.Event)


class PullWorker:
    """```python
    worker = PullWorker(client, PullWorkerOptions(concurrency=4))

    @worker.handler("order.close")
    def close(task: LeasedTask) -> None: ...

    worker.run()  # until worker.shutdown(), from a signal handler or another thread
    ```
    Handlers run on threads (one per task in flight); a handler still running when shutdown
    released its task runs on, but its result is not sent (its store key is still completed or
    released)."""

    def __init__(self, client: Client, options: PullWorkerOptions | None = None) -> None:
        self._client = client
        self._registry = Registry(options)
        store = self._registry.options.idempotency_store
        if store is not None and inspect.iscoroutinefunction(store.claim):
            raise TypeError("PullWorker needs a synchronous IdempotencyStore")
        self._store = cast("IdempotencyStore | None", store)
        # The long polls on connections of their own, which shutdown can hang up (_long_poll.py);
        # through the client itself when it was given a transport or an http client.
        own = client._own_connections()
        self._long_poll = LongPoll(client, own) if own is not None else None
        self._cond = threading.Condition()
        self._jobs: dict[str, _Job] = {}
        self._stopping = False
        self._deadline = 0.0
        self._running = False
        self._run_thread: threading.Thread | None = None
        self._stopped = threading.Event()

    @property
    def options(self) -> PullWorkerOptions:
        return self._registry.options

    def handle(self, task_type: str, handler: LeaseHandler) -> None:
        self._registry.add(task_type, handler)

    def handler(self, task_type: str) -> Callable[[LeaseHandler], LeaseHandler]:
        """Decorator form of `handle`."""
        return self._registry.decorator(task_type)

    def run(self) -> None:
        """Lease and handle tasks until `shutdown()`; returns once shut down."""
        self._registry.check_runnable()
        with self._cond:
            if self._running:
                raise RuntimeError("this worker is running already")
            self._running, self._run_thread = True, threading.current_thread()
        try:
            self._lease_loop()
            self._drain()
        finally:
            if self._long_poll is not None:
                self._long_poll.close()
            with self._cond:
                self._running = False
            self._stopped.set()

    def shutdown(self, timeout: float | timedelta | None = None) -> None:
        """Stop leasing; let the handlers in flight finish for up to `timeout` (default: the
        options' `shutdown_timeout`), then release the tasks still running. Waits until `run()`
        returned, unless called on `run()`'s own thread (a signal handler): then it only asks."""
        limit = seconds(timeout if timeout is not None else self.options.shutdown_timeout)
        with self._cond:
            if not self._stopping:
                self._stopping = True
                self._deadline = time.monotonic() + limit
                self._cond.notify_all()
            running, run_thread = self._running, self._run_thread
        if running and run_thread is not threading.current_thread():
            self._stopped.wait()

    # The lease loop.

    def _lease_loop(self) -> None:
        concurrency = self.options.concurrency
        failures = 0
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._stopping or len(self._jobs) < concurrency)
                if self._stopping:
                    return
                request = self._registry.lease_request(concurrency - len(self._jobs))
            call = _LeaseCall(self, request)
            with self._cond:
                self._cond.wait_for(lambda c=call: self._stopping or c.done)  # type: ignore[misc]
                if not call.done:
                    # The long poll is abandoned: hung up, and what it answers anyway is released.
                    call.abandoned = True
                    if self._long_poll is not None:
                        self._long_poll.cancel()
                    return
            if call.error is not None:
                failures += 1
                wait = lease_backoff(failures)
                logger.warning("lease failed (retry in %.1f s): %s", wait, call.error)
                with self._cond:
                    self._cond.wait_for(lambda: self._stopping, timeout=wait)
                continue
            failures = 0
            for lease in call.leases:
                self._start(lease)

    def _start(self, lease: Lease) -> None:
        with self._cond:
            if self._stopping:
                release = True
            else:
                release = False
                self._jobs[lease.lease_token] = job = _Job(lease)
        if release:
            self._send(lease.lease_token, RELEASE)
            return
        threading.Thread(target=self._work, args=(job,), daemon=True).start()

    # One task.

    def _work(self, job: _Job) -> None:
        task, token = job.lease.task, job.lease.lease_token
        try:
            handler = self._registry.handler_for(task)
            if handler is None:
                self._settle(job, lambda: self._send(token, NO_HANDLER_NACK))
                return
            store = self._store
            claim = None
            if store is not None:
                claim = store.claim(task.idempotency_key, self.options.claim_ttl)
            early = claim_answer(claim)
            if early is not None:
                self._settle(job, lambda: self._send(token, early))
                return
            with self._cond:
                released = job.state == "released"
            if released:  # shutdown released the lease while the key was being claimed
                if store is not None and claim is not None and claim.token is not None:
                    store.release(task.idempotency_key, claim.token)
                return
            threading.Thread(target=self._extend_while_running, args=(job,), daemon=True).start()
            error: Exception | None = None
            try:
                handler(task)
            except Exception as exc:  # noqa: BLE001 - every failure is a nack
                error = exc
            job.finished.set()
            if store is not None and claim is not None and claim.token is not None:
                if error is None:
                    store.complete(task.idempotency_key)
                else:
                    store.release(task.idempotency_key, claim.token)
            answer = handler_answer(task, error)
            self._settle(job, lambda: self._send(token, answer))
        except Exception:
            # A store that failed: the lease expires and the task is retried.
            logger.exception("task %s: the idempotency store failed", task.task_id)
            self._settle(job, lambda: None)

    def _settle(self, job: _Job, send: Callable[[], object]) -> None:
        """Send the task's answer unless shutdown released it or its lease was lost, then free
        its slot."""
        with self._cond:
            if job.state == "released":
                return
            job.state = "settling"
        job.finished.set()
        if job.lost:
            logger.warning(
                "task %s: its lease was lost; the result is not sent", job.lease.task.task_id
            )
        else:
            send()
        with self._cond:
            self._jobs.pop(job.lease.lease_token, None)
            self._cond.notify_all()

    def _extend_while_running(self, job: _Job) -> None:
        expires = job.lease.lease_expires_at
        while not job.finished.wait(extend_interval(expires)):
            try:
                expires = self._client.extend(job.lease.lease_token).lease_expires_at
            except Exception as exc:  # noqa: BLE001 - logged; a lost lease stops the extension
                if is_lost(exc):
                    logger.warning("task %s: lease lost: %s", job.lease.task.task_id, exc)
                    job.lost = True
                    return
                logger.warning("task %s: extend failed: %s", job.lease.task.task_id, exc)

    def _send(self, token: str, answer: Answer) -> None:
        try:
            if answer.verb == "nack":
                self._client.nack(token, answer.nack)
            else:
                getattr(self._client, answer.verb)(token)
        except Exception as exc:  # noqa: BLE001 - reported; the worker goes on
            logger.warning("%s of lease failed: %s", answer.verb, exc)

    # Shutdown.

    def _drain(self) -> None:
        with self._cond:
            self._cond.wait_for(
                lambda: not self._jobs, timeout=max(0.0, self._deadline - time.monotonic())
            )
            running = [job for job in self._jobs.values() if job.state == "running"]
            for job in running:
                job.state = "released"
        for job in running:
            job.finished.set()  # stops its extension
            self._send(job.lease.lease_token, RELEASE)
            with self._cond:
                self._jobs.pop(job.lease.lease_token, None)
        with self._cond:
            self._cond.wait_for(lambda: not self._jobs)  # answers being sent


class _LeaseCall:
    """One long poll on a thread of its own, so that shutdown need not wait for it."""

    def __init__(self, worker: PullWorker, request: LeaseRequest) -> None:
        self.done = False
        self.abandoned = False
        self.leases: list[Lease] = []
        self.error: Exception | None = None
        self._worker = worker
        threading.Thread(target=self._run, args=(request,), daemon=True).start()

    def _run(self, request: LeaseRequest) -> None:
        worker = self._worker
        poll = worker._long_poll
        try:
            leases = poll.lease(request) if poll is not None else worker._client.lease(request)
            error = None
        except Exception as exc:  # noqa: BLE001 - the lease loop backs off
            leases, error = [], exc
        with worker._cond:
            self.leases, self.error, self.done = leases, error, True
            abandoned = self.abandoned
            worker._cond.notify_all()
        if abandoned:
            for lease in leases:
                worker._send(lease.lease_token, RELEASE)
