"""The `PassageStore` port's contract (with the unit of work that writes it), run against every
implementation (tests/index_backends.py: PostgreSQL and the in-memory twins)."""

from __future__ import annotations

import numpy as np
import pytest

from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.application.ports import SaveOutcome
from shopagent.application.ports.indexing import PageItem
from shopagent.domain.store_pages import StorePage, StorePageDraft, passage_set_hash, split_passages

pytestmark = pytest.mark.anyio
MODEL = "hash-384"
EMBEDDER = HashEmbedder(384)
SHIPPING = (
    "## Germany\n\nWe ship within Germany in two days.\n\n## Abroad\n\nWe deliver to Austria and Switzerland too."
)


def draft(slug: str, text: str) -> StorePageDraft:
    return StorePageDraft(slug=slug, title=slug.title(), text=text, url=f"https://shop.example/{slug}", language="en")


def item_for(page: StorePage, *, vectors: bool = True) -> PageItem:
    passages = split_passages(page.title, page.text, 64)
    embedded = np.stack([EMBEDDER.vector(p.content) for p in passages]) if vectors else None
    return PageItem(page, passages, passage_set_hash(MODEL, page.language, passages), embedded)


async def stored_pages(backend) -> tuple[StorePage, StorePage]:
    shipping = await backend.pages.create(draft("shipping", SHIPPING))
    returns = await backend.pages.create(draft("returns", "Send anything back within 30 days, free of charge."))
    events = await backend.outbox.claim(10, 60, 5, "w")
    outcomes = await backend.unit.store_passage_sets(events, [item_for(shipping), item_for(returns)], MODEL)
    assert set(outcomes.values()) == {SaveOutcome.WRITTEN}
    assert await backend.outbox.pending_among([e.id for e in events]) == []
    return shipping, returns


async def test_a_stored_passage_set_is_read_back_by_model(index_backend):
    passages = index_backend.passages
    shipping, returns = await stored_pages(index_backend)
    item = item_for(shipping)
    assert await passages.indexed_sets([shipping.id, returns.id + 100], MODEL) == {shipping.id: item.set_hash}
    assert await passages.indexed_sets([shipping.id], "other-384") == {}
    stored = await passages.stored_embeddings([shipping.id], MODEL)
    assert set(stored) == {p.content_hash for p in item.passages}
    for passage, vector in zip(item.passages, item.vectors, strict=True):
        np.testing.assert_allclose(stored[passage.content_hash], vector, rtol=1e-6)


async def test_storing_again_is_a_no_op_a_stale_read_is_refused_and_a_deleted_page_keeps_nothing(index_backend):
    outbox, unit, pages, passages = (
        index_backend.outbox,
        index_backend.unit,
        index_backend.pages,
        index_backend.passages,
    )
    shipping, returns = await stored_pages(index_backend)
    await outbox.enqueue_all()
    again = await outbox.claim(10, 60, 5, "w")
    outcomes = await unit.store_passage_sets(again, [item_for(shipping, vectors=False), item_for(returns)], MODEL)
    assert set(outcomes.values()) == {SaveOutcome.UNCHANGED}
    changed = await pages.replace(shipping.id, draft("shipping", "We ship everywhere."), shipping.version)
    (event,) = await outbox.claim(10, 60, 5, "w")
    assert await unit.store_passage_sets([event], [item_for(shipping)], MODEL) == {event.id: SaveOutcome.STALE}
    assert await passages.indexed_sets([changed.id], MODEL) == {shipping.id: item_for(shipping).set_hash}
    assert await pages.delete("returns")
    (gone,) = await outbox.claim(10, 60, 5, "w")
    assert await unit.store_passage_sets([gone], [], MODEL) == {gone.id: SaveOutcome.GONE}
    assert await passages.indexed_sets([returns.id], MODEL) == {}
    assert await passages.stored_embeddings([returns.id], MODEL) == {}


async def test_candidates_are_the_nearest_passages_and_those_having_the_words(index_backend):
    passages = index_backend.passages
    shipping, _ = await stored_pages(index_backend)
    abroad = next(p for p in item_for(shipping).passages if "Austria" in p.text)
    found = await passages.candidates(EMBEDDER.vector(abroad.content), ["austria", "the"], MODEL, 10)
    nearest = min(found, key=lambda e: e.distance)
    assert (nearest.page, nearest.vector_rank, nearest.text) == ("shipping", 1, abroad.text)
    assert nearest.distance == pytest.approx(0, abs=1e-5)
    assert (nearest.lexical_rank, nearest.coverage) == (1, 1.0)  # "the" is a stop word
    assert [e.lexical_rank for e in found if e is not nearest] == [None] * (len(found) - 1)
    assert all(e.vector_rank is not None for e in found)  # every passage is among the 10 nearest
    assert (nearest.title, nearest.url) == ("Shipping", "https://shop.example/shipping")
    assert await passages.candidates(EMBEDDER.vector(abroad.content), [], "other-384", 10) == []
