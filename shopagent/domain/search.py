"""Search requests and results: what a shopper may ask for and what comes back.

`validate_search` turns raw arguments into a `SearchRequest` with normalised colours and
sizes, or raises a ValidationError whose message tells the caller (often an LLM) exactly
what to change.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from decimal import Decimal

import msgspec

from shopagent.domain.catalog import MAX_PRICE, CatalogRules
from shopagent.domain.errors import ValidationError
from shopagent.domain.options import SpecValue, option_folded, option_kind, spec_name

MAX_QUERY_CHARS = 2000
MAX_LIMIT = 20
DEFAULT_LIMIT = 5
# How much of a product's description the grades read for what it says it is not ("No noise cancelling")
LEAD_CHARS = 600


class SpecFilter(msgspec.Struct, frozen=True, kw_only=True):
    """A spec a product must have: a number within `low`-`high`, or a value equal to `equals`."""

    name: str
    low: float | None = None
    high: float | None = None
    equals: bool | str | float | None = None

    def bounds(self) -> dict[str, object]:
        if self.equals is not None:
            return {"eq": self.equals}
        return {k: v for k, v in (("min", self.low), ("max", self.high)) if v is not None}


class SearchFilters(msgspec.Struct, frozen=True, kw_only=True):
    colors: tuple[str, ...] = ()
    sizes: tuple[str, ...] = ()
    min_price: Decimal | None = None
    max_price: Decimal | None = None
    in_stock: bool = False
    options: tuple[tuple[str, tuple[str, ...]], ...] = ()  # folded option name -> folded values, any of them
    specs: tuple[SpecFilter, ...] = ()

    @property
    def on_variation(self) -> bool:
        """Colours, sizes, options, specs and stock are judged together, on one variation (with its price)."""
        return bool(self.colors or self.sizes or self.in_stock or self.options or self.specs)

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
    available_options: dict[str, list[str]] = msgspec.field(default_factory=dict)  # option name -> values in stock
    price_from: bool = False  # its variations sell at different prices; the prices are the cheapest asked one's
    url: str | None = None  # the product's page in the shop


class SearchResult(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    products: list[ProductHit]
    best_match: str | None  # the best grade among the products; None when there are none
    no_strong_match: bool  # nothing graded strong: the shop may not carry what was asked
    corrections: dict[str, str]  # query words the catalog never uses -> the catalog words searched instead
    # Those of `corrections`' shopper's words that were misspellings (a "did you mean"); the rest are
    # synonyms and compounds ("Winterjacke" -> "winter jacket"), spelt right.
    misspelt: list[str] = msgspec.field(default_factory=list)


class VariationDetails(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    color: str
    size: str
    available: int
    weight_grams: int | None
    price: Decimal
    discounted_price: Decimal | None
    effective_price: Decimal
    options: dict[str, str] = msgspec.field(default_factory=dict)
    sku: str | None = None
    specs: dict[str, SpecValue] = msgspec.field(default_factory=dict)  # its own, where they differ from the product's
    url: str | None = None  # its own page or cart link


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
    options: list[str] = msgspec.field(default_factory=list)  # the names of its options besides colour and size
    specs: dict[str, SpecValue] = msgspec.field(default_factory=dict)
    spec_text: list[str] = msgspec.field(default_factory=list)  # the specs as a shopper reads them ("capacity 1000 ml")
    url: str | None = None


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
    options: Mapping[str, list[str]] | None = None,
    specs: Mapping[str, object] | None = None,
) -> SearchRequest:
    colors, sizes = list(colors), list(sizes)
    named = _options(options or {}, colors, sizes)
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
            options=named,
            specs=tuple(_spec_filter(name, wanted) for name, wanted in (specs or {}).items()),
        ),
    )


def _options(
    given: Mapping[str, list[str]], colors: list[str], sizes: list[str]
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Option filters, folded; an option named colour or size ("Farbe", "Size") joins those filters."""
    named: dict[str, tuple[str, ...]] = {}
    for name, values in given.items():
        if not values:
            continue
        kind = option_kind(name)
        if kind == "color":
            colors.extend(values)
        elif kind == "size":
            sizes.extend(values)
        elif len(named) >= 10 or len(values) > 50:
            raise ValidationError("at most 10 options of 50 values each", field="filters.options")
        else:
            named[option_folded(name)] = tuple(dict.fromkeys(option_folded(v) for v in values))
    return tuple(named.items())


def _spec_filter(raw_name: str, wanted: object) -> SpecFilter:
    """`{"min": 600}`, `{"min": 1, "max": 2}` for a number; `{"equals": true}` (or the bare value) otherwise."""
    name = spec_name(raw_name)
    where = f"filters.specs.{raw_name}"
    if not name:
        raise ValidationError(f"spec name {raw_name!r} has no letters or digits", field="filters.specs")
    if not isinstance(wanted, Mapping):
        wanted = {"equals": wanted}
    given = {k: v for k, v in wanted.items() if v is not None}
    if set(given) - {"min", "max", "equals"} or not given or ("equals" in given and len(given) > 1):
        raise ValidationError(f"{where}: give min and/or max, or equals (got {sorted(wanted)})", field="filters.specs")
    if "equals" in given:
        value = given["equals"]
        if not isinstance(value, bool | str | int | float | Decimal):
            raise ValidationError(f"{where}: equals takes a text, a number or true/false", field="filters.specs")
        return SpecFilter(name=name, equals=value if isinstance(value, bool | str) else float(value))
    low, high = given.get("min"), given.get("max")
    for bound in (low, high):
        if bound is not None and (isinstance(bound, bool) or not isinstance(bound, int | float | Decimal)):
            raise ValidationError(f"{where}: min and max are numbers", field="filters.specs")
    spec = SpecFilter(name=name, low=_number(low), high=_number(high))
    if spec.low is not None and spec.high is not None and spec.low > spec.high:
        raise ValidationError(f"{where}: min {spec.low:g} is greater than max {spec.high:g}", field="filters.specs")
    return spec


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float | Decimal) else None
