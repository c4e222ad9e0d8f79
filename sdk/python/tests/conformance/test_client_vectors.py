"""Every case of `conformance/client/*.json`: the real httpx transport against a loopback stub."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from typing import Any

import pytest

from delayed_tasks import (
    Client,
    CreateTaskRequest,
    CreateTasksItem,
    DelayedTaskError,
    ErrorDetail,
    RetryPolicy,
    ScheduleTaskRequest,
)

from ..wire import camel, mismatches, to_wire
from .stub import Recorded, stub_server
from .vectors import load, require, untag

USER_AGENT = re.compile(r"^delayed-tasks-python/\S+$")
UUID_V4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


NATIVE_NAMES = {"delaySeconds": "delay"}
"""Inputs whose Python name is not the wire name's snake_case (the unit is in the type)."""


def native(given: dict[str, Any]) -> dict[str, Any]:
    return {NATIVE_NAMES.get(k, snake(k)): v for k, v in given.items()}


def make_client(base_url: str, options: dict[str, Any]) -> Client:
    unknown = set(options) - {"apiKey", "maxRetries"}
    assert not unknown, f"client options this runner does not know: {unknown}"
    retry = RetryPolicy(max_retries=options.get("maxRetries", 3), initial_backoff=0)
    return Client(base_url, api_key=options.get("apiKey"), timeout=5, retry=retry)


def call(client: Client, operation: str, given: dict[str, Any]) -> Any:
    kwargs = native(given)
    match operation:
        case "create":
            return client.create(**kwargs)
        case "createTasks":
            tasks = [CreateTaskRequest(**native(t)) for t in kwargs["tasks"]]
            return [batch_item(item) for item in client.create_tasks(tasks)]
        case "status" | "cancel":
            return getattr(client, operation)(kwargs.pop("task_id"), **kwargs)
        case "reschedule" | "replay":
            return getattr(client, operation)(kwargs.pop("task_id"), **kwargs)
        case "list":
            return client.list(**kwargs)
        case "listAll":
            return {"tasks": list(client.list_all(**kwargs))}
        case "createSchedule":
            task = ScheduleTaskRequest(**native(kwargs.pop("task")))
            return client.create_schedule(kwargs.pop("schedule_id"), task=task, **kwargs)
        case "updateSchedule":
            if "task" in kwargs:
                kwargs["task"] = ScheduleTaskRequest(**native(kwargs["task"]))
            return client.update_schedule(kwargs.pop("schedule_id"), **kwargs)
        case "listSchedules":
            return client.list_schedules(**kwargs)
        case (
            "getSchedule"
            | "pauseSchedule"
            | "resumeSchedule"
            | "triggerSchedule"
            | "backfillSchedule"
            | "deleteSchedule"
        ):
            return getattr(client, snake(operation))(kwargs.pop("schedule_id"), **kwargs)
    raise AssertionError(f"unknown operation {operation}")


def batch_item(item: CreateTasksItem) -> dict[str, Any]:
    """One result of `create_tasks` as the vectors write it (the error as its fields)."""
    wire: dict[str, Any] = {"index": item.index, "taskId": item.task_id}
    if item.error is None:
        wire.update(created=item.created, task=to_wire(item.task))
    else:
        error = item.error
        wire["error"] = {
            "code": error.code,
            "status": error.status,
            "details": [{"field": d.field, "reason": d.reason} for d in error.details],
            "requestId": error.request_id,
        }
    return wire


def body_mismatches(expected: Any, actual: Any, uuids: dict[str, str], path: str) -> list[str]:
    if isinstance(expected, dict) and set(expected) == {"$match"}:
        assert expected["$match"] == "uuid", f"unknown matcher {expected}"
        if not isinstance(actual, str) or not UUID_V4.match(actual):
            return [f"{path}: expected a UUID v4, got {actual!r}"]
        first = uuids.setdefault(path, actual)
        return [] if first == actual else [f"{path}: {actual} differs from the first {first}"]
    if isinstance(expected, dict):
        if not isinstance(actual, dict) or set(expected) != set(actual):
            return [f"{path}: expected keys {sorted(expected)}, got {actual!r}"]
        return [
            p
            for k in expected
            for p in body_mismatches(expected[k], actual[k], uuids, f"{path}.{k}")
        ]
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(expected) != len(actual):
            return [f"{path}: expected {expected!r}, got {actual!r}"]
        return [
            p
            for i, (e, a) in enumerate(zip(expected, actual, strict=True))
            for p in body_mismatches(e, a, uuids, f"{path}.{i}")
        ]
    same = expected == actual and (type(expected) is bool) == (type(actual) is bool)
    return [] if same else [f"{path}: expected {expected!r}, got {actual!r}"]


