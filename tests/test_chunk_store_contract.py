"""The `ChunkStore` port's contract, run against every implementation (tests/index_backends.py)."""

from __future__ import annotations

import numpy as np
import pytest

from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.application.ports import SaveOutcome
from shopagent.application.ports.indexing import SaveItem
from shopagent.domain.catalog import Product, ProductPatch
from shopagent.domain.indexing import chunk_product, chunk_set_hash
from tests.factories import product_input

pytestmark = pytest.mark.anyio
MODEL = "hash-384"
EMBEDDER = HashEmbedder(384)


def item_for(product: Product, *, vectors: bool = True) -> SaveItem:
    chunks = chunk_product(product, 96)
    embedded = np.stack([EMBEDDER.vector(c.content) for c in chunks]) if vectors else None
    return SaveItem(product, chunks, chunk_set_hash(MODEL, chunks), embedded)


def parts_of(backend):
    """The outbox, the chunk store, the catalog and the unit of work that ties the first two."""
    return backend.outbox, backend.chunks, backend.catalog, backend.unit


async def test_a_saved_chunk_set_is_stored_with_its_embeddings_and_completes_its_event(index_backend):
    outbox, chunks, unit = index_backend.outbox, index_backend.chunks, index_backend.unit
    product = await index_backend.catalog.create_product(product_input())
    (event,) = await outbox.claim(10, 60, 5, "w")
    item = item_for(product)
    assert await unit.store_chunk_sets([event], [item], MODEL) == {event.id: SaveOutcome.WRITTEN}
    assert await chunks.indexed_sets([product.id], MODEL) == {product.id: item.set_hash}
    assert await chunks.indexed_sets([product.id], "another-model") == {}
    stored = await chunks.stored_embeddings([product.id], MODEL)
    assert set(stored) == {c.content_hash for c in item.chunks}
    for chunk, vector in zip(item.chunks, item.vectors, strict=True):
        np.testing.assert_allclose(stored[chunk.content_hash], vector, rtol=1e-6)
    assert await chunks.stored_embeddings([product.id], "another-model") == {}
    assert await outbox.pending_among([event.id]) == []
    assert await chunks.products_indexed(MODEL) == 1


async def test_saving_the_same_set_again_is_a_no_op_success(index_backend):
    outbox, chunks, unit = index_backend.outbox, index_backend.chunks, index_backend.unit
    product = await index_backend.catalog.create_product(product_input())
    (event,) = await outbox.claim(10, 60, 5, "w")
    assert await unit.store_chunk_sets([event], [item_for(product)], MODEL) == {event.id: SaveOutcome.WRITTEN}
    before = await chunks.stored_embeddings([product.id], MODEL)
    # Delivered again, with or without vectors (a worker that found the set already stored).
    assert await unit.store_chunk_sets([event], [item_for(product)], MODEL) == {event.id: SaveOutcome.UNCHANGED}
    assert await unit.store_chunk_sets([event], [item_for(product, vectors=False)], MODEL) == {
        event.id: SaveOutcome.UNCHANGED
    }
    assert (await chunks.stored_embeddings([product.id], MODEL)).keys() == before.keys()
    assert await outbox.pending_among([event.id]) == []
    assert (await outbox.backlog()).dead == 0


async def test_a_stale_read_never_overwrites_newer_chunks(index_backend):
    outbox, chunks, catalog, unit = parts_of(index_backend)
    product = await catalog.create_product(product_input())
    (created,) = await outbox.claim(10, 60, 5, "a")
    await catalog.update_product(product.id, ProductPatch(name="First Rename"))
    (old_event,) = await outbox.claim(10, 60, 5, "a")
    old_read = await catalog.get_product(product.id)
    newer = await catalog.update_product(product.id, ProductPatch(name="Second Rename"))
    (new_event,) = await outbox.claim(10, 60, 5, "b")
    assert await unit.store_chunk_sets([new_event], [item_for(newer)], MODEL) == {new_event.id: SaveOutcome.WRITTEN}
    # The slow worker now saves what it read before the second rename.
    assert await unit.store_chunk_sets([old_event], [item_for(old_read)], MODEL) == {old_event.id: SaveOutcome.STALE}
    assert await chunks.indexed_sets([product.id], MODEL) == {product.id: item_for(newer).set_hash}
    assert await outbox.pending_among([created.id, old_event.id, new_event.id]) == [created.id]


