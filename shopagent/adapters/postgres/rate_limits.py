"""PostgresRateLimits: token buckets in PostgreSQL, so N replicas share one limit, not N.

Taking a token is one statement: the bucket is refilled for the time since its last use (up
to `burst`) and a token taken if one is there, under the row's lock, so concurrent takes from
any replica queue up. When none is left, the caller learns how long to wait.
"""

from __future__ import annotations

import asyncpg

_REFILLED = "least($2::float8, b.tokens + extract(epoch FROM clock_timestamp() - b.updated_at)::float8 * $3::float8)"
_TAKE = f"""
    INSERT INTO rate_bucket AS b (key, tokens, updated_at) VALUES ($1, $2::float8 - 1, clock_timestamp())
    ON CONFLICT (key) DO UPDATE SET tokens = {_REFILLED} - 1, updated_at = clock_timestamp()
    WHERE {_REFILLED} >= 1
    RETURNING tokens
"""
_AVAILABLE = f"SELECT {_REFILLED} FROM rate_bucket b WHERE key = $1"


class PostgresRateLimits:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def take(self, key: str, per_minute: float, burst: int) -> float | None:
        """None when a request may go ahead (a token was taken); else the seconds until one is back."""
        rate = per_minute / 60
        async with self._pool.acquire() as conn:
            for _ in range(3):
                # One statement, so one round trip and the row locked only while it runs: a new
                # bucket starts full less the token taken; an old one is refilled for the time
                # since its last use and a token taken if one is there. A refused take changes
                # nothing (refilling later from the old time gives the same tokens).
                if await conn.fetchval(_TAKE, key, float(burst), rate) is not None:
                    return None
                available = await conn.fetchval(_AVAILABLE, key, float(burst), rate)
                if available is not None and available < 1:
                    return (1 - available) / rate
                # Refilled (or forgotten) in between: try again.
        return 1 / rate

    async def forget_idle(self, idle_seconds: float = 3600) -> int:
        """Drop buckets unused for a while (they are full again by then anyway)."""
        async with self._pool.acquire() as conn:
            status = await conn.execute(
                "DELETE FROM rate_bucket WHERE updated_at < clock_timestamp() - make_interval(secs => $1)",
                idle_seconds,
            )
        return int(status.split()[-1])
