"""Checks made before anything is sent, and the encoding of delays and times.

Python's `json` writes bare `NaN` and any size of integer, so the payload is walked here; every
problem becomes an `ErrorDetail` with the field path and the reason text the API (and every other
SDK) uses. The texts are the shared conformance vectors' (`REASONS` in
`conformance/client-vectors/common.ts`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from ._errors import ErrorDetail

MAX_SAFE_INTEGER: Final = 2**53 - 1

NOT_FINITE: Final = "is not a finite number"
UNSAFE_INTEGER: Final = "is an integer beyond ±(2^53-1); send large ids and amounts as strings"
NO_OFFSET: Final = "must be an RFC 3339 time with an offset (Z or +08:00)"
EXACTLY_ONE: Final = "give exactly one of delaySeconds or executeAt"
AT_MOST_ONE: Final = "give at most one of delaySeconds or executeAt"
NEGATIVE: Final = "must not be negative"
NOT_OBJECT: Final = "must be a JSON object"

Delay = timedelta | float
"""A delay: a `timedelta`, or seconds as an `int` or `float` (fractions allowed)."""


def check_json_value(value: Any, path: str, problems: list[ErrorDetail]) -> None:
    """Record every value under `value` that the API would refuse or JSON cannot carry."""
    stack: list[tuple[str, Any]] = [(path, value)]
    while stack:
        where, item = stack.pop()
        if item is None or isinstance(item, (bool, str)):
            continue
        if isinstance(item, int):
            if abs(item) > MAX_SAFE_INTEGER:
                problems.append(ErrorDetail(where, UNSAFE_INTEGER))
        elif isinstance(item, float):
            if not math.isfinite(item):
                problems.append(ErrorDetail(where, NOT_FINITE))
            elif item.is_integer() and abs(item) > MAX_SAFE_INTEGER:
                problems.append(ErrorDetail(where, UNSAFE_INTEGER))
        elif isinstance(item, Mapping):
            children: list[tuple[str, Any]] = []
            for key, child in item.items():
                if not isinstance(key, str):
                    problems.append(ErrorDetail(where, f"has a key that is not a string: {key!r}"))
                    continue
                children.append((f"{where}.{key}", child))
            stack.extend(reversed(children))
        elif isinstance(item, (list, tuple)):
            stack.extend(reversed([(f"{where}.{i}", c) for i, c in enumerate(item)]))
        else:
            problems.append(ErrorDetail(where, f"is not a JSON value ({type(item).__name__})"))


def check_payload(payload: Any, problems: list[ErrorDetail]) -> None:
    if not isinstance(payload, Mapping):
        problems.append(ErrorDetail("payload", NOT_OBJECT))
        return
    check_json_value(payload, "payload", problems)


def encode_delay(delay: Any, problems: list[ErrorDetail]) -> int | float | None:
    """Seconds with millisecond precision (an `int` when whole), or `None` after a problem."""
    if isinstance(delay, timedelta):
        millis = delay // timedelta(milliseconds=1)
    elif isinstance(delay, (int, float)) and not isinstance(delay, bool):
        if not math.isfinite(delay):
            problems.append(ErrorDetail("delaySeconds", NOT_FINITE))
            return None
        millis = round(delay * 1000)
    else:
        problems.append(ErrorDetail("delaySeconds", "must be a timedelta or a number of seconds"))
        return None
    if millis < 0:
        problems.append(ErrorDetail("delaySeconds", NEGATIVE))
        return None
    return millis // 1000 if millis % 1000 == 0 else millis / 1000


def encode_time(value: Any, field: str, problems: list[ErrorDetail]) -> str | None:
    """RFC 3339 UTC with milliseconds; a naive datetime is refused, never guessed."""
    if not isinstance(value, datetime):
        problems.append(ErrorDetail(field, "must be an aware datetime"))
        return None
    if value.utcoffset() is None:
        problems.append(ErrorDetail(field, NO_OFFSET))
        return None
    utc = value.astimezone(UTC)
    # Not strftime("%Y"): the C library writes year 99 as "99", which a reader takes for 1999.
    return f"{utc.year:04d}-" + utc.strftime("%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def encode_when(
    delay: Any,
    execute_at: Any,
    problems: list[ErrorDetail],
    *,
    required: bool,
) -> dict[str, Any]:
    """`{"delaySeconds": ...}` or `{"executeAt": ...}`. Both (or neither, when `required`) is a
    problem on `delaySeconds`."""
    if delay is not None and execute_at is not None:
        problems.append(ErrorDetail("delaySeconds", EXACTLY_ONE if required else AT_MOST_ONE))
        return {}
    if delay is not None:
        seconds = encode_delay(delay, problems)
        return {} if seconds is None else {"delaySeconds": seconds}
    if execute_at is not None:
        text = encode_time(execute_at, "executeAt", problems)
        return {} if text is None else {"executeAt": text}
    if required:
        problems.append(ErrorDetail("delaySeconds", EXACTLY_ONE))
    return {}


def check_target(
    callback_url: str | None, delivery: object | None, field: str, problems: list[ErrorDetail]
) -> None:
    """Refuses a task that names both a callback URL and a delivery (neither is fine: the task
    type's policy may name the callback)."""
    if callback_url is not None and delivery is not None:
        problems.append(ErrorDetail(field, "give either callbackUrl or delivery, not both"))
