"""The catalog: products, their variations, and the rules a product must satisfy.

`ProductInput` is what callers send (the admin API, an import file); `validate_product`
turns it into a `ProductDraft` with normalised values or raises a ValidationError whose
message names the field ("variation 2: size 'XXXXL' is not one of …"). `Product` is what
the catalog stores. Prices are Decimals with at most two places, never floats.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Annotated
from urllib.parse import urlsplit

import msgspec
from msgspec import UNSET, UnsetType

from shopagent.domain.errors import ValidationError
from shopagent.domain.inputs import ASCII_DECIMAL, Amount, check_text

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


class VariationInput(_Input):
    color: str
    size: str
    quantity: int
    reserved: int = 0
    weight_grams: int | None = None
    available: Annotated[int, _doc(readOnly=True)] | UnsetType = UNSET  # accepted so a GET can be sent back


class ProductInput(_Input):
    """A whole product as sent by a client; also the shape the admin API returns."""

    slug: Annotated[str, _doc(maxLength=120)]
    name: Annotated[str, _doc(minLength=1, maxLength=200)]
    category: Annotated[str, _doc(minLength=1, maxLength=100)]
    price: Price
    variations: Annotated[list[VariationInput], _doc(minItems=1)]
    description: Annotated[str, _doc(maxLength=5000)] = ""
    brand: Annotated[str, _doc(maxLength=100)] = ""
    material: Annotated[str, _doc(maxLength=200)] = ""
    discount_price: Price | None = None
    currency: str | None = None
    rating: Annotated[float, _doc(minimum=0, maximum=5)] | None = None
    main_image: str | None = None
    images: Annotated[list[str], _doc(maxItems=20)] = msgspec.field(default_factory=list)
    # Read-only fields of a stored product, accepted (and ignored) so a GET can be edited and sent back.
    id: ReadOnlyInt | UnsetType = UNSET
    created_at: ReadOnlyTime | UnsetType = UNSET
    updated_at: ReadOnlyTime | UnsetType = UNSET


class ProductPatch(_Input):
    """A partial update: only the fields given change; `variations`, if given, replaces them all."""

    slug: str | UnsetType = UNSET
    name: str | UnsetType = UNSET
    category: str | UnsetType = UNSET
    price: Price | UnsetType = UNSET
    variations: list[VariationInput] | UnsetType = UNSET
    description: str | UnsetType = UNSET
    brand: str | UnsetType = UNSET
    material: str | UnsetType = UNSET
    discount_price: Price | UnsetType | None = UNSET
    currency: str | UnsetType | None = UNSET
    rating: float | UnsetType | None = UNSET
    main_image: str | UnsetType | None = UNSET
    images: list[str] | UnsetType = UNSET
    id: ReadOnlyInt | UnsetType = UNSET
    created_at: ReadOnlyTime | UnsetType = UNSET
    updated_at: ReadOnlyTime | UnsetType = UNSET


class Variation(msgspec.Struct, frozen=True, kw_only=True):
    color: str
    size: str
    quantity: int
    reserved: int = 0
    weight_grams: int | None = None

    @property
    def available(self) -> int:
        return max(self.quantity - self.reserved, 0)


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


class Product(ProductDraft, frozen=True, kw_only=True):
    id: int
    version: int
    created_at: datetime
    updated_at: datetime

    def draft(self) -> ProductDraft:
        fields = {f: getattr(self, f) for f in ProductDraft.__struct_fields__}
        return ProductDraft(**fields)

    @property
    def effective_price(self) -> Decimal:
        return self.discount_price if self.discount_price is not None else self.price


@dataclass(frozen=True)
class CatalogRules:
    """The vocabularies and store defaults a product is checked against (and written with)."""

    currency: str
    colors: tuple[str, ...]
    sizes: tuple[str, ...]
    color_aliases: Mapping[str, str]
    locale: str = "en"  # BCP 47: how prices are written to customers (domain/prices.py)

    @classmethod
    def create(
        cls,
        currency: str,
        colors: Iterable[str],
        sizes: Iterable[str],
        aliases: Mapping[str, str],
        locale: str = "en",
    ) -> CatalogRules:
        colors_n = tuple(normalise_color(c) for c in colors)
        aliases_n = {normalise_color(k): normalise_color(v) for k, v in aliases.items()}
        for alias, target in aliases_n.items():
            if target not in colors_n:
                raise ValidationError(f"colour alias {alias!r} points to {target!r}, which is not a colour")
        return cls(currency, colors_n, tuple(normalise_size(s) for s in sizes), aliases_n, locale)

    def color(self, raw: str) -> str | None:
        value = normalise_color(raw)
        value = self.color_aliases.get(value, value)
        return value if value in self.colors else None

    def size(self, raw: str) -> str | None:
        value = normalise_size(raw)
        return value if value in self.sizes else None


def normalise_color(raw: str) -> str:
    return " ".join(raw.split()).casefold()


def normalise_size(raw: str) -> str:
    return " ".join(raw.split()).upper()


def validate_product(data: ProductInput, rules: CatalogRules) -> ProductDraft:
    """Check every rule and return the normalised product; the first broken rule raises."""
    slug = data.slug.strip()
    if not SLUG.match(slug) or len(data.slug) > 120:
        raise ValidationError(
            f"slug {data.slug!r} must be 1-120 lowercase letters, digits and single hyphens", field="slug"
        )
    name = _text(data.name, "name", 1, 200)
    category = _text(data.category, "category", 1, 100)
    price = _money(data.price, "price")
    discount = _money(data.discount_price, "discountPrice") if data.discount_price is not None else None
    if discount is not None and discount >= price:
        raise ValidationError(f"discountPrice {discount} must be lower than price {price}", field="discountPrice")
    currency = (data.currency or rules.currency).strip().upper()
    if currency != rules.currency:
        raise ValidationError(
            f"currency {currency!r} differs from the store currency {rules.currency}", field="currency"
        )
    if data.rating is not None and not 0 <= data.rating <= 5:
        raise ValidationError(f"rating {data.rating} must be between 0 and 5", field="rating")
    images = tuple(_url(u, f"images[{i}]") for i, u in enumerate(data.images))
    if len(images) > 20:
        raise ValidationError("at most 20 images", field="images")
    return ProductDraft(
        slug=slug,
        name=name,
        description=_text(data.description, "description", 0, 5000),
        brand=_text(data.brand, "brand", 0, 100),
        material=_text(data.material, "material", 0, 200),
        category=category,
        price=price,
        discount_price=discount,
        currency=currency,
        rating=round(data.rating, 2) if data.rating is not None else None,
        main_image=_url(data.main_image, "mainImage") if data.main_image else None,
        images=images,
        variations=sort_variations(validate_variations(data.variations, rules)),
    )


def validate_variations(items: list[VariationInput], rules: CatalogRules) -> tuple[Variation, ...]:
    if not items:
        raise ValidationError(
            "a product needs at least one variation (use size 'ONE SIZE' for one-size items)", field="variations"
        )
    if len(items) > 500:
        raise ValidationError("at most 500 variations per product", field="variations")
    seen: dict[tuple[str, str], int] = {}
    result = []
    for number, item in enumerate(items, start=1):
        where = f"variation {number}"
        color = rules.color(item.color)
        if color is None:
            raise ValidationError(
                f"{where}: colour {item.color!r} is not one of {', '.join(rules.colors)}", field="variations"
            )
        size = rules.size(item.size)
        if size is None:
            raise ValidationError(
                f"{where}: size {item.size!r} is not one of {', '.join(rules.sizes)}", field="variations"
            )
        if (color, size) in seen:
            raise ValidationError(
                f"{where}: {color} {size} already appears as variation {seen[color, size]}", field="variations"
            )
        seen[color, size] = number
        check_stock(item.quantity, item.reserved, where)
        if item.weight_grams is not None and not 0 < item.weight_grams <= 100_000:
            raise ValidationError(f"{where}: weightGrams {item.weight_grams} must be 1-100000", field="variations")
        result.append(
            Variation(
                color=color, size=size, quantity=item.quantity, reserved=item.reserved, weight_grams=item.weight_grams
            )
        )
    return tuple(result)


def check_stock(quantity: int, reserved: int, where: str) -> None:
    """The stock bounds every write path checks (create, update, import, stock changes), so
    whatever one path accepts another can store and a stored product can be sent back."""
    if not 0 <= quantity <= MAX_QUANTITY:
        raise ValidationError(f"{where}: quantity {quantity} must be 0-{MAX_QUANTITY}", field="variations")
    if not 0 <= reserved <= quantity:
        raise ValidationError(
            f"{where}: reserved {reserved} must be between 0 and the quantity {quantity}", field="variations"
        )


def adjusted_stock(variation: Variation, quantity_delta: int, reserved_delta: int) -> Variation:
    """`variation` with its stock changed by the deltas, or ValidationError when the result
    breaks the bounds (Python integers: the sum cannot overflow before it is checked)."""
    changed = msgspec.structs.replace(
        variation, quantity=variation.quantity + quantity_delta, reserved=variation.reserved + reserved_delta
    )
    check_stock(changed.quantity, changed.reserved, f"variation {variation.color} {variation.size}")
    return changed


def sort_variations(variations: Iterable[Variation]) -> tuple[Variation, ...]:
    """The canonical order of a product's variations (so equal products compare equal)."""
    return tuple(sorted(variations, key=lambda v: (v.color, v.size)))


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
        variations=[
            VariationInput(
                color=v.color,
                size=v.size,
                quantity=v.quantity,
                reserved=v.reserved,
                weight_grams=v.weight_grams,
                available=v.available,
            )
            for v in product.variations
        ],
        created_at=product.created_at,
        updated_at=product.updated_at,
    )


