"""Search quality on the bundled sample catalog with the real local model.

Natural shopping requests (tests/data/search_queries.json, written for this catalog) must
find one of their expected products in the top five: hit@5 >= 0.9.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.anyio

QUERIES = json.loads((Path(__file__).parent / "data" / "search_queries.json").read_text())


async def test_natural_queries_find_an_expected_product_in_the_top_five(sample_shop):
    misses = []
    for case in QUERIES:
        hits = await sample_shop.search.search(sample_shop.search.request(case["query"], 5))
        if not {h.slug for h in hits} & set(case["expected"]):
            misses.append((case["query"], [h.slug for h in hits]))
    hit_rate = 1 - len(misses) / len(QUERIES)
    assert len(QUERIES) >= 25
    print(f"hit@5 = {hit_rate:.2f} over {len(QUERIES)} queries; misses: {misses}")
    assert hit_rate >= 0.9, misses


async def test_filters_narrow_semantic_results_to_matching_in_stock_variations(sample_shop):
    request = sample_shop.search.request("sneakers", 10, colors=["red"], sizes=["39"], in_stock=True)
    hits = await sample_shop.search.search(request)
    assert hits
    for hit in hits:
        details = await sample_shop.search.details(hit.product_id)
        assert any(v.color == "red" and v.size == "39" and v.available > 0 for v in details.variations)