def request_mismatches(
    expected: dict[str, Any], actual: Recorded, uuids: dict[str, str], where: str
) -> list[str]:
    problems: list[str] = []
    if expected["method"] != actual.method:
        problems.append(f"{where}.method: expected {expected['method']}, got {actual.method}")
    if expected["path"] != actual.path:
        problems.append(f"{where}.path: expected {expected['path']}, got {actual.path}")
    query = {k: str(v) for k, v in (expected.get("query") or {}).items()}
    if query != actual.query:
        problems.append(f"{where}.query: expected {query}, got {actual.query}")
    for name, value in (expected.get("headers") or {}).items():
        got = actual.headers.get(name.lower())
        if value == {"$match": "userAgent"}:
            if not (got and USER_AGENT.match(got)):
                problems.append(
                    f"{where}.headers.{name}: expected the SDK's user agent, got {got!r}"
                )
        elif got != value:
            problems.append(f"{where}.headers.{name}: expected {value!r}, got {got!r}")
    if expected.get("body") is None:
        if actual.body:
            problems.append(f"{where}.body: expected none, got {actual.body!r}")
    else:
        try:
            body = json.loads(actual.body)
        except ValueError:
            return [*problems, f"{where}.body: not JSON: {actual.body!r}"]
        problems += body_mismatches(expected["body"], body, uuids, "body")
    return problems


@pytest.mark.parametrize("case", load("client"))
def test_client_vector(case: dict[str, Any] | None) -> None:
    case = require(case, "client")
    expect = case["expect"]
    started = time.monotonic()
    outcome: Any
    with (
        stub_server(case.get("responses", [])) as (base_url, script),
        make_client(base_url, case.get("options") or {}) as client,
    ):
        try:
            outcome = call(client, case["operation"], untag(case.get("input") or {}))
        except DelayedTaskError as exc:
            outcome = exc
    elapsed_ms = (time.monotonic() - started) * 1000
    problems: list[str] = []
    if elapsed_ms < expect.get("minElapsedMs", 0):
        problems.append(f"took {elapsed_ms:.0f} ms, expected at least {expect['minElapsedMs']} ms")
    if "maxElapsedMs" in expect and elapsed_ms > expect["maxElapsedMs"]:
        problems.append(f"took {elapsed_ms:.0f} ms, expected at most {expect['maxElapsedMs']} ms")
    expected_requests = case["requests"]
    if len(script.requests) != len(expected_requests):
        problems.append(
            f"expected {len(expected_requests)} requests, got {len(script.requests)}: "
            + ", ".join(f"{r.method} {r.path}" for r in script.requests)
        )
    uuids: dict[str, str] = {}
    for i, (want, got) in enumerate(zip(expected_requests, script.requests, strict=False)):
        problems += request_mismatches(want, got, uuids, f"requests.{i}")
    if "error" in expect:
        problems += error_mismatches(expect["error"], outcome)
    else:
        if isinstance(outcome, DelayedTaskError):
            problems.append(f"expected a result, got {outcome!r}")
        else:
            problems += mismatches(expect.get("result"), to_wire(outcome), "result")
    assert not problems, "\n".join(problems)


def error_mismatches(expected: dict[str, Any], outcome: Any) -> list[str]:
    if not isinstance(outcome, DelayedTaskError):
        return [f"expected error {expected.get('code')}, got result {outcome!r}"]
    problems = []
    if "code" in expected and outcome.code != expected["code"]:
        problems.append(f"error.code: expected {expected['code']}, got {outcome.code}")
    if "status" in expected and (
        type(outcome.status) is not int or outcome.status != expected["status"]
    ):
        problems.append(f"error.status: expected {expected['status']}, got {outcome.status!r}")
    if "requestId" in expected and outcome.request_id != expected["requestId"]:
        problems.append(
            f"error.requestId: expected {expected['requestId']}, got {outcome.request_id}"
        )
    if "details" in expected:
        problems += details_mismatches(expected["details"], outcome.details)
    return problems


def details_mismatches(expected: list[dict[str, str]], actual: Sequence[ErrorDetail]) -> list[str]:
    """Each detail's field, in order and count, and its reason word for word when given."""
    want_fields = [d["field"] for d in expected]
    got_fields = [d.field for d in actual]
    if want_fields != got_fields:
        return [f"error.details fields: expected {want_fields}, got {got_fields}"]
    return [
        f"error.details.{i}.reason: expected {want['reason']!r}, got {got.reason!r}"
        for i, (want, got) in enumerate(zip(expected, actual, strict=True))
        if "reason" in want and want["reason"] != got.reason
    ]


def test_camel_and_snake_are_inverse() -> None:
    for name in ("delaySeconds", "taskId", "payloadVersion", "traceId", "pageToken"):
        assert camel(snake(name)) == name
