"""`shopagent catalog import`: files with bad records load the rest and report the bad ones."""

from __future__ import annotations

import csv
import io
import json
from decimal import Decimal
from pathlib import Path

import asyncpg
import msgspec
import pytest

from shopagent.adapters.postgres.vector_index import vector_index_name
from shopagent.application.catalog import ImportNote, import_products
from shopagent.domain.catalog import ProductInput
from shopagent.domain.errors import ValidationError
from shopagent.entrypoints.catalog_files import read_catalog_file
from shopagent.entrypoints.shop_exports import html_to_text
from shopagent.settings import Settings
from shopagent.wiring.providers import option_words
from tests.factories import product_input
from tests.helpers import shopagent

pytestmark = pytest.mark.anyio

CSV = """\
slug,name,category,price,discount_price,description,brand,material,images,color,size,quantity,reserved,weight_grams
trail-runner,Trail Runner,Sneakers,89.90,,A light shoe for forest paths.,Pacer,mesh,https://img.example.com/a.jpg|https://img.example.com/b.jpg,black,42,5,0,300
trail-runner,,,,,,,,,black,43,2,1,310
trail-runner,,,,,,,,,red,42,0,0,300
trail-runner,,,,,,,,,turquoise,44,1,0,300
bad-size,Bad Size Boot,Boots,120.00,,,,,,black,XXXXL,1,0,
clash,Clash Tee,Shirts & tops,19.90,,,,,,white,M,3,0,
clash,Clash Tee Two,,,,,,,,white,L,3,0,
,Orphan,Boots,1.00,,,,,,black,42,1,0,
cheap,Cheap Scarf,Accessories,abc,,,,,,grey,ONE SIZE,4,0,
"""


WORDS = option_words(Settings())  # the default catalog: its colours, sizes and their names in other languages
IMPORTS = Path(__file__).parent / "data" / "imports"


def as_json(**changes) -> dict:
    return msgspec.to_builtins(product_input(**changes))


def test_csv_rows_form_products_and_bad_rows_are_explained(tmp_path: Path):
    path = tmp_path / "catalog.csv"
    path.write_text(CSV)
    parsed = dict(read_catalog_file(path, words=WORDS))
    runner = parsed["row 2 (slug 'trail-runner')"]
    assert not isinstance(runner, ValidationError)
    assert [(v.color, v.size, v.quantity) for v in runner.variations] == [("black", "42", 5), ("black", "43", 2),
                                                                          ("red", "42", 0)]  # fmt: skip
    assert runner.images == ["https://img.example.com/a.jpg", "https://img.example.com/b.jpg"]
    assert str(parsed["row 7 (slug 'clash')"]) == "row 8: name differs from row 7"
    assert str(parsed["row 9"]) == "slug is empty"
    assert "price: must be a decimal number" in str(parsed["row 10 (slug 'cheap')"])
    assert str(parsed["row 5 (slug 'trail-runner')"]).startswith("colour 'turquoise' is not one of black, white,")
    assert str(parsed["row 6 (slug 'bad-size')"]).startswith("size 'XXXXL' is not one of XS, S, M,")


# As a spreadsheet in a German locale saves it: semicolons, decimal commas, a byte order mark,
# a quoted description holding the separator, and columns of the shop's own.
SPREADSHEET_CSV = (
    "\ufeffSKU;Slug;Name;Category;Price;Discount_Price;Description;Color;Size;Quantity;EAN\n"
    'WB-1;winter-boot;Winterstiefel;Boots;1.249,90;999,00;"Warm; wasserdicht";black;42;3;4006381333931\n'
    "WB-2;winter-boot;;;;;;black;43;1;4006381333948\n"
    "SC-1;scarf;Schal;Accessories;19,95;;;grey;ONE SIZE;7;\n"
)


