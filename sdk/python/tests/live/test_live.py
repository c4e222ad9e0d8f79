"""The shared live scenarios against API + worker + Temporal dev server on loopback."""

from __future__ import annotations

import base64
import os
import queue
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi import FastAPI

from delayed_tasks import (
    AsyncClient,
    Callback,
    CallbackASGIApp,
    Client,
    CreateTaskRequest,
    InvalidArgumentError,
    Task,
    TaskConflictError,
    TaskNotFoundError,
    TaskStatus,
)
from delayed_tasks.fastapi import callback_router

from .conftest import Receiver, serve_asgi, serve_receiver

pytestmark = pytest.mark.live


def wait_for_status(client: Client, task_id: str, status: str, timeout: float = 90) -> Task:
    """Poll the task until it reaches `status` (bounded)."""
    deadline = time.monotonic() + timeout
    while True:
        task = client.status(task_id)
        if task.status == status:
            return task
        if time.monotonic() > deadline:
            pytest.fail(f"task {task_id} is {task.status}, not {status}, after {timeout}s")
        time.sleep(0.25)


def test_create_get_cancel(client: Client, run_id: str) -> None:
    created = client.create(
        task_type="sdk.py",
        payload={"orderId": "10023", "big": 2**53 - 1},
        delay=timedelta(hours=1),
        callback_url="http://127.0.0.1:9/never",
    )
    assert created.created
    task_id = created.task.task_id
    fetched = client.status(task_id)
    assert fetched.status == TaskStatus.SCHEDULED
    assert fetched.payload == {"orderId": "10023", "big": 2**53 - 1}
    assert fetched.execute_at is not None
    assert fetched.execute_at - datetime.now(UTC) > timedelta(minutes=55)
    assert client.cancel(task_id).status == TaskStatus.CANCELLED
    assert client.status(task_id).status == TaskStatus.CANCELLED


def test_create_is_idempotent_on_task_id_and_conflicts_on_another_spec(
    client: Client, run_id: str
) -> None:
    spec: dict[str, Any] = {
        "task_type": "sdk.py",
        "payload": {"n": 1},
        "execute_at": datetime.now(UTC) + timedelta(hours=2),
        "callback_url": "http://127.0.0.1:9/never",
        "task_id": f"py-{run_id}-idem",
    }
    first = client.create(**spec)
    again = client.create(**spec)
    assert (first.created, again.created) == (True, False)
    assert again.task.task_id == first.task.task_id
    with pytest.raises(TaskConflictError) as caught:
        client.create(**{**spec, "payload": {"n": 2}})
    assert (caught.value.code, caught.value.status) == ("TASK_CONFLICT", 409)
    assert client.status(first.task.task_id).payload == {"n": 1}
    client.cancel(first.task.task_id)


def test_reschedule(client: Client, run_id: str) -> None:
    task = client.create(
        task_type="sdk.py",
        payload={},
        delay=3600,
        callback_url="http://127.0.0.1:9/never",
        task_id=f"py-{run_id}-resched",
    ).task
    later = datetime.now(UTC).replace(microsecond=0) + timedelta(days=2)
    moved = client.reschedule(task.task_id, execute_at=later)
    assert moved.execute_at == later
    assert client.status(task.task_id).execute_at == later
    client.cancel(task.task_id)


def test_permanent_failure_then_replay_with_edited_payload(
    client: Client, receiver: Receiver, run_id: str
) -> None:
    task_id = f"py-{run_id}-replay"
    client.create(
        task_type="sdk.py",
        payload={"fail": True, "run": run_id},
        delay=0,
        callback_url=receiver.url,
        task_id=task_id,
        max_retries=2,
    )
    assert receiver.next().payload == {"fail": True, "run": run_id}
    failed = wait_for_status(client, task_id, TaskStatus.FAILED)
    assert failed.attempts == 1  # 422 is permanent: no retry
    assert failed.last_error is not None
    assert failed.last_error.status_code == 422

    client.replay(task_id, payload={"fail": False, "run": run_id}, payload_version=2)
    delivered = receiver.next()
    assert (delivered.task_id, delivered.payload_version) == (task_id, 2)
    assert delivered.payload == {"fail": False, "run": run_id}
    wait_for_status(client, task_id, TaskStatus.SUCCEEDED)


@pytest.mark.anyio
async def test_due_task_reaches_a_handler_built_on_the_receiving_helpers(
    dts_url: str, receiver: Receiver, run_id: str
) -> None:
    async with AsyncClient(dts_url, api_key=os.environ.get("DTS_API_KEY") or None) as client:
        result = await client.create(
            task_type="sdk.py",
            payload={"orderId": 12345, "note": "héllo", "run": run_id},
            delay=1.5,
            callback_url=receiver.url,
            trace_id=f"trace-{run_id}",
        )
        callback = receiver.next()
        assert callback.task_id == result.task.task_id
        assert callback.payload == {"orderId": 12345, "note": "héllo", "run": run_id}
        assert callback.trace_id == f"trace-{run_id}"
        assert callback.attempt == 1
        summaries = [t async for t in client.list_all(task_type="sdk.py", page_size=5)]
        assert any(t.task_id == result.task.task_id for t in summaries)


