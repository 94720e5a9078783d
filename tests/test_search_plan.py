"""The vector leg's plan follows the data: exact distances or the HNSW walk by estimated cost."""

from __future__ import annotations

import json
from decimal import Decimal

import numpy as np
import pytest
from pgvector import Vector

from shopagent.adapters.postgres.database import open_pool
from shopagent.adapters.postgres.search import PostgresSearchIndex, SearchTuning
from shopagent.adapters.postgres.search_plan import Plan, PlanInputs, chosen_plan, exact_cost, hnsw_cost
from shopagent.adapters.postgres.search_sql import approximate_sql, exact_sql, filter_args
from shopagent.adapters.postgres.vector_index import ensure_vector_index
from shopagent.domain.search import SearchFilters

WALK = {"wanted": 60, "ef_search": 100, "max_scan_tuples": 20_000}  # a limit of 10, the default tuning


def inputs(products: int, matching: float, chunks_per_product: float = 2.0) -> PlanInputs:
    return PlanInputs(products=products, chunks=products * chunks_per_product, matching=matching, **WALK)


def boundary(products: int, chunks_per_product: float = 2.0) -> int:
    """The fewest matching products for which the index walk is chosen."""
    return next(m for m in range(1, products + 1) if chosen_plan(inputs(products, m, chunks_per_product)) is Plan.HNSW)


@pytest.mark.unit
def test_two_thousand_matching_products_of_two_hundred_thousand_are_searched_exactly():
    # The case the fixed count of 2,000 got wrong: 2,013 matching products walked the index
    # for 177 ms where exact distances took 42.
    assert chosen_plan(inputs(200_000, 2_013)) is Plan.EXACT
    assert chosen_plan(inputs(200_000, 20_000)) is Plan.HNSW  # ~10 %: the index (47 against 179 ms)
    assert chosen_plan(inputs(200_000, 200_000)) is Plan.HNSW


@pytest.mark.unit
def test_one_percent_of_a_million_products_is_searched_exactly():
    # bench/scale.py at 1,000,000 products (3 chunks each), red M in stock (~10,000 products):
    # exact distances 180 ms, the index walk 373 ms; ~10 % (100,000): the walk 119-151 ms, exact 2 s.
    assert chosen_plan(inputs(1_000_000, 9_926, chunks_per_product=3.0)) is Plan.EXACT
    assert chosen_plan(inputs(1_000_000, 100_000, chunks_per_product=3.0)) is Plan.HNSW


@pytest.mark.unit
def test_the_boundary_grows_with_the_catalog_and_falls_with_its_chunks_per_product():
    small, middle, large = boundary(10_000), boundary(50_000), boundary(200_000)
    assert 1_000 < small < middle < large < 8_000
    assert boundary(200_000, chunks_per_product=4.0) < large
    for products in (10_000, 200_000):  # one switch: exact below the boundary, the index from it on
        edge = boundary(products)
        assert chosen_plan(inputs(products, edge - 1)) is Plan.EXACT
        assert all(chosen_plan(inputs(products, m)) is Plan.HNSW for m in range(edge, products, 997))


@pytest.mark.unit
def test_a_walk_past_max_scan_tuples_costs_the_exact_plan_on_top():
    few = inputs(1_000_000, 50)  # 60 / 0.00005 tuples to visit: far past 20,000
    assert hnsw_cost(few) > exact_cost(few)
    assert chosen_plan(few) is Plan.EXACT
    assert chosen_plan(inputs(1_000_000, 0)) is Plan.EXACT  # nothing matches: no walk can find it


@pytest.mark.unit
def test_small_catalogs_are_searched_exactly_and_the_fixed_count_still_overrides():
    assert chosen_plan(inputs(300, 300)) is Plan.EXACT
    assert chosen_plan(inputs(200_000, 2_013), exact_below_products=2_000) is Plan.HNSW
    assert chosen_plan(inputs(300, 300), exact_below_products=0) is Plan.HNSW
    assert chosen_plan(inputs(200_000, 150_000), exact_below_products=10**9) is Plan.EXACT


PRODUCTS, DIM, MODEL = 3_000, 32, "plan-test-32"


