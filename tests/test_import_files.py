"""Catalog files as shop owners save them: the text encoding read and said, and a file the
command cannot use refused with exit 2 before any database starts."""

from __future__ import annotations

import codecs
import json
from decimal import Decimal
from pathlib import Path

import asyncpg
import pytest

from shopagent.domain.catalog import ProductInput
from shopagent.domain.errors import ValidationError
from shopagent.entrypoints.catalog_files import load_catalog_file
from tests.helpers import shopagent

pytestmark = pytest.mark.anyio

GERMAN_CSV = (
    "slug;name;category;price;description;color;size;quantity\n"
    "wollmuetze;Wollmütze Hochtal;Accessories;24,90;Grobstrick aus Schurwolle, für kalte Tage;grey;ONE SIZE;7\n"
    "handschuhe;Fäustlinge Ötztal;Accessories;1.019,00;Größe für große Hände;black;L;2\n"
)


def _german(tmp_path: Path, encoded: bytes) -> Path:
    path = tmp_path / "artikel.csv"
    path.write_bytes(encoded)
    return path


@pytest.mark.parametrize(
    ("encoded", "encoding"),
    [
        (GERMAN_CSV.encode("utf-8"), "UTF-8"),
        (codecs.BOM_UTF8 + GERMAN_CSV.encode("utf-8"), "UTF-8 with a byte order mark"),
        (GERMAN_CSV.encode("cp1252"), "Windows-1252"),
        (GERMAN_CSV.replace("\n", "\r\n").encode("cp1252"), "Windows-1252"),  # as Excel writes it
        (GERMAN_CSV.encode("utf-16"), "UTF-16"),  # with its byte order mark, as Excel writes "Unicode text"
    ],
    ids=["utf-8", "utf-8-bom", "windows-1252", "windows-1252-crlf", "utf-16"],
)
def test_a_german_csv_reads_the_same_in_every_encoding_a_spreadsheet_saves(tmp_path: Path, encoded, encoding):
    file = load_catalog_file(_german(tmp_path, encoded))
    assert file.encoding == encoding
    products = {where: item for where, item in file.records}
    assert all(isinstance(item, ProductInput) for item in products.values()), products
    cap = products["row 2 (slug 'wollmuetze')"]
    mitts = products["row 3 (slug 'handschuhe')"]
    assert isinstance(cap, ProductInput) and isinstance(mitts, ProductInput)
    assert (cap.name, cap.description) == ("Wollmütze Hochtal", "Grobstrick aus Schurwolle, für kalte Tage")
    assert (mitts.name, mitts.description) == ("Fäustlinge Ötztal", "Größe für große Hände")
    assert mitts.price == Decimal("1019.00")


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_a_json_catalog_saved_with_a_byte_order_mark_is_read(tmp_path: Path, suffix: str):
    product = {"slug": "cap", "name": "Wollmütze", "category": "Accessories", "price": "19.90", "variations": []}
    text = json.dumps([product] if suffix == ".json" else product, ensure_ascii=False)
    path = tmp_path / f"catalog{suffix}"
    path.write_bytes(codecs.BOM_UTF8 + text.encode())
    [(_, item)] = load_catalog_file(path).records
    assert isinstance(item, ProductInput) and item.name == "Wollmütze"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        # 0x81 is unassigned in Windows-1252 and not UTF-8 either: no encoding here reads it.
        (b"slug,name\nok,Fine\nbad,Caf\x81\n", "artikel.csv line 3: byte 0x81 is not Windows-1252 text"),
        ("slug,name\na,Mütze\n".encode() + "b,Mütze\n".encode("cp1252"), "mixes encodings: line 2 is UTF-8, line 3"),
        (b"slug,name\na,ok\nb,nul\x00here\n", "artikel.csv line 3: contains a control character (U+0000)"),
        (b"PK\x03\x04\x14\x00\x06\x00", "is an Excel workbook (.xlsx) or another zip archive, not a text file"),
        (codecs.BOM_UTF8 + b"slug,name\na,\xfc\n", "artikel.csv line 2: byte 0xFC is not UTF-8 with a byte order mark"),
    ],
    ids=["unassigned-byte", "mixed", "nul", "xlsx-renamed", "bom-but-not-utf8"],
)
def test_text_no_encoding_reads_is_refused_with_its_line(tmp_path: Path, content: bytes, message: str):
    with pytest.raises(ValidationError, match="save it as CSV") as refused:
        load_catalog_file(_german(tmp_path, content))
    assert message in str(refused.value)


@pytest.mark.process
async def test_the_import_command_says_it_read_windows_1252_and_stores_the_umlauts(database, tmp_path: Path):
    path = _german(tmp_path, GERMAN_CSV.encode("cp1252"))
    env = {"SHOPAGENT_DATABASE_URL": database, "SHOPAGENT_EMBEDDING__MODEL": "hash"}
    async with shopagent("catalog", "import", str(path), env=env) as proc:
        assert await proc.wait_exit() == 0
    assert "artikel.csv: read as Windows-1252 text" in proc.stdout
    assert "artikel.csv: 2 created, 0 updated, 0 unchanged, 0 rejected" in proc.stdout
    connection = await asyncpg.connect(database)
    try:
        names = await connection.fetch("SELECT name, description FROM product ORDER BY slug")
    finally:
        await connection.close()
    assert [tuple(row) for row in names] == [
        ("Fäustlinge Ötztal", "Größe für große Hände"),
        ("Wollmütze Hochtal", "Grobstrick aus Schurwolle, für kalte Tage"),
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("catalog", "import", "{tmp}/missing.csv"), "cannot read {tmp}/missing.csv: No such file or directory"),
        (("catalog", "import", "{tmp}/Artikel.xlsx"), "Artikel.xlsx is a spreadsheet workbook, not a CSV file; save"),
        (("catalog", "import", "{tmp}/bad.csv"), "bad.csv line 2: byte 0x81 is not Windows-1252 text"),
        (("catalog", "import", "{tmp}/header.csv"), "the CSV header lacks the column(s) category, quantity"),
        (("store-info", "import", "{tmp}/nowhere"), "{tmp}/nowhere is neither a folder nor a file"),
    ],
    ids=["missing", "xlsx", "unreadable-text", "header", "store-pages-missing"],
)
@pytest.mark.process
async def test_a_file_the_command_cannot_read_exits_2_before_any_database_starts(tmp_path: Path, args, message):
    (tmp_path / "Artikel.xlsx").write_bytes(b"PK\x03\x04")
    (tmp_path / "bad.csv").write_bytes(b"slug,name\nx,Caf\x81\n")
    (tmp_path / "header.csv").write_text("slug,name\nx,Cap\n")
    data_dir = tmp_path / "data"  # where the embedded PostgreSQL would be initialised
    async with shopagent(*(a.format(tmp=tmp_path) for a in args), env={"SHOPAGENT_DATA_DIR": str(data_dir)}) as proc:
        assert await proc.wait_exit() == 2
    [error] = proc.errors()  # read whole: the block is left
    assert error.startswith(f"shopagent: error: {message.format(tmp=tmp_path)}"), error
    assert not data_dir.exists(), "the database was started for a file the command cannot read"