def test_a_spreadsheet_csv_with_semicolons_decimal_commas_and_extra_columns_is_read(tmp_path: Path, caplog):
    path = tmp_path / "export.csv"
    path.write_bytes(SPREADSHEET_CSV.encode())
    with caplog.at_level("WARNING", logger="shopagent.catalog"):
        parsed = dict(read_catalog_file(path))
    boot, scarf = parsed["row 2 (slug 'winter-boot')"], parsed["row 4 (slug 'scarf')"]
    assert not isinstance(boot, ValidationError) and not isinstance(scarf, ValidationError), parsed
    assert (str(boot.price), str(boot.discount_price), str(scarf.price)) == ("1249.90", "999.00", "19.95")
    assert boot.description == "Warm; wasserdicht"
    assert [(v.size, v.quantity, v.sku) for v in boot.variations] == [("42", 3, "WB-1"), ("43", 1, "WB-2")]
    assert [r.getMessage() for r in caplog.records] == ["ignoring the CSV column(s) shopagent does not use: ean"]


def test_a_tab_separated_file_is_read_and_a_header_it_cannot_use_says_how_it_was_read(tmp_path: Path):
    path = tmp_path / "tabs.csv"
    path.write_text(CSV.replace(",", "\t"))
    assert not isinstance(dict(read_catalog_file(path))["row 2 (slug 'trail-runner')"], ValidationError)
    path.write_text("slug;name\nx;y\n")
    with pytest.raises(ValidationError, match=r"lacks the column\(s\) category, quantity "
                                               r"\(read as separated by semicolons\)"):  # fmt: skip
        read_catalog_file(path)


def test_a_json_file_must_hold_an_array(tmp_path: Path):
    path = tmp_path / "catalog.json"
    path.write_text('{"slug": "x"}')
    with pytest.raises(ValidationError, match="must be an array"):
        read_catalog_file(path)


async def test_importing_upserts_by_slug_and_counts_what_happened(services, tmp_path: Path):
    path = tmp_path / "catalog.jsonl"
    lines = [as_json(slug="boot-a"), as_json(slug="boot-b"), {"slug": "broken", "name": 3}]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\nnot json\n")
    first = await import_products(services.catalog, read_catalog_file(path))
    assert (first.created, first.updated, first.unchanged) == (2, 0, 0)
    assert [where for where, _ in first.rejected] == ["line 3 (slug 'broken')", "line 4"]

    lines[1] = as_json(slug="boot-b", name="Boot B, renamed")
    path.write_text("\n".join(json.dumps(line) for line in lines[:2]) + "\n")
    second = await import_products(services.catalog, read_catalog_file(path))
    assert (second.created, second.updated, second.unchanged, second.rejected) == (0, 1, 1, [])
    assert (await services.catalog.repository.get_by_slug("boot-b")).name == "Boot B, renamed"


@pytest.mark.process
async def test_the_import_command_loads_good_rows_reports_bad_ones_and_exits_1(database, tmp_path: Path):
    path = tmp_path / "catalog.csv"
    path.write_text(CSV)
    env = {"SHOPAGENT_DATABASE_URL": database, "SHOPAGENT_EMBEDDING__MODEL": "hash"}
    async with shopagent("catalog", "import", str(path), env=env) as proc:
        assert await proc.wait_exit() == 1
    out = proc.stdout
    # A row whose colour or size the catalog lacks is rejected alone; its product keeps the others.
    assert "catalog.csv: 1 created, 0 updated, 0 unchanged, 5 rejected" in out
    assert "rejected row 5 (slug 'trail-runner'): colour 'turquoise' is not one of black, white, grey," in out
    assert "rejected row 6 (slug 'bad-size'): size 'XXXXL' is not one of XS, S, M," in out
    assert "rejected row 7 (slug 'clash'): row 8: name differs from row 7" in out


