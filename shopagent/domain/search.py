"""Search requests and results: what a shopper may ask for and what comes back.

`validate_search` turns raw arguments into a `SearchRequest` with normalised colours and
sizes, or raises a ValidationError whose message tells the caller (often an LLM) exactly
what to change.
"""

from __future__ import annotations

import unicodedata
from decimal import Decimal

import msgspec

from shopagent.domain.catalog import MAX_PRICE, CatalogRules
from shopagent.domain.errors import ValidationError

MAX_QUERY_CHARS = 2000
MAX_LIMIT = 20
DEFAULT_LIMIT = 5


class SearchFilters(msgspec.Struct, frozen=True, kw_only=True):
    colors: tuple[str, ...] = ()
    sizes: tuple[str, ...] = ()
    min_price: Decimal | None = None
    max_price: Decimal | None = None
    in_stock: bool = False

    @property
    def on_variation(self) -> bool:
        """Colours, sizes and stock are judged together, on one variation."""
        return bool(self.colors or self.sizes or self.in_stock)

    @property
    def any(self) -> bool:
        """Whether any filter is set at all."""
        return self.on_variation or self.min_price is not None or self.max_price is not None


class SearchRequest(msgspec.Struct, frozen=True, kw_only=True):
    query: str
    limit: int = DEFAULT_LIMIT
    filters: SearchFilters = SearchFilters()


class ProductHit(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    product_id: int
    name: str
    slug: str
    category: str
    price: Decimal
    discounted_price: Decimal | None
    effective_price: Decimal
    currency: str
    rating: float | None
    main_image: str | None
    match: str  # strong | partial | weak (domain.ranking.Match)
    in_stock: bool  # the asked colour/size (any variation when none asked) can be bought now
    available_quantity: int  # units of it that can be bought now
    distance: float | None  # cosine distance of the closest chunk; None while it is not indexed yet
    available_colors: list[str]
    available_sizes: list[str]


class SearchResult(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    products: list[ProductHit]
    best_match: str | None  # the best grade among the products; None when there are none
    no_strong_match: bool  # nothing graded strong: the shop may not carry what was asked
    corrections: dict[str, str]  # query words the catalog never uses -> the catalog words searched instead


class VariationDetails(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    color: str
    size: str
    available: int
    weight_grams: int | None


class ProductDetails(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    product_id: int
    name: str
    slug: str
    category: str
    description: str
    brand: str
    material: str
    price: Decimal
    discounted_price: Decimal | None
    effective_price: Decimal
    currency: str
    rating: float | None
    main_image: str | None
    images: list[str]
    in_stock: bool
    variations: list[VariationDetails]


def clean_text(text: str) -> str:
    """Without control characters (NUL among them) and lone surrogates, which no database or
    tokenizer accepts; a shopper's text never needs them."""
    text = text.encode("utf-8", "replace").decode("utf-8")
    return "".join(" " if unicodedata.category(ch) == "Cc" else ch for ch in text)


def validate_search(
    query: str,
    limit: int,
    colors: list[str],
    sizes: list[str],
    min_price: Decimal | None,
    max_price: Decimal | None,
    in_stock: bool,
    rules: CatalogRules,
) -> SearchRequest:
    text = " ".join(clean_text(query).split())
    if not text:
        raise ValidationError("query is empty; describe what the customer is looking for", field="query")
    if len(text) > MAX_QUERY_CHARS:
        raise ValidationError(
            f"query is {len(text)} characters; keep it under {MAX_QUERY_CHARS} (a short description of the item)",
            field="query",
        )
    if not 1 <= limit <= MAX_LIMIT:
        raise ValidationError(f"limit {limit} is out of range; use 1 to {MAX_LIMIT}", field="limit")
    norm_colors = []
    for color in colors:
        found = rules.color(color)
        if found is None:
            raise ValidationError(
                f"unknown colour {color!r}; use one of: {', '.join(rules.colors)}", field="filters.colors"
            )
        norm_colors.append(found)
    norm_sizes = []
    for size in sizes:
        found = rules.size(size)
        if found is None:
            raise ValidationError(f"unknown size {size!r}; use one of: {', '.join(rules.sizes)}", field="filters.sizes")
        norm_sizes.append(found)
    for name, value in (("minPrice", min_price), ("maxPrice", max_price)):
        if value is not None and (not value.is_finite() or value < 0 or value >= MAX_PRICE):
            raise ValidationError(f"{name} {value} must be from 0 to below {MAX_PRICE}", field=f"filters.{name}")
    if min_price is not None and max_price is not None and min_price > max_price:
        raise ValidationError(
            f"minPrice {min_price} is greater than maxPrice {max_price}; swap or widen them", field="filters"
        )
    return SearchRequest(
        query=text,
        limit=limit,
        filters=SearchFilters(
            colors=tuple(dict.fromkeys(norm_colors)),
            sizes=tuple(dict.fromkeys(norm_sizes)),
            min_price=min_price,
            max_price=max_price,
            in_stock=in_stock,
        ),
    )
