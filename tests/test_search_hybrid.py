"""The fused search: the lexical leg, fusion under filters, stock-aware ranking, match grades,
other languages and hostile query text. The tests of the ranking run over the in-memory twins
(the `unit` tier) and the real PostgreSQL with both plans of the vector leg (exact for selective
filters, HNSW otherwise); those of the SQL itself on PostgreSQL only."""

from __future__ import annotations

import contextlib
from decimal import Decimal

import asyncpg
import pytest
from mcp import Client

from shopagent.domain.errors import ConfigError
from shopagent.domain.grade_model import GRADE_MODEL
from shopagent.domain.ranking import LEXICAL_ONLY, VECTOR_ONLY, Evidence, Match, grade
from shopagent.settings import EmbeddingSettings, SearchSettings, Settings, StoreSettings
from tests.conftest import settings_for
from tests.factories import product_input
from tests.test_search_mcp import index_everything, v
from tests.twin_services import twin_services

pytestmark = pytest.mark.anyio


CATALOG = [
    product_input("alpine-boot", name="Alpine Lined Winter Boot", brand="Nordkap", category="Boots",
                  variations=[v("black", "42", 0), v("black", "43")]),
    product_input("tundra-boot", name="Tundra Lined Winter Boot", brand="Polarhavn", category="Boots",
                  variations=[v("black", "42", 7), v("brown", "44")]),
    product_input("chelsea-boot", name="Camden Suede Chelsea Boot", brand="Camden", category="Boots",
                  description="A slim suede ankle boot with elastic side panels.", variations=[v("brown", "41")]),
    product_input("split-tee", name="Cotton Crew Tee", category="Shirts & tops", price=Decimal("25.00"),
                  description="A soft cotton tee.", brand="Caldera", material="organic cotton",
                  variations=[v("red", "S"), v("blue", "M")]),
    product_input("red-tee", name="Cotton Pocket Tee", category="Shirts & tops", price=Decimal("25.00"),
                  description="A soft cotton tee with a pocket.", brand="Caldera", material="organic cotton",
                  variations=[v("red", "M"), v("blue", "S")]),
    product_input("linen-shirt", name="Linen Summer Shirt", category="Shirts & tops", price=Decimal("49.00"),
                  description="An airy linen shirt for hot days.", brand="Marlowe", material="linen",
                  variations=[v("white", "L")]),
]  # fmt: skip


async def open_shop(database: str, catalog, **sections):
    from shopagent.adapters.local.hash_embedder import HashEmbedder
    from shopagent.wiring.services import open_services
    from shopagent.wiring.startup import INDEXER_ACTORS

    settings = settings_for(database, **sections)
    services_cm = open_services(settings, INDEXER_ACTORS | {"mcp"}, embedder=HashEmbedder())
    services = await services_cm.__aenter__()
    services.ids = {}
    for item in catalog:
        product = await services.catalog.create_product(item)
        services.ids[product.slug] = product.id
    await index_everything(services)
    return services_cm, services


async def open_twin_shop(catalog, settings=None):
    """The same catalog in the in-memory twins (no database: the ranking, not the SQL)."""
    services = twin_services(settings)
    services.ids = {}
    for item in catalog:
        product = await services.catalog.create_product(item)
        services.ids[product.slug] = product.id
    await services.index_everything()
    return services


@pytest.fixture(params=["memory", "postgres-exact", "postgres-hnsw"])
def shop_opener(request):
    """Synchronously: the database fixture is asked for only on PostgreSQL."""
    if request.param == "memory":
        return contextlib.nullcontext()
    return contextlib.asynccontextmanager(_postgres_shop)(request.param, request.getfixturevalue("database"))


@pytest.fixture
async def shop(shop_opener):
    """The search over the catalog: in the twins, or on PostgreSQL with either plan of the vector leg."""
    async with shop_opener as services:
        yield services or await open_twin_shop(CATALOG)