@pytest.mark.process
async def test_index_commands_report_rebuild_and_retry(database, tmp_path: Path):
    env = {"SHOPAGENT_DATABASE_URL": database, "SHOPAGENT_EMBEDDING__MODEL": "hash"}
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps([as_json(slug=f"boot-{n}") for n in range(5)]))
    async with shopagent("catalog", "import", str(path), env=env) as proc:
        assert await proc.wait_exit() == 0
    async with shopagent("index", "status", env=env) as proc:
        assert await proc.wait_exit() == 0
    assert "products  0 indexed of 5" in proc.stdout
    assert "events    5 pending, 0 in flight, 0 dead-lettered" in proc.stdout
    async with shopagent("index", "rebuild", env=env) as proc:
        assert await proc.wait_exit(60) == 0
    assert "products  5 indexed of 5" in proc.stdout
    assert "events    0 pending" in proc.stdout
    assert "vector index  ready" in proc.stdout
    assert "full text  5 of 5 products in english" in proc.stdout
    # Another text search configuration shows until a rebuild rewrites the documents.
    german = env | {"SHOPAGENT_SEARCH__TEXT_SEARCH_CONFIG": "german"}
    async with shopagent("index", "status", env=german) as proc:
        assert await proc.wait_exit() == 0
    assert "full text  0 of 5 products in german; 5 in english (`shopagent index rebuild` rewrites them)" in proc.stdout
    async with shopagent("index", "rebuild", env=german) as proc:
        assert await proc.wait_exit(60) == 0
    assert "full text  5 of 5 products in german" in proc.stdout
    # A changed HNSW setting applies when rebuilding.
    async with shopagent("index", "rebuild", env=env | {"SHOPAGENT_SEARCH__HNSW_M": "6"}) as proc:
        assert await proc.wait_exit(60) == 0
    assert "vector index  ready" in proc.stdout
    conn = await asyncpg.connect(database)
    try:
        definition = await conn.fetchval("SELECT pg_get_indexdef(to_regclass($1))", vector_index_name("hash-384"))
    finally:
        await conn.close()
    assert "m='6'" in definition
    async with shopagent("index", "retry-failed", env=env) as proc:
        assert await proc.wait_exit() == 0
    assert "0 dead-lettered event(s) queued again" in proc.stdout


def parsed_export(name: str, **options) -> tuple[dict[str, ProductInput], dict[str, str], dict[str, list[str]]]:
    """(products by slug, rejections by where, notes by where) of one of the sample exports."""
    products, rejected, notes = {}, {}, {}
    for where, item in read_catalog_file(options.pop("path", IMPORTS / name), words=WORDS, **options):
        if isinstance(item, ImportNote):
            notes.setdefault(where, []).append(item.text)
        elif isinstance(item, ValidationError):
            rejected[where] = str(item)
        else:
            products[item.slug] = item
    return products, rejected, notes


def variations(product: ProductInput) -> list[tuple[str, str, int, int | None]]:
    return [(v.color, v.size, v.quantity, v.weight_grams) for v in product.variations]


