"""The catalog: products, their variations, and the rules a product must satisfy.

`ProductInput` is what callers send (the admin API, an import file); `validation.validate_product`
turns it into a `ProductDraft` with normalised values or raises a ValidationError whose
message names the field ("variation 2: size 'XXXXL' is not one of …"). `Product` is what
the catalog stores. Prices are Decimals with at most two places, never floats.

A variation is told apart by its colour, size (both optional, from the shop's vocabularies)
and the values of the product's named options (domain/options.py); it may carry its own price,
SKU, link and specs. A product's shown price is "from" its cheapest available variation.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Annotated

import msgspec
from msgspec import UNSET, UnsetType

from shopagent.domain.errors import ValidationError
from shopagent.domain.inputs import ASCII_DECIMAL, Amount
from shopagent.domain.options import SpecValue, fold, option_folded

SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MAX_PRICE = Decimal("10000000")
MAX_QUANTITY = 1_000_000


if TYPE_CHECKING:
    Price = Decimal  # what an Amount is
else:
    # Decoded with domain.inputs.decode_hook: ASCII digits only, like ids and query parameters.
    Price = Annotated[
        Amount, msgspec.Meta(extra_json_schema={"type": "string", "format": "decimal", "pattern": f"^{ASCII_DECIMAL}$"})
    ]


class _Input(msgspec.Struct, forbid_unknown_fields=True, rename="camel", kw_only=True):
    pass


def _doc(**schema: object) -> msgspec.Meta:
    """Limits stated in the JSON Schema (OpenAPI) only; validate_product checks them, with its own
    messages, after the text is trimmed."""
    return msgspec.Meta(extra_json_schema=schema)


ReadOnlyInt = Annotated[int, _doc(readOnly=True)]
ReadOnlyTime = Annotated[datetime, _doc(readOnly=True, format="date-time")]


Specs = Annotated[dict[str, SpecValue], _doc(maxProperties=30)]


class VariationInput(_Input, kw_only=True, omit_defaults=True):
    """One variation; the fields it does not use are left out when it is sent back."""

    color: str = ""
    size: str = ""
    options: dict[str, str] = msgspec.field(default_factory=dict)
    quantity: int
    reserved: int = 0
    weight_grams: int | None = None
    price: Price | None = None
    discount_price: Price | None = None
    sku: Annotated[str, _doc(maxLength=100)] | None = None
    external_id: Annotated[str, _doc(maxLength=100)] | None = None
    url: str | None = None
    specs: Specs = msgspec.field(default_factory=dict)
    available: Annotated[int, _doc(readOnly=True)] | UnsetType = UNSET  # accepted so a GET can be sent back


class ProductInput(_Input):
    """A whole product as sent by a client; also the shape the admin API returns."""

    slug: Annotated[str, _doc(maxLength=120)]
    name: Annotated[str, _doc(minLength=1, maxLength=200)]
    category: Annotated[str, _doc(minLength=1, maxLength=100)]
    variations: Annotated[list[VariationInput], _doc(minItems=1)]
    price: Price | None = None  # may be left out when every variation has its own
    description: Annotated[str, _doc(maxLength=5000)] = ""
    brand: Annotated[str, _doc(maxLength=100)] = ""
    material: Annotated[str, _doc(maxLength=200)] = ""
    discount_price: Price | None = None
    currency: str | None = None
    rating: Annotated[float, _doc(minimum=0, maximum=5)] | None = None
    main_image: str | None = None
    images: Annotated[list[str], _doc(maxItems=20)] = msgspec.field(default_factory=list)
    options: Annotated[list[str], _doc(maxItems=3)] = msgspec.field(default_factory=list)
    specs: Specs = msgspec.field(default_factory=dict)
    url: str | None = None
    external_id: Annotated[str, _doc(maxLength=100)] | None = None
    # Read-only fields of a stored product, accepted (and ignored) so a GET can be edited and sent back.
    id: ReadOnlyInt | UnsetType = UNSET
    created_at: ReadOnlyTime | UnsetType = UNSET
    updated_at: ReadOnlyTime | UnsetType = UNSET


class ProductPatch(_Input):
    """A partial update: only the fields given change; `variations`, if given, replaces them all."""

    slug: str | UnsetType = UNSET
    name: str | UnsetType = UNSET
    category: str | UnsetType = UNSET
    price: Price | UnsetType | None = UNSET
    variations: list[VariationInput] | UnsetType = UNSET
    description: str | UnsetType = UNSET
    brand: str | UnsetType = UNSET
    material: str | UnsetType = UNSET
    discount_price: Price | UnsetType | None = UNSET
    currency: str | UnsetType | None = UNSET
    rating: float | UnsetType | None = UNSET
    main_image: str | UnsetType | None = UNSET
    images: list[str] | UnsetType = UNSET
    options: list[str] | UnsetType = UNSET
    specs: dict[str, SpecValue] | UnsetType = UNSET
    url: str | UnsetType | None = UNSET
    external_id: str | UnsetType | None = UNSET
    id: ReadOnlyInt | UnsetType = UNSET
    created_at: ReadOnlyTime | UnsetType = UNSET
    updated_at: ReadOnlyTime | UnsetType = UNSET


class Variation(msgspec.Struct, frozen=True, kw_only=True):
    color: str = ""  # "" when the product has no colours
    size: str = ""  # "" when the product has no sizes
    options: dict[str, str] = msgspec.field(default_factory=dict)  # option name -> value, in the product's order
    quantity: int
    reserved: int = 0
    weight_grams: int | None = None
    price: Decimal | None = None  # its own price; None: the product's
    discount_price: Decimal | None = None  # only with its own price
    sku: str | None = None
    external_id: str | None = None
    url: str | None = None
    specs: dict[str, SpecValue] = msgspec.field(default_factory=dict)  # its own, over the product's

    @property
    def available(self) -> int:
        return max(self.quantity - self.reserved, 0)

    @property
    def key(self) -> str:
        """What tells it apart from the product's other variations (and finds it in storage)."""
        return "\x1f".join((self.color, self.size, *(option_folded(v) for v in self.options.values())))

    def describe(self) -> str:
        """ "red M", "Presta 700x28c", or "" for the only variation of a product without options."""
        return " ".join(part for part in (self.color, self.size, *self.options.values()) if part)


