"""Python client of the delayed-task service, and helpers to receive its callbacks."""

from ._async_client import AsyncClient
from ._callback import (
    Callback,
    CallbackRejectedError,
    CallbackSchedule,
    RejectionReason,
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
    LeaseExpiredError,
    LeaseNotFoundError,
    HeadersTooLargeError,
    MethodNotAllowedError,
    NotFoundError,
    PayloadTooLargeError,
    PermissionDeniedError,
    RequestTimeoutError,
    ResourceExhaustedError,
    ScheduleConflictError,
    ScheduleLimitExceededError,
    ScheduleNotFoundError,
    TaskCancelledError,
    TaskConflictError,
    TaskNotFoundError,
    UnauthenticatedError,
    UnavailableError,
    UnsupportedMediaTypeError,
)
from ._idempotency import (
    Claim,
    ClaimResult,
    Idempotency,
    IdempotencyStore,
    InMemoryIdempotencyStore,
)
from ._models import (
    AttemptOutcome,
    CreateTaskResult,
    CreateTasksItem,
    Task,
    TaskAttempt,
    TaskError,
    TaskPage,
    TaskStatus,
    TaskSummary,
)
from ._pull import Lease, LeasedTask, LeaseRequest, NackRequest
from ._receiver import CallbackReceiver, PermanentError, RetryableError
from ._request import CreateTaskRequest
from ._retry import RetryPolicy
from ._schedules import (
    UNSET,
    CreateScheduleResult,
    OverlapPolicy,
    Schedule,
    ScheduleOccurrence,
    SchedulePage,
    ScheduleSummary,
    ScheduleTask,
    ScheduleTaskRequest,
)
from ._version import __version__
from ._worker import PullWorker, PullWorkerOptions
from .asgi import AsyncCallbackHandler, CallbackASGIApp
from .wsgi import CallbackHandler, CallbackWSGIApp

__all__ = [
    "UNSET",
    "AsyncCallbackHandler",
    "AsyncClient",
    "AttemptOutcome",
    "Callback",
    "CallbackASGIApp",
    "CallbackHandler",
    "CallbackReceiver",
    "CallbackRejectedError",
    "CallbackSchedule",
    "CallbackWSGIApp",
    "Claim",
    "ClaimResult",
    "Client",
    "CreateScheduleResult",
    "CreateTaskRequest",
    "CreateTaskResult",
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
    "Lease",
    "LeaseExpiredError",
    "LeaseNotFoundError",
    "LeaseRequest",
    "LeasedTask",
    "HeadersTooLargeError",
    "MethodNotAllowedError",
    "NackRequest",
    "NotFoundError",
    "OverlapPolicy",
    "PayloadTooLargeError",
    "PermanentError",
    "PermissionDeniedError",
    "PullWorker",
    "PullWorkerOptions",
    "RejectionReason",
    "RequestTimeoutError",
    "ResourceExhaustedError",
    "RetryPolicy",
    "RetryableError",
    "Schedule",
    "ScheduleConflictError",
    "ScheduleLimitExceededError",
    "ScheduleNotFoundError",
    "ScheduleOccurrence",
    "SchedulePage",
    "ScheduleSummary",
    "ScheduleTask",
    "ScheduleTaskRequest",
    "Task",
    "TaskAttempt",
    "TaskCancelledError",
    "TaskConflictError",
    "TaskError",
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

# The asyncio twins and the lease verbs' answers (named in conformance/pull/README.md): public,
# but not in __all__ until conformance/vocabulary.json lists them (its test compares __all__
# with it both ways).
from ._async_worker import AsyncPullWorker as AsyncPullWorker
from ._idempotency import AsyncIdempotencyStore as AsyncIdempotencyStore
from ._pull import ExtendResult as ExtendResult
from ._pull import LeaseResult as LeaseResult
