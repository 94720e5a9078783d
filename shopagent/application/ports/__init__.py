"""Ports: what the use cases need from the outside world (typing.Protocol), all in this
package: the models, the catalog, search and conversations here, the indexing's in
`indexing`, the operational ones (rate limits, stuck claims, what readiness reads) in
`operations`.

Each has a production adapter under `shopagent.adapters`; the models and the storage ports have
test twins in `shopagent.adapters.memory`, the storage ones run through the same contract suites
as PostgreSQL.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any, Literal, Protocol

import numpy as np

from shopagent.domain.catalog import Product, ProductDraft
from shopagent.domain.chat import ChatMessage, ModelReply, ToolResult, ToolSpec
from shopagent.domain.conversation import Conversation

# The value types these ports report live in the domain; named here too, for the adapters.
from shopagent.domain.indexing import IndexBacklog as IndexBacklog
from shopagent.domain.indexing import IndexBuild as IndexBuild
from shopagent.domain.indexing import IndexCoverage as IndexCoverage
from shopagent.domain.indexing import SaveOutcome as SaveOutcome
from shopagent.domain.indexing import VectorIndexSpec as VectorIndexSpec
from shopagent.domain.indexing import VectorIndexState as VectorIndexState
from shopagent.domain.search import SearchFilters
from shopagent.domain.store_pages import StorePage, StorePageDraft
from shopagent.domain.text import CatalogWords as CatalogWords


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


# What writing a product by its slug did.
Outcome = Literal["created", "updated", "unchanged"]


def distinct_slugs(drafts: Sequence[ProductDraft]) -> list[str]:
    """The drafts' slugs; ValueError when one repeats (a batch writes each product once)."""
    slugs = [d.slug for d in drafts]
    if len(set(slugs)) != len(slugs):
        raise ValueError("a batch names a slug twice")
    return slugs


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
        self, product_id: int, variant_key: str, quantity_delta: int, reserved_delta: int
    ) -> Product:
        """Change the stock of the variation with this `Variation.key`. Raises NotFound (product or
        variation) or ValidationError (the result breaks
        `domain.catalog.check_stock`, checked with the variation locked)."""
        ...

    async def upsert_batch(self, drafts: Sequence[ProductDraft]) -> list[Outcome]:
        """Create or replace the product of each draft's slug, all in one transaction, and say
        what was done to each, in order. A product equal to its draft is left alone (no write,
        no event); each one written queues its event in that transaction. The slugs must be
        distinct (ValueError). Raises Conflict, writing nothing, when the batch cannot be written
        whole: another writer created one of its slugs meanwhile, or took their locks crosswise."""
        ...

    async def get(self, product_id: int) -> Product | None: ...

    async def get_many(self, product_ids: Sequence[int]) -> dict[int, Product]:
        """The products that exist among `product_ids`, by id."""
        ...

    async def get_by_slug(self, slug: str) -> Product | None: ...

    async def list(self, *, limit: int, after_id: int = 0) -> list[Product]: ...

    async def count(self) -> int: ...


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
    options: list[dict[str, str]] = field(default_factory=list)  # the options of each variation in stock
    prices_vary: bool = False  # its variations sell at different prices (`price` is the asked one's)
    url: str | None = None  # the product's page, as the catalog gives it
    external_id: str | None = None
    made_in: frozenset[str] = frozenset()  # every colour it comes in, in stock or not
    sized_in: frozenset[str] = frozenset()  # every size it comes in, in stock or not
    lightest_grams: int | None = None  # the weight of its lightest variation, where the catalog gives one
    name_terms: frozenset[int] = frozenset()  # positions of the query terms its name contains
    material: str = ""  # what the catalog says it is made of
    lead: str = ""  # the opening of its description (what it says it is, and is not)
    specs: Mapping[str, object] = field(default_factory=dict)  # the product's own specs (not its variations')


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
        match_first: str | None = None,
        match_limit: int | None = None,
    ) -> SearchCandidates:
        """The `depth` products nearest `vector` among the model's chunks (none when it is
        None), the `depth` best full-text matches of `terms` (none when empty or `lexical` is
        False; the terms still grade the evidence), and the
        evidence of each. The vector leg may stop short of `depth` once it has `need`. The
        lexical leg matches on `match_terms` (all `terms` when None: any of them) and ranks on
        `terms`; an entry of several words matches a product that has all of them. Products
        having every word of `match_first` are ranked before any other, and alone where they are at
        least `depth`; with `match_limit`, at most that many matches are ranked."""
        ...

    async def vocabulary(self, phrases: Sequence[str] = ()) -> CatalogWords:
        """The indexed products' words with their product counts: all words, and those of
        names, categories, brands and materials; how many products are indexed; and those of
        `phrases` (folded words joined by spaces) that a name or category has word after word
        (with the index's stemming: "flip flops" for a "Flip-Flop")."""
        ...

    async def refresh(self, *, paced: bool = False) -> None:
        """Re-read now what the index keeps between searches (its plan statistics); `paced`: only
        what is old enough for the pace of its reads (domain.pacing: a read of seconds, not every time)."""
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
