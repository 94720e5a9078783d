"""Ports: what the use cases need from the outside world (typing.Protocol).

Each has a production adapter under `shopagent.adapters` and a test twin.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any, Protocol

import numpy as np

from shopagent.domain.catalog import Product, ProductDraft
from shopagent.domain.chat import ChatMessage, ModelReply, ToolResult, ToolSpec
from shopagent.domain.conversation import Conversation

# The value types these ports report live in the domain; named here too, for the adapters.
from shopagent.domain.indexing import Chunk, OutboxEvent
from shopagent.domain.indexing import IndexBacklog as IndexBacklog
from shopagent.domain.indexing import IndexBuild as IndexBuild
from shopagent.domain.indexing import IndexCoverage as IndexCoverage
from shopagent.domain.indexing import SaveOutcome as SaveOutcome
from shopagent.domain.indexing import VectorIndexSpec as VectorIndexSpec
from shopagent.domain.indexing import VectorIndexState as VectorIndexState
from shopagent.domain.search import SearchFilters
from shopagent.domain.store_information import PassageEvidence
from shopagent.domain.store_pages import Passage, StorePage, StorePageDraft


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

    async def aclose(self) -> None:
        """Release connections (remote models); a no-op for local ones."""
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
        """Raises NotFound (product or variation) or ValidationError (the result breaks
        `domain.catalog.check_stock`, checked with the variation locked)."""
        ...

    async def get(self, product_id: int) -> Product | None: ...

    async def get_many(self, product_ids: Sequence[int]) -> dict[int, Product]:
        """The products that exist among `product_ids`, by id."""
        ...

    async def get_by_slug(self, slug: str) -> Product | None: ...

    async def list(self, *, limit: int, after_id: int = 0) -> list[Product]: ...

    async def count(self) -> int: ...


class Outbox(Protocol):
    """The queue of catalog changes to index. An event is leased to one worker at a time and
    ends done (by `ChunkStore.save_batch`) or dead-lettered; a lease that runs out frees it
    for others and counts as a lost lease, not a failed attempt."""

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

    async def backlog(self) -> IndexBacklog:
        """How many events wait, are in flight, are dead-lettered (cheap: for readiness)."""
        ...

    async def has_backlog(self, max_attempts: int) -> bool:
        """Whether any event is in flight or claimable now (retries still backing off do not count)."""
        ...

    async def products_waiting(self, max_attempts: int) -> int:
        """How many products have an event in flight or claimable now (as `has_backlog`)."""
        ...

    async def dead_letters(self, limit: int) -> list[dict[str, Any]]:
        """The newest dead-lettered events, newest first, as `IndexStatus.dead_events` shows them."""
        ...

    async def retry_dead(self) -> int:
        """Queue every dead-lettered event again, its attempts forgotten; how many."""
        ...

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


@dataclass
class SaveItem:
    """A product's chunk set to store; `vectors` is None when the stored set is already this one."""

    product: Product
    chunks: list[Chunk]
    set_hash: bytes
    vectors: np.ndarray | None = None


class ChunkStore(Protocol):
    """Each product's embedded chunk set and full-text document, one model's at a time."""

    async def indexed_sets(self, product_ids: Sequence[int], model: str) -> dict[int, bytes]:
        """The chunk-set hash stored for each product indexed with `model`."""
        ...

    async def stored_embeddings(self, product_ids: Sequence[int], model: str) -> dict[bytes, np.ndarray]:
        """Embeddings already stored for these products and model, by chunk content hash."""
        ...

    async def save_batch(
        self, events: Sequence[OutboxEvent], items: Sequence[SaveItem], model: str
    ) -> dict[int, SaveOutcome]:
        """In one transaction: store each item's chunk set unless the product changed or is gone
        (checked under a row lock), and complete the events (and older ones they cover). It
        completes outbox events, yet is this port's: an event is done exactly when its chunks
        are stored, so the two commit together or not at all. Saving again is a no-op."""
        ...

    async def products_indexed(self, model: str) -> int:
        """How many products have their chunks from `model`."""
        ...

    async def coverage(self, model: str) -> IndexCoverage: ...


@dataclass
class PageItem:
    """A store page's passage set to store; `vectors` is None when the stored set is already this one."""

    page: StorePage
    passages: list[Passage]
    set_hash: bytes
    vectors: np.ndarray | None = None


class StorePageRepository(Protocol):
    """The shop's store pages; every write queues its `store_page.*` outbox event with it."""

    async def create(self, draft: StorePageDraft) -> StorePage:
        """Raises Conflict when the slug is taken."""
        ...

    async def replace(self, page_id: int, draft: StorePageDraft, expected_version: int) -> StorePage:
        """Raises VersionConflict when the page changed or went since that version was read."""
        ...

    async def delete(self, slug: str) -> bool: ...

    async def get_by_slug(self, slug: str) -> StorePage | None: ...

    async def get_many(self, page_ids: Sequence[int]) -> dict[int, StorePage]: ...

    async def list(self) -> list[StorePage]: ...

    async def count(self) -> int: ...


