"""Searches that found nothing strong: the query as kept (normalised, without numbers or
addresses), the period a report covers, and a search that answers when it cannot be recorded."""

from __future__ import annotations

from datetime import timedelta

import asyncpg
import pytest
from mcp import Client

from shopagent.domain.errors import ValidationError
from shopagent.domain.insights import normalise_query, parse_period
from tests.factories import boot_and_sandal_shop

pytestmark = pytest.mark.anyio

SEARCH = "product-semantic-search"


@pytest.mark.parametrize(
    ("asked", "kept"),
    [
        ("  Red SNEAKERS\tin size 39 ", "red sneakers in size 39"),
        ("\uff32\uff45\uff44 sneakers", "red sneakers"),  # NFKC: full-width letters are the same words
        ("call me at 0170-1234567 about boots", "call me at [number] about boots"),
        ("order 1234567, mail ana@example.com", "order [number], mail [email]"),
        ("boots under 200 euros, 12345 left?", "boots under 200 euros, 12345 left?"),
        ("x" * 300, "x" * 200),
        ("\x00\u200b ", ""),
    ],
)
def test_a_query_is_kept_normalised_without_numbers_or_addresses(asked, kept):
    assert normalise_query(asked) == kept


def test_a_period_is_a_number_and_a_unit():
    assert parse_period("30m") == timedelta(minutes=30)
    assert parse_period(" 7d") == timedelta(days=7)
    assert parse_period("4w") == timedelta(weeks=4)
    for bad in ("7", "7 days", "0d", "-1d", "1y", "99999w", ""):
        with pytest.raises(ValidationError, match="since: "):
            parse_period(bad)


async def test_a_search_answers_even_when_it_cannot_be_recorded(settings, database):
    async with boot_and_sandal_shop(settings) as services, Client(services.mcp_server) as mcp:
        await mcp.call_tool(SEARCH, {"query": "swimming goggles"})
        conn = await asyncpg.connect(database)
        try:
            assert await conn.fetchval("SELECT query FROM search_miss") == "swimming goggles"
            await conn.execute("DROP TABLE search_miss")
        finally:
            await conn.close()
        found = await mcp.call_tool(SEARCH, {"query": "swimming goggles"})
        assert not found.is_error and found.structured_content["noStrongMatch"] is True
        count = services.metrics.registry.get_sample_value
        assert count("shopagent_searches_without_strong_match_total", {"tool": SEARCH}) == 2
