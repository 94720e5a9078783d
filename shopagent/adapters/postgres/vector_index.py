"""PostgresVectorIndexAdmin: the per-model HNSW index over the stored chunks (build, drop, state).

One partial index per model (`vector_index_name`), so chunks of several models can live side
by side while a model change is indexed. Builds and drops are serialised across processes by
an advisory lock; the functions below are also used bare (benchmarks) over a pool.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import math

import anyio
import asyncpg

from shopagent.adapters.postgres.pool import Connection, ConnectionPool
from shopagent.application.ports import IndexBuild, VectorIndexSpec, VectorIndexState
from shopagent.domain.indexing import MODEL_ID

# Serialises building and dropping the per-model vector index across processes.
_VECTOR_INDEX_LOCK = 0x5A0B_A6E8
_BUILD_TIMEOUT_SECONDS = 24 * 3600
_DEFAULT_SPEC = VectorIndexSpec()
_SMALLEST_BUILD_MB = 64  # PostgreSQL's own default maintenance_work_mem

log = logging.getLogger("shopagent.indexing")


class PostgresVectorIndexAdmin:
    def __init__(self, pool: ConnectionPool) -> None:
        self._pool = pool

    async def state(self, model: str) -> VectorIndexState:
        async with self._pool.acquire() as conn:
            settings = await _ready_index_settings(conn, vector_index_name(model))
            building = None if settings is not None else await build_progress(conn, vector_index_name(model))
        return VectorIndexState(ready=settings is not None, settings=settings, building=building)

    async def build(self, model: str, dimension: int, spec: VectorIndexSpec) -> IndexBuild:
        return await ensure_vector_index(self._pool, model, dimension, spec)

    async def drop(self, model: str) -> bool:
        return await drop_vector_index(self._pool, model)


def build_memory_mb(chunks: int, dimension: int, m: int) -> int:
    """The memory (MiB) pgvector needs to build an HNSW index over `chunks` half-precision
    vectors of `dimension` in memory: per chunk the vector (2 bytes a dimension), its layer-0
    neighbours (2m, 16 bytes each) and ~170 bytes of bookkeeping, plus a tenth to spare. Past
    it the build goes on on disk, several times slower (at 384 dimensions and m = 16, 512 MiB
    filled at ~390,000 chunks: 1,376 bytes each)."""
    per_chunk = 2 * dimension + 8 + 32 * m + 170
    return max(_SMALLEST_BUILD_MB, math.ceil(chunks * per_chunk * 1.1 / 2**20))


def vector_index_name(model: str) -> str:
    if not MODEL_ID.match(model):
        raise ValueError(f"unsupported model id {model!r}")
    return "product_chunk_hnsw_" + hashlib.sha256(model.encode()).hexdigest()[:12]


async def ensure_vector_index(
    pool: ConnectionPool, model: str, dimension: int, spec: VectorIndexSpec = _DEFAULT_SPEC
) -> IndexBuild:
    """Build the HNSW cosine index over one model's chunks unless it exists or another
    process is building it.

    A partial expression index: `embedding::halfvec(dimension)` gives the untyped column the
    model's dimension in half precision (half the size; searches re-rank its candidates by
    the stored full-precision vectors), and `WHERE model = '...'` keeps other models' chunks
    out of it.
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
            # A concurrent build or drop waits for every transaction open when it starts (a
            # vocabulary refresh runs for seconds at a million products): the connections' lock
            # timeout, meant for row locks, must not throw minutes of building away there.
            await conn.execute("SET lock_timeout = 0")
            validity = await _index_validity(conn, name)
            if validity:
                return IndexBuild.EXISTED  # another process built it just now
            if validity is False:
                await conn.execute(f'DROP INDEX CONCURRENTLY IF EXISTS "{name}"', timeout=_BUILD_TIMEOUT_SECONDS)
            statement = await conn.fetchval(
                "SELECT format('CREATE INDEX CONCURRENTLY %I ON product_chunk USING hnsw "
                "((embedding::halfvec(%s)) halfvec_cosine_ops) WITH (m = %s, ef_construction = %s) WHERE model = %L', "
                "$1::text, $2::int, $3::int, $4::int, $5::text)",
                name,
                dimension,
                spec.m,
                spec.ef_construction,
                model,
            )
            memory = await _build_memory(conn, model, dimension, spec)
            await conn.execute(f"SET maintenance_work_mem = '{memory}MB'; SET statement_timeout = 0")
            conn.add_log_listener(_log_notice)  # pgvector says when the graph outgrows the memory
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
            conn.remove_log_listener(_log_notice)
            with contextlib.suppress(Exception):
                await conn.execute("RESET maintenance_work_mem; RESET statement_timeout; RESET lock_timeout")
                await conn.execute("SELECT pg_advisory_unlock($1)", _VECTOR_INDEX_LOCK)
    return IndexBuild.BUILT


