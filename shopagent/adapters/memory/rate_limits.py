"""MemoryRateLimits: the `RateLimits` port in one process, for tests that are not about SQL.
The same token buckets as the PostgreSQL adapter (refilled for the time since their last
use, up to `burst`; a refused take changes nothing), checked by the same contract suite
(tests/test_rate_limits_contract.py)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from shopagent.application.ports.operations import Taken


class MemoryRateLimits:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock  # seconds, of a clock that never goes back
        self._buckets: dict[str, tuple[float, float]] = {}  # key: (tokens, when last used)

    async def take(self, key: str, per_minute: float, burst: int, most: int = 1) -> Taken:
        """Up to `most` tokens (as many whole ones as the bucket holds), or the wait for one."""
        rate = per_minute / 60
        now = self._clock()
        tokens, used_at = self._buckets.get(key, (float(burst), now))
        available = min(float(burst), tokens + (now - used_at) * rate)
        if available < 1:
            return Taken(0, (1 - available) / rate)
        taken = min(most, math.floor(available))
        self._buckets[key] = (available - taken, now)
        return Taken(taken)

    async def forget_idle(self, idle_seconds: float = 3600) -> int:
        """Drop buckets unused for a while (they are full again by then anyway)."""
        cutoff = self._clock() - idle_seconds
        idle = [key for key, (_, used_at) in self._buckets.items() if used_at < cutoff]
        for key in idle:
            del self._buckets[key]
        return len(idle)
