"""The receiver inside real Starlette and FastAPI applications: `/path` and `/path/` both reach
it (no 307, which the service would take as a permanent failure)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from starlette.applications import Starlette
from starlette.routing import Mount

from delayed_tasks import Callback, CallbackASGIApp
from delayed_tasks.fastapi import callback_router
from delayed_tasks.starlette import callback_routes

from ..signing import SECRET, headers

NOW = 1_764_756_000
BODY = json.dumps(
    {
        "taskId": "t-1",
        "taskType": "order.close",
        "payload": {},
        "payloadVersion": 1,
        "executeAt": "2026-12-03T10:00:00.000Z",
        "attempt": 1,
        "traceId": None,
    }
).encode()


def receiver(runs: list[str]) -> CallbackASGIApp:
    app = CallbackASGIApp(secrets=[SECRET], clock=lambda: NOW)

    @app.handler("order.close")
    async def close(callback: Callback) -> None:
        runs.append(callback.task_id)

    return app


@asynccontextmanager
async def serving(app: Any) -> AsyncIterator[httpx.AsyncClient]:
    """An httpx client talking to `app` in process through the ASGI transport."""
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://app") as client:
        yield client


async def post(client: httpx.AsyncClient, path: str) -> tuple[int, Any]:
    # A webhook-id per path: each post is its own delivery, not a duplicate of the last.
    signed = headers(SECRET, BODY, timestamp=NOW, msg_id="msg" + path.replace("/", "_"))
    answer = await client.post(path, content=BODY, headers=signed)
    is_json = answer.headers.get("content-type") == "application/json"
    return answer.status_code, answer.json() if is_json else answer.text


@pytest.mark.anyio
async def test_mounting_redirects_the_bare_path_which_is_why_the_helpers_exist() -> None:
    runs: list[str] = []
    app = Starlette(routes=[Mount("/callbacks", receiver(runs))])
    async with serving(app) as client:
        assert (await post(client, "/callbacks"))[0] == 307
        assert await post(client, "/callbacks/") == (200, {"status": "handled"})


@pytest.mark.anyio
@pytest.mark.parametrize("path", ["/callbacks", "/callbacks/"])
async def test_starlette_routes_answer_with_and_without_the_trailing_slash(path: str) -> None:
    runs: list[str] = []
    app = Starlette(routes=callback_routes(receiver(runs), path))
    async with serving(app) as client:
        assert await post(client, "/callbacks") == (200, {"status": "handled"})
        assert await post(client, "/callbacks/") == (200, {"status": "handled"})
        assert (await post(client, "/elsewhere"))[0] == 404
    assert runs == ["t-1", "t-1"]  # two webhook-ids: each delivery runs


@pytest.mark.anyio
async def test_fastapi_router_answers_both_paths_under_a_prefix_out_of_the_schema() -> None:
    runs: list[str] = []
    app = FastAPI()

    @app.get("/health")
    def health() -> dict[str, bool]:
        return {"ok": True}

    app.include_router(callback_router(receiver(runs), "/close"), prefix="/callbacks")
    async with serving(app) as client:
        assert await post(client, "/callbacks/close") == (200, {"status": "handled"})
        assert await post(client, "/callbacks/close/") == (200, {"status": "handled"})
        unsigned = await client.post("/callbacks/close", content=BODY)
        assert unsigned.status_code == 401
        assert unsigned.json() == {"status": "refused", "reason": "missing_header"}
        get = await client.get("/callbacks/close")
        assert (get.status_code, get.headers["allow"]) == (405, "POST")
        assert (await client.get("/health")).json() == {"ok": True}
        assert list((await client.get("/openapi.json")).json()["paths"]) == ["/health"]
    assert runs == ["t-1", "t-1"]


@pytest.mark.parametrize("path", ["", "/", "callbacks"])
def test_a_path_must_name_something(path: str) -> None:
    with pytest.raises(ValueError, match="must start with /"):
        callback_routes(receiver([]), path)
