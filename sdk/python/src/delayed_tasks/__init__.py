"""Python client of the delayed-task service, and helpers to receive its callbacks."""

from ._async_client import AsyncClient
from ._callback import (
    Callback,
    InvalidCallbackError,
    RejectReason,
    WebhookVerifier,
    parse_callback,
)
from ._checks import Delay
from ._client import Client
from ._errors import (
    DelayedTaskError,
    ErrorCode,
    ErrorDetail,
    FailedPreconditionError,
    InternalError,
    InvalidArgumentError,
    MethodNotAllowedError,
    NotFoundError,
    PayloadTooLargeError,
    PermissionDeniedError,
    ResourceExhaustedError,
    TaskConflictError,
    TaskNotFoundError,
    UnauthenticatedError,
    UnavailableError,
    UnsupportedMediaTypeError,
)
from ._idempotency import Idempotency, IdempotencyStore, InMemoryIdempotencyStore
from ._models import (
    Attempt,
    AttemptOutcome,
    CreateResult,
    CreateTasksItem,
    LastError,
    Task,
    TaskPage,
    TaskStatus,
    TaskSummary,
)
from ._receiver import PermanentError, RetryableError
from ._request import NewTask
from ._retry import RetryPolicy
from ._version import __version__
from .asgi import CallbackASGIApp
from .wsgi import CallbackWSGIApp

__all__ = [
    "AsyncClient",
    "Attempt",
    "AttemptOutcome",
    "Callback",
    "CallbackASGIApp",
    "CallbackWSGIApp",
    "Client",
    "CreateResult",
    "CreateTasksItem",
    "Delay",
    "DelayedTaskError",
    "ErrorCode",
    "ErrorDetail",
    "FailedPreconditionError",
    "Idempotency",
    "IdempotencyStore",
    "InMemoryIdempotencyStore",
    "InternalError",
    "InvalidArgumentError",
    "InvalidCallbackError",
    "LastError",
    "MethodNotAllowedError",
    "NewTask",
    "NotFoundError",
    "PayloadTooLargeError",
    "PermanentError",
    "PermissionDeniedError",
    "RejectReason",
    "ResourceExhaustedError",
    "RetryPolicy",
    "RetryableError",
    "Task",
    "TaskConflictError",
    "TaskNotFoundError",
    "TaskPage",
    "TaskStatus",
    "TaskSummary",
    "UnauthenticatedError",
    "UnavailableError",
    "UnsupportedMediaTypeError",
    "WebhookVerifier",
    "__version__",
    "parse_callback",
]