def _text(value: str, field: str, least: int, most: int) -> str:
    text = check_text(value, field).strip()
    if not least <= len(text) <= most or len(value) > most:  # the limit holds before trimming too
        need = f"at most {most} characters" if least == 0 else f"{least}-{most} characters"
        raise ValidationError(f"{field} must be {need} (got {len(text)})", field=field)
    return text


def _money(value: Decimal, field: str) -> Decimal:
    if not value.is_finite() or value <= 0 or value >= MAX_PRICE:
        raise ValidationError(f"{field} {value} must be a positive amount below {MAX_PRICE}", field=field)
    if value.as_tuple().exponent < -2:  # type: ignore[operator]
        raise ValidationError(f"{field} {value} has more than two decimal places", field=field)
    return value.quantize(Decimal("0.01"))


# An http(s) URL with a host, and none of the ASCII characters RFC 3986 leaves out (space, ",
# <>, backslash, ^, `, {|}) unless percent-encoded; letters beyond ASCII are let through, as
# browsers take them (IRIs).
_URL = re.compile(r"https?://[^\s\"<>\\^`{|}]+")


def _url(value: str, field: str) -> str:
    url = check_text(value, field).strip()
    if not _URL.fullmatch(url) or len(url) > 2000 or not _has_host(url):
        raise ValidationError(f"{field} {value!r} must be an http(s) URL", field=field)
    return url


def _has_host(url: str) -> bool:
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 -- raises ValueError for a port that is not a number 0-65535
    except ValueError:
        return False
    return bool(parts.hostname)
