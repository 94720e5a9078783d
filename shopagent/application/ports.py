"""Ports: what the use cases need from the outside world (typing.Protocol).

Each has a production adapter under `shopagent.adapters` and a test twin.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any, Protocol

import msgspec
import numpy as np

from shopagent.domain.catalog import Product, ProductDraft
from shopagent.domain.indexing import Chunk, OutboxEvent


class EmbeddingModel(Protocol):
    """Turns texts into unit vectors. Documents and queries may be embedded differently."""

    @property
    def model_id(self) -> str:
        """Recorded on every chunk; search only compares vectors of the same model id."""
        ...

    @property
    def dimension(self) -> int: ...

    async def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """One row per text, shape (len(texts), dimension), L2-normalised."""
        ...

    async def embed_query(self, text: str) -> np.ndarray:
        """One vector of shape (dimension,), L2-normalised."""
        ...


class CatalogRepository(Protocol):
    """Stores products. Every write also records its outbox event in the same transaction
    and notifies the indexer after commit; a write that fails leaves nothing behind."""

    async def create(self, draft: ProductDraft) -> Product:
        """Raises Conflict if the slug is taken."""
        ...

    async def replace(self, product_id: int, draft: ProductDraft, expected_version: int) -> Product:
        """Raises NotFound, or Conflict if the slug is taken or the product changed meanwhile."""
        ...

    async def delete(self, product_id: int) -> bool: ...

    async def adjust_stock(
        self, product_id: int, color: str, size: str, quantity_delta: int, reserved_delta: int
    ) -> Product:
        """Raises NotFound (product or variation) or ValidationError (stock would go negative)."""
        ...

    async def get(self, product_id: int) -> Product | None: ...

    async def get_by_slug(self, slug: str) -> Product | None: ...

    async def list(self, *, limit: int, after_id: int = 0) -> list[Product]: ...

    async def count(self) -> int: ...


class SaveOutcome(enum.Enum):
    WRITTEN = "written"  # the chunk set was replaced
    UNCHANGED = "unchanged"  # the stored chunk set was already this one
    STALE = "stale"  # the product changed since it was read; a newer event will index it
    GONE = "gone"  # the product was deleted meanwhile (its chunks went with it)
    DUPLICATE = "duplicate"  # the event had already been completed: nothing written


class IndexStatus(msgspec.Struct, frozen=True, rename="camel"):
    model: str
    pending: int
    in_flight: int
    dead: int
    products_indexed: int
    products_total: int
    dead_events: list[dict[str, Any]]


class IndexStore(Protocol):
    """The outbox and the semantic index in the database."""

    async def claim(self, limit: int, lease_seconds: float, max_attempts: int, worker: str) -> list[OutboxEvent]:
        """Lease up to `limit` due events no one else holds (expired leases count as free)."""
        ...

    async def event_status(self, event_id: int) -> str | None: ...

    async def stored_embeddings(self, product_id: int, model: str) -> dict[bytes, np.ndarray]:
        """Embeddings already stored for this product and model, by chunk content hash."""
        ...

    async def save_chunks(
        self, event: OutboxEvent, product: Product, model: str, chunks: Sequence[Chunk], embeddings: np.ndarray
    ) -> SaveOutcome:
        """In one transaction: replace the product's chunk set (unless stale or unchanged),
        record it, and mark the event done."""
        ...

    async def finish(self, event: OutboxEvent) -> bool:
        """Mark the event done without writing chunks; False if it already was."""
        ...

    async def fail(self, event: OutboxEvent, error: str, retry_in: float | None) -> None:
        """Record a failure: retry after `retry_in` seconds, or dead-letter it (None)."""
        ...

    async def release_expired_leases(self, max_attempts: int) -> int: ...

    async def status(self, model: str) -> IndexStatus: ...

    async def retry_dead(self) -> int: ...

    async def enqueue_all(self) -> tuple[int, int]:
        """Queue every product for indexing: (how many events, id of the first)."""
        ...

    async def finished_since(self, first_event: int) -> int: ...
