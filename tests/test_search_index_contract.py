"""The `SearchIndex` port's contract, run against every implementation (tests/index_backends.py:
PostgreSQL and the in-memory twin), and shown to catch a twin that drops a filter. It asserts
what both must do (which products each leg finds within the filters, the evidence on each), not
the exact order within a leg, which differs (pgvector and ts_rank against exact cosine and word
overlap)."""

from __future__ import annotations

from decimal import Decimal

import msgspec
import numpy as np
import pytest

from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.adapters.memory.search import MemorySearchIndex
from shopagent.application.ports.indexing import SaveItem
from shopagent.domain.catalog import Product
from shopagent.domain.indexing import chunk_product, chunk_set_hash
from shopagent.domain.search import SearchFilters
from tests.factories import product_input
from tests.index_backends import memory_backend_with

pytestmark = pytest.mark.anyio
MODEL = "hash-384"
EMBEDDER = HashEmbedder(384)


async def stocked(backend, *more: Product) -> tuple[Product, Product]:
    """A winter boot (black 42 with 4 to sell, brown 43 sold out, 189.00) and a beach sandal
    (29.90), indexed (with `more` products created before)."""
    catalog = backend.catalog
    boot = await catalog.create_product(product_input("alpine-boot"))
    sandal = await catalog.create_product(
        product_input(
            "beach-sandal", name="Beach Sandal", category="Sandals", price=Decimal("29.90"),
            description="A light sandal for hot days by the sea.", material="cork",
        )
    )  # fmt: skip
    events = await backend.outbox.claim(10, 60, 5, "w")
    items = []
    for product in (boot, sandal, *more):
        chunks = chunk_product(product, 96)
        vectors = np.stack([EMBEDDER.vector(c.content) for c in chunks])
        items.append(SaveItem(product, chunks, chunk_set_hash(MODEL, chunks), vectors))
    await backend.unit.store_chunk_sets(events, items, MODEL)
    return boot, sandal


def closest_to(product: Product) -> np.ndarray:
    return EMBEDDER.vector(chunk_product(product, 96)[0].content)


NO_FILTERS = SearchFilters()


async def find(backend, vector, terms, filters=NO_FILTERS, model=MODEL):
    return await backend.search.candidates(vector, model, 384, terms, filters, 10)


async def ranks_the_vector_leg_by_each_product_s_closest_chunk_of_the_model(backend) -> None:
    boot, sandal = await stocked(backend)
    found = await find(backend, closest_to(sandal), [])
    assert found.vector[0] == sandal.id and set(found.vector) == {boot.id, sandal.id}
    assert found.lexical == []
    assert found.rows[sandal.id].distance == pytest.approx(0, abs=1e-5)
    assert found.rows[sandal.id].distance < found.rows[boot.id].distance
    assert (await find(backend, closest_to(sandal), [], model="other-384")).vector == []


async def matches_the_lexical_leg_on_the_products_words_and_grades_where_they_are(backend) -> None:
    boot, sandal = await stocked(backend)
    found = await find(backend, None, ["the", "sandals"])
    assert (found.vector, found.lexical) == ([], [sandal.id])
    assert found.content_terms == {1}  # "the" is a stop word
    row = found.rows[sandal.id]
    assert (row.title_terms, row.body_terms, row.category_terms, row.name_terms) == ({1}, {1}, {1}, {1})
    cork = (await find(backend, None, ["cork"])).rows[sandal.id]  # its material: a title word, not a name word
    assert (cork.title_terms, cork.category_terms, cork.name_terms) == ({0}, frozenset(), frozenset())
    assert row.material == sandal.material  # what it is made of, as the catalog says it
    assert row.distance is None  # no vector asked
    both = await find(backend, None, ["wool", "cork"])
    assert set(both.lexical) == {boot.id, sandal.id}


