"""Product cards for chat clients, taken from the catalog tools' structured results.

The event stream sends them with each `tool` event, so a page can show the products the
assistant is talking about. Only the two catalog tools give cards; a result of another
shape (an error, another server's tool) gives none, and an entry that does not read as a
product is left out rather than failing the turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from shopagent.domain.chat import FunctionResponse, ToolResult
from shopagent.domain.tools import DETAILS_TOOL, SEARCH_TOOL

__all__ = ["DETAILS_TOOL", "SEARCH_TOOL", "ProductCard", "presented_cards", "product_cards"]


class ProductCard(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    id: int
    slug: str
    name: str
    price: str  # a decimal, as the tool wrote it ("89.90")
    discount_price: str | None
    currency: str
    main_image: str | None
    available_colors: list[str]
    available_sizes: list[str]
    in_stock: bool


class _Read(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """The fields a card needs; the tools' other fields are ignored."""

    product_id: int
    slug: str
    name: str
    price: str
    discounted_price: str | None = None
    currency: str


class _Hit(_Read, frozen=True, kw_only=True):
    in_stock: bool
    main_image: str | None = None
    available_colors: list[str] = []
    available_sizes: list[str] = []


class _Variation(msgspec.Struct, frozen=True, kw_only=True):
    color: str
    size: str
    available: int


class _Details(_Read, frozen=True, kw_only=True):
    main_image: str | None = None
    variations: list[_Variation] = []


def product_cards(tool: str, result: ToolResult | None) -> list[ProductCard]:
    """The cards of a search's products or of a product's details; none for anything else."""
    if result is None or result.is_error or not isinstance(result.structured, dict):
        return []
    if tool == SEARCH_TOOL:
        hits = result.structured.get("products")
        return [card for hit in hits if (card := _search_card(hit))] if isinstance(hits, list) else []
    if tool == DETAILS_TOOL:
        card = _details_card(result.structured)
        return [card] if card else []
    return []


def presented_cards(answer: str, results: Sequence[FunctionResponse]) -> list[ProductCard]:
    """The cards of the products an answer presents: those of the turn's catalog results whose
    name the answer says, in the order it says them (each once). A client draws exactly these,
    so its cards never show products the text left out."""
    by_name: dict[str, ProductCard] = {}
    for response in results:
        structured = response.result.get("structuredContent")
        result = ToolResult(is_error=bool(response.result.get("isError")), text="", structured=structured)
        for card in product_cards(response.name, result):
            by_name.setdefault(card.name, card)
    folded = answer.casefold()
    named = [(folded.find(name.casefold()), card) for name, card in by_name.items()]
    # Longest names first claim their place, so a name inside a longer one is not counted twice.
    taken: list[tuple[int, int]] = []
    found: list[tuple[int, ProductCard]] = []
    for start, card in sorted(named, key=lambda item: -len(item[1].name)):
        end = start + len(card.name)
        if start >= 0 and not any(s < end and start < e for s, e in taken):
            taken.append((start, end))
            found.append((start, card))
    return [card for _, card in sorted(found, key=lambda item: item[0])]


def _search_card(raw: Any) -> ProductCard | None:
    try:
        hit = msgspec.convert(raw, _Hit)
    except msgspec.ValidationError:
        return None
    return _card(hit, hit.main_image, hit.available_colors, hit.available_sizes, hit.in_stock)


def _details_card(raw: Any) -> ProductCard | None:
    try:
        details = msgspec.convert(raw, _Details)
    except msgspec.ValidationError:
        return None
    available = [v for v in details.variations if v.available > 0]
    colors = list(dict.fromkeys(v.color for v in available))
    sizes = list(dict.fromkeys(v.size for v in available))
    return _card(details, details.main_image, colors, sizes, bool(available))


def _card(read: _Read, image: str | None, colors: list[str], sizes: list[str], in_stock: bool) -> ProductCard:
    return ProductCard(
        id=read.product_id,
        slug=read.slug,
        name=read.name,
        price=read.price,
        discount_price=read.discounted_price,
        currency=read.currency,
        main_image=image,
        available_colors=colors,
        available_sizes=sizes,
        in_stock=in_stock,
    )
