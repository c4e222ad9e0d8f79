"""conformance/stores/vectors.json against every store on its real server (Redis, PostgreSQL),
sync and asyncio. Each case gets a fresh key namespace (a prefix) and, for the inbox, its own
rows in a business table."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections import Counter
from datetime import timedelta
from typing import Any

import psycopg
import pytest

from delayed_tasks import ClaimResult
from delayed_tasks.postgres import AsyncSqlIdempotencyStore

from ..conformance.vectors import CONFORMANCE_DIR
from .conftest import STORE_KINDS, store_factory

VECTORS = json.loads((CONFORMANCE_DIR / "stores" / "vectors.json").read_text(encoding="utf-8"))
INSERT_EFFECT = "INSERT INTO delayed_tasks_test_effects VALUES (%s, 'x')"
COUNT_EFFECTS = "SELECT count(*) FROM delayed_tasks_test_effects WHERE ns = %s"


class EffectFailedError(Exception):
    pass


def vector_key(ns: str, name: str) -> str:
    if name.startswith("long:"):
        n = int(name[5:])
        return ns + "x" * n + str(n)
    return ns + name


class Inbox:
    """The SQL inbox steps: a business row inserted in the same transaction as the mark."""

    def __init__(self, url: str, ns: str) -> None:
        self.url, self.ns = url, ns
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS delayed_tasks_test_effects"
                " (ns text NOT NULL, note text)"
            )

    async def run(self, store: Any, key: str, effect: str) -> str:
        fail = effect == "insertRowThenFail"
        try:
            if isinstance(store, AsyncSqlIdempotencyStore):
                async with await psycopg.AsyncConnection.connect(self.url) as aconn:

                    async def aeffect(tx: psycopg.AsyncConnection[Any]) -> None:
                        await tx.execute(INSERT_EFFECT, (self.ns,))
                        if fail:
                            raise EffectFailedError

                    result = await store.run_in_transaction(aconn, key, aeffect)
            else:
                with psycopg.connect(self.url) as conn:

                    def seffect(tx: psycopg.Connection[Any]) -> None:
                        tx.execute(INSERT_EFFECT, (self.ns,))
                        if fail:
                            raise EffectFailedError

                    result = await store.run_in_transaction(conn, key, seffect)
        except EffectFailedError:
            return "ROLLED_BACK"
        return "COMMITTED" if result is ClaimResult.CLAIMED else "DUPLICATE"

    def count(self) -> int:
        with psycopg.connect(self.url) as conn:
            row = conn.execute(COUNT_EFFECTS, (self.ns,))
            return int(row.fetchone()[0])  # type: ignore[index]


async def run_case(store: Any, case: dict[str, Any], inbox: Inbox | None, ns: str) -> None:
    tokens: dict[str, str] = {}  # holder name (or "@key") -> token of its claim
    for step in case["steps"]:
        op = step["op"]
        key = vector_key(ns, step.get("key", ""))
        where = f"{case['name']}: {step}"
        if op == "claim":
            claim = await store.claim(key, timedelta(milliseconds=step["claimTtlMs"]))
            assert claim.result == step["expect"], where
            if claim.token is not None:
                tokens["@" + key] = claim.token
                if "as" in step:
                    tokens[step["as"]] = claim.token
        elif op == "claimConcurrently":
            ttl = timedelta(milliseconds=step["claimTtlMs"])
            claims = await asyncio.gather(*(store.claim(key, ttl) for _ in range(step["n"])))
            assert dict(Counter(str(c.result) for c in claims)) == step["expect"], where
            for c in claims:
                if c.token is not None:
                    tokens["@" + key] = c.token
        elif op == "release":
            await store.release(key, tokens[step.get("holder", "@" + key)])
        elif op == "complete":
            await store.complete(key)
        elif op == "waitMs":
            await asyncio.sleep(step["ms"] / 1000)
        elif op == "inbox":
            assert inbox is not None
            assert await inbox.run(store, key, step["effect"]) == step["expect"], where
        elif op == "countRows":
            assert inbox is not None
            assert inbox.count() == step["expect"], where
        else:
            raise AssertionError(f"unknown op {op!r} in {where}")


CASES = [
    pytest.param(kind, case, id=f"{kind}: {case['name']}")
    for case in VECTORS["cases"]
    for kind in STORE_KINDS
    if kind.startswith("sql") or not case.get("sqlOnly")
]


@pytest.mark.parametrize(("kind", "case"), CASES)
def test_store_vector(kind: str, case: dict[str, Any], request: pytest.FixtureRequest) -> None:
    ns = f"vec-{uuid.uuid4().hex[:10]}:"
    inbox = Inbox(request.getfixturevalue("postgres_url"), ns) if case.get("sqlOnly") else None
    factory = store_factory(kind, request)

    async def main() -> None:
        async with factory() as store:
            await run_case(store, case, inbox, ns)

    asyncio.run(main())