async def weighs_a_word_of_the_title_above_one_of_the_description(backend) -> None:
    boot, sandal = await stocked(backend)
    # "winter" is in the boot's name, "sea" only in the sandal's description.
    found = await find(backend, None, ["sea", "winter"])
    assert found.lexical == [boot.id, sandal.id]
    assert (found.rows[boot.id].title_terms, found.rows[sandal.id].title_terms) == ({1}, frozenset())
    assert found.rows[sandal.id].body_terms == {0}


async def ranks_the_products_having_every_word_of_match_first_alone_where_there_are_enough(backend) -> None:
    """(a million products: the products having all the query's narrowing words, before the groups')"""
    boot, sandal = await stocked(backend)

    async def lexical(depth, filters=NO_FILTERS, **matching) -> list[int]:
        found = await backend.search.candidates(None, MODEL, 384, ["winter", "sea"], filters, depth, **matching)
        return found.lexical

    # "winter" in the boot's name outranks "sea" in the sandal's description...
    assert await lexical(1) == [boot.id]
    # ...unless the sandal has every word matched first, and that is as many as the leg returns.
    assert await lexical(1, match_first="sea") == [sandal.id]
    assert await lexical(2, match_first="sea") == [boot.id, sandal.id]  # too few: the others too
    assert await lexical(2, match_first="sea", match_limit=1) == [sandal.id]  # at most one ranked, it first
    # Only those passing the filters count: a sandal under 100 is enough; none over 100 is not.
    assert await lexical(1, SearchFilters(max_price=Decimal("100")), match_first="sea") == [sandal.id]
    assert await lexical(1, SearchFilters(min_price=Decimal("100")), match_first="sea") == [boot.id]


async def judges_colour_size_and_stock_on_one_variation_in_both_legs(backend) -> None:
    boot, _ = await stocked(backend)
    vector, terms = closest_to(boot), ["boot"]

    def filtered(**given) -> SearchFilters:
        return SearchFilters(**given)

    black_42 = await find(backend, vector, terms, filtered(colors=("black",), sizes=("42",)))
    assert boot.id in black_42.vector and boot.id in black_42.lexical
    assert black_42.rows[boot.id].available == 4
    black_43 = await find(backend, vector, terms, filtered(colors=("black",), sizes=("43",)))
    assert boot.id not in black_43.vector and boot.id not in black_43.lexical  # no black 43 exists
    brown = await find(backend, vector, terms, filtered(colors=("brown",)))
    assert boot.id in brown.vector and brown.rows[boot.id].available == 0
    assert brown.rows[boot.id].colors == ["black"]  # the colours in stock
    assert brown.rows[boot.id].made_in == {"black", "brown"}  # the colours it comes in
    assert brown.rows[boot.id].sized_in == {"42", "43"}  # and the sizes, in stock or not
    brown_in_stock = await find(backend, vector, terms, filtered(colors=("brown",), in_stock=True))
    assert boot.id not in brown_in_stock.vector and boot.id not in brown_in_stock.lexical


async def keeps_the_price_bounds_in_both_legs(backend) -> None:
    boot, sandal = await stocked(backend)
    cheap = SearchFilters(max_price=Decimal("100"))
    found = await find(backend, closest_to(boot), ["boot", "sandal"], cheap)
    assert (found.vector, found.lexical) == ([sandal.id], [sandal.id])
    dear = await find(backend, closest_to(boot), ["boot", "sandal"], SearchFilters(min_price=Decimal("100")))
    assert (dear.vector, dear.lexical) == ([boot.id], [boot.id])
    assert dear.rows[boot.id].price == Decimal("189.00")


async def prices_a_sale_set_on_the_variations_alone(backend) -> None:
    """A mower whose one variation sells at 99 instead of 119 (no price of its own to speak of): its
    row's price is the variation's, on sale, in both legs."""
    from shopagent.domain.catalog import VariationInput

    mower = await backend.catalog.create_product(
        product_input("mower", name="Electric Lawn Mower", category="Lawn care", price=None,
                      variations=[VariationInput(price=Decimal("119.00"), discount_price=Decimal("99.00"), quantity=5)])
    )  # fmt: skip
    await stocked(backend, mower)
    found = await find(backend, closest_to(mower), ["mower"])
    row = found.rows[mower.id]
    assert (row.price, row.discount_price) == (Decimal("119.00"), Decimal("99.00"))