def test_a_callback_signed_with_another_secret_never_reaches_the_handler(
    client: Client, run_id: str
) -> None:
    if not os.environ.get("DTS_WEBHOOK_SECRET"):
        pytest.skip("the stack does not sign callbacks (DTS_WEBHOOK_SECRET unset)")
    wrong = "whsec_" + base64.b64encode(os.urandom(32)).decode()
    with serve_receiver(wrong) as receiver:
        task_id = f"py-{run_id}-forged"
        client.create(
            task_type="sdk.py",
            payload={"run": run_id},
            delay=0,
            callback_url=receiver.url,
            task_id=task_id,
        )
        failed = wait_for_status(client, task_id, TaskStatus.FAILED)
        assert failed.last_error is not None
        assert failed.last_error.status_code == 401  # permanent: the signature did not match
        with pytest.raises(queue.Empty):
            receiver.delivered.get_nowait()


def test_create_tasks_answers_each_item_in_order(client: Client, run_id: str) -> None:
    item = CreateTaskRequest(
        task_type="sdk.py",
        payload={"n": 1},
        delay=timedelta(hours=1),
        callback_url="http://127.0.0.1:9/never",
    )
    a, c = f"py-{run_id}-batch-a", f"py-{run_id}-batch-c"
    results = client.create_tasks(
        [
            replace(item, task_id=a),
            item,
            replace(item, task_id=c, task_type="Not A Type!"),
            replace(item, task_id=a, payload={"n": 2}),
        ]
    )
    outcomes = [(r.index, r.created, r.error and (type(r.error), r.error.status)) for r in results]
    assert outcomes == [
        (0, True, None),
        (1, True, None),
        (2, None, (InvalidArgumentError, 400)),
        (3, None, (TaskConflictError, 409)),
    ]
    generated = results[1].task_id
    assert generated is not None
    assert client.status(generated).status == TaskStatus.SCHEDULED
    with pytest.raises(TaskNotFoundError):
        client.status(c)
    [again] = client.create_tasks([replace(item, task_id=a)])
    assert again.ok
    assert again.created is False
    for task_id in (a, generated):
        client.cancel(task_id)


def wait_until_listed(client: Client, expected: set[str], **filters: Any) -> set[str]:
    """The ids `list_all` gives for `filters`, once they hold `expected` (visibility lags)."""
    deadline = time.monotonic() + 30
    while True:
        listed = {task.task_id for task in client.list_all(**filters)}
        if expected <= listed or time.monotonic() > deadline:
            return listed
        time.sleep(0.5)


def test_list_filters_by_id_prefix_status_and_due_range(client: Client, run_id: str) -> None:
    now = datetime.now(UTC)
    prefix = f"py-{run_id}-list-"
    soon, later = f"{prefix}soon", f"{prefix}later"
    for task_id, delay in ((soon, timedelta(hours=1)), (later, timedelta(hours=3))):
        client.create(
            task_type="sdk.py",
            payload={},
            delay=delay,
            callback_url="http://127.0.0.1:9/never",
            task_id=task_id,
        )
    try:
        assert wait_until_listed(client, {soon, later}, id_prefix=prefix, page_size=1) == {
            soon,
            later,
        }
        in_range = wait_until_listed(
            client,
            {soon},
            id_prefix=prefix,
            status=TaskStatus.SCHEDULED,
            due_after=now + timedelta(minutes=30),
            due_before=now + timedelta(hours=2),
        )
        assert in_range == {soon}
    finally:
        client.cancel(soon)
        client.cancel(later)


@pytest.mark.parametrize("slash", ["", "/"])
def test_a_fastapi_app_receives_on_the_bare_path_and_with_the_slash(
    client: Client, run_id: str, slash: str
) -> None:
    secret = os.environ.get("DTS_WEBHOOK_SECRET") or None
    handled: queue.Queue[Callback] = queue.Queue()
    receiver = CallbackASGIApp(secrets=secret, allow_unsigned=not secret)
    receiver.register("sdk.py", handled.put)
    app = FastAPI()
    app.include_router(callback_router(receiver, "/hooks"))
    with serve_asgi(app) as base_url:
        task_id = f"py-{run_id}-fastapi"
        client.create(
            task_type="sdk.py",
            payload={"run": run_id},
            delay=0,
            callback_url=f"{base_url}/hooks{slash}",
            task_id=task_id,
        )
        assert handled.get(timeout=90).task_id == task_id
        succeeded = wait_for_status(client, task_id, TaskStatus.SUCCEEDED)
        assert succeeded.attempts == 1  # answered 200 at once: no redirect, no retry