async def _catalog(pool, below: int, above: int) -> None:
    """PRODUCTS products with 2 random chunks each; `below` of them come in red, `above` in blue."""
    rng = np.random.default_rng(7)
    async with pool.acquire() as conn:
        await conn.copy_records_to_table(
            "product",
            columns=["slug", "name", "category", "price", "currency", "price_low", "price_high"],
            records=[(f"p-{n}", f"Product {n}", "Things", 10, "EUR", 10, 10) for n in range(PRODUCTS)],
        )
        ids = [r["id"] for r in await conn.fetch("SELECT id FROM product ORDER BY id")]
        colours = ["red"] * below + ["blue"] * above + ["grey"] * (PRODUCTS - below - above)
        await conn.copy_records_to_table(
            "product_variation",
            columns=["product_id", "color", "size", "quantity", "reserved", "variant_key", "paid_price"],
            records=[(i, c, "M", 1, 0, f"{c}\x1fM", 10) for i, c in zip(ids, rng.permutation(colours), strict=True)],
        )
        vectors = rng.normal(size=(2 * PRODUCTS, DIM)).astype(np.float32)
        await conn.copy_records_to_table(
            "product_chunk",
            columns=["product_id", "model", "ordinal", "kind", "content", "content_hash", "embedding"],
            records=[
                (ids[n // 2], MODEL, n % 2, "title", "x", bytes([n % 2]), Vector(vectors[n]))
                for n in range(2 * PRODUCTS)
            ],
        )
        await conn.execute("ANALYZE")
    await ensure_vector_index(pool, MODEL, DIM)


@pytest.mark.db
@pytest.mark.anyio
async def test_both_plans_find_the_same_products_on_either_side_of_the_boundary(database):
    edge = boundary(PRODUCTS)
    below, above = edge - 100, edge + 100
    async with open_pool(database, min_size=1, max_size=4, connect_timeout=10, command_timeout=60) as pool:
        await _catalog(pool, below, above)
        chosen = PostgresSearchIndex(pool)
        exact = PostgresSearchIndex(pool, tuning=SearchTuning(exact_below_products=10**9))
        walk = PostgresSearchIndex(pool, tuning=SearchTuning(exact_below_products=0))
        red, blue = SearchFilters(colors=("red",)), SearchFilters(colors=("blue",))
        assert await chosen.chosen_plan(red, 10) is Plan.EXACT
        assert await chosen.chosen_plan(blue, 10) is Plan.HNSW
        assert await chosen.chosen_plan(SearchFilters(), 10) is Plan.HNSW
        rng = np.random.default_rng(8)
        for filters in (red, blue):
            recalls = []
            for vector in rng.normal(size=(20, DIM)).astype(np.float32):
                truth = await chosen.exact_nearest(vector, MODEL, filters, 10)
                assert len(truth) == 10
                for index in (chosen, exact, walk):
                    found = (await index.candidates(vector, MODEL, DIM, [], filters, 10, need=10)).vector
                    recalls.append(len(set(found) & set(truth)) / len(truth))
            assert min(recalls) >= 0.8 and float(np.mean(recalls)) >= 0.95, (filters, recalls)


def _relations(plan: dict) -> set[str]:
    """The tables an EXPLAIN (FORMAT JSON) plan reads."""
    found = {plan["Relation Name"]} if "Relation Name" in plan else set()
    for child in plan.get("Plans", []):
        found |= _relations(child)
    return found


@pytest.mark.db
@pytest.mark.anyio
async def test_the_exact_plan_under_colour_size_and_stock_reads_no_product_row_and_finds_the_nearest(database):
    """Colours, sizes and stock are the variations' own: the products they let through come from
    the variations alone (at a million products, probing the ~10,000 product rows "red, M, in stock"
    lets through cost 35 ms of 165). A price bound reads the product's cheapest and dearest prices."""
    async with open_pool(database, min_size=1, max_size=2, connect_timeout=10, command_timeout=60) as pool:
        await _catalog(pool, 200, 300)
        async with pool.acquire() as conn:
            colours = {
                r["product_id"]: r["color"] for r in await conn.fetch("SELECT product_id, color FROM product_variation")
            }
            chunks = await conn.fetch("SELECT product_id, embedding FROM product_chunk WHERE model = $1", MODEL)
        ids = np.array([r["product_id"] for r in chunks])
        matrix = np.stack([np.asarray(r["embedding"].to_numpy(), dtype=np.float64) for r in chunks])
        matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
        index = PostgresSearchIndex(pool, tuning=SearchTuning(exact_below_products=10**9))
        rng = np.random.default_rng(9)
        for filters, wanted in (
            (SearchFilters(colors=("red",)), {"red"}),
            (SearchFilters(colors=("red", "blue"), sizes=("M",), in_stock=True), {"red", "blue"}),
        ):
            for vector in rng.normal(size=(5, DIM)).astype(np.float32):
                distance = 1 - matrix @ (vector / np.linalg.norm(vector))
                best: dict[int, float] = {}
                for product, d in zip(ids.tolist(), distance.tolist(), strict=True):
                    if colours[product] in wanted:
                        best[product] = min(d, best.get(product, 2.0))
                truth = sorted(best, key=lambda p: (best[p], p))[:10]
                assert await index.exact_nearest(vector, MODEL, filters, 10) == truth
            async with pool.acquire() as conn:
                plan = await conn.fetchval(
                    f"EXPLAIN (FORMAT JSON) {exact_sql(filters)}", Vector(vector), MODEL, *filter_args(filters), 10
                )
            assert _relations(json.loads(plan)[0]["Plan"]) == {"product_chunk", "product_variation"}, filters
            # the index walk too: each chunk it meets is tested on its product's variations, not its product row
            async with pool.acquire() as conn:
                plan = await conn.fetchval(
                    f"EXPLAIN (FORMAT JSON) {approximate_sql(MODEL, DIM, filters)}",
                    Vector(vector),
                    *filter_args(filters),
                    60,
                    10,
                )
            assert _relations(json.loads(plan)[0]["Plan"]) == {"product_chunk", "product_variation"}, filters
            walk = PostgresSearchIndex(pool, tuning=SearchTuning(exact_below_products=0))
            found = (await walk.candidates(vector, MODEL, DIM, [], filters, 10, need=10)).vector
            assert found and all(colours[p] in wanted for p in found), found
        priced = SearchFilters(colors=("red",), max_price=Decimal("20"))
        async with pool.acquire() as conn:
            plan = await conn.fetchval(
                f"EXPLAIN (FORMAT JSON) {exact_sql(priced)}", Vector(vector), MODEL, *filter_args(priced), 10
            )
        assert "product" in _relations(json.loads(plan)[0]["Plan"])
