"""The one request builder behind `Client` and `AsyncClient`.

Everything but the I/O lives here: checking arguments, building the HTTP request, deciding after
each attempt whether to retry and how long to wait, and turning the final answer into a result or
a `DelayedTaskError`. The two clients only send and sleep.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Generic, TypeVar
from urllib.parse import quote

import httpx

from ._checks import Delay, check_payload, check_target, encode_time, encode_when
from ._errors import (
    REQUEST_ID_HEADER,
    DelayedTaskError,
    ErrorCode,
    ErrorDetail,
    error_from_json,
    error_from_response,
    invalid_argument,
    make_error,
)
from ._models import CreateTaskResult, CreateTasksItem, Delivery, Task, TaskPage
from ._retry import (
    RETRYABLE_STATUSES,
    RetryPolicy,
    is_retryable_exception,
    retry_after_seconds,
)
from ._version import __version__

T = TypeVar("T")

Trace = Callable[[str, dict[str, Any]], None]
"""httpcore's `trace` request extension: called with each event's name and its info."""

USER_AGENT = f"delayed-tasks-python/{__version__}"
DEFAULT_TIMEOUT = 10.0
TASKS_PATH = "/api/v1/tasks"


@dataclass(frozen=True, slots=True)
class ApiRequest(Generic[T]):
    """One operation: what to send and how to read a 2xx answer (status, JSON body, request
    id)."""

    method: str
    path: str
    query: Mapping[str, str]
    body: Mapping[str, Any] | None
    decode: Callable[[int, Any, str | None], T]
    min_timeout: float | None = None
    """Seconds the HTTP read may take at least, whatever the client's timeout (a long poll)."""


def _task_path(task_id: str, action: str = "") -> str:
    if not isinstance(task_id, str) or not task_id:
        raise invalid_argument([ErrorDetail("taskId", "must be a non-empty string")])
    path = f"{TASKS_PATH}/{quote(task_id, safe='')}"
    return f"{path}/{action}" if action else path


def _checked(problems: list[ErrorDetail]) -> None:
    if problems:
        raise invalid_argument(problems)


