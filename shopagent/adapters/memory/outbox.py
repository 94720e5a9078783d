"""MemoryOutbox: the `Outbox` port in one process, for tests that are not about SQL. The same
queue as the PostgreSQL adapter — leases that run out and count as lost, failed attempts
that back off or dead-letter, a save that completes older unclaimed events of its aggregate —
checked by the same contract suite (tests/test_outbox_contract.py), so it cannot drift. The
catalog and store page twins record their events here (`record`); the indexing unit of work
completes or postpones them.

Its times come from `clock` (seconds, never going back), so a test can move it. It knows no
indexer processes: a lease is free only once it runs out (PostgreSQL also frees at once the
leases of an indexer whose connection is gone, `LIVE_WORKER_PREFIX`)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from shopagent.domain.indexing import EventKind, IndexBacklog, OutboxEvent

_ERROR_LENGTH = 2000


@dataclass
class _Row:
    id: int
    kind: EventKind
    aggregate_id: int
    created_at: datetime
    available_at: float
    status: str = "pending"  # pending | done | dead
    attempts: int = 0
    lost_leases: int = 0
    locked_until: float | None = None
    locked_by: str | None = None
    last_error: str | None = None

    def event(self) -> OutboxEvent:
        return OutboxEvent(self.id, self.kind, self.aggregate_id, self.attempts)

    def leased(self, now: float) -> bool:
        return self.locked_until is not None and self.locked_until >= now


class Aggregates(Protocol):
    """What the outbox queues work for (the storage twins' products and store pages)."""

    def every_aggregate(self) -> list[tuple[EventKind, int]]:
        """An upsert event for every product, then every store page, each in id order."""
        ...

    def indexed_with_other_models(self, model: str) -> list[tuple[EventKind, int]]:
        """As `every_aggregate`, for those whose stored set is of another model than `model`."""
        ...


class MemoryOutbox:
    def __init__(self, aggregates: Aggregates, clock: Callable[[], float] = time.monotonic) -> None:
        self._aggregates = aggregates
        self._clock = clock
        self._rows: dict[int, _Row] = {}
        self._last_id = 0

    def record(self, kind: EventKind, aggregate_id: int) -> None:
        """Queue an event (a catalog or store page write's, in the same step as the write)."""
        self._last_id += 1
        self._rows[self._last_id] = _Row(self._last_id, kind, aggregate_id, datetime.now(UTC), self._clock())

    async def claim(self, limit: int, lease_seconds: float, max_attempts: int, worker: str) -> list[OutboxEvent]:
        now = self._clock()
        due = [
            r
            for r in self._pending()
            if r.available_at <= now and r.attempts < max_attempts and r.lost_leases < max_attempts
            and not r.leased(now)
        ][:limit]  # fmt: skip
        for row in due:
            row.lost_leases += row.locked_until is not None
            row.locked_until, row.locked_by = now + lease_seconds, worker
        return [r.event() for r in due]

    async def renew(self, event_ids: Sequence[int], lease_seconds: float, worker: str) -> list[int]:
        now = self._clock()
        held = [r for r in self._among(event_ids) if r.status == "pending" and r.locked_by == worker]
        for row in held:
            row.locked_until = now + lease_seconds
        return [r.id for r in held]

    async def release(self, worker: str) -> int:
        mine = [r for r in self._pending() if r.locked_by == worker and r.locked_until is not None]
        for row in mine:
            row.locked_until, row.locked_by = None, None
        return len(mine)

    async def pending_among(self, event_ids: Sequence[int]) -> list[int]:
        return [r.id for r in self._among(event_ids) if r.status == "pending"]

    async def fail(self, event: OutboxEvent, error: str, retry_in: float | None) -> None:
        row = self._rows.get(event.id)
        if row is None or row.status != "pending":
            return
        row.attempts += 1
        row.locked_until, row.last_error = None, error[:_ERROR_LENGTH]
        if retry_in is None:
            row.status = "dead"
        else:
            row.available_at = self._clock() + retry_in

    async def release_expired_leases(self, max_attempts: int) -> int:
        now = self._clock()
        expired = [r for r in self._pending() if r.locked_until is not None and r.locked_until < now]
        for row in expired:
            row.locked_until, row.locked_by = None, None
            row.lost_leases += 1
            if row.lost_leases >= max_attempts:
                row.status = "dead"
                lost = f"its lease ran out {row.lost_leases} times: the indexer holding it stopped or hung"
                row.last_error = f"{row.last_error}; {lost}" if row.last_error else lost
        return len(expired)

    async def backlog(self) -> IndexBacklog:
        now = self._clock()
        pending = list(self._pending())
        due = [r.available_at for r in pending if r.available_at <= now]
        return IndexBacklog(
            pending=sum(not r.leased(now) for r in pending),
            in_flight=sum(r.leased(now) for r in pending),
            dead=sum(r.status == "dead" for r in self._rows.values()),
            oldest_due_seconds=max(0.0, now - min(due)) if due else 0.0,
        )

    async def has_backlog(self, max_attempts: int) -> bool:
        return any(self._waiting(max_attempts))

    async def products_waiting(self, max_attempts: int) -> int:
        return len({r.aggregate_id for r in self._waiting(max_attempts) if r.kind.aggregate == "product"})

    async def dead_letters(self, limit: int) -> list[dict[str, Any]]:
        dead = sorted((r for r in self._rows.values() if r.status == "dead"), key=lambda r: r.id, reverse=True)
        return [
            {
                "id": r.id, "kind": r.kind.value, "productId": r.aggregate_id, "attempts": r.attempts,
                "lostLeases": r.lost_leases, "lastError": r.last_error, "createdAt": r.created_at.isoformat(),
            }
            for r in dead[:limit]
        ]  # fmt: skip

    async def retry_dead(self) -> int:
        dead = [r for r in self._rows.values() if r.status == "dead"]
        for row in dead:
            row.status, row.attempts, row.available_at = "pending", 0, self._clock()
            row.locked_until, row.locked_by = None, None
        return len(dead)

    async def enqueue_all(self) -> tuple[int, int]:
        return self.enqueue(self._aggregates.every_aggregate())

    async def enqueue_indexed_with_other_models(self, model: str) -> int:
        queued = {(r.kind, r.aggregate_id) for r in self._pending()}
        stale = [e for e in self._aggregates.indexed_with_other_models(model) if e not in queued]
        return self.enqueue(stale)[0]

    async def finished_since(self, first_event: int) -> int:
        return sum(r.id >= first_event and r.status != "pending" for r in self._rows.values())

    async def unfinished_through(self, last_event: int) -> int:
        return sum(r.id <= last_event and r.status == "pending" for r in self._rows.values())

    def enqueue(self, events: Iterable[tuple[EventKind, int]]) -> tuple[int, int]:
        """Queue these events: (how many, id of the first; 0 when none)."""
        first = self._last_id + 1
        for kind, aggregate_id in events:
            self.record(kind, aggregate_id)
        added = self._last_id + 1 - first
        return added, first if added else 0

    def complete(self, events: Sequence[OutboxEvent]) -> None:
        """Mark the events done, and the older unclaimed events of the same aggregates with them
        (the aggregate was read after those were recorded)."""
        now = self._clock()
        newest: dict[tuple[str, int], int] = {}
        for event in events:
            key = (event.kind.aggregate, event.product_id)
            newest[key] = max(event.id, newest.get(key, 0))
        for row in self._among([e.id for e in events]):
            if row.status == "pending":
                row.status, row.locked_until = "done", None
        for row in self._pending():
            covering = newest.get((row.kind.aggregate, row.aggregate_id), 0)
            if row.id < covering and not row.leased(now):
                row.status, row.last_error = "done", f"covered by event {covering}"

    def postpone(self, events: Sequence[OutboxEvent], delay: float) -> None:
        """Hand the events back, due again in `delay` seconds, with no attempt counted."""
        for row in self._among([e.id for e in events]):
            if row.status == "pending":
                row.locked_until, row.locked_by = None, None
                row.available_at = self._clock() + delay

    def _pending(self) -> Iterable[_Row]:
        return (r for r in self._rows.values() if r.status == "pending")  # in id order: dicts keep it

    def _among(self, event_ids: Sequence[int]) -> list[_Row]:
        return [self._rows[i] for i in dict.fromkeys(event_ids) if i in self._rows]

    def _waiting(self, max_attempts: int) -> Iterable[_Row]:
        """In flight, or claimable now."""
        now = self._clock()
        return (
            r for r in self._pending() if r.leased(now) or (r.attempts < max_attempts and r.available_at <= now)
        )  # fmt: skip