@pytest.fixture(params=["postgres-exact", "postgres-hnsw"])
async def postgres_shop(request, database):
    async for services in _postgres_shop(request.param, database):
        yield services


async def _postgres_shop(plan: str, database: str):
    if plan == "postgres-hnsw":
        conn = await asyncpg.connect(database)
        try:
            name = await conn.fetchval("SELECT current_database()")
            await conn.execute(f'ALTER DATABASE "{name}" SET enable_seqscan = off')
        finally:
            await conn.close()
    threshold = 0 if plan == "postgres-hnsw" else 2000
    cm, services = await open_shop(database, CATALOG, search=SearchSettings(exact_below_products=threshold))
    try:
        yield services
    finally:
        await cm.__aexit__(None, None, None)


async def slugs(shop, query: str, weights=None, **filters) -> list[str]:
    result = await shop.search.search(shop.search.request(query, 10, **filters), weights)
    return [p.slug for p in result.products]


async def test_the_lexical_leg_finds_exact_names_brands_and_misspelled_names(shop):
    assert (await slugs(shop, "Camden Suede Chelsea Boot", LEXICAL_ONLY))[0] == "chelsea-boot"
    assert (await slugs(shop, "polarhavn", LEXICAL_ONLY))[0] == "tundra-boot"
    assert (await slugs(shop, "marlowe", LEXICAL_ONLY)) == ["linen-shirt"]
    result = await shop.search.search(shop.search.request("chelsae bot camdne", 5), LEXICAL_ONLY)
    assert result.products[0].slug == "chelsea-boot"
    assert result.corrections == {"chelsae": "chelsea", "camdne": "camden"}
    # The vector leg embeds the corrected words too.
    assert (await slugs(shop, "chelsae camdne", VECTOR_ONLY))[0] == "chelsea-boot"
    assert (await slugs(shop, "chelsae camdne"))[0] == "chelsea-boot"


async def test_accents_and_case_fold_on_both_sides(shop):
    result = await shop.search.search(shop.search.request("LÍNËN SHÎRT", 5), LEXICAL_ONLY)
    assert result.products[0].slug == "linen-shirt"
    assert result.corrections == {}  # matched as the same words, not as typos


async def test_fusion_keeps_same_variation_filters_and_one_hit_per_product(shop):
    for weights in (None, LEXICAL_ONLY, VECTOR_ONLY):
        found = await slugs(shop, "cotton tee", weights, colors=["red"], sizes=["M"])
        assert found == ["red-tee"], weights  # split-tee has a red S and a blue M: not a red M
    found = await slugs(shop, "lined winter boot boot boot")
    assert len(found) == len(set(found))
    assert set(found[:2]) == {"alpine-boot", "tundra-boot"}


async def test_price_filters_apply_to_both_legs(shop):
    assert await slugs(shop, "linen shirt cotton tee", max_price=Decimal("30")) in (
        ["red-tee", "split-tee"],
        ["split-tee", "red-tee"],
    )


async def test_an_available_asked_size_ranks_above_an_otherwise_similar_sold_out_one(shop):
    request = shop.search.request("Alpine Lined Winter Boot", 5, sizes=["42"])
    products = (await shop.search.search(request)).products
    by_slug = {p.slug: p for p in products}
    assert [p.slug for p in products[:2]] == ["tundra-boot", "alpine-boot"]  # alpine is the closer name
    assert (by_slug["alpine-boot"].in_stock, by_slug["alpine-boot"].available_quantity) == (False, 0)
    assert (by_slug["tundra-boot"].in_stock, by_slug["tundra-boot"].available_quantity) == (True, 7)
    # With no size asked, availability counts every variation.
    plain = {p.slug: p for p in (await shop.search.search(shop.search.request("winter boot", 5))).products}
    assert plain["alpine-boot"].available_quantity == 5  # black 43


