"""The product CSV exports of Shopify and WooCommerce -> ProductInput.

Both describe a product over several rows (Shopify: rows sharing a Handle, the later ones
holding more variants or images; WooCommerce: a `variable` row and its `variation` rows,
joined by `Parent`). What becomes of their fields:

- HTML descriptions become plain text; options or attributes named Size or Color (any case,
  also Größe, Farbe, Taille, Couleur, ...) become each variation's size and colour, read as
  shops write them ("Schwarz", "Medium"); a product without a size option is `ONE SIZE`, one
  without a colour option takes the colour its title names.
- A variation whose colour or size the catalog lacks is rejected alone, with the value and
  the allowed set; the product keeps its other variations.
- The catalog keeps one price per product: that of the first variation. When the others
  differ, a note says so. A compare-at (Shopify) or regular (WooCommerce) price above the
  selling price makes the selling price the discount price. Prices keep their decimals.
- Drafts, archived and private products, gift cards, and grouped and external products are
  skipped with a note; so is anything else the catalog cannot hold without guessing.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from html.parser import HTMLParser
from typing import Any

from shopagent.application.catalog import ImportNote
from shopagent.domain.catalog import SLUG
from shopagent.domain.errors import ValidationError
from shopagent.domain.text import OptionWords, fold
from shopagent.entrypoints.import_records import CsvTable, Parsed, convert

SIZE_OPTIONS = frozenset(
    {"size", "sizes", "grosse", "groesse", "konfektionsgrosse", "schuhgrosse", "taille", "pointure", "talla",
     "taglia", "maat", "shoe size"}
)  # fmt: skip
COLOR_OPTIONS = frozenset({"color", "colour", "colors", "colours", "farbe", "couleur", "colore", "kleur", "farbton"})
MATERIAL_OPTIONS = frozenset({"material", "materiau", "matiere", "materiale"})
BRAND_OPTIONS = frozenset({"brand", "marke", "marque", "hersteller"})
MAX_DESCRIPTION = 5000
MAX_IMAGES = 20


def option_kind(name: str) -> str:
    """ "size", "color", "material", "brand" or "other" for an option/attribute name."""
    folded = fold(" ".join(name.split()))
    folded = folded.removeprefix("pa_").replace("_", " ").replace("-", " ")
    for kind, names in (("size", SIZE_OPTIONS), ("color", COLOR_OPTIONS), ("material", MATERIAL_OPTIONS),
                        ("brand", BRAND_OPTIONS)):  # fmt: skip
        if folded in names:
            return kind
    return "other"


# --- Shopify ---------------------------------------------------------------------------------

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


def from_shopify(table: CsvTable, words: OptionWords | None) -> Iterator[Parsed]:
    table.label = "the Shopify export"
    table.require(["title"], any_of=[_SHOPIFY["handle"]])
    table.warn_unknown(_SHOPIFY_KNOWN, _SHOPIFY_PREFIXES)
    groups: dict[str, list[tuple[int, dict[str, str]]]] = {}
    for number, row in table.rows():
        table.decimals(row, (*_SHOPIFY["price"], *_SHOPIFY["compare at"]))
        handle = _get(row, _SHOPIFY["handle"])
        if not handle:
            yield f"row {number}", ValidationError("the Handle is empty")
            continue
        groups.setdefault(handle, []).append((number, row))
    for handle, rows in groups.items():
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
    draft = _Draft(where, key, words)
    draft.name = first.get("title", "")
    draft.description = html_to_text(_get(first, _SHOPIFY["body"]))
    draft.brand = first.get("vendor", "")
    draft.category = first.get("type", "") or first.get("product category", "").split(">")[-1].strip()
    if not draft.category:
        yield where, ValidationError("it has no Type and no Product category (the catalog needs a category)")
        return
    option_names = [first.get(f"option{i} name", "") for i in (1, 2, 3)]
    images: list[tuple[float, int, str]] = []
    for order, (number, row) in enumerate(rows):
        if src := _get(row, _SHOPIFY["image"]):
            position = row.get("image position", "")
            images.append((float(position) if _is_number(position) else float("inf"), order, src))
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
        )
        if variant_image := _get(row, _SHOPIFY["variant image"]):
            images.append((float("inf"), len(rows) + order, variant_image))
    draft.images = [src for _, _, src in sorted(images)]
    yield from draft.finish(handle)


# --- WooCommerce -----------------------------------------------------------------------------

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
    table.label = "the WooCommerce export"
    table.require(["type", "name"], any_of=[("regular price", "sale price")])
    table.warn_unknown(_WOO_KNOWN, _WOO_PREFIXES)
    weight_column = next((c for c in table.names if re.fullmatch(r"weight \((kg|g|lbs|oz)\)", c)), None)
    parents: dict[str, _WooParent] = {}  # by "id:<ID>" and by SKU
    products: list[_WooParent] = []
    variations: list[tuple[int, dict[str, str]]] = []
    for number, row in table.rows():
        table.decimals(row, ("regular price", "sale price", *([weight_column] if weight_column else [])))
        kinds = {kind.strip().casefold() for kind in row.get("type", "").split(",")}
        key = f"SKU {row['sku']!r}" if row.get("sku") else repr(row.get("name") or row.get("id", ""))
        where = f"row {number} ({key})"
        if "variation" in kinds:
            variations.append((number, row))
            continue
        product = _WooParent(number, where, key, row, "variable" in kinds)
        if row.get("id"):
            parents[f"id:{row['id']}"] = product
        if row.get("sku"):
            parents[row["sku"]] = product
        if kinds & {"grouped", "external"}:
            product.skip = f"skipped: {'a grouped' if 'grouped' in kinds else 'an external'} product (not sold here)"
        elif not kinds & {"simple", "variable"}:
            product.skip = f"skipped: its type {row.get('type', '')!r} is not simple or variable"
        elif row.get("published", "1") not in ("1", ""):
            state = {"0": "private", "-1": "a draft"}.get(row["published"], f"published = {row['published']}")
            product.skip = f"skipped: it is {state} (published products are imported)"
        products.append(product)
    for number, row in variations:
        parent = parents.get(row.get("parent", ""))
        if parent is None:
            missing = row.get("parent", "")
            yield f"row {number}", ValidationError(f"a variation whose Parent {missing!r} is not in the file")
        else:
            parent.variations.append((number, row))
    slugs: set[str] = set()
    for product in products:
        if product.skip:
            yield product.where, ImportNote(product.skip)
            continue
        yield from _woo_product(product, words, weight_column, slugs)


@dataclass
class _WooParent:
    number: int
    where: str
    key: str
    row: dict[str, str]
    variable: bool
    skip: str = ""
    variations: list[tuple[int, dict[str, str]]] = field(default_factory=list)


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
    product: _WooParent, words: OptionWords | None, weight_column: str | None, slugs: set[str]
) -> Iterator[Parsed]:
    row = product.row
    draft = _Draft(product.where, product.key, words)
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
    attributes = _woo_attributes(row)
    for name, value in attributes.items():
        if option_kind(name) == "material" and len(_woo_list(value)) == 1:
            draft.material = value
        elif option_kind(name) == "brand" and len(_woo_list(value)) == 1:
            draft.brand = draft.brand or value
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
        )
    for number, variation in product.variations:
        options = {}
        for name, value in _woo_attributes(variation).items():
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
    if not value or column is None or not _is_number(value):
        return ""
    unit = column[column.index("(") + 1 : -1]
    return str(round(Decimal(value) * _GRAMS_PER[unit]))


# --- both ------------------------------------------------------------------------------------


@dataclass
class _Draft:
    """A product gathered from an export's rows, its variants checked one by one."""

    where: str  # of the product's first row: "row 2 (handle 'x')"
    key: str  # what names the product in its other rows' messages: "handle 'x'"
    words: OptionWords | None
    name: str = ""
    description: str = ""
    brand: str = ""
    material: str = ""
    category: str = ""
    images: list[str] = field(default_factory=list)
    prices: list[tuple[int, Decimal, Decimal | None]] = field(default_factory=list)  # (row, price, discount)
    variations: list[dict[str, Any]] = field(default_factory=list)
    seen: dict[tuple[str, str], int] = field(default_factory=dict)
    problems: list[tuple[str, ValidationError | ImportNote]] = field(default_factory=list)
    no_stock_count: int = 0
    other_options: dict[str, set[str]] = field(default_factory=dict)  # neither colour nor size: name -> values

    def variant(
        self, number: int, options: dict[str, str], *, price: tuple[str, str], before: tuple[str, str], quantity: str,
        grams: str, key: str = "",
    ) -> None:  # fmt: skip
        """Add the variant of this row: `price` is (column, cell) of the selling price, `before` that of the
        price before a discount (also the selling price when there is no discount)."""
        where = f"row {number} ({key or self.key})"
        color = size = ""
        others: dict[str, str] = {}
        for name, value in options.items():
            kind = option_kind(name)
            if kind == "color":
                color = value
            elif kind == "size":
                size = value
            else:
                others[name] = value
        color = color or self._color_in_name()
        size = size or "ONE SIZE"
        if self.words is not None:
            try:
                color, size = self.words.variation(color, size)
            except ValidationError as exc:
                hint = "" if color else " (add a Color option, or name the colour in the title)"
                self.problems.append((where, ValidationError(f"{exc}{hint}")))
                return
        if (color, size) in self.seen:
            lost = ", ".join(f"{name} {value!r}" for name, value in others.items())
            lost = f"; {lost} is not kept" if lost else ""
            self.problems.append((where, ValidationError(
                f"{color} {size} is already row {self.seen[color, size]}: the catalog tells variations apart by "
                f"colour and size only{lost}"
            )))  # fmt: skip
            return
        amounts: list[Decimal | None] = []
        for column, raw in (price if price[1] else before, before):
            try:
                amounts.append(Decimal(raw) if raw else None)
            except InvalidOperation:
                self.problems.append((where, ValidationError(f"the {column} {raw!r} is not a number")))
                return
        selling, regular = amounts
        if selling is None:
            self.problems.append((where, ValidationError(f"it has no price ({price[0]} is empty)")))
            return
        discount = selling if regular is not None and regular > selling else None
        self.prices.append((number, regular if discount is not None else selling, discount))
        variation: dict[str, Any] = {"color": color, "size": size, "quantity": 0}
        if not quantity:
            self.no_stock_count += 1
        elif re.fullmatch(r"-?\d+", quantity):
            variation["quantity"] = max(int(quantity), 0)  # below zero = oversold: none to sell
        else:
            self.problems.append((where, ValidationError(f"the stock {quantity!r} is not a whole number")))
            return
        if grams:
            if not _is_number(grams):
                self.problems.append((where, ValidationError(f"the weight {grams!r} is not a number")))
                return
            if (weight := round(Decimal(grams))) > 0:
                variation["weightGrams"] = weight
        self.seen[color, size] = number
        self.variations.append(variation)
        for name, value in others.items():
            self.other_options.setdefault(name, set()).add(value)

    def _color_in_name(self) -> str:
        if self.words is None:
            return ""
        found = {c for w in re.findall(r"[^\W\d_]+", self.name) if (c := self.words.color(w))}
        return found.pop() if len(found) == 1 else ""

    def finish(self, slug: str) -> Iterator[Parsed]:
        label = self.where
        yield from self.problems
        if not self.variations:
            if not self.problems:
                yield label, ValidationError("it has no variants with a price")
            return
        _, price, discount = self.prices[0]
        if len({(p, d) for _, p, d in self.prices}) > 1:
            selling = sorted({d if d is not None else p for _, p, d in self.prices})
            first = discount if discount is not None else price
            note = (
                f"its variants have different prices ({', '.join(f'{amount:.2f}' for amount in selling)}); the "
                f"catalog keeps one price per product, and {first:.2f} (the first variant's) was imported"
            )
            yield label, ImportNote(note)
        if self.no_stock_count:
            yield (
                label,
                ImportNote(
                    f"{self.no_stock_count} variant(s) have no stock count; imported with quantity 0 (not available)"
                ),
            )
        for name, values in self.other_options.items():
            if option_kind(name) == "material" and len(values) == 1 and not self.material:
                self.material = values.pop()
        description = self.description
        if len(description) > MAX_DESCRIPTION:
            description = description[: MAX_DESCRIPTION - 1].rsplit(None, 1)[0] + "…"
            yield label, ImportNote(f"its description was cut to {MAX_DESCRIPTION} characters")
        images = list(dict.fromkeys(self.images))
        if len(images) > MAX_IMAGES + 1:
            yield label, ImportNote(f"{len(images) - MAX_IMAGES - 1} of its {len(images)} images were left out")
        product = {
            "slug": slug if SLUG.match(slug) else slugify(slug),
            "name": self.name,
            "description": description,
            "brand": self.brand,
            "material": self.material,
            "category": self.category,
            "price": str(price),
            "discountPrice": str(discount) if discount is not None else None,
            "mainImage": images[0] if images else None,
            "images": images[1 : MAX_IMAGES + 1],
            "variations": self.variations,
        }
        yield convert(label, product, strict=False, name_slug=False)


