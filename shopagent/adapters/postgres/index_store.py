"""PostgresIndexStore: the outbox (claims, leases, retries, dead letters) and the chunk index."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import asyncpg
import numpy as np
from pgvector import Vector

from shopagent.adapters.postgres.catalog import OUTBOX_CHANNEL
from shopagent.application.ports import IndexStatus, SaveOutcome
from shopagent.domain.catalog import Product
from shopagent.domain.indexing import Chunk, EventKind, OutboxEvent, chunk_set_hash

_MODEL_ID = re.compile(r"^[A-Za-z0-9@._:/-]{1,100}$")
# Serialises creating the per-model vector index across processes.
_VECTOR_INDEX_LOCK = 0x5A0B_A6E8


class _AlreadyDone(Exception):
    pass


class PostgresIndexStore:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def claim(self, limit: int, lease_seconds: float, max_attempts: int, worker: str) -> list[OutboxEvent]:
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(
                """
                WITH due AS (
                    SELECT id FROM outbox_event
                    WHERE status = 'pending' AND available_at <= now() AND attempts < $3
                      AND (locked_until IS NULL OR locked_until < now())
                    ORDER BY id
                    LIMIT $1
                    FOR UPDATE SKIP LOCKED
                )
                UPDATE outbox_event e
                SET locked_until = now() + make_interval(secs => $2), locked_by = $4, attempts = e.attempts + 1
                FROM due WHERE e.id = due.id
                RETURNING e.id, e.kind, e.product_id, e.attempts
                """,
                limit,
                lease_seconds,
                max_attempts,
                worker,
            )
        events = [OutboxEvent(r["id"], EventKind(r["kind"]), r["product_id"], r["attempts"]) for r in rows]
        return sorted(events, key=lambda e: e.id)

    async def event_status(self, event_id: int) -> str | None:
        async with self._pool.acquire() as conn:
            return await conn.fetchval("SELECT status FROM outbox_event WHERE id = $1", event_id)

    async def stored_embeddings(self, product_id: int, model: str) -> dict[bytes, np.ndarray]:
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(
                "SELECT content_hash, embedding FROM product_chunk WHERE product_id = $1 AND model = $2",
                product_id,
                model,
            )
        return {bytes(r["content_hash"]): r["embedding"].to_numpy() for r in rows}

    async def save_chunks(
        self, event: OutboxEvent, product: Product, model: str, chunks: Sequence[Chunk], embeddings: np.ndarray
    ) -> SaveOutcome:
        set_hash = chunk_set_hash(model, chunks)
        try:
            async with self._pool.acquire() as conn, conn.transaction():
                # Locks the product row against concurrent catalog writes and other workers.
                version = await conn.fetchval("SELECT version FROM product WHERE id = $1 FOR NO KEY UPDATE", product.id)
                if version is None:
                    outcome = SaveOutcome.GONE
                elif version != product.version:
                    outcome = SaveOutcome.STALE
                else:
                    outcome = await self._replace(conn, product, model, chunks, embeddings, set_hash)
                await _complete(conn, event)
                return outcome
        except _AlreadyDone:
            return SaveOutcome.DUPLICATE

    async def _replace(
        self,
        conn: asyncpg.Connection,
        product: Product,
        model: str,
        chunks: Sequence[Chunk],
        embeddings: np.ndarray,
        set_hash: bytes,
    ) -> SaveOutcome:
        stored = await conn.fetchrow(
            "SELECT model, chunk_set_hash FROM product_index WHERE product_id = $1", product.id
        )
        unchanged = stored is not None and stored["model"] == model and bytes(stored["chunk_set_hash"]) == set_hash
        if not unchanged:
            # One model's chunks per product: a new model's set replaces the old one.
            await conn.execute("DELETE FROM product_chunk WHERE product_id = $1", product.id)
            await conn.executemany(
                """
                INSERT INTO product_chunk (product_id, model, ordinal, kind, content, content_hash, embedding)
                VALUES ($1, $2, $3, $4, $5, $6, $7)
                """,
                [
                    (product.id, model, c.ordinal, c.kind, c.content, c.content_hash, Vector(vector))
                    for c, vector in zip(chunks, embeddings, strict=True)
                ],
            )
        await conn.execute(
            """
            INSERT INTO product_index (product_id, model, product_version, chunk_set_hash)
            VALUES ($1, $2, $3, $4)
            ON CONFLICT (product_id) DO UPDATE
            SET model = excluded.model, product_version = excluded.product_version,
                chunk_set_hash = excluded.chunk_set_hash, indexed_at = now()
            """,
            product.id,
            model,
            product.version,
            set_hash,
        )
        return SaveOutcome.UNCHANGED if unchanged else SaveOutcome.WRITTEN

    async def finish(self, event: OutboxEvent) -> bool:
        try:
            async with self._pool.acquire() as conn, conn.transaction():
                await _complete(conn, event)
        except _AlreadyDone:
            return False
        return True

    async def fail(self, event: OutboxEvent, error: str, retry_in: float | None) -> None:
        async with self._pool.acquire() as conn:
            if retry_in is None:
                await conn.execute(
                    """
                    UPDATE outbox_event SET status = 'dead', locked_until = NULL, last_error = $2
                    WHERE id = $1 AND status = 'pending'
                    """,
                    event.id,
                    error[:2000],
                )
            else:
                await conn.execute(
                    """
                    UPDATE outbox_event
                    SET locked_until = NULL, last_error = $2, available_at = now() + make_interval(secs => $3)
                    WHERE id = $1 AND status = 'pending'
                    """,
                    event.id,
                    error[:2000],
                    retry_in,
                )

    async def release_expired_leases(self, max_attempts: int) -> int:
        """Dead-letter events whose every attempt ran out its lease; free the other expired leases."""
        async with self._pool.acquire() as conn, conn.transaction():
            dead = await conn.fetch(
                """
                UPDATE outbox_event
                SET status = 'dead', locked_until = NULL,
                    last_error = coalesce(last_error || '; ', '') || 'the last attempt did not finish within its lease'
                WHERE status = 'pending' AND attempts >= $1 AND locked_until < now()
                RETURNING id
                """,
                max_attempts,
            )
            freed = await conn.fetch(
                """
                UPDATE outbox_event SET locked_until = NULL, locked_by = NULL
                WHERE status = 'pending' AND locked_until < now()
                RETURNING id
                """
            )
        return len(dead) + len(freed)

    async def status(self, model: str) -> IndexStatus:
        async with self._pool.acquire() as conn:
            counts = await conn.fetchrow(
                """
                SELECT
                    count(*) FILTER (WHERE status = 'pending' AND (locked_until IS NULL OR locked_until < now()))
                        AS pending,
                    count(*) FILTER (WHERE status = 'pending' AND locked_until >= now()) AS in_flight,
                    count(*) FILTER (WHERE status = 'dead') AS dead
                FROM outbox_event WHERE status <> 'done'
                """
            )
            indexed = await conn.fetchval("SELECT count(*) FROM product_index WHERE model = $1", model)
            total = await conn.fetchval("SELECT count(*) FROM product")
            dead = await conn.fetch(
                """
                SELECT id, kind, product_id, attempts, last_error, created_at FROM outbox_event
                WHERE status = 'dead' ORDER BY id DESC LIMIT 20
                """
            )
        return IndexStatus(
            model=model,
            pending=counts["pending"],
            in_flight=counts["in_flight"],
            dead=counts["dead"],
            products_indexed=indexed,
            products_total=total,
            dead_events=[
                {
                    "id": r["id"],
                    "kind": r["kind"],
                    "productId": r["product_id"],
                    "attempts": r["attempts"],
                    "lastError": r["last_error"],
                    "createdAt": r["created_at"].isoformat(),
                }
                for r in dead
            ],
        )

    async def retry_dead(self) -> int:
        async with self._pool.acquire() as conn, conn.transaction():
            revived = await conn.fetch(
                """
                UPDATE outbox_event
                SET status = 'pending', attempts = 0, available_at = now(), locked_until = NULL, locked_by = NULL
                WHERE status = 'dead'
                RETURNING id
                """
            )
            if revived:
                await conn.execute("SELECT pg_notify($1, '')", OUTBOX_CHANNEL)
        return len(revived)

    async def enqueue_all(self) -> tuple[int, int]:
        """An upsert event for every product: (how many, id of the first)."""
        async with self._pool.acquire() as conn, conn.transaction():
            row = await conn.fetchrow(
                """
                WITH added AS (
                    INSERT INTO outbox_event (kind, product_id)
                    SELECT 'product.upserted', id FROM product ORDER BY id
                    RETURNING id
                )
                SELECT count(*) AS n, coalesce(min(id), 0) AS first FROM added
                """
            )
            await conn.execute("SELECT pg_notify($1, '')", OUTBOX_CHANNEL)
        return row["n"], row["first"]

    async def finished_since(self, first_event: int) -> int:
        """How many events from `first_event` on are finished (done or dead-lettered)."""
        async with self._pool.acquire() as conn:
            return await conn.fetchval(
                "SELECT count(*) FROM outbox_event WHERE id >= $1 AND status <> 'pending'", first_event
            )


async def _complete(conn: asyncpg.Connection, event: OutboxEvent) -> None:
    """Mark the event done, and older unclaimed events of the same product with it.

    Those older events are covered: this worker read the product after they committed
    (catalog writes lock the product row before inserting their event). Raises _AlreadyDone
    (rolling back the caller's transaction) if someone completed this event first.
    """
    done = await conn.fetchval(
        """
        UPDATE outbox_event SET status = 'done', done_at = now(), locked_until = NULL
        WHERE id = $1 AND status = 'pending'
        RETURNING id
        """,
        event.id,
    )
    if done is None:
        raise _AlreadyDone
    await conn.execute(
        """
        UPDATE outbox_event SET status = 'done', done_at = now(), last_error = 'superseded by event ' || $2
        WHERE product_id = $1 AND status = 'pending' AND id < $2
          AND (locked_until IS NULL OR locked_until < now())
        """,
        event.product_id,
        event.id,
    )


async def ensure_vector_index(pool: asyncpg.Pool, model: str, dimension: int) -> str:
    """Create (once) the HNSW cosine index for one model's chunks; return its name."""
    if not _MODEL_ID.match(model):
        raise ValueError(f"unsupported model id {model!r}")
    name = "product_chunk_hnsw_" + hashlib.sha256(model.encode()).hexdigest()[:12]
    async with pool.acquire() as conn:
        exists = await conn.fetchval("SELECT to_regclass($1) IS NOT NULL", name)
        if exists:
            return name
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", _VECTOR_INDEX_LOCK)
            statement = await conn.fetchval(
                "SELECT format('CREATE INDEX IF NOT EXISTS %I ON product_chunk USING hnsw "
                "((embedding::vector(%s)) vector_cosine_ops) WHERE model = %L', $1::text, $2::int, $3::text)",
                name,
                dimension,
                model,
            )
            await conn.execute(statement)
    return name
