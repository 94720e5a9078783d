"""Prices in the store's locale: one function for the answer text and the product cards."""

from __future__ import annotations

from decimal import Decimal

import pytest

from shopagent.domain.prices import price_text, store_locale

NBSP = "\u00a0"


@pytest.mark.parametrize(
    ("language", "country", "locale"),
    [
        ("de", "DE", "de-DE"),
        ("de", "AT", "de-AT"),
        ("de", "CH", "de-CH"),
        ("fr", "CH", "fr-CH"),
        ("en", "IE", "en-IE"),
        ("en", "US", "en-US"),
        ("en", "DE", "en"),  # English text keeps English numbers in a German shop
        ("fr", "DE", "fr"),
        ("en-GB", "DE", "en-GB"),  # a region in the language tag wins
        ("de_AT", "DE", "de-AT"),
        ("pt-BR", "PT", "pt-BR"),
        ("klingon", "DE", "en"),  # unknown: English
        ("", "DE", "en"),
    ],
)
def test_the_price_locale_is_the_store_language_as_written_in_its_country(language, country, locale):
    assert store_locale(language, country) == locale


@pytest.mark.parametrize(
    ("language", "country", "written"),
    [
        ("de", "DE", f"189,00{NBSP}€"),
        ("en", "DE", "€189.00"),
        ("en", "IE", "€189.00"),
        ("fr", "FR", f"189,00{NBSP}€"),
        ("de", "AT", f"€{NBSP}189,00"),
        ("nl", "NL", f"€{NBSP}189,00"),
    ],
)
def test_a_price_is_written_as_the_shops_customers_read_it(language, country, written):
    assert price_text("189.00", "EUR", store_locale(language, country)) == written


def test_thousands_and_other_currencies_follow_the_locale():
    assert price_text("1234.5", "EUR", "de-DE") == f"1.234,50{NBSP}€"
    assert price_text("1234.5", "EUR", "en") == "€1,234.50"
    assert price_text("1234.5", "CHF", "de-CH") == f"CHF{NBSP}1'234.50"
    assert price_text("49.9", "GBP", "en-GB") == "£49.90"
    assert price_text("49.9", "USD", "en-US") == "$49.90"


def test_every_kind_of_amount_gives_the_same_text():
    written = {price_text(a, "EUR", "de-DE") for a in ("189", "189.00", 189, 189.0, Decimal("189.000"))}
    assert written == {f"189,00{NBSP}€"}


def test_an_amount_a_customer_said_leaves_out_a_zero_fraction_but_keeps_cents():
    assert price_text(200, "EUR", "en", whole=True) == "€200"
    assert price_text(200, "EUR", "de-DE", whole=True) == f"200{NBSP}€"
    assert price_text("49.5", "EUR", "de-DE", whole=True) == f"49,50{NBSP}€"
    assert price_text(1500, "EUR", "de-DE", whole=True) == f"1.500{NBSP}€"


def test_a_product_price_always_shows_its_cents():
    assert price_text(200, "EUR", "en") == "€200.00"


def test_an_unknown_locale_writes_english():
    assert price_text("5", "EUR", "xx-YY") == "€5.00"


@pytest.mark.parametrize("amount", ["", "abc", "NaN", "Infinity"])
def test_what_is_not_an_amount_is_refused_by_name(amount):
    with pytest.raises(ValueError, match="not an amount"):
        price_text(amount, "EUR", "en")
