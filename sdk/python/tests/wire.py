"""Turning the SDK's typed results back into wire-shaped JSON, to compare with the vectors."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from typing import Any


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def utc_ms(value: datetime) -> str:
    utc = value.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def to_wire(value: Any) -> Any:
    if isinstance(value, datetime):
        return utc_ms(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            camel(f.name): to_wire(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if f.name != "raw"
        }
    if isinstance(value, dict):
        return {k: to_wire(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_wire(v) for v in value]
    return value


def normalise_time(value: Any) -> Any:
    """An RFC 3339 string as UTC with milliseconds; anything else unchanged."""
    if isinstance(value, str) and len(value) >= 20 and value[4] == "-" and "T" in value:
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            return value
        if parsed.tzinfo is not None:
            return utc_ms(parsed)
    return value


def mismatches(expected: Any, actual: Any, path: str = "$") -> list[str]:
    """Where `actual` differs from `expected`, comparing only the fields `expected` lists."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path}: expected an object, got {actual!r}"]
        problems: list[str] = []
        for key, want in expected.items():
            if key not in actual:
                problems.append(f"{path}.{key}: missing")
            else:
                problems += mismatches(want, actual[key], f"{path}.{key}")
        return problems
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return [f"{path}: expected {expected!r}, got {actual!r}"]
        return [p for i, w in enumerate(expected) for p in mismatches(w, actual[i], f"{path}.{i}")]
    want, got = normalise_time(expected), normalise_time(actual)
    if want != got or (type(want) is bool and type(got) is not bool):
        return [f"{path}: expected {expected!r}, got {actual!r}"]
    return []
