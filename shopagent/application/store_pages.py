"""Store-page use cases: write pages (admin API, imports), index them, search their passages.

Writes validate first and then make one repository write that carries its outbox event, so
nothing is written when validation fails. Indexing follows the products' rules
(`application.indexing`): the *current* page is read, passages whose text is stored are not
embedded again, and the write is conditional on the page version read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from shopagent.application.ports import EmbeddingModel, SaveOutcome, StorePageRepository
from shopagent.application.ports.indexing import IndexingUnitOfWork, PageItem, PassageStore
from shopagent.domain.errors import Conflict, NotFound, ShopagentError, ValidationError, VersionConflict
from shopagent.domain.indexing import OutboxEvent
from shopagent.domain.ranking import FusionWeights
from shopagent.domain.store_information import PassageGrading, StoreInformation, rank_passages
from shopagent.domain.store_pages import StorePage, StorePageInput, passage_set_hash, split_passages, validate_page
from shopagent.domain.store_words import read_store_question
from shopagent.domain.text import MAX_QUERY_TERMS, words

MAX_QUERY_CHARS = 500
MAX_LIMIT = 10


class StorePageService:
    def __init__(self, repository: StorePageRepository, store_language: str) -> None:
        self.repository = repository
        self.store_language = store_language

    async def create(self, data: StorePageInput) -> StorePage:
        return await self.repository.create(validate_page(data, self.store_language))

    async def put(self, slug: str, data: StorePageInput) -> tuple[str, StorePage]:
        """Replace the page named `slug` (or create it): ("created" | "updated" | "unchanged", page)."""
        if data.slug != slug:
            raise Conflict(f"the body is store page {data.slug!r} but the URL names {slug!r}")
        return await self.upsert_by_slug(data)

    async def delete(self, slug: str) -> None:
        if not await self.repository.delete(slug):
            raise NotFound(f"store page {slug!r} does not exist")

    async def get(self, slug: str) -> StorePage:
        page = await self.repository.get_by_slug(slug)
        if page is None:
            raise NotFound(f"store page {slug!r} does not exist")
        return page

    async def list(self) -> list[StorePage]:
        return await self.repository.list()

    async def upsert_by_slug(self, data: StorePageInput) -> tuple[str, StorePage]:
        draft = validate_page(data, self.store_language)
        for _ in range(3):  # re-read on a concurrent change, a few times
            current = await self.repository.get_by_slug(draft.slug)
            if current is None:
                try:
                    return "created", await self.repository.create(draft)
                except Conflict:
                    continue
            if draft == current.draft():
                return "unchanged", current
            try:
                return "updated", await self.repository.replace(current.id, draft, current.version)
            except VersionConflict:
                continue
        raise Conflict(f"store page {draft.slug!r} is being changed by someone else; try again")


@dataclass
class PageImportSummary:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    rejected: list[tuple[str, str]] = field(default_factory=list)  # (where, why)


async def import_pages(
    service: StorePageService,
    items: Sequence[tuple[str, StorePageInput | ShopagentError]],
    progress: Callable[[int, int], None] | None = None,
) -> PageImportSummary:
    """Upsert each parsed page by slug; a bad one is recorded (where, why) and skipped."""
    summary = PageImportSummary()
    for done, (where, item) in enumerate(items, start=1):
        if isinstance(item, ShopagentError):
            summary.rejected.append((where, str(item)))
        else:
            try:
                outcome, _ = await service.upsert_by_slug(item)
            except ShopagentError as exc:
                summary.rejected.append((where, str(exc)))
            else:
                setattr(summary, outcome, getattr(summary, outcome) + 1)
        if progress is not None:
            progress(done, len(items))
    return summary


class IndexStorePages:
    """The store-page part of the indexing: a batch of `store_page.*` events in, each page's
    current passage set stored (or its passages gone with it)."""

    def __init__(
        self,
        pages: StorePageRepository,
        passages: PassageStore,
        unit: IndexingUnitOfWork,
        embedder: EmbeddingModel,
        token_budget: int,
    ) -> None:
        self._pages = pages
        self._passages = passages
        self._unit = unit
        self._embedder = embedder
        self._token_budget = token_budget

    async def index(self, events: Sequence[OutboxEvent]) -> dict[int, SaveOutcome]:
        model = self._embedder.model_id
        pages = await self._pages.get_many(sorted({e.product_id for e in events}))
        indexed = await self._passages.indexed_sets(list(pages), model)
        items = []
        for page in pages.values():
            passages = split_passages(page.title, page.text, self._token_budget)
            items.append(PageItem(page, passages, passage_set_hash(model, page.language, passages)))
        fresh = [item for item in items if indexed.get(item.page.id) != item.set_hash]
        await self._attach_vectors(fresh, model)
        return await self._unit.store_passage_sets(events, items, model)

    async def _attach_vectors(self, items: list[PageItem], model: str) -> None:
        if not items:
            return
        stored = await self._passages.stored_embeddings([i.page.id for i in items], model)
        missing = list(
            {p.content_hash: p.content for i in items for p in i.passages if p.content_hash not in stored}.items()
        )
        if missing:
            vectors = await self._embedder.embed_documents([content for _, content in missing])
            stored |= dict(zip([h for h, _ in missing], vectors, strict=True))
        for item in items:
            item.vectors = np.stack([stored[p.content_hash] for p in item.passages]) if item.passages else None


@dataclass(frozen=True)
class StoreSearchPolicy:
    grading: PassageGrading = field(default_factory=PassageGrading)
    weights: FusionWeights = field(default_factory=FusionWeights)
    depth: int = 30  # candidates per leg
    read_for_vector: bool = True  # embed a German or French question as read in the pages' words


class StoreInformationSearch:
    """`search-store-information`: the passages of the shop's pages that answer a question."""

    def __init__(
        self, embedder: EmbeddingModel, passages: PassageStore, policy: StoreSearchPolicy, language: str = "en"
    ) -> None:
        self._embedder = embedder
        self._passages = passages
        self._policy = policy
        self._language = language  # the store's: its pages are written in it

    async def search(self, query: str, limit: int = 3) -> StoreInformation:
        text = query.strip()
        if not text:
            raise ValidationError("query must not be empty; ask about the shop in a few words", field="query")
        if len(query) > MAX_QUERY_CHARS:
            raise ValidationError(f"query must be at most {MAX_QUERY_CHARS} characters", field="query")
        if not 1 <= limit <= MAX_LIMIT:
            raise ValidationError(f"limit must be from 1 to {MAX_LIMIT}", field="limit")
        # "Liefert ihr nach Österreich?" against English pages: "deliver austria" (a model that
        # reads German itself is given the question as written).
        read = read_store_question(text, self._language)
        vector = await self._embedder.embed_query(read if self._policy.read_for_vector else text)
        terms = list(dict.fromkeys(words(read)))[:MAX_QUERY_TERMS]
        candidates = await self._passages.candidates(vector, terms, self._embedder.model_id, self._policy.depth)
        return rank_passages(candidates, self._policy.grading, self._policy.weights, limit, words(read))