def _is_number(text: str) -> bool:
    try:
        Decimal(text)
    except InvalidOperation:
        return False
    return True


_TRANSLITERATE = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "æ": "ae", "ø": "o", "œ": "oe"})


def slugify(text: str) -> str:
    """A catalog slug for a name: "Größe-Tabelle Ärmel" -> "groesse-tabelle-aermel"."""
    decomposed = unicodedata.normalize("NFKD", text.casefold().translate(_TRANSLITERATE))
    ascii_text = "".join(ch for ch in decomposed if not unicodedata.combining(ch)).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text).strip("-")[:120].rstrip("-")


class _TextOfHtml(HTMLParser):
    BLOCKS = frozenset({"p", "div", "br", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "table",
                        "section", "article", "blockquote", "hr", "dd", "dt"})  # fmt: skip
    HIDDEN = frozenset({"script", "style", "template", "head"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.HIDDEN:
            self.hidden += 1
        elif tag in self.BLOCKS:
            self.parts.append("\n- " if tag == "li" else "\n")
        elif tag in ("td", "th"):
            self.parts.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.HIDDEN:
            self.hidden = max(self.hidden - 1, 0)
        elif tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)


def html_to_text(html: str) -> str:
    """The text of an HTML description: tags dropped, entities read, one line per block."""
    if "<" not in html and "&" not in html:
        return " ".join(html.split())
    parser = _TextOfHtml()
    parser.feed(html)
    parser.close()
    lines = (" ".join(line.split()) for line in "".join(parser.parts).splitlines())
    return "\n".join(line for line in lines if line and line != "-")