async def forgets_a_deleted_product_and_counts_the_indexed_words(backend) -> None:
    boot, sandal = await stocked(backend)
    words = await backend.search.vocabulary()
    known, titles, products = words.known, words.titles, words.products
    assert (known["wool"], known["sea"], titles["beach"], titles["nordkap"], products) == (1, 1, 1, 2, 2)
    assert "sea" not in titles
    await backend.catalog.delete_product(boot.id)
    found = await find(backend, closest_to(boot), ["boot", "wool"])
    assert (found.vector, found.lexical) == ([sandal.id], [])


async def tells_which_phrases_a_name_or_category_has_word_after_word(backend) -> None:
    await stocked(backend)  # "Alpine Lined Winter Boot" (Boots) and "Beach Sandal" (Sandals)
    asked = ["winter boot", "winter boots", "lined winter", "beach boot", "sandal beach", "sea sandal", "ice skate"]
    phrases = (await backend.search.vocabulary(asked)).phrases
    # Not words of two products ("beach boot"), nor in another order, nor a description's ("sea").
    assert phrases == {"winter boot", "winter boots", "lined winter"}
    assert (await backend.search.vocabulary()).phrases == frozenset()


async def names_the_words_names_and_categories_call_kinds_of_thing_by(backend) -> None:
    catalog = backend.catalog
    food = await catalog.create_product(
        product_input("grain-free-food", name="Harbour Grain-Free Dog Food — Salmon, 2 kg", category="Dog food")
    )
    knife = await catalog.create_product(
        product_input("chef-knife", name="Classic Chef's Knife 20 cm", category="Knives & Cutting boards")
    )
    cage = await catalog.create_product(
        product_input("hamster-home", name="Hamster Home, 80 cm", category="Small animals")
    )
    await stocked(backend, food, knife, cage)
    words = await backend.search.vocabulary()
    # Each name's last word before what it comes with or is for, an amount aside; each category's heads.
    assert {"food", "knife", "home", "boot", "sandal", "knives", "boards", "animals", "sandals"} <= words.kinds
    assert not {"grain", "free", "dog", "salmon", "chef", "hamster", "cm", "80", "small", "cutting"} & words.kinds
    assert {"dog", "food", "small", "animals", "cutting", "boards", "knives"} <= words.category_words


CONTRACT = [
    names_the_words_names_and_categories_call_kinds_of_thing_by,
    ranks_the_vector_leg_by_each_product_s_closest_chunk_of_the_model,
    matches_the_lexical_leg_on_the_products_words_and_grades_where_they_are,
    weighs_a_word_of_the_title_above_one_of_the_description,
    ranks_the_products_having_every_word_of_match_first_alone_where_there_are_enough,
    judges_colour_size_and_stock_on_one_variation_in_both_legs,
    keeps_the_price_bounds_in_both_legs,
    prices_a_sale_set_on_the_variations_alone,
    forgets_a_deleted_product_and_counts_the_indexed_words,
    tells_which_phrases_a_name_or_category_has_word_after_word,
]


@pytest.mark.parametrize("rule", CONTRACT, ids=lambda rule: rule.__name__)
async def test_the_search_index_contract(index_backend, rule) -> None:
    await rule(index_backend)


class SizeBlind(MemorySearchIndex):
    """A twin that drifted: it forgets the sizes asked for."""

    async def candidates(self, vector, model, dimension, terms, filters, depth, need=1, **legs):
        filters = msgspec.structs.replace(filters, sizes=())
        return await super().candidates(vector, model, dimension, terms, filters, depth, need, **legs)


async def test_a_twin_that_drops_a_filter_fails_the_contract() -> None:
    failed = []
    for rule in CONTRACT:
        async with memory_backend_with(SizeBlind) as backend:
            try:
                await rule(backend)
            except AssertionError:
                failed.append(rule.__name__)
    assert failed == ["judges_colour_size_and_stock_on_one_variation_in_both_legs"]
