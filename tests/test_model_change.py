"""Changing embedding.model: the indexer re-embeds what another model indexed, on its own.

Against the real PostgreSQL, with two hash embedders of different dimensions standing for
two models (each records its own model id on the chunks it writes)."""

from __future__ import annotations

import logging

import anyio
import msgspec
import pytest

from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.domain.store_pages import StorePageInput
from shopagent.settings import EmbeddingSettings
from shopagent.wiring.services import open_services
from shopagent.wiring.startup import INDEXER_ACTORS
from tests.conftest import settings_for
from tests.factories import product_input

pytestmark = pytest.mark.anyio


def with_model(settings, dimensions: int):
    return msgspec.structs.replace(settings, embedding=EmbeddingSettings(model="hash", hash_dimensions=dimensions))


async def index_everything(services) -> int:
    done = 0
    while events := await services.outbox.claim(50, 60, 5, "test"):
        await services.index_product.index(events)
        done += len(events)
    return done


async def models_of(services) -> dict[str, int]:
    """How many products and store pages each model indexed."""
    async with services.pool.acquire() as conn:
        rows = await conn.fetch(
            "SELECT model, count(*) AS n FROM (SELECT model FROM product_index "
            "UNION ALL SELECT model FROM store_page_index) AS indexed GROUP BY model"
        )
    return {r["model"]: r["n"] for r in rows}


async def test_an_indexer_started_with_another_model_reindexes_what_the_old_one_indexed(database, caplog):
    settings = settings_for(database)
    old, new = with_model(settings, 32), with_model(settings, 48)
    async with open_services(old, INDEXER_ACTORS, embedder=HashEmbedder(32)) as services:
        boots = await services.catalog.create_product(product_input("alpine-winter-boot"))
        await services.catalog.create_product(product_input("harbour-rain-boot", name="Harbour Rain Boot"))
        page = msgspec.convert(
            {"slug": "returns", "title": "Returns", "text": "Returns within 30 days."}, StorePageInput
        )
        await services.store_pages.upsert_by_slug(page)
        assert await index_everything(services) == 3

    with caplog.at_level(logging.WARNING, logger="shopagent.indexing"):
        async with open_services(new, INDEXER_ACTORS, embedder=HashEmbedder(48)) as services:
            assert await models_of(services) == {"hash-32": 3}
            assert await index_everything(services) == 3
            assert await models_of(services) == {"hash-48": 3}
            with anyio.fail_after(10):
                found = await services.search.search(services.search.request("alpine winter boot"))
            assert found.products[0].product_id == boots.id
    assert "3 product(s) and store page(s) were indexed with another embedding model" in caplog.text
    assert "re-indexing them with hash-48" in caplog.text

    # The same model again: nothing to do.
    async with open_services(new, INDEXER_ACTORS, embedder=HashEmbedder(48)) as services:
        assert await index_everything(services) == 0


async def test_a_second_indexer_starting_does_not_queue_the_products_again(database):
    settings = settings_for(database)
    async with open_services(with_model(settings, 32), INDEXER_ACTORS, embedder=HashEmbedder(32)) as services:
        for n in range(5):
            await services.catalog.create_product(product_input(f"boot-{n}", name=f"Boot {n}"))
        await index_everything(services)
    new = with_model(settings, 48)
    async with (
        open_services(new, INDEXER_ACTORS, embedder=HashEmbedder(48)) as one,
        open_services(new, INDEXER_ACTORS, embedder=HashEmbedder(48)),
    ):
        async with one.pool.acquire() as conn:
            queued = await conn.fetchval("SELECT count(*) FROM outbox_event WHERE status = 'pending'")
        assert queued == 5