async def _build_memory(conn: Connection, model: str, dimension: int, spec: VectorIndexSpec) -> int:
    """The build memory (MiB) the model's chunks need, at most the configured one (the operator's
    budget); a warning naming the setting when that is too little."""
    chunks = await conn.fetchval("SELECT count(*) FROM product_chunk WHERE model = $1", model)
    needed = build_memory_mb(chunks, dimension, spec.m)
    if needed > spec.build_memory_mb:
        log.warning(
            "the vector index of %s over %d chunks needs ~%d MiB to be built in memory, more than "
            "indexer.index_build_memory_mb (%d): the build will be several times slower once its graph "
            "outgrows that; raise it (SHOPAGENT_INDEXER__INDEX_BUILD_MEMORY_MB=%d) if the database has the memory",
            model,
            chunks,
            needed,
            spec.build_memory_mb,
            needed,
        )
    else:
        log.info("building the vector index of %s over %d chunks with %d MiB", model, chunks, needed)
    return min(needed, spec.build_memory_mb)


def _log_notice(_conn: object, message: asyncpg.PostgresLogMessage) -> None:
    """A notice or warning of the build (pgvector's "hnsw graph no longer fits into
    maintenance_work_mem"), into our log instead of the connection's."""
    text = " ".join(str(part) for part in (message.message, message.detail, message.hint) if part)
    level = logging.WARNING if message.severity in ("WARNING", "ERROR") else logging.INFO
    log.log(level, "PostgreSQL, building the vector index: %s", text)


async def build_progress(conn: Connection, name: str) -> str | None:
    """How far a build of the index `name` in progress is (`pg_stat_progress_create_index`), or None."""
    row = await conn.fetchrow(
        """
        SELECT phase, tuples_done, tuples_total, blocks_done, blocks_total FROM pg_stat_progress_create_index
        WHERE index_relid = to_regclass($1)
        """,
        name,
    )
    if row is None:
        return None
    parts = [row["phase"]]
    if row["tuples_done"]:
        total = f" of {row['tuples_total']}" if row["tuples_total"] else ""
        parts.append(f"{row['tuples_done']}{total} chunks")
    if row["blocks_total"]:
        parts.append(f"{row['blocks_done']} of {row['blocks_total']} table blocks read")
    return ", ".join(parts)


async def drop_vector_index(pool: ConnectionPool, model: str) -> bool:
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
            await conn.execute("SET lock_timeout = 0")  # as in a build
            await conn.execute(f'DROP INDEX CONCURRENTLY IF EXISTS "{name}"', timeout=_BUILD_TIMEOUT_SECONDS)
            return True
        finally:
            with contextlib.suppress(Exception):  # as above
                await conn.execute("RESET lock_timeout")
                await conn.execute("SELECT pg_advisory_unlock($1)", _VECTOR_INDEX_LOCK)


async def _index_validity(conn: Connection, name: str) -> bool | None:
    """True: the index is usable; False: it exists but is not valid (a build in progress,
    failed or cancelled); None: there is no such index."""
    return await conn.fetchval("SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass($1)", name)


async def _ready_index_settings(conn: Connection, name: str) -> str | None:
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
