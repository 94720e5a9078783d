"""The indexing's stores in memory, for tests that are not about SQL: `MemoryChunkStore`
(products' chunk sets), `MemoryPassageStore` (store pages' passage sets) and
`MemoryIndexingUnitOfWork`, which stores a batch's sets and completes its events in one step
that either happens whole or not at all (everything is checked before anything is changed).
Run through the same contract suites as the PostgreSQL adapters (tests/index_backends.py).

A set belongs to a product (or page) that exists: one deleted takes its set with it, as the
database's foreign keys do (ids are never reused)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from shopagent.adapters.memory.catalog import MemoryCatalog, MemoryStorePages
from shopagent.adapters.memory.outbox import MemoryOutbox
from shopagent.adapters.memory.words import Words, words_of
from shopagent.application.ports.indexing import PageItem, SaveItem
from shopagent.domain.indexing import IndexCoverage, OutboxEvent, SaveOutcome
from shopagent.domain.store_information import PassageEvidence
from shopagent.domain.store_pages import PageCoverage
from shopagent.domain.text import lexical_fields


@dataclass(frozen=True)
class StoredSet:
    """One product's (or page's) embedded set: its texts with their content hashes and vectors."""

    model: str
    version: int
    set_hash: bytes
    hashes: tuple[bytes, ...]
    texts: tuple[str, ...]
    vectors: np.ndarray  # one row per text
    words: Words | None = None  # the product's full-text words (products only)


class MemoryChunkStore:
    def __init__(self, catalog: MemoryCatalog, text_config: str = "english") -> None:
        self._catalog = catalog
        self._text_config = text_config
        self._sets: dict[int, StoredSet] = {}

    def stored(self) -> dict[int, StoredSet]:
        """The chunk set of every product that has one (read by the search twin)."""
        return {i: s for i, s in self._sets.items() if i in self._catalog.products}

    async def indexed_sets(self, product_ids: Sequence[int], model: str) -> dict[int, bytes]:
        return _hashes(self.stored(), product_ids, model)

    async def stored_embeddings(self, product_ids: Sequence[int], model: str) -> dict[bytes, np.ndarray]:
        return _embeddings(self.stored(), product_ids, model)

    async def products_indexed(self, model: str) -> int:
        return sum(s.model == model for s in self.stored().values())

    async def coverage(self, model: str) -> IndexCoverage:
        stored = self.stored()
        return IndexCoverage(
            products_indexed=sum(s.model == model for s in stored.values()),
            products_total=len(self._catalog.products),
            text_search_config=self._text_config,
            text_documents={self._text_config: len(stored)} if stored else {},
        )

    def outcomes(self, events: Sequence[OutboxEvent], items: Sequence[SaveItem], model: str) -> dict[int, SaveOutcome]:
        """What storing these sets would do to each product (nothing is changed)."""
        by_product = {item.product.id: item for item in items}
        outcome_of = {}
        for product_id in sorted({e.product_id for e in events}):
            item, current = by_product.get(product_id), self._catalog.products.get(product_id)
            outcome_of[product_id] = (
                SaveOutcome.GONE
                if current is None or item is None
                else _outcome(current.version, item.product.version, item, len(item.chunks),
                              self.stored().get(product_id), model)
            )  # fmt: skip
        return outcome_of

    def write(self, item: SaveItem, model: str) -> None:
        assert item.vectors is not None
        fields = lexical_fields(item.product)
        self._sets[item.product.id] = StoredSet(
            model, item.product.version, item.set_hash, tuple(c.content_hash for c in item.chunks),
            tuple(c.content for c in item.chunks), np.asarray(item.vectors, dtype=np.float32),
            words_of(f"{fields.primary} {fields.secondary}", fields.body),
        )  # fmt: skip


class MemoryPassageStore:
    def __init__(self, pages: MemoryStorePages) -> None:
        self._pages = pages
        self._sets: dict[int, StoredSet] = {}

    def stored(self) -> dict[int, StoredSet]:
        return {i: s for i, s in self._sets.items() if i in self._pages.pages}

    async def indexed_sets(self, page_ids: Sequence[int], model: str) -> dict[int, bytes]:
        return _hashes(self.stored(), page_ids, model)

    async def stored_embeddings(self, page_ids: Sequence[int], model: str) -> dict[bytes, np.ndarray]:
        return _embeddings(self.stored(), page_ids, model)

    async def coverage(self, model: str) -> PageCoverage:
        indexed = sum(s.model == model for s in self.stored().values())
        return PageCoverage(pages_indexed=indexed, pages_total=len(self._pages.pages))

    async def candidates(
        self, query: np.ndarray, words: Sequence[str], model: str, depth: int
    ) -> list[PassageEvidence]:
        """Every passage of the model by cosine distance, and those having any of `words`."""
        asked = words_of(" ".join(words))
        found = []
        for page_id, stored in self.stored().items():
            if stored.model != model:
                continue
            page = self._pages.pages[page_id]
            distances = 1 - stored.vectors @ query
            for text, distance in zip(stored.texts, distances, strict=True):
                has = asked.body & words_of(f"{page.title} {text}").body
                found.append((page, text, float(distance), len(has)))
        nearest = sorted(found, key=lambda f: f[2])[:depth]
        matching = sorted((f for f in found if f[3]), key=lambda f: (-f[3], f[2]))[:depth]
        vector_rank = {id(f): n for n, f in enumerate(nearest, start=1)}
        lexical_rank = {id(f): n for n, f in enumerate(matching, start=1)}
        return [
            PassageEvidence(
                page=page.slug, title=page.title, url=page.url, text=text.split("\n", 1)[-1], distance=distance,
                vector_rank=vector_rank.get(id(f)), lexical_rank=lexical_rank.get(id(f)),
                coverage=matched / len(asked.body) if asked.body else 0.0,
            )
            for f in {id(f): f for f in (*nearest, *matching)}.values()
            for page, text, distance, matched in [f]
        ]  # fmt: skip

    def outcomes(self, events: Sequence[OutboxEvent], items: Sequence[PageItem], model: str) -> dict[int, SaveOutcome]:
        by_page = {item.page.id: item for item in items}
        outcome_of = {}
        for page_id in sorted({e.product_id for e in events}):
            item, current = by_page.get(page_id), self._pages.pages.get(page_id)
            outcome_of[page_id] = (
                SaveOutcome.GONE
                if current is None or item is None
                else _outcome(current.version, item.page.version, item, len(item.passages),
                              self.stored().get(page_id), model)
            )  # fmt: skip
        return outcome_of

    def write(self, item: PageItem, model: str) -> None:
        assert item.vectors is not None
        self._sets[item.page.id] = StoredSet(
            model, item.page.version, item.set_hash, tuple(p.content_hash for p in item.passages),
            tuple(f"{p.heading}\n{p.text}" for p in item.passages), np.asarray(item.vectors, dtype=np.float32),
        )  # fmt: skip


class MemoryIndexingUnitOfWork:
    """The `IndexingUnitOfWork` port over the memory stores and outbox. Nothing runs between
    its check and its writes (no await), so no product is ever busy."""

    def __init__(self, outbox: MemoryOutbox, chunks: MemoryChunkStore, passages: MemoryPassageStore) -> None:
        self._outbox = outbox
        self._chunks = chunks
        self._passages = passages

    async def store_chunk_sets(
        self, events: Sequence[OutboxEvent], items: Sequence[SaveItem], model: str
    ) -> dict[int, SaveOutcome]:
        outcome_of = self._chunks.outcomes(events, items, model)
        for item in items:
            if outcome_of.get(item.product.id) is SaveOutcome.WRITTEN:
                self._chunks.write(item, model)
        self._outbox.complete(events)
        return {e.id: outcome_of[e.product_id] for e in events}

    async def store_passage_sets(
        self, events: Sequence[OutboxEvent], items: Sequence[PageItem], model: str
    ) -> dict[int, SaveOutcome]:
        outcome_of = self._passages.outcomes(events, items, model)
        for item in items:
            if outcome_of.get(item.page.id) is SaveOutcome.WRITTEN:
                self._passages.write(item, model)
        self._outbox.complete(events)
        return {e.id: outcome_of[e.product_id] for e in events}


def _check_rows(vectors: np.ndarray, texts: int) -> None:
    if len(vectors) != texts:
        raise ValueError(f"{len(vectors)} vectors for {texts} texts")


def _hashes(stored: dict[int, StoredSet], ids: Sequence[int], model: str) -> dict[int, bytes]:
    return {i: stored[i].set_hash for i in ids if i in stored and stored[i].model == model}


def _embeddings(stored: dict[int, StoredSet], ids: Sequence[int], model: str) -> dict[bytes, np.ndarray]:
    return {
        content_hash: vector
        for i in ids
        if i in stored and stored[i].model == model
        for content_hash, vector in zip(stored[i].hashes, stored[i].vectors, strict=True)
    }


def _outcome(
    current_version: int, item_version: int, item: SaveItem | PageItem, rows: int, stored: StoredSet | None, model: str
) -> SaveOutcome:
    """What storing `item` (read at `item_version`) would do, the aggregate being at
    `current_version` and `stored` what is stored for it now."""
    if current_version != item_version:
        return SaveOutcome.STALE
    if stored is not None and stored.model == model and stored.set_hash == item.set_hash:
        return SaveOutcome.UNCHANGED
    if item.vectors is None:
        return SaveOutcome.STALE
    _check_rows(item.vectors, rows)
    return SaveOutcome.WRITTEN
