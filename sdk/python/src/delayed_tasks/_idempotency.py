"""Idempotency of callback handling, keyed by what the signature covers: the `webhook-id` that
`WebhookVerifier.verify` returns (the same on every attempt of a task, after a replay and a reset),
never the `Idempotency-Key` header, which is not signed. A key is recorded only after its handler
succeeded, and a recorded key is answered without running the handler again."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Protocol, runtime_checkable


@runtime_checkable
class IdempotencyStore(Protocol):
    """Where handled keys are kept. Share one store (a database table, Redis) between the
    processes that receive the same callbacks."""

    def contains(self, key: str) -> bool: ...

    def add(self, key: str) -> None: ...


class InMemoryIdempotencyStore:
    """Keys of this process only, the newest `max_keys`, each for `ttl_seconds` (default: a week,
    longer than a task's retries last)."""

    def __init__(
        self,
        *,
        max_keys: int = 100_000,
        ttl_seconds: float = 7 * 24 * 3600,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._keys: OrderedDict[str, float] = OrderedDict()
        self._max_keys = max_keys
        self._ttl = ttl_seconds
        self._clock = clock
        self._lock = threading.Lock()

    def contains(self, key: str) -> bool:
        with self._lock:
            added = self._keys.get(key)
            if added is None:
                return False
            if self._clock() - added > self._ttl:
                del self._keys[key]
                return False
            return True

    def add(self, key: str) -> None:
        with self._lock:
            self._keys[key] = self._clock()
            self._keys.move_to_end(key)
            while len(self._keys) > self._max_keys:
                self._keys.popitem(last=False)


class Idempotency:
    """The helper for handlers written without the adapters:

    ```python
    key = verifier.verify(headers, body)  # the signed webhook-id
    callback = parse_callback(body)
    if not idempotency.seen(key):
        handle(callback)          # raises on failure: the key stays unrecorded
        idempotency.done(key)
    ```
    """

    def __init__(self, store: IdempotencyStore | None = None) -> None:
        self.store: IdempotencyStore = store if store is not None else InMemoryIdempotencyStore()

    def seen(self, key: str | None) -> bool:
        return key is not None and self.store.contains(key)

    def done(self, key: str | None) -> None:
        if key is not None:
            self.store.add(key)

    def run(self, key: str | None, handler: Callable[[], object]) -> bool:
        """Run `handler` unless `key` was handled; `True` when it ran (and succeeded)."""
        if self.seen(key):
            return False
        handler()
        self.done(key)
        return True
