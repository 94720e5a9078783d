"""PostgresIndexStore: the outbox (claims, leases, retries, dead letters) and the chunk index."""

from __future__ import annotations

import contextlib
import hashlib
import re
from collections.abc import Sequence

import anyio
import asyncpg
import numpy as np
from pgvector import Vector

from shopagent.adapters.postgres.catalog import OUTBOX_CHANNEL
from shopagent.application.ports import (
    IndexBacklog,
    IndexBuild,
    IndexStatus,
    SaveItem,
    SaveOutcome,
    VectorIndexSpec,
    VectorIndexState,
)
from shopagent.domain.indexing import EventKind, OutboxEvent
from shopagent.domain.text import lexical_fields

_MODEL_ID = re.compile(r"^[A-Za-z0-9@._:/-]{1,100}$")
# Serialises building and dropping the per-model vector index across processes.
_VECTOR_INDEX_LOCK = 0x5A0B_A6E8
_BUILD_TIMEOUT_SECONDS = 24 * 3600
_DEFAULT_SPEC = VectorIndexSpec()
# An indexer process names itself "indexer/<host>/<pid>/<random>" and keeps a connection open
# under that application name (its LISTEN connection) while it runs. When that connection is
# gone, so is the process (`kill -9` closes its sockets at once): its leases are free to take
# at once. A lease of any other holder (or of a machine that vanished without closing its
# connections) lasts until it runs out.
LIVE_WORKER_PREFIX = "indexer/"
_BACKLOG = """
    SELECT
        count(*) FILTER (WHERE status = 'pending' AND (locked_until IS NULL OR locked_until < now())) AS pending,
        count(*) FILTER (WHERE status = 'pending' AND locked_until >= now()) AS in_flight,
        count(*) FILTER (WHERE status = 'dead') AS dead,
        coalesce(extract(epoch FROM now() - min(available_at) FILTER (
            WHERE status = 'pending' AND available_at <= now()
        )), 0)::float8 AS oldest_due_seconds
    FROM outbox_event WHERE status <> 'done'
"""


