"""Idempotency of callback handling and pull work: one contract, three stores
(conformance/stores/README.md). A key is claimed before the effect, completed after it, released
when the handler failed; a claim neither completed nor released within `claim_ttl` expires, so a
crashed handler's key can be claimed again. Exactly one of any number of concurrent claims of one
key wins.

The key is what the signature covers: the `webhook-id` that `WebhookVerifier.verify` returns (the
same on every attempt of a task, after a replay and a reset), never the unsigned
`Idempotency-Key` header; for a lease, the task's `idempotencyKey`."""

from __future__ import annotations

import enum
import hashlib
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Protocol, TypeVar, runtime_checkable

DEFAULT_CLAIM_TTL = timedelta(minutes=5)
DEFAULT_DONE_TTL = timedelta(days=7)
MAX_KEY_BYTES = 200

T = TypeVar("T")


class ClaimResult(enum.StrEnum):
    CLAIMED = "CLAIMED"
    """The caller runs the effect, then `complete`s (or `release`s when it failed)."""
    IN_PROGRESS = "IN_PROGRESS"
    """Another holder's claim is alive: answer "retry later", run nothing."""
    DONE = "DONE"
    """Done before: answer "duplicate", run nothing."""


@dataclass(frozen=True, slots=True)
class Claim:
    result: ClaimResult
    token: str | None = None
    """Set when `CLAIMED`: what `release` needs, so that only this claim is dropped."""


@runtime_checkable
class IdempotencyStore(Protocol):
    """Where claims and done keys are kept. Share one store (Redis, a PostgreSQL table) between
    the processes that receive the same callbacks or lease from the same queues."""

    def claim(self, key: str, claim_ttl: timedelta = DEFAULT_CLAIM_TTL) -> Claim: ...

    def complete(self, key: str) -> None: ...

    def release(self, key: str, token: str) -> None: ...


@runtime_checkable
class AsyncIdempotencyStore(Protocol):
    """`IdempotencyStore`, awaited (`AsyncRedisIdempotencyStore`, `AsyncSqlIdempotencyStore`)."""

    async def claim(self, key: str, claim_ttl: timedelta = DEFAULT_CLAIM_TTL) -> Claim: ...

    async def complete(self, key: str) -> None: ...

    async def release(self, key: str, token: str) -> None: ...


def bounded_key(key: str) -> str:
    """The key as stored: itself up to 200 bytes (UTF-8), its SHA-256 hex beyond."""
    raw = key.encode()
    return key if len(raw) <= MAX_KEY_BYTES else hashlib.sha256(raw).hexdigest()


def new_token() -> str:
    return uuid.uuid4().hex


def milliseconds(ttl: timedelta) -> int:
    ms = int(ttl.total_seconds() * 1000)
    if ms <= 0:
        raise ValueError("a TTL must be positive")
    return ms


class InMemoryIdempotencyStore:
    """One process's claims and done keys (thread-safe; usable from asyncio too: it never
    blocks), the newest `max_keys`. For replicas, use `RedisIdempotencyStore` or
    `SqlIdempotencyStore`."""

    def __init__(
        self,
        *,
        max_keys: int = 100_000,
        done_ttl: timedelta = DEFAULT_DONE_TTL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        # key -> (token, or None when done; expiry on `clock`)
        self._keys: OrderedDict[str, tuple[str | None, float]] = OrderedDict()
        self._max_keys = max_keys
        self._done_ttl = done_ttl.total_seconds()
        self._clock = clock
        self._lock = threading.Lock()

    def claim(self, key: str, claim_ttl: timedelta = DEFAULT_CLAIM_TTL) -> Claim:
        key = bounded_key(key)
        with self._lock:
            now = self._clock()
            held = self._keys.get(key)
            if held is not None and held[1] > now:
                return Claim(ClaimResult.DONE if held[0] is None else ClaimResult.IN_PROGRESS)
            token = new_token()
            self._put(key, token, now + milliseconds(claim_ttl) / 1000)
            return Claim(ClaimResult.CLAIMED, token)

    def complete(self, key: str) -> None:
        key = bounded_key(key)
        with self._lock:
            self._put(key, None, self._clock() + self._done_ttl)

    def release(self, key: str, token: str) -> None:
        key = bounded_key(key)
        with self._lock:
            held = self._keys.get(key)
            if held is not None and held[0] == token:
                del self._keys[key]

    def _put(self, key: str, token: str | None, expires: float) -> None:
        self._keys[key] = (token, expires)
        self._keys.move_to_end(key)
        while len(self._keys) > self._max_keys:
            self._keys.popitem(last=False)


class Idempotency:
    """The helper for handlers written without the adapters:

    ```python
    key = verifier.verify(headers, body)  # the signed webhook-id
    outcome = idempotency.run(key, lambda: handle(parse_callback(body)))
    # CLAIMED: it ran (an exception released the claim and propagated); DONE: a duplicate;
    # IN_PROGRESS: another process runs it now, answer "retry later"
    ```
    """

    def __init__(
        self, store: IdempotencyStore | None = None, *, claim_ttl: timedelta = DEFAULT_CLAIM_TTL
    ) -> None:
        self.store: IdempotencyStore = store if store is not None else InMemoryIdempotencyStore()
        self.claim_ttl = claim_ttl

    def run(self, key: str, handler: Callable[[], object]) -> ClaimResult:
        claim = self.store.claim(key, self.claim_ttl)
        if claim.result is not ClaimResult.CLAIMED:
            return claim.result
        assert claim.token is not None
        try:
            handler()
        except BaseException:
            self.store.release(key, claim.token)
            raise
        self.store.complete(key)
        return ClaimResult.CLAIMED


async def maybe_await(value: T | Awaitable[T]) -> T:
    """A sync store's answer as is, an async store's awaited."""
    if isinstance(value, Awaitable):
        return await value
    return value
