"""`AsyncPullWorker`: `PullWorker` on asyncio (an `AsyncClient`; handlers are coroutines, or
plain functions run on the event loop). Shutdown cancels the pending long poll (the service
hands back what it leased after the hang-up) and, after the timeout, releases and cancels the
handlers still running."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from ._idempotency import maybe_await
from ._pull import Lease, LeasedTask
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
    from ._async_client import AsyncClient

logger = logging.getLogger("delayed_tasks.worker")

AsyncLeaseHandler = Callable[[LeasedTask], Awaitable[object] | object]


@dataclass(eq=False)
class _Job:
    lease: Lease
    task: asyncio.Task[None] | None = None
    state: str = "running"  # running -> settling | released
    lost: bool = False


class AsyncPullWorker:
    """```python
    worker = AsyncPullWorker(client, PullWorkerOptions(concurrency=4))

    @worker.handler("order.close")
    async def close(task: LeasedTask) -> None: ...

    await worker.run()  # until await worker.shutdown()
    ```"""

    def __init__(self, client: AsyncClient, options: PullWorkerOptions | None = None) -> None:
        self._client = client
        self._registry = Registry(options)
        self._store = self._registry.options.idempotency_store
        self._jobs: dict[str, _Job] = {}
        self._changed: asyncio.Condition | None = None
        self._stopping = False
        self._deadline = 0.0
        self._stopped: asyncio.Event | None = None

    @property
    def options(self) -> PullWorkerOptions:
        return self._registry.options

    def handle(self, task_type: str, handler: AsyncLeaseHandler) -> None:
        self._registry.add(task_type, handler)

    def handler(self, task_type: str) -> Callable[[AsyncLeaseHandler], AsyncLeaseHandler]:
        """Decorator form of `handle`."""
        return self._registry.decorator(task_type)

    async def run(self) -> None:
        """Lease and handle tasks until `shutdown()`; returns once shut down."""
        self._registry.check_runnable()
        if self._stopped is not None and not self._stopped.is_set():
            raise RuntimeError("this worker is running already")
        self._changed, self._stopped = asyncio.Condition(), asyncio.Event()
        try:
            await self._lease_loop()
            await self._drain()
        finally:
            self._stopped.set()

    async def shutdown(self, timeout: float | timedelta | None = None) -> None:
        """Stop leasing; let the handlers in flight finish for up to `timeout` (default: the
        options' `shutdown_timeout`), then release and cancel the rest. Returns once `run()`
        returned."""
        limit = seconds(timeout if timeout is not None else self.options.shutdown_timeout)
        if not self._stopping:
            self._stopping = True
            self._deadline = time.monotonic() + limit
            await self._notify()
        if self._stopped is not None:
            await self._stopped.wait()

    async def _notify(self) -> None:
        if self._changed is not None:
            async with self._changed:
                self._changed.notify_all()

    async def _lease_loop(self) -> None:
        assert self._changed is not None
        concurrency = self.options.concurrency
        failures = 0
        while True:
            async with self._changed:
                await self._changed.wait_for(
                    lambda: self._stopping or len(self._jobs) < concurrency
                )
                if self._stopping:
                    return
                request = self._registry.lease_request(concurrency - len(self._jobs))
            call = asyncio.ensure_future(self._client.lease(request))
            stop = asyncio.ensure_future(self._until_stopping())
            await asyncio.wait({call, stop}, return_when=asyncio.FIRST_COMPLETED)
            stop.cancel()
            if not call.done():
                call.cancel()  # the hang-up: the service releases what it leased after it
                with contextlib.suppress(BaseException):
                    await call
                return
            error = call.exception()
            if error is not None:
                if not isinstance(error, Exception):
                    raise error
                failures += 1
                wait = lease_backoff(failures)
                logger.warning("lease failed (retry in %.1f s): %s", wait, error)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._until_stopping(), timeout=wait)
                continue
            failures = 0
            for lease in call.result():
                await self._start(lease)

    async def _until_stopping(self) -> None:
        assert self._changed is not None
        async with self._changed:
            await self._changed.wait_for(lambda: self._stopping)

    async def _start(self, lease: Lease) -> None:
        if self._stopping:
            await self._send(lease.lease_token, RELEASE)
            return
        job = _Job(lease)
        self._jobs[lease.lease_token] = job
        job.task = asyncio.create_task(self._work(job))

    async def _work(self, job: _Job) -> None:
        task, token = job.lease.task, job.lease.lease_token
        store = self._store
        try:
            handler = self._registry.handler_for(task)
            if handler is None:
                await self._settle(job, self._send(token, NO_HANDLER_NACK))
                return
            claim = None
            if store is not None:
                claim = await maybe_await(store.claim(task.idempotency_key, self.options.claim_ttl))
            early = claim_answer(claim)
            if early is not None:
                await self._settle(job, self._send(token, early))
                return
            extender = asyncio.create_task(self._extend_while_running(job))
            error: Exception | None = None
            try:
                result = handler(task)
                if inspect.isawaitable(result):
                    await result
            except Exception as exc:  # noqa: BLE001 - every failure is a nack
                error = exc
            except asyncio.CancelledError:
                if store is not None and claim is not None and claim.token is not None:
                    await maybe_await(store.release(task.idempotency_key, claim.token))
                raise
            finally:
                extender.cancel()
            if store is not None and claim is not None and claim.token is not None:
                if error is None:
                    await maybe_await(store.complete(task.idempotency_key))
                else:
                    await maybe_await(store.release(task.idempotency_key, claim.token))
            await self._settle(job, self._send(token, handler_answer(task, error)))
        except Exception:
            logger.exception("task %s: the idempotency store failed", task.task_id)
            await self._settle(job, None)

    async def _settle(self, job: _Job, send: Awaitable[None] | None) -> None:
        if job.state == "released":
            if inspect.iscoroutine(send):
                send.close()
            return
        job.state = "settling"
        if job.lost:
            logger.warning(
                "task %s: its lease was lost; the result is not sent", job.lease.task.task_id
            )
            if inspect.iscoroutine(send):
                send.close()
        elif send is not None:
            await send
        self._jobs.pop(job.lease.lease_token, None)
        await self._notify()

    async def _extend_while_running(self, job: _Job) -> None:
        expires = job.lease.lease_expires_at
        while True:
            await asyncio.sleep(extend_interval(expires))
            try:
                expires = (await self._client.extend(job.lease.lease_token)).lease_expires_at
            except Exception as exc:  # noqa: BLE001 - logged; a lost lease stops the extension
                if is_lost(exc):
                    logger.warning("task %s: lease lost: %s", job.lease.task.task_id, exc)
                    job.lost = True
                    return
                logger.warning("task %s: extend failed: %s", job.lease.task.task_id, exc)

    async def _send(self, token: str, answer: Answer) -> None:
        try:
            if answer.verb == "nack":
                await self._client.nack(token, answer.nack)
            else:
                await getattr(self._client, answer.verb)(token)
        except Exception as exc:  # noqa: BLE001 - reported; the worker goes on
            logger.warning("%s of lease failed: %s", answer.verb, exc)

    async def _drain(self) -> None:
        assert self._changed is not None
        async with self._changed:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(
                    self._changed.wait_for(lambda: not self._jobs),
                    timeout=max(0.0, self._deadline - time.monotonic()),
                )
        running = [job for job in self._jobs.values() if job.state == "running"]
        for job in running:
            job.state = "released"
            await self._send(job.lease.lease_token, RELEASE)
            if job.task is not None:
                job.task.cancel()
            self._jobs.pop(job.lease.lease_token, None)
        async with self._changed:
            await self._changed.wait_for(lambda: not self._jobs)