def test_grades_follow_the_fitted_relevance_and_never_make_a_wrong_qualifier_strong():
    model = GRADE_MODEL
    close = Evidence(1, 0.2, 1.0, 1, body_coverage=1.0, vector_rank=1, lexical_rank=1, category_match=True)
    assert grade(model.relevance(close), close, model) is Match.STRONG
    far = Evidence(1, 0.9, 0.0, 1, gap=0.5)
    assert grade(model.relevance(far), far, model) is Match.WEAK
    qualifier_missing = Evidence(1, 0.2, 0.5, 1, body_coverage=0.5, category_match=True, modifier_missing=True,
                                 vector_rank=1, lexical_rank=1)  # fmt: skip
    assert model.relevance(qualifier_missing) >= model.strong_at
    assert grade(model.relevance(qualifier_missing), qualifier_missing, model) is Match.PARTIAL
    unembedded = Evidence(1, None, 1.0, 1, body_coverage=1.0, lexical_rank=1, category_match=True)
    assert grade(1.0, unembedded, model) is not Match.STRONG


async def test_results_say_when_nothing_strong_was_found(shop):
    strong = await shop.search.search(shop.search.request("Camden Suede Chelsea Boot", 5))
    assert strong.products[0].match == "strong" and not strong.no_strong_match
    assert strong.best_match == "strong"
    nothing = await shop.search.search(shop.search.request("swimming goggles for the pool", 5))
    assert nothing.no_strong_match
    assert all(p.match == "weak" for p in nothing.products)


async def test_a_german_shop_stems_german_words(database):
    catalog = [
        product_input("winterstiefel", name="Gefütterte Winterstiefel", category="Stiefel",
                      description="Wasserdichte Stiefel aus Leder für kalte Tage.", brand="Nordkap",
                      material="Leder"),
        product_input("sommerkleid", name="Leichtes Sommerkleid", category="Kleider",
                      description="Ein luftiges Kleid aus Leinen.", brand="Solenne", material="Leinen",
                      variations=[v("blue", "M")]),
    ]  # fmt: skip
    cm, shop = await open_shop(database, catalog, store=StoreSettings(language="de"))
    try:
        # "wasserdichten" and "Stiefeln" share German stems with the product's words;
        # "gefutterten" has no umlaut (folded on both sides).
        for query in ("wasserdichten Stiefeln", "gefutterten winterstiefeln", "Kleider aus Leinen"):
            found = await slugs(shop, query, LEXICAL_ONLY)
            assert found, query
            assert found[0] == ("sommerkleid" if "Kleid" in query else "winterstiefel"), query
        # A query parsed with the English configuration misses the German inflections.
        from shopagent.adapters.postgres.search import PostgresSearchIndex

        english = PostgresSearchIndex(shop.pool, "english")
        filters = shop.search.request("x").filters
        found = await english.candidates(None, "hash-384", 384, ["wasserdichten", "stiefeln"], filters, 10)
        assert found.lexical == []
    finally:
        await cm.__aexit__(None, None, None)


async def test_an_unknown_text_search_configuration_stops_start_up_with_the_choices(database):
    from shopagent.wiring.services import open_services

    settings = settings_for(database, search=SearchSettings(text_search_config="klingon"))
    with pytest.raises(ConfigError, match=r"'klingon' is not a text search configuration.*english.*german"):
        async with open_services(settings, frozenset({"mcp"})):
            pass


@pytest.mark.parametrize(
    "query",
    [
        "boots & | ! ( ) : * <-> <2>",
        "'single' \"double\" `back` \\ back\\slash",
        "boots\x00 with a nul",
        "\ud800 lone surrogate boots",
        "!!! ??? ... ---",
        "😀 🥾",
        "boot:* & !tee",
        "the and of a",
        "winter " * 285,  # 1,995 characters
        "x" * 2000,
    ],
)
async def test_hostile_query_text_never_errors(shop, query):
    async with Client(shop.mcp_server) as client:
        result = await client.call_tool("product-semantic-search", {"query": query, "limit": 5})
    assert not result.is_error, result.content
    assert isinstance(result.structured_content["products"], list)
    assert isinstance(result.structured_content["noStrongMatch"], bool)