class PostgresIndexStore:
    def __init__(self, pool: asyncpg.Pool, text_config: str = "english") -> None:
        self._pool = pool
        self._text_config = text_config  # of the full-text documents written with each chunk set

    async def claim(self, limit: int, lease_seconds: float, max_attempts: int, worker: str) -> list[OutboxEvent]:
        """Lease up to `limit` due events to `worker`. An event whose previous lease ran out
        (its holder died or hung) is taken over, and the lost lease counted; so is one held
        by an indexer process that is gone (see `LIVE_WORKER_PREFIX`), without waiting for
        its lease to run out."""
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(
                """
                WITH live AS (
                    SELECT application_name AS worker FROM pg_stat_activity WHERE application_name LIKE $5 || '%'
                ),
                due AS (
                    SELECT id FROM outbox_event
                    WHERE status = 'pending' AND available_at <= now() AND attempts < $3 AND lost_leases < $3
                      AND (locked_until IS NULL OR locked_until < now()
                           OR (starts_with(locked_by, $5) AND locked_by NOT IN (SELECT worker FROM live)))
                    ORDER BY id
                    LIMIT $1
                    FOR UPDATE SKIP LOCKED
                )
                UPDATE outbox_event e
                SET locked_until = now() + make_interval(secs => $2), locked_by = $4,
                    lost_leases = e.lost_leases + (e.locked_until IS NOT NULL)::int
                FROM due WHERE e.id = due.id
                RETURNING e.id, e.kind, e.product_id, e.attempts
                """,
                limit,
                lease_seconds,
                max_attempts,
                worker,
                LIVE_WORKER_PREFIX,
            )
        events = [OutboxEvent(r["id"], EventKind(r["kind"]), r["product_id"], r["attempts"]) for r in rows]
        return sorted(events, key=lambda e: e.id)

    async def renew(self, event_ids: Sequence[int], lease_seconds: float, worker: str) -> list[int]:
        """Extend `worker`'s leases of these events; returns the ids it still holds."""
        if not event_ids:
            return []
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(
                """
                UPDATE outbox_event SET locked_until = now() + make_interval(secs => $2)
                WHERE id = ANY($1::bigint[]) AND locked_by = $3 AND status = 'pending'
                RETURNING id
                """,
                list(event_ids),
                lease_seconds,
                worker,
            )
        return [r["id"] for r in rows]

    async def release(self, worker: str) -> int:
        """Give up every lease `worker` holds (on a stop: nothing of them is stored yet; a claim
        cut short by the stop may have leased events its caller never saw) and wake the other
        indexers, so they take them at once."""
        async with self._pool.acquire() as conn, conn.transaction():
            rows = await conn.fetch(
                """
                UPDATE outbox_event SET locked_until = NULL, locked_by = NULL
                WHERE locked_by = $1 AND status = 'pending' AND locked_until IS NOT NULL
                RETURNING id
                """,
                worker,
            )
            if rows:
                await conn.execute("SELECT pg_notify($1, '')", OUTBOX_CHANNEL)
        return len(rows)

    async def pending_among(self, event_ids: Sequence[int]) -> list[int]:
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(
                "SELECT id FROM outbox_event WHERE id = ANY($1::bigint[]) AND status = 'pending'", event_ids
            )
        return [r["id"] for r in rows]

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

    async def save_batch(
        self, events: Sequence[OutboxEvent], items: Sequence[SaveItem], model: str
    ) -> dict[int, SaveOutcome]:
        by_product = {item.product.id: item for item in items}
        async with self._pool.acquire() as conn, conn.transaction():
            # Losing this commit in a crash is harmless: the event is not marked done either,
            # so it is redelivered and redone. Not waiting for the WAL flush is then free speed.
            await conn.execute("SET LOCAL synchronous_commit = off")
            # Row locks, taken in id order so two workers never deadlock, hold off catalog
            # writes and other workers on these products until this transaction ends.
            versions = {
                r["id"]: r["version"]
                for r in await conn.fetch(
                    "SELECT id, version FROM product WHERE id = ANY($1::bigint[]) ORDER BY id FOR NO KEY UPDATE",
                    sorted({e.product_id for e in events}),
                )
            }
            indexed = await _indexed_sets(conn, list(versions), model)
            outcome_of: dict[int, SaveOutcome] = {}
            writes, records = [], []
            for product_id in {e.product_id for e in events}:
                item = by_product.get(product_id)
                if product_id not in versions or item is None:
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
            await _record_index(conn, records, model, self._text_config)
            await _complete(conn, events)
        return {e.id: outcome_of[e.product_id] for e in events}

    async def fail(self, event: OutboxEvent, error: str, retry_in: float | None) -> None:
        async with self._pool.acquire() as conn:
            if retry_in is None:
                await conn.execute(
                    """
                    UPDATE outbox_event
                    SET status = 'dead', attempts = attempts + 1, locked_until = NULL, last_error = $2
                    WHERE id = $1 AND status = 'pending'
                    """,
                    event.id,
                    error[:2000],
                )
            else:
                await conn.execute(
                    """
                    UPDATE outbox_event
                    SET attempts = attempts + 1, locked_until = NULL, last_error = $2,
                        available_at = now() + make_interval(secs => $3)
                    WHERE id = $1 AND status = 'pending'
                    """,
                    event.id,
                    error[:2000],
                    retry_in,
                )

    async def release_expired_leases(self, max_attempts: int) -> int:
        """Free the leases that ran out (their indexer died or hung), counting each lost lease;
        an event that lost `max_attempts` leases is dead-lettered: it seems to take its
        workers down with it."""
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(
                """
                UPDATE outbox_event
                SET locked_until = NULL, locked_by = NULL, lost_leases = lost_leases + 1,
                    status = CASE WHEN lost_leases + 1 >= $1 THEN 'dead' ELSE status END,
                    last_error = CASE WHEN lost_leases + 1 >= $1
                        THEN coalesce(last_error || '; ', '') || format(
                            'its lease ran out %s times: the indexer holding it stopped or hung', lost_leases + 1)
                        ELSE last_error END
                WHERE status = 'pending' AND locked_until < now()
                RETURNING id
                """,
                max_attempts,
            )
        return len(rows)

    async def backlog(self) -> IndexBacklog:
        """The outbox events waiting (due or backing off), in flight and dead-lettered."""
        async with self._pool.acquire() as conn:
            row = await conn.fetchrow(_BACKLOG)
        return IndexBacklog(
            pending=row["pending"],
            in_flight=row["in_flight"],
            dead=row["dead"],
            oldest_due_seconds=max(0.0, row["oldest_due_seconds"]),
        )

    async def status(self, model: str) -> IndexStatus:
        async with self._pool.acquire() as conn:
            counts = await conn.fetchrow(_BACKLOG)
            indexed = await conn.fetchval("SELECT count(*) FROM product_index WHERE model = $1", model)
            index_settings = await _ready_index_settings(conn, vector_index_name(model))
            total = await conn.fetchval("SELECT count(*) FROM product")
            documents = await conn.fetch(
                "SELECT text_config::text AS config, count(*) AS n FROM product_index "
                "WHERE document IS NOT NULL GROUP BY 1 ORDER BY 1"
            )
            dead = await conn.fetch(
                """
                SELECT id, kind, product_id, attempts, lost_leases, last_error, created_at FROM outbox_event
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
                    "lostLeases": r["lost_leases"],
                    "lastError": r["last_error"],
                    "createdAt": r["created_at"].isoformat(),
                }
                for r in dead
            ],
            vector_index_ready=index_settings is not None,
            vector_index_settings=index_settings,
            text_search_config=self._text_config,
            text_documents={r["config"]: r["n"] for r in documents},
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

    async def vector_index_state(self, model: str, max_attempts: int) -> VectorIndexState:
        name = vector_index_name(model)
        async with self._pool.acquire() as conn:
            settings = await _ready_index_settings(conn, name)
            row = await conn.fetchrow(
                """
                SELECT
                    (SELECT count(DISTINCT product_id) FROM outbox_event
                     WHERE status = 'pending'
                       AND (locked_until >= now() OR (attempts < $2 AND available_at <= now()))) AS backlog,
                    (SELECT count(*) FROM product_index WHERE model = $1) AS indexed
                """,
                model,
                max_attempts,
            )
        return VectorIndexState(
            ready=settings is not None, settings=settings, backlog=row["backlog"], products_indexed=row["indexed"]
        )

    async def has_backlog(self, max_attempts: int) -> bool:
        async with self._pool.acquire() as conn:
            return await conn.fetchval(
                """
                SELECT EXISTS (
                    SELECT 1 FROM outbox_event
                    WHERE status = 'pending'
                      AND (locked_until >= now() OR (attempts < $1 AND available_at <= now()))
                )
                """,
                max_attempts,
            )

    async def build_vector_index(self, model: str, dimension: int, spec: VectorIndexSpec) -> IndexBuild:
        return await ensure_vector_index(self._pool, model, dimension, spec)

    async def drop_vector_index(self, model: str) -> bool:
        return await drop_vector_index(self._pool, model)

    async def finished_since(self, first_event: int) -> int:
        """How many events from `first_event` on are finished (done or dead-lettered)."""
        async with self._pool.acquire() as conn:
            return await conn.fetchval(
                "SELECT count(*) FROM outbox_event WHERE id >= $1 AND status <> 'pending'", first_event
            )


async def _indexed_sets(conn: asyncpg.Connection, product_ids: Sequence[int], model: str) -> dict[int, bytes]:
    rows = await conn.fetch(
        "SELECT product_id, chunk_set_hash FROM product_index WHERE product_id = ANY($1::bigint[]) AND model = $2",
        product_ids,
        model,
    )
    return {r["product_id"]: bytes(r["chunk_set_hash"]) for r in rows}


async def _write_chunks(conn: asyncpg.Connection, items: Sequence[SaveItem], model: str) -> None:
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


async def _record_index(conn: asyncpg.Connection, items: Sequence[SaveItem], model: str, text_config: str) -> None:
    """The idempotency record: which chunk set of which product version is stored, with the
    product's full-text document and words (rewritten every time: cheap, and how a changed
    text search configuration reaches every product after `index rebuild`)."""
    if not items:
        return
    fields = [lexical_fields(i.product) for i in items]
    await conn.execute(
        """
        INSERT INTO product_index (product_id, model, product_version, chunk_set_hash, text_config, document, words)
        SELECT u.id, $2, u.version, u.set_hash, $5::regconfig,
               setweight(to_tsvector($5::regconfig, u.primary_text), 'A')
               || setweight(to_tsvector($5::regconfig, u.secondary_text), 'B')
               || setweight(to_tsvector($5::regconfig, u.body_text), 'D'),
               setweight(to_tsvector('simple', u.primary_text || ' ' || u.secondary_text), 'A')
               || to_tsvector('simple', u.body_text)
        FROM unnest($1::bigint[], $3::bigint[], $4::bytea[], $6::text[], $7::text[], $8::text[])
             AS u(id, version, set_hash, primary_text, secondary_text, body_text)
        ON CONFLICT (product_id) DO UPDATE
        SET model = excluded.model, product_version = excluded.product_version,
            chunk_set_hash = excluded.chunk_set_hash, indexed_at = now(),
            text_config = excluded.text_config, document = excluded.document, words = excluded.words
        """,
        [i.product.id for i in items],
        model,
        [i.product.version for i in items],
        [i.set_hash for i in items],
        text_config,
        [f.primary for f in fields],
        [f.secondary for f in fields],
        [f.body for f in fields],
    )


async def _complete(conn: asyncpg.Connection, events: Sequence[OutboxEvent]) -> list[int]:
    """Mark the events done, and older unclaimed events of the same products with them.

    Those older events are covered: the product was read after they committed (catalog
    writes lock the product row before inserting their event, so a product's event ids
    follow commit order). Returns the ids this call completed.
    """
    done = await conn.fetch(
        """
        UPDATE outbox_event SET status = 'done', done_at = now(), locked_until = NULL
        WHERE id = ANY($1::bigint[]) AND status = 'pending'
        RETURNING id
        """,
        [e.id for e in events],
    )
    newest: dict[int, int] = {}
    for e in events:
        newest[e.product_id] = max(e.id, newest.get(e.product_id, 0))
    await conn.execute(
        """
        UPDATE outbox_event e SET status = 'done', done_at = now(), last_error = 'covered by event ' || t.event_id
        FROM unnest($1::bigint[], $2::bigint[]) AS t(product_id, event_id)
        WHERE e.product_id = t.product_id AND e.id < t.event_id AND e.status = 'pending'
          AND (e.locked_until IS NULL OR e.locked_until < now())
        """,
        list(newest),
        list(newest.values()),
    )
    return [r["id"] for r in done]


def vector_index_name(model: str) -> str:
    if not _MODEL_ID.match(model):
        raise ValueError(f"unsupported model id {model!r}")
    return "product_chunk_hnsw_" + hashlib.sha256(model.encode()).hexdigest()[:12]


async def ensure_vector_index(
    pool: asyncpg.Pool, model: str, dimension: int, spec: VectorIndexSpec = _DEFAULT_SPEC
) -> IndexBuild:
    """Build the HNSW cosine index over one model's chunks unless it exists or another
    process is building it.

    A partial expression index: `embedding::vector(dimension)` gives the untyped column the
    model's dimension, and `WHERE model = '...'` keeps other models' chunks out of it.
    Built CONCURRENTLY, so searches and chunk writes go on; a build that failed or was
    cancelled leaves an invalid index behind, which the next build replaces.
    """
    name = vector_index_name(model)
    async with pool.acquire() as conn:
        if await _index_validity(conn, name):
            return IndexBuild.EXISTED
        # Session-level (CONCURRENTLY cannot run in a transaction); the pool's reset on
        # release unlocks it even if we are cancelled before the `finally` runs.
        if not await conn.fetchval("SELECT pg_try_advisory_lock($1)", _VECTOR_INDEX_LOCK):
            return IndexBuild.BUSY
        try:
            validity = await _index_validity(conn, name)
            if validity:
                return IndexBuild.EXISTED  # another process built it just now
            if validity is False:
                await conn.execute(f'DROP INDEX CONCURRENTLY IF EXISTS "{name}"', timeout=_BUILD_TIMEOUT_SECONDS)
            statement = await conn.fetchval(
                "SELECT format('CREATE INDEX CONCURRENTLY %I ON product_chunk USING hnsw "
                "((embedding::vector(%s)) vector_cosine_ops) WITH (m = %s, ef_construction = %s) WHERE model = %L', "
                "$1::text, $2::int, $3::int, $4::int, $5::text)",
                name,
                dimension,
                spec.m,
                spec.ef_construction,
                model,
            )
            await conn.execute(f"SET maintenance_work_mem = '{int(spec.build_memory_mb)}MB'; SET statement_timeout = 0")
            try:
                # Not the pool's command timeout either: a large catalog takes minutes to build.
                await conn.execute(statement, timeout=_BUILD_TIMEOUT_SECONDS)
            except Exception:
                # A failed concurrent build leaves an invalid index that writes would still
                # have to maintain: remove it now (or the next build does).
                with contextlib.suppress(Exception):
                    await conn.execute(f'DROP INDEX CONCURRENTLY IF EXISTS "{name}"', timeout=_BUILD_TIMEOUT_SECONDS)
                raise
        finally:
            # Best effort: releasing the connection to the pool resets it (RESET ALL and
            # pg_advisory_unlock_all) anyway, and a broken one is discarded.
            with contextlib.suppress(Exception):
                await conn.execute("RESET maintenance_work_mem; RESET statement_timeout")
                await conn.execute("SELECT pg_advisory_unlock($1)", _VECTOR_INDEX_LOCK)
    return IndexBuild.BUILT


async def drop_vector_index(pool: asyncpg.Pool, model: str) -> bool:
    """Drop one model's vector index, waiting for a build in progress to finish first."""
    name = vector_index_name(model)
    async with pool.acquire() as conn:
        # Polled, not waited for in one statement: a waiting statement holds a snapshot,
        # which the concurrent build in progress would in turn wait for.
        while not await conn.fetchval("SELECT pg_try_advisory_lock($1)", _VECTOR_INDEX_LOCK):  # noqa: ASYNC110 - another process's lock
            await anyio.sleep(0.5)
        try:
            if await _index_validity(conn, name) is None:
                return False
            await conn.execute(f'DROP INDEX CONCURRENTLY IF EXISTS "{name}"', timeout=_BUILD_TIMEOUT_SECONDS)
            return True
        finally:
            with contextlib.suppress(Exception):  # as above
                await conn.execute("SELECT pg_advisory_unlock($1)", _VECTOR_INDEX_LOCK)


async def _index_validity(conn: asyncpg.Connection, name: str) -> bool | None:
    """True: the index is usable; False: it exists but is not valid (a build in progress,
    failed or cancelled); None: there is no such index."""
    return await conn.fetchval("SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass($1)", name)


async def _ready_index_settings(conn: asyncpg.Connection, name: str) -> str | None:
    """The HNSW settings of the index when it exists and is valid ("m=16, ef_construction=64"),
    else None."""
    row = await conn.fetchrow(
        """
        SELECT c.reloptions FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
        WHERE i.indexrelid = to_regclass($1) AND i.indisvalid
        """,
        name,
    )
    if row is None:
        return None
    values = dict(option.split("=", 1) for option in row["reloptions"] or [])
    return f"m={values.get('m', '16')}, ef_construction={values.get('ef_construction', '64')}"
