"""Every case of `conformance/pull/wire-vectors.json`: the five lease verbs of `Client` and
`AsyncClient` against the loopback stub, compared as `test_client_vectors` compares the others."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from delayed_tasks import AsyncClient, DelayedTaskError, LeaseRequest, NackRequest, RetryPolicy

from ..wire import mismatches, to_wire
from .stub import stub_server
from .test_client_vectors import error_mismatches, make_client, native, request_mismatches
from .vectors import load, require, untag

CASES = load("pull", only="wire-vectors")


def verb_args(operation: str, given: dict[str, Any]) -> tuple[Any, ...]:
    kwargs = native(given)
    if operation == "lease":
        return (LeaseRequest(**kwargs),)
    token = kwargs.pop("lease_token")
    return (token, NackRequest(**kwargs)) if operation == "nack" else (token,)


def compare(case: dict[str, Any], outcome: Any, requests: list[Any]) -> None:
    expect = case["expect"]
    problems: list[str] = []
    if len(requests) != len(case["requests"]):
        problems.append(f"expected {len(case['requests'])} requests, got {len(requests)}")
    uuids: dict[str, str] = {}
    for i, (want, got) in enumerate(zip(case["requests"], requests, strict=False)):
        problems += request_mismatches(want, got, uuids, f"requests.{i}")
    if "error" in expect:
        problems += error_mismatches(expect["error"], outcome)
    elif isinstance(outcome, DelayedTaskError):
        problems.append(f"expected a result, got {outcome!r}")
    else:
        problems += mismatches(expect.get("result"), to_wire(outcome), "result")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("case", CASES)
def test_pull_wire_vector_sync(case: dict[str, Any] | None) -> None:
    case = require(case, "pull")
    outcome: Any
    with (
        stub_server(case.get("responses", [])) as (base_url, script),
        make_client(base_url, case.get("options") or {}) as client,
    ):
        try:
            verb = getattr(client, case["operation"])
            outcome = verb(*verb_args(case["operation"], untag(case["input"])))
        except DelayedTaskError as exc:
            outcome = exc
    compare(case, outcome, script.requests)


@pytest.mark.parametrize("case", CASES)
def test_pull_wire_vector_async(case: dict[str, Any] | None) -> None:
    case = require(case, "pull")
    options = case.get("options") or {}
    retry = RetryPolicy(max_retries=options.get("maxRetries", 3), initial_backoff=0)

    async def run(base_url: str) -> Any:
        async with AsyncClient(
            base_url, api_key=options.get("apiKey"), timeout=5, retry=retry
        ) as client:
            try:
                verb = getattr(client, case["operation"])
                return await verb(*verb_args(case["operation"], untag(case["input"])))
            except DelayedTaskError as exc:
                return exc

    with stub_server(case.get("responses", [])) as (base_url, script):
        outcome = asyncio.run(run(base_url))
    compare(case, outcome, script.requests)
