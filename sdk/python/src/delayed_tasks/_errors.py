"""The one exception hierarchy of the client: `DelayedTaskError` and a subclass per known code."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import httpx


class ErrorCode(StrEnum):
    """Codes the API sends today. `DelayedTaskError.code` is a plain `str`: a code from a newer
    server passes through unchanged, so compare with these constants rather than match on them."""

    INVALID_ARGUMENT = "INVALID_ARGUMENT"
    PAYLOAD_TOO_LARGE = "PAYLOAD_TOO_LARGE"
    UNAUTHENTICATED = "UNAUTHENTICATED"
    PERMISSION_DENIED = "PERMISSION_DENIED"
    TASK_NOT_FOUND = "TASK_NOT_FOUND"
    NOT_FOUND = "NOT_FOUND"
    TASK_CONFLICT = "TASK_CONFLICT"
    SCHEDULE_NOT_FOUND = "SCHEDULE_NOT_FOUND"
    SCHEDULE_CONFLICT = "SCHEDULE_CONFLICT"
    SCHEDULE_LIMIT_EXCEEDED = "SCHEDULE_LIMIT_EXCEEDED"
    FAILED_PRECONDITION = "FAILED_PRECONDITION"
    METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED"
    UNSUPPORTED_MEDIA_TYPE = "UNSUPPORTED_MEDIA_TYPE"
    RESOURCE_EXHAUSTED = "RESOURCE_EXHAUSTED"
    UNAVAILABLE = "UNAVAILABLE"
    INTERNAL = "INTERNAL"
    REQUEST_TIMEOUT = "REQUEST_TIMEOUT"
    HEADERS_TOO_LARGE = "HEADERS_TOO_LARGE"
    LEASE_NOT_FOUND = "LEASE_NOT_FOUND"
    LEASE_EXPIRED = "LEASE_EXPIRED"
    TASK_CANCELLED = "TASK_CANCELLED"
    UNKNOWN = "UNKNOWN"
    """Not sent by the API: the answer had no JSON error body."""


@dataclass(frozen=True, slots=True)
class ErrorDetail:
    """One offending field: a dotted path (`payload.items.2`, or `body`) and why."""

    field: str
    reason: str


class DelayedTaskError(Exception):
    """Every failure of a client call: the API's error body (`code`, `message`, `details`) with
    the answer's HTTP `status` and `x-request-id`.

    `status` is `0` when no answer was received: the checks before sending refused the
    arguments (`INVALID_ARGUMENT`, nothing sent), or the network failed after the retries
    (`UNAVAILABLE`). `str(error)` is the message.
    """

    code: str
    message: str
    details: tuple[ErrorDetail, ...]
    status: int
    request_id: str | None

    def __init__(
        self,
        code: str,
        message: str,
        *,
        details: Sequence[ErrorDetail] = (),
        status: int = 0,
        request_id: str | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = tuple(details)
        self.status = status
        self.request_id = request_id

    def __reduce__(self) -> tuple[Any, ...]:
        # Keyword-only fields: rebuild from code and message, then restore the rest (pickle,
        # multiprocessing, task queues).
        return (type(self), (self.code, self.message), self.__dict__)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(code={self.code!r}, message={self.message!r}, "
            f"status={self.status!r}, details={list(self.details)!r})"
        )


class InvalidArgumentError(DelayedTaskError):
    """The request breaks a rule (`details` names each field); nothing was created."""


class PayloadTooLargeError(DelayedTaskError):
    pass


class UnauthenticatedError(DelayedTaskError):
    pass


class PermissionDeniedError(DelayedTaskError):
    pass


class TaskNotFoundError(DelayedTaskError):
    pass


class NotFoundError(DelayedTaskError):
    pass


class TaskConflictError(DelayedTaskError):
    """A task with this id exists with another specification."""


class ScheduleNotFoundError(DelayedTaskError):
    """No schedule has this id for the caller's owner."""


class ScheduleConflictError(DelayedTaskError):
    """A schedule with this id exists with another specification."""


class ScheduleLimitExceededError(DelayedTaskError):
    """The owner has the configured maximum number of schedules; nothing was created."""


class FailedPreconditionError(DelayedTaskError):
    """The task's status does not allow the action."""


class MethodNotAllowedError(DelayedTaskError):
    pass


class RequestTimeoutError(DelayedTaskError):
    """The request did not arrive in time (sent before any route; nothing was done)."""


class HeadersTooLargeError(DelayedTaskError):
    """The request line or headers were too large (sent before any route; nothing done)."""


class UnsupportedMediaTypeError(DelayedTaskError):
    pass


class ResourceExhaustedError(DelayedTaskError):
    pass


