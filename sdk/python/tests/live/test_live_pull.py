"""Pull delivery on the live stack: `PullWorker` and `AsyncPullWorker` lease, ack, nack and
release real tasks, created with `delivery=Delivery.pull(...)` through `create`. Skipped when
the stack has no lease routes (before the `pull` branch is merged)."""

from __future__ import annotations

import asyncio
import os
import queue
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from delayed_tasks import (
    AsyncClient,
    AsyncPullWorker,
    Client,
    DelayedTaskError,
    Delivery,
    InMemoryIdempotencyStore,
    LeasedTask,
    LeaseRequest,
    PermanentError,
    PullWorker,
    PullWorkerOptions,
    Task,
    TaskStatus,
)

pytestmark = pytest.mark.live
TYPE = "sdk.py.pull"


@pytest.fixture
def pull_queue(dts_url: str, client: Client) -> str:
    """A queue of this test's own; skips when the stack cannot lease."""
    name = f"sdk-py-{uuid.uuid4().hex[:10]}"
    try:
        client.lease(LeaseRequest(queues=[name], wait_seconds=0))
    except DelayedTaskError as exc:
        if exc.status == 404:
            pytest.skip(f"the stack has no lease routes: {exc}")
        if exc.status == 403:
            pytest.fail(f"DTS_API_KEY lacks tasks:lease (scripts/live-stack.ts mints it): {exc}")
        raise
    return name


def create_pull_task(client: Client, queue_name: str, payload: dict[str, Any], **extra: Any) -> str:
    """A pull task on `queue_name`, due now, created through the client's `create`."""
    task_id = f"pull-{uuid.uuid4().hex[:12]}"
    result = client.create(
        task_type=TYPE,
        task_id=task_id,
        payload=payload,
        delay=0,
        delivery=Delivery.pull(queue_name, 6),
        **extra,
    )
    assert result.created
    assert result.task.delivery == Delivery.pull(queue_name, 6)
    assert result.task.callback_url is None
    return task_id


def wait_for_status(client: Client, task_id: str, status: str, timeout: float = 60) -> Task:
    deadline = time.monotonic() + timeout
    while (task := client.status(task_id)).status != status:
        assert time.monotonic() < deadline, f"{task_id} is {task.status}, not {status}"
        time.sleep(0.2)
    return task


@pytest.fixture
def worker_thread(client: Client, pull_queue: str) -> Iterator[Any]:
    """Starts PullWorkers on their own threads; shuts them down at the end."""
    started: list[tuple[PullWorker, threading.Thread]] = []

    def start(worker: PullWorker) -> PullWorker:
        thread = threading.Thread(target=worker.run, daemon=True)
        thread.start()
        started.append((worker, thread))
        return worker

    yield start
    for worker, thread in started:
        worker.shutdown(2)
        thread.join(timeout=10)


def options(pull_queue: str, **more: Any) -> PullWorkerOptions:
    return PullWorkerOptions(queues=[pull_queue], wait_seconds=2, **more)


def test_a_returned_handler_acks_and_the_task_succeeds(
    dts_url: str, client: Client, pull_queue: str, worker_thread: Any
) -> None:
    got: queue.Queue[LeasedTask] = queue.Queue()
    worker = PullWorker(client, options(pull_queue, idempotency_store=InMemoryIdempotencyStore()))
    worker.handle(TYPE, got.put)
    worker_thread(worker)
    task_id = create_pull_task(client, pull_queue, {"n": 1})
    task = got.get(timeout=60)
    assert (task.task_id, task.queue, task.payload) == (task_id, pull_queue, {"n": 1})
    assert task.idempotency_key
    assert wait_for_status(client, task_id, TaskStatus.SUCCEEDED).status == "SUCCEEDED"


def test_a_permanent_error_dead_letters_the_task_with_its_message(
    dts_url: str, client: Client, pull_queue: str, worker_thread: Any
) -> None:
    def fail(task: LeasedTask) -> None:
        raise PermanentError(f"order {task.payload['n']} does not exist")

    worker = PullWorker(client, options(pull_queue))
    worker.handle(TYPE, fail)
    worker_thread(worker)
    task_id = create_pull_task(client, pull_queue, {"n": 7})
    failed = wait_for_status(client, task_id, TaskStatus.FAILED)
    assert failed.last_error is not None
    assert failed.last_error.message == "order 7 does not exist"


def test_an_exception_is_retried_with_the_same_idempotency_key(
    dts_url: str, client: Client, pull_queue: str, worker_thread: Any
) -> None:
    seen: list[LeasedTask] = []

    def flaky(task: LeasedTask) -> None:
        seen.append(task)
        if len(seen) == 1:
            raise RuntimeError("database unreachable")

    worker = PullWorker(client, options(pull_queue))
    worker.handle(TYPE, flaky)
    worker_thread(worker)
    task_id = create_pull_task(client, pull_queue, {"n": 2}, max_retries=3)
    wait_for_status(client, task_id, TaskStatus.SUCCEEDED)
    assert [t.attempt for t in seen] == [1, 2]
    assert seen[0].idempotency_key == seen[1].idempotency_key


def test_shutdown_releases_work_in_flight_and_another_worker_takes_it_at_once(
    dts_url: str, client: Client, pull_queue: str, worker_thread: Any
) -> None:
    started = threading.Event()
    let_go = threading.Event()

    def stuck(task: LeasedTask) -> None:
        started.set()
        let_go.wait(30)

    first = PullWorker(client, options(pull_queue))
    first.handle(TYPE, stuck)
    run = threading.Thread(target=first.run, daemon=True)
    run.start()
    task_id = create_pull_task(client, pull_queue, {"n": 3})
    assert started.wait(60)
    first.shutdown(0.5)  # the handler is still running: its task is released
    run.join(timeout=10)
    assert not run.is_alive()

    got: queue.Queue[LeasedTask] = queue.Queue()
    second = PullWorker(client, options(pull_queue))
    second.handle(TYPE, got.put)
    worker_thread(second)
    again = got.get(timeout=30)
    let_go.set()
    assert again.task_id == task_id
    assert again.attempt == 1  # the release spent no attempt
    wait_for_status(client, task_id, TaskStatus.SUCCEEDED)


def test_the_async_worker_acks(dts_url: str, pull_queue: str) -> None:
    async def main() -> LeasedTask:
        async with AsyncClient(dts_url, api_key=os.environ.get("DTS_API_KEY") or None) as aclient:
            got: asyncio.Queue[LeasedTask] = asyncio.Queue()
            worker = AsyncPullWorker(aclient, options(pull_queue))
            worker.handle(TYPE, got.put)
            running = asyncio.create_task(worker.run())
            created = await aclient.create(
                task_type=TYPE, payload={"n": 4}, delay=0, delivery=Delivery.pull(pull_queue)
            )
            task_id = created.task.task_id
            task = await asyncio.wait_for(got.get(), timeout=60)
            assert task.task_id == task_id
            await worker.shutdown(5)
            await running
            return task

    task = asyncio.run(main())
    with Client(dts_url, api_key=os.environ.get("DTS_API_KEY") or None) as sync:
        wait_for_status(sync, task.task_id, TaskStatus.SUCCEEDED)
