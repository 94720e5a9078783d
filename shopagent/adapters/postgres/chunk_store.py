"""PostgresChunkStore: each product's chunk set (with embeddings) and full-text document.
The sets are written by `write_chunk_sets`, inside the indexing unit of work (`indexing_unit`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pgvector import Vector

from shopagent.adapters.postgres.pool import Connection, ConnectionPool
from shopagent.application.ports import IndexCoverage, SaveOutcome
from shopagent.application.ports.indexing import SaveItem
from shopagent.domain.indexing import OutboxEvent
from shopagent.domain.query_words import name_kind
from shopagent.domain.text import lexical_fields


class PostgresChunkStore:
    def __init__(self, pool: ConnectionPool, text_config: str = "english") -> None:
        self._pool = pool
        self._text_config = text_config  # of the full-text documents written with each chunk set

    async def indexed_sets(self, product_ids: Sequence[int], model: str) -> dict[int, bytes]:
        async with self._pool.acquire() as conn:
            return await _indexed_sets(conn, product_ids, model)

    async def stored_embeddings(self, product_ids: Sequence[int], model: str) -> dict[bytes, np.ndarray]:
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(
                "SELECT content_hash, embedding FROM product_chunk WHERE product_id = ANY($1::bigint[]) AND model = $2",
                product_ids,
                model,
            )
        return {bytes(r["content_hash"]): r["embedding"].to_numpy() for r in rows}

    async def write_sets(
        self, conn: Connection, events: Sequence[OutboxEvent], items: Sequence[SaveItem], model: str
    ) -> dict[int, SaveOutcome]:
        """`write_chunk_sets` with this store's text search configuration."""
        return await write_chunk_sets(conn, events, items, model, self._text_config)

    async def products_indexed(self, model: str) -> int:
        async with self._pool.acquire() as conn:
            return await conn.fetchval("SELECT count(*) FROM product_index WHERE model = $1", model)

    async def coverage(self, model: str) -> IndexCoverage:
        async with self._pool.acquire() as conn:
            indexed = await conn.fetchval("SELECT count(*) FROM product_index WHERE model = $1", model)
            total = await conn.fetchval("SELECT count(*) FROM product")
            documents = await conn.fetch(
                "SELECT text_config::text AS config, count(*) AS n FROM product_index "
                "WHERE document IS NOT NULL GROUP BY 1 ORDER BY 1"
            )
        return IndexCoverage(
            products_indexed=indexed,
            products_total=total,
            text_search_config=self._text_config,
            text_documents={r["config"]: r["n"] for r in documents},
        )


async def write_chunk_sets(
    conn: Connection,
    events: Sequence[OutboxEvent],
    items: Sequence[SaveItem],
    model: str,
    text_config: str,
) -> dict[int, SaveOutcome]:
    """Store the chunk sets on `conn`, in the caller's transaction (the indexing unit of work,
    `indexing_unit`): each unless its product changed, is gone or is busy. The outcome by product."""
    by_product = {item.product.id: item for item in items}
    # Row locks, taken in id order so two workers never deadlock, hold off catalog writes and
    # other workers on these products until the transaction ends. A row another transaction
    # holds is skipped, not waited for (its holder may be frozen): that product is BUSY.
    product_ids = sorted({e.product_id for e in events})
    versions = {
        r["id"]: r["version"]
        for r in await conn.fetch(
            "SELECT id, version FROM product WHERE id = ANY($1::bigint[]) ORDER BY id FOR NO KEY UPDATE SKIP LOCKED",
            product_ids,
        )
    }
    busy = await _locked_elsewhere(conn, [i for i in product_ids if i not in versions])
    indexed = await _indexed_sets(conn, list(versions), model)
    outcome_of: dict[int, SaveOutcome] = {}
    writes, records = [], []
    for product_id in product_ids:
        item = by_product.get(product_id)
        if product_id in busy:
            outcome_of[product_id] = SaveOutcome.BUSY
        elif product_id not in versions or item is None:
            outcome_of[product_id] = SaveOutcome.GONE
        elif versions[product_id] != item.product.version:
            outcome_of[product_id] = SaveOutcome.STALE
        elif indexed.get(product_id) == item.set_hash:
            outcome_of[product_id] = SaveOutcome.UNCHANGED
            records.append(item)
        elif item.vectors is None:  # indexed differently meanwhile (another model?): let it be
            outcome_of[product_id] = SaveOutcome.STALE
        else:
            outcome_of[product_id] = SaveOutcome.WRITTEN
            writes.append(item)
            records.append(item)
    await _write_chunks(conn, writes, model)
    await _record_index(conn, records, model, text_config)
    return outcome_of


