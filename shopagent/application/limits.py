"""Rate limits: token buckets kept by a `RateLimits` store (PostgreSQL: shared by every replica)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from shopagent.application.ports.operations import RateLimits
from shopagent.domain.errors import RateLimitExceeded, StorageFull

# A process takes up to a tenth of a bucket's burst in one go, at most this many.
MAX_BATCH = 16
# Tokens a process took ahead and has not used by then are dropped (they stay spent).
HELD_SECONDS = 5.0
# Keys whose tokens a process holds at most; the oldest are dropped past it.
MAX_HELD_KEYS = 10_000


# The header a deployment's own chat instances send to its MCP server (with the MCP key): their
# calls use the budget `mcp.chat_rate_per_minute` / `mcp.chat_rate_burst`, not the outside
# clients' one, so shoppers' turns do not compete with other MCP clients for it.
OWN_CHAT_HEADER = "X-Shopagent-Client"
OWN_CHAT_CLIENT = "chat"


@dataclass(frozen=True)
class RateLimit:
    """`burst` requests at once per key, refilled at `per_minute`.

    With a burst of 20 or more, a request that finds no token held by this process takes a
    batch from the shared bucket (a tenth of the burst, at most `MAX_BATCH`) and keeps the rest
    for the next requests of the same key for `HELD_SECONDS`, so most requests do not wait for
    the store. Every token is taken from the shared bucket before it is used, so the replicas
    together never admit more than the bucket gives over time; a burst can exceed `burst` by
    the tokens a replica still holds from before the bucket refilled (at most a batch less one,
    for a few seconds), and a replica's unused tokens are lost to the others meanwhile.
    """

    limits: RateLimits
    per_minute: float
    burst: int
    what: str = "requests"
    on_refused: Callable[[], None] | None = None  # told of each request refused (for metrics)
    # key -> (tokens held, when they lapse); owned by this process.
    _held: dict[str, tuple[int, float]] = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def batch(self) -> int:
        return max(1, min(MAX_BATCH, self.burst // 10))

    async def take(self, key: str) -> None:
        if self._use_held(key):
            return
        try:
            taken = await self.limits.take(key, self.per_minute, self.burst, self.batch)
        except StorageFull:
            # The buckets cannot be written while the disk is full: let the request through
            # uncounted, so reads go on (a write behind it meets the full disk itself).
            return
        if taken.tokens > 1:
            self._keep(key, taken.tokens - 1)
        # None left in the bucket, but a concurrent take of this key may have brought some.
        if not taken.tokens and not self._use_held(key):
            wait = taken.wait
            if self.on_refused is not None:
                self.on_refused()
            raise RateLimitExceeded(f"too many {self.what}; try again in {math.ceil(wait)}s", retry_after=wait)

    def _use_held(self, key: str) -> bool:
        held, lapses = self._held.pop(key, (0, 0.0))
        if not held or time.monotonic() >= lapses:
            return False
        if held > 1:
            self._held[key] = (held - 1, lapses)
        return True

    def _keep(self, key: str, tokens: int) -> None:
        held, lapses = self._held.pop(key, (0, 0.0))  # added to any a concurrent take left
        now = time.monotonic()
        self._held[key] = (tokens + (held if now < lapses else 0), now + HELD_SECONDS)
        while len(self._held) > MAX_HELD_KEYS:
            del self._held[next(iter(self._held))]