def test_a_shopify_export_becomes_products_with_variations_prices_and_text(caplog):
    with caplog.at_level("WARNING", logger="shopagent.catalog"):
        products, rejected, notes = parsed_export("shopify_products_export.csv")
    assert caplog.records == []  # every column of the export is known, used or not
    sweater = products["merino-crew-sweater"]
    # Variant Price 79.90 under a Compare At Price of 99.00: a discount, to the cent.
    assert (sweater.price, sweater.discount_price) == (Decimal("99.00"), Decimal("79.90"))
    assert (sweater.name, sweater.brand, sweater.category) == ("Merino Crew Sweater", "Nordwolle", "Sweaters")
    # an oversold variant (-1) has none to sell
    assert variations(sweater) == [("navy", "S", 4, 380), ("navy", "M", 0, 380), ("navy", "L", 2, 380),
                                   ("burgundy", "M", 0, 380)]  # fmt: skip
    assert sweater.description == (
        "A warm crew-neck sweater knitted from 100% merino wool \u2013 soft, breathable and easy to layer.\n"
        "- Ribbed cuffs & hem\n- Machine washable at 30 °C"
    )
    # images in their Image Position order (the continuation row's too), then the variant's image
    assert [sweater.main_image, *sweater.images] == [
        "https://cdn.shopify.example/sweater-navy.jpg", "https://cdn.shopify.example/sweater-back.jpg",
        "https://cdn.shopify.example/sweater-detail.jpg", "https://cdn.shopify.example/sweater-burgundy.jpg",
    ]  # fmt: skip
    # No options ("Title" / "Default Title"): no size, in the colour its title names.
    tote = products["black-canvas-tote"]
    assert variations(tote) == [("black", "", 12, None)] and tote.discount_price is None
    # German option names and values; a colour the catalog lacks rejects that row only.
    hat = products["strickmuetze"]
    assert variations(hat) == [("black", "ONE SIZE", 7, 90), ("grey", "ONE SIZE", 3, 90)]
    assert hat.price == Decimal("19.99")
    assert rejected["row 10 (handle 'strickmuetze')"].startswith("colour 'Senfgelb' is not one of black, white, grey,")
    # An unknown size likewise; variants with different prices keep their own.
    sneaker = products["trail-sneaker"]
    assert variations(sneaker) == [("black", "42", 3, 610), ("black", "46", 2, 610)]
    assert [(v.price, v.sku) for v in sneaker.variations] == [
        (Decimal("119.00"), "TS-42"), (Decimal("129.00"), "TS-46"),
    ]  # fmt: skip
    assert sneaker.price is None and "row 11 (handle 'trail-sneaker')" not in notes
    assert rejected["row 12 (handle 'trail-sneaker')"].startswith("size '44.5' is not one of XS, S, M, L,")
    # "Medium"/"Large" are M/L; a third option is kept as the product's own (Material: Linen or Cotton).
    shirt = products["summer-shirt"]
    assert variations(shirt) == [("white", "M", 6, None), ("white", "M", 4, None), ("white", "L", 2, None)]
    assert shirt.options == ["Material"] and shirt.material == ""
    assert [(v.options, v.price) for v in shirt.variations] == [
        ({"Material": "Linen"}, Decimal("49.00")), ({"Material": "Cotton"}, Decimal("39.00")),
        ({"Material": "Linen"}, Decimal("49.00")),
    ]  # fmt: skip
    # A product without colour or size: its option Weight tells the cartridges apart, each at its price
    # (the bigger one discounted); metafields become specs, the variants' their own.
    gas = products["camping-gas"]
    assert gas.options == ["Weight"] and variations(gas) == [("", "", 40, 380), ("", "", 12, 650)]
    assert [(v.options, v.price, v.discount_price, v.specs) for v in gas.variations] == [
        ({"Weight": "230 g"}, Decimal("5.90"), None, {"burn_time_min": 85}),
        ({"Weight": "450 g"}, Decimal("9.90"), Decimal("8.90"), {"burn_time_min": 170}),
    ]  # fmt: skip
    lamp = products["trail-headlamp"]
    assert lamp.specs == {"lumens": 800} and lamp.options == ["Battery"]
    assert [(v.color, v.options["Battery"], v.price) for v in lamp.variations] == [
        ("black", "AAA", Decimal("34.00")), ("black", "Rechargeable", Decimal("49.00")),
    ]  # fmt: skip
    assert notes["row 21 (handle 'parka-preview')"] == ["skipped: its status is draft (active products are imported)"]
    assert notes["row 22 (handle 'gift-card')"] == ["skipped: a gift card"]
    assert set(products) == {"merino-crew-sweater", "black-canvas-tote", "strickmuetze", "trail-sneaker",
                             "summer-shirt", "camping-gas", "trail-headlamp"}  # fmt: skip
    assert len(rejected) == 2


def test_the_current_shopify_column_names_are_read_too():
    products, rejected, notes = parsed_export("shopify_products_export_current.csv")
    jacket = products["rain-jacket"]
    assert (jacket.price, jacket.discount_price, jacket.category) == (Decimal("89.95"), None, "Coats & Jackets")
    assert variations(jacket) == [("olive", "M", 5, 450), ("olive", "L", 0, 470)]
    assert jacket.description == "Waterproof, taped seams.\nPacks into its pocket."
    assert (rejected, notes) == ({}, {})


def test_a_shopify_export_saved_again_by_a_german_spreadsheet_reads_the_same(tmp_path: Path):
    """Semicolons, decimal commas, a byte order mark: the same products, to the cent."""
    original = (IMPORTS / "shopify_products_export.csv").read_text()
    rows = list(csv.reader(io.StringIO(original)))
    prices = {rows[0].index("Variant Price"), rows[0].index("Variant Compare At Price")}
    for row in rows[1:]:
        for column in prices:
            row[column] = row[column].replace(".", ",")
    out = io.StringIO()
    csv.writer(out, delimiter=";").writerows(rows)
    path = tmp_path / "export.csv"
    path.write_bytes(("\ufeff" + out.getvalue()).encode())
    assert ";79,90;99,00;" in path.read_text()
    assert parsed_export("", path=path) == parsed_export("shopify_products_export.csv")