async def _locked_elsewhere(conn: Connection, product_ids: Sequence[int]) -> set[int]:
    """Which of these products (not locked by this transaction) exist: those were skipped for
    a lock another transaction holds; the rest are gone."""
    if not product_ids:
        return set()
    rows = await conn.fetch("SELECT id FROM product WHERE id = ANY($1::bigint[])", product_ids)
    return {r["id"] for r in rows}


async def _indexed_sets(conn: Connection, product_ids: Sequence[int], model: str) -> dict[int, bytes]:
    rows = await conn.fetch(
        "SELECT product_id, chunk_set_hash FROM product_index WHERE product_id = ANY($1::bigint[]) AND model = $2",
        product_ids,
        model,
    )
    return {r["product_id"]: bytes(r["chunk_set_hash"]) for r in rows}


async def _write_chunks(conn: Connection, items: Sequence[SaveItem], model: str) -> None:
    if not items:
        return
    # A product's chunks all come from one model: a new set replaces the old, whatever its model.
    await conn.execute("DELETE FROM product_chunk WHERE product_id = ANY($1::bigint[])", [i.product.id for i in items])
    await conn.executemany(
        """
        INSERT INTO product_chunk (product_id, model, ordinal, kind, content, content_hash, embedding)
        VALUES ($1, $2, $3, $4, $5, $6, $7)
        """,
        [
            (item.product.id, model, c.ordinal, c.kind, c.content, c.content_hash, Vector(vector))
            for item in items
            for c, vector in zip(item.chunks, item.vectors, strict=True)  # type: ignore[arg-type]
        ],
    )


async def _record_index(conn: Connection, items: Sequence[SaveItem], model: str, text_config: str) -> None:
    """The idempotency record: which chunk set of which product version is stored, with the
    product's full-text document and words (rewritten every time: cheap, and how a changed
    text search configuration reaches every product after `index rebuild`)."""
    if not items:
        return
    fields = [lexical_fields(i.product) for i in items]
    await conn.execute(
        """
        INSERT INTO product_index
            (product_id, model, product_version, chunk_set_hash, text_config, document, words, kind)
        SELECT u.id, $2, u.version, u.set_hash, $5::regconfig,
               setweight(to_tsvector($5::regconfig, u.primary_text), 'A')
               || setweight(to_tsvector($5::regconfig, u.secondary_text), 'B')
               || setweight(to_tsvector($5::regconfig, u.body_text), 'D'),
               setweight(to_tsvector('simple', u.primary_text || ' ' || u.secondary_text), 'A')
               || to_tsvector('simple', u.body_text),
               u.kind
        FROM unnest($1::bigint[], $3::bigint[], $4::bytea[], $6::text[], $7::text[], $8::text[], $9::text[])
             AS u(id, version, set_hash, primary_text, secondary_text, body_text, kind)
        ON CONFLICT (product_id) DO UPDATE
        SET model = excluded.model, product_version = excluded.product_version,
            chunk_set_hash = excluded.chunk_set_hash, indexed_at = now(),
            text_config = excluded.text_config, document = excluded.document, words = excluded.words,
            kind = excluded.kind
        """,
        [i.product.id for i in items],
        model,
        [i.product.version for i in items],
        [i.set_hash for i in items],
        text_config,
        [f.primary for f in fields],
        [f.secondary for f in fields],
        [f.body for f in fields],
        [name_kind(i.product.name) for i in items],
    )
