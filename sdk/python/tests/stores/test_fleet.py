"""The fleet test (issue 42): three receivers as separate processes share one store (Redis, then
PostgreSQL); the same signed callback is delivered to all three at once, for 1,000 distinct keys:
exactly 1,000 effects, no key twice. Then a receiver is killed (SIGKILL) in the middle of an
effect; the retry to another receiver is answered 503 while the dead one's claim lives, and runs
the effect once when it expired."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx
import pytest

from ..signing import SECRET, headers

RECEIVERS = 3
KEYS = 1000
CLAIM_TTL_MS = 1500
ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def receiver_process(
    kind: str, url: str, effects: Path
) -> Iterator[tuple[subprocess.Popen[str], str]]:
    proc = subprocess.Popen(  # noqa: S603 - this interpreter, our module
        [
            sys.executable,
            "-m",
            "tests.stores.fleet_receiver",
            kind,
            url,
            str(effects),
            str(CLAIM_TTL_MS),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        port = proc.stdout.readline().strip()
        assert port.isdigit(), f"the receiver did not start (exit {proc.poll()})"
        yield proc, f"http://127.0.0.1:{port}/callbacks"
    finally:
        if proc.poll() is None:
            proc.terminate()
        proc.wait(timeout=10)


def callback(task_id: str, **payload: object) -> tuple[dict[str, str], bytes]:
    body = json.dumps(
        {
            "taskId": task_id,
            "taskType": "fleet.effect",
            "payload": payload,
            "payloadVersion": 1,
            "executeAt": "2026-12-05T10:00:00.000Z",
            "attempt": 1,
            "traceId": None,
        }
    ).encode()
    signed = headers(SECRET, body, timestamp=int(time.time()), msg_id=f"msg_{task_id}")
    return {**signed, "content-type": "application/json"}, body


def effect_lines(effects: Path) -> list[str]:
    return effects.read_text().splitlines() if effects.exists() else []


def wait_for(check: object, what: str, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


@pytest.mark.parametrize("kind", ["redis", "sql"])
def test_a_fleet_runs_each_effect_once(
    kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    url = request.getfixturevalue("redis_url" if kind == "redis" else "postgres_url")
    effects = tmp_path / "effects"
    run = uuid.uuid4().hex[:8]
    with ExitStack() as stack:
        procs = [
            stack.enter_context(receiver_process(kind, url, effects)) for _ in range(RECEIVERS)
        ]
        clients = [stack.enter_context(httpx.Client(base_url=u, timeout=30)) for _, u in procs]

        def deliver(task_id: str, to: int) -> str:
            hdrs, body = callback(task_id)
            answer = clients[to].post("", headers=hdrs, content=body)
            return "retry" if answer.status_code == 503 else str(answer.json()["status"])

        started = time.monotonic()
        keys = [f"{run}-{i}" for i in range(KEYS)]
        with ThreadPoolExecutor(8 * RECEIVERS) as pool:
            futures = {
                key: [pool.submit(deliver, key, to) for to in range(RECEIVERS)] for key in keys
            }
            answers = {key: Counter(f.result() for f in fs) for key, fs in futures.items()}
        elapsed = time.monotonic() - started

        lines = effect_lines(effects)
        doubles = [key for key, n in Counter(lines).items() if n > 1]
        print(
            f"\n{kind} fleet: {RECEIVERS} processes, {KEYS} keys x {RECEIVERS} deliveries in "
            f"{elapsed:.1f} s: {len(lines)} effects, {len(doubles)} doubles, answers "
            f"{dict(sum(answers.values(), Counter()))}"
        )
        assert (len(lines), doubles) == (KEYS, [])
        assert sorted(lines) == sorted(keys)
        assert all(a["handled"] == 1 for a in answers.values())

        # A receiver killed mid-effect: its claim outlives it, then expires; the retry runs once.
        victim, victim_url = procs[0]
        hdrs, body = callback(f"{run}-killed", hang=True)
        with httpx.Client(timeout=30) as http, ThreadPoolExecutor(1) as pool:
            pool.submit(http.post, victim_url, headers=hdrs, content=body)
            wait_for(lambda: f"started {run}-killed" in effect_lines(effects), "the handler")
            os.kill(victim.pid, signal.SIGKILL)
            victim.wait(timeout=10)
            first_retry = clients[1].post("", headers=hdrs, content=body)
            assert first_retry.status_code == 503
            assert first_retry.headers["retry-after"] == "5"
            outcomes: list[str] = []

            def retried() -> bool:
                answer = clients[1 + len(outcomes) % 2].post("", headers=hdrs, content=body)
                outcomes.append(answer.json()["status"])
                return answer.status_code == 200

            wait_for(retried, "the retry after the claim expired")
        assert outcomes[-1] == "handled"
        assert clients[2].post("", headers=hdrs, content=body).json() == {"status": "duplicate"}
        assert effect_lines(effects).count(f"{run}-killed") == 1
