"""WooCommerce's product CSV export -> ProductInput.

A product is a `simple` row, or a `variable` row and the `variation` rows whose Parent names
it (by `id:<ID>` or SKU), which come after it: up to 100 other products' rows may come between
(the export is in ID order), no more, as the file is read as a stream. Grouped, external,
private and draft products are skipped with a note.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal

from shopagent.application.catalog import ImportNote
from shopagent.domain.errors import ValidationError
from shopagent.domain.text import OptionWords
from shopagent.entrypoints.import_records import CsvTable, Parsed
from shopagent.entrypoints.seen_keys import SeenKeys
from shopagent.entrypoints.shop_exports.cells import html_to_text, is_number, option_kind, slugify, spec_value
from shopagent.entrypoints.shop_exports.draft import Draft

_WOO_KNOWN = {
    "id", "type", "sku", "gtin, upc, ean, or isbn", "name", "published", "is featured?", "visibility in catalog",
    "short description", "description", "date sale price starts", "date sale price ends", "tax status",
    "tax class", "in stock?", "stock", "low stock amount", "backorders allowed?", "sold individually?",
    "weight (kg)", "weight (g)", "weight (lbs)", "weight (oz)", "length (cm)", "width (cm)", "height (cm)",
    "length (in)", "width (in)", "height (in)", "length (m)", "width (m)", "height (m)", "length (mm)",
    "width (mm)", "height (mm)", "allow customer reviews?", "purchase note", "sale price", "regular price",
    "categories", "tags", "shipping class", "images", "download limit", "download expiry days", "parent",
    "grouped products", "upsells", "cross-sells", "external url", "button text", "position", "brands",
}  # fmt: skip
_WOO_PREFIXES = ("attribute ", "meta:", "download ")
_GRAMS_PER = {"kg": Decimal(1000), "g": Decimal(1), "lbs": Decimal("453.59237"), "oz": Decimal("28.349523125")}


def from_woocommerce(table: CsvTable, words: OptionWords | None) -> Iterator[Parsed]:
    """The export's products as its rows are read (the header is checked at once)."""
    table.label = "the WooCommerce export"
    table.require(["type", "name"], any_of=[("regular price", "sale price")])
    table.warn_unknown(_WOO_KNOWN, _WOO_PREFIXES)
    weight_column = next((c for c in table.names if re.fullmatch(r"weight \((kg|g|lbs|oz)\)", c)), None)
    return _WooReader(words, weight_column).products(table)


class _WooReader:
    """Products and their variation rows as they come. A product stays open for variations while
    up to `OPEN_PRODUCTS` later products have begun (the export is in ID order: a variation added
    after other products were created comes after their rows), then it is given."""

    OPEN_PRODUCTS = 100

    def __init__(self, words: OptionWords | None, weight_column: str | None) -> None:
        self.words, self.weight_column = words, weight_column
        self.open: deque[_WooParent] = deque()
        self.by_key: dict[str, _WooParent] = {}  # the open products, by "id:<ID>" and by SKU
        self.ended = SeenKeys()  # the keys of the products given
        self.slugs = SeenKeys()
        self.orphans: list[tuple[int, str]] = []  # (row, Parent) of variations no product above takes

    def products(self, table: CsvTable) -> Iterator[Parsed]:
        weights = [self.weight_column] if self.weight_column else []
        for number, row in table.rows():
            table.decimals(row, ("regular price", "sale price", *weights))
            kinds = {kind.strip().casefold() for kind in row.get("type", "").split(",")}
            if "variation" in kinds:
                yield from self._variation(number, row)
                continue
            self._begin(_woo_parent(number, row, kinds))
            if len(self.open) > self.OPEN_PRODUCTS + 1:
                yield from self._give(self.open.popleft())
        while self.open:
            yield from self._give(self.open.popleft())
        for number, parent in self.orphans:
            where = "is not in the file"
            if parent in self.ended:
                where = "comes after it: a variation must follow its product"
            yield f"row {number}", ValidationError(f"a variation whose Parent {parent!r} {where}")

    def _variation(self, number: int, row: dict[str, str]) -> Iterator[Parsed]:
        parent = row.get("parent", "")
        if (product := self.by_key.get(parent)) is not None:
            product.variations.append((number, row))
        elif parent in self.ended:
            yield (
                f"row {number}",
                ValidationError(
                    f"a variation whose Parent {parent!r} was imported more than {self.OPEN_PRODUCTS} products "
                    "further up, without it: a product's variations must follow it"
                ),
            )
        else:
            self.orphans.append((number, parent))

    def _begin(self, product: _WooParent) -> None:
        self.open.append(product)
        for key in product.keys:
            self.by_key[key] = product

    def _give(self, product: _WooParent) -> Iterator[Parsed]:
        for key in product.keys:
            if self.by_key.get(key) is product:
                del self.by_key[key]
            self.ended.add(key)
        if product.skip:
            yield product.where, ImportNote(product.skip)
        else:
            yield from _woo_product(product, self.words, self.weight_column, self.slugs)


