"""What the ASGI and WSGI adapters share: per-task-type registration, and the answer to each
delivery. The status decides what the service does; the JSON body is the same in every SDK.

- handler returned: 200 `{"status":"handled"}`; the task SUCCEEDED.
- a callback already handled (its signed `webhook-id` seen; the body's task id when unsigned,
  never the unsigned `Idempotency-Key` header): 200 `{"status":"duplicate"}`, the handler is not
  run.
- signature missing, invalid or expired: 401 `{"status":"refused","reason":"<RejectionReason>"}`;
  a signed body that is not a callback: 400 `{"status":"refused","reason":"invalid_body"}`.
  The task fails at once (4xx is permanent).
- `RetryableError`: 503 `{"status":"retry"}`, with `Retry-After` when it gave a delay; retried.
- `PermanentError`: 422 `{"status":"failed"}`; no handler for the task type: 422
  `{"status":"failed","reason":"no handler for task type"}`. The task fails at once.
- any other exception: 500 `{"status":"error"}` (never the exception's text); retried.
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
    CallbackRejectedError,
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
    def answer(cls, http_status: int, outcome: str, reason: str | None = None) -> Reply:
        """`{"status": outcome}`, with `"reason"` when given, as JSON."""
        content = {"status": outcome} if reason is None else {"status": outcome, "reason": reason}
        body = json.dumps(content, separators=(",", ":")).encode()
        return cls(http_status, body, [("content-type", "application/json")])

    @classmethod
    def refused(cls, http_status: int, reason: str) -> Reply:
        return cls.answer(http_status, "refused", reason)


NO_HANDLER = "no handler for task type"


@dataclass(frozen=True, slots=True)
class Accepted(Generic[H]):
    """A verified, parsed callback with its handler, ready to run."""

    callback: Callback
    handler: H
    idempotency_key: str
    """The signed `webhook-id` (the body's task id when unsigned), recorded once handled."""


class CallbackReceiver(Generic[H]):
    """Registration and the checks before and after a handler runs; I/O is the adapters'."""

    def __init__(
        self,
        *,
        secrets: str | Iterable[str] | None = None,
        allow_unsigned: bool = False,
        tolerance: timedelta = DEFAULT_TOLERANCE,
        clock: Callable[[], float] = time.time,
        idempotency_store: IdempotencyStore | None = None,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    ) -> None:
        """`secrets` (`whsec_...`, several while one is rotated out): every callback's
        signature is verified with them. Without secrets the receiver refuses to be built,
        unless `allow_unsigned=True` says the service does not sign its callbacks; a secret
        given is always checked, whatever `allow_unsigned` says."""
        listed = [secrets] if isinstance(secrets, str) else list(secrets or ())
        if not listed and not allow_unsigned:
            raise ValueError(
                "give the webhook secrets, or allow_unsigned=True for a service that does not "
                "sign its callbacks"
            )
        self._verifier = (
            WebhookVerifier(listed, tolerance=tolerance, clock=clock) if listed else None
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
        """The reply for a callback that must not reach a handler, or the handler to run.
        `headers` are looked up case-insensitively."""
        if method != "POST":
            reply = Reply.refused(405, "method_not_allowed")
            reply.headers.append(("allow", "POST"))
            return reply
        try:
            signed_id = None if self._verifier is None else self._verifier.verify(headers, body)
        except CallbackRejectedError as exc:
            logger.warning("callback refused: %s", exc)
            return Reply.refused(401, exc.reason)
        try:
            callback = parse_callback(body)
        except CallbackRejectedError as exc:
            logger.warning("callback refused: %s", exc)
            return Reply.refused(400, exc.reason)
        handler = self._handlers.get(callback.task_type)
        if handler is None:
            logger.warning("callback for task type %r, which has no handler", callback.task_type)
            return Reply.answer(422, "failed", NO_HANDLER)
        # The key is what the signature covers, read once it held: the `webhook-id` (the same on
        # every attempt of a task, owner-scoped), never the unsigned `Idempotency-Key` header,
        # which a replay within the tolerance could drop or swap for another task's. Unsigned,
        # the body's task id: the key and the work come from the same bytes.
        key = signed_id if signed_id is not None else callback.task_id
        if self.idempotency.seen(key):
            return Reply.answer(200, "duplicate")
        return Accepted(callback, handler, key)

    def finish(self, accepted: Accepted[H], error: Exception | None) -> Reply:
        """The reply after the handler returned (`error` `None`) or raised."""
        if error is None:
            self.idempotency.done(accepted.idempotency_key)
            return Reply.answer(200, "handled")
        task = accepted.callback.task_id
        if isinstance(error, PermanentError):
            logger.warning("callback of task %s failed permanently: %s", task, error)
            return Reply.answer(422, "failed")
        if isinstance(error, RetryableError):
            logger.info("callback of task %s to be retried: %s", task, error)
            reply = Reply.answer(503, "retry")
            if error.retry_after is not None:
                seconds = str(max(0, math.ceil(error.retry_after)))
                reply.headers.append(("retry-after", seconds))
            return reply
        logger.error("callback handler of task %s raised", task, exc_info=error)
        return Reply.answer(500, "error")
