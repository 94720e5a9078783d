"""The indexing use case: a batch of outbox events in, each product's current chunk set stored
(and each store page's passages: `application.store_pages.IndexStorePages`).

Exactly-once in effect: events are processed against the *current* product (never the
state at event time); chunks whose text is already stored are never embedded again; the
write is conditional on the product version that was read; and an event that was already
completed is a no-op success. Events come in batches (whatever the mailbox holds, up to a
limit) so that one database round trip and one embedding call serve many products; a
failing batch is retried one event at a time, so one bad product cannot hold back others.
Failures are retried with backoff, then dead-lettered.

The outbox's events are leased and settled through `OutboxLeases`, stored chunk sets are read
through `ChunkStore` and written, with their events completed, by the `IndexingUnitOfWork`;
leases live in `application.leases`, the vector index's upkeep in `application.vector_index`.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import partial

import anyio
import numpy as np

from shopagent.application.leases import Leases
from shopagent.application.ports import CatalogRepository, EmbeddingModel, SaveOutcome
from shopagent.application.ports.indexing import ChunkStore, IndexingUnitOfWork, OutboxLeases, SaveItem
from shopagent.application.store_pages import IndexStorePages
from shopagent.application.vector_index import VectorIndexKeeper
from shopagent.domain.errors import DatabaseUnavailable, ShopagentError
from shopagent.domain.indexing import OutboxEvent, chunk_product, chunk_set_hash
from shopagent.runtime.retry import Backoff

log = logging.getLogger("shopagent.indexing")


@dataclass(frozen=True)
class IndexingPolicy:
    token_budget: int = 96
    batch_size: int = 32
    max_attempts: int = 5
    backoff_seconds: float = 1.0
    backoff_max_seconds: float = 300.0


class IndexProducts:
    """Callable per batch of outbox events; never raises for a failure of the events themselves."""

    def __init__(
        self,
        catalog: CatalogRepository,
        outbox: OutboxLeases,
        chunks: ChunkStore,
        unit: IndexingUnitOfWork,
        embedder: EmbeddingModel,
        policy: IndexingPolicy,
        *,
        on_indexed: Callable[[OutboxEvent, SaveOutcome], None] | None = None,
        on_failed: Callable[[OutboxEvent, bool], None] | None = None,
        keeper: VectorIndexKeeper | None = None,
        leases: Leases | None = None,
        database_back: Callable[[], Awaitable[None]] | None = None,
        pages: IndexStorePages | None = None,
        on_changed: Callable[[], None] | None = None,
    ) -> None:
        self._catalog = catalog
        self._outbox = outbox
        self._chunks = chunks
        self._unit = unit
        self._embedder = embedder
        self._policy = policy
        self._on_indexed = on_indexed
        self._on_failed = on_failed  # told (event, dead-lettered) of each failed attempt
        self.keeper = keeper
        self.leases = leases
        self._database_back = database_back or partial(anyio.sleep, 1.0)
        self._pages = pages  # the store pages' events (the same outbox, another aggregate)
        self._on_changed = on_changed  # told when a batch changed the indexed products

    async def __call__(self, events: Sequence[OutboxEvent]) -> None:
        """Index a batch. While the database is away the batch waits and is then done again:
        an outage is nobody's failure, so it uses up no attempt."""
        if self.leases is not None:
            self.leases.started(events)
        try:
            while True:
                try:
                    await self._handle(events)
                    break
                except DatabaseUnavailable:
                    await self._database_back()
        finally:
            if self.leases is not None:
                self.leases.finished(events)
        if self.keeper is not None:
            with contextlib.suppress(DatabaseUnavailable):  # it settles next time
                await self.keeper.settle()

    async def _handle(self, events: Sequence[OutboxEvent]) -> None:
        try:
            outcomes = await self.index(events)
        except DatabaseUnavailable:
            raise
        except Exception as exc:
            if len(events) == 1:
                await self._failed(events[0], exc)
            else:
                for event in events:  # find the culprit; the others go through
                    await self._handle([event])
            return
        if self._on_indexed is not None:
            for event in events:
                if (outcome := outcomes.get(event.id)) is not None:
                    self._on_indexed(event, outcome)

    async def index(self, events: Sequence[OutboxEvent]) -> dict[int, SaveOutcome | None]:
        """Process the events; an event maps to None when it had been completed already."""
        pending = set(await self._outbox.pending_among([e.id for e in events]))
        live = [e for e in events if e.id in pending]  # the rest were delivered again: no-op
        outcomes: dict[int, SaveOutcome | None] = {e.id: None for e in events if e.id not in pending}
        page_events = [e for e in live if e.kind.aggregate == "store_page"]
        live = [e for e in live if e.kind.aggregate == "product"]
        if page_events:
            if self._pages is None:
                raise ShopagentError("this indexer was built without store pages")
            outcomes.update(await self._pages.index(page_events))
        if not live:
            return outcomes
        model = self._embedder.model_id
        products = await self._catalog.get_many(sorted({e.product_id for e in live}))
        indexed = await self._chunks.indexed_sets([p.id for p in products.values()], model)
        items, needs_vectors = [], []
        for product in products.values():
            chunks = chunk_product(product, self._policy.token_budget)
            item = SaveItem(product=product, chunks=chunks, set_hash=chunk_set_hash(model, chunks))
            items.append(item)
            if indexed.get(product.id) != item.set_hash:
                needs_vectors.append(item)
        await self._attach_vectors(needs_vectors, model)
        # Once the vectors are there, a stop lets the write (a short transaction, bounded by the
        # pool's command timeout) finish: the work is kept, and no transaction is cut midway.
        with anyio.CancelScope(shield=True):
            saved = await self._unit.store_chunk_sets(live, items, model)
        outcomes.update(saved)
        if self._on_changed is not None and any(o is not None for o in saved.values()):
            self._on_changed()
        log.debug("indexed %d event(s): %d product(s) embedded", len(live), len(needs_vectors))
        return outcomes

    async def _attach_vectors(self, items: list[SaveItem], model: str) -> None:
        """Give each item one vector per chunk: reuse stored ones, embed the rest (deduplicated)."""
        if not items:
            return
        stored = await self._chunks.stored_embeddings([i.product.id for i in items], model)
        missing: dict[bytes, str] = {}
        for item in items:
            for chunk in item.chunks:
                if chunk.content_hash not in stored and chunk.content_hash not in missing:
                    missing[chunk.content_hash] = chunk.content
        fresh = dict(zip(missing, await self._embed(list(missing.values())), strict=True))
        for item in items:
            item.vectors = np.stack(
                [stored[c.content_hash] if c.content_hash in stored else fresh[c.content_hash] for c in item.chunks]
            )

    async def _embed(self, texts: list[str]) -> list[np.ndarray]:
        size = self._policy.batch_size
        rows: list[np.ndarray] = []
        for start in range(0, len(texts), size):
            rows.extend(await self._embedder.embed_documents(texts[start : start + size]))
        return rows

    async def _failed(self, event: OutboxEvent, exc: Exception) -> None:
        reason = str(exc) if isinstance(exc, ShopagentError) else f"{type(exc).__name__}: {exc}"
        failures = event.attempts + 1  # `attempts` counts the earlier failures
        if failures >= self._policy.max_attempts:
            log.error(
                "event %d (%s %d) dead-lettered after %d failed attempts: %s",
                event.id,
                event.kind.aggregate,
                event.product_id,
                failures,
                reason,
            )
            await self._outbox.fail(event, reason, None)
            if self._on_failed is not None:
                self._on_failed(event, True)
            return
        delay = Backoff(self._policy.backoff_seconds, self._policy.backoff_max_seconds).delay(failures)
        log.warning(
            "event %d (%s %d) failed (attempt %d), retrying in %.1fs: %s",
            event.id,
            event.kind.aggregate,
            event.product_id,
            failures,
            delay,
            reason,
        )
        await self._outbox.fail(event, reason, delay)
        if self._on_failed is not None:
            self._on_failed(event, False)
