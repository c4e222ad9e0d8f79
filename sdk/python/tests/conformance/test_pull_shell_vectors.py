"""Every case of `conformance/pull/shell-vectors.json` against `PullWorker` and
`AsyncPullWorker`: a unit test of the shells' behaviour against the fake service of
`pull_fake.py` (no Temporal, no API), scripted step by step."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from datetime import timedelta
from typing import Any, Protocol

import pytest

from delayed_tasks import (
    AsyncClient,
    AsyncPullWorker,
    ClaimResult,
    Client,
    InMemoryIdempotencyStore,
    LeasedTask,
    PermanentError,
    PullWorker,
    PullWorkerOptions,
    RetryPolicy,
)

from ..wire import mismatches, to_wire
from .pull_fake import LEASES, Fake, Pending, fake_service
from .vectors import load, require

CASES = load("pull", only="shell-vectors")
NO_RETRY = RetryPolicy(max_retries=0, initial_backoff=0)
WAIT = 5.0


class Gates:
    """Each handler records its task, then waits for the `finish` step's outcome."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.started: dict[str, LeasedTask] = {}
        self.outcomes: dict[str, tuple[str, str]] = {}
        self.waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

    def begin(self, task: LeasedTask) -> str:
        token = task.task_id.removeprefix("task-")
        with self.cond:
            self.started[token] = task
            self.cond.notify_all()
        return token

    def finish(self, token: str, outcome: str, message: str) -> None:
        with self.cond:
            self.outcomes[token] = (outcome, message)
            self.cond.notify_all()
            for loop, future in self.waiters:
                loop.call_soon_threadsafe(_wake, future)

    def end(self, token: str) -> None:
        outcome, message = self.outcomes[token]
        if outcome == "throw":
            raise RuntimeError(message)
        if outcome == "permanent":
            raise PermanentError(message)

    def sync_handler(self, task: LeasedTask) -> None:
        token = self.begin(task)
        with self.cond:
            self.cond.wait_for(lambda: token in self.outcomes)
        self.end(token)

    async def async_handler(self, task: LeasedTask) -> None:
        token = self.begin(task)
        loop = asyncio.get_running_loop()
        while True:
            with self.cond:
                if token in self.outcomes:
                    break
                future: asyncio.Future[None] = loop.create_future()
                self.waiters.append((loop, future))
            await future
        self.end(token)

    def wait_started(self, token: str) -> LeasedTask:
        with self.cond:
            assert self.cond.wait_for(lambda: token in self.started, timeout=WAIT), (
                f"the handler of {token} did not start within {WAIT} s"
            )
            return self.started[token]


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class Harness(Protocol):
    def shutdown(self, timeout: float) -> None: ...
    def stopped(self) -> bool: ...
    def wait_stopped(self) -> None: ...


@contextmanager
def sync_harness(
    base_url: str, options: PullWorkerOptions, gates: Gates, types: list[str]
) -> Iterator[Harness]:
    client = Client(base_url, timeout=5, retry=NO_RETRY)
    worker = PullWorker(client, options)
    for task_type in types:
        worker.handle(task_type, gates.sync_handler)
    run = threading.Thread(target=worker.run, daemon=True)
    run.start()
    shutdowns: list[threading.Thread] = []

    class _Sync:
        def shutdown(self, timeout: float) -> None:
            thread = threading.Thread(target=worker.shutdown, args=(timeout,), daemon=True)
            thread.start()
            shutdowns.append(thread)

        def stopped(self) -> bool:
            return not run.is_alive() and all(not t.is_alive() for t in shutdowns)

        def wait_stopped(self) -> None:
            for thread in [run, *shutdowns]:
                thread.join(timeout=WAIT)
            assert self.stopped(), f"run() and shutdown() did not return within {WAIT} s"

    harness = _Sync()
    try:
        yield harness
    finally:
        if not harness.stopped():
            harness.shutdown(0.5)
            harness.wait_stopped()
        client.close()


@contextmanager
def async_harness(
    base_url: str, options: PullWorkerOptions, gates: Gates, types: list[str]
) -> Iterator[Harness]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    def on_loop(make: Callable[[], Any]) -> Future[Any]:
        async def call() -> Any:
            return await make()

        return asyncio.run_coroutine_threadsafe(call(), loop)

    async def build() -> tuple[AsyncClient, AsyncPullWorker]:
        client = AsyncClient(base_url, timeout=5, retry=NO_RETRY)
        worker = AsyncPullWorker(client, options)
        for task_type in types:
            worker.handle(task_type, gates.async_handler)
        return client, worker

    client, worker = on_loop(build).result(timeout=WAIT)
    run = on_loop(worker.run)
    shutdowns: list[Future[Any]] = []

    class _Async:
        def shutdown(self, timeout: float) -> None:
            shutdowns.append(on_loop(lambda: worker.shutdown(timeout)))

        def stopped(self) -> bool:
            return run.done() and all(f.done() for f in shutdowns)

        def wait_stopped(self) -> None:
            run.result(timeout=WAIT)
            for future in shutdowns:
                future.result(timeout=WAIT)

    harness = _Async()
    try:
        yield harness
    finally:
        if not harness.stopped():
            harness.shutdown(0.5)
            harness.wait_stopped()
        on_loop(client.aclose).result(timeout=WAIT)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=WAIT)
        loop.close()


