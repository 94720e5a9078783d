"""Product cards from the catalog tools' structured results, as the MCP server sends them."""

from __future__ import annotations

from decimal import Decimal

import msgspec

from shopagent.domain.chat import FunctionCall, ToolResult
from shopagent.domain.search import ProductDetails, ProductHit, SearchResult, VariationDetails
from shopagent.entrypoints.http.cards import DETAILS_TOOL, SEARCH_TOOL, ProductCard, presented_cards, product_cards

PRICED = {"price": Decimal("59.90"), "discounted_price": None, "effective_price": Decimal("59.90")}


def hit(product_id: int, **changes) -> ProductHit:
    base = ProductHit(
        product_id=product_id, name="Alpine Boot", slug=f"alpine-{product_id}", category="Boots",
        price=Decimal("189.00"), discounted_price=None, effective_price=Decimal("189.00"), currency="EUR",
        rating=4.6, main_image=None, match="strong", in_stock=True, available_quantity=4, distance=0.2,
        available_colors=["black"], available_sizes=["42", "43"],
    )  # fmt: skip
    return msgspec.structs.replace(base, **changes)


def result_of(value: msgspec.Struct, *, is_error: bool = False) -> ToolResult:
    return ToolResult(is_error=is_error, text="…", structured=msgspec.to_builtins(value))


def test_a_search_gives_a_card_per_product_in_order():
    found = SearchResult(
        products=[hit(1), hit(2, discounted_price=Decimal("149.90"), in_stock=False, available_colors=[],
                             main_image="https://images.example.com/boot.jpg")],
        best_match="strong", no_strong_match=False, corrections={},
    )  # fmt: skip
    first, second = product_cards(SEARCH_TOOL, result_of(found))
    assert first == ProductCard(
        id=1, slug="alpine-1", name="Alpine Boot", price="189.00", discount_price=None, currency="EUR",
        main_image=None, available_colors=["black"], available_sizes=["42", "43"], in_stock=True,
    )  # fmt: skip
    assert (second.id, second.discount_price, second.in_stock, second.available_colors, second.main_image) == (
        2, "149.90", False, [], "https://images.example.com/boot.jpg"
    )  # fmt: skip
    assert msgspec.to_builtins(first) == {
        "id": 1, "slug": "alpine-1", "name": "Alpine Boot", "price": "189.00", "discountPrice": None,
        "currency": "EUR", "mainImage": None, "availableColors": ["black"], "availableSizes": ["42", "43"],
        "inStock": True, "url": None, "cartUrl": None, "priceFrom": False,
    }  # fmt: skip


def test_details_give_one_card_with_the_image_and_what_is_available():
    details = ProductDetails(
        product_id=7, name="Trail Sock", slug="trail-sock", category="Socks", description="…", brand="B",
        material="wool", price=Decimal("12.00"), discounted_price=Decimal("9.50"), effective_price=Decimal("9.50"),
        currency="EUR", rating=None, main_image="https://images.example.com/sock.jpg", images=[], in_stock=True,
        variations=[
            VariationDetails(color="grey", size="M", available=3, weight_grams=None, **PRICED),
            VariationDetails(color="grey", size="L", available=0, weight_grams=None, **PRICED),
            VariationDetails(color="navy", size="M", available=1, weight_grams=None, **PRICED),
        ],
    )  # fmt: skip
    (card,) = product_cards(DETAILS_TOOL, result_of(details))
    assert (card.id, card.price, card.discount_price, card.main_image) == (
        7, "12.00", "9.50", "https://images.example.com/sock.jpg"
    )  # fmt: skip
    assert (card.available_colors, card.available_sizes, card.in_stock) == (["grey", "navy"], ["M"], True)
    sold_out = msgspec.structs.replace(details, variations=[details.variations[1]])
    (card,) = product_cards(DETAILS_TOOL, result_of(sold_out))
    assert (card.available_colors, card.available_sizes, card.in_stock) == ([], [], False)


