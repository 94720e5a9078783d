"""PostgresSearchIndex: the two search legs and the evidence about their candidates.

The **vector leg** takes the products whose best chunk is nearest the query vector, with
one of two plans chosen per query by their estimated cost (`search_plan`: the chunks of the
products the filters let through against the index walk needed to find enough of them), from
catalog statistics read once a refresh interval (`filter_statistics`; no counting query per
search):
- few products (selective filters, or a small catalog): the exact distance to every chunk
  of the matching products, in one statement — perfect recall, and cheap because the set
  is small;
- otherwise the model's HNSW index with iterative scan (`SET LOCAL`, so pooled connections
  never keep it), with the filters applied as the scan goes, so they cannot starve results.
  Should it still come back short (the estimate was too high), the exact plan answers.

The **lexical leg** ranks products by PostgreSQL full-text search over the document the
indexer stores for each product (name and category weighted above brand and material,
above the description and colours), under the same filters. Query words arrive as a list of plain
words and each goes through `plainto_tsquery`, which accepts any text: user input can
never be a tsquery syntax error. The words are OR-ed (`shopagent_tsquery_any`), so a
product matching some of them still ranks; products are matched on the rarest of them (the
search says which) and ranked on all, so a common word does not make the leg rank a third of
a large catalog.

The two legs run at once, each on a pooled connection of its own. Then one query reads,
for every candidate of either leg, what the ranking needs: the exact distance of its
closest chunk, which query words its title (name, category, brand, material) contains,
and the available units of the asked variation. The query vector and words only ever
reach SQL as parameters.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import anyio
import asyncpg
import numpy as np
from pgvector import Vector

from shopagent.adapters.postgres.filter_statistics import CatalogStatistics, FilterStatistics
from shopagent.adapters.postgres.pool import Connection, ConnectionPool
from shopagent.adapters.postgres.search_plan import Plan, PlanInputs, chosen_plan
from shopagent.adapters.postgres.search_sql import (
    EVIDENCE,
    KINDS,
    LEXICAL_ANY,
    TEXT_CONFIG_NAME,
    TITLE_PHRASES,
    VOCABULARY,
    approximate_sql,
    exact_sql,
    filter_args,
    lexical_sql,
)
from shopagent.application.ports import CandidateRow, SearchCandidates
from shopagent.domain.indexing import MODEL_ID
from shopagent.domain.query_words import kind_words
from shopagent.domain.search import SearchFilters
from shopagent.domain.text import CatalogWords


@dataclass(frozen=True)
class SearchTuning:
    ef_search: int = 100  # HNSW candidate list per scan step
    max_scan_tuples: int = 20_000  # how far an iterative scan may go before giving up
    # None: the plan of lower estimated cost (search_plan); a number: exact distances when the
    # filters match fewer products (estimated), else the index (0: always the index)
    exact_below_products: int | None = None
    chunks_per_product: int = 6  # chunk candidates fetched per product wanted
    statistics_refresh_seconds: float = 60.0  # how stale the statistics behind that estimate may get


class PostgresSearchIndex:
    def __init__(self, pool: ConnectionPool, text_config: str = "english", tuning: SearchTuning | None = None) -> None:
        if not TEXT_CONFIG_NAME.match(text_config):
            raise ValueError(f"unsupported text search configuration {text_config!r}")
        self._pool = pool
        self._config = text_config
        self._tuning = tuning or SearchTuning()
        self._statistics = CatalogStatistics(self._tuning.statistics_refresh_seconds)

    async def candidates(
        self,
        vector: np.ndarray | None,
        model: str,
        dimension: int,
        terms: Sequence[str],
        filters: SearchFilters,
        depth: int,
        need: int = 1,
        *,
        lexical: bool = True,
        match_terms: Sequence[str] | None = None,
        match_first: str | None = None,
        match_limit: int | None = None,
    ) -> SearchCandidates:
        """Each leg's best `depth` products (a leg with no input is skipped) and their evidence.

        The HNSW plan looks further only while the vector leg has fewer than `need` products.
        The lexical leg matches products on `match_terms` (all `terms` when None), at most
        `match_limit` of them, those having all of `match_first` first (and alone where they are
        at least `depth`), and ranks them on all `terms`."""
        if not MODEL_ID.match(model):
            raise ValueError(f"unsupported model id {model!r}")
        args = filter_args(filters)
        terms = list(terms)
        matching = list(match_terms) if match_terms is not None else terms
        legs: dict[str, list[int]] = {"vector": [], "lexical": []}

        async def vector_leg(vector: np.ndarray) -> None:
            async with self._pool.acquire() as conn, conn.transaction(readonly=True):
                # Which plan is best depends on how selective the filter values are: plan with
                # the values every time, never with a cached generic plan.
                await conn.execute("SET LOCAL plan_cache_mode = force_custom_plan")
                legs["vector"] = await self._nearest(conn, vector, model, dimension, args, filters, depth, need)

        async def lexical_leg() -> None:
            async with self._pool.acquire() as conn, conn.transaction(readonly=True):
                await conn.execute("SET LOCAL plan_cache_mode = force_custom_plan")
                if filters.any:
                    # Filters estimated to let few products through: start from those products,
                    # as the vector leg's exact plan does.
                    few = self._plan(await self._statistics.current(conn), filters, depth) is Plan.EXACT
                    sql = lexical_sql(filters, filter_first=few)
                    rows = await conn.fetch(sql, self._config, terms, depth, *args, matching, match_first, match_limit)
                else:
                    rows = await conn.fetch(LEXICAL_ANY, self._config, terms, depth, matching, match_first, match_limit)
            legs["lexical"] = [r["product_id"] for r in rows]

        # The legs run at once, each on a connection of its own: the search takes about as
        # long as the slower one.
        try:
            async with anyio.create_task_group() as tg:
                if vector is not None:
                    tg.start_soon(vector_leg, vector)
                if terms and lexical:
                    tg.start_soon(lexical_leg)
        except ExceptionGroup as group:  # one leg's failure is the search's failure
            raise group.exceptions[0] from None
        nearest, matches = legs["vector"], legs["lexical"]
        ids = list(dict.fromkeys([*nearest, *matches]))
        rows = []
        if ids:
            async with self._pool.acquire() as conn:
                rows = await conn.fetch(
                    EVIDENCE, self._config, terms, Vector(vector) if vector is not None else None, model, ids, *args
                )
        content = rows[0]["content_terms"] if rows else []
        return SearchCandidates(
            vector=nearest,
            lexical=matches,
            content_terms=frozenset(n - 1 for n in content),
            rows={r["id"]: _row(r) for r in rows},
        )

    async def vocabulary(self, phrases: Sequence[str] = ()) -> CatalogWords:
        """Every word of the indexed products with its product count, those of their names,
        categories, brands and materials, how many products are indexed, and which of
        `phrases` a name or category has word after word (looked up only for the phrases whose
        words the titles all use: a few GIN lookups)."""
        async with self._pool.acquire() as conn:
            known = await conn.fetch(VOCABULARY.format(weights=""))
            titles = {r["word"]: r["ndoc"] for r in await conn.fetch(VOCABULARY.format(weights=", 'a'"))}
            products = await conn.fetchval("SELECT count(*) FROM product_index WHERE words IS NOT NULL")
            asked = [p for p in phrases if _titles_have(p.split(), titles)]
            named = await conn.fetch(TITLE_PHRASES, self._config, asked, [_phrase_query(p) for p in asked])
            rows = await conn.fetch(KINDS)
        kinds, categories = kind_words(
            {r["title"]: r["n"] for r in rows if not r["category"]}, [r["title"] for r in rows if r["category"]], titles
        )
        found = {r["word"]: r["ndoc"] for r in known}
        return CatalogWords(found, titles, products, frozenset(r[0] for r in named), kinds, categories)

    async def exact_nearest(self, vector: np.ndarray, model: str, filters: SearchFilters, limit: int) -> list[int]:
        """A sequential scan over every matching chunk: the reference the benchmark compares with."""
        async with self._pool.acquire() as conn, conn.transaction(readonly=True):
            return await self._exact(conn, vector, model, filter_args(filters), filters, limit)

    async def refresh(self, *, paced: bool = False) -> None:
        async with self._pool.acquire() as conn:
            await self._statistics.refresh(conn, paced=paced)

    async def estimated_matching(self, filters: SearchFilters) -> float:
        """How many products `filters` lets through, as the plan choice estimates it."""
        async with self._pool.acquire() as conn:
            return (await self._statistics.current(conn)).matching(filters)

    async def chosen_plan(self, filters: SearchFilters, limit: int) -> Plan:
        """The vector leg's plan for `filters` and `limit` products, as it would run now."""
        async with self._pool.acquire() as conn:
            return self._plan(await self._statistics.current(conn), filters, limit)

    def _plan(self, statistics: FilterStatistics, filters: SearchFilters, limit: int) -> Plan:
        tuning = self._tuning
        inputs = PlanInputs(
            products=statistics.products,
            chunks=statistics.chunks,
            matching=statistics.matching(filters),
            wanted=max(limit * tuning.chunks_per_product, 40),  # what `_approximate` asks the index for
            ef_search=tuning.ef_search,
            max_scan_tuples=tuning.max_scan_tuples,
        )
        return chosen_plan(inputs, tuning.exact_below_products)

    async def _nearest(
        self,
        conn: Connection,
        vector: np.ndarray,
        model: str,
        dimension: int,
        args: tuple[object, ...],
        filters: SearchFilters,
        limit: int,
        need: int,
    ) -> list[int]:
        if self._plan(await self._statistics.current(conn), filters, limit) is Plan.EXACT:
            return await self._exact(conn, vector, model, args, filters, limit)
        found = await self._approximate(conn, vector, model, dimension, args, filters, limit, need)
        if len(found) < min(need, limit) and filters.any and self._tuning.exact_below_products != 0:
            # Fewer products match than the statistics said (they are older than the catalog):
            # the scan gave up before finding enough, the exact distances will not.
            return await self._exact(conn, vector, model, args, filters, limit)
        return found

    async def _exact(
        self,
        conn: Connection,
        vector: np.ndarray,
        model: str,
        args: tuple[object, ...],
        filters: SearchFilters,
        limit: int,
    ) -> list[int]:
        # No parallel workers: their plan scans every product's key to meet the few the filters
        # let through (100 ms at a million products where starting from the variations found
        # takes 1), and the two legs already share the cores.
        await conn.execute("SET LOCAL max_parallel_workers_per_gather = 0")
        rows = await conn.fetch(exact_sql(filters), Vector(vector), model, *args, limit)
        return [r["product_id"] for r in rows]

    async def _approximate(
        self,
        conn: Connection,
        vector: np.ndarray,
        model: str,
        dimension: int,
        args: tuple[object, ...],
        filters: SearchFilters,
        limit: int,
        need: int,
    ) -> list[int]:
        tuning = self._tuning
        await conn.execute(
            f"SET LOCAL hnsw.iterative_scan = relaxed_order; SET LOCAL hnsw.ef_search = {int(tuning.ef_search)}; "
            f"SET LOCAL hnsw.max_scan_tuples = {int(tuning.max_scan_tuples)}"
        )
        candidates = max(limit * tuning.chunks_per_product, 40)
        sql = approximate_sql(model, dimension, filters)
        for _ in range(3):
            rows = await conn.fetch(sql, Vector(vector), *args, candidates, limit)
            if len(rows) >= min(need, limit):
                break
            candidates *= 4  # the best chunks crowded into few products: look further
        return [r["product_id"] for r in rows]


