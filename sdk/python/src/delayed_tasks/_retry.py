"""Which failures are retried, and how long to wait before the next attempt."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import httpx

RETRYABLE_STATUSES = frozenset({429, 503})
"""`RESOURCE_EXHAUSTED` and `UNAVAILABLE`: the only answers worth another attempt."""


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Retries of `UNAVAILABLE` (503), `RESOURCE_EXHAUSTED` (429), network errors and timeouts.

    The wait before retry *n* (0-based) is drawn uniformly from
    `[0, min(max_backoff, initial_backoff * 2**n)]` (full jitter); a `Retry-After` header (seconds)
    on 429/503 is honoured when longer, up to `max_retry_after`. Tests set
    `initial_backoff=0` to retry at once.
    """

    max_retries: int = 3
    initial_backoff: float = 0.25
    max_backoff: float = 5.0
    max_retry_after: float = 30.0

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        if min(self.initial_backoff, self.max_backoff, self.max_retry_after) < 0:
            raise ValueError("backoff times must be >= 0")

    def backoff(self, retry: int, retry_after: float | None = None) -> float:
        cap = min(self.max_backoff, self.initial_backoff * 2.0**retry)
        wait = random.uniform(0.0, cap)  # noqa: S311 - jitter, not cryptography
        if retry_after is not None:
            wait = max(wait, min(retry_after, self.max_retry_after))
        return wait


NO_RETRIES = RetryPolicy(max_retries=0)


def is_retryable_exception(exc: Exception) -> bool:
    """Timeouts and network failures; not a malformed request or an unsupported URL scheme."""
    return isinstance(exc, (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError))


def retry_after_seconds(response: httpx.Response) -> float | None:
    """The `Retry-After` header in seconds (the HTTP-date form is ignored)."""
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None
