"""PostgresVectorIndexAdmin: the per-model HNSW index over the stored chunks (build, drop, state).

One partial index per model (`vector_index_name`), so chunks of several models can live side
by side while a model change is indexed. Builds and drops are serialised across processes by
an advisory lock; the functions below are also used bare (benchmarks) over a pool.
"""

from __future__ import annotations

import contextlib
import hashlib

import anyio

from shopagent.adapters.postgres.pool import Connection, ConnectionPool
from shopagent.application.ports import IndexBuild, VectorIndexSpec, VectorIndexState
from shopagent.domain.indexing import MODEL_ID

# Serialises building and dropping the per-model vector index across processes.
_VECTOR_INDEX_LOCK = 0x5A0B_A6E8
_BUILD_TIMEOUT_SECONDS = 24 * 3600
_DEFAULT_SPEC = VectorIndexSpec()


class PostgresVectorIndexAdmin:
    def __init__(self, pool: ConnectionPool) -> None:
        self._pool = pool

    async def state(self, model: str) -> VectorIndexState:
        async with self._pool.acquire() as conn:
            settings = await _ready_index_settings(conn, vector_index_name(model))
        return VectorIndexState(ready=settings is not None, settings=settings)

    async def build(self, model: str, dimension: int, spec: VectorIndexSpec) -> IndexBuild:
        return await ensure_vector_index(self._pool, model, dimension, spec)

    async def drop(self, model: str) -> bool:
        return await drop_vector_index(self._pool, model)


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
            await conn.execute(f'DROP INDEX CONCURRENTLY IF EXISTS "{name}"', timeout=_BUILD_TIMEOUT_SECONDS)
            return True
        finally:
            with contextlib.suppress(Exception):  # as above
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