class ProductDraft(msgspec.Struct, frozen=True, kw_only=True):
    """A validated, normalised product, ready to be stored."""

    slug: str
    name: str
    description: str
    brand: str
    material: str
    category: str
    price: Decimal
    discount_price: Decimal | None
    currency: str
    rating: float | None
    main_image: str | None
    images: tuple[str, ...]
    variations: tuple[Variation, ...]
    option_names: tuple[str, ...] = ()
    specs: dict[str, SpecValue] = msgspec.field(default_factory=dict)
    url: str | None = None
    external_id: str | None = None

    def regular_price(self, variation: Variation) -> Decimal:
        return variation.price if variation.price is not None else self.price

    def paid_price(self, variation: Variation) -> Decimal:
        """What `variation` sells for: its own discount or price, else the product's."""
        if variation.price is not None:
            return variation.discount_price if variation.discount_price is not None else variation.price
        return self.discount_price if self.discount_price is not None else self.price

    def variation_specs(self, variation: Variation) -> dict[str, SpecValue]:
        return {**self.specs, **variation.specs}

    @property
    def prices_vary(self) -> bool:
        return len({self.paid_price(v) for v in self.variations}) > 1

    @property
    def effective_price(self) -> Decimal:
        """The price a shopper pays "from": the cheapest available variation's (of all when none is)."""
        available = [v for v in self.variations if v.available > 0] or list(self.variations)
        if not available:
            return self.discount_price if self.discount_price is not None else self.price
        return min(self.paid_price(v) for v in available)

    @property
    def effective_regular_price(self) -> Decimal:
        """The price before discount of the variation `effective_price` is for."""
        available = [v for v in self.variations if v.available > 0] or list(self.variations)
        if not available:
            return self.price
        cheapest = min(available, key=self.paid_price)
        return self.regular_price(cheapest)


class Product(ProductDraft, frozen=True, kw_only=True):
    id: int
    version: int
    created_at: datetime
    updated_at: datetime

    def draft(self) -> ProductDraft:
        fields = {f: getattr(self, f) for f in ProductDraft.__struct_fields__}
        return ProductDraft(**fields)


