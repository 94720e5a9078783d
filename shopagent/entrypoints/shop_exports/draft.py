"""A product gathered from the rows of a shop export, its variants checked one by one."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from shopagent.application.catalog import ImportNote
from shopagent.domain.catalog import SLUG
from shopagent.domain.errors import ValidationError
from shopagent.domain.inputs import amount
from shopagent.domain.options import fold
from shopagent.domain.text import OptionWords
from shopagent.entrypoints.import_records import Parsed, convert
from shopagent.entrypoints.shop_exports.cells import is_number, option_kind, slugify

MAX_DESCRIPTION = 5000
MAX_IMAGES = 20


@dataclass
class Draft:
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
    variations: list[dict[str, Any]] = field(default_factory=list)
    seen: dict[tuple[str, ...], int] = field(default_factory=dict)
    problems: list[tuple[str, ValidationError | ImportNote]] = field(default_factory=list)
    no_stock_count: int = 0
    option_names: list[str] = field(default_factory=list)  # neither colour nor size, first seen first
    specs: dict[str, object] = field(default_factory=dict)
    url: str | None = None
    external_id: str | None = None

    def variant(
        self, number: int, options: dict[str, str], *, price: tuple[str, str], before: tuple[str, str], quantity: str,
        grams: str, key: str = "", sku: str = "", external_id: str = "", specs: dict[str, object] | None = None,
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
            elif value:
                others[" ".join(name.split())] = value
        color = color or self._color_in_name()
        if self.words is not None:
            try:
                color, size = self.words.variation(color, size)
            except ValidationError as exc:
                self.problems.append((where, exc))
                return
        identity = (color, size, *(f"{fold(n)}={fold(v)}" for n, v in sorted(others.items())))
        if identity in self.seen:
            shown = " ".join(part for part in (color, size, *others.values()) if part) or "a variant without options"
            self.problems.append((where, ValidationError(f"{shown} is already row {self.seen[identity]}")))
            return
        amounts: list[Decimal | None] = []
        for column, raw in (price if price[1] else before, before):
            try:
                amounts.append(amount(raw) if raw else None)
            except ValueError:
                self.problems.append((where, ValidationError(f"the {column} {raw!r} is not a number")))
                return
        selling, regular = amounts
        if selling is None:
            self.problems.append((where, ValidationError(f"it has no price ({price[0]} is empty)")))
            return
        discount = selling if regular is not None and regular > selling else None
        variation: dict[str, Any] = {
            "color": color, "size": size, "quantity": 0, "price": str(regular if discount is not None else selling),
            "discountPrice": str(discount) if discount is not None else None,
        }  # fmt: skip
        if others:
            variation["options"] = others
        if sku:
            variation["sku"] = sku
        if external_id:
            variation["externalId"] = external_id
        if specs:
            variation["specs"] = specs
        if not quantity:
            self.no_stock_count += 1
        elif re.fullmatch(r"-?\d+", quantity):
            variation["quantity"] = max(int(quantity), 0)  # below zero = oversold: none to sell
        else:
            self.problems.append((where, ValidationError(f"the stock {quantity!r} is not a whole number")))
            return
        if grams:
            if not is_number(grams):
                self.problems.append((where, ValidationError(f"the weight {grams!r} is not a number")))
                return
            if (weight := round(Decimal(grams))) > 0:
                variation["weightGrams"] = weight
        self.seen[identity] = number
        self.variations.append(variation)
        for name in others:
            if fold(name) not in map(fold, self.option_names):
                self.option_names.append(name)

    def _color_in_name(self) -> str:
        """The one catalog colour the product's name names ("Wool Beanie Navy"), else ""."""
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
        if self.no_stock_count:
            yield (
                label,
                ImportNote(
                    f"{self.no_stock_count} variant(s) have no stock count; imported with quantity 0 (not available)"
                ),
            )
        for name in list(self.option_names):
            values = {v["options"][name] for v in self.variations if name in v.get("options", {})}
            if option_kind(name) == "material" and len(values) == 1 and not self.material:
                self.material = values.pop()  # one material for every variant: the product's
                self.option_names.remove(name)
                for variation in self.variations:
                    variation.get("options", {}).pop(name, None)
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
            "mainImage": images[0] if images else None,
            "images": images[1 : MAX_IMAGES + 1],
            "options": self.option_names,
            "specs": self.specs,
            "url": self.url,
            "externalId": self.external_id,
            "variations": self.variations,
            **_shared_price(self.variations),
        }
        yield convert(label, product, strict=False, name_slug=False)


def _shared_price(variations: list[dict[str, Any]]) -> dict[str, Any]:
    """The product's price when every variation sells at the same one (taken off the variations);
    otherwise nothing, each variation keeping its own."""
    prices = {(v.get("price"), v.get("discountPrice")) for v in variations}
    if len(prices) != 1:
        return {}
    for variation in variations:
        variation.pop("price", None)
        variation.pop("discountPrice", None)
    price, discount = prices.pop()
    return {"price": price, "discountPrice": discount}
