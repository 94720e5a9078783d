"""PostgresSearchMisses: the searches that found nothing strong, one row each (search_miss)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from shopagent.adapters.postgres.pool import ConnectionPool
from shopagent.domain.insights import UnmetQuery

# The best grade a query found over its searches: partial beats weak beats nothing.
_MOST_FREQUENT = """
    WITH period AS (SELECT * FROM search_miss WHERE searched_at >= $1)
    SELECT query, count(*) AS searches, array_agg(DISTINCT tool ORDER BY tool) AS tools,
           CASE min(CASE best_match WHEN 'partial' THEN 1 WHEN 'weak' THEN 2 ELSE 3 END)
               WHEN 1 THEN 'partial' WHEN 2 THEN 'weak' END AS best_match,
           max(searched_at) AS last_searched_at,
           (SELECT count(*) FROM period) AS total
    FROM period
    GROUP BY query
    ORDER BY searches DESC, last_searched_at DESC, query
    LIMIT $2
"""


class PostgresSearchMisses:
    def __init__(self, pool: ConnectionPool) -> None:
        self._pool = pool

    async def record(self, tool: str, query: str, best_match: str | None) -> None:
        async with self._pool.acquire() as conn:
            await conn.execute(
                "INSERT INTO search_miss (tool, query, best_match) VALUES ($1, $2, $3)", tool, query, best_match
            )

    async def most_frequent(self, since: datetime, limit: int) -> tuple[int, Sequence[UnmetQuery]]:
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(_MOST_FREQUENT, since, limit)
            total = rows[0]["total"] if rows else 0
        queries = [
            UnmetQuery(
                query=r["query"],
                searches=r["searches"],
                tools=list(r["tools"]),
                best_match=r["best_match"],
                last_searched_at=r["last_searched_at"],
            )
            for r in rows
        ]
        return total, queries

    async def forget_before(self, before: datetime) -> int:
        async with self._pool.acquire() as conn:
            status = await conn.execute("DELETE FROM search_miss WHERE searched_at < $1", before)
        return int(status.split()[-1])
