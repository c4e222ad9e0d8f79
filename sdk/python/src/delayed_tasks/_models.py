"""What the API answers, as typed, immutable objects with snake_case names and aware datetimes.

Each object keeps the JSON it came from in `raw`, so a field added by a newer server is readable
before this package knows it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from ._errors import DelayedTaskError


class TaskStatus(StrEnum):
    """Where a task is: `RUNNING` covers a callback in progress or waiting to retry, `FAILED` is
    the dead letter."""

    SCHEDULED = "SCHEDULED"
    RUNNING = "RUNNING"
    SUCCEEDED = "SUCCEEDED"
    FAILED = "FAILED"
    CANCELLED = "CANCELLED"


def parse_time(value: Any) -> datetime | None:
    """An RFC 3339 string from the API as an aware datetime (`None` stays `None`)."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"expected an RFC 3339 string, got {value!r}")
    parsed = datetime.fromisoformat(value)
    if parsed.tzinfo is None:
        raise ValueError(f"time without an offset: {value!r}")
    return parsed


def required_time(data: Mapping[str, Any], name: str) -> datetime:
    """A time the service always sends (a task's or schedule's `createdAt`)."""
    parsed = parse_time(data.get(name))
    if parsed is None:
        raise ValueError(f"the service's answer has no {name}")
    return parsed


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


@dataclass(frozen=True, slots=True, kw_only=True)
class Delivery:
    """How a due task is delivered instead of a callback (a task names `callback_url` or
    `delivery`, not both): `Delivery.pull(queue, lease_seconds)` waits on a pull queue (default:
    the task type) until a worker leases it; `Delivery.broker(name, stream=...)` publishes it to a
    broker the operator declared (Redis Streams `stream`/`max_len`, RabbitMQ `exchange`/
    `routing_key`, Kafka `topic`/`key`). A task read back may carry a mode this version does not
    know: `mode` says which, `raw` has the JSON."""

    mode: str
    queue: str | None = None
    lease_seconds: int | None = None
    broker_name: str | None = None
    stream: str | None = None
    max_len: int | None = None
    exchange: str | None = None
    routing_key: str | None = None
    topic: str | None = None
    key: str | None = None
    kind: str | None = None
    """On a task read back: the broker's kind (`redis-streams`, `rabbitmq`, `kafka`)."""
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def pull(cls, queue: str | None = None, lease_seconds: int | None = None) -> Delivery:
        return cls(mode="pull", queue=queue, lease_seconds=lease_seconds)

    @classmethod
    def broker(
        cls,
        name: str,
        *,
        stream: str | None = None,
        max_len: int | None = None,
        exchange: str | None = None,
        routing_key: str | None = None,
        topic: str | None = None,
        key: str | None = None,
    ) -> Delivery:
        return cls(
            mode="broker",
            broker_name=name,
            stream=stream,
            max_len=max_len,
            exchange=exchange,
            routing_key=routing_key,
            topic=topic,
            key=key,
        )

    def to_json(self) -> dict[str, Any]:
        wire = {
            "mode": self.mode,
            "queue": self.queue,
            "leaseSeconds": self.lease_seconds,
            "broker": self.broker_name,
            "stream": self.stream,
            "maxLen": self.max_len,
            "exchange": self.exchange,
            "routingKey": self.routing_key,
            "topic": self.topic,
            "key": self.key,
        }
        return {name: value for name, value in wire.items() if value is not None}

    @classmethod
    def from_json(cls, data: Any) -> Delivery | None:
        if not isinstance(data, Mapping):
            return None
        return cls(
            mode=str(data.get("mode", "")),
            queue=_str(data.get("queue")),
            lease_seconds=_int(data.get("leaseSeconds")),
            broker_name=_str(data.get("broker")),
            stream=_str(data.get("stream")),
            max_len=_int(data.get("maxLen")),
            exchange=_str(data.get("exchange")),
            routing_key=_str(data.get("routingKey")),
            topic=_str(data.get("topic")),
            key=_str(data.get("key")),
            kind=_str(data.get("kind")),
            raw=data,
        )


@dataclass(frozen=True, slots=True)
class TaskLease:
    """While a worker holds a pull task: when its lease runs out unless extended, and who holds
    it (`None` when the worker gave no identity)."""

    expires_at: datetime
    worker_identity: str | None

    @classmethod
    def from_json(cls, data: Any) -> TaskLease | None:
        if not isinstance(data, Mapping):
            return None
        return cls(required_time(data, "expiresAt"), _str(data.get("workerIdentity")))


@dataclass(frozen=True, slots=True)
class TaskError:
    """Why the latest callback attempt failed."""

    message: str
    status_code: int | None = None

    @classmethod
    def from_json(cls, data: Any) -> TaskError | None:
        if not isinstance(data, Mapping):
            return None
        return cls(message=str(data.get("message", "")), status_code=_int(data.get("statusCode")))