def test_a_woocommerce_export_becomes_products_from_variable_simple_and_variation_rows():
    products, rejected, notes = parsed_export("woocommerce_products_export.csv")
    hoodie = products["hoodie"]
    # each variation's prices: Sale price 42 under a Regular price of 45; 48.50 for the green one
    assert [(v.price, v.discount_price) for v in hoodie.variations] == [
        (Decimal("45"), Decimal("42")), (Decimal("45"), Decimal("42")), (Decimal("48.50"), None),
    ]  # fmt: skip
    assert [(v.sku, v.external_id) for v in hoodie.variations] == [
        ("woo-hoodie-blue-m", "102"), ("woo-hoodie-red-l", "103"), ("woo-hoodie-green-s", "105"),
    ]  # fmt: skip
    assert hoodie.external_id == "101"
    assert (hoodie.category, hoodie.brand) == ("Hoodies", "Woo Basics")  # the first category's last level
    assert variations(hoodie) == [("blue", "M", 10, 550), ("red", "L", 3, 550), ("green", "S", 2, 500)]
    assert hoodie.description == (
        "Our cosiest hoodie.\n\nBrushed organic cotton fleece with a kangaroo pocket.\n"
        "Pre-washed, so it keeps its shape."
    )
    assert [hoodie.main_image, *hoodie.images] == [
        "https://woo.example/wp-content/uploads/hoodie-1.jpg", "https://woo.example/wp-content/uploads/hoodie-2.jpg",
        "https://woo.example/wp-content/uploads/hoodie-blue.jpg",
    ]  # fmt: skip
    assert rejected["row 5 (SKU 'woo-hoodie-turquoise-m')"].startswith("colour 'Turquoise' is not one of black,")
    assert "row 2 (SKU 'woo-hoodie')" not in notes
    belt = products["leather-belt"]  # no stock count (stock not managed): said, not guessed
    assert variations(belt) == [("brown", "", 0, 250)] and belt.material == "Leather"
    assert notes["row 7 (SKU 'woo-belt')"] == [
        "1 variant(s) have no stock count; imported with quantity 0 (not available)"
    ]
    socks = products["wollsocken-3er-pack"]  # German attribute names and values, an escaped comma
    assert (socks.price, socks.discount_price, socks.category) == (Decimal("12.5"), Decimal("9.99"), "Socken, Strümpfe")
    assert variations(socks) == [("grey", "ONE SIZE", 25, 120)]
    assert notes["row 8 (SKU 'woo-scarf-draft')"] == ["skipped: it is a draft (published products are imported)"]
    assert notes["row 9 (SKU 'woo-set')"] == ["skipped: a grouped product (not sold here)"]
    assert notes["row 10 (SKU 'woo-partner-boot')"] == ["skipped: an external product (not sold here)"]
    # A third attribute that varies is the product's option; one with a single value a spec.
    light = products["bike-light"]
    assert light.options == ["Battery"] and light.specs == {"Lumens": 800} and light.external_id == "170"
    assert [(v.options, v.price, v.discount_price, v.sku) for v in light.variations] == [
        ({"Battery": "AAA"}, Decimal("29.00"), None, "woo-bike-light-aaa"),
        ({"Battery": "USB rechargeable"}, Decimal("44.00"), Decimal("39.00"), "woo-bike-light-usb"),
    ]  # fmt: skip
    assert rejected["row 15"] == "a variation whose Parent 'id:999' is not in the file"
    assert set(products) == {"hoodie", "leather-belt", "wollsocken-3er-pack", "bike-light"} and len(rejected) == 2


def test_html_descriptions_become_text():
    html = "<h2>Care</h2><p>Wash&nbsp;at 30&deg;C.<br/>Do <em>not</em> tumble dry.</p><script>track()</script>"
    html += "<ul><li>A</li></ul>"
    assert html_to_text(html) == "Care\nWash at 30°C.\nDo not tumble dry.\n- A"
    assert html_to_text("plain   text\nover lines") == "plain text over lines"


def test_a_chosen_format_the_header_does_not_fit_is_one_clear_error():
    with pytest.raises(ValidationError, match=r"^the Shopify export header lacks the column\(s\) handle or url handle"):
        read_catalog_file(IMPORTS / "woocommerce_products_export.csv", format="shopify")
    with pytest.raises(ValidationError, match=r"^the WooCommerce export header lacks the column\(s\) "):
        read_catalog_file(IMPORTS / "shopify_products_export.csv", format="woocommerce")