async def test_a_product_gone_meanwhile_keeps_no_chunks(index_backend):
    outbox, chunks, catalog, unit = parts_of(index_backend)
    product = await catalog.create_product(product_input())
    (created,) = await outbox.claim(10, 60, 5, "w")
    await unit.store_chunk_sets([created], [item_for(product)], MODEL)
    renamed = await catalog.update_product(product.id, ProductPatch(name="Renamed"))
    (late,) = await outbox.claim(10, 60, 5, "w")
    await catalog.delete_product(product.id)
    assert await chunks.indexed_sets([product.id], MODEL) == {}
    assert await unit.store_chunk_sets([late], [item_for(renamed)], MODEL) == {late.id: SaveOutcome.GONE}
    (deleted,) = await outbox.claim(10, 60, 5, "w")
    assert await unit.store_chunk_sets([deleted], [], MODEL) == {deleted.id: SaveOutcome.GONE}
    assert await chunks.indexed_sets([product.id], MODEL) == {}
    assert await chunks.stored_embeddings([product.id], MODEL) == {}
    assert await outbox.pending_among([late.id, deleted.id]) == []


async def test_a_save_completes_the_older_unclaimed_events_of_its_products_too(index_backend):
    outbox, _, catalog, unit = parts_of(index_backend)
    product = await catalog.create_product(product_input())
    await catalog.update_product(product.id, ProductPatch(name="Renamed"))
    older, newer = await outbox.claim(10, 60, 5, "w")
    current = await catalog.get_product(product.id)
    # Still leased, the older one is someone's work in progress: left alone.
    await unit.store_chunk_sets([newer], [item_for(current)], MODEL)
    assert await outbox.pending_among([older.id, newer.id]) == [older.id]
    await catalog.update_product(product.id, ProductPatch(name="Renamed again"))
    assert await outbox.release("w") == 1
    _, newest = await outbox.claim(10, 60, 5, "v")
    await outbox.release("v")  # nobody holds the older one now
    await unit.store_chunk_sets([newest], [item_for(await catalog.get_product(product.id))], MODEL)
    assert await outbox.pending_among([older.id, newest.id]) == []  # covered by the newest read
    assert await outbox.claim(10, 60, 5, "v") == []


async def test_a_save_that_fails_stores_nothing_and_completes_nothing(index_backend):
    outbox, chunks, catalog, unit = parts_of(index_backend)
    first = await catalog.create_product(product_input("boot-one"))
    second = await catalog.create_product(product_input("boot-two"))
    events = await outbox.claim(10, 60, 5, "w")
    broken = item_for(second)
    broken.vectors = broken.vectors[:1]  # fewer vectors than chunks
    with pytest.raises(ValueError):
        await unit.store_chunk_sets(events, [item_for(first), broken], MODEL)
    assert await chunks.indexed_sets([first.id, second.id], MODEL) == {}
    assert await chunks.stored_embeddings([first.id, second.id], MODEL) == {}
    assert sorted(await outbox.pending_among([e.id for e in events])) == [e.id for e in events]


async def test_a_new_model_s_set_replaces_the_old_model_s(index_backend):
    outbox, chunks, catalog, unit = parts_of(index_backend)
    product = await catalog.create_product(product_input())
    (event,) = await outbox.claim(10, 60, 5, "w")
    await unit.store_chunk_sets([event], [item_for(product)], MODEL)
    await outbox.enqueue_all()
    (event,) = await outbox.claim(10, 60, 5, "w")
    parts = chunk_product(product, 96)
    other = SaveItem(
        product, parts, chunk_set_hash("other-384", parts), np.stack([EMBEDDER.vector(c.content) for c in parts])
    )
    assert await unit.store_chunk_sets([event], [other], "other-384") == {event.id: SaveOutcome.WRITTEN}
    assert await chunks.indexed_sets([product.id], MODEL) == {}
    assert await chunks.stored_embeddings([product.id], MODEL) == {}
    assert (await chunks.products_indexed(MODEL), await chunks.products_indexed("other-384")) == (0, 1)


async def test_coverage_counts_the_products_indexed_and_their_full_text_documents(index_backend):
    outbox, chunks, catalog, unit = parts_of(index_backend)
    empty = await chunks.coverage(MODEL)
    assert (empty.products_indexed, empty.products_total, empty.text_documents) == (0, 0, {})
    assert empty.text_search_config
    products = [await catalog.create_product(product_input(f"boot-{n}")) for n in range(3)]
    events = await outbox.claim(10, 60, 5, "w")
    await unit.store_chunk_sets(events[:2], [item_for(p) for p in products[:2]], MODEL)
    coverage = await chunks.coverage(MODEL)
    assert (coverage.products_indexed, coverage.products_total) == (2, 3)
    assert coverage.text_documents == {coverage.text_search_config: 2}