def _woo_parent(number: int, row: dict[str, str], kinds: set[str]) -> _WooParent:
    key = f"SKU {row['sku']!r}" if row.get("sku") else repr(row.get("name") or row.get("id", ""))
    product = _WooParent(number, f"row {number} ({key})", key, row, "variable" in kinds)
    product.keys = [k for k in (f"id:{row['id']}" if row.get("id") else "", row.get("sku", "")) if k]
    if kinds & {"grouped", "external"}:
        product.skip = f"skipped: {'a grouped' if 'grouped' in kinds else 'an external'} product (not sold here)"
    elif not kinds & {"simple", "variable"}:
        product.skip = f"skipped: its type {row.get('type', '')!r} is not simple or variable"
    elif row.get("published", "1") not in ("1", ""):
        state = {"0": "private", "-1": "a draft"}.get(row["published"], f"published = {row['published']}")
        product.skip = f"skipped: it is {state} (published products are imported)"
    return product


@dataclass
class _WooParent:
    number: int
    where: str
    key: str
    row: dict[str, str]
    variable: bool
    skip: str = ""
    variations: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)  # how its variations name it as their Parent


def _woo_attributes(row: dict[str, str]) -> dict[str, str]:
    """{attribute name: value(s)} of a row (Attribute N name / Attribute N value(s))."""
    found = {}
    for number in range(1, 100):
        name = row.get(f"attribute {number} name")
        if name is None and f"attribute {number} value(s)" not in row:
            break
        if name:
            found[name] = row.get(f"attribute {number} value(s)", "")
    return found


def _woo_product(
    product: _WooParent, words: OptionWords | None, weight_column: str | None, slugs: SeenKeys
) -> Iterator[Parsed]:
    row = product.row
    draft = Draft(product.where, product.key, words)
    draft.name = row.get("name", "")
    long, short = (html_to_text(row.get(c, "").replace("\\n", "\n")) for c in ("description", "short description"))
    draft.description = f"{short}\n\n{long}" if short and long and not long.startswith(short) else long or short
    categories = _woo_list(row.get("categories", ""))
    draft.category = categories[0].split(">")[-1].strip() if categories else ""
    if not draft.category:
        yield product.where, ValidationError("it has no Categories (the catalog needs a category)")
        return
    draft.brand = _woo_list(row.get("brands", ""))[0] if row.get("brands") else ""
    draft.images = _woo_list(row.get("images", ""))
    draft.external_id = row.get("id") or None
    attributes = _woo_attributes(row)
    varying = {name for _, variation in product.variations for name in _woo_attributes(variation)}
    for name, value in attributes.items():
        if option_kind(name) == "material" and len(_woo_list(value)) == 1:
            draft.material = value
        elif option_kind(name) == "brand" and len(_woo_list(value)) == 1:
            draft.brand = draft.brand or value
        elif option_kind(name) == "other" and name not in varying and len(_woo_list(value)) == 1:
            draft.specs[name] = spec_value(_woo_list(value)[0])  # a fact of the product ("Lumens: 800")
    weight = row.get(weight_column, "") if weight_column else ""
    if not product.variable:
        options = {}
        for name, value in attributes.items():
            values = _woo_list(value)
            if option_kind(name) in ("color", "size") and values:
                if len(values) > 1:
                    yield (
                        product.where,
                        ImportNote(
                            f"a simple product lists several values for {name} ({', '.join(values)}); "
                            f"imported as {values[0]}"
                        ),
                    )
                options[name] = values[0]
        draft.variant(
            product.number,
            options,
            price=("Sale price", row.get("sale price", "")),
            before=("Regular price", row.get("regular price", "")),
            quantity=_woo_stock(row),
            grams=_grams(weight, weight_column),
            sku=row.get("sku", ""),
        )
    for number, variation in product.variations:
        options = {}
        for name, value in _woo_attributes(variation).items():
            if name not in attributes and option_kind(name) == "other" and not value:
                continue
            if not value and len(_woo_list(attributes.get(name, ""))) == 1:
                value = _woo_list(attributes[name])[0]  # "any" of a single value is that value
            options[name] = value
        if image := variation.get("images", ""):
            draft.images.extend(_woo_list(image))
        draft.variant(
            number,
            options,
            price=("Sale price", variation.get("sale price", "")),
            before=("Regular price", variation.get("regular price", "")),
            quantity=_woo_stock(variation),
            grams=_grams(variation.get(weight_column, "") if weight_column else "", weight_column)
            or _grams(weight, weight_column),
            key=f"SKU {variation['sku']!r}" if variation.get("sku") else "",
            sku=variation.get("sku", ""),
            external_id=variation.get("id", ""),
        )
    slug = slugify(draft.name)
    if slug in slugs:
        slug = slugify(f"{draft.name} {row.get('sku') or row.get('id') or product.number}")
    slugs.add(slug)
    yield from draft.finish(slug)


def _woo_list(value: str) -> list[str]:
    """A WooCommerce list cell ("a, b, c"; a comma inside a name is written `\\,`)."""
    return [part.replace("\\,", ",").strip() for part in re.split(r"(?<!\\),", value) if part.strip()]


def _woo_stock(row: dict[str, str]) -> str:
    if row.get("stock"):
        return row["stock"]
    return "0" if row.get("in stock?", "") == "0" else ""


def _grams(value: str, column: str | None) -> str:
    if not value or column is None or not is_number(value):
        return ""
    unit = column[column.index("(") + 1 : -1]
    return str(round(Decimal(value) * _GRAMS_PER[unit]))