@pytest.mark.process
async def test_importing_a_shopify_export_stores_what_it_says_and_reports_the_rest(database, tmp_path: Path):
    env = {"SHOPAGENT_DATABASE_URL": database, "SHOPAGENT_EMBEDDING__MODEL": "hash"}
    path = IMPORTS / "shopify_products_export.csv"
    async with shopagent("catalog", "import", str(path), env=env) as proc:
        assert await proc.wait_exit() == 1  # rows were rejected
    out = proc.stdout
    assert "shopify_products_export.csv: 7 created, 0 updated, 0 unchanged, 2 rejected, 2 note(s)" in out
    assert "  rejected row 10 (handle 'strickmuetze'): colour 'Senfgelb' is not one of" in out
    assert "  note row 21 (handle 'parka-preview'): skipped: its status is draft" in out
    conn = await asyncpg.connect(database)
    try:
        rows = await conn.fetch("SELECT slug, price, discount_price FROM product ORDER BY slug")
        stock = await conn.fetch(
            "SELECT color, size, quantity FROM product_variation v JOIN product p ON p.id = v.product_id "
            "WHERE p.slug = 'strickmuetze' ORDER BY color"
        )
        gas = await conn.fetch(
            "SELECT v.options, v.sku, v.price, v.discount_price, v.paid_price, v.specs FROM product_variation v "
            "JOIN product p ON p.id = v.product_id WHERE p.slug = 'camping-gas' ORDER BY v.paid_price"
        )
    finally:
        await conn.close()
    # A product whose variants differ in price is stored at its lowest; each variant keeps its own.
    assert [(r["slug"], str(r["price"]), str(r["discount_price"])) for r in rows] == [
        ("black-canvas-tote", "24.50", "None"), ("camping-gas", "5.90", "None"),
        ("merino-crew-sweater", "99.00", "79.90"), ("strickmuetze", "19.99", "None"), ("summer-shirt", "39.00", "None"),
        ("trail-headlamp", "34.00", "None"), ("trail-sneaker", "119.00", "None"),
    ]  # fmt: skip
    assert [tuple(r) for r in stock] == [("black", "ONE SIZE", 7), ("grey", "ONE SIZE", 3)]
    assert [(json.loads(r["options"]), r["sku"], str(r["price"]), str(r["discount_price"]), str(r["paid_price"]),
             json.loads(r["specs"])) for r in gas] == [
        ({"Weight": "230 g"}, "GAS-230", "5.90", "None", "5.90", {"burn_time_min": 85}),
        ({"Weight": "450 g"}, "GAS-450", "9.90", "8.90", "8.90", {"burn_time_min": 170}),
    ]  # fmt: skip
    # The same file again changes nothing.
    async with shopagent("catalog", "import", str(path), env=env) as proc:
        assert await proc.wait_exit() == 1
    assert "7 unchanged" in proc.stdout


ARABIC_INDIC_89_90 = "\u0668\u0669.\u0669\u0660"


def test_a_price_in_other_digits_is_refused_in_every_file_format(tmp_path: Path):
    native = tmp_path / "catalog.csv"
    native.write_text(CSV.replace("89.90", ARABIC_INDIC_89_90))
    assert "price: must be a decimal number written with the digits 0-9" in str(
        dict(read_catalog_file(native, words=WORDS))["row 2 (slug 'trail-runner')"]
    )
    as_file = tmp_path / "catalog.json"
    as_file.write_text(json.dumps([{**as_json(), "price": ARABIC_INDIC_89_90}]))
    [(_, refused)] = read_catalog_file(as_file, words=WORDS)
    assert "price: must be a decimal number written with the digits 0-9" in str(refused)

    original = (IMPORTS / "shopify_products_export.csv").read_text()
    assert ",79.90," in original
    export = tmp_path / "export.csv"
    export.write_text(original.replace(",79.90,", f",{ARABIC_INDIC_89_90},"))
    _, rejected, _ = parsed_export("", path=export)
    assert f"the Variant Price {ARABIC_INDIC_89_90!r} is not a number" in " ".join(rejected.values())
