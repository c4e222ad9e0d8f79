"""The schedule scenario against the live stack, through both clients: create, get, list, pause
with a note, resume, trigger (the occurrence's callback names its schedule), update, delete."""

from __future__ import annotations

import os

import pytest

from delayed_tasks import (
    AsyncClient,
    Client,
    OverlapPolicy,
    ScheduleNotFoundError,
    ScheduleTaskRequest,
)

from .conftest import Receiver

pytestmark = pytest.mark.live


def test_a_schedule_from_create_to_delete(client: Client, receiver: Receiver, run_id: str) -> None:
    schedule_id = f"sdk-py-{run_id}"
    task = ScheduleTaskRequest(
        task_type="sdk.py", payload={"run": run_id}, callback_url=receiver.url
    )
    assert client.create_schedule(schedule_id, every="1h", task=task).created
    assert not client.create_schedule(schedule_id, every="1h", task=task).created
    schedule = client.get_schedule(schedule_id)
    assert (schedule.every, schedule.overlap, schedule.paused) == ("1h", OverlapPolicy.SKIP, False)
    assert len(schedule.next_run_times) == 10
    page = client.list_schedules(task_type="sdk.py", paused=False)
    assert schedule_id in [s.schedule_id for s in page.schedules]
    paused = client.pause_schedule(schedule_id, "paused by the SDK test")
    assert (paused.paused, paused.note) == (True, "paused by the SDK test")
    assert not client.resume_schedule(schedule_id, "resumed by the SDK test").paused

    client.trigger_schedule(schedule_id)
    callback = receiver.next()
    assert callback.schedule is not None
    assert callback.schedule.schedule_id == schedule_id
    nominal = callback.schedule.scheduled_at.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert callback.task_id == f"{schedule_id}-{nominal}"
    assert callback.payload == {"run": run_id}

    assert client.update_schedule(schedule_id, every="2h").every == "2h"
    client.delete_schedule(schedule_id)
    with pytest.raises(ScheduleNotFoundError) as raised:
        client.get_schedule(schedule_id)
    assert raised.value.status == 404


@pytest.mark.anyio
async def test_the_async_client_creates_and_deletes_a_schedule(dts_url: str, run_id: str) -> None:
    schedule_id = f"sdk-py-async-{run_id}"
    task = ScheduleTaskRequest(
        task_type="sdk.py", payload={"run": run_id}, callback_url="http://127.0.0.1:9/cb"
    )
    async with AsyncClient(dts_url, api_key=os.environ.get("DTS_API_KEY") or None) as client:
        created = await client.create_schedule(schedule_id, cron="@daily", paused=True, task=task)
        assert created.created
        assert created.schedule.paused
        await client.delete_schedule(schedule_id)
        with pytest.raises(ScheduleNotFoundError):
            await client.get_schedule(schedule_id)
