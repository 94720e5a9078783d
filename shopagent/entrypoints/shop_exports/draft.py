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
                amounts.append(amount(raw) if raw else None)
            except ValueError:
                self.problems.append((where, ValidationError(f"the {column} {raw!r} is not a number")))
                return
        selling, regular = amounts
        if selling is None:
            self.problems.append((where, ValidationError(f"it has no price ({price[0]} is empty)")))
            return
        discount = selling if regular is not None and regular > selling else None
        self.prices.append((number, regular if regular is not None and discount is not None else selling, discount))
        variation: dict[str, Any] = {"color": color, "size": size, "quantity": 0}
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
