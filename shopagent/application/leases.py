"""The outbox events one indexer process holds, and their leases."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Sequence

import anyio

from shopagent.application.ports.indexing import OutboxLeases
from shopagent.domain.errors import DatabaseUnavailable
from shopagent.domain.indexing import OutboxEvent

log = logging.getLogger("shopagent.indexing")


class Leases:
    """The outbox events this process holds, from their claim until they are finished.

    The poller claims through it, and no further ahead than the workers start soon (`ahead`
    events claimed but not started), so that what a crash strands is small. `keep_renewed`
    extends every held lease while the work goes on, so the lease itself can be short: a
    process killed with `kill -9` strands its events for one lease at most. On a stop,
    `release_all` gives back at once what was not finished, for another indexer to take.
    """

    def __init__(
        self,
        outbox: OutboxLeases,
        *,
        lease_seconds: float,
        max_attempts: int,
        worker: str,
        ahead: int,
        on_lost: Callable[[int], None] | None = None,
    ):
        """`on_lost` is told how many held leases a renewal found taken (for metrics)."""
        self._outbox = outbox
        self._on_lost = on_lost
        self.lease_seconds = lease_seconds
        self._max_attempts = max_attempts
        self.worker = worker
        self._ahead = max(1, ahead)
        self._waiting: dict[int, OutboxEvent] = {}  # claimed, not started
        self._started: dict[int, OutboxEvent] = {}
        self._room = anyio.Event()
        self._lost: set[int] = set()  # started events whose lease was lost (counted)

    @property
    def held(self) -> int:
        return len(self._waiting) + len(self._started)

    def room(self) -> int:
        """How many more events may be claimed now."""
        return max(0, self._ahead - len(self._waiting))

    async def wait_for_room(self) -> None:
        while not self.room():
            await self._room.wait()

    async def claim(self, limit: int) -> list[OutboxEvent]:
        events = await self._outbox.claim(limit, self.lease_seconds, self._max_attempts, self.worker)
        self._waiting.update((e.id, e) for e in events)
        return events

    def started(self, events: Sequence[OutboxEvent]) -> None:
        for event in events:
            self._started[event.id] = self._waiting.pop(event.id, event)
        self._room.set()
        self._room = anyio.Event()

    def finished(self, events: Sequence[OutboxEvent]) -> None:
        for event in events:
            self._started.pop(event.id, None)
            self._lost.discard(event.id)

    async def renew(self) -> None:
        ids = [*self._waiting, *self._started]
        if not ids:
            return
        kept = set(await self._outbox.renew(ids, self.lease_seconds, self.worker))
        gone = [i for i in ids if i not in kept]  # finished meanwhile, or taken over after an outage
        # Not finished: taken. A started one stays with its worker until it ends: counted once.
        lost = [i for i in gone if i in self._waiting or (i in self._started and i not in self._lost)]
        for event_id in gone:
            self._waiting.pop(event_id, None)
        self._lost.update(i for i in gone if i in self._started)
        if lost:
            log.debug("%d lease(s) no longer held by this indexer", len(lost))
            if self._on_lost is not None:
                self._on_lost(len(lost))

    async def keep_renewed(self) -> None:
        """Renew the held leases every third of a lease, forever; a database outage only
        delays it (the leases may run out meanwhile: then others take the events, harmlessly)."""
        while True:
            await anyio.sleep(self.lease_seconds / 3)
            with contextlib.suppress(DatabaseUnavailable):
                await self.renew()

    async def release_all(self) -> int:
        """Give back every lease this indexer holds (called on a stop: nothing of them is
        stored yet), including those of a claim the stop cut short before it returned."""
        self._waiting.clear()
        self._started.clear()
        self._lost.clear()
        return await self._outbox.release(self.worker)
