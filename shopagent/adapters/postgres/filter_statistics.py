"""How many products a search filter lets through, estimated from catalog statistics.

The vector leg picks its plan by this number and the chunk count (exact distances for few
products, HNSW for many; see search_plan). Counting the matching products before every
search cost a round trip and, for a filter of middling selectivity, a scan of tens of thousands of rows (~6 ms on 50,000
products, more than the exact search it was deciding about). Instead, one query per
refresh interval reads the statistics a planner would want, and the estimate is plain
arithmetic on them:

- products per colour, per size, per colour and size, and of each those with the
  variation in stock (a product counts once per group: variations are unique per
  product, colour and size);
- a 100-step histogram of effective prices.

A filter's estimate is the variation groups' sum (an overcount when a product has several
asked colours or sizes, capped at the catalog size) times the price range's share
(colours and prices taken as independent). A wrong estimate only costs speed: both plans
apply the filters exactly, and the HNSW plan falls back to exact distances when the index
scan comes back short.
"""

from __future__ import annotations

import bisect
import time
from dataclasses import dataclass, field
from decimal import Decimal

from shopagent.adapters.postgres.pool import Connection
from shopagent.domain.pacing import ReadPace
from shopagent.domain.search import SearchFilters

_STEPS = 100
_READ = f"""
SELECT
    (SELECT count(*) FROM product) AS products,
    (SELECT count(*) FROM product_chunk) AS chunks,
    (SELECT percentile_cont((SELECT array_agg(n / {_STEPS}.0::float8) FROM generate_series(0, {_STEPS}) AS n))
            WITHIN GROUP (ORDER BY coalesce(discount_price, price)::float8)
     FROM product) AS prices,
    g.colors, g.sizes, g.products_by_group, g.stocked_by_group
FROM (
    SELECT array_agg(coalesce(color, '')) AS colors, array_agg(coalesce(size, '')) AS sizes,
           array_agg(products) AS products_by_group, array_agg(stocked) AS stocked_by_group
    FROM (
        SELECT color, size, count(DISTINCT product_id) AS products,
               count(DISTINCT product_id) FILTER (WHERE quantity > reserved) AS stocked
        FROM product_variation GROUP BY GROUPING SETS ((color, size), (color), (size), ())
    ) per_group
) g
"""


@dataclass(frozen=True)
class FilterStatistics:
    products: int = 0
    chunks: int = 0  # stored chunks (of every model): with `products`, the chunks per product
    prices: tuple[float, ...] = ()  # effective price at 0 %, 1 %, ... 100 % of the products
    # (colour or "", size or "") -> (products with such a variation, with it in stock)
    groups: dict[tuple[str, str], tuple[int, int]] = field(default_factory=dict)

    def matching(self, filters: SearchFilters) -> float:
        """The estimated number of products `filters` lets through."""
        count = float(self.products)
        if filters.on_variation:
            stocked = 1 if filters.in_stock else 0
            keys = [(c, s) for c in filters.colors or ("",) for s in filters.sizes or ("",)]
            count = min(count, float(sum(self.groups.get(k, (0, 0))[stocked] for k in keys)))
        return count * self._price_share(filters.min_price, filters.max_price)

    def _price_share(self, low: Decimal | None, high: Decimal | None) -> float:
        if (low is None and high is None) or len(self.prices) < 2:
            return 1.0
        below_high = self._share_below(float(high)) if high is not None else 1.0
        below_low = self._share_below(float(low)) if low is not None else 0.0
        return max(0.0, below_high - below_low)

    def _share_below(self, price: float) -> float:
        """The share of products whose effective price is at most `price` (interpolated)."""
        prices = self.prices
        if price < prices[0]:
            return 0.0
        if price >= prices[-1]:
            return 1.0
        step = bisect.bisect_right(prices, price) - 1
        low, high = prices[step], prices[step + 1]
        within = (price - low) / (high - low) if high > low else 1.0
        return (step + within) / (len(prices) - 1)


async def read_filter_statistics(conn: Connection) -> FilterStatistics:
    row = await conn.fetchrow(_READ)
    assert row is not None  # aggregates without GROUP BY: always one row
    groups = zip(
        row["colors"] or (),
        row["sizes"] or (),
        row["products_by_group"] or (),
        row["stocked_by_group"] or (),
        strict=True,
    )
    return FilterStatistics(
        products=row["products"],
        chunks=row["chunks"],
        prices=tuple(float(p) for p in row["prices"] or ()),
        groups={(color, size): (products, stocked) for color, size, products, stocked in groups},
    )


class CatalogStatistics:
    """The latest `FilterStatistics`, re-read when older than `refresh_seconds` (or than forty times
    as long as the last read took: `ReadPace`); while one search re-reads them, the others use the
    copy they have. `refresh` re-reads them at once (the search's background refresh calls it before
    they get that old)."""

    def __init__(self, refresh_seconds: float = 60.0) -> None:
        self._pace = ReadPace(refresh_seconds)
        self._statistics: FilterStatistics | None = None
        self._read_at: float | None = None

    async def current(self, conn: Connection) -> FilterStatistics:
        now = time.monotonic()
        if self._statistics is None or self._read_at is None or self._pace.stale(now - self._read_at):
            previous, self._read_at = self._read_at, now
            try:
                self._statistics = await read_filter_statistics(conn)
            except BaseException:
                self._read_at = previous
                raise
            self._pace.took = time.monotonic() - now
        return self._statistics

    async def refresh(self, conn: Connection, *, paced: bool = False) -> None:
        """Re-read them now; `paced`: only if the last read is old enough for its pace (`ReadPace.due`)."""
        started = time.monotonic()
        if paced and self._read_at is not None and not self._pace.due(started - self._read_at):
            return
        self._statistics, self._read_at = await read_filter_statistics(conn), time.monotonic()
        self._pace.took = self._read_at - started
