"""Idempotency stores on Redis (`pip install 'delayed-tasks[redis]'`, redis-py): for replicas
whose effects live outside one database. `RedisIdempotencyStore` takes a `redis.Redis`,
`AsyncRedisIdempotencyStore` a `redis.asyncio.Redis` (a cluster client works too: each call
touches one key).

```python
import redis
from delayed_tasks import CallbackWSGIApp
from delayed_tasks.redis import RedisIdempotencyStore

store = RedisIdempotencyStore(redis.Redis.from_url("redis://localhost:6379/0"))
app = CallbackWSGIApp(secrets=["whsec_..."], idempotency_store=store)
```

One round trip per call: `claim` is `SET <ns><key> claimed:<token> NX PX <claim_ttl>` (and a
`GET` when it lost, to tell `DONE` from `IN_PROGRESS`), `complete` sets `done` with
`PX <done_ttl>`, `release` deletes the key only while it still holds this claim (one script)."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

from ._idempotency import (
    DEFAULT_CLAIM_TTL,
    DEFAULT_DONE_TTL,
    Claim,
    ClaimResult,
    bounded_key,
    milliseconds,
    new_token,
)

if TYPE_CHECKING:
    import redis
    import redis.asyncio

DEFAULT_NAMESPACE = "delayed-tasks:idem:"
DONE = b"done"

# Compare-and-delete: a late release after the claim expired and another holder took the key
# leaves the new claim alone.
RELEASE_SCRIPT = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

__all__ = ["DEFAULT_NAMESPACE", "AsyncRedisIdempotencyStore", "RedisIdempotencyStore"]


class _Keys:
    def __init__(self, namespace: str, done_ttl: timedelta) -> None:
        self.namespace = namespace
        self.done_ms = milliseconds(done_ttl)

    def key(self, key: str) -> str:
        return self.namespace + bounded_key(key)


def _lost(value: Any) -> Claim:
    # bytes, or str from a client made with decode_responses=True
    done = value in (DONE, DONE.decode())
    return Claim(ClaimResult.DONE if done else ClaimResult.IN_PROGRESS)


class RedisIdempotencyStore(_Keys):
    """`IdempotencyStore` on a `redis.Redis` (thread-safe, like the client's pool)."""

    def __init__(
        self,
        client: redis.Redis,
        *,
        namespace: str = DEFAULT_NAMESPACE,
        done_ttl: timedelta = DEFAULT_DONE_TTL,
    ) -> None:
        super().__init__(namespace, done_ttl)
        self._redis = client
        self._release = client.register_script(RELEASE_SCRIPT)

    def claim(self, key: str, claim_ttl: timedelta = DEFAULT_CLAIM_TTL) -> Claim:
        token = new_token()
        name = self.key(key)
        if self._redis.set(name, f"claimed:{token}", nx=True, px=milliseconds(claim_ttl)):
            return Claim(ClaimResult.CLAIMED, token)
        # The key expired between the two calls: IN_PROGRESS, and the retry claims it.
        return _lost(self._redis.get(name))

    def complete(self, key: str) -> None:
        self._redis.set(self.key(key), DONE, px=self.done_ms)

    def release(self, key: str, token: str) -> None:
        self._release(keys=[self.key(key)], args=[f"claimed:{token}"])


class AsyncRedisIdempotencyStore(_Keys):
    """`AsyncIdempotencyStore` on a `redis.asyncio.Redis`."""

    def __init__(
        self,
        client: redis.asyncio.Redis,
        *,
        namespace: str = DEFAULT_NAMESPACE,
        done_ttl: timedelta = DEFAULT_DONE_TTL,
    ) -> None:
        super().__init__(namespace, done_ttl)
        self._redis = client
        self._release = client.register_script(RELEASE_SCRIPT)

    async def claim(self, key: str, claim_ttl: timedelta = DEFAULT_CLAIM_TTL) -> Claim:
        token = new_token()
        name = self.key(key)
        if await self._redis.set(name, f"claimed:{token}", nx=True, px=milliseconds(claim_ttl)):
            return Claim(ClaimResult.CLAIMED, token)
        return _lost(await self._redis.get(name))

    async def complete(self, key: str) -> None:
        await self._redis.set(self.key(key), DONE, px=self.done_ms)

    async def release(self, key: str, token: str) -> None:
        await self._release(keys=[self.key(key)], args=[f"claimed:{token}"])
