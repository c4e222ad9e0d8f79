"""What the ASGI and WSGI adapters share: per-task-type registration, and the mapping of a
callback's fate to the status the service acts on.

| outcome                                   | status | the service                 |
| ----------------------------------------- | ------ | --------------------------- |
| handler returned (or key already handled) | 200    | task SUCCEEDED              |
| `RetryableError` (optional `retry_after`) | 503    | retries (`Retry-After`)     |
| any other exception                       | 500    | retries                     |
| `PermanentError`                          | 422    | task FAILED at once         |
| unknown task type                         | 422    | task FAILED at once         |
| signature check failed                    | 401    | task FAILED at once         |
| body unparseable                          | 400    | task FAILED at once         |
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Generic, TypeVar

from ._callback import (
    DEFAULT_TOLERANCE,
    Callback,
    InvalidCallbackError,
    WebhookVerifier,
    parse_callback,
)
from ._idempotency import Idempotency, IdempotencyStore

logger = logging.getLogger("delayed_tasks")

H = TypeVar("H")

DEFAULT_MAX_BODY_BYTES = 1024 * 1024
"""The service's payload limit (256 KiB) plus room for the envelope, with margin."""


class RetryableError(Exception):
    """Raise from a handler to have the callback retried (503), after `retry_after` if given."""

    def __init__(self, message: str = "", *, retry_after: float | timedelta | None = None) -> None:
        super().__init__(message)
        self.retry_after = (
            retry_after.total_seconds() if isinstance(retry_after, timedelta) else retry_after
        )


class PermanentError(Exception):
    """Raise from a handler when no retry can succeed: the task fails at once (422)."""


@dataclass(frozen=True, slots=True)
class Reply:
    status: int
    body: bytes
    headers: list[tuple[str, str]] = field(default_factory=list)

    @classmethod
    def json(cls, status: int, **content: object) -> Reply:
        return cls(status, json.dumps(content).encode(), [("content-type", "application/json")])


@dataclass(frozen=True, slots=True)
class Accepted(Generic[H]):
    """A verified, parsed callback with its handler, ready to run."""

    callback: Callback
    handler: H
    idempotency_key: str | None


class CallbackReceiver(Generic[H]):
    """Registration and the checks before and after a handler runs; I/O is the adapters'."""

    def __init__(
        self,
        *,
        secrets: str | Iterable[str] | None = None,
        tolerance: timedelta = DEFAULT_TOLERANCE,
        clock: Callable[[], float] = time.time,
        idempotency_store: IdempotencyStore | None = None,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    ) -> None:
        """`secrets` (`whsec_...`): verify every callback's signature; `None` accepts unsigned
        callbacks (only for services that do not sign yet)."""
        self._verifier = (
            WebhookVerifier(secrets, tolerance=tolerance, clock=clock)
            if secrets is not None
            else None
        )
        self.idempotency = Idempotency(idempotency_store)
        self.max_body_bytes = max_body_bytes
        self._handlers: dict[str, H] = {}

    def register(self, task_type: str, handler: H) -> None:
        if task_type in self._handlers:
            raise ValueError(f"a handler for {task_type!r} is already registered")
        self._handlers[task_type] = handler

    def handler(self, task_type: str) -> Callable[[H], H]:
        """Decorator form of `register`."""

        def decorate(handler: H) -> H:
            self.register(task_type, handler)
            return handler

        return decorate

    def accept(self, method: str, headers: Mapping[str, str], body: bytes) -> Reply | Accepted[H]:
        """The reply for a callback that must not reach a handler, or the handler to run."""
        if method != "POST":
            return Reply(405, b"", [("allow", "POST")])
        try:
            if self._verifier is not None:
                self._verifier.verify(headers, body)
        except InvalidCallbackError as exc:
            logger.warning("callback refused: %s", exc)
            return Reply.json(401, error=str(exc.reason))
        try:
            callback = parse_callback(body)
        except InvalidCallbackError as exc:
            logger.warning("callback refused: %s", exc)
            return Reply.json(400, error=str(exc.reason))
        handler = self._handlers.get(callback.task_type)
        if handler is None:
            logger.warning("callback for unknown task type %r", callback.task_type)
            return Reply.json(422, error="unknown_task_type")
        key = headers.get("idempotency-key")
        if self.idempotency.seen(key):
            return Reply.json(200, ok=True, duplicate=True)
        return Accepted(callback, handler, key)

    def finish(self, accepted: Accepted[H], error: Exception | None) -> Reply:
        """The reply after the handler returned (`error` `None`) or raised."""
        if error is None:
            self.idempotency.done(accepted.idempotency_key)
            return Reply.json(200, ok=True)
        task = accepted.callback.task_id
        if isinstance(error, PermanentError):
            logger.warning("callback of task %s failed permanently: %s", task, error)
            return Reply.json(422, error="permanent", message=str(error))
        if isinstance(error, RetryableError):
            logger.info("callback of task %s to be retried: %s", task, error)
            reply = Reply.json(503, error="retryable", message=str(error))
            if error.retry_after is not None:
                seconds = str(max(0, math.ceil(error.retry_after)))
                reply.headers.append(("retry-after", seconds))
            return reply
        logger.error("callback handler of task %s raised", task, exc_info=error)
        return Reply.json(500, error="internal")
