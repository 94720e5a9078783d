"""Checking a product as callers send it (`ProductInput`) and turning it into the normalised
`ProductDraft` the catalog stores; the first broken rule raises a ValidationError whose
message names the field ("variation 2: size 'XXXXL' is not one of …")."""

from __future__ import annotations

import re
from decimal import Decimal
from urllib.parse import urlsplit

from shopagent.domain.catalog import (
    MAX_PRICE,
    SLUG,
    CatalogRules,
    ProductDraft,
    ProductInput,
    Variation,
    VariationInput,
    check_stock,
)
from shopagent.domain.errors import ValidationError
from shopagent.domain.inputs import check_text
from shopagent.domain.options import option_folded, option_names, option_values, specs


def validate_product(data: ProductInput, rules: CatalogRules) -> ProductDraft:
    """Check every rule and return the normalised product; the first broken rule raises."""
    slug = data.slug.strip()
    if not SLUG.match(slug) or len(data.slug) > 120:
        raise ValidationError(
            f"slug {data.slug!r} must be 1-120 lowercase letters, digits and single hyphens", field="slug"
        )
    name = checked_text(data.name, "name", 1, 200)
    category = checked_text(data.category, "category", 1, 100)
    price, discount = _prices(data.price, data.discount_price, "")
    currency = (data.currency or rules.currency).strip().upper()
    if currency != rules.currency:
        raise ValidationError(
            f"currency {currency!r} differs from the store currency {rules.currency}", field="currency"
        )
    if data.rating is not None and not 0 <= data.rating <= 5:
        raise ValidationError(f"rating {data.rating} must be between 0 and 5", field="rating")
    images = tuple(checked_url(u, f"images[{i}]") for i, u in enumerate(data.images))
    if len(images) > 20:
        raise ValidationError("at most 20 images", field="images")
    names = option_names(data.options or _names_in(data.variations))
    variations = validate_variations(data.variations, rules, names, price)  # in the shop's order
    if price is None:
        cheapest = min(variations, key=lambda v: v.price or MAX_PRICE)
        if cheapest.price is None:
            raise ValidationError("price is missing: give the product a price, or each variation one", field="price")
        price = cheapest.price
    return ProductDraft(
        slug=slug,
        name=name,
        description=checked_text(data.description, "description", 0, 5000),
        brand=checked_text(data.brand, "brand", 0, 100),
        material=checked_text(data.material, "material", 0, 200),
        category=category,
        price=price,
        discount_price=discount,
        currency=currency,
        rating=round(data.rating, 2) if data.rating is not None else None,
        main_image=checked_url(data.main_image, "mainImage") if data.main_image else None,
        images=images,
        variations=variations,
        option_names=names,
        specs=specs(data.specs, "specs"),
        url=checked_url(data.url, "url") if data.url else None,
        external_id=_code(data.external_id, "externalId"),
    )


def _names_in(items: list[VariationInput]) -> list[str]:
    """The option names the variations use, first seen first (folded duplicates once)."""
    seen: dict[str, str] = {}
    for item in items:
        for name in item.options:
            seen.setdefault(option_folded(name), name)
    return list(seen.values())


def _prices(price: Decimal | None, discount: Decimal | None, where: str) -> tuple[Decimal | None, Decimal | None]:
    """A (price, discount price) pair checked: positive, two places, the discount lower."""
    prefix = f"{where}: " if where else ""
    checked = _money(price, f"{prefix}price") if price is not None else None
    cut = _money(discount, f"{prefix}discountPrice") if discount is not None else None
    if cut is not None and checked is not None and cut >= checked:
        raise ValidationError(
            f"{prefix}discountPrice {cut} must be lower than price {checked}", field="discountPrice" if not where
            else "variations"
        )  # fmt: skip
    return checked, cut


def validate_variations(
    items: list[VariationInput], rules: CatalogRules, names: tuple[str, ...] = (), price: Decimal | None = None
) -> tuple[Variation, ...]:
    """The product's variations checked; `names` are its options, `price` its own price (None: each
    variation needs one)."""
    if not items:
        raise ValidationError("a product needs at least one variation (its stock)", field="variations")
    if len(items) > 500:
        raise ValidationError("at most 500 variations per product", field="variations")
    seen: dict[str, int] = {}
    skus: dict[str, int] = {}
    result = []
    for number, item in enumerate(items, start=1):
        variation = _variation(item, rules, names, price, f"variation {number}")
        if variation.key in seen:
            shown = variation.describe() or "a variation without colour, size or options"
            raise ValidationError(
                f"variation {number}: {shown} already appears as variation {seen[variation.key]}", field="variations"
            )
        if variation.sku is not None and (first := skus.setdefault(variation.sku, number)) != number:
            # A stock update by SKU must find one variation, not whichever comes first.
            raise ValidationError(
                f"variation {number}: sku {variation.sku!r} is already the sku of variation {first}",
                field="variations",
            )
        seen[variation.key] = number
        result.append(variation)
    return tuple(result)


def _variation(
    item: VariationInput, rules: CatalogRules, names: tuple[str, ...], price: Decimal | None, where: str
) -> Variation:
    color = rules.color(item.color) if item.color.strip() else ""
    if color is None:
        raise ValidationError(
            f"{where}: colour {item.color!r} is not one of {', '.join(rules.colors)}", field="variations"
        )
    size = rules.size(item.size) if item.size.strip() else ""
    if size is None:
        raise ValidationError(f"{where}: size {item.size!r} is not one of {', '.join(rules.sizes)}", field="variations")
    check_stock(item.quantity, item.reserved, where)
    if item.weight_grams is not None and not 0 < item.weight_grams <= 100_000:
        raise ValidationError(f"{where}: weightGrams {item.weight_grams} must be 1-100000", field="variations")
    own, cut = _prices(item.price, item.discount_price, where)
    if own is None and cut is not None:
        if price is None:
            raise ValidationError(f"{where}: a discountPrice needs a price (the product has none)", field="variations")
        own, cut = _prices(price, cut, where)
    if own is None and price is None:
        raise ValidationError(f"{where}: no price (the product has none either)", field="variations")
    return Variation(
        color=color,
        size=size,
        options=option_values(names, item.options, where),
        quantity=item.quantity,
        reserved=item.reserved,
        weight_grams=item.weight_grams,
        price=own,
        discount_price=cut,
        sku=_code(item.sku, f"{where} sku"),
        external_id=_code(item.external_id, f"{where} externalId"),
        url=checked_url(item.url, f"{where} url") if item.url else None,
        specs=specs(item.specs, f"{where} specs"),
    )


def checked_text(value: str, field: str, least: int, most: int) -> str:
    text = check_text(value, field).strip()
    if not least <= len(text) <= most or len(value) > most:  # the limit holds before trimming too
        need = f"at most {most} characters" if least == 0 else f"{least}-{most} characters"
        raise ValidationError(f"{field} must be {need} (got {len(text)})", field=field)
    return text


def _code(value: str | None, field: str) -> str | None:
    """An identifier from the shop's system (SKU, external id): trimmed, at most 100 characters."""
    if value is None or not value.strip():
        return None
    code = check_text(value, field).strip()
    if len(code) > 100:
        raise ValidationError(f"{field} must be at most 100 characters (got {len(code)})", field=field)
    return code


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


def checked_url(value: str, field: str) -> str:
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
