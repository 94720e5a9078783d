"""`shopagent catalog import`: files with bad records load the rest and report the bad ones."""

from __future__ import annotations

import json
from pathlib import Path

import asyncpg
import msgspec
import pytest

from shopagent.adapters.postgres.index_store import vector_index_name
from shopagent.application.catalog import import_products
from shopagent.domain.errors import ValidationError
from shopagent.entrypoints.catalog_files import read_catalog_file
from tests.factories import product_input
from tests.helpers import shopagent

pytestmark = pytest.mark.anyio

CSV = """\
slug,name,category,price,discount_price,description,brand,material,images,color,size,quantity,reserved,weight_grams
trail-runner,Trail Runner,Sneakers,89.90,,A light shoe for forest paths.,Pacer,mesh,https://img.example.com/a.jpg|https://img.example.com/b.jpg,black,42,5,0,300
trail-runner,,,,,,,,,black,43,2,1,310
trail-runner,,,,,,,,,red,42,0,0,300
bad-size,Bad Size Boot,Boots,120.00,,,,,,black,XXXXL,1,0,
clash,Clash Tee,Shirts & tops,19.90,,,,,,white,M,3,0,
clash,Clash Tee Two,,,,,,,,white,L,3,0,
,Orphan,Boots,1.00,,,,,,black,42,1,0,
cheap,Cheap Scarf,Accessories,abc,,,,,,grey,ONE SIZE,4,0,
"""


def as_json(**changes) -> dict:
    return msgspec.to_builtins(product_input(**changes))


def test_csv_rows_form_products_and_bad_rows_are_explained(tmp_path: Path):
    path = tmp_path / "catalog.csv"
    path.write_text(CSV)
    parsed = dict(read_catalog_file(path))
    runner = parsed["row 2 (slug 'trail-runner')"]
    assert not isinstance(runner, ValidationError)
    assert [(v.color, v.size, v.quantity) for v in runner.variations] == [("black", "42", 5), ("black", "43", 2),
                                                                          ("red", "42", 0)]  # fmt: skip
    assert runner.images == ["https://img.example.com/a.jpg", "https://img.example.com/b.jpg"]
    assert str(parsed["row 6 (slug 'clash')"]) == "row 7: name differs from row 6"
    assert str(parsed["row 8"]) == "slug is empty"
    assert "price: Invalid decimal" in str(parsed["row 9 (slug 'cheap')"])


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
    assert [(v.size, v.quantity) for v in boot.variations] == [("42", 3), ("43", 1)]
    assert [r.getMessage() for r in caplog.records] == ["ignoring the CSV column(s) shopagent does not use: ean, sku"]


def test_a_tab_separated_file_is_read_and_a_header_it_cannot_use_says_how_it_was_read(tmp_path: Path):
    path = tmp_path / "tabs.csv"
    path.write_text(CSV.replace(",", "\t"))
    assert not isinstance(dict(read_catalog_file(path))["row 2 (slug 'trail-runner')"], ValidationError)
    path.write_text("slug;name\nx;y\n")
    with pytest.raises(ValidationError, match=r"lacks the column\(s\) category, color, price, quantity, size "
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


async def test_the_import_command_loads_good_rows_reports_bad_ones_and_exits_1(database, tmp_path: Path):
    path = tmp_path / "catalog.csv"
    path.write_text(CSV)
    env = {"SHOPAGENT_DATABASE_URL": database, "SHOPAGENT_EMBEDDING__MODEL": "hash"}
    async with shopagent("catalog", "import", str(path), env=env) as proc:
        assert await proc.wait_exit() == 1
    out = proc.stdout
    assert "catalog.csv: 1 created, 0 updated, 0 unchanged, 4 rejected" in out
    assert "rejected row 5 (slug 'bad-size'): variation 1: size 'XXXXL' is not one of" in out
    assert "rejected row 6 (slug 'clash'): row 7: name differs from row 6" in out


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
