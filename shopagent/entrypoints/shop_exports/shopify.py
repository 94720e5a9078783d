"""Shopify's product CSV export (classic and current column names) -> ProductInput.

A product is the rows sharing a Handle, one after another: the first holds the product, later
ones more variants or images. Drafts, archived products and gift cards are skipped with a note.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from shopagent.application.catalog import ImportNote
from shopagent.domain.errors import ValidationError
from shopagent.domain.text import OptionWords
from shopagent.entrypoints.import_records import APART, CsvTable, Parsed
from shopagent.entrypoints.seen_keys import SeenKeys
from shopagent.entrypoints.shop_exports.cells import html_to_text, is_number, metafield, spec_value
from shopagent.entrypoints.shop_exports.draft import Draft

# Each field under its name in the classic export, then in the current one.
_SHOPIFY = {
    "handle": ("handle", "url handle"),
    "title": ("title",),
    "body": ("body (html)", "description"),
    "vendor": ("vendor",),
    "type": ("type",),
    "category": ("product category",),
    "status": ("status",),
    "gift card": ("gift card",),
    "price": ("variant price", "price"),
    "compare at": ("variant compare at price", "compare-at price"),
    "quantity": ("variant inventory qty", "inventory quantity"),
    "grams": ("variant grams", "weight value (grams)"),
    "image": ("image src", "product image url"),
    "image position": ("image position",),
    "variant image": ("variant image", "variant image url"),
    "sku": ("variant sku", "sku"),
}
_SHOPIFY_KNOWN = {
    *(n for names in _SHOPIFY.values() for n in names),
    *(f"option{i} {part}" for i in (1, 2, 3) for part in ("name", "value", "linked to")),
    "tags", "published", "published on online store", "variant inventory tracker", "inventory tracker",
    "variant inventory policy", "continue selling when out of stock", "variant fulfillment service",
    "fulfillment service", "variant requires shipping", "requires shipping", "variant taxable", "charge tax",
    "variant barcode", "barcode", "image alt text", "seo title", "seo description", "variant weight unit",
    "weight unit for display", "variant tax code", "tax code", "cost per item", "product type",
}  # fmt: skip
_SHOPIFY_PREFIXES = ("google shopping", "price /", "compare at price /", "compare-at price /", "included /",
                     "product.metafields.", "variant.metafields.", "metafield:", "unit price")  # fmt: skip


def _get(row: dict[str, str], names: Iterable[str]) -> str:
    return next((row[n] for n in names if row.get(n)), "")


def _metafields(row: dict[str, str], owner: str) -> dict[str, object]:
    """The product's (or variant's) metafields with a value, as specs."""
    found = {}
    for column, cell in row.items():
        if cell and (field := metafield(column)) is not None and field[0] == owner:
            found[field[1]] = spec_value(cell)
    return found


def from_shopify(table: CsvTable, words: OptionWords | None) -> Iterator[Parsed]:
    """The export's products as its rows are read (the header is checked at once)."""
    table.label = "the Shopify export"
    table.require(["title"], any_of=[_SHOPIFY["handle"]])
    table.warn_unknown(_SHOPIFY_KNOWN | {c for c in table.columns if metafield(c)}, _SHOPIFY_PREFIXES)
    return _shopify_products(table, words)


def _shopify_products(table: CsvTable, words: OptionWords | None) -> Iterator[Parsed]:
    """A product from each run of rows with one Handle, given as the next Handle begins."""
    handle = ""
    rows: list[tuple[int, dict[str, str]]] = []
    ended = SeenKeys()
    for number, row in table.rows():
        table.decimals(row, (*_SHOPIFY["price"], *_SHOPIFY["compare at"]))
        found = _get(row, _SHOPIFY["handle"])
        if not found:
            yield f"row {number}", ValidationError("the Handle is empty")
            continue
        if found != handle:
            if found in ended:
                yield f"row {number} (handle {found!r})", ValidationError(APART)
                continue
            if rows:
                ended.add(handle)
                yield from _shopify_product(handle, rows, words)
            handle, rows = found, []
        rows.append((number, row))
    if rows:
        yield from _shopify_product(handle, rows, words)


def _shopify_product(
    handle: str, rows: list[tuple[int, dict[str, str]]], words: OptionWords | None
) -> Iterator[Parsed]:
    first_number, first = rows[0]
    key = f"handle {handle!r}"
    where = f"row {first_number} ({key})"
    status = first.get("status", "").casefold()
    if status in ("draft", "archived"):
        yield where, ImportNote(f"skipped: its status is {status} (active products are imported)")
        return
    if first.get("gift card", "").casefold() == "true":
        yield where, ImportNote("skipped: a gift card")
        return
    draft = Draft(where, key, words)
    draft.name = first.get("title", "")
    draft.description = html_to_text(_get(first, _SHOPIFY["body"]))
    draft.brand = first.get("vendor", "")
    draft.category = first.get("type", "") or first.get("product category", "").split(">")[-1].strip()
    if not draft.category:
        yield where, ValidationError("it has no Type and no Product category (the catalog needs a category)")
        return
    draft.specs = _metafields(first, "product")
    option_names = [first.get(f"option{i} name", "") for i in (1, 2, 3)]
    images: list[tuple[float, int, str]] = []
    for order, (number, row) in enumerate(rows):
        if src := _get(row, _SHOPIFY["image"]):
            position = row.get("image position", "")
            images.append((float(position) if is_number(position) else float("inf"), order, src))
        values = [row.get(f"option{i} value", "") for i in (1, 2, 3)]
        if not any(values) and not _get(row, _SHOPIFY["price"]):
            continue  # an image row
        options = {name: value for name, value in zip(option_names, values, strict=True) if name and value}
        if options.keys() == {"Title"} or list(options.values()) == ["Default Title"]:
            options = {}  # Shopify's stand-in option of a product without variants
        draft.variant(
            number,
            options,
            price=("Variant Price", _get(row, _SHOPIFY["price"])),
            before=("Variant Compare At Price", _get(row, _SHOPIFY["compare at"])),
            quantity=_get(row, _SHOPIFY["quantity"]),
            grams=_get(row, _SHOPIFY["grams"]),
            sku=_get(row, _SHOPIFY["sku"]),
            specs=_metafields(row, "variant"),
        )
        if variant_image := _get(row, _SHOPIFY["variant image"]):
            images.append((float("inf"), len(rows) + order, variant_image))
    draft.images = [src for _, _, src in sorted(images)]
    yield from draft.finish(handle)