class PassageStore(Protocol):
    """Each store page's embedded passages and full-text documents (as `ChunkStore` for products)."""

    async def indexed_sets(self, page_ids: Sequence[int], model: str) -> dict[int, bytes]: ...

    async def stored_embeddings(self, page_ids: Sequence[int], model: str) -> dict[bytes, np.ndarray]: ...

    async def save_batch(
        self, events: Sequence[OutboxEvent], items: Sequence[PageItem], model: str
    ) -> dict[int, SaveOutcome]:
        """As `ChunkStore.save_batch`, for store pages and their events."""
        ...

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


@dataclass(frozen=True)
class CandidateRow:
    """One candidate product of a search, with the evidence the ranking needs."""

    product_id: int
    name: str
    slug: str
    category: str
    price: Decimal
    discount_price: Decimal | None
    currency: str
    rating: float | None
    main_image: str | None
    distance: float | None  # cosine distance of its closest chunk (None: no chunks of the model, or no vector)
    title_terms: frozenset[int]  # positions of the query terms its name/category/brand/material contain
    body_terms: frozenset[int]  # positions of the query terms anywhere in its text
    category_terms: frozenset[int]  # positions of the query terms its category contains
    available: int  # units of the asked variation (colours/sizes), of every variation when none asked
    colors: list[str]  # colours in stock
    sizes: list[str]  # sizes in stock


@dataclass(frozen=True)
class SearchCandidates:
    vector: list[int]  # product ids, nearest first
    lexical: list[int]  # product ids, best full-text rank first
    content_terms: frozenset[int]  # positions of the query terms that are not stop words
    rows: dict[int, CandidateRow]  # every candidate of either leg


class SearchIndex(Protocol):
    """The two search legs over the catalog, within filters."""

    async def candidates(
        self,
        vector: np.ndarray | None,
        model: str,
        dimension: int,
        terms: Sequence[str],
        filters: SearchFilters,
        depth: int,
        need: int = 1,
        *,
        lexical: bool = True,
        match_terms: Sequence[str] | None = None,
    ) -> SearchCandidates:
        """The `depth` products nearest `vector` among the model's chunks (none when it is
        None), the `depth` best full-text matches of `terms` (none when empty or `lexical` is
        False; the terms still grade the evidence), and the
        evidence of each. The vector leg may stop short of `depth` once it has `need`. The
        lexical leg matches on `match_terms` (all `terms` when None) and ranks on `terms`."""
        ...

    async def vocabulary(self) -> tuple[dict[str, int], dict[str, int]]:
        """The indexed products' words with their product counts: all words, and those of
        names, categories, brands and materials."""
        ...

    async def refresh(self) -> None:
        """Re-read now what the index keeps between searches (its plan statistics)."""
        ...


class ChatModel(Protocol):
    """A chat model that may call tools. Errors: ContextWindowExceeded, ModelUnavailable
    (after the adapter's own retries), RateLimited, ModelConfigError, BadModelResponse."""

    @property
    def model_id(self) -> str: ...

    async def generate(
        self,
        system: str,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec],
        temperature: float | None = None,
        *,
        on_text: Callable[[str], None] | None = None,
    ) -> ModelReply:
        """The model's next message. With `on_text` the reply is streamed when the model can:
        `on_text(delta)` gets each piece of its text (never function-call arguments) as it
        arrives, and the complete reply is still returned. A model that cannot stream calls
        it once with the whole text. Without `on_text` nothing is streamed.

        A failure before any text was passed on is retried like any other; once text went
        out it is raised at once (as the same errors), since a retry would repeat it."""
        ...

    async def aclose(self) -> None: ...


class ToolGateway(Protocol):
    """The tools the agent may use, wherever they live (an MCP server, in process or remote).

    Its lifetime belongs to whoever opened it (a context manager), not to its users."""

    async def list_tools(self) -> list[ToolSpec]:
        """The tools, fetched once and cached."""
        ...

    async def safe_call(self, name: str, args: Any) -> ToolResult:
        """Call a tool; never raises: every failure becomes an error result the model can read."""
        ...


class Conversations(Protocol):
    """Stored conversations. Writes during a turn need the claim's fencing token."""

    async def find(self, conversation_id: uuid.UUID, *, with_messages: bool = True) -> Conversation | None: ...

    async def list_for(
        self, user_id: str, *, limit: int, before: tuple[datetime, uuid.UUID] | None = None
    ) -> list[Conversation]: ...

    async def create(self, user_id: str, title: str, model_id: str, messages: Sequence[ChatMessage]) -> uuid.UUID: ...

    async def claim(self, conversation_id: uuid.UUID) -> uuid.UUID | None: ...

    async def append(self, conversation_id: uuid.UUID, token: uuid.UUID, messages: Sequence[ChatMessage]) -> bool: ...

    async def release(self, conversation_id: uuid.UUID, token: uuid.UUID) -> bool: ...

    async def mark_context_limit(self, conversation_id: uuid.UUID, token: uuid.UUID) -> bool: ...

    async def delete(self, conversation_id: uuid.UUID) -> bool | None: ...
