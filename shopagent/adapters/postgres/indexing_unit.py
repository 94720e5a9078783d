"""The indexing unit of work on PostgreSQL: one transaction that stores a batch's chunk sets
(or passage sets) and completes its events, so an event is done exactly when what it asked
for is stored. The stores and the outbox each bring their own SQL, run on this transaction's
connection; neither knows the other."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

from shopagent.adapters.postgres.chunk_store import PostgresChunkStore
from shopagent.adapters.postgres.outbox import complete_events, postpone_events
from shopagent.adapters.postgres.pool import Connection, ConnectionPool
from shopagent.adapters.postgres.store_passages import PostgresPassageStore
from shopagent.application.ports.indexing import PageItem, SaveItem
from shopagent.domain.indexing import OutboxEvent, SaveOutcome

# A product whose row another transaction holds is tried again this much later.
BUSY_RETRY_SECONDS = 0.5


class PostgresIndexingUnitOfWork:
    """The `IndexingUnitOfWork` port over the chunk and passage stores and the outbox."""

    def __init__(self, pool: ConnectionPool, chunks: PostgresChunkStore, passages: PostgresPassageStore) -> None:
        self._pool = pool
        self._chunks = chunks
        self._passages = passages

    async def store_chunk_sets(
        self, events: Sequence[OutboxEvent], items: Sequence[SaveItem], model: str
    ) -> dict[int, SaveOutcome]:
        async with self._transaction() as conn:
            outcome_of = await self._chunks.write_sets(conn, events, items, model)
            busy = {e.id for e in events if outcome_of[e.product_id] is SaveOutcome.BUSY}
            await complete_events(conn, [e for e in events if e.id not in busy])
            await postpone_events(conn, [e for e in events if e.id in busy], BUSY_RETRY_SECONDS)
        return {e.id: outcome_of[e.product_id] for e in events}

    async def store_passage_sets(
        self, events: Sequence[OutboxEvent], items: Sequence[PageItem], model: str
    ) -> dict[int, SaveOutcome]:
        async with self._transaction() as conn:
            outcome_of = await self._passages.write_sets(conn, events, items, model)
            await complete_events(conn, events)
        return {e.id: outcome_of[e.product_id] for e in events}

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[Connection]:
        async with self._pool.acquire() as conn, conn.transaction():
            # Losing this commit in a crash is harmless: the events are not marked done either,
            # so they are redelivered and redone. Not waiting for the WAL flush is free speed.
            await conn.execute("SET LOCAL synchronous_commit = off")
            yield conn
