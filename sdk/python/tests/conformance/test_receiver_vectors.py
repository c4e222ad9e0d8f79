"""Every case of `conformance/callbacks/receiver.json`: the whole receiving endpoint, through
both adapters (ASGI and WSGI) and httpx's transports for them."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import httpx
import pytest

from delayed_tasks import (
    Callback,
    CallbackASGIApp,
    CallbackWSGIApp,
    InMemoryIdempotencyStore,
    PermanentError,
    RetryableError,
)

from .vectors import load, require

SECRET_TEXT = "the handler's own words, never sent"


def make_handler(action: str, calls: list[str]) -> Callable[[Callback], None]:
    """The test handler a vector's `handlers` names: `handle`, `retry`, `fail` or `throw`."""

    def handler(callback: Callback) -> None:
        calls.append(callback.task_id)
        match action:
            case "handle":
                return
            case "retry":
                raise RetryableError("asked to retry", retry_after=timedelta(seconds=30))
            case "fail":
                raise PermanentError("cannot succeed")
            case "throw":
                raise RuntimeError(SECRET_TEXT)
        raise AssertionError(f"unknown handler action {action}")

    return handler


def build(
    adapter: str, spec: dict[str, Any], calls: list[str]
) -> CallbackASGIApp | CallbackWSGIApp:
    options: dict[str, Any] = {
        "secrets": spec["secrets"],
        "tolerance": timedelta(seconds=spec.get("toleranceSeconds", 300)),
        "clock": lambda: float(spec["now"]),
        "idempotency_store": InMemoryIdempotencyStore(),
    }
    if "allowUnsigned" in spec:
        options["allow_unsigned"] = spec["allowUnsigned"]
    app = CallbackASGIApp(**options) if adapter == "asgi" else CallbackWSGIApp(**options)
    for task_type, action in spec["handlers"].items():
        app.register(task_type, make_handler(action, calls))
    return app


async def deliver(
    app: CallbackASGIApp | CallbackWSGIApp, headers: dict[str, str], body: str
) -> httpx.Response:
    content = body.encode()
    if isinstance(app, CallbackASGIApp):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://receiver") as http:
            return await http.post("/callbacks", content=content, headers=headers)
    with httpx.Client(transport=httpx.WSGITransport(app=app), base_url="http://receiver") as sync:
        return sync.post("/callbacks", content=content, headers=headers)


@pytest.mark.anyio
@pytest.mark.parametrize("adapter", ["asgi", "wsgi"])
@pytest.mark.parametrize("case", load("callbacks", only="receiver"))
async def test_receiver_vector(case: dict[str, Any] | None, adapter: str) -> None:
    case = require(case, "callbacks")
    calls: list[str] = []
    if case.get("expect", {}).get("refusedToBuild"):
        with pytest.raises(ValueError, match="allow_unsigned"):
            build(adapter, case["receiver"], calls)
        return
    app = build(adapter, case["receiver"], calls)
    for number, delivery in enumerate(case["deliveries"]):
        expect = delivery["expect"]
        answer = await deliver(app, delivery["headers"], delivery["body"])
        where = f"delivery {number}"
        assert answer.status_code == expect["status"], f"{where}: {answer.text}"
        assert answer.headers["content-type"] == "application/json", where
        assert json.loads(answer.content) == expect["body"], where
        assert SECRET_TEXT not in answer.text, where
        for name, value in (expect.get("headers") or {}).items():
            assert answer.headers.get(name) == value, f"{where}: header {name}"
        assert len(calls) == expect["handlerCalls"], f"{where}: handler calls"
