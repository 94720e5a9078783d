"""Rate limits: token buckets kept by a `RateLimits` store (PostgreSQL: shared by every replica)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

from shopagent.domain.errors import RateLimitExceeded


class RateLimits(Protocol):
    async def take(self, key: str, per_minute: float, burst: int) -> float | None:
        """None when a request may go ahead; else the seconds until it may."""
        ...


@dataclass(frozen=True)
class RateLimit:
    """`burst` requests at once per key, refilled at `per_minute`."""

    limits: RateLimits
    per_minute: float
    burst: int
    what: str = "requests"

    async def take(self, key: str) -> None:
        wait = await self.limits.take(key, self.per_minute, self.burst)
        if wait is not None:
            raise RateLimitExceeded(f"too many {self.what}; try again in {math.ceil(wait)}s", retry_after=wait)
