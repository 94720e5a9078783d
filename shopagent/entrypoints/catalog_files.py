"""Catalog files -> ProductInput: JSON (an array), JSON Lines, CSV (one row per variation),
and the product CSV exports of Shopify and WooCommerce (see shop_exports).

Parsing never stops at a bad record: each record becomes either a ProductInput or a
ValidationError that says where it is ("line 4", "row 7 (slug 'x')") and what is wrong, or
an ImportNote (something imported differently from the file, or skipped, said out loud).

CSV columns (header row required; order free; names in any case; empty cells mean "not
given"; other columns are ignored, with one warning naming them):
  slug, name, category                   required on a product's first row
  price, discount_price                  the product's price (or each row's variation_price)
  description, brand, material, currency, rating, main_image, url, external_id,
  images                                 several URLs separated by "|"
  spec:<name>                            a product spec ("spec:lumens" = 800)
  quantity                               required: one variation per row, with
  color, size, reserved, weight_grams, sku, variation_price, variation_discount_price,
  variation_url, variation_external_id,
  option:<Name>                          its value of an option ("option:Valve" = Presta)
  variation_spec:<name>                  a spec of that variation only
Rows with the same slug form one product and follow one another (a row of a slug whose rows
ended further up is rejected, naming its row); product columns may be left empty on its later
rows, but must not contradict the first. The separator is read from the header: `,`, `;`
(as spreadsheets write CSV in locales whose decimal mark is a comma: then `12,50` and
`1.234,50` are prices too) or a tab. The text is UTF-8 (a byte order mark is skipped), UTF-16
with its mark, or else Windows-1252, as Excel saves "CSV" in Western Europe (see file_text).
"""

from __future__ import annotations

import codecs
import io
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, BinaryIO, TextIO

import msgspec

from shopagent.domain.errors import ValidationError
from shopagent.domain.text import OptionWords
from shopagent.entrypoints import shop_exports
from shopagent.entrypoints.catalog_formats import CSV_FORMATS, CsvFormat
from shopagent.entrypoints.file_text import SAVE_AS_CSV, scan_encoding
from shopagent.entrypoints.import_records import APART, CsvTable, Parsed, convert
from shopagent.entrypoints.json_stream import array_elements
from shopagent.entrypoints.seen_keys import SeenKeys
from shopagent.entrypoints.shop_exports.cells import spec_value

log = logging.getLogger("shopagent.catalog")

__all__ = [
    "CSV_FORMATS", "CatalogFile", "CatalogStream", "CsvFormat", "load_catalog_file", "open_catalog_stream",
    "read_catalog_file",
]  # fmt: skip

PRODUCT_COLUMNS = (
    "slug",
    "name",
    "category",
    "price",
    "discount_price",
    "description",
    "brand",
    "material",
    "currency",
    "rating",
    "main_image",
    "images",
    "url",
    "external_id",
)
VARIATION_COLUMNS = ("color", "size", "quantity", "reserved", "weight_grams", "sku")
_VARIATION_RENAMED = {
    "variation_price": "price", "variation_discount_price": "discountPrice", "variation_url": "url",
    "variation_external_id": "externalId",
}  # fmt: skip
_CAMEL = {
    "discount_price": "discountPrice", "main_image": "mainImage", "weight_grams": "weightGrams",
    "external_id": "externalId",
}  # fmt: skip
_DECIMAL_COLUMNS = ("price", "discount_price", "rating", "variation_price", "variation_discount_price")
_PREFIXES = ("spec:", "option:", "variation_spec:")
_SPREADSHEETS = (".xlsx", ".xlsm", ".xls", ".ods", ".numbers")


@dataclass(frozen=True)
class CatalogFile:
    records: list[Parsed]
    encoding: str | None  # how a CSV file's bytes were read as text (see file_text); None for JSON


@dataclass(frozen=True)
class CatalogStream:
    """A catalog file's records, read as they are taken, a block at a time (the memory held does
    not grow with the file; a CSV file's rows of one product must follow one another).
    `position()` says how many of the file's `size` bytes are read so far."""

    records: Iterator[Parsed]
    encoding: str | None
    size: int
    position: Callable[[], int]


