"""PostgresSearchIndex: pgvector nearest neighbours within SQL filters, one hit per product.

Two plans, chosen per query:
- selective filters (few products match): compute the exact distance to every chunk of the
  matching products — perfect recall, and cheap because the set is small;
- otherwise the model's HNSW index with iterative scan (`SET LOCAL`, so pooled connections
  never keep it), with the filters applied as the scan goes, so they cannot starve results.
Either way chunks are reduced to their product's best one, and the query text never
reaches SQL: only the vector does, as a parameter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import asyncpg
import numpy as np
from pgvector import Vector

from shopagent.domain.search import ProductHit, SearchFilters

_MODEL_ID = re.compile(r"^[A-Za-z0-9@._:/-]{1,100}$")


def _filters(first: int) -> str:
    """The filter predicate on `product p`, its six parameters numbered from `first`.

    A NULL bound or an empty list means "no constraint".
    """
    low, high, on_variation, colors, sizes, in_stock = (f"${n}" for n in range(first, first + 6))
    return f"""
    ({low}::numeric IS NULL OR coalesce(p.discount_price, p.price) >= {low})
    AND ({high}::numeric IS NULL OR coalesce(p.discount_price, p.price) <= {high})
    AND (NOT {on_variation}::bool OR EXISTS (
        SELECT 1 FROM product_variation v
        WHERE v.product_id = p.id
          AND (cardinality({colors}::text[]) = 0 OR v.color = ANY({colors}::text[]))
          AND (cardinality({sizes}::text[]) = 0 OR v.size = ANY({sizes}::text[]))
          AND (NOT {in_stock}::bool OR v.quantity > v.reserved)))
    """


_HYDRATE = """
SELECT p.id, p.name, p.slug, p.category, p.price, p.discount_price, p.currency, p.rating, b.distance,
       coalesce(array(SELECT DISTINCT v.color FROM product_variation v
                      WHERE v.product_id = p.id AND v.quantity > v.reserved ORDER BY 1), '{}') AS colors,
       coalesce(array(SELECT DISTINCT v.size FROM product_variation v
                      WHERE v.product_id = p.id AND v.quantity > v.reserved ORDER BY 1), '{}') AS sizes
FROM best b JOIN product p ON p.id = b.product_id
ORDER BY b.distance, p.id
"""


@dataclass(frozen=True)
class SearchTuning:
    ef_search: int = 100  # HNSW candidate list per scan step
    max_scan_tuples: int = 20_000  # how far an iterative scan may go before giving up
    exact_below_products: int = 2_000  # filters matching fewer products: exact distances instead
    chunks_per_product: int = 6  # chunk candidates fetched per product wanted


class PostgresSearchIndex:
    def __init__(self, pool: asyncpg.Pool, tuning: SearchTuning | None = None) -> None:
        self._pool = pool
        self._tuning = tuning or SearchTuning()

    async def search(
        self, vector: np.ndarray, model: str, dimension: int, filters: SearchFilters, limit: int
    ) -> list[ProductHit]:
        if not _MODEL_ID.match(model):
            raise ValueError(f"unsupported model id {model!r}")
        args = _filter_args(filters)
        async with self._pool.acquire() as conn, conn.transaction(readonly=True):
            if filters.on_variation or filters.min_price is not None or filters.max_price is not None:
                matching = await conn.fetch(
                    f"SELECT p.id FROM product p WHERE {_filters(1)} LIMIT $7", *args, self._tuning.exact_below_products
                )
                if len(matching) < self._tuning.exact_below_products:
                    return await self._exact(conn, vector, model, [r["id"] for r in matching], limit)
            return await self._approximate(conn, vector, model, dimension, args, limit)

    async def exact(self, vector: np.ndarray, model: str, filters: SearchFilters, limit: int) -> list[ProductHit]:
        """A sequential scan over every matching chunk: the reference the benchmark compares with."""
        async with self._pool.acquire() as conn, conn.transaction(readonly=True):
            rows = await conn.fetch(f"SELECT p.id FROM product p WHERE {_filters(1)}", *_filter_args(filters))
            return await self._exact(conn, vector, model, [r["id"] for r in rows], limit)

    async def _exact(
        self, conn: asyncpg.Connection, vector: np.ndarray, model: str, product_ids: list[int], limit: int
    ) -> list[ProductHit]:
        if not product_ids:
            return []
        rows = await conn.fetch(
            f"""
            WITH best AS (
                SELECT c.product_id, min(c.embedding <=> $1) AS distance
                FROM product_chunk c
                WHERE c.model = $2 AND c.product_id = ANY($3::bigint[])
                GROUP BY c.product_id
                ORDER BY distance, c.product_id
                LIMIT $4
            )
            {_HYDRATE}
            """,
            Vector(vector),
            model,
            product_ids,
            limit,
        )
        return [_hit(r) for r in rows]

    async def _approximate(
        self, conn: asyncpg.Connection, vector: np.ndarray, model: str, dimension: int, args: tuple, limit: int
    ) -> list[ProductHit]:
        tuning = self._tuning
        await conn.execute(
            f"SET LOCAL hnsw.iterative_scan = relaxed_order; SET LOCAL hnsw.ef_search = {int(tuning.ef_search)}; "
            f"SET LOCAL hnsw.max_scan_tuples = {int(tuning.max_scan_tuples)}"
        )
        # The expression and the model literal must match the partial index exactly for the
        # planner to use it (a parameter would not prove the index predicate).
        distance = f"c.embedding::vector({int(dimension)}) <=> $1::vector({int(dimension)})"
        candidates = max(limit * tuning.chunks_per_product, 40)
        sql = f"""
            WITH nearest AS MATERIALIZED (
                SELECT c.product_id, {distance} AS distance
                FROM product_chunk c JOIN product p ON p.id = c.product_id
                WHERE c.model = '{model}' AND {_filters(2)}
                ORDER BY {distance}
                LIMIT $8
            ),
            best AS (
                SELECT product_id, min(distance) AS distance FROM nearest
                GROUP BY product_id ORDER BY distance, product_id LIMIT $9
            )
            {_HYDRATE}
        """
        for _ in range(3):
            rows = await conn.fetch(sql, Vector(vector), *args, candidates, limit)
            if len(rows) >= limit:
                break
            candidates *= 4  # the best chunks crowded into few products: look further
        return [_hit(r) for r in rows]


def _filter_args(f: SearchFilters) -> tuple:
    return (f.min_price, f.max_price, f.on_variation, list(f.colors), list(f.sizes), f.in_stock)


def _hit(row: asyncpg.Record) -> ProductHit:
    price, discount = row["price"], row["discount_price"]
    return ProductHit(
        product_id=row["id"],
        name=row["name"],
        slug=row["slug"],
        category=row["category"],
        price=price,
        discounted_price=discount,
        effective_price=discount if discount is not None else price,
        currency=row["currency"],
        rating=float(row["rating"]) if row["rating"] is not None else None,
        distance=round(float(row["distance"]), 4),
        available_colors=list(row["colors"]),
        available_sizes=list(row["sizes"]),
    )
