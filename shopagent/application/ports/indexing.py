"""The indexing's ports: the outbox, split by who uses it, the chunk and passage stores, the
unit of work that ties a stored set to its events, and the vector index's upkeep.

The outbox is one queue with four kinds of users, each given only its part: the indexer's
workers lease and settle events (`OutboxLeases`), the operator commands see and requeue
dead letters (`DeadLetters`), reindexing runs queue work and wait for it (`IndexRequests`),
health and the vector index's keeper read the backlog (`OutboxBacklog`). An adapter
implements them all (`Outbox`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from shopagent.domain.catalog import Product
from shopagent.domain.indexing import (
    Chunk,
    IndexBacklog,
    IndexBuild,
    IndexCoverage,
    OutboxEvent,
    SaveOutcome,
    VectorIndexSpec,
    VectorIndexState,
)
from shopagent.domain.store_information import PassageEvidence
from shopagent.domain.store_pages import Passage, StorePage


class OutboxLeases(Protocol):
    """The indexer's side of the queue of catalog changes. An event is leased to one worker at
    a time and ends done (by the `IndexingUnitOfWork`) or dead-lettered; a lease that runs out
    frees it for others and counts as a lost lease, not a failed attempt."""

    async def claim(self, limit: int, lease_seconds: float, max_attempts: int, worker: str) -> list[OutboxEvent]:
        """Lease up to `limit` due events no one else holds (expired leases count as free),
        oldest first; events with `max_attempts` failures or lost leases are left alone."""
        ...

    async def renew(self, event_ids: Sequence[int], lease_seconds: float, worker: str) -> list[int]:
        """Extend `worker`'s leases of these events; returns the ids it still holds."""
        ...

    async def release(self, worker: str) -> int:
        """Give up every lease `worker` holds, so that others take those events at once."""
        ...

    async def pending_among(self, event_ids: Sequence[int]) -> list[int]:
        """Which of these events still wait to be completed."""
        ...

    async def fail(self, event: OutboxEvent, error: str, retry_in: float | None) -> None:
        """Count a failed attempt: retry after `retry_in` seconds, or dead-letter it (None)."""
        ...

    async def release_expired_leases(self, max_attempts: int) -> int:
        """Free leases that ran out, counting them; dead-letter events that lost too many."""
        ...


class DeadLetters(Protocol):
    """The events that failed too often, for the operator (`index status`, `index retry-failed`)."""

    async def dead_letters(self, limit: int) -> list[dict[str, Any]]:
        """The newest dead-lettered events, newest first, as `IndexStatus.dead_events` shows them."""
        ...

    async def retry_dead(self) -> int:
        """Queue every dead-lettered event again, its attempts forgotten; how many."""
        ...


class IndexRequests(Protocol):
    """Work queued for the indexer outside the catalog's own writes (rebuilds, model changes)."""

    async def enqueue_all(self) -> tuple[int, int]:
        """Queue every product for indexing: (how many events, id of the first)."""
        ...

    async def enqueue_indexed_with_other_models(self, model: str) -> int:
        """Queue every product and store page indexed with another embedding model than
        `model` and not waiting for indexing already; how many (indexers starting together
        queue each once)."""
        ...

    async def finished_since(self, first_event: int) -> int:
        """How many events from `first_event` on are finished (done or dead-lettered)."""
        ...

    async def unfinished_through(self, last_event: int) -> int:
        """How many events up to `last_event` are not finished yet (waiting or in flight)."""
        ...


class OutboxBacklog(Protocol):
    """How much indexing work waits: for readiness, metrics and the vector index's keeper."""

    async def backlog(self) -> IndexBacklog:
        """How many events wait, are in flight, are dead-lettered (cheap: for readiness)."""
        ...

    async def has_backlog(self, max_attempts: int) -> bool:
        """Whether any event is in flight or claimable now (retries still backing off do not count)."""
        ...

    async def products_waiting(self, max_attempts: int) -> int:
        """How many products have an event in flight or claimable now (as `has_backlog`)."""
        ...


class Outbox(OutboxLeases, DeadLetters, IndexRequests, OutboxBacklog, Protocol):
    """The whole outbox, as an adapter implements it (and its contract suite checks it)."""


@dataclass
class SaveItem:
    """A product's chunk set to store; `vectors` is None when the stored set is already this one."""

    product: Product
    chunks: list[Chunk]
    set_hash: bytes
    vectors: np.ndarray | None = None


@dataclass
class PageItem:
    """A store page's passage set to store; `vectors` is None when the stored set is already this one."""

    page: StorePage
    passages: list[Passage]
    set_hash: bytes
    vectors: np.ndarray | None = None


class IndexingUnitOfWork(Protocol):
    """The indexing's one write: in one transaction, store a batch's sets and complete its
    events (and older ones they cover), so an event is done exactly when what it asked for is
    stored, never one without the other. Each set is stored unless its product (or page)
    changed or is gone, checked under a row lock; storing again is a no-op."""

    async def store_chunk_sets(
        self, events: Sequence[OutboxEvent], items: Sequence[SaveItem], model: str
    ) -> dict[int, SaveOutcome]:
        """The products' chunk sets; a product another transaction holds is `BUSY`: its events
        are handed back for a little later, not completed. The outcome of each event, by id."""
        ...

    async def store_passage_sets(
        self, events: Sequence[OutboxEvent], items: Sequence[PageItem], model: str
    ) -> dict[int, SaveOutcome]:
        """As `store_chunk_sets`, for store pages and their events."""
        ...


class ChunkStore(Protocol):
    """Each product's embedded chunk set and full-text document, one model's at a time
    (written by the `IndexingUnitOfWork`)."""

    async def indexed_sets(self, product_ids: Sequence[int], model: str) -> dict[int, bytes]:
        """The chunk-set hash stored for each product indexed with `model`."""
        ...

    async def stored_embeddings(self, product_ids: Sequence[int], model: str) -> dict[bytes, np.ndarray]:
        """Embeddings already stored for these products and model, by chunk content hash."""
        ...

    async def products_indexed(self, model: str) -> int:
        """How many products have their chunks from `model`."""
        ...

    async def coverage(self, model: str) -> IndexCoverage: ...


class PassageStore(Protocol):
    """Each store page's embedded passages and full-text documents (as `ChunkStore` for products)."""

    async def indexed_sets(self, page_ids: Sequence[int], model: str) -> dict[int, bytes]: ...

    async def stored_embeddings(self, page_ids: Sequence[int], model: str) -> dict[bytes, np.ndarray]: ...

    async def candidates(
        self, query: np.ndarray, words: Sequence[str], model: str, depth: int
    ) -> list[PassageEvidence]:
        """The passages nearest to the query vector and those having any of `words`."""
        ...


class VectorIndexAdmin(Protocol):
    """Builds, drops and inspects each model's HNSW index over the stored chunks (searches use
    it through `SearchIndex`, chunk writes maintain it); without it searches are exact, slower."""

    async def state(self, model: str) -> VectorIndexState: ...

    async def build(self, model: str, dimension: int, spec: VectorIndexSpec) -> IndexBuild:
        """Build the model's vector index unless it exists or another process is building it.
        Searches and chunk writes go on meanwhile."""
        ...

    async def drop(self, model: str) -> bool:
        """Drop the model's vector index (after any build in progress); True when there was one."""
        ...
