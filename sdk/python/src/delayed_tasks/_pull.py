"""Pull delivery's wire (conformance/pull/README.md): the five lease verbs as requests for both
clients, and what they answer."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ._callback import CallbackSchedule
from ._errors import ErrorDetail
from ._models import parse_time
from ._request import ApiRequest, _checked, _set

LEASES_PATH = "/api/v1/leases"
MAX_REASON = 2000
LONG_POLL_MARGIN = 10.0
"""Seconds a lease call's HTTP timeout exceeds its `wait_seconds`, whatever the client's."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LeaseRequest:
    """What `lease` asks for: 1 to 10 `queues`, up to `max` tasks (1 to 10; default 1), waiting
    up to `wait_seconds` (0 to 20; default 20) for the first. `None` leaves a field to the
    service's default."""

    queues: Sequence[str]
    max: int | None = None
    wait_seconds: int | None = None
    worker_identity: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class NackRequest:
    """`retryable=False` dead-letters the task at once; `reason` (at most 2,000 characters)
    becomes its `last_error.message`. `None` leaves a field out (the service: retryable)."""

    retryable: bool | None = None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class LeasedTask:
    """The task a handler gets: the callback's fields, the `queue` it came from, the
    `idempotency_key` to dedupe on (the same on every attempt, after a replay too), and the
    lease's current expiry."""

    task_id: str
    task_type: str
    queue: str
    payload: dict[str, Any]
    payload_version: int
    execute_at: datetime
    attempt: int
    idempotency_key: str
    trace_id: str | None
    lease_expires_at: datetime
    schedule: CallbackSchedule | None = None
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True, slots=True)
class Lease:
    lease_token: str
    lease_expires_at: datetime
    task: LeasedTask


@dataclass(frozen=True, slots=True)
class LeaseResult:
    """The answer to `ack`, `nack` and `release`: the task's status after it."""

    task_id: str
    status: str


@dataclass(frozen=True, slots=True)
class ExtendResult:
    """The answer to `extend`: the lease now runs until `lease_expires_at`."""

    lease_expires_at: datetime


def _time(value: Any) -> datetime:
    parsed = parse_time(value)
    if parsed is None:
        raise ValueError(f"expected a time, got {value!r}")
    return parsed


def _lease(data: Mapping[str, Any]) -> Lease:
    task = data["task"]
    expires = _time(data["leaseExpiresAt"])
    schedule = task.get("schedule")
    return Lease(
        lease_token=str(data["leaseToken"]),
        lease_expires_at=expires,
        task=LeasedTask(
            task_id=task["taskId"],
            task_type=task["taskType"],
            queue=task["queue"],
            payload=dict(task.get("payload") or {}),
            payload_version=int(task.get("payloadVersion", 1)),
            execute_at=_time(task["executeAt"]),
            attempt=int(task["attempt"]),
            idempotency_key=task["idempotencyKey"],
            trace_id=task.get("traceId"),
            lease_expires_at=expires,
            schedule=CallbackSchedule(schedule["scheduleId"], _time(schedule["scheduledAt"]))
            if isinstance(schedule, Mapping)
            else None,
            raw=task,
        ),
    )


def _outcome(_status: int, data: Any, _rid: str | None) -> LeaseResult:
    return LeaseResult(task_id=data["taskId"], status=data["status"])


def _token(token: str) -> dict[str, Any]:
    if not isinstance(token, str) or not token:
        _checked([ErrorDetail("leaseToken", "must be a non-empty string")])
    return {"leaseToken": token}


def lease_request(request: LeaseRequest) -> ApiRequest[list[Lease]]:
    body = _set(
        {"queues": list(request.queues)},
        max=request.max,
        wait_seconds=request.wait_seconds,
        worker_identity=request.worker_identity,
    )
    wait = request.wait_seconds if request.wait_seconds is not None else 20
    return ApiRequest(
        "POST",
        LEASES_PATH,
        {},
        body,
        lambda _s, data, _r: [_lease(item) for item in data["leases"]],
        min_timeout=wait + LONG_POLL_MARGIN,
    )


def ack_request(token: str) -> ApiRequest[LeaseResult]:
    return ApiRequest("POST", f"{LEASES_PATH}/ack", {}, _token(token), _outcome)


def nack_request(token: str, request: NackRequest | None) -> ApiRequest[LeaseResult]:
    request = request or NackRequest()
    reason = None if request.reason is None else request.reason[:MAX_REASON]
    body = _set(_token(token), retryable=request.retryable, reason=reason)
    return ApiRequest("POST", f"{LEASES_PATH}/nack", {}, body, _outcome)


def extend_request(token: str) -> ApiRequest[ExtendResult]:
    return ApiRequest(
        "POST",
        f"{LEASES_PATH}/extend",
        {},
        _token(token),
        lambda _s, data, _r: ExtendResult(_time(data["leaseExpiresAt"])),
    )


def release_request(token: str) -> ApiRequest[LeaseResult]:
    return ApiRequest("POST", f"{LEASES_PATH}/release", {}, _token(token), _outcome)
