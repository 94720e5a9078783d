"""The search's kept data (typo vocabulary, plan statistics) is re-read in the background."""

from __future__ import annotations

from functools import partial

import anyio
import pytest

from shopagent.application.search import keep_search_fresh
from shopagent.domain.catalog import VariationInput
from shopagent.domain.search import SearchFilters
from tests.factories import product_input
from tests.helpers import eventually

pytestmark = pytest.mark.anyio


async def test_words_indexed_in_this_process_reach_its_next_searches_without_waiting_for_the_refresh(services):
    """A catalog just imported and indexed here is searched with its own words within a second, not with
    the copy read before (kept 60 s): that copy made a shop's first minute answer from no words at all."""
    search = services.search
    assert "quillonette" not in (await search.vocabulary()).known  # read now: kept for 60 s
    await services.catalog.create_product(product_input("quillonette-scarf", name="Quillonette Scarf"))
    while events := await services.outbox.claim(10, 60, 5, "test"):
        await services.index_product.index(events)

    async def known() -> bool:
        return "quillonette" in (await search.vocabulary()).known

    await eventually(known, timeout=3)


async def test_new_words_and_colours_reach_the_search_without_a_search_re_reading_them(services):
    search, index = services.search, services.search.index
    assert "zephyrine" not in (await search.vocabulary()).known
    purple = SearchFilters(colors=("purple",))
    assert await index.estimated_matching(purple) == 0
    await services.catalog.create_product(
        product_input("zephyrine-scarf", name="Zephyrine Scarf",
                      variations=[VariationInput(color="purple", size="M", quantity=2, reserved=0)])
    )  # fmt: skip
    while events := await services.outbox.claim(10, 60, 5, "test"):
        await services.index_product.index(events)
    assert await index.estimated_matching(purple) == 0  # the kept statistics are not re-read yet

    failures: list[Exception] = []
    async with anyio.create_task_group() as tg:
        tg.start_soon(partial(keep_search_fresh, search, failures.append, every=0.05))

        async def known() -> bool:
            return "zephyrine" in (await search.vocabulary()).known

        await eventually(known)
        await eventually(partial(index.estimated_matching, purple))
        tg.cancel_scope.cancel()
    assert failures == []


async def test_a_failed_refresh_is_reported_and_the_searches_keep_their_copy(services):
    search = services.search
    words = len(await search.vocabulary())
    failures: list[Exception] = []
    async with services.pool.acquire() as conn:  # the vocabulary's query fails from now on
        await conn.execute("ALTER TABLE product_index RENAME TO product_index_gone")
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(partial(keep_search_fresh, search, failures.append, every=0.05))

            async def failed() -> bool:
                return len(failures) >= 2

            await eventually(failed)
            tg.cancel_scope.cancel()
        assert len(await search.vocabulary()) == words
    finally:
        async with services.pool.acquire() as conn:
            await conn.execute("ALTER TABLE product_index_gone RENAME TO product_index")