async def test_the_search_tool_reports_grades_stock_and_corrections(shop):
    async with Client(shop.mcp_server) as client:
        result = await client.call_tool(
            "product-semantic-search", {"query": "alpnie lined boot", "filters": {"sizes": ["42"]}}
        )
    assert not result.is_error, result.content
    data = result.structured_content
    assert data["corrections"] == {"alpnie": "alpine"}
    top = data["products"][0]
    assert {"match", "inStock", "availableQuantity"} <= top.keys()
    assert data["bestMatch"] == top["match"]


async def test_products_indexed_before_the_lexical_leg_get_their_documents_from_the_indexer(postgres_shop):
    shop = postgres_shop
    async with shop.pool.acquire() as conn:
        await conn.execute("UPDATE product_index SET document = NULL, words = NULL")
        await conn.execute(
            "INSERT INTO outbox_event (kind, product_id) SELECT 'product.upserted', product_id FROM product_index"
        )
    assert await slugs(shop, "polarhavn", LEXICAL_ONLY) == []
    await index_everything(shop)
    assert (await slugs(shop, "polarhavn", LEXICAL_ONLY))[0] == "tundra-boot"
    assert (await shop.index_status("hash-384")).pending == 0


async def test_in_a_large_catalog_the_lexical_leg_matches_on_the_rarest_words_and_ranks_on_all(database):
    # A budget of one product stands for a catalog where "boot" is common: products are then
    # matched on "cotton" (the rarer word) alone.
    cm, shop = await open_shop(database, CATALOG, search=SearchSettings(lexical_match_products=1))
    try:
        assert set(await slugs(shop, "cotton boot", LEXICAL_ONLY)) == {"split-tee", "red-tee"}
        assert (await slugs(shop, "cotton pocket boot", LEXICAL_ONLY))[0] == "red-tee"  # ranked on every word
    finally:
        await cm.__aexit__(None, None, None)


# Fifteen products: three linen, three with a pocket, one of them both.
NARROWING = [
    product_input("linen-pocket-shirt", name="Linen Pocket Shirt", category="Shirts & tops",
                  description="A shirt.", variations=[v("white", "M")]),
    *(product_input(f"linen-{n}", name=f"Linen Shirt No. {n}", category="Shirts & tops",
                    description="A shirt.", variations=[v("white", "M")]) for n in range(2)),
    *(product_input(f"pocket-{n}", name=f"Pocket Tee No. {n}", category="Shirts & tops",
                    description="A tee.", variations=[v("white", "M")]) for n in range(2)),
    *(product_input(f"scarf-{n}", name=f"Wool Scarf No. {n}", category="Accessories",
                    description="A scarf.", variations=[v("grey", "M")]) for n in range(10)),
]  # fmt: skip


async def test_where_even_the_rarest_word_is_too_common_a_match_must_have_two_of_the_words(database):
    # A budget of one product stands for a catalog of millions, where each of "linen" and
    # "pocket" is in thousands of products: only those with both are matched (and ranked).
    search = SearchSettings(lexical_match_products=1)
    twin = await open_twin_shop(NARROWING, Settings(embedding=EmbeddingSettings(model="hash"), search=search))
    assert await slugs(twin, "linen pocket", LEXICAL_ONLY) == ["linen-pocket-shirt"]
    cm, shop = await open_shop(database, NARROWING, search=search)
    try:
        assert await slugs(shop, "linen pocket", LEXICAL_ONLY) == ["linen-pocket-shirt"]
        assert set(await slugs(shop, "linen pocket", VECTOR_ONLY)) > {"linen-pocket-shirt"}  # the other leg as it was
    finally:
        await cm.__aexit__(None, None, None)


