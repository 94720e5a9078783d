"""CSV imports stream: rows are read as the products are taken, a product is given as its rows
end, memory does not grow with the file, and rows of one product found apart are refused by
row, never split into two products."""

from __future__ import annotations

import csv
import random
from pathlib import Path

import pytest

from shopagent.domain.catalog import ProductInput
from shopagent.domain.errors import ValidationError
from shopagent.entrypoints.catalog_files import open_catalog_stream, read_catalog_file
from shopagent.entrypoints.seen_keys import SeenKeys
from tests.test_import_streaming import _import

OWN_HEADER = ["slug", "name", "category", "price", "description", "color", "size", "quantity"]
APART = "its product's rows ended further up; the rows of one product must follow one another"


def write_own_csv(path: Path, products: int, encoding: str = "utf-8") -> None:
    """`products` products of two rows each, written a row at a time."""
    with path.open("w", newline="", encoding=encoding) as out:
        writer = csv.writer(out)
        writer.writerow(OWN_HEADER)
        for n in range(products):
            text = f"Soft and warm, made to last. Product {n}. " * 8
            writer.writerow([f"streamed-{n}", f"Streamed Product {n}", "Knitwear", "19.90", text, "black", "M", 3])
            writer.writerow([f"streamed-{n}", "", "", "", "", "grey", "L", 1])


def parsed(path: Path) -> dict[str, ProductInput | ValidationError]:
    return {where: item for where, item in read_catalog_file(path) if not isinstance(item, str)}  # type: ignore[misc]


@pytest.mark.unit
def test_a_products_rows_found_apart_are_refused_by_row_not_split(tmp_path: Path):
    path = tmp_path / "catalog.csv"
    path.write_text(
        "slug,name,category,price,color,size,quantity\n"
        "cap,Cap,Hats,10,black,M,1\n"
        "cap,,,,grey,M,1\n"
        "scarf,Scarf,Scarves,12,black,M,1\n"
        "cap,,,,white,L,1\n"
    )
    records = parsed(path)
    assert [(v.color, v.size) for v in records["row 2 (slug 'cap')"].variations] == [("black", "M"), ("grey", "M")]
    assert str(records["row 5 (slug 'cap')"]) == APART
    assert isinstance(records["row 4 (slug 'scarf')"], ProductInput) and len(records) == 3


@pytest.mark.unit
def test_a_shopify_handle_whose_rows_are_apart_is_refused_by_row(tmp_path: Path):
    path = tmp_path / "products_export.csv"
    path.write_text(
        "Handle,Title,Type,Variant Price,Option1 Name,Option1 Value,Variant Inventory Qty\n"
        "cap,Cap,Hats,10,Size,M,1\n"
        "scarf,Scarf,Scarves,12,Size,M,1\n"
        "cap,,,10,,L,1\n"
    )
    records = parsed(path)
    assert str(records["row 4 (handle 'cap')"]) == APART
    assert [v.size for v in records["row 2 (handle 'cap')"].variations] == ["M"]


@pytest.mark.unit
def test_a_woocommerce_variation_joins_its_product_within_a_hundred_products_and_is_refused_past_them(
    tmp_path: Path,
):
    header = "ID,Type,SKU,Name,Parent,Categories,Regular price,Stock,Attribute 1 name,Attribute 1 value(s)\n"
    rows = ['1,variable,hoodie,Hoodie,,Hoodies,,,Size,"M, L"', "2,variation,hoodie-m,,id:1,,40,3,Size,M"]
    rows += [f"{n},simple,sock-{n},Sock {n},,Socks,5,1,," for n in range(10, 110)]  # 100 products between
    rows += ["3,variation,hoodie-l,,id:1,,40,2,Size,L"]  # 100 products on: still open
    rows += [f"{n},simple,cap-{n},Cap {n},,Hats,5,1,," for n in range(200, 202)]
    rows += ["4,variation,hoodie-xl,,id:1,,40,2,Size,XL", "5,variation,belt-s,,id:7,,40,2,Size,S"]
    rows += ["7,variable,belt,Belt,,Belts,,,Size,S"]
    path = tmp_path / "wc-product-export.csv"
    path.write_text(header + "\n".join(rows) + "\n")
    records = parsed(path)
    hoodie = records["row 2 (SKU 'hoodie')"]
    assert isinstance(hoodie, ProductInput) and [v.size for v in hoodie.variations] == ["M", "L"]
    assert str(records["row 107"]).startswith("a variation whose Parent 'id:1' was imported more than 100 products")
    assert str(records["row 108"]) == (
        "a variation whose Parent 'id:7' comes after it: a variation must follow its product"
    )


@pytest.mark.unit
def test_a_csv_file_is_read_as_its_products_are_taken(tmp_path: Path):
    path = tmp_path / "catalog.csv"
    write_own_csv(path, 3_000)
    stream = open_catalog_stream(path)
    first = next(stream.records)
    assert first[0] == "row 2 (slug 'streamed-0')" and isinstance(first[1], ProductInput)
    assert stream.position() < stream.size / 10, (stream.position(), stream.size)  # a block, not the file
    assert sum(1 for _ in stream.records) == 2_999 and stream.position() == stream.size


@pytest.mark.unit
def test_the_encoding_is_decided_by_every_line_not_the_first_ones(tmp_path: Path):
    path = tmp_path / "artikel.csv"
    write_own_csv(path, 3_000)  # ~2 MB of ASCII
    with path.open("ab") as out:
        out.write("mütze,Mütze,Hüte,9.90,,black,M,1\n".encode("cp1252"))
    stream = open_catalog_stream(path)
    assert stream.encoding == "Windows-1252"
    assert stream.position() < stream.size / 10  # decided in a pass of its own: the rows are still to read
    assert dict(stream.records)["row 6002 (slug 'mütze')"] is not None
    with path.open("ab") as out:
        out.write("schal,Schal,Tücher,9.90,,black,M,1\n".encode())
    with pytest.raises(ValidationError, match="mixes encodings: line 6003 is UTF-8, line 6002 is not"):
        open_catalog_stream(path)


@pytest.mark.process
@pytest.mark.anyio
async def test_importing_ten_times_the_csv_rows_takes_no_more_memory(database, tmp_path: Path):
    small, large = tmp_path / "small.csv", tmp_path / "large.csv"
    write_own_csv(small, 1_500)
    write_own_csv(large, 15_000)  # ~12 MB, 30,000 rows: read whole it added ~100 MiB
    small_peak, out = await _import(database, small)
    assert "small.csv: 1500 created" in out
    large_peak, out = await _import(database, large)
    assert "large.csv: 13500 created, 0 updated, 1500 unchanged, 0 rejected" in out
    assert large_peak <= small_peak * 1.1, (small_peak, large_peak)


@pytest.mark.unit
def test_seen_keys_know_every_key_added_through_their_merges_and_no_other():
    seen = SeenKeys()
    seen.RECENT, seen.BLOCK = 100, 64  # many merges and block splits over a few thousand keys
    keys = [f"slug-{n}" for n in random.Random(7).sample(range(1_000_000), 20_000)]  # noqa: S311 - a shuffle
    for n, key in enumerate(keys):
        assert key not in seen
        seen.add(key)
        if n % 1_999 == 0:
            assert all(k in seen for k in keys[: n + 1])
    assert all(k in seen for k in keys)
    assert not any(f"other-{n}" in seen for n in range(20_000))
