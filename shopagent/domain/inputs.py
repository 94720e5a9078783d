"""Checks for raw input at every edge (HTTP, MCP, files): one place, one set of messages.

- `check_text`: text that PostgreSQL and tokenizers accept (no NUL or other control
  characters but tab and line breaks, no unpaired surrogates), refused with a message naming
  the field and the character, before any work is done.
- `ascii_int`: an integer written with the ASCII digits 0-9 only, within a range. Python's
  `str.isdigit()` accepts superscripts (which `int()` then refuses) and Arabic-Indic digits
  (which it reads as numbers); neither belongs in a URL.
- `Amount` and `decode_hook`: a decimal amount (a price) written with the ASCII digits 0-9, for
  the same reason: `Decimal()` reads Arabic-Indic and full-width digits as numbers, and "1_0"
  and " 10 " as 10 too.
- `same_secret`: constant-time comparison of a presented secret with the expected one, safe
  for any text the client sends (compared as UTF-8 bytes, never raising).
- `explain`: a msgspec validation error as "field.path: what is wrong".
"""

from __future__ import annotations

import hmac
import re
import unicodedata
from decimal import Decimal

import msgspec

from shopagent.domain.errors import ValidationError

_ASCII_INT = re.compile(r"[0-9]+")
ASCII_DECIMAL = r"-?[0-9]+(?:\.[0-9]+)?"
_ASCII_DECIMAL = re.compile(ASCII_DECIMAL)
_AT = re.compile(r" - at `\$\.?(?P<path>[^`]*)`$")
_ALLOWED_CONTROLS = frozenset("\t\n\r")


def text_problem(value: str) -> str | None:
    """What makes a text unstorable, or None when it is fine."""
    for ch in value:
        if "\ud800" <= ch <= "\udfff":
            return "an unpaired surrogate (broken UTF-16)"
        if ch not in _ALLOWED_CONTROLS and unicodedata.category(ch) == "Cc":
            return f"a control character (U+{ord(ch):04X})"
    return None


def check_text(value: str, field: str) -> str:
    """`value`, or ValidationError naming the field when it holds a character no text should."""
    problem = text_problem(value)
    if problem is not None:
        raise ValidationError(f"{field} contains {problem}; remove it", field=field)
    return value


def ascii_int(raw: str, field: str, least: int, most: int) -> int:
    """An integer written in ASCII digits within [least, most], or ValidationError saying so."""
    if not _ASCII_INT.fullmatch(raw) or len(raw) > 19 or not least <= int(raw) <= most:
        raise ValidationError(f"{field} must be an integer from {least} to {most}", field=field)
    return int(raw)


def is_ascii_int(raw: str) -> bool:
    return bool(_ASCII_INT.fullmatch(raw))


class Amount(Decimal):
    """A field typed `Amount` is decoded by `decode_hook` (pass it to msgspec wherever such input
    is decoded); what comes out is a Decimal."""


def amount(value: object) -> Amount:
    """A decimal amount from a JSON number, or text such as "129.90" or "-3" in ASCII digits
    (no exponent, sign "+", underscores or spaces); ValueError otherwise."""
    if isinstance(value, str):
        if _ASCII_DECIMAL.fullmatch(value):
            return Amount(value)
    elif isinstance(value, float):
        return Amount(repr(value))  # the shortest text of the float: 10.15, not its binary expansion
    elif isinstance(value, int | Decimal) and not isinstance(value, bool):
        return Amount(value)
    raise ValueError('must be a decimal number written with the digits 0-9, such as "129.90"')


def decode_hook(kind: type, value: object) -> object:
    """msgspec's `dec_hook` for the types of this module."""
    if kind is Amount:
        return amount(value)
    raise NotImplementedError(f"no decoder for {kind.__name__}")


def same_secret(given: str | bytes, expected: str | bytes) -> bool:
    """Whether a presented secret equals the expected one, in constant time, for any input."""
    a = given if isinstance(given, bytes) else given.encode("utf-8", "surrogatepass")
    b = expected if isinstance(expected, bytes) else expected.encode("utf-8", "surrogatepass")
    return hmac.compare_digest(a, b)


def split(exc: msgspec.ValidationError) -> tuple[str, str]:
    """A msgspec validation error as (field path as the client spelt it, or "", what is wrong)."""
    message = str(exc)
    match = _AT.search(message)
    if not match:
        return "", message
    return match["path"], message[: match.start()]


def explain(exc: msgspec.ValidationError) -> str:
    """A msgspec validation error as "path: message"."""
    path, what = split(exc)
    return f"{path}: {what}" if path else what
