"""Product cards for chat clients, taken from the catalog tools' structured results.

The event stream sends them with each `tool` event, so a page can show the products the
assistant is talking about. Only the two catalog tools give cards; a result of another
shape (an error, another server's tool) gives none, and an entry that does not read as a
product is left out rather than failing the turn.
"""

from __future__ import annotations

import re
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
    url: str | None = None  # the product's page in the shop ("View")
    cart_url: str | None = None  # puts its only variation that can be bought in the basket ("Add to basket")
    price_from: bool = False  # its variations differ in price: `price` is the lowest


class _Read(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """The fields a card needs; the tools' other fields are ignored."""

    product_id: int
    slug: str
    name: str
    price: str
    discounted_price: str | None = None
    currency: str
    url: str | None = None


class _Hit(_Read, frozen=True, kw_only=True):
    in_stock: bool
    main_image: str | None = None
    available_colors: list[str] = []
    available_sizes: list[str] = []
    price_from: bool = False


class _Variation(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    color: str = ""
    size: str = ""
    available: int
    effective_price: str | None = None
    url: str | None = None


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
    """The cards of the products an answer presents: those of the turn's catalog results that
    the answer names, in the order it names them (each once). A product is named by its whole
    name or, as a model often shortens it ("the Kiruna boot"), by a word of its name that no
    other result's name has. A client draws exactly these, so no card shows a product the
    text left out."""
    by_id: dict[int, ProductCard] = {}
    for response in results:
        structured = response.result.get("structuredContent")
        result = ToolResult(is_error=bool(response.result.get("isError")), text="", structured=structured)
        for card in product_cards(response.name, result):
            by_id.setdefault(card.id, card)
    folded = answer.casefold()
    found: dict[int, int] = {}  # card id -> where the answer names it
    taken: list[tuple[int, int]] = []
    for card in sorted(by_id.values(), key=lambda c: -len(c.name)):  # a longer name claims its place first
        start = folded.find(card.name.casefold())
        end = start + len(card.name)
        if start >= 0 and not any(s < end and start < e for s, e in taken):
            taken.append((start, end))
            found[card.id] = start
    said = {m.group(): m.start() for m in reversed(list(_WORD.finditer(folded)))}  # each word's first place
    for card in by_id.values():
        if card.id in found:
            continue
        others = {w for c in by_id.values() if c.id != card.id for w in _WORD.findall(c.name.casefold())}
        own = [w for w in _WORD.findall(card.name.casefold()) if len(w) >= _OWN_WORD and w not in others and w in said]
        if own:
            found[card.id] = min(said[w] for w in own)
    return [by_id[i] for i, _ in sorted(found.items(), key=lambda item: item[1])]


_WORD = re.compile(r"[^\W_]+")
_OWN_WORD = 4  # letters of a name's own word that names the product alone ("Kiruna")


def _search_card(raw: Any) -> ProductCard | None:
    try:
        hit = msgspec.convert(raw, _Hit)
    except msgspec.ValidationError:
        return None
    return _card(
        hit, hit.main_image, hit.available_colors, hit.available_sizes, hit.in_stock, price_from=hit.price_from
    )


def _details_card(raw: Any) -> ProductCard | None:
    try:
        details = msgspec.convert(raw, _Details)
    except msgspec.ValidationError:
        return None
    available = [v for v in details.variations if v.available > 0]
    colors = list(dict.fromkeys(v.color for v in available if v.color))
    sizes = list(dict.fromkeys(v.size for v in available if v.size))
    cart = available[0].url if len(available) == 1 else None
    varies = len({v.effective_price for v in details.variations}) > 1
    return _card(details, details.main_image, colors, sizes, bool(available), cart_url=cart, price_from=varies)


def _card(
    read: _Read, image: str | None, colors: list[str], sizes: list[str], in_stock: bool, *,
    cart_url: str | None = None, price_from: bool = False,
) -> ProductCard:  # fmt: skip
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
        url=read.url,
        cart_url=cart_url,
        price_from=price_from,
    )