def test_errors_other_tools_and_unreadable_entries_give_no_cards():
    found = SearchResult(products=[hit(1)], best_match="strong", no_strong_match=False, corrections={})
    assert product_cards(SEARCH_TOOL, result_of(found, is_error=True)) == []
    assert product_cards("another-tool", result_of(found)) == []
    assert product_cards(SEARCH_TOOL, None) == []
    assert product_cards(SEARCH_TOOL, ToolResult(is_error=False, text="no structure")) == []
    mixed = {"products": [{"name": "no id"}, msgspec.to_builtins(hit(3))]}
    odd = ToolResult(is_error=False, text="…", structured=mixed)
    assert [card.id for card in product_cards(SEARCH_TOOL, odd)] == [3]
    assert product_cards(DETAILS_TOOL, ToolResult(is_error=False, text="…", structured={"productId": "x"})) == []


def test_the_cards_an_answer_presents_are_the_products_it_names_in_its_order():
    names = ["Kiruna Padded Apres-Ski Boot", "Nordkap Lined Leather Winter Boot", "Lapland Faux-Fur Cuff Snow Boot",
             "Nordkap Lined Leather Winter Boot Kids"]  # fmt: skip
    found = SearchResult(
        products=[hit(i, name=n) for i, n in enumerate(names, 1)], best_match="strong", no_strong_match=False,
        corrections={},
    )  # fmt: skip
    response = result_of(found).as_response(FunctionCall(SEARCH_TOOL, {"query": "boots"}))
    offline = "1. Nordkap Lined Leather Winter Boot - 189.00 EUR\n2. Kiruna Padded Apres-Ski Boot - 109.00 EUR"
    assert [c.id for c in presented_cards(offline, [response])] == [2, 1]  # not the kids' one inside it
    assert [c.id for c in presented_cards("The Kiruna boot is warm, and on sale.", [response])] == [1]
    assert [c.id for c in presented_cards("Both boots are warm.", [response])] == []  # "boot" names them all
    failed = ToolResult(is_error=True, text="no").as_response(FunctionCall(SEARCH_TOOL, {}))
    assert presented_cards(offline, [failed]) == []


def test_cards_carry_the_shop_links_and_say_when_a_price_is_a_from_price():
    found = SearchResult(
        products=[hit(1, url="https://shop.example/p/alpine-1", price_from=True)],
        best_match="strong", no_strong_match=False, corrections={},
    )  # fmt: skip
    (card,) = product_cards(SEARCH_TOOL, result_of(found))
    assert (card.url, card.price_from, card.cart_url) == ("https://shop.example/p/alpine-1", True, None)
    one_left = ProductDetails(
        product_id=7, name="Gas Cartridge", slug="gas", category="Fuel", description="", brand="", material="",
        price=Decimal("5.90"), discounted_price=None, effective_price=Decimal("5.90"), currency="EUR", rating=None,
        main_image=None, images=[], in_stock=True, url="https://shop.example/p/gas",
        variations=[
            VariationDetails(color="", size="", options={"Weight": "230 g"}, available=3, weight_grams=None,
                             price=Decimal("5.90"), discounted_price=None, effective_price=Decimal("5.90"),
                             url="https://shop.example/cart/230"),
            VariationDetails(color="", size="", options={"Weight": "450 g"}, available=0, weight_grams=None,
                             price=Decimal("9.90"), discounted_price=None, effective_price=Decimal("9.90"),
                             url="https://shop.example/cart/450"),
        ],
    )  # fmt: skip
    (card,) = product_cards(DETAILS_TOOL, result_of(one_left))
    # The only variation that can be bought goes in the basket; its prices differ: a "from" price.
    assert (card.url, card.cart_url, card.price_from) == (
        "https://shop.example/p/gas",
        "https://shop.example/cart/230",
        True,
    )
    assert (card.available_colors, card.available_sizes) == ([], [])
