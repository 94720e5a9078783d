"""The indexing use case: one outbox event in, the product's current chunk set stored.

Exactly-once in effect: an event is processed against the *current* product (never the
state at event time), unchanged chunks are never re-embedded, the write is conditional on
the product version that was read, and a redelivered or already completed event is a
no-op success. Failures are retried with backoff, then dead-lettered.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from shopagent.application.ports import CatalogRepository, EmbeddingModel, IndexStore, SaveOutcome
from shopagent.domain.errors import ShopagentError
from shopagent.domain.indexing import OutboxEvent, chunk_product, retry_delay

log = logging.getLogger("shopagent.indexing")


@dataclass(frozen=True)
class IndexingPolicy:
    token_budget: int = 96
    batch_size: int = 32
    max_attempts: int = 5
    backoff_seconds: float = 1.0
    backoff_max_seconds: float = 300.0


class IndexProduct:
    """Callable per outbox event; never raises for a failure of the event itself."""

    def __init__(
        self,
        catalog: CatalogRepository,
        store: IndexStore,
        embedder: EmbeddingModel,
        policy: IndexingPolicy,
        *,
        on_indexed: Callable[[OutboxEvent, SaveOutcome], None] | None = None,
    ) -> None:
        self._catalog = catalog
        self._store = store
        self._embedder = embedder
        self._policy = policy
        self._on_indexed = on_indexed

    async def __call__(self, event: OutboxEvent) -> None:
        try:
            outcome = await self.index(event)
        except Exception as exc:
            await self._failed(event, exc)
            return
        if outcome is not None and self._on_indexed is not None:
            self._on_indexed(event, outcome)

    async def index(self, event: OutboxEvent) -> SaveOutcome | None:
        """Process one event; None when there was nothing to do (already completed)."""
        if await self._store.event_status(event.id) != "pending":
            return None  # redelivered after completion: a no-op success
        product = await self._catalog.get(event.product_id)
        if product is None:
            # Deleted: its chunks went with it. A late "upserted" lands here too and
            # therefore can never bring the product back into the index.
            return SaveOutcome.GONE if await self._store.finish(event) else None
        model = self._embedder.model_id
        chunks = chunk_product(product, self._policy.token_budget)
        stored = await self._store.stored_embeddings(product.id, model)
        missing = [c for c in chunks if c.content_hash not in stored]
        fresh = await self._embed([c.content for c in missing])
        new = {c.content_hash: fresh[i] for i, c in enumerate(missing)}
        vectors = np.stack([stored.get(c.content_hash, new.get(c.content_hash)) for c in chunks])
        outcome = await self._store.save_chunks(event, product, model, chunks, vectors)
        log.debug("event %d (product %d): %s, %d chunk(s) embedded", event.id, product.id, outcome.value, len(missing))
        return outcome

    async def _embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._embedder.dimension), dtype=np.float32)
        size = self._policy.batch_size
        parts = [await self._embedder.embed_documents(texts[i : i + size]) for i in range(0, len(texts), size)]
        return np.concatenate(parts)

    async def _failed(self, event: OutboxEvent, exc: Exception) -> None:
        reason = str(exc) if isinstance(exc, ShopagentError) else f"{type(exc).__name__}: {exc}"
        if event.attempts >= self._policy.max_attempts:
            log.error(
                "event %d (product %d) dead-lettered after %d attempts: %s",
                event.id,
                event.product_id,
                event.attempts,
                reason,
            )
            await self._store.fail(event, reason, None)
            return
        delay = retry_delay(event.attempts, self._policy.backoff_seconds, self._policy.backoff_max_seconds)
        log.warning(
            "event %d (product %d) failed (attempt %d), retrying in %.1fs: %s",
            event.id,
            event.product_id,
            event.attempts,
            delay,
            reason,
        )
        await self._store.fail(event, reason, delay)