class UnavailableError(DelayedTaskError):
    """The service (or the network to it) is unavailable; retried before it is raised."""


class InternalError(DelayedTaskError):
    pass


class LeaseNotFoundError(DelayedTaskError):
    """A lease token of another owner, or of no lease the service knows."""


class LeaseExpiredError(DelayedTaskError):
    """The lease expired: the task was retried or handed to another worker."""


class TaskCancelledError(DelayedTaskError):
    """The task was cancelled while leased."""


_CLASS_BY_CODE: dict[str, type[DelayedTaskError]] = {
    ErrorCode.INVALID_ARGUMENT: InvalidArgumentError,
    ErrorCode.PAYLOAD_TOO_LARGE: PayloadTooLargeError,
    ErrorCode.UNAUTHENTICATED: UnauthenticatedError,
    ErrorCode.PERMISSION_DENIED: PermissionDeniedError,
    ErrorCode.TASK_NOT_FOUND: TaskNotFoundError,
    ErrorCode.NOT_FOUND: NotFoundError,
    ErrorCode.TASK_CONFLICT: TaskConflictError,
    ErrorCode.SCHEDULE_NOT_FOUND: ScheduleNotFoundError,
    ErrorCode.SCHEDULE_CONFLICT: ScheduleConflictError,
    ErrorCode.SCHEDULE_LIMIT_EXCEEDED: ScheduleLimitExceededError,
    ErrorCode.FAILED_PRECONDITION: FailedPreconditionError,
    ErrorCode.METHOD_NOT_ALLOWED: MethodNotAllowedError,
    ErrorCode.UNSUPPORTED_MEDIA_TYPE: UnsupportedMediaTypeError,
    ErrorCode.RESOURCE_EXHAUSTED: ResourceExhaustedError,
    ErrorCode.UNAVAILABLE: UnavailableError,
    ErrorCode.INTERNAL: InternalError,
    ErrorCode.REQUEST_TIMEOUT: RequestTimeoutError,
    ErrorCode.HEADERS_TOO_LARGE: HeadersTooLargeError,
    ErrorCode.LEASE_NOT_FOUND: LeaseNotFoundError,
    ErrorCode.LEASE_EXPIRED: LeaseExpiredError,
    ErrorCode.TASK_CANCELLED: TaskCancelledError,
}


def make_error(
    code: str,
    message: str,
    *,
    details: Sequence[ErrorDetail] = (),
    status: int = 0,
    request_id: str | None = None,
) -> DelayedTaskError:
    """The exception of the class for `code` (the base class for an unknown code)."""
    cls = _CLASS_BY_CODE.get(code, DelayedTaskError)
    return cls(code, message, details=details, status=status, request_id=request_id)


def invalid_argument(details: Sequence[ErrorDetail]) -> DelayedTaskError:
    """A check before sending failed: no request was made, so status `0`. The message is
    `"<field> <reason>"` (several joined by `; `)."""
    message = "; ".join(f"{d.field} {d.reason}" for d in details)
    return make_error(ErrorCode.INVALID_ARGUMENT, message, details=details)


REQUEST_ID_HEADER = "x-request-id"


def error_from_response(response: httpx.Response) -> DelayedTaskError:
    """The error an answer outside 2xx stands for: the API's `{"error": {...}}` as sent, or
    `UNKNOWN` with the status when the body is not that."""
    status = response.status_code
    request_id = response.headers.get(REQUEST_ID_HEADER)
    body: Any
    try:
        body = json.loads(response.content)
    except ValueError:
        body = None
    error = body.get("error") if isinstance(body, dict) else None
    text = response.text[:200].strip() or response.reason_phrase
    return error_from_json(error, status, request_id, fallback=f"HTTP {status}: {text}")


def error_from_json(
    error: Any, status: int, request_id: str | None, *, fallback: str = ""
) -> DelayedTaskError:
    """The API's `{"code", "message", "details"}` (of an answer, or of one item of a batch) as
    the exception of its code; `UNKNOWN` when it is not that shape."""
    if not isinstance(error, dict) or not isinstance(error.get("code"), str):
        return make_error(
            ErrorCode.UNKNOWN, fallback or f"HTTP {status}", status=status, request_id=request_id
        )
    message = error.get("message")
    raw_details = error.get("details")
    details = [
        ErrorDetail(field=str(d.get("field", "")), reason=str(d.get("reason", "")))
        for d in (raw_details if isinstance(raw_details, list) else [])
        if isinstance(d, dict)
    ]
    return make_error(
        error["code"],
        message if isinstance(message, str) else "",
        details=details,
        status=status,
        request_id=request_id,
    )