def read_catalog_file(path: Path, *, format: CsvFormat = "auto", words: OptionWords | None = None) -> list[Parsed]:
    """The records of `load_catalog_file`."""
    return load_catalog_file(path, format=format, words=words).records


def load_catalog_file(path: Path, *, format: CsvFormat = "auto", words: OptionWords | None = None) -> CatalogFile:
    """Parse a catalog file by its extension, whole: the records of `open_catalog_stream` in a list."""
    stream = open_catalog_stream(path, format=format, words=words)
    return CatalogFile(list(stream.records), stream.encoding)


def open_catalog_stream(path: Path, *, format: CsvFormat = "auto", words: OptionWords | None = None) -> CatalogStream:
    """Open a catalog file by its extension. Raises ValidationError only for the file as a whole
    (missing, of a kind it cannot read, text in no known encoding, a header that does not fit, a
    .json file that is not one valid array: it is read through once before any record is given,
    so such a file imports nothing).

    `format` chooses the CSV layout (auto: from the header). With `words`, a CSV row whose colour
    or size the catalog lacks is rejected alone (the product keeps its other rows), and the
    colours and sizes are read as shops write them ("Schwarz", "Medium")."""
    suffix = path.suffix.lower()
    if suffix in _SPREADSHEETS:
        raise ValidationError(f"{path.name} is a spreadsheet workbook, not a CSV file; {SAVE_AS_CSV}")
    if suffix not in (".json", ".jsonl", ".csv"):
        raise ValidationError(f"{path.name}: unsupported file type {suffix or '(none)'}; use .json, .jsonl or .csv")
    try:
        size = path.stat().st_size
        if suffix == ".json":
            with path.open("rb") as checked:
                _check_json_array(checked)
        file = path.open("rb")
    except OSError as exc:
        raise ValidationError(f"cannot read {path}: {exc.strerror}") from None
    if suffix in (".json", ".jsonl"):
        read = _from_json if suffix == ".json" else _from_jsonl
        return CatalogStream(_closing(file, read(file)), None, size, _position(file, size))
    try:
        encoding = scan_encoding(path.name, file)
        text = io.TextIOWrapper(file, encoding=encoding.codec, newline="")
        records = _from_csv(text, format, words)
    except BaseException:
        file.close()
        raise
    return CatalogStream(_closing(text, records), encoding.label, size, _position(file, size))


def _position(file: IO[bytes], size: int) -> Callable[[], int]:
    """How far `file` is read; all of it once closed (the records are all taken)."""
    return lambda: size if file.closed else file.tell()


def _closing(file: IO[Any], records: Iterator[Parsed]) -> Iterator[Parsed]:
    with file:
        yield from records


def _check_json_array(file: BinaryIO) -> None:
    for number, element in enumerate(array_elements(file), start=1):
        try:
            msgspec.json.decode(element)
        except msgspec.DecodeError as exc:
            raise ValidationError(f"not valid JSON: item {number}: {exc}") from None


def _from_json(file: BinaryIO) -> Iterator[Parsed]:
    for number, element in enumerate(array_elements(file), start=1):
        yield convert(f"item {number}", msgspec.json.decode(element))  # checked before


def _from_jsonl(file: BinaryIO) -> Iterator[Parsed]:
    for number, line in enumerate(file, start=1):
        if number == 1:
            line = line.removeprefix(codecs.BOM_UTF8)  # as some editors save
        if not line.strip():
            continue
        try:
            item = msgspec.json.decode(line)
        except msgspec.DecodeError as exc:
            yield f"line {number}", ValidationError(f"not valid JSON: {exc}")
            continue
        yield convert(f"line {number}", item)


def _from_csv(text: TextIO, format: str, words: OptionWords | None) -> Iterator[Parsed]:
    """The records of a CSV file as its rows are read; the header is checked at once."""
    table = CsvTable.open(text)
    if not table.columns:
        raise ValidationError("the CSV file is empty (a header row is needed)")
    chosen = detect_format(table.columns) if format == "auto" else format
    if chosen == "shopify":
        return shop_exports.from_shopify(table, words)
    if chosen == "woocommerce":
        return shop_exports.from_woocommerce(table, words)
    return _from_own_csv(table, words)