def resolve_leases(answer: list[dict[str, Any]], lease_ms: dict[str, int]) -> list[dict[str, Any]]:
    leases = []
    for lease in answer:
        ms = lease["leaseExpiresAt"]["$inMs"]
        lease_ms[lease["leaseToken"]] = ms
        leases.append({**lease, "leaseExpiresAt": Fake.in_ms(ms)})
    return leases


def body_matches(expected: Any, actual: Any) -> bool:
    if expected == {"$match": "nonEmptyString"}:
        return isinstance(actual, str) and bool(actual)
    if isinstance(expected, dict):
        return (
            isinstance(actual, dict)
            and set(expected) == set(actual)
            and all(body_matches(v, actual[k]) for k, v in expected.items())
        )
    return bool(expected == actual and type(expected) is type(actual))


DEFAULT_ANSWERS: dict[str, Callable[[Pending, int], Any]] = {
    "ack": lambda p, _ms: {"taskId": "task-" + p.body["leaseToken"], "status": "SUCCEEDED"},
    "nack": lambda p, _ms: {
        "taskId": "task-" + p.body["leaseToken"],
        "status": "RUNNING" if p.body.get("retryable", True) else "FAILED",
    },
    "release": lambda p, _ms: {"taskId": "task-" + p.body["leaseToken"], "status": "RUNNING"},
    "extend": lambda _p, ms: {"leaseExpiresAt": Fake.in_ms(ms)},
}


def error_answer(answer: dict[str, Any]) -> tuple[int, Any]:
    return answer["status"], {"error": {"code": answer["code"], "message": "from the vector"}}


def play(case: dict[str, Any], kind: str) -> None:
    spec = case["worker"]
    store = None
    if "store" in spec:
        store = InMemoryIdempotencyStore()
        for key, state in spec["store"].items():
            claim = store.claim(key, timedelta(hours=1))
            assert claim.result is ClaimResult.CLAIMED
            if state == "DONE":
                store.complete(key)
    options = PullWorkerOptions(
        queues=spec.get("queues"),
        concurrency=spec.get("concurrency", 10),
        worker_identity=spec.get("workerIdentity"),
        idempotency_store=store,
    )
    gates = Gates()
    lease_ms: dict[str, int] = {}
    harness_of = sync_harness if kind == "sync" else async_harness
    with fake_service() as (base_url, fake):
        with harness_of(base_url, options, gates, spec["handlers"]) as harness:
            stopped_at: float | None = None
            for step in case["steps"]:
                where = f"{step}"
                op = step["op"]
                if op == "expectLease":
                    pending = fake.take(fake.leases, "lease")
                    assert body_matches(step["body"], pending.body), f"{where}: got {pending.body}"
                    answer = step.get("answer")
                    if isinstance(answer, list):
                        pending.reply(200, {"leases": resolve_leases(answer, lease_ms)})
                    elif isinstance(answer, dict):
                        pending.reply(*error_answer(answer))
                elif op == "expectCall":
                    pending = fake.take_call(f"{LEASES}/{step['verb']}", step["body"])
                    assert pending.path == f"{LEASES}/{step['verb']}", (
                        f"{where}: got {pending.path}"
                    )
                    assert pending.body == step["body"], f"{where}: got {pending.body}"
                    if "answer" in step:
                        pending.reply(*error_answer(step["answer"]))
                    else:
                        ms = lease_ms.get(pending.body["leaseToken"], 60_000)
                        pending.reply(200, DEFAULT_ANSWERS[step["verb"]](pending, ms))
                elif op == "expectHandler":
                    task = gates.wait_started(step["leaseToken"])
                    if "task" in step:
                        problems = mismatches(step["task"], to_wire(task), "task")
                        assert not problems, f"{where}: " + "; ".join(problems)
                elif op == "finish":
                    gates.finish(step["leaseToken"], step["outcome"], step.get("message", ""))
                elif op == "expectIdle":
                    started = len(gates.started)
                    time.sleep(step["ms"] / 1000)  # the step is a span with nothing in it
                    assert fake.calls.empty(), f"{where}: a call arrived: {fake.calls.get().path}"
                    assert fake.leases.empty(), f"{where}: a lease call arrived"
                    assert len(gates.started) == started, f"{where}: a handler started"
                elif op == "shutdown":
                    harness.shutdown(step["timeoutMs"] / 1000)
                elif op == "expectStopped":
                    harness.wait_stopped()
                    stopped_at = time.monotonic()
                elif op == "claim":
                    assert store is not None
                    assert store.claim(step["key"]).result == step["expect"], where
                else:
                    raise AssertionError(f"unknown op {op}")
        assert fake.calls.empty(), f"a call no step took: {fake.calls.get().path}"
        assert not fake.stash, f"a call no step took: {fake.stash[0].path}"
        late = [p for p in fake.everything if stopped_at is not None and p.arrived > stopped_at]
        assert not late, f"requests after run() returned: {[p.path for p in late]}"
    assert len(gates.started) == case["expect"]["handlerCalls"]


@pytest.mark.parametrize("kind", ["sync", "async"])
@pytest.mark.parametrize("case", CASES)
def test_pull_shell_vector(case: dict[str, Any] | None, kind: str) -> None:
    play(require(case, "pull"), kind)
