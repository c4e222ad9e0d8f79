"""The schedule models and request builders against `docs/openapi.json`, both ways (see
test_openapi.py): a property added to the API, or a field to the SDK, fails here."""

from __future__ import annotations

import inspect
from datetime import UTC, datetime
from typing import Any

from delayed_tasks import (
    Client,
    OverlapPolicy,
    Schedule,
    ScheduleOccurrence,
    SchedulePage,
    ScheduleSummary,
    ScheduleTask,
    ScheduleTaskRequest,
)
from delayed_tasks._schedules import backfill_schedule_request

from .test_openapi import answer, document, enum_values, operation, properties, wire_fields

__all__ = ["document"]  # the fixture, shared with test_openapi.py

ONE = "/api/v1/schedules/{scheduleId}"


def body_schema(document: dict[str, Any], method: str, path: str) -> dict[str, Any]:
    schema: dict[str, Any] = operation(document, method, path)["requestBody"]["content"][
        "application/json"
    ]["schema"]
    return schema


def keyword_names(method: Any) -> set[str]:
    """The keyword arguments of a client method under their wire names."""
    params = inspect.signature(method).parameters.values()
    return {
        "".join([p.name.split("_")[0], *(w.capitalize() for w in p.name.split("_")[1:])])
        for p in params
        if p.kind is inspect.Parameter.KEYWORD_ONLY
    }


def test_every_schedule_answer_is_the_schedule(document: dict[str, Any]) -> None:
    routes = [("get", ONE), ("patch", ONE)] + [
        ("post", f"{ONE}/{verb}") for verb in ("pause", "resume", "trigger", "backfill")
    ]
    for method, path in routes:
        schedule = answer(document, method, path, "200")
        assert wire_fields(Schedule) == properties(schedule), path
        assert wire_fields(ScheduleTask) == properties(schedule["properties"]["task"])
        occurrence = schedule["properties"]["recentOccurrences"]["items"]
        assert wire_fields(ScheduleOccurrence) == properties(occurrence)
    assert wire_fields(Schedule) == properties(answer(document, "post", "/api/v1/schedules", "201"))


def test_the_list_page_and_its_filters(document: dict[str, Any]) -> None:
    page = answer(document, "get", "/api/v1/schedules", "200")
    assert wire_fields(SchedulePage) == properties(page)
    assert wire_fields(ScheduleSummary) == properties(page["properties"]["schedules"]["items"])
    parameters = operation(document, "get", "/api/v1/schedules")["parameters"]
    assert keyword_names(Client.list_schedules) == {p["name"] for p in parameters}


def test_the_create_and_update_bodies(document: dict[str, Any]) -> None:
    create = body_schema(document, "post", "/api/v1/schedules")
    assert keyword_names(Client.create_schedule) | {"scheduleId"} == properties(create)
    assert wire_fields(ScheduleTaskRequest) == properties(create["properties"]["task"])
    update = body_schema(document, "patch", ONE)
    assert keyword_names(Client.update_schedule) == properties(update)


def test_the_backfill_and_trigger_bodies(document: dict[str, Any]) -> None:
    time = datetime(2026, 12, 1, tzinfo=UTC)
    body = backfill_schedule_request("s", time, time, OverlapPolicy.SKIP).body or {}
    assert set(body) == properties(body_schema(document, "post", f"{ONE}/backfill"))
    assert keyword_names(Client.trigger_schedule) == properties(
        body_schema(document, "post", f"{ONE}/trigger")
    )


def test_overlap_policies(document: dict[str, Any]) -> None:
    schedule = answer(document, "get", ONE, "200")
    assert set(OverlapPolicy) == enum_values(schedule["properties"]["overlap"])
