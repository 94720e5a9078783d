"""Any shop's catalog: named options beside colour and size, a price per variation, specs, and
links to buy; through validation, the admin API, JSON and CSV files, the search filters (each
judged on one and the same variation), the MCP tools and a database made before them."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import asyncpg
import httpx
import msgspec
import pytest
from mcp import Client

from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.adapters.postgres.catalog import PostgresCatalog
from shopagent.adapters.postgres.database import open_pool
from shopagent.adapters.postgres.migrations import load_migrations, migrate
from shopagent.bootstrap import build_public_app
from shopagent.domain.catalog import CatalogRules, ProductInput, VariationInput
from shopagent.domain.errors import ValidationError
from shopagent.domain.ranking import LEXICAL_ONLY
from shopagent.domain.validation import validate_product
from shopagent.entrypoints.catalog_files import read_catalog_file
from shopagent.settings import Secret, Settings, StoreSettings
from shopagent.wiring.database import prepare_schema
from shopagent.wiring.services import open_services
from shopagent.wiring.startup import INDEXER_ACTORS
from tests.conftest import settings_for

pytestmark = pytest.mark.anyio

RULES = CatalogRules.create("EUR", ["black", "red", "yellow"], ["S", "M", "52 cm", "Regular", "Long"], {})
KEY = "admin-key-for-tests"


def lamp(**changes) -> ProductInput:
    """A head lamp: a colour and a Battery option, a price per battery, specs, a link."""
    base = ProductInput(
        slug="trail-headlamp",
        name="Trail Headlamp",
        category="Lights",
        description="A light head lamp with a red night mode. IPX4 splash proof.",
        options=["Battery"],
        specs={"lumens": 800, "waterproof_rating": "IPX4", "Weight (g)": 78},
        url="https://shop.example/products/trail-headlamp",
        variations=[
            VariationInput(color="black", options={"Battery": "AAA"}, price=Decimal("34.00"), quantity=9, sku="HL-AAA"),
            VariationInput(
                color="black", options={"battery": "rechargeable"}, price=Decimal("49.00"),
                discount_price=Decimal("44.00"), quantity=0, sku="HL-USB", specs={"lumens": 1000},
            ),
            VariationInput(
                color="red", options={"Battery": "AAA"}, price=Decimal("34.00"), quantity=2, sku="HL-AAA-R",
                url="https://shop.example/cart/add?id=77",
            ),
        ],
    )  # fmt: skip
    return msgspec.structs.replace(base, **changes)


def gas() -> ProductInput:
    """No colour, no size: only a Weight option, each at its own price, with its own burn time."""
    return ProductInput(
        slug="camping-gas",
        name="Camping Gas Cartridge",
        category="Stove fuel",
        description="Butane and propane for screw-valve stoves.",
        external_id="501",
        variations=[
            VariationInput(
                options={"Weight": "230 g"}, price=Decimal("5.90"), quantity=40, external_id="5011",
                specs={"burn_time_min": 85},
            ),
            VariationInput(
                options={"Weight": "450 g"}, price=Decimal("9.90"), discount_price=Decimal("8.90"), quantity=12,
                external_id="5012", specs={"burn_time_min": 170},
            ),
        ],
    )  # fmt: skip


# -- validation -------------------------------------------------------------------------


def test_options_prices_and_specs_are_validated_and_normalised():
    draft = validate_product(lamp(), RULES)
    assert draft.option_names == ("Battery",)
    # Option names are matched folded and written the product's way; values keep the shop's spelling.
    assert [(v.color, v.options, v.sku) for v in draft.variations] == [
        ("black", {"Battery": "AAA"}, "HL-AAA"), ("black", {"Battery": "rechargeable"}, "HL-USB"),
        ("red", {"Battery": "AAA"}, "HL-AAA-R"),
    ]  # fmt: skip
    assert draft.specs == {"lumens": 800, "waterproof_rating": "IPX4", "weight_g": 78}
    # The product needs no price of its own: it is its cheapest variation's; shown "from" the
    # cheapest that can be bought.
    assert draft.price == Decimal("34.00") and draft.prices_vary
    black_usb = draft.variations[1]
    assert draft.paid_price(black_usb) == Decimal("44.00") and draft.regular_price(black_usb) == Decimal("49.00")
    assert draft.variation_specs(black_usb)["lumens"] == 1000


def test_colour_and_size_are_optional_and_a_variation_is_told_apart_by_its_options():
    draft = validate_product(gas(), RULES)
    assert [(v.color, v.size, v.options["Weight"]) for v in draft.variations] == [("", "", "230 g"), ("", "", "450 g")]
    assert draft.option_names == ("Weight",)  # taken from the variations when not given
    twice = gas()
    twice.variations[1].options["Weight"] = "230 G"  # the same value, folded
    with pytest.raises(ValidationError, match=r"variation 2: 230 G already appears as variation 1"):
        validate_product(twice, RULES)


def test_two_variations_of_a_product_never_share_a_sku():
    shared = gas()
    for variation in shared.variations:
        variation.sku = " GAS-BUT "  # one code, spaced differently
    with pytest.raises(ValidationError, match=r"variation 2: sku 'GAS-BUT' is already the sku of variation 1"):
        validate_product(shared, RULES)
    own = gas()
    own.variations[0].sku, own.variations[1].sku = "GAS-230", "GAS-450"
    assert [v.sku for v in validate_product(own, RULES).variations] == ["GAS-230", "GAS-450"]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"options": ["Battery", "Colour"]}, r"'Colour' is the variations' color; give it in each variation's color"),
        ({"options": ["A", "B", "C", "D"]}, r"at most 3 options besides colour and size"),
        ({"options": ["Battery", "Mount"]}, r"variation 1: no value for Mount"),
        ({"options": ["Mount"]}, r"variation 1: option 'Battery' is not one of its options"),
        ({"specs": {"lumens": float("inf")}}, r"specs lumens: inf must be a finite number"),
        ({"specs": {"": 3}}, r"spec name '' must start with a letter"),
        ({"specs": {"notes": "x" * 201}}, r"specs notes: the text must be 1-200 characters"),
        ({"url": "javascript:alert(1)"}, r"url 'javascript:alert\(1\)' must be an http\(s\) URL"),
    ],
)
def test_a_bad_option_spec_or_link_is_refused_with_what_to_change(changes, message):
    with pytest.raises(ValidationError, match=message):
        validate_product(lamp(**changes), RULES)


def test_a_product_without_a_price_needs_one_on_every_variation():
    unpriced = gas()
    unpriced.variations[0].price = None
    with pytest.raises(ValidationError, match=r"variation 1: no price \(the product has none either\)"):
        validate_product(unpriced, RULES)
    cut = gas()
    cut.variations[1].discount_price = Decimal("12.00")
    with pytest.raises(ValidationError, match=r"variation 2: discountPrice 12.00 must be lower than price 9.90"):
        validate_product(cut, RULES)


def test_sizes_keep_the_shops_spelling_and_its_words_count_in_every_format():
    item = lamp(options=[], variations=[VariationInput(size="52 CM", quantity=1, price=Decimal("10"))])
    assert validate_product(item, RULES).variations[0].size == "52 cm"
    words = RULES.with_words({"schwarz": "black"}, {"16 inch": "52 cm", "lang": "Long"})
    aliased = lamp(
        options=[], variations=[VariationInput(color="Schwarz", size="16 Inch", quantity=1, price=Decimal("10"))]
    )
    assert [(v.color, v.size) for v in validate_product(aliased, words).variations] == [("black", "52 cm")]
    with pytest.raises(ValidationError, match=r"size '16 inch' is not one of S, M, 52 cm, Regular, Long"):
        validate_product(
            lamp(options=[], price=Decimal("10"), variations=[VariationInput(size="16 inch", quantity=1)]), RULES
        )


def test_json_and_csv_files_carry_the_same_product(tmp_path: Path):
    as_json = tmp_path / "catalog.json"
    as_json.write_text(json.dumps([msgspec.to_builtins(lamp())]))
    as_csv = tmp_path / "catalog.csv"
    as_csv.write_text(
        "slug,name,category,description,url,spec:lumens,spec:waterproof_rating,spec:Weight (g),color,option:Battery,"
        "variation_price,variation_discount_price,quantity,sku,variation_url,variation_spec:lumens\n"
        "trail-headlamp,Trail Headlamp,Lights,A light head lamp with a red night mode. IPX4 splash proof.,"
        "https://shop.example/products/trail-headlamp,800,IPX4,78,black,AAA,34.00,,9,HL-AAA,,\n"
        "trail-headlamp,,,,,,,,black,rechargeable,49.00,44.00,0,HL-USB,,1000\n"
        "trail-headlamp,,,,,,,,red,AAA,34.00,,2,HL-AAA-R,https://shop.example/cart/add?id=77,\n"
    )
    drafts = []
    for path in (as_json, as_csv):
        ((where, item),) = read_catalog_file(path)
        assert isinstance(item, ProductInput), (where, item)
        drafts.append(validate_product(item, RULES))
    assert drafts[0] == drafts[1]
    assert drafts[1].option_names == ("Battery",)  # the header's spelling, not folded


# -- storage, the admin API, migration ---------------------------------------------------


def admin(services) -> httpx.AsyncClient:
    secrets = msgspec.structs.replace(services.settings.secrets, admin_api_key=Secret(KEY))
    services.settings = msgspec.structs.replace(services.settings, secrets=secrets)
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=build_public_app(services)), base_url="http://shop.test",
        headers={"Authorization": f"Bearer {KEY}"},
    )  # fmt: skip


def gear_settings(database: str) -> Settings:
    settings = settings_for(database)
    catalog = msgspec.structs.replace(settings.catalog, colors=["black", "red"], sizes=["S", "M"], color_aliases={})
    store = StoreSettings(
        product_url_template="https://shop.example/p/{slug}",
        cart_url_template="https://shop.example/?add-to-cart={external_id}&variation_id={variation_external_id}",
    )
    return msgspec.structs.replace(settings, catalog=catalog, store=store)


async def test_the_new_fields_round_trip_through_the_admin_api_and_stock_changes_find_the_variation(services):
    async with admin(services) as client:
        created = await client.post("/api/admin/products", json=msgspec.to_builtins(lamp()))
        assert created.status_code == 201, created.text
        product = created.json()
        assert (product["options"], product["specs"]["lumens"], product["url"]) == (
            ["Battery"], 800, "https://shop.example/products/trail-headlamp",
        )  # fmt: skip
        usb = next(v for v in product["variations"] if v["sku"] == "HL-USB")
        assert usb == {
            "color": "black", "options": {"Battery": "rechargeable"}, "quantity": 0, "price": "49.00",
            "discountPrice": "44.00", "sku": "HL-USB", "specs": {"lumens": 1000}, "available": 0,
        }  # fmt: skip
        written = await client.put(f"/api/admin/products/{product['id']}", json=product)  # sent back unchanged
        assert written.json()["updatedAt"] == product["updatedAt"]
        by_options = await client.post(
            f"/api/admin/products/{product['id']}/stock",
            json={"color": "Black", "options": {"BATTERY": "Rechargeable"}, "quantityDelta": 3},
        )
        by_sku = await client.post(
            f"/api/admin/products/{product['id']}/stock", json={"sku": "HL-AAA-R", "reservedDelta": 1}
        )
        missing = await client.post(
            f"/api/admin/products/{product['id']}/stock", json={"color": "red", "options": {"Battery": "D"}}
        )
    assert next(v for v in by_options.json()["variations"] if v["sku"] == "HL-USB")["available"] == 3
    assert next(v for v in by_sku.json()["variations"] if v["sku"] == "HL-AAA-R")["available"] == 1
    assert missing.status_code == 404 and "has no variation red D" in missing.text


async def test_a_database_made_before_options_and_variation_prices_migrates_without_losing_data(empty_database):
    before = [m for m in load_migrations() if m.version <= 8]
    conn = await asyncpg.connect(empty_database)
    try:
        await migrate(conn, before)
        product = await conn.fetchval(
            "INSERT INTO product (slug, name, category, price, discount_price, currency) "
            "VALUES ('old-boot', 'Old Boot', 'Boots', 120, 99, 'EUR') RETURNING id"
        )
        await conn.execute(
            "INSERT INTO product_variation (product_id, color, size, quantity, reserved) "
            "VALUES ($1, 'black', '42', 3, 1), ($1, 'black', '43', 0, 0)",
            product,
        )
    finally:
        await conn.close()
    await prepare_schema(empty_database, Settings())
    async with open_pool(empty_database, min_size=1, max_size=2, connect_timeout=10, command_timeout=60) as pool:
        catalog = PostgresCatalog(pool)
        stored = await catalog.get(product)
        assert stored is not None
        assert [(v.color, v.size, v.quantity, v.reserved, v.price) for v in stored.variations] == [
            ("black", "42", 3, 1, None), ("black", "43", 0, 0, None),
        ]  # fmt: skip
        assert stored.effective_price == Decimal("99.00") and stored.option_names == () and stored.url is None
        # The stock of a migrated variation is found by its colour and size as before.
        changed = await catalog.adjust_stock(product, stored.variations[1].key, 5, 0)
        assert changed.variations[1].quantity == 5
        async with pool.acquire() as conn:
            prices = await conn.fetchrow("SELECT price_low, price_high FROM product WHERE id = $1", product)
        assert (prices["price_low"], prices["price_high"]) == (Decimal("99.00"), Decimal("99.00"))


# -- search and the MCP tools ---------------------------------------------------------------


async def indexed(services, *items: ProductInput) -> dict[str, int]:
    ids = {item.slug: (await services.catalog.create_product(item)).id for item in items}
    while events := await services.outbox.claim(50, 60, 5, "t"):
        await services.index_product.index(events)
    return ids


async def found(services, query: str, **filters) -> dict[str, dict]:
    result = await services.search.search(services.search.request(query, 10, **filters))
    return {p.slug: msgspec.to_builtins(p) for p in result.products}


async def test_filters_on_options_specs_and_prices_hold_on_one_and_the_same_variation(database):
    async with open_services(gear_settings(database), INDEXER_ACTORS | {"mcp"}, embedder=HashEmbedder()) as services:
        await indexed(services, lamp(), gas())
        # Rechargeable exists, but only black, and sold out: no red rechargeable, none in stock.
        assert set(await found(services, "head lamp", options={"Battery": ["RECHARGEABLE"]})) == {"trail-headlamp"}
        assert await found(services, "head lamp", colors=["red"], options={"battery": ["rechargeable"]}) == {}
        assert await found(services, "head lamp", options={"Battery": ["rechargeable"]}, in_stock=True) == {}
        # The price filter judges the variation the other filters chose: AAA costs 34, the USB one 44.
        assert await found(services, "head lamp", options={"Battery": ["AAA"]}, min_price=Decimal("40")) == {}
        usb = await found(services, "head lamp", options={"Battery": ["rechargeable"]}, min_price=Decimal("40"))
        assert (usb["trail-headlamp"]["effectivePrice"], usb["trail-headlamp"]["price"]) == ("44.00", "49.00")
        # A price range alone: the product is found by its variation that is within it.
        cheap = await found(services, "gas cartridge", max_price=Decimal("6"))
        assert cheap["camping-gas"]["effectivePrice"] == "5.90" and cheap["camping-gas"]["priceFrom"] is True
        assert await found(services, "gas cartridge", min_price=Decimal("6"), max_price=Decimal("8")) == {}
        # Specs: the product's, and a variation's own over them, on the variation the others chose.
        assert set(await found(services, "lamp", specs={"lumens": {"min": 900}})) == {"trail-headlamp"}
        assert await found(services, "lamp", specs={"lumens": {"min": 900}}, colors=["red"]) == {}
        long_burn = await found(services, "gas", specs={"burn_time_min": {"min": 100}}, max_price=Decimal("6"))
        assert long_burn == {}  # 170 minutes is the 450 g cartridge, at 8.90
        assert set(await found(services, "lamp", specs={"waterproof_rating": {"equals": "ipx4"}})) == {"trail-headlamp"}
        with pytest.raises(ValidationError, match=r"filters.specs.lumens: min 900 is greater than max 100"):
            services.search.request("lamp", specs={"lumens": {"min": 900, "max": 100}})
        # Option values and specs are words of the full-text document (and of an embedded chunk).
        by_words = await services.search.search(services.search.request("rechargeable 1000 lumens", 5), LEXICAL_ONLY)
        assert [p.slug for p in by_words.products] == ["trail-headlamp"]
        # Hits say what else is in stock, and link to the product (given, or from the template).
        lamp_hit = (await found(services, "head lamp"))["trail-headlamp"]
        assert lamp_hit["availableOptions"] == {"Battery": ["AAA"]} and lamp_hit["url"].endswith("/trail-headlamp")
        assert (await found(services, "gas"))["camping-gas"]["url"] == "https://shop.example/p/camping-gas"


def mower() -> ProductInput:
    """One variation, its own price on sale: no price on the product."""
    return ProductInput(
        slug="electric-mower", name="Electric Lawn Mower", category="Lawn care", description="A corded mower.",
        variations=[VariationInput(price=Decimal("119.00"), discount_price=Decimal("99.00"), quantity=5)],
    )  # fmt: skip


async def test_a_sale_price_set_on_the_variations_alone_is_the_hits_price(database):
    """A mower sold at 99 instead of 119 by its one variation was shown at 119 with no discount: its
    variations' prices did not differ from each other, so the hit took the product's own."""
    async with open_services(gear_settings(database), INDEXER_ACTORS | {"mcp"}, embedder=HashEmbedder()) as services:
        await indexed(services, mower())
        hit = (await found(services, "lawn mower"))["electric-mower"]
        under = await found(services, "lawn mower", max_price=Decimal("100"))
    assert (hit["effectivePrice"], hit["discountedPrice"], hit["price"], hit["priceFrom"]) == (
        "99.00", "99.00", "119.00", False,
    )  # fmt: skip
    assert set(under) == {"electric-mower"}


async def test_the_mcp_tools_describe_the_shops_own_vocabulary_and_return_prices_specs_and_links(database):
    async with open_services(gear_settings(database), INDEXER_ACTORS | {"mcp"}, embedder=HashEmbedder()) as services:
        ids = await indexed(services, lamp(), gas())
        async with Client(services.mcp_server) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            details = await client.call_tool("get-product-full-details", {"productId": ids["camping-gas"]})
            search = await client.call_tool(
                "product-semantic-search",
                {"query": "gas", "filters": {"options": {"Weight": ["450 g"]}, "specs": {"burn_time_min": {"min": 1}}}},
            )
    described = tools["product-semantic-search"]
    filters = described.input_schema["properties"]["filters"]["properties"]
    assert filters["sizes"]["items"]["enum"] == ["S", "M"] and "EU numbers" not in json.dumps(described.input_schema)
    assert "clothing" not in described.description and "boots" not in described.description
    gas_details = details.structured_content
    assert gas_details["url"] == "https://shop.example/p/camping-gas"
    assert [(v["options"], v["effectivePrice"], v["url"]) for v in gas_details["variations"]] == [
        ({"Weight": "230 g"}, "5.90", "https://shop.example/?add-to-cart=501&variation_id=5011"),
        ({"Weight": "450 g"}, "8.90", "https://shop.example/?add-to-cart=501&variation_id=5012"),
    ]  # fmt: skip
    (hit,) = search.structured_content["products"]
    assert (hit["slug"], hit["effectivePrice"], hit["discountedPrice"], hit["price"]) == (
        "camping-gas", "8.90", "8.90", "9.90",
    )  # fmt: skip


async def test_the_offline_assistant_quotes_a_variations_price_a_spec_and_a_link_to_buy(database):
    from tests.test_concierge_chat import chat_with

    async with open_services(gear_settings(database), INDEXER_ACTORS | {"mcp"}, embedder=HashEmbedder()) as services:
        await indexed(services, lamp(), gas())
        async with chat_with(services) as shoppers:
            customer = shoppers()
            listed = await customer.say("camping gas cartridge")
            assert "Camping Gas Cartridge - from €5.90" in listed.answer, listed.answer
            assert "Weight 230 g, 450 g" in listed.answer, listed.answer
            assert "size or colour" not in listed.answer  # it has neither
            price = await customer.say("how much is the 450g one?")
            assert "€8.90 (was €9.90" in price.answer and "5.90" not in price.answer, price.answer
            buy = await customer.say("ok, I'll take the 230 g one")
            assert "https://shop.example/?add-to-cart=501&variation_id=5011" in buy.answer, buy.answer
            lamp_list = await customer.say("a head lamp")
            assert "Trail Headlamp" in lamp_list.answer, lamp_list.answer
            bright = await customer.say("how bright is it?")
            assert "800 lumens" in bright.answer, bright.answer


@pytest.mark.parametrize(
    ("name", "value", "units", "read"),
    [
        ("plants", 6, {}, "6 plants"),  # a count of things reads as one says it
        ("sticks_per_pack", 28, {}, "28 sticks per pack"),
        ("lead_attachments", 2, {}, "lead attachments 2"),  # a count of things only when said first
        ("feed_weeks", 6, {}, "feed 6 weeks"),  # a unit of time said after the figure too
        ("min_age_weeks", 8, {}, "min age 8 weeks"),
        ("filter_flow_lph", 300, {"filter_flow_lph": "l/h"}, "filter flow 300 l/h"),  # the unit set, once
        ("lumens", 800, {}, "800 lumens"),
        ("capacity", 1000, {"capacity": "ml"}, "capacity 1000 ml"),  # a measure keeps its name first
        ("blade_length_cm", 20, {}, "blade length 20 cm"),
        ("lawn_area_m2", 400, {"lawn_area_m2": "m²"}, "lawn area 400 m²"),  # the unit's name once (was "m2 400 m²")
        ("lawn_area_m2", 400, {}, "lawn area 400 m²"),
        ("fill_power", 700, {}, "fill power 700"),
        ("grass", 1, {}, "grass 1"),
        ("lens", 3, {}, "lens 3"),  # words ending in "s" that are no plurals
        ("canvas", 2, {}, "canvas 2"),
        ("series_number", 3, {}, "series number 3"),
        ("dishwasher_safe", True, {}, "dishwasher safe: yes"),
        ("ratio", 1.5, {}, "ratio 1.5"),
        ("age_min_years", 1.5, {}, "age min 1.5 years (18 months)"),  # a part of a year, in months too
        ("age_min_years", 3, {}, "age min 3 years"),
    ],
)
def test_a_spec_reads_as_a_shopper_would_say_it(name, value, units, read):
    from shopagent.domain.options import spec_label

    assert spec_label(name, value, units) == read
