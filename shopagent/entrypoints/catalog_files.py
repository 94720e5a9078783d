"""Catalog files -> ProductInput: JSON (an array), JSON Lines, CSV (one row per variation).

Parsing never stops at a bad record: each record becomes either a ProductInput or a
ValidationError that says where it is ("line 4", "row 7 (slug 'x')") and what is wrong.

CSV columns (header row required; order free; names in any case; empty cells mean "not
given"; other columns are ignored, with one warning naming them):
  slug, name, category, price            required on a product's first row
  discount_price, description, brand, material, currency, rating, main_image,
  images                                 several URLs separated by "|"
  color, size, quantity, reserved, weight_grams   one variation per row
Rows with the same slug form one product; product columns may be left empty on its later
rows, but must not contradict the first. The separator is read from the header: `,`, `;`
(as spreadsheets write CSV in locales whose decimal mark is a comma: then `12,50` and
`1.234,50` are prices too) or a tab; a UTF-8 byte order mark is skipped.
"""

from __future__ import annotations

import csv
import io
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec

from shopagent.domain.catalog import ProductInput
from shopagent.domain.errors import ValidationError
from shopagent.domain.inputs import explain

log = logging.getLogger("shopagent.catalog")

Parsed = tuple[str, ProductInput | ValidationError]

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
)
VARIATION_COLUMNS = ("color", "size", "quantity", "reserved", "weight_grams")
_CAMEL = {"discount_price": "discountPrice", "main_image": "mainImage", "weight_grams": "weightGrams"}
_DECIMAL_COLUMNS = ("price", "discount_price", "rating")
_SEPARATORS = (",", ";", "\t")
_DECIMAL_COMMA = re.compile(r"^-?(\d{1,3}(\.\d{3})+|\d+),\d+$")  # 12,50 or 1.234,50


def read_catalog_file(path: Path) -> list[Parsed]:
    """Parse a catalog file by its extension. Raises ValidationError only for the file as a whole."""
    suffix = path.suffix.lower()
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ValidationError(f"cannot read {path}: {exc.strerror}") from None
    if suffix == ".json":
        return list(_from_json(data))
    if suffix == ".jsonl":
        return list(_from_jsonl(data))
    if suffix == ".csv":
        return list(_from_csv(data.decode("utf-8-sig", errors="replace")))
    raise ValidationError(f"{path.name}: unsupported file type {suffix or '(none)'}; use .json, .jsonl or .csv")


def _convert(where: str, item: Any, *, strict: bool = True) -> Parsed:
    slug = item.get("slug") if isinstance(item, dict) else None
    label = f"{where} (slug {slug!r})" if isinstance(slug, str) and slug else where
    try:
        return label, msgspec.convert(item, ProductInput, strict=strict)
    except msgspec.ValidationError as exc:
        return label, ValidationError(explain(exc))


def _from_json(data: bytes) -> Iterator[Parsed]:
    try:
        items = msgspec.json.decode(data)
    except msgspec.DecodeError as exc:
        raise ValidationError(f"not valid JSON: {exc}") from None
    if not isinstance(items, list):
        raise ValidationError("a .json catalog must be an array of products (use .jsonl for one per line)")
    for number, item in enumerate(items, start=1):
        yield _convert(f"item {number}", item)


def _from_jsonl(data: bytes) -> Iterator[Parsed]:
    for number, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = msgspec.json.decode(line)
        except msgspec.DecodeError as exc:
            yield f"line {number}", ValidationError(f"not valid JSON: {exc}")
            continue
        yield _convert(f"line {number}", item)


def _from_csv(text: str) -> Iterator[Parsed]:
    header = text.split("\n", 1)[0]
    separator = max(_SEPARATORS, key=header.count)  # the header holds only names: its separators are real
    reader = csv.DictReader(io.StringIO(text), delimiter=separator)
    reader.fieldnames = [name.strip().casefold() for name in reader.fieldnames or ()]
    columns = set(reader.fieldnames)
    missing = {"slug", "name", "category", "price", "color", "size", "quantity"} - columns
    if missing:
        shown = {";": "semicolons", "\t": "tabs"}.get(separator, "commas")
        raise ValidationError(
            f"the CSV header lacks the column(s) {', '.join(sorted(missing))} (read as separated by {shown})"
        )
    unknown = columns - set(PRODUCT_COLUMNS) - set(VARIATION_COLUMNS) - {""}
    if unknown:
        log.warning("ignoring the CSV column(s) shopagent does not use: %s", ", ".join(sorted(unknown)))
    decimal_comma = separator == ";"
    products: dict[str, dict[str, Any]] = {}
    problems: dict[str, str] = {}
    first_row: dict[str, int] = {}
    for number, row in enumerate(reader, start=2):  # row 1 is the header
        slug = (row.get("slug") or "").strip()
        if not slug:
            yield f"row {number}", ValidationError("slug is empty")
            continue
        if decimal_comma:
            for column in _DECIMAL_COLUMNS:
                value = (row.get(column) or "").strip()
                if _DECIMAL_COMMA.match(value):
                    row[column] = value.replace(".", "").replace(",", ".")
        if slug not in products:
            products[slug], first_row[slug] = _csv_product(row), number
        elif slug not in problems:
            later = _csv_product(row)
            clash = next((k for k, v in later.items() if k != "variations" and products[slug].get(k, v) != v), None)
            if clash:
                problems[slug] = f"row {number}: {clash} differs from row {first_row[slug]}"
            for key, value in later.items():
                products[slug].setdefault(key, value)
        products[slug]["variations"].append(
            {_CAMEL.get(c, c): row[c].strip() for c in VARIATION_COLUMNS if (row.get(c) or "").strip()}
        )
    for slug, product in products.items():
        where = f"row {first_row[slug]}"
        if slug in problems:
            yield f"{where} (slug {slug!r})", ValidationError(problems[slug])
        else:
            yield _convert(where, product, strict=False)


def _csv_product(row: dict[str, str]) -> dict[str, Any]:
    product: dict[str, Any] = {"variations": []}
    for column in PRODUCT_COLUMNS:
        value = (row.get(column) or "").strip()
        if value:
            product[_CAMEL.get(column, column)] = (
                [u.strip() for u in value.split("|") if u.strip()] if column == "images" else value
            )
    return product