def _row(row: asyncpg.Record) -> CandidateRow:
    return CandidateRow(
        product_id=row["id"],
        name=row["name"],
        slug=row["slug"],
        category=row["category"],
        price=row["price"],
        discount_price=row["discount_price"],
        currency=row["currency"],
        rating=float(row["rating"]) if row["rating"] is not None else None,
        main_image=row["main_image"],
        distance=float(row["distance"]) if row["distance"] is not None else None,
        title_terms=frozenset(n - 1 for n in row["title_terms"]),
        body_terms=frozenset(n - 1 for n in row["body_terms"]),
        category_terms=frozenset(n - 1 for n in row["category_terms"]),
        available=int(row["available"] or 0),
        colors=list(row["colors"]),
        made_in=frozenset(row["made_in"]),
        sized_in=frozenset(row["sized_in"]),
        lightest_grams=row["lightest"],
        name_terms=frozenset(n - 1 for n in row["name_terms"]),
        material=row["material"],
        lead=row["lead"] or "",
        specs=row["specs"] or {},
        sizes=list(row["sizes"]),
        options=list(row["options"]),
        prices_vary=row["prices_vary"],
        url=row["url"],
        external_id=row["external_id"],
    )


def _titles_have(phrase: list[str], titles: dict[str, int]) -> bool:
    """Whether the titles use every word of a phrase (its last maybe in the plural)."""
    *first, last = phrase
    plural = last.endswith("s") and (last[:-1] in titles or (last.endswith("es") and last[:-2] in titles))
    return all(w in titles for w in first) and (last in titles or plural)


def _phrase_query(phrase: str) -> str:
    """A phrase's words, each in a name or category (weight A), one after the other."""
    return " <-> ".join(f"{w}:A" for w in phrase.split())
