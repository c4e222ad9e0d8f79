"""Client logic against httpx's MockTransport: requests built, answers read, retries."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import httpx
import pytest

from delayed_tasks import (
    AsyncClient,
    AttemptOutcome,
    Client,
    CreateTaskRequest,
    DelayedTaskError,
    Delivery,
    InvalidArgumentError,
    RetryPolicy,
    TaskAttempt,
    TaskConflictError,
    TaskNotFoundError,
    TaskStatus,
    UnavailableError,
)

TASK = {
    "taskId": "t-1",
    "owner": "orders",
    "taskType": "order.close",
    "status": "SCHEDULED",
    "executeAt": "2026-12-03T10:00:00.000Z",
    "createdAt": "2026-12-03T09:30:00.000Z",
    "payload": {"orderId": "10023", "big": 9007199254740991},
    "payloadVersion": 1,
    "callbackUrl": "http://localhost/cb",
    "maxRetries": 3,
    "timeoutMs": 30000,
    "traceId": None,
    "priority": 3,
    "attempts": 0,
    "lastError": None,
    "nextAttemptAt": None,
    "firedAt": None,
    "completedAt": None,
    "attemptHistory": [
        {
            "attempt": 1,
            "startedAt": "2026-12-03T10:00:00.000Z",
            "finishedAt": "2026-12-03T10:00:00.250Z",
            "outcome": "RETRYABLE_ERROR",
            "statusCode": 503,
        }
    ],
}
NO_WAIT = RetryPolicy(initial_backoff=0)

Responder = Callable[[httpx.Request], httpx.Response]


class Recorder:
    """A MockTransport handler answering from a list and keeping every request."""

    def __init__(self, *answers: httpx.Response | Exception) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    def bodies(self) -> list[Any]:
        return [json.loads(r.content) if r.content else None for r in self.requests]


def client(recorder: Recorder, **options: Any) -> Client:
    options.setdefault("retry", NO_WAIT)
    return Client("http://dts.test/", transport=httpx.MockTransport(recorder), **options)


def error(status: int, code: str, **extra: Any) -> httpx.Response:
    return httpx.Response(status, json={"error": {"code": code, "message": "m", **extra}})


def test_create_sends_wire_names_only_for_fields_set_and_generates_a_task_id() -> None:
    rec = Recorder(httpx.Response(201, json=TASK))
    with client(rec, api_key="dts_k1_secret") as c:
        result = c.create(
            task_type="order.close",
            payload={"orderId": "10023"},
            delay=timedelta(seconds=1, milliseconds=500),
            max_retries=5,
        )
    [request] = rec.requests
    assert (request.method, request.url.path) == ("POST", "/api/v1/tasks")
    assert request.headers["authorization"] == "Bearer dts_k1_secret"
    assert request.headers["content-type"] == "application/json"
    assert request.headers["user-agent"].startswith("delayed-tasks-python/")
    body = rec.bodies()[0]
    assert uuid.UUID(body.pop("taskId")).version == 4
    assert body == {
        "taskType": "order.close",
        "payload": {"orderId": "10023"},
        "delaySeconds": 1.5,
        "maxRetries": 5,
    }
    assert result.created is True
    assert result.task.execute_at == datetime(2026, 12, 3, 10, tzinfo=UTC)
    assert result.task.payload["big"] == 9007199254740991
    assert result.task.owner == "orders"
    assert result.task.attempt_history == [
        TaskAttempt(
            attempt=1,
            started_at=datetime(2026, 12, 3, 10, tzinfo=UTC),
            finished_at=datetime(2026, 12, 3, 10, 0, 0, 250_000, tzinfo=UTC),
            outcome=AttemptOutcome.RETRYABLE_ERROR,
            status_code=503,
        )
    ]


def test_create_answered_200_is_an_existing_task() -> None:
    rec = Recorder(httpx.Response(200, json=TASK))
    result = client(rec).create(task_type="t", payload={}, delay=0, task_id="t-1")
    assert result.created is False
    assert rec.bodies()[0]["taskId"] == "t-1"


@pytest.mark.parametrize(
    ("when", "sent"),
    [
        ({"delay": 1800}, {"delaySeconds": 1800}),
        ({"delay": 0.0004}, {"delaySeconds": 0}),
        ({"delay": 2.25}, {"delaySeconds": 2.25}),
        ({"delay": timedelta(minutes=30)}, {"delaySeconds": 1800}),
        (
            {
                "execute_at": datetime(
                    2026, 12, 3, 18, 30, 0, 123456, tzinfo=timezone(timedelta(hours=8))
                )
            },
            {"executeAt": "2026-12-03T10:30:00.123Z"},
        ),
    ],
)
def test_delays_and_times_are_encoded(when: dict[str, Any], sent: dict[str, Any]) -> None:
    rec = Recorder(httpx.Response(201, json=TASK))
    client(rec).create(task_type="t", payload={}, task_id="x", **when)
    body = rec.bodies()[0]
    assert {k: body[k] for k in sent} == sent
    assert type(body[next(iter(sent))]) is type(next(iter(sent.values())))


@pytest.mark.parametrize(
    ("kwargs", "fields"),
    [
        ({"payload": {"a": {"b": float("nan")}}, "delay": 1}, ["payload.a.b"]),
        ({"payload": {"items": [1, 2, float("-inf")]}, "delay": 1}, ["payload.items.2"]),
        ({"payload": {"id": 2**53}, "delay": 1}, ["payload.id"]),
        ({"payload": {"id": -(2**53)}, "delay": 1}, ["payload.id"]),
        ({"payload": {"f": 1e300}, "delay": 1}, ["payload.f"]),
        ({"payload": {"when": datetime.now(UTC)}, "delay": 1}, ["payload.when"]),
        ({"payload": [1], "delay": 1}, ["payload"]),
        ({"payload": {}, "execute_at": datetime(2026, 12, 3, 18, 30)}, ["executeAt"]),
        ({"payload": {}}, ["delaySeconds"]),
        ({"payload": {}, "delay": 1, "execute_at": datetime.now(UTC)}, ["delaySeconds"]),
        ({"payload": {}, "delay": -0.5}, ["delaySeconds"]),
        ({"payload": {}, "delay": float("inf")}, ["delaySeconds"]),
        ({"payload": {"x": float("nan")}, "delay": -1}, ["payload.x", "delaySeconds"]),
    ],
)
def test_checks_before_sending_raise_invalid_argument_and_send_nothing(
    kwargs: dict[str, Any], fields: list[str]
) -> None:
    rec = Recorder()
    with pytest.raises(InvalidArgumentError) as caught:
        client(rec).create(task_type="t", **kwargs)
    assert caught.value.code == "INVALID_ARGUMENT"
    assert caught.value.status == 0
    assert [d.field for d in caught.value.details] == fields
    assert rec.requests == []


def test_the_largest_safe_integers_pass() -> None:
    rec = Recorder(httpx.Response(201, json=TASK))
    payload = {"max": 2**53 - 1, "min": -(2**53 - 1), "flag": True}
    client(rec).create(task_type="t", payload=payload, delay=1)
    assert rec.bodies()[0]["payload"] == payload


def test_path_segments_are_percent_encoded_and_cancel_has_no_body() -> None:
    rec = Recorder(httpx.Response(200, json=TASK), httpx.Response(200, json=TASK))
    c = client(rec)
    c.status("a:b/c d")
    c.cancel("x:y")
    assert rec.requests[0].url.raw_path == b"/api/v1/tasks/a%3Ab%2Fc%20d"
    assert rec.requests[1].url.raw_path == b"/api/v1/tasks/x%3Ay/cancel"
    assert rec.requests[1].content == b""
    assert "content-type" not in rec.requests[1].headers


def test_reschedule_and_replay_bodies() -> None:
    rec = Recorder(*[httpx.Response(200, json=TASK)] * 3)
    c = client(rec)
    c.reschedule("t-1", delay=600)
    c.replay("t-1", payload={"v": 2}, payload_version=2)
    c.replay("t-1")
    assert rec.bodies() == [{"delaySeconds": 600}, {"payload": {"v": 2}, "payloadVersion": 2}, {}]
    with pytest.raises(InvalidArgumentError):
        c.reschedule("t-1")
    assert len(rec.requests) == 3


def test_errors_map_to_subclasses_with_details_status_and_request_id() -> None:
    body = {"details": [{"field": "taskType", "reason": "bad"}]}
    rec = Recorder(
        httpx.Response(
            400,
            json={"error": {"code": "INVALID_ARGUMENT", "message": "m", **body}},
            headers={"x-request-id": "req-7"},
        ),
        error(404, "TASK_NOT_FOUND"),
        error(409, "TASK_CONFLICT"),
        error(418, "TEAPOT_FROM_THE_FUTURE"),
        httpx.Response(502, text="<html>bad gateway</html>"),
    )
    c = client(rec)
    with pytest.raises(InvalidArgumentError) as invalid:
        c.status("a")
    assert (invalid.value.status, invalid.value.request_id) == (400, "req-7")
    assert invalid.value.details[0].field == "taskType"
    with pytest.raises(TaskNotFoundError):
        c.status("a")
    with pytest.raises(TaskConflictError):
        c.status("a")
    with pytest.raises(DelayedTaskError) as unknown:
        c.status("a")
    assert type(unknown.value) is DelayedTaskError
    assert (unknown.value.code, unknown.value.status) == ("TEAPOT_FROM_THE_FUTURE", 418)
    with pytest.raises(DelayedTaskError) as html:
        c.status("a")
    assert (html.value.code, html.value.status) == ("UNKNOWN", 502)
    assert len(rec.requests) == 5  # none of these was retried


def test_503_429_and_network_errors_are_retried_with_the_same_task_id() -> None:
    rec = Recorder(
        error(503, "UNAVAILABLE"),
        httpx.ConnectError("refused"),
        error(429, "RESOURCE_EXHAUSTED"),
        httpx.Response(201, json=TASK),
    )
    result = client(rec).create(task_type="t", payload={}, delay=1)
    assert result.created
    ids = {b["taskId"] for b in rec.bodies()}
    assert len(rec.requests) == 4
    assert len(ids) == 1


def test_retries_stop_after_max_retries() -> None:
    rec = Recorder(*[error(503, "UNAVAILABLE")] * 4)
    with pytest.raises(UnavailableError) as caught:
        client(rec).status("a")
    assert caught.value.status == 503
    assert len(rec.requests) == 4

    rec = Recorder(*[httpx.ReadTimeout("slow")] * 2)
    with pytest.raises(UnavailableError) as caught:
        client(rec, retry=RetryPolicy(max_retries=1, initial_backoff=0)).status("a")
    assert (caught.value.code, caught.value.status) == ("UNAVAILABLE", 0)
    assert isinstance(caught.value.__cause__, httpx.ReadTimeout)
    assert len(rec.requests) == 2


def test_backoff_is_capped_full_jitter_and_honours_retry_after() -> None:
    policy = RetryPolicy()
    for retry in range(10):
        cap = min(5.0, 0.25 * 2**retry)
        assert all(0 <= policy.backoff(retry) <= cap for _ in range(50))
    assert policy.backoff(0, retry_after=2) >= 2
    assert policy.backoff(0, retry_after=3600) == 30
    assert RetryPolicy(initial_backoff=0).backoff(5) == 0


def pages() -> Iterator[httpx.Response]:
    summary = {k: TASK[k] for k in ("taskId", "taskType", "status", "executeAt", "createdAt")}
    yield httpx.Response(200, json={"tasks": [summary, summary], "nextPageToken": "p2"})
    yield httpx.Response(200, json={"tasks": [summary], "nextPageToken": None})


def test_list_all_follows_next_page_token() -> None:
    rec = Recorder(*pages())
    tasks = list(client(rec).list_all(status="FAILED", page_size=2))
    assert len(tasks) == 3
    assert [dict(r.url.params) for r in rec.requests] == [
        {"status": "FAILED", "pageSize": "2"},
        {"status": "FAILED", "pageSize": "2", "pageToken": "p2"},
    ]


@pytest.mark.anyio
async def test_async_client_shares_the_semantics() -> None:
    rec = Recorder(error(503, "UNAVAILABLE"), httpx.Response(201, json=TASK), *pages())
    async with AsyncClient(
        "http://dts.test", transport=httpx.MockTransport(rec), retry=NO_WAIT
    ) as c:
        result = await c.create(task_type="t", payload={}, delay=1)
        tasks = [t async for t in c.list_all(task_type="t")]
        with pytest.raises(InvalidArgumentError):
            await c.create(task_type="t", payload={"x": float("nan")}, delay=1)
    assert result.created
    assert len(tasks) == 3
    assert len(rec.requests) == 4
    assert rec.bodies()[0]["taskId"] == rec.bodies()[1]["taskId"]


def test_waits_follow_the_policy_and_retry_after(monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float] = []
    monkeypatch.setattr("delayed_tasks._client.time.sleep", waits.append)
    rec = Recorder(
        httpx.Response(503, headers={"retry-after": "2"}, json={"error": {"code": "UNAVAILABLE"}}),
        httpx.Response(429, headers={"retry-after": "120"}),
        httpx.ConnectError("refused"),
        httpx.Response(200, json=TASK),
    )
    client(rec, retry=RetryPolicy(initial_backoff=1, max_backoff=1.5)).status("a")
    assert waits[0] >= 2
    assert waits[1] == 30  # Retry-After capped
    assert 0 <= waits[2] <= 1.5


def test_internal_errors_and_other_5xx_are_not_retried() -> None:
    rec = Recorder(error(500, "INTERNAL"), error(504, "GATEWAY_TIMEOUT"))
    c = client(rec)
    with pytest.raises(DelayedTaskError) as first:
        c.create(task_type="t", payload={}, delay=1)
    assert first.value.code == "INTERNAL"
    with pytest.raises(DelayedTaskError):
        c.status("a")
    assert len(rec.requests) == 2


def test_errors_survive_pickling() -> None:
    import pickle

    from delayed_tasks import CallbackRejectedError, ErrorDetail, RejectionReason

    original = TaskConflictError(
        "TASK_CONFLICT", "m", details=[ErrorDetail("taskId", "r")], status=409, request_id="q"
    )
    copy = pickle.loads(pickle.dumps(original))  # noqa: S301 - our own bytes
    assert type(copy) is TaskConflictError
    assert (copy.code, copy.status, copy.details, copy.request_id) == (
        "TASK_CONFLICT",
        409,
        original.details,
        "q",
    )
    rejected = pickle.loads(pickle.dumps(CallbackRejectedError(RejectionReason.INVALID_BODY, "x")))  # noqa: S301
    assert rejected.reason == "invalid_body"


def test_a_given_http_client_is_used_and_left_open() -> None:
    rec = Recorder(httpx.Response(200, json=TASK))
    http = httpx.Client(transport=httpx.MockTransport(rec))
    with Client("http://dts.test", http_client=http) as c:
        assert c.status("t-1").task_id == "t-1"
    assert not http.is_closed
    http.close()
    with pytest.raises(ValueError, match="not both"):
        Client("http://x", http_client=http, transport=httpx.MockTransport(rec))


def test_create_tasks_retries_a_network_error_with_the_same_generated_ids() -> None:
    rec = Recorder(
        httpx.ConnectError("refused"),
        httpx.Response(200, json={"results": [{"index": 0, "status": 201, "task": TASK}]}),
    )
    [item] = client(rec).create_tasks([CreateTaskRequest(task_type="t", payload={}, delay=1)])
    first, second = rec.bodies()
    assert first == second
    assert item.ok
    assert item.created
    assert item.task_id == first["tasks"][0]["taskId"]
    assert uuid.UUID(item.task_id).version == 4


def test_create_tasks_items_carry_the_exception_class_of_their_code() -> None:
    answer = {
        "results": [
            {"index": 1, "status": 409, "error": {"code": "TASK_CONFLICT", "message": "m"}},
            {"index": 2, "status": 503, "error": {"code": "UNAVAILABLE", "message": "m"}},
        ]
    }
    rec = Recorder(httpx.Response(200, json=answer, headers={"x-request-id": "r-1"}))
    spec = CreateTaskRequest(task_type="t", payload={}, delay=1)
    items = client(rec).create_tasks([replace(spec, task_id=f"b-{i}") for i in range(3)])
    assert [(i.task_id, type(i.error), i.error and i.error.status) for i in items] == [
        ("b-0", DelayedTaskError, 200),
        ("b-1", TaskConflictError, 409),
        ("b-2", UnavailableError, 503),
    ]
    assert items[0].error is not None
    assert items[0].error.code == "UNKNOWN"
    assert all(i.error is not None and i.error.request_id == "r-1" for i in items)
    assert len(rec.requests) == 1  # an item answered 503 is not re-sent by the SDK


@pytest.mark.anyio
async def test_async_create_tasks_refuses_bad_items_before_sending() -> None:
    rec = Recorder(
        httpx.Response(200, json={"results": [{"index": 0, "status": 201, "task": TASK}]})
    )
    async with AsyncClient(
        "http://dts.test", transport=httpx.MockTransport(rec), retry=NO_WAIT
    ) as c:
        items = await c.create_tasks(
            [
                CreateTaskRequest(task_type="t", payload={"x": float("inf")}, delay=1, task_id="a"),
                CreateTaskRequest(task_type="t", payload={}, delay=1, task_id="b"),
            ]
        )
    assert isinstance(items[0].error, InvalidArgumentError)
    assert items[0].error.status == 0
    assert [d.field for d in items[0].error.details] == ["payload.x"]
    assert items[1].created
    assert items[1].task_id == "b"
    assert [t["taskId"] for t in rec.bodies()[0]["tasks"]] == ["b"]


def test_a_local_refusal_says_the_field_and_the_reason() -> None:
    rec = Recorder()
    with pytest.raises(InvalidArgumentError) as caught:
        client(rec).create(task_type="t", payload={}, delay=float("nan"))
    error = caught.value
    assert (error.code, error.status, error.request_id) == ("INVALID_ARGUMENT", 0, None)
    assert str(error) == error.message == "delaySeconds is not a finite number"
    with pytest.raises(InvalidArgumentError, match=r"^delaySeconds must not be negative$"):
        client(rec).reschedule("t-1", delay=timedelta(seconds=-1))
    with pytest.raises(InvalidArgumentError) as both:
        client(rec).replay("t-1", delay=1, execute_at=datetime.now(UTC))
    assert both.value.message == "delaySeconds give at most one of delaySeconds or executeAt"
    assert rec.requests == []


def test_list_sends_every_filter_with_due_times_in_utc_milliseconds() -> None:
    rec = Recorder(*pages())
    plus_eight = timezone(timedelta(hours=8))
    page = client(rec).list(
        status=TaskStatus.FAILED,
        task_type="order.close",
        id_prefix="order-",
        owner="billing",
        due_after=datetime(2026, 12, 3, 18, 0, tzinfo=plus_eight),
        due_before=datetime(2026, 12, 3, 11, 0, 0, 250_000, tzinfo=UTC),
        page_size=2,
        page_token="abc=",
    )
    assert page.next_page_token == "p2"
    assert dict(rec.requests[0].url.params) == {
        "status": "FAILED",
        "taskType": "order.close",
        "idPrefix": "order-",
        "owner": "billing",
        "dueAfter": "2026-12-03T10:00:00.000Z",
        "dueBefore": "2026-12-03T11:00:00.250Z",
        "pageSize": "2",
        "pageToken": "abc=",
    }


def test_a_naive_due_time_is_refused_before_sending() -> None:
    rec = Recorder()
    with pytest.raises(InvalidArgumentError) as caught:
        list(client(rec).list_all(due_before=datetime(2026, 12, 3, 11, 0)))
    assert [(d.field, d.reason) for d in caught.value.details] == [
        ("dueBefore", "must be an RFC 3339 time with an offset (Z or +08:00)")
    ]
    assert rec.requests == []


def test_a_callback_url_and_a_delivery_together_are_refused_before_sending() -> None:
    rec = Recorder()
    with pytest.raises(InvalidArgumentError) as caught:
        client(rec).create(
            task_type="t",
            payload={},
            delay=1,
            callback_url="http://127.0.0.1:9/cb",
            delivery=Delivery.pull("q"),
        )
    assert [(d.field, d.reason) for d in caught.value.details] == [
        ("delivery", "give either callbackUrl or delivery, not both")
    ]
    assert rec.requests == []


def test_a_network_failure_after_the_retries_has_status_0() -> None:
    rec = Recorder(httpx.ConnectError("refused"))
    with pytest.raises(UnavailableError) as caught:
        client(rec, retry=RetryPolicy(max_retries=0)).status("t-1")
    assert (caught.value.code, caught.value.status) == ("UNAVAILABLE", 0)
