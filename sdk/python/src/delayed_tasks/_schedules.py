"""Schedules: recurring tasks on Temporal Schedules. The models the API answers (snake_case, aware
datetimes, the JSON kept in `raw`) and the request builders `Client` and `AsyncClient` share."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum, StrEnum
from typing import Any, Final
from urllib.parse import quote

from ._checks import check_json_value, check_target, encode_time
from ._errors import ErrorDetail
from ._models import Delivery, _int, _str, parse_time, required_time
from ._request import ApiRequest, _checked, _set

SCHEDULES_PATH = "/api/v1/schedules"


class OverlapPolicy(StrEnum):
    """What happens when a run is due while the previous occurrence still runs; the service's
    default is `SKIP` (`ALLOW_ALL` for trigger and backfill)."""

    SKIP = "skip"
    BUFFER_ONE = "bufferOne"
    BUFFER_ALL = "bufferAll"
    ALLOW_ALL = "allowAll"
    CANCEL_OTHER = "cancelOther"


class _Unset(Enum):
    UNSET = "UNSET"

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Final = _Unset.UNSET
"""The default of `update_schedule`'s fields: not sent (`None` sends null, clearing the field)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ScheduleTaskRequest:
    """What each occurrence runs: the arguments of `create` without the task id and due time."""

    task_type: str
    payload: Mapping[str, Any]
    callback_url: str | None = None
    delivery: Delivery | None = None
    max_retries: int | None = None
    timeout_ms: int | None = None
    payload_version: int | None = None
    trace_id: str | None = None
    priority: int | None = None

    def to_json(self, problems: list[ErrorDetail]) -> dict[str, Any]:
        if not isinstance(self.payload, Mapping):
            problems.append(ErrorDetail("task.payload", "must be a JSON object"))
        else:
            check_json_value(self.payload, "task.payload", problems)
        check_target(self.callback_url, self.delivery, "task.delivery", problems)
        head: dict[str, Any] = {"taskType": self.task_type, "payload": self.payload}
        if self.delivery is not None:
            head["delivery"] = self.delivery.to_json()
        return _set(
            head,
            callback_url=self.callback_url,
            max_retries=self.max_retries,
            timeout_ms=self.timeout_ms,
            payload_version=self.payload_version,
            trace_id=self.trace_id,
            priority=self.priority,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class ScheduleTask:
    """The task every occurrence runs, defaults applied. `payload` and `callback_url` are `None`
    in the answer of a write verb when the API key lacks `schedules:read`."""

    task_type: str
    payload: dict[str, Any] | None
    payload_version: int | None
    callback_url: str | None
    delivery: Delivery | None
    """The occurrences' pull or broker delivery; `None` for callback occurrences."""
    max_retries: int | None
    timeout_ms: int | None
    trace_id: str | None
    priority: int | None

    @classmethod
    def from_json(cls, data: Any) -> ScheduleTask:
        data = data if isinstance(data, Mapping) else {}
        payload = data.get("payload")
        return cls(
            task_type=str(data.get("taskType", "")),
            payload=dict(payload) if isinstance(payload, Mapping) else None,
            payload_version=_int(data.get("payloadVersion")),
            callback_url=_str(data.get("callbackUrl")),
            delivery=Delivery.from_json(data.get("delivery")),
            max_retries=_int(data.get("maxRetries")),
            timeout_ms=_int(data.get("timeoutMs")),
            trace_id=_str(data.get("traceId")),
            priority=_int(data.get("priority")),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class ScheduleOccurrence:
    """One occurrence the schedule started: a task like any other. `status` is `None` while the
    task list has not caught up with its start."""

    task_id: str
    scheduled_at: datetime | None
    started_at: datetime | None
    status: str | None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ScheduleOccurrence:
        return cls(
            task_id=str(data.get("taskId", "")),
            scheduled_at=parse_time(data.get("scheduledAt")),
            started_at=parse_time(data.get("startedAt")),
            status=_str(data.get("status")),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Schedule:
    """A recurring task: its spec as stored, its policies, paused state and note, the next run
    times (from Temporal; listed while paused too, none starts until resumed; empty after the last
    run) and the recent occurrences, oldest first."""

    schedule_id: str
    owner: str
    cron: str | None
    every: str | None
    phase: str | None
    time_zone: str
    start_at: datetime | None
    end_at: datetime | None
    max_runs: int | None
    remaining_runs: int | None
    jitter: str | None
    overlap: str
    catchup_window: str
    pause_on_failure: bool
    paused: bool
    note: str | None
    task: ScheduleTask
    next_run_times: list[datetime]
    recent_occurrences: list[ScheduleOccurrence]
    occurrences_started: int
    skipped_by_overlap: int
    missed_catchup_window: int
    created_at: datetime
    updated_at: datetime | None
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Schedule:
        runs = data.get("nextRunTimes")
        occurrences = data.get("recentOccurrences")
        return cls(
            schedule_id=str(data.get("scheduleId", "")),
            owner=str(data.get("owner", "")),
            cron=_str(data.get("cron")),
            every=_str(data.get("every")),
            phase=_str(data.get("phase")),
            time_zone=str(data.get("timeZone", "")),
            start_at=parse_time(data.get("startAt")),
            end_at=parse_time(data.get("endAt")),
            max_runs=_int(data.get("maxRuns")),
            remaining_runs=_int(data.get("remainingRuns")),
            jitter=_str(data.get("jitter")),
            overlap=str(data.get("overlap", "")),
            catchup_window=str(data.get("catchupWindow", "")),
            pause_on_failure=data.get("pauseOnFailure") is True,
            paused=data.get("paused") is True,
            note=_str(data.get("note")),
            task=ScheduleTask.from_json(data.get("task")),
            next_run_times=[t for t in map(parse_time, runs or []) if t is not None],
            recent_occurrences=[
                ScheduleOccurrence.from_json(o) for o in occurrences or [] if isinstance(o, Mapping)
            ],
            occurrences_started=_int(data.get("occurrencesStarted")) or 0,
            skipped_by_overlap=_int(data.get("skippedByOverlap")) or 0,
            missed_catchup_window=_int(data.get("missedCatchupWindow")) or 0,
            created_at=required_time(data, "createdAt"),
            updated_at=parse_time(data.get("updatedAt")),
            raw=data,
        )


@dataclass(frozen=True, slots=True)
class CreateScheduleResult:
    """`created` is false when the same schedule id and spec already existed."""

    schedule: Schedule
    created: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class ScheduleSummary:
    """A list entry; `next_run_time` is the next nominal run time (also while paused), `None`
    after the last run."""

    schedule_id: str
    owner: str
    task_type: str
    cron: str | None
    every: str | None
    time_zone: str
    paused: bool
    note: str | None
    next_run_time: datetime | None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ScheduleSummary:
        return cls(
            schedule_id=str(data.get("scheduleId", "")),
            owner=str(data.get("owner", "")),
            task_type=str(data.get("taskType", "")),
            cron=_str(data.get("cron")),
            every=_str(data.get("every")),
            time_zone=str(data.get("timeZone", "")),
            paused=data.get("paused") is True,
            note=_str(data.get("note")),
            next_run_time=parse_time(data.get("nextRunTime")),
        )


@dataclass(frozen=True, slots=True)
class SchedulePage:
    schedules: list[ScheduleSummary]
    next_page_token: str | None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SchedulePage:
        items = data.get("schedules") or []
        return cls(
            [ScheduleSummary.from_json(s) for s in items if isinstance(s, Mapping)],
            _str(data.get("nextPageToken")),
        )


# ---------------------------------------------------------------- request builders


def _path(schedule_id: str, action: str = "") -> str:
    if not isinstance(schedule_id, str) or not schedule_id:
        raise_problems([ErrorDetail("scheduleId", "must be a non-empty string")])
    path = f"{SCHEDULES_PATH}/{quote(schedule_id, safe='')}"
    return f"{path}/{action}" if action else path


def raise_problems(problems: list[ErrorDetail]) -> None:
    _checked(problems)


def _schedule(_status: int, data: Any, _request_id: str | None) -> Schedule:
    return Schedule.from_json(data)


def spec_body(fields: Mapping[str, Any], problems: list[ErrorDetail]) -> dict[str, Any]:
    """The wire body of the spec fields given (UNSET left out, None sent as null): times as UTC,
    the task's payload checked."""
    body: dict[str, Any] = {}
    for name, value in fields.items():
        if value is UNSET:
            continue
        if name in ("start_at", "end_at") and value is not None:
            value = encode_time(value, "startAt" if name == "start_at" else "endAt", problems)
        elif name == "task" and value is not None:
            value = value.to_json(problems)
        head, *rest = name.split("_")
        body[head + "".join(part.capitalize() for part in rest)] = value
    return body


def create_schedule_request(
    schedule_id: str, task: ScheduleTaskRequest, spec: Mapping[str, Any]
) -> ApiRequest[CreateScheduleResult]:
    problems: list[ErrorDetail] = []
    given = {name: value for name, value in spec.items() if value is not None}
    body = {"scheduleId": schedule_id, **spec_body({**given, "task": task}, problems)}
    _checked(problems)
    return ApiRequest(
        "POST",
        SCHEDULES_PATH,
        {},
        body,
        lambda status, data, _rid: CreateScheduleResult(
            Schedule.from_json(data), created=status == 201
        ),
    )


def get_schedule_request(schedule_id: str) -> ApiRequest[Schedule]:
    return ApiRequest("GET", _path(schedule_id), {}, None, _schedule)


def list_schedules_request(
    *,
    task_type: str | None,
    paused: bool | None,
    owner: str | None,
    page_size: int | None,
    page_token: str | None,
) -> ApiRequest[SchedulePage]:
    fields = _set({}, task_type=task_type, owner=owner, page_size=page_size, page_token=page_token)
    query = {name: str(value) for name, value in fields.items()}
    if paused is not None:
        query["paused"] = "true" if paused else "false"
    return ApiRequest(
        "GET", SCHEDULES_PATH, query, None, lambda _s, data, _rid: SchedulePage.from_json(data)
    )


def update_schedule_request(schedule_id: str, changes: Mapping[str, Any]) -> ApiRequest[Schedule]:
    problems: list[ErrorDetail] = []
    body = spec_body(changes, problems)
    _checked(problems)
    return ApiRequest("PATCH", _path(schedule_id), {}, body, _schedule)


def note_request(schedule_id: str, action: str, note: str | None) -> ApiRequest[Schedule]:
    return ApiRequest("POST", _path(schedule_id, action), {}, _set({}, note=note), _schedule)


def trigger_schedule_request(schedule_id: str, overlap: str | None) -> ApiRequest[Schedule]:
    body = _set({}, overlap=None if overlap is None else str(overlap))
    return ApiRequest("POST", _path(schedule_id, "trigger"), {}, body, _schedule)


def backfill_schedule_request(
    schedule_id: str, start_at: datetime, end_at: datetime, overlap: str | None
) -> ApiRequest[Schedule]:
    problems: list[ErrorDetail] = []
    body = _set(
        {},
        start_at=encode_time(start_at, "startAt", problems),
        end_at=encode_time(end_at, "endAt", problems),
        overlap=None if overlap is None else str(overlap),
    )
    _checked(problems)
    return ApiRequest("POST", _path(schedule_id, "backfill"), {}, body, _schedule)


def delete_schedule_request(schedule_id: str) -> ApiRequest[None]:
    return ApiRequest("DELETE", _path(schedule_id), {}, None, lambda _s, _d, _rid: None)