class AttemptOutcome(StrEnum):
    SUCCEEDED = "SUCCEEDED"
    """The callback answered 2xx."""
    RETRYABLE_ERROR = "RETRYABLE_ERROR"
    """408, 425, 429, 5xx, a timeout or a network error."""
    PERMANENT_ERROR = "PERMANENT_ERROR"
    """Another 4xx, a 3xx, or refused before sending."""
    CANCELLED = "CANCELLED"
    """The task was cancelled while the callback was in flight."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskAttempt:
    """One callback attempt of a task's current run."""

    attempt: int
    started_at: datetime
    finished_at: datetime
    outcome: str
    """One of `AttemptOutcome` (a plain string, so a newer server's value passes through)."""
    status_code: int | None = None
    error: str | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TaskAttempt:
        started_at, finished_at = parse_time(data["startedAt"]), parse_time(data["finishedAt"])
        if started_at is None or finished_at is None:
            raise ValueError("an attempt without its times")
        return cls(
            attempt=int(data["attempt"]),
            started_at=started_at,
            finished_at=finished_at,
            outcome=str(data["outcome"]),
            status_code=_int(data.get("statusCode")),
            error=_str(data.get("error")),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskSummary:
    """A list entry: the task without its payload (`status` the task for it)."""

    task_id: str
    owner: str
    """The team or service the task belongs to (the owner of the API key that created it)."""
    task_type: str
    status: str
    """One of `TaskStatus` (a plain string, so a status from a newer server passes through)."""
    execute_at: datetime | None
    created_at: datetime | None
    callback_url: str | None
    delivery_mode: str | None
    """`pull` or `broker` (or a newer mode) for a task without a callback; `None` for a callback
    task."""
    priority: int | None
    attempts: int
    last_error: TaskError | None
    completed_at: datetime | None
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @staticmethod
    def _summary_fields(data: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "task_id": str(data.get("taskId", "")),
            "owner": str(data.get("owner", "")),
            "task_type": str(data.get("taskType", "")),
            "status": str(data.get("status", "")),
            "execute_at": parse_time(data.get("executeAt")),
            "created_at": parse_time(data.get("createdAt")),
            "callback_url": _str(data.get("callbackUrl")),
            "delivery_mode": _str(data.get("deliveryMode")),
            "priority": _int(data.get("priority")),
            "attempts": _int(data.get("attempts")) or 0,
            "last_error": TaskError.from_json(data.get("lastError")),
            "completed_at": parse_time(data.get("completedAt")),
            "raw": data,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TaskSummary:
        return cls(**cls._summary_fields(data))


@dataclass(frozen=True, slots=True, kw_only=True)
class Task(TaskSummary):
    """A task as `create`, `status`, `cancel`, `reschedule` and `replay` return it."""

    created_at: datetime  # a summary's may be null, a task's never
    payload: dict[str, Any]
    payload_version: int | None
    max_retries: int | None
    timeout_ms: int | None
    trace_id: str | None
    next_attempt_at: datetime | None
    fired_at: datetime | None
    delivery: Delivery | None = None
    """A pull or broker task's delivery, defaults applied (`None` for a callback task);
    `delivery_mode` is its mode."""
    lease: TaskLease | None = None
    """While a worker holds the task (pull delivery)."""
    attempt_history: list[TaskAttempt] | None = None
    """The newest 50 callback attempts of the current run, oldest first (`None` when the
    answering worker does not report them)."""

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Task:
        payload = data.get("payload")
        history = data.get("attemptHistory")
        delivery = Delivery.from_json(data.get("delivery"))
        return cls(
            **{
                **cls._summary_fields(data),
                "created_at": required_time(data, "createdAt"),
                "delivery_mode": delivery.mode if delivery else None,
            },
            delivery=delivery,
            lease=TaskLease.from_json(data.get("lease")),
            payload=dict(payload) if isinstance(payload, Mapping) else {},
            payload_version=_int(data.get("payloadVersion")),
            max_retries=_int(data.get("maxRetries")),
            timeout_ms=_int(data.get("timeoutMs")),
            trace_id=_str(data.get("traceId")),
            next_attempt_at=parse_time(data.get("nextAttemptAt")),
            fired_at=parse_time(data.get("firedAt")),
            attempt_history=(
                [TaskAttempt.from_json(a) for a in history if isinstance(a, Mapping)]
                if isinstance(history, list)
                else None
            ),
        )


@dataclass(frozen=True, slots=True)
class CreateTaskResult:
    """The task and whether this call created it (`False`: the same task id and spec existed)."""

    task: Task
    created: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class CreateTasksItem:
    """One entry of `create_tasks`, in input order: `task` and `created` when the item
    succeeded, else `error`, the exception a single `create` of that item would have raised
    (`status` `None` when it was refused before sending).

    `task_id` is the id sent (generated when the item had none; for an item refused before
    sending, the item's own, possibly `None`): re-send an item that failed with
    `UnavailableError` under the same id.
    """

    index: int
    task_id: str | None
    task: Task | None = None
    created: bool | None = None
    error: DelayedTaskError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True, slots=True)
class TaskPage:
    """One page of `list`; pass `next_page_token` as `page_token` for the next (`None`: last)."""

    tasks: list[TaskSummary]
    next_page_token: str | None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TaskPage:
        tasks = data.get("tasks")
        return cls(
            tasks=[
                TaskSummary.from_json(t)
                for t in (tasks if isinstance(tasks, list) else [])
                if isinstance(t, Mapping)
            ],
            next_page_token=_str(data.get("nextPageToken")) or None,
        )