async def test_in_a_small_catalog_the_lexical_leg_matches_on_every_word(shop):
    found = set(await slugs(shop, "cotton boot", LEXICAL_ONLY))
    assert {"split-tee", "red-tee", "alpine-boot", "tundra-boot", "chelsea-boot"} <= found


async def test_a_sold_out_product_stays_findable_by_a_query_naming_it(services):
    """Edited to carry a word no other product has, and sold out: a query with that word and
    one the others share still finds it, after the available ones like it."""
    from shopagent.domain.catalog import ProductPatch
    from shopagent.domain.search import SearchRequest
    from tests.test_search_mcp import index_everything

    for n in range(8):
        await services.catalog.create_product(
            product_input(f"light-boot-{n}", name=f"Light Boot No. {n}", category="Boots",
                          description=f"A light boot for every day, model {n}.", variations=[v("black", "42")])
        )  # fmt: skip
    scarf = await services.catalog.create_product(
        product_input("light-scarf", name="Light Scarf", category="Accessories",
                      description="A light scarf for every day.", variations=[v("grey", "M")])
    )  # fmt: skip
    await index_everything(services)
    await services.catalog.update_product(
        scarf.id,
        ProductPatch(description="A light scarf for every day. Now in xk4fq9 finish.", variations=[v("grey", "M", 0)]),
    )
    await index_everything(services)

    for query in ("xk4fq9", "light xk4fq9", "xk4fq9 light"):
        found = (await services.search.search(SearchRequest(query=query, limit=5))).products
        slugs = [p.slug for p in found]
        assert "light-scarf" in slugs, (query, slugs)
        assert all(p.in_stock for p in found if p.slug != "light-scarf")
    # Sold out, it does not hide the available boots a query for them finds.
    boots = [p.slug for p in (await services.search.search(SearchRequest(query="light boot", limit=5))).products]
    assert "light-scarf" not in boots, boots


TOOLS = [
    product_input("hand-trowel", name="Steel Hand Trowel", category="Hand tools",
                  description="A hand trowel for planting out.", variations=[v("green", "M")]),
    product_input("hand-fork", name="Steel Hand Fork", category="Hand tools",
                  description="A hand fork for weeding.", variations=[v("green", "M")]),
    product_input("hand-weeder", name="Steel Hand Weeder", category="Hand tools",
                  description="A hand weeder for paths.", variations=[v("green", "M")]),
    product_input("ratchet-secateurs", name="Ratchet Secateurs", category="Pruning",
                  description="Cut thick stems in stages.", variations=[v("red", "M")]),
]  # fmt: skip


@pytest.fixture(params=["memory", "postgres"])
def tools_opener(request):
    """Synchronously: the database fixture is asked for only on PostgreSQL."""
    if request.param == "memory":
        return contextlib.nullcontext()
    return contextlib.asynccontextmanager(_opened)(request.getfixturevalue("database"), TOOLS)


async def _opened(database: str, catalog):
    cm, services = await open_shop(database, catalog)
    try:
        yield services
    finally:
        await cm.__aexit__(None, None, None)


async def test_the_full_text_leg_weighs_rare_words_and_how_many_of_them_a_product_has(tools_opener):
    """For "secateurs for weak hands", "hand" is in three names and categories, "secateurs" in one
    name. PostgreSQL's ts_rank counts a word twice in a name and category above a word once in a
    name, whatever their rarity; the leg's order weighs the rarer word."""
    async with tools_opener as services:
        shop = services or await open_twin_shop(TOOLS)
        assert (await slugs(shop, "secateurs for weak hands", LEXICAL_ONLY))[0] == "ratchet-secateurs"
        assert (await slugs(shop, "secateurs for weak hands"))[0] == "ratchet-secateurs"
        # A word in the text of one product alone is still no match for one that names the thing.
        assert (await slugs(shop, "hand trowel for paths", LEXICAL_ONLY))[0] == "hand-trowel"
