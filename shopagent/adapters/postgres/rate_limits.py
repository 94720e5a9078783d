"""PostgresRateLimits: token buckets in PostgreSQL, so N replicas share one limit, not N.

Taking a token is one short transaction: the bucket is refilled for the time since its last
use (up to `burst`) and a token taken if one is there, under the row's lock, so concurrent
takes from any replica queue up. When none is left, the caller learns how long to wait.
"""

from __future__ import annotations

import asyncpg


class PostgresRateLimits:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def take(self, key: str, per_minute: float, burst: int) -> float | None:
        """None when a request may go ahead (a token was taken); else the seconds until one is back."""
        rate = per_minute / 60
        async with self._pool.acquire() as conn, conn.transaction():
            await conn.execute(
                "INSERT INTO rate_bucket (key, tokens) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING", key, float(burst)
            )
            available = await conn.fetchval(
                """
                SELECT least($2, tokens + extract(epoch FROM clock_timestamp() - updated_at)::float8 * $3)
                FROM rate_bucket WHERE key = $1 FOR UPDATE
                """,
                key,
                float(burst),
                rate,
            )
            allowed = available >= 1
            await conn.execute(
                "UPDATE rate_bucket SET tokens = $2, updated_at = clock_timestamp() WHERE key = $1",
                key,
                available - 1 if allowed else available,
            )
        return None if allowed else (1 - available) / rate

    async def forget_idle(self, idle_seconds: float = 3600) -> int:
        """Drop buckets unused for a while (they are full again by then anyway)."""
        async with self._pool.acquire() as conn:
            status = await conn.execute(
                "DELETE FROM rate_bucket WHERE updated_at < clock_timestamp() - make_interval(secs => $1)",
                idle_seconds,
            )
        return int(status.split()[-1])