def detect_format(columns: frozenset[str]) -> str:
    """Which CSV layout a header is: "shopify", "woocommerce" or "shopagent" (the default)."""
    if "slug" in columns:
        return "shopagent"
    if {"handle", "url handle"} & columns and "title" in columns:
        return "shopify"
    if {"type", "name"} <= columns and {"regular price", "parent", "attribute 1 name"} & columns:
        return "woocommerce"
    return "shopagent"


def _from_own_csv(table: CsvTable, words: OptionWords | None) -> Iterator[Parsed]:
    table.require({"slug", "name", "category", "quantity"})
    table.warn_unknown({*PRODUCT_COLUMNS, *VARIATION_COLUMNS, *_VARIATION_RENAMED}, _PREFIXES)
    return _own_csv_products(table, words)


def _own_csv_products(table: CsvTable, words: OptionWords | None) -> Iterator[Parsed]:
    """A product from each run of rows with one slug, given as the next slug begins."""
    headers = dict(zip(table.names, table.raw_names, strict=True))  # option names as the shop writes them
    product: _OwnProduct | None = None
    ended = SeenKeys()
    for number, row in table.rows():
        slug = row.get("slug", "")
        if not slug:
            yield f"row {number}", ValidationError("slug is empty")
            continue
        table.decimals(row, _DECIMAL_COLUMNS)
        if product is None or slug != product.slug:
            if slug in ended:
                yield f"row {number} (slug {slug!r})", ValidationError(APART)
                continue
            if product is not None:
                ended.add(product.slug)
                yield from product.finish(words)
            product = _OwnProduct(slug, number, _csv_product(row))
        else:
            product.merge(number, _csv_product(row))
        cells: dict[str, Any] = {_CAMEL.get(c, c): row[c] for c in VARIATION_COLUMNS if row.get(c)}
        cells |= {name: row[c] for c, name in _VARIATION_RENAMED.items() if row.get(c)}
        if options := {headers[c].split(":", 1)[1].strip(): v for c, v in row.items() if c.startswith("option:") and v}:
            cells["options"] = options
        if specs := _specs(row, "variation_spec:"):
            cells["specs"] = specs
        if words is not None:
            try:
                cells["color"], cells["size"] = words.variation(row.get("color", ""), row.get("size", ""))
            except ValidationError as exc:
                yield f"row {number} (slug {slug!r})", exc
                continue
        product.fields["variations"].append(cells)
    if product is not None:
        yield from product.finish(words)


@dataclass
class _OwnProduct:
    """The rows of one slug read so far: the product's fields (from its first row, completed by
    later ones) and what in a later row contradicts the first."""

    slug: str
    first_row: int
    fields: dict[str, Any]
    problem: str = ""

    def merge(self, number: int, later: dict[str, Any]) -> None:
        if not self.problem:
            clash = next((k for k, v in later.items() if k != "variations" and self.fields.get(k, v) != v), None)
            if clash:
                self.problem = f"row {number}: {clash} differs from row {self.first_row}"
            for key, value in later.items():
                self.fields.setdefault(key, value)

    def finish(self, words: OptionWords | None) -> Iterator[Parsed]:
        if self.problem:
            yield f"row {self.first_row} (slug {self.slug!r})", ValidationError(self.problem)
        elif words is None or self.fields["variations"]:  # else every row was rejected, each with its reason
            yield convert(f"row {self.first_row}", self.fields, strict=False)


def _specs(row: dict[str, str], prefix: str) -> dict[str, object]:
    return {c.removeprefix(prefix).strip(): spec_value(v) for c, v in row.items() if c.startswith(prefix) and v}


def _csv_product(row: dict[str, str]) -> dict[str, Any]:
    product: dict[str, Any] = {"variations": []}
    if specs := _specs(row, "spec:"):
        product["specs"] = specs
    for column in PRODUCT_COLUMNS:
        if value := row.get(column, ""):
            product[_CAMEL.get(column, column)] = (
                [u.strip() for u in value.split("|") if u.strip()] if column == "images" else value
            )
    return product