def _set(body: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """Add the fields the caller set (not `None`) under their wire names (camelCase)."""
    for name, value in fields.items():
        if value is not None:
            head, *rest = name.split("_")
            body[head + "".join(part.capitalize() for part in rest)] = value
    return body


def _task(_status: int, data: Any, _request_id: str | None) -> Task:
    return Task.from_json(data)


@dataclass(frozen=True, slots=True, kw_only=True)
class CreateTaskRequest:
    """One task for `create_tasks`: the arguments of `create`, with the same rules."""

    task_type: str
    payload: Mapping[str, Any]
    delay: Delay | None = None
    execute_at: datetime | None = None
    callback_url: str | None = None
    delivery: Delivery | None = None
    task_id: str | None = None
    max_retries: int | None = None
    timeout_ms: int | None = None
    payload_version: int | None = None
    trace_id: str | None = None
    priority: int | None = None


def _create_body(task: CreateTaskRequest) -> dict[str, Any]:
    """The wire body of one create; raises `InvalidArgumentError` for what the checks refuse."""
    problems: list[ErrorDetail] = []
    check_payload(task.payload, problems)
    check_target(task.callback_url, task.delivery, "delivery", problems)
    when = encode_when(task.delay, task.execute_at, problems, required=True)
    _checked(problems)
    body = _set(
        {"taskType": task.task_type, "payload": task.payload}, callback_url=task.callback_url
    )
    if task.delivery is not None:
        body["delivery"] = task.delivery.to_json()
    body.update(when)
    # Generated once, before the first attempt: every retry of this create names the same task.
    body["taskId"] = task.task_id if task.task_id is not None else str(uuid.uuid4())
    return _set(
        body,
        max_retries=task.max_retries,
        timeout_ms=task.timeout_ms,
        payload_version=task.payload_version,
        trace_id=task.trace_id,
        priority=task.priority,
    )


def create_request(task: CreateTaskRequest) -> ApiRequest[CreateTaskResult]:
    return ApiRequest(
        "POST",
        TASKS_PATH,
        {},
        _create_body(task),
        lambda status, data, _rid: CreateTaskResult(Task.from_json(data), created=status == 201),
    )


def create_tasks_request(
    tasks: Sequence[CreateTaskRequest],
) -> ApiRequest[list[CreateTasksItem]] | list[CreateTasksItem]:
    """The batch request, or the results themselves when every item was refused before sending.

    An item the checks refuse gets its error in place and is not sent; the answer's `index`
    (a position among the items sent) is mapped back to the caller's index.
    """
    results: list[CreateTasksItem | None] = [None] * len(tasks)
    bodies: list[dict[str, Any]] = []
    sent: list[int] = []  # sent[position in bodies] = index in tasks
    for index, task in enumerate(tasks):
        try:
            bodies.append(_create_body(task))
            sent.append(index)
        except DelayedTaskError as exc:
            results[index] = CreateTasksItem(index=index, task_id=task.task_id, error=exc)
    if tasks and not bodies:
        return [item for item in results if item is not None]

    def decode(status: int, data: Any, request_id: str | None) -> list[CreateTasksItem]:
        filled = list(results)
        for entry in data["results"]:
            position = entry["index"]
            if not isinstance(position, int) or not 0 <= position < len(sent):
                continue
            index, task_id = sent[position], bodies[position]["taskId"]
            if "error" in entry:
                error = error_from_json(entry["error"], entry["status"], request_id)
                filled[index] = CreateTasksItem(index=index, task_id=task_id, error=error)
            else:
                task = Task.from_json(entry["task"])
                created = entry["status"] == 201
                filled[index] = CreateTasksItem(
                    index=index, task_id=task_id, task=task, created=created
                )
        for position, index in enumerate(sent):
            if filled[index] is None:
                error = make_error(
                    ErrorCode.UNKNOWN,
                    "the response has no result for this item",
                    status=status,
                    request_id=request_id,
                )
                filled[index] = CreateTasksItem(
                    index=index, task_id=bodies[position]["taskId"], error=error
                )
        return [item for item in filled if item is not None]

    return ApiRequest("POST", f"{TASKS_PATH}/batch", {}, {"tasks": bodies}, decode)


def status_request(task_id: str) -> ApiRequest[Task]:
    return ApiRequest("GET", _task_path(task_id), {}, None, _task)


def cancel_request(task_id: str) -> ApiRequest[Task]:
    return ApiRequest("POST", _task_path(task_id, "cancel"), {}, None, _task)


@dataclass(frozen=True, slots=True, kw_only=True)
class ListFilter:
    """The filters `list` and `list_all` share; `None` leaves one out."""

    status: str | None = None
    task_type: str | None = None
    id_prefix: str | None = None
    owner: str | None = None
    due_after: datetime | None = None
    due_before: datetime | None = None
    page_size: int | None = None


def _optional_time(value: datetime | None, field: str, problems: list[ErrorDetail]) -> str | None:
    return None if value is None else encode_time(value, field, problems)


def list_request(filters: ListFilter, page_token: str | None) -> ApiRequest[TaskPage]:
    problems: list[ErrorDetail] = []
    due_after = _optional_time(filters.due_after, "dueAfter", problems)
    due_before = _optional_time(filters.due_before, "dueBefore", problems)
    _checked(problems)
    fields = _set(
        {},
        status=filters.status,
        task_type=filters.task_type,
        id_prefix=filters.id_prefix,
        owner=filters.owner,
        due_after=due_after,
        due_before=due_before,
        page_size=filters.page_size,
        page_token=page_token,
    )
    query = {name: str(value) for name, value in fields.items()}
    return ApiRequest(
        "GET", TASKS_PATH, query, None, lambda _s, data, _rid: TaskPage.from_json(data)
    )


def reschedule_request(
    task_id: str, *, delay: Delay | None, execute_at: datetime | None
) -> ApiRequest[Task]:
    problems: list[ErrorDetail] = []
    body = encode_when(delay, execute_at, problems, required=True)
    _checked(problems)
    return ApiRequest("POST", _task_path(task_id, "reschedule"), {}, body, _task)


def replay_request(
    task_id: str,
    *,
    payload: Mapping[str, Any] | None,
    payload_version: int | None,
    max_retries: int | None,
    delay: Delay | None,
    execute_at: datetime | None,
) -> ApiRequest[Task]:
    problems: list[ErrorDetail] = []
    if payload is not None:
        check_payload(payload, problems)
    when = encode_when(delay, execute_at, problems, required=False)
    _checked(problems)
    body = _set({}, payload=payload, payload_version=payload_version, max_retries=max_retries)
    body.update(when)
    return ApiRequest("POST", _task_path(task_id, "replay"), {}, body, _task)


def _seconds(value: float | timedelta) -> float:
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


class ClientCore:
    """Options and the attempt logic both clients share."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None,
        timeout: float | timedelta,
        retry: RetryPolicy | None,
    ) -> None:
        if not base_url:
            raise ValueError("base_url is required")
        self.base_url = base_url.rstrip("/")
        self.timeout = httpx.Timeout(_seconds(timeout))
        self.retry = retry if retry is not None else RetryPolicy()
        self.headers = {"user-agent": USER_AGENT, "accept": "application/json"}
        if api_key:
            self.headers["authorization"] = f"Bearer {api_key}"

    def build(
        self,
        http: httpx.Client | httpx.AsyncClient,
        request: ApiRequest[Any],
        trace: Trace | None = None,
    ) -> httpx.Request:
        headers = dict(self.headers)
        content: bytes | None = None
        if request.body is not None:
            headers["content-type"] = "application/json"
            content = json.dumps(request.body, separators=(",", ":"), allow_nan=False).encode()
        return http.build_request(
            request.method,
            self.base_url + request.path,
            params=dict(request.query) or None,
            headers=headers,
            content=content,
            timeout=self._timeout(request.min_timeout),
            extensions={"trace": trace} if trace is not None else None,
        )

    def _timeout(self, min_read: float | None) -> httpx.Timeout:
        t = self.timeout
        if min_read is None or (t.read is not None and t.read >= min_read):
            return t
        return httpx.Timeout(connect=t.connect, read=min_read, write=t.write, pool=t.pool)

    def wait_before_retry(self, retry: int, outcome: httpx.Response | Exception) -> float | None:
        """Seconds to wait before retry number `retry` (0-based), or `None`: no retry."""
        if retry >= self.retry.max_retries:
            return None
        if isinstance(outcome, Exception):
            return self.retry.backoff(retry) if is_retryable_exception(outcome) else None
        if outcome.status_code in RETRYABLE_STATUSES:
            return self.retry.backoff(retry, retry_after_seconds(outcome))
        return None

    @staticmethod
    def finish(request: ApiRequest[T], outcome: httpx.Response | Exception) -> T:
        """The result of the last attempt, or the error it stands for."""
        if isinstance(outcome, Exception):
            if not isinstance(outcome, httpx.TransportError):
                raise outcome
            raise make_error(
                ErrorCode.UNAVAILABLE, f"no answer from the service: {outcome!r}"
            ) from outcome
        if not outcome.is_success:
            raise error_from_response(outcome)
        try:
            data = json.loads(outcome.content) if outcome.content else None
            return request.decode(outcome.status_code, data, outcome.headers.get(REQUEST_ID_HEADER))
        except (ValueError, TypeError, AttributeError, KeyError) as exc:
            raise DelayedTaskError(
                ErrorCode.UNKNOWN,
                f"HTTP {outcome.status_code}: the answer is not the expected JSON ({exc})",
                status=outcome.status_code,
                request_id=outcome.headers.get(REQUEST_ID_HEADER),
            ) from exc
