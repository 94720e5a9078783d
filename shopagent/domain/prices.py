"""Prices as a shop's customers read them: `189,00 €` in a German shop, `€189.00` in an English one.

The answer text and the product cards write prices with this one function, so they agree.
The formats are CLDR's, through Babel (the data every browser's `Intl` is built on, for every
language and country a shop can configure); Babel is imported, and its tables read from its
package, on first use (importing it costs a tenth of a second that commands without prices skip).
"""

from __future__ import annotations

import functools
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from babel import Locale

__all__ = ["FALLBACK_LOCALE", "price_text", "store_locale"]

FALLBACK_LOCALE = "en"


def store_locale(language: str, country: str) -> str:
    """The locale prices are written in, as a BCP 47 tag: the store language as written in the
    store country when it is a language of that country (de + AT → `de-AT`, fr + CH → `fr-CH`),
    else as its own speakers write it (en + DE → `en`: English text with English numbers). A
    language tag with a region of its own keeps it (`en-GB`); an unknown language is `en`."""
    from babel.languages import get_official_languages

    tag = language.strip().replace("_", "-")
    parsed = _locale(tag)
    if parsed is None:
        return FALLBACK_LOCALE
    if parsed.territory is None and parsed.language in get_official_languages(country.upper(), de_facto=True):
        regional = _locale(f"{parsed.language}-{country.upper()}")
        if regional is not None:
            return _tag(regional)
    return _tag(parsed)


def price_text(amount: Decimal | str | int | float, currency: str, locale: str, *, whole: bool = False) -> str:
    """`amount` of `currency` in `locale`'s format. `whole` leaves out a zero fraction, for an
    amount a customer said ("under €200"); a product's price always shows its cents."""
    from babel.numbers import format_currency

    value = _decimal(amount)
    parsed = _locale(locale) or _locale(FALLBACK_LOCALE)
    assert parsed is not None  # CLDR has English
    if whole and value == value.to_integral_value():
        pattern = parsed.currency_formats["standard"].pattern.split(";")[0]
        return format_currency(value, currency, _without_fraction(pattern), locale=parsed, currency_digits=False)
    return format_currency(value, currency, locale=parsed)


def _decimal(amount: Decimal | str | int | float) -> Decimal:
    try:
        value = Decimal(str(amount))
    except InvalidOperation as exc:
        raise ValueError(f"not an amount: {amount!r}") from exc
    if not value.is_finite():
        raise ValueError(f"not an amount: {amount!r}")
    return value


def _without_fraction(pattern: str) -> str:
    """`#,##0.00 ¤` → `#,##0 ¤`: the digits after the decimal mark taken out."""
    head, dot, tail = pattern.partition(".")
    if not dot:
        return pattern
    return head + tail.lstrip("0#")


@functools.lru_cache(maxsize=64)
def _locale(tag: str) -> Locale | None:
    from babel import Locale, UnknownLocaleError

    try:
        return Locale.parse(tag, sep="-")
    except (ValueError, TypeError, UnknownLocaleError):
        return None


def _tag(locale: Locale) -> str:
    return "-".join(part for part in (locale.language, locale.script, locale.territory) if part)
