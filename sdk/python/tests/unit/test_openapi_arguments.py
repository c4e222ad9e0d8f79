"""The client's arguments and decoders against `docs/openapi.json` (test_openapi.py holds the
types): every property of the create body and every list filter is an argument of `create`,
`list` and `list_all` of both clients and reaches the request, every property of a schedule's
task reaches its body, and every property of an answer is read. A property added to the API fails
here until the argument exists, is passed on and is written (or read)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime
from functools import partial
from typing import Any

import httpx
import pytest

from delayed_tasks import (
    AsyncClient,
    Client,
    Delivery,
    RetryPolicy,
    ScheduleTask,
    ScheduleTaskRequest,
    Task,
    TaskSummary,
)

from .test_openapi import WIRE_NAMES, answer, document, operation, properties

__all__ = ["document"]  # the fixture, shared with test_openapi.py

PYTHON_NAMES = {wire: name for name, wire in WIRE_NAMES.items()}

SAMPLES: dict[str, Any] = {
    # the create body (and a schedule's task)
    "taskType": "t",
    "payload": {"a": 1},
    "delaySeconds": 2,
    "executeAt": datetime(2026, 12, 3, tzinfo=UTC),
    "callbackUrl": "https://h.example/other",
    "delivery": Delivery.pull("q"),
    "taskId": "id",
    "maxRetries": 2,
    "timeoutMs": 1500,
    "payloadVersion": 2,
    "traceId": "trace",
    "priority": 1,
    # the list filters
    "status": "FAILED",
    "idPrefix": "p",
    "owner": "o",
    "dueAfter": datetime(2026, 12, 3, tzinfo=UTC),
    "dueBefore": datetime(2026, 12, 4, tzinfo=UTC),
    "pageSize": 5,
    "pageToken": "x",
}
"""A value for each property of the create body and each list filter, by wire name."""

EXCLUDES = {"executeAt": "delaySeconds", "delivery": "callbackUrl"}
"""A property given with its other is refused: the sample of one drops the other."""


def python_name(wire: str) -> str:
    if wire in PYTHON_NAMES:
        return PYTHON_NAMES[wire]
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in wire)


def sample_of(wire: str) -> Any:
    if wire not in SAMPLES:
        pytest.fail(f"no sample for the API's {wire!r}: add one to SAMPLES")
    return SAMPLES[wire]


def sample_answer(schema: dict[str, Any]) -> Any:
    """A JSON value of the schema with every property set (the first option of a union)."""
    options = [o for o in schema.get("anyOf", [schema]) if o.get("enum") != [None]]
    chosen = options[0]
    if "enum" in chosen:
        return chosen["enum"][0]
    kind = chosen.get("type")
    if kind == "object":
        return {name: sample_answer(child) for name, child in chosen.get("properties", {}).items()}
    if kind == "array":
        return [sample_answer(chosen["items"])]
    if kind in ("integer", "number"):
        return 1
    if kind == "boolean":
        return True
    return "2026-12-03T10:00:00.000Z" if chosen.get("format") == "date-time" else "x"


def sent(status: int, answer: Any, call: Callable[[Any], Any]) -> list[httpx.Request]:
    """The requests `call(client)` makes of a sync and of an async client, each answered with
    `status` and `answer`."""
    requests: list[httpx.Request] = []

    def reply(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(status, json=answer)

    retry = RetryPolicy(initial_backoff=0)
    with Client("http://dts.test", transport=httpx.MockTransport(reply), retry=retry) as client:
        result = call(client)
        if isinstance(result, Iterator):  # list_all: a page is fetched when it is reached
            list(result)

    async def run_async() -> None:
        transport = httpx.MockTransport(reply)
        async with AsyncClient("http://dts.test", transport=transport, retry=retry) as client:
            result = call(client)
            if isinstance(result, AsyncIterator):
                [item async for item in result]
            else:
                await result

    asyncio.run(run_async())
    assert len(requests) == 2
    return requests


def create(client: Any, arguments: dict[str, Any]) -> Any:
    return client.create(**arguments)


def list_page(client: Any, arguments: dict[str, Any]) -> Any:
    return client.list(**arguments)


def list_every(client: Any, arguments: dict[str, Any]) -> Any:
    return client.list_all(**arguments)


BASE_CREATE = {"taskType": "t", "payload": {}, "delaySeconds": 1, "callbackUrl": "https://h/cb"}


def test_every_property_of_the_create_body_is_an_argument_that_reaches_it(
    document: dict[str, Any],
) -> None:
    schema = operation(document, "post", "/api/v1/tasks")["requestBody"]["content"]
    task = sample_answer(answer(document, "post", "/api/v1/tasks", "201"))
    for wire in properties(schema["application/json"]["schema"]):
        given = {**BASE_CREATE, wire: sample_of(wire)}
        given.pop(EXCLUDES.get(wire, ""), None)
        arguments = {python_name(name): value for name, value in given.items()}
        for request in sent(201, task, partial(create, arguments=arguments)):
            assert wire in json.loads(request.content), (
                f"create({python_name(wire)}=...) does not send {wire}: an argument of"
                " Client.create and AsyncClient.create, passed on, written by _create_body"
            )


def test_every_list_filter_is_an_argument_that_reaches_the_query(
    document: dict[str, Any],
) -> None:
    parameters = operation(document, "get", "/api/v1/tasks")["parameters"]
    for wire in {p["name"] for p in parameters if p["in"] == "query"}:
        argument = {python_name(wire): sample_of(wire)}
        verbs = [list_page, list_every] if wire != "pageToken" else [list_page]
        for verb in verbs:
            empty: dict[str, Any] = {"tasks": [], "nextPageToken": None}
            for request in sent(200, empty, partial(verb, arguments=argument)):
                assert wire in request.url.params, (
                    f"list/list_all({python_name(wire)}=...) does not send {wire}: an argument"
                    " of list and list_all of both clients, passed on, sent by list_request"
                )


def test_every_property_of_a_schedules_task_reaches_its_body(document: dict[str, Any]) -> None:
    content = operation(document, "post", "/api/v1/schedules")["requestBody"]["content"]
    task = content["application/json"]["schema"]["properties"]["task"]
    for wire in properties(task):
        given = {"taskType": "t", "payload": {}, wire: sample_of(wire)}
        arguments = {python_name(name): value for name, value in given.items()}
        body = ScheduleTaskRequest(**arguments).to_json([])
        assert wire in body, f"ScheduleTaskRequest.to_json does not write {wire}"


@pytest.mark.parametrize(
    ("model", "where"),
    [
        (Task, ("get", "/api/v1/tasks/{taskId}", "200", ())),
        (TaskSummary, ("get", "/api/v1/tasks", "200", ("tasks", "items"))),
        (ScheduleTask, ("get", "/api/v1/schedules/{scheduleId}", "200", ("task",))),
    ],
)
def test_every_property_of_an_answer_is_read(
    document: dict[str, Any], model: Any, where: tuple[str, str, str, tuple[str, ...]]
) -> None:
    method, path, status, steps = where
    schema = answer(document, method, path, status)
    for step in steps:
        schema = schema["items"] if step == "items" else schema["properties"][step]
    decoded = model.from_json(sample_answer(schema))
    unread = [
        f.name
        for f in dataclasses.fields(model)
        if f.name != "raw" and getattr(decoded, f.name) is None
    ]
    assert unread == [], (
        f"{model.__name__}.from_json leaves {unread} None though the answer has them"
    )
