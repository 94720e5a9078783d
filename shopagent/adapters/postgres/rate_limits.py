"""PostgresRateLimits: token buckets in PostgreSQL, so N replicas share one limit, not N.

Taking tokens is one statement: the bucket's row is locked, refilled for the time since its
last use (up to `burst`), and up to the tokens asked for taken if at least one is there, so
concurrent takes from any replica queue up on the row and never overspend. When none is left,
the same statement tells how long until one is back. A key's first take creates its bucket.
"""

from __future__ import annotations

from shopagent.adapters.postgres.pool import ConnectionPool
from shopagent.application.ports.operations import Taken

_REFILLED = "least($2::float8, b.tokens + extract(epoch FROM clock_timestamp() - b.updated_at)::float8 * $3::float8)"
# (tokens taken or NULL, tokens there before; NULL when the bucket does not exist). A refused
# take changes nothing: refilling later from the old time gives the same tokens.
_TAKE = f"""
    WITH bucket AS (
        SELECT b.key, {_REFILLED} AS available FROM rate_bucket b WHERE b.key = $1 FOR UPDATE
    ), took AS (
        UPDATE rate_bucket b
        SET tokens = bucket.available - least($4::int, floor(bucket.available)), updated_at = clock_timestamp()
        FROM bucket WHERE b.key = bucket.key AND bucket.available >= 1
        RETURNING least($4::int, floor(bucket.available))::int AS tokens
    )
    SELECT (SELECT tokens FROM took), (SELECT available FROM bucket)
"""
_CREATE = """
    INSERT INTO rate_bucket (key, tokens, updated_at)
    VALUES ($1, $2::float8 - least($3::int, $2::float8), clock_timestamp())
    ON CONFLICT (key) DO NOTHING
    RETURNING least($3::int, $2::float8)::int
"""


class PostgresRateLimits:
    def __init__(self, pool: ConnectionPool) -> None:
        self._pool = pool

    async def take(self, key: str, per_minute: float, burst: int, most: int = 1) -> Taken:
        """Up to `most` tokens (as many whole ones as the bucket holds), or the wait for one."""
        rate = per_minute / 60
        async with self._pool.acquire() as conn:
            for _ in range(3):
                row = await conn.fetchrow(_TAKE, key, float(burst), rate, most)
                assert row is not None  # a SELECT without FROM: always one row
                tokens, available = row
                if tokens is not None:
                    return Taken(tokens)
                if available is not None:
                    return Taken(0, (1 - available) / rate)
                created = await conn.fetchval(_CREATE, key, float(burst), most)
                if created is not None:
                    return Taken(created)
                # Created by another take in between: take from it.
        return Taken(0, 1 / rate)

    async def forget_idle(self, idle_seconds: float = 3600) -> int:
        """Drop buckets unused for a while (they are full again by then anyway)."""
        async with self._pool.acquire() as conn:
            status = await conn.execute(
                "DELETE FROM rate_bucket WHERE updated_at < clock_timestamp() - make_interval(secs => $1)",
                idle_seconds,
            )
        return int(status.split()[-1])
