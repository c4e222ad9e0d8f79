"""Checks made before anything is sent, and the encoding of delays and times.

Python's `json` writes bare `NaN` and any size of integer, so the payload is walked here; every
problem becomes an `ErrorDetail` with the same field path the API (and every other SDK) uses.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from ._errors import ErrorDetail

MAX_SAFE_INTEGER = 2**53 - 1

Delay = timedelta | float
"""A delay: a `timedelta`, or seconds as an `int` or `float` (fractions allowed)."""


def _join(path: str, key: str | int) -> str:
    return f"{path}.{key}"


def check_json_value(value: Any, path: str, problems: list[ErrorDetail]) -> None:
    """Record every value under `value` that the API would refuse or JSON cannot carry."""
    stack: list[tuple[str, Any]] = [(path, value)]
    while stack:
        where, item = stack.pop()
        if item is None or isinstance(item, (bool, str)):
            continue
        if isinstance(item, int):
            if abs(item) > MAX_SAFE_INTEGER:
                problems.append(ErrorDetail(where, "is an integer beyond ±(2^53-1)"))
        elif isinstance(item, float):
            if not math.isfinite(item):
                problems.append(ErrorDetail(where, "is not a finite number"))
            elif item.is_integer() and abs(item) > MAX_SAFE_INTEGER:
                problems.append(ErrorDetail(where, "is an integer beyond ±(2^53-1)"))
        elif isinstance(item, Mapping):
            children: list[tuple[str, Any]] = []
            for key, child in item.items():
                if not isinstance(key, str):
                    problems.append(ErrorDetail(where, f"has a key that is not a string: {key!r}"))
                    continue
                children.append((_join(where, key), child))
            stack.extend(reversed(children))
        elif isinstance(item, (list, tuple)):
            stack.extend(reversed([(_join(where, i), c) for i, c in enumerate(item)]))
        else:
            problems.append(ErrorDetail(where, f"is not a JSON value ({type(item).__name__})"))


def check_payload(payload: Any, problems: list[ErrorDetail]) -> None:
    if not isinstance(payload, Mapping):
        problems.append(ErrorDetail("payload", "must be an object"))
        return
    check_json_value(payload, "payload", problems)


def encode_delay(delay: Any, problems: list[ErrorDetail]) -> int | float | None:
    """Seconds with millisecond precision (an `int` when whole), or `None` after a problem."""
    if isinstance(delay, timedelta):
        millis = delay // timedelta(milliseconds=1)
    elif isinstance(delay, (int, float)) and not isinstance(delay, bool):
        if not math.isfinite(delay):
            problems.append(ErrorDetail("delaySeconds", "must be a finite number of seconds"))
            return None
        millis = round(delay * 1000)
    else:
        problems.append(ErrorDetail("delaySeconds", "must be a timedelta or seconds"))
        return None
    if millis < 0:
        problems.append(ErrorDetail("delaySeconds", "must be >= 0"))
        return None
    return millis // 1000 if millis % 1000 == 0 else millis / 1000


def encode_time(value: Any, problems: list[ErrorDetail]) -> str | None:
    """RFC 3339 UTC with milliseconds; a naive datetime is refused, never guessed."""
    if not isinstance(value, datetime):
        problems.append(ErrorDetail("executeAt", "must be an aware datetime"))
        return None
    if value.tzinfo is None or value.utcoffset() is None:
        problems.append(ErrorDetail("executeAt", "must have a time zone (a naive datetime)"))
        return None
    utc = value.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def encode_when(
    delay_seconds: Any,
    execute_at: Any,
    problems: list[ErrorDetail],
    *,
    required: bool,
) -> dict[str, Any]:
    """`{"delaySeconds": ...}` or `{"executeAt": ...}`; both, or neither when `required`, is a
    problem on `delaySeconds`."""
    if delay_seconds is not None and execute_at is not None:
        problems.append(
            ErrorDetail("delaySeconds", "give either delaySeconds or executeAt, not both")
        )
        return {}
    if delay_seconds is not None:
        seconds = encode_delay(delay_seconds, problems)
        return {} if seconds is None else {"delaySeconds": seconds}
    if execute_at is not None:
        text = encode_time(execute_at, problems)
        return {} if text is None else {"executeAt": text}
    if required:
        problems.append(ErrorDetail("delaySeconds", "give one of delaySeconds or executeAt"))
    return {}
