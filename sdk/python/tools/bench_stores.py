"""What an idempotency store adds to each callback: `claim` before the handler and `complete`
after it (the receiver's two store calls on the success path), timed one callback after another
on one connection, for 2,000 fresh keys per store. Prints p50/p99 in milliseconds and the
server-side work per callback (Redis commands; PostgreSQL transactions). A benchmark, not a test:

    DTS_REDIS_URL=redis://127.0.0.1:6379/0 DTS_POSTGRES_URL=postgresql://... \\
        .venv/bin/python tools/bench_stores.py [N]
"""

from __future__ import annotations

import os
import statistics
import sys
import time
import uuid
from typing import Any

import psycopg
import redis

from delayed_tasks import IdempotencyStore, InMemoryIdempotencyStore
from delayed_tasks.postgres import SqlIdempotencyStore
from delayed_tasks.redis import RedisIdempotencyStore


def measure(store: IdempotencyStore, n: int) -> list[float]:
    run = uuid.uuid4().hex[:8]
    for i in range(50):  # warm-up
        store.claim(f"warm-{run}-{i}")
    times = []
    for i in range(n):
        key = f"bench-{run}-{i}"
        started = time.perf_counter()
        store.claim(key)
        store.complete(key)
        times.append((time.perf_counter() - started) * 1000)
    return times


def report(name: str, times: list[float], work: str) -> None:
    cuts = statistics.quantiles(times, n=100)
    print(f"{name:<32} p50 {cuts[49]:6.3f} ms  p99 {cuts[98]:6.3f} ms  {work}")


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    print(f"claim + complete per callback, {n} callbacks in a row, one connection")
    report("InMemoryIdempotencyStore", measure(InMemoryIdempotencyStore(), n), "no I/O")

    client = redis.Redis.from_url(os.environ["DTS_REDIS_URL"])
    before = int(client.info("stats")["total_commands_processed"])
    times = measure(RedisIdempotencyStore(client), n)
    commands = int(client.info("stats")["total_commands_processed"]) - before - 1
    report("RedisIdempotencyStore", times, f"{commands / (n + 50):.2f} Redis commands/callback")

    url = os.environ["DTS_POSTGRES_URL"]
    for autocommit in (True, False):
        with psycopg.connect(url, autocommit=autocommit) as conn:
            store = SqlIdempotencyStore(conn)
            store.migrate()
            commits = _commits(url)
            times = measure(store, n)
            per = (_commits(url) - commits) / (n + 50)
            rts = "2 round trips" if autocommit else "6 round trips (BEGIN/COMMIT each)"
            label = "SqlIdempotencyStore" + (" autocommit" if autocommit else " tx")
            report(label, times, f"{per:.2f} transactions/callback, {rts}")


def _commits(url: str) -> int:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SELECT pg_stat_clear_snapshot()")
        row: Any = conn.execute(
            "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"
        ).fetchone()
        return int(row[0]) - 1


if __name__ == "__main__":
    main()
