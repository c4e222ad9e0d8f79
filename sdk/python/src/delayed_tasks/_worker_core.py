"""What `PullWorker` (threads) and `AsyncPullWorker` (asyncio) decide alike, with no I/O: the
options, the handlers by task type and the lease request, when to extend a lease and how long
to back off a failed lease call, and the answer each outcome of a task gets
(conformance/pull/README.md). Each shell carries the answers out in its own concurrency."""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal, TypeVar

from ._errors import DelayedTaskError
from ._idempotency import (
    DEFAULT_CLAIM_TTL,
    AsyncIdempotencyStore,
    Claim,
    ClaimResult,
    IdempotencyStore,
)
from ._pull import LeasedTask, LeaseRequest, NackRequest
from ._receiver import NO_HANDLER, PermanentError

logger = logging.getLogger("delayed_tasks.worker")

LOST_LEASE_CODES = frozenset({"LEASE_EXPIRED", "LEASE_NOT_FOUND", "TASK_CANCELLED"})
"""An extend, ack or nack answered with one of these: the lease is no longer this worker's."""
LEASE_BACKOFF_FIRST = 1.0
LEASE_BACKOFF_MAX = 30.0
MIN_EXTEND_INTERVAL = 0.05


@dataclass(frozen=True, slots=True, kw_only=True)
class PullWorkerOptions:
    """`queues` default to the registered task types (in registration order); `concurrency`
    bounds the handlers in flight; `wait_seconds` is each long poll's; `worker_identity` (shown
    in the task's status) defaults to host/pid. With an `idempotency_store`, each task's
    `idempotency_key` is claimed (for `claim_ttl`) before its handler runs: done before → acked
    without running; claimed elsewhere → released. `shutdown_timeout` is `shutdown()`'s
    default (seconds or a timedelta)."""

    queues: Sequence[str] | None = None
    concurrency: int = 10
    wait_seconds: int = 20
    worker_identity: str | None = None
    idempotency_store: IdempotencyStore | AsyncIdempotencyStore | None = None
    claim_ttl: timedelta = DEFAULT_CLAIM_TTL
    shutdown_timeout: float | timedelta = 30.0


def default_identity() -> str:
    return f"{socket.gethostname()}/{os.getpid()}"


def seconds(value: float | timedelta) -> float:
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


def extend_interval(expires_at: datetime) -> float:
    """A third of the time the lease has left."""
    left = (expires_at - datetime.now(UTC)).total_seconds()
    return max(MIN_EXTEND_INTERVAL, left / 3)


def lease_backoff(failures: int) -> float:
    return float(min(LEASE_BACKOFF_MAX, LEASE_BACKOFF_FIRST * 2 ** (failures - 1)))


def is_lost(error: Exception) -> bool:
    return isinstance(error, DelayedTaskError) and error.code in LOST_LEASE_CODES


def nack_for(error: Exception) -> NackRequest:
    reason = str(error) or type(error).__name__
    return NackRequest(retryable=not isinstance(error, PermanentError), reason=reason)


@dataclass(frozen=True, slots=True)
class Answer:
    """What the worker sends for a leased task: ack, nack (with its request) or release."""

    verb: Literal["ack", "nack", "release"]
    nack: NackRequest | None = None


ACK = Answer("ack")
RELEASE = Answer("release")
NO_HANDLER_NACK = Answer("nack", NackRequest(retryable=False, reason=NO_HANDLER))


def claim_answer(claim: Claim | None) -> Answer | None:
    """The store's word on a task before its handler runs: done before → ack without running it;
    claimed elsewhere → release; claimed here (or no store) → None, run the handler."""
    if claim is None or claim.result is ClaimResult.CLAIMED:
        return None
    return ACK if claim.result is ClaimResult.DONE else RELEASE


def handler_answer(task: LeasedTask, error: Exception | None) -> Answer:
    """The handler returned → ack; raised → nack, not retryable for `PermanentError` (logged
    otherwise)."""
    if error is None:
        return ACK
    if not isinstance(error, PermanentError):
        logger.warning("handler of task %s raised", task.task_id, exc_info=error)
    return Answer("nack", nack_for(error))


H = TypeVar("H", bound=Callable[[LeasedTask], object])


class Registry:
    """The handlers by task type, and the options both workers share."""

    def __init__(self, options: PullWorkerOptions | None) -> None:
        self.options = options or PullWorkerOptions()
        if self.options.concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.handlers: dict[str, Callable[[LeasedTask], object]] = {}

    def add(self, task_type: str, handler: Callable[[LeasedTask], object]) -> None:
        if task_type in self.handlers:
            raise ValueError(f"a handler for {task_type!r} is already registered")
        self.handlers[task_type] = handler

    def decorator(self, task_type: str) -> Callable[[H], H]:
        """`add` as a decorator, which returns the handler unchanged."""

        def decorate(handler: H) -> H:
            self.add(task_type, handler)
            return handler

        return decorate

    def handler_for(self, task: LeasedTask) -> Callable[[LeasedTask], object] | None:
        """The task type's handler; None (logged) for a type with none, which is nacked."""
        handler = self.handlers.get(task.task_type)
        if handler is None:
            logger.warning("leased a task of type %r, which has no handler", task.task_type)
        return handler

    def lease_request(self, free: int) -> LeaseRequest:
        options = self.options
        return LeaseRequest(
            queues=list(options.queues or self.handlers),
            max=free,
            wait_seconds=options.wait_seconds,
            worker_identity=options.worker_identity or default_identity(),
        )

    def check_runnable(self) -> None:
        if not self.handlers:
            raise ValueError("register a handler (handle) before run()")
