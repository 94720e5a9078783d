"""The shop owner's view of what shoppers asked that found nothing strong.

Every search that found nothing graded strong (by the catalog search tool or the store
information one, for the assistant or any other MCP client) is kept as its normalised query,
the tool, the time and the best grade it found; nothing else about who asked. Kept
`retention_days`, then the reaper forgets it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Protocol

from shopagent.domain.errors import DatabaseUnavailable
from shopagent.domain.insights import UnmetQuery, UnmetSearches, normalise_query

log = logging.getLogger("shopagent.insights")

MAX_REPORT_QUERIES = 1000


class SearchMisses(Protocol):
    """Where the searches without a strong match are kept."""

    async def record(self, tool: str, query: str, best_match: str | None) -> None: ...

    async def most_frequent(self, since: datetime, limit: int) -> tuple[int, Sequence[UnmetQuery]]:
        """The searches since then (all queries), and the `limit` most frequent queries."""
        ...

    async def forget_before(self, before: datetime) -> int:
        """Forget what was searched before then; returns how many searches."""
        ...


class UnmetSearchLog:
    """Records searches that found nothing strong, and reports them most frequent first."""

    def __init__(self, store: SearchMisses, retention_days: int) -> None:
        self.store = store
        self.retention_days = retention_days
        self.recording = True  # False: keeps nothing (a command whose searches are not shoppers')

    async def record(self, tool: str, query: str, best_match: str | None) -> bool:
        """Keep one search; never fails the search it comes from (a failure is logged).
        False when nothing was kept (an empty query, or the store failed)."""
        normalised = normalise_query(query)
        if not normalised or not self.recording:
            return False
        try:
            await self.store.record(tool, normalised, best_match)
        except DatabaseUnavailable as exc:
            log.warning("a search without a strong match was not recorded: %s", exc)
            return False
        except Exception:  # the shopper's search answers all the same
            log.exception("a search without a strong match was not recorded")
            return False
        return True

    async def report(self, period: timedelta, limit: int = 50) -> UnmetSearches:
        """The queries searched without a strong match over the last `period`, most frequent first."""
        until = datetime.now(UTC)
        since = until - period
        total, queries = await self.store.most_frequent(since, min(limit, MAX_REPORT_QUERIES))
        return UnmetSearches(
            since=since, until=until, retention_days=self.retention_days, total_searches=total, queries=list(queries)
        )

    async def forget_expired(self) -> int:
        """The reaper's sweep: forget what is older than the retention."""
        return await self.store.forget_before(datetime.now(UTC) - timedelta(days=self.retention_days))
