"""What shoppers asked that the shop had nothing strong for: the query as kept, the period
asked for, and the report's shape.

A query is kept normalised (case folded, spaces collapsed, at most `MAX_QUERY_CHARS`), so
that the same question asked twice counts twice; an e-mail address or a long number in it (a
phone or order number a shopper typed) is replaced before it is stored.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime, timedelta

import msgspec

from shopagent.domain.errors import ValidationError

MAX_QUERY_CHARS = 200
MAX_PERIOD_DAYS = 3650

_EMAIL = re.compile(r"\S+@\S+")
_LONG_NUMBER = re.compile(r"\d[\d./-]{4,}\d")  # six digits or more, maybe grouped: 0170-1234567
_PERIOD = re.compile(r"(\d{1,6})([mhdw])")
_UNIT_SECONDS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def normalise_query(text: str) -> str:
    """The query as counted and stored: NFKC, case folded, personal numbers and addresses
    replaced, whitespace collapsed, cut at `MAX_QUERY_CHARS`; "" when nothing is left."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    folded = _EMAIL.sub("[email]", folded)
    folded = _LONG_NUMBER.sub(lambda m: "[number]" if sum(c.isdigit() for c in m[0]) >= 6 else m[0], folded)
    kept = "".join(ch if ch.isprintable() else " " for ch in folded)
    return " ".join(kept.split())[:MAX_QUERY_CHARS].strip()


def parse_period(text: str) -> timedelta:
    """`30m`, `12h`, `7d`, `4w`: a period back from now, up to ten years."""
    found = _PERIOD.fullmatch(text.strip())
    if found is None:
        raise ValidationError(f"since: {text!r} is not a period; write a number and a unit: 30m, 12h, 7d or 4w")
    period = timedelta(seconds=int(found[1]) * _UNIT_SECONDS[found[2]])
    if not timedelta(0) < period <= timedelta(days=MAX_PERIOD_DAYS):
        raise ValidationError(f"since: {text!r} must be more than 0 and at most {MAX_PERIOD_DAYS} days")
    return period


class UnmetQuery(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """One normalised query that found nothing strong, over the period."""

    query: str
    searches: int  # how often it was searched without a strong match
    tools: list[str]  # the tools it was searched with
    best_match: str | None  # the best grade it ever found (partial, weak); None: never anything
    last_searched_at: datetime


class UnmetSearches(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """The queries that found nothing strong between `since` and `until`, most frequent first."""

    since: datetime
    until: datetime
    retention_days: int  # nothing older is kept
    total_searches: int  # searches without a strong match in the period, every query
    queries: list[UnmetQuery]
