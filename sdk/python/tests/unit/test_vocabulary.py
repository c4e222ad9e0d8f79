"""The package's public names against conformance/vocabulary.json, both ways: every name the file
gives Python exists (pending ones excepted), every name of `__all__`, every public method of the
two clients and every `ErrorCode` member is listed."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import delayed_tasks
from delayed_tasks import AsyncClient, Client, DelayedTaskError, ErrorCode

VOCABULARY: dict[str, Any] = json.loads(
    (Path(__file__).resolve().parents[4] / "conformance" / "vocabulary.json").read_text()
)
LANG: dict[str, Any] = VOCABULARY["languages"]["python"]
PENDING = {f"{p['kind']}:{p['name']}" for p in VOCABULARY["pending"] if "python" not in p["landed"]}


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def pascal(code: str) -> str:
    return "".join(word.capitalize() for word in code.split("_"))


def expected(kind: str, names: list[str], spell: Any = str) -> dict[str, str]:
    """Python name -> the canonical entry it spells, the absent ones left out."""
    out: dict[str, str] = {}
    for name in names:
        if name in LANG["absent"]:
            continue
        for spelled in LANG["renamed"].get(name, {}).get("names", [spell(name)]):
            out[spelled] = f"{kind}:{name}"
    return out


def compare(got: set[str], want: dict[str, str], only: set[str]) -> tuple[list[str], list[str]]:
    missing = sorted(n for n, c in want.items() if n not in got and c not in PENDING)
    unlisted = sorted(got - set(want) - only)
    return missing, unlisted


def code_exceptions() -> dict[str, str]:
    """One exception class per code but UNKNOWN (`errorCodeExceptions`)."""
    codes = [c for c in VOCABULARY["errorCodes"] if c != "UNKNOWN"]
    return {f"{pascal(c)}Error": f"errorCode:{c}" for c in codes}


def test_all_is_the_vocabulary_both_ways() -> None:
    want = {
        **expected("type", VOCABULARY["types"]),
        **expected("function", VOCABULARY["functions"], snake),
        **code_exceptions(),
    }
    assert compare(set(delayed_tasks.__all__), want, set(LANG["only"])) == ([], [])


def test_every_code_exception_is_a_delayed_task_error() -> None:
    for name in code_exceptions():
        if hasattr(delayed_tasks, name):
            assert issubclass(getattr(delayed_tasks, name), DelayedTaskError)


def test_client_verbs_are_the_vocabulary_both_ways() -> None:
    want = expected("verb", VOCABULARY["verbs"], snake)
    for client in (Client, AsyncClient):
        methods = {m for m in dir(client) if not m.startswith("_")}
        only = {v for v in LANG["onlyVerbs"] if hasattr(client, v)}
        assert compare(methods, want, only) == ([], []), client.__name__


def test_error_codes_are_the_vocabulary_both_ways() -> None:
    want = expected("errorCode", VOCABULARY["errorCodes"])
    assert compare({c.value for c in ErrorCode}, want, set()) == ([], [])
