"""Loading the shared vectors in `conformance/` and turning their tags into Python values."""

from __future__ import annotations

import json
import math
import os
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[4]
CONFORMANCE_DIR = Path(os.environ.get("DTS_CONFORMANCE_DIR", REPO_ROOT / "conformance"))


def load(kind: str, *, only: str | None = None, skip: tuple[str, ...] = ()) -> list[Any]:
    """One pytest param per case of `conformance/<kind>/*.json` (the file named `only`, or
    every file but those in `skip`), named `file: case`."""
    files = [
        path
        for path in sorted((CONFORMANCE_DIR / kind).glob("*.json"))
        if (only is None or path.stem == only) and path.stem not in skip
    ]
    if not files:
        return [pytest.param(None, id=f"no {kind} vectors")]
    return [
        pytest.param(case, id=f"{path.stem}: {case['name']}")
        for path in files
        for case in json.loads(path.read_text(encoding="utf-8"))
    ]


def require(case: Any, kind: str) -> Any:
    """The case; without vectors, a skip (a failure under `CI=true`)."""
    if case is None:
        message = f"no vectors in {CONFORMANCE_DIR / kind}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return case


def untag(value: Any) -> Any:
    """`{"$float": "NaN"}`, `{"$int": "..."}`, `{"$time": ...}`, `{"$localtime": ...}` and
    `{"$duration": seconds}` as native values; everything else as it is."""
    if isinstance(value, list):
        return [untag(v) for v in value]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        [(tag, raw)] = value.items()
        if tag == "$float":
            special = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
            return special[raw] if raw in special else float(raw)
        if tag == "$int":
            return int(raw)
        if tag == "$time":
            parsed = datetime.fromisoformat(raw)
            assert parsed.tzinfo is not None, f"$time without offset: {raw}"
            return parsed
        if tag == "$localtime":
            parsed = datetime.fromisoformat(raw)
            assert parsed.tzinfo is None, f"$localtime with an offset: {raw}"
            return parsed
        if tag == "$duration":
            # A native duration; a NaN or infinite one only exists as float seconds.
            seconds = untag(raw)
            return timedelta(seconds=seconds) if math.isfinite(seconds) else seconds
    return {k: untag(v) for k, v in value.items()}