@dataclass(frozen=True)
class CatalogRules:
    """The vocabularies and store defaults a product is checked against. Colours are lower case;
    sizes keep the shop's spelling ("52 cm", "Regular") and are matched case- and
    accent-insensitively. `color_words`/`size_words` (folded word -> colour/size) are the other
    names shops write them by ("Schwarz", "16 inch"), accepted by every import format."""

    currency: str
    colors: tuple[str, ...]
    sizes: tuple[str, ...]
    color_aliases: Mapping[str, str]
    color_words: Mapping[str, str] = field(default_factory=dict)
    size_words: Mapping[str, str] = field(default_factory=dict)
    spec_units: Mapping[str, str] = field(default_factory=dict)
    _size_by_fold: dict[str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_size_by_fold", {option_folded(s): s for s in reversed(self.sizes)})

    @classmethod
    def create(
        cls, currency: str, colors: Iterable[str], sizes: Iterable[str], aliases: Mapping[str, str]
    ) -> CatalogRules:
        colors_n = tuple(normalise_color(c) for c in colors)
        aliases_n = {normalise_color(k): normalise_color(v) for k, v in aliases.items()}
        for alias, target in aliases_n.items():
            if target not in colors_n:
                raise ValidationError(f"colour alias {alias!r} points to {target!r}, which is not a colour")
        return cls(currency, colors_n, tuple(" ".join(s.split()) for s in sizes), aliases_n)

    def with_words(
        self, colors: Mapping[str, str], sizes: Mapping[str, str], spec_units: Mapping[str, str] | None = None
    ) -> CatalogRules:
        """These rules, also accepting the other names of colours and sizes (targets must exist)."""
        return replace(
            self,
            color_words={fold(k): c for k, v in colors.items() if (c := self.color(v)) is not None},
            size_words={option_folded(k): z for k, v in sizes.items() if (z := self.size(v)) is not None},
            spec_units=dict(spec_units or self.spec_units),
        )

    def color(self, raw: str) -> str | None:
        value = normalise_color(raw)
        value = self.color_aliases.get(value, value)
        if value in self.colors:
            return value
        return self.color_words.get(fold(value))

    def size(self, raw: str) -> str | None:
        folded = option_folded(raw)
        return self._size_by_fold.get(folded) or self.size_words.get(folded)


def normalise_color(raw: str) -> str:
    return " ".join(raw.split()).casefold()


def check_stock(quantity: int, reserved: int, where: str) -> None:
    """The stock bounds every write path checks (create, update, import, stock changes), so
    whatever one path accepts another can store and a stored product can be sent back."""
    if not 0 <= quantity <= MAX_QUANTITY:
        raise ValidationError(f"{where}: quantity {quantity} must be 0-{MAX_QUANTITY}", field="variations")
    if not 0 <= reserved <= quantity:
        raise ValidationError(
            f"{where}: reserved {reserved} must be between 0 and the quantity {quantity}", field="variations"
        )


def find_variation(
    product: ProductDraft, rules: CatalogRules, color: str, size: str, options: Mapping[str, str], sku: str | None
) -> Variation | None:
    """The product's variation with this SKU, or with this colour, size and option values (names and
    values compared folded; colour and size by the shop's words too)."""
    if sku:
        return next((v for v in product.variations if v.sku == sku.strip()), None)
    wanted_color = rules.color(color) if color.strip() else ""
    wanted_size = rules.size(size) if size.strip() else ""
    wanted = {option_folded(k): option_folded(v) for k, v in options.items()}
    for variation in product.variations:
        have = {option_folded(k): option_folded(v) for k, v in variation.options.items()}
        if (variation.color, variation.size) == (wanted_color, wanted_size) and have == wanted:
            return variation
    return None


def adjusted_stock(variation: Variation, quantity_delta: int, reserved_delta: int) -> Variation:
    """`variation` with its stock changed by the deltas, or ValidationError when the result
    breaks the bounds (Python integers: the sum cannot overflow before it is checked)."""
    changed = msgspec.structs.replace(
        variation, quantity=variation.quantity + quantity_delta, reserved=variation.reserved + reserved_delta
    )
    check_stock(changed.quantity, changed.reserved, f"variation {variation.describe()}".strip())
    return changed


def apply_patch(current: Product, patch: ProductPatch) -> ProductInput:
    """The whole product that results from applying `patch` to `current` (not yet validated)."""
    base = product_to_input(current)
    changes = {f: getattr(patch, f) for f in ProductPatch.__struct_fields__ if getattr(patch, f) is not UNSET}
    for read_only in ("id", "created_at", "updated_at"):
        changes.pop(read_only, None)
    return msgspec.structs.replace(base, **changes)


def product_to_input(product: Product) -> ProductInput:
    """The admin API shape of a stored product (the same shape POST/PUT accept)."""
    return ProductInput(
        id=product.id,
        slug=product.slug,
        name=product.name,
        description=product.description,
        brand=product.brand,
        material=product.material,
        category=product.category,
        price=product.price,
        discount_price=product.discount_price,
        currency=product.currency,
        rating=product.rating,
        main_image=product.main_image,
        images=list(product.images),
        options=list(product.option_names),
        specs=dict(product.specs),
        url=product.url,
        external_id=product.external_id,
        variations=[
            VariationInput(
                color=v.color,
                size=v.size,
                options=dict(v.options),
                quantity=v.quantity,
                reserved=v.reserved,
                weight_grams=v.weight_grams,
                price=v.price,
                discount_price=v.discount_price,
                sku=v.sku,
                external_id=v.external_id,
                url=v.url,
                specs=dict(v.specs),
                available=v.available,
            )
            for v in product.variations
        ],
        created_at=product.created_at,
        updated_at=product.updated_at,
    )
