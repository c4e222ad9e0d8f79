"""The wire types against the committed OpenAPI document (`docs/openapi.json`, generated from the
API's schemas by `npm run openapi`): every property the document gives exists in the Python type
and the other way round, so neither can drift from the other unnoticed."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

import pytest

from delayed_tasks import (
    AttemptOutcome,
    CreateTaskRequest,
    DelayedTaskError,
    Delivery,
    ErrorCode,
    ErrorDetail,
    Task,
    TaskAttempt,
    TaskError,
    TaskPage,
    TaskStatus,
    TaskSummary,
)
from delayed_tasks._request import ListFilter

from ..wire import camel

REPO_ROOT = Path(__file__).resolve().parents[4]
OPENAPI = Path(os.environ.get("DTS_OPENAPI", REPO_ROOT / "docs" / "openapi.json"))

WIRE_NAMES = {"delay": "delaySeconds", "broker_name": "broker"}
"""Python names that are not the wire name in snake_case (the unit is in the type; `broker` is
also `Delivery.broker`'s name)."""

BROKER_FIELDS = {"broker", "stream", "maxLen", "exchange", "routingKey", "topic", "key", "kind"}
"""Broker delivery's fields (branch brokers), which a document with only pull delivery lacks."""


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    if not OPENAPI.is_file():
        if os.environ.get("CI") == "true":
            pytest.fail(f"no OpenAPI document at {OPENAPI}")
        pytest.skip(f"no OpenAPI document at {OPENAPI}")
    loaded: dict[str, Any] = json.loads(OPENAPI.read_text(encoding="utf-8"))
    return loaded


def operation(document: dict[str, Any], method: str, path: str) -> dict[str, Any]:
    found: dict[str, Any] = document["paths"][path][method]
    return found


def answer(document: dict[str, Any], method: str, path: str, status: str) -> dict[str, Any]:
    content = operation(document, method, path)["responses"][status]["content"]
    schema: dict[str, Any] = content["application/json"]["schema"]
    return schema


def properties(schema: dict[str, Any]) -> set[str]:
    """The schema's properties; of every option for a union (`delivery`: pull or broker)."""
    if "anyOf" in schema and "properties" not in schema:
        return {name for option in schema["anyOf"] for name in option.get("properties", {})}
    return set(schema["properties"])


def wire_fields(cls: type) -> set[str]:
    """The dataclass's fields under their wire names (`raw`, the JSON as received, is not one)."""
    return {
        WIRE_NAMES.get(f.name, camel(f.name)) for f in dataclasses.fields(cls) if f.name != "raw"
    }


def enum_values(schema: dict[str, Any]) -> set[str]:
    return {value for option in schema["anyOf"] for value in option["enum"]}


def test_task(document: dict[str, Any]) -> None:
    task = answer(document, "get", "/api/v1/tasks/{taskId}", "200")
    # Task is a TaskSummary: its delivery_mode is the mode of its delivery, not a field of the view.
    assert wire_fields(Task) - {"deliveryMode"} == properties(task)
    assert wire_fields(Delivery) <= properties(task["properties"]["delivery"]) | BROKER_FIELDS
    assert {"expiresAt", "workerIdentity"} == properties(task["properties"]["lease"])
    assert wire_fields(TaskError) == properties(task["properties"]["lastError"])
    assert wire_fields(TaskAttempt) == properties(task["properties"]["attemptHistory"]["items"])


def test_task_summary_and_the_list_page(document: dict[str, Any]) -> None:
    page = answer(document, "get", "/api/v1/tasks", "200")
    assert wire_fields(TaskPage) == properties(page)
    assert wire_fields(TaskSummary) == properties(page["properties"]["tasks"]["items"])


def test_list_filters(document: dict[str, Any]) -> None:
    parameters = operation(document, "get", "/api/v1/tasks")["parameters"]
    query = {p["name"] for p in parameters if p["in"] == "query"}
    assert wire_fields(ListFilter) | {"pageToken"} == query


def test_create_body(document: dict[str, Any]) -> None:
    body = operation(document, "post", "/api/v1/tasks")["requestBody"]
    assert wire_fields(CreateTaskRequest) == properties(
        body["content"]["application/json"]["schema"]
    )


def test_error_body(document: dict[str, Any]) -> None:
    envelope = answer(document, "get", "/api/v1/tasks/{taskId}", "404")
    assert properties(envelope) == {"error"}
    error = envelope["properties"]["error"]
    # status and request_id come from the HTTP answer (status line, x-request-id), not the body.
    from_body = set(DelayedTaskError.__annotations__) - {"status", "request_id"}
    assert from_body == properties(error)
    assert wire_fields(ErrorDetail) == properties(error["properties"]["details"]["items"])


def test_status_enum(document: dict[str, Any]) -> None:
    task = answer(document, "get", "/api/v1/tasks/{taskId}", "200")
    assert set(TaskStatus) == enum_values(task["properties"]["status"])
    history = task["properties"]["attemptHistory"]["items"]
    assert set(AttemptOutcome) == enum_values(history["properties"]["outcome"])


def test_error_codes(document: dict[str, Any]) -> None:
    error = answer(document, "get", "/api/v1/tasks/{taskId}", "404")["properties"]["error"]
    # UNKNOWN is the SDK's own: an answer without the API's error body.
    assert set(ErrorCode) - {ErrorCode.UNKNOWN} == enum_values(error["properties"]["code"])
