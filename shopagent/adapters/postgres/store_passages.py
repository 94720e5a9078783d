"""PostgresPassageStore: each store page's passages (embeddings and full-text documents), and
the candidate passages of a store-information query.

Store pages are few (tens, not thousands), so a query computes exact cosine distances over
every passage of the model and needs no vector index: that also keeps the products' vector
index upkeep (`VectorIndexKeeper`) out of it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pgvector import Vector

from shopagent.adapters.postgres.pool import Connection, ConnectionPool
from shopagent.application.ports import SaveOutcome
from shopagent.application.ports.indexing import PageItem
from shopagent.domain.indexing import OutboxEvent
from shopagent.domain.options import fold
from shopagent.domain.store_information import PassageEvidence
from shopagent.domain.store_pages import PageCoverage
from shopagent.domain.text import text_search_config_for


class PostgresPassageStore:
    def __init__(self, pool: ConnectionPool, store_language: str = "en", text_config: str = "english") -> None:
        self._pool = pool
        self._store_language = store_language
        self._text_config = text_config  # the store language's (search.text_search_config when set)

    def text_config_for(self, language: str) -> str:
        """The full-text configuration of a page in `language`."""
        if language.split("-")[0].casefold() == self._store_language.split("-")[0].casefold():
            return self._text_config
        return text_search_config_for(language)

    async def indexed_sets(self, page_ids: Sequence[int], model: str) -> dict[int, bytes]:
        async with self._pool.acquire() as conn:
            return await _indexed_sets(conn, page_ids, model)

    async def stored_embeddings(self, page_ids: Sequence[int], model: str) -> dict[bytes, np.ndarray]:
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(
                "SELECT content_hash, embedding FROM store_passage WHERE page_id = ANY($1::bigint[]) AND model = $2",
                page_ids,
                model,
            )
        return {bytes(r["content_hash"]): r["embedding"].to_numpy() for r in rows}

    async def write_sets(
        self, conn: Connection, events: Sequence[OutboxEvent], items: Sequence[PageItem], model: str
    ) -> dict[int, SaveOutcome]:
        """Store the passage sets on `conn`, in the caller's transaction (the indexing unit of
        work, `indexing_unit`), each unless its page changed or is gone. The outcome by page."""
        by_page = {item.page.id: item for item in items}
        page_ids = sorted({e.product_id for e in events})
        versions = {
            r["id"]: r["version"]
            for r in await conn.fetch(
                "SELECT id, version FROM store_page WHERE id = ANY($1::bigint[]) ORDER BY id FOR NO KEY UPDATE",
                page_ids,
            )
        }
        indexed = await _indexed_sets(conn, list(versions), model)
        outcome_of: dict[int, SaveOutcome] = {}
        writes = []
        for page_id in page_ids:
            item = by_page.get(page_id)
            if page_id not in versions or item is None:
                outcome_of[page_id] = SaveOutcome.GONE
            elif versions[page_id] != item.page.version:
                outcome_of[page_id] = SaveOutcome.STALE
            elif indexed.get(page_id) == item.set_hash:
                outcome_of[page_id] = SaveOutcome.UNCHANGED
            elif item.vectors is None:
                outcome_of[page_id] = SaveOutcome.STALE
            else:
                outcome_of[page_id] = SaveOutcome.WRITTEN
                writes.append(item)
        await self._write(conn, writes, model)
        return outcome_of

    async def _write(self, conn: Connection, items: Sequence[PageItem], model: str) -> None:
        if not items:
            return
        ids = [i.page.id for i in items]
        await conn.execute("DELETE FROM store_passage WHERE page_id = ANY($1::bigint[])", ids)
        # The document: page title and heading weighted A, the passage's text D; folded first
        # (case and accents), as product documents are and as query words are.
        await conn.executemany(
            """
            INSERT INTO store_passage (page_id, model, ordinal, heading, body, content_hash, embedding,
                                       text_config, document)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8::regconfig,
                    setweight(to_tsvector($8::regconfig, $9), 'A') || to_tsvector($8::regconfig, $10))
            """,
            [
                (
                    item.page.id,
                    model,
                    p.ordinal,
                    p.heading,
                    p.text,
                    p.content_hash,
                    Vector(vector),
                    self.text_config_for(item.page.language),
                    fold(f"{item.page.title} {p.heading}"),
                    fold(p.text),
                )
                for item in items
                for p, vector in zip(item.passages, item.vectors, strict=True)  # type: ignore[arg-type]
            ],
        )
        await conn.execute(
            """
            INSERT INTO store_page_index (page_id, model, page_version, passage_set_hash)
            SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bytea[])
            ON CONFLICT (page_id) DO UPDATE
            SET model = excluded.model, page_version = excluded.page_version,
                passage_set_hash = excluded.passage_set_hash, indexed_at = now()
            """,
            ids,
            [model] * len(items),
            [i.page.version for i in items],
            [i.set_hash for i in items],
        )

    async def coverage(self, model: str) -> PageCoverage:
        async with self._pool.acquire() as conn:
            row = await conn.fetchrow(
                """
                SELECT (SELECT count(*) FROM store_page_index WHERE model = $1) AS indexed,
                       (SELECT count(*) FROM store_page) AS total
                """,
                model,
            )
        assert row is not None  # a SELECT without FROM: always one row
        return PageCoverage(pages_indexed=row["indexed"], pages_total=row["total"])

    async def candidates(
        self, query: np.ndarray, words: Sequence[str], model: str, depth: int
    ) -> list[PassageEvidence]:
        """The `depth` nearest passages and the `depth` best full-text matches (any of the
        query's words), each with its distance, its places in both legs and the share of the
        query's words (those the page language does not drop as stop words) its text has. A word
        whose stem has five letters or more also matches the words that stem begins ("deliver",
        stemmed "deliv", has "delivery", stemmed "deliveri"); a shorter stem only itself ("going",
        "go", never has "goods")."""
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(_CANDIDATES, Vector(query), model, depth, list(words))
        return [
            PassageEvidence(
                page=r["slug"],
                title=r["title"],
                url=r["url"],
                text=r["body"],
                distance=r["distance"],
                vector_rank=r["vector_rank"],
                lexical_rank=r["lexical_rank"],
                coverage=(r["matched"] / r["counted"]) if r["counted"] else 0.0,
            )
            for r in rows
        ]


_CANDIDATES = """
WITH terms AS (  -- each query word's lexemes in each page language; five letters on, also as a prefix
    SELECT c.config, w.ordinality AS word,
           CASE WHEN length(x.lexeme) >= 5 THEN x.lexeme || ':*' ELSE x.lexeme END AS lexeme
    FROM (SELECT DISTINCT text_config AS config FROM store_passage WHERE model = $2) c,
         unnest($4::text[]) WITH ORDINALITY AS w(word, ordinality),
         unnest(tsvector_to_array(to_tsvector(c.config, w.word))) AS x(lexeme)
),
passage AS (
    SELECT p.page_id, p.ordinal, p.embedding <=> $1::vector AS distance, p.document, p.text_config,
           (SELECT to_tsquery('simple', string_agg(t.lexeme, ' | ')) FROM terms t WHERE t.config = p.text_config)
               AS query
    FROM store_passage p WHERE p.model = $2
),
vector_leg AS (
    SELECT page_id, ordinal, row_number() OVER (ORDER BY distance, page_id, ordinal) AS rank
    FROM passage ORDER BY distance, page_id, ordinal LIMIT $3
),
lexical_leg AS (
    SELECT page_id, ordinal,
           row_number() OVER (ORDER BY ts_rank_cd(document, query) DESC, page_id, ordinal) AS rank
    FROM passage WHERE query IS NOT NULL AND document @@ query
    ORDER BY ts_rank_cd(document, query) DESC, page_id, ordinal LIMIT $3
)
SELECT s.slug, s.title, s.url, sp.body, c.distance, v.rank AS vector_rank, l.rank AS lexical_rank,
       coalesce(w.matched, 0) AS matched, coalesce(w.counted, 0) AS counted
FROM passage c
JOIN store_passage sp ON sp.page_id = c.page_id AND sp.model = $2 AND sp.ordinal = c.ordinal
JOIN store_page s ON s.id = c.page_id
LEFT JOIN vector_leg v ON v.page_id = c.page_id AND v.ordinal = c.ordinal
LEFT JOIN lexical_leg l ON l.page_id = c.page_id AND l.ordinal = c.ordinal
LEFT JOIN LATERAL (
    SELECT count(*) FILTER (WHERE c.document @@ q) AS matched, count(*) AS counted
    FROM (SELECT to_tsquery('simple', string_agg(t.lexeme, ' & ')) AS q
          FROM terms t WHERE t.config = c.text_config GROUP BY t.word) per_word
) w ON true
WHERE v.rank IS NOT NULL OR l.rank IS NOT NULL
"""


async def _indexed_sets(conn: Connection, page_ids: Sequence[int], model: str) -> dict[int, bytes]:
    rows = await conn.fetch(
        "SELECT page_id, passage_set_hash FROM store_page_index WHERE page_id = ANY($1::bigint[]) AND model = $2",
        page_ids,
        model,
    )
    return {r["page_id"]: bytes(r["passage_set_hash"]) for r in rows}
