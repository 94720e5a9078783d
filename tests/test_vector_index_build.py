"""The vector index build: memory sized from the chunk count, PostgreSQL's notices in our log,
its progress in the index status, and no lock timeout cutting it short."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator

import anyio
import asyncpg
import numpy as np
import pytest
from asyncpg.transaction import Transaction
from pgvector import Vector
from pgvector.asyncpg import register_vector

from shopagent.adapters.postgres.database import open_pool, session_limits
from shopagent.adapters.postgres.vector_index import PostgresVectorIndexAdmin, build_memory_mb, ensure_vector_index
from shopagent.application.ports import IndexBuild, VectorIndexSpec
from tests.helpers import eventually

MODEL, DIM = "build-test-32", 32


@pytest.mark.unit
def test_the_build_memory_follows_the_chunks_and_their_dimension():
    # The observed cliff: 512 MiB filled at ~390,000 chunks of 384 dimensions (m = 16).
    assert 512 <= build_memory_mb(390_000, 384, 16) <= 640
    assert build_memory_mb(3_500_000, 384, 16) > 10 * build_memory_mb(300_000, 384, 16)
    assert build_memory_mb(390_000, 768, 16) > build_memory_mb(390_000, 384, 16)
    assert build_memory_mb(100, 384, 16) == 64  # never under PostgreSQL's own default


async def _chunks(dsn: str, count: int) -> None:
    rng = np.random.default_rng(3)
    conn = await asyncpg.connect(dsn)
    try:
        await register_vector(conn)
        await conn.copy_records_to_table(
            "product",
            columns=["slug", "name", "category", "price", "currency", "price_low", "price_high"],
            records=[(f"p-{n}", f"P {n}", "Things", 10, "EUR", 10, 10) for n in range(count)],
        )
        ids = [r["id"] for r in await conn.fetch("SELECT id FROM product ORDER BY id")]
        await conn.copy_records_to_table(
            "product_chunk",
            columns=["product_id", "model", "ordinal", "kind", "content", "content_hash", "embedding"],
            records=[
                (i, MODEL, 0, "title", "x", b"0", Vector(v))
                for i, v in zip(ids, rng.normal(size=(count, DIM)), strict=True)
            ],
        )
    finally:
        await conn.close()


@contextlib.asynccontextmanager
async def chunk_write_open(dsn: str) -> AsyncIterator[Transaction]:
    """A chunk written in a transaction left open (a concurrent build waits for it) until the
    caller commits it; the connection is closed on leaving."""
    writer = await asyncpg.connect(dsn)
    try:
        transaction = writer.transaction()
        await transaction.start()
        await writer.execute(
            "UPDATE product_chunk SET content = 'y' WHERE ctid = (SELECT min(ctid) FROM product_chunk)"
        )
        yield transaction
    finally:
        await writer.close()


@pytest.mark.db
@pytest.mark.anyio
async def test_a_build_given_too_little_memory_warns_with_the_setting_and_logs_pgvectors_notice(database, caplog):
    await _chunks(database, 3_000)  # ~2.4 MB of graph
    caplog.set_level(logging.INFO, logger="shopagent.indexing")
    async with open_pool(database, min_size=1, max_size=2, connect_timeout=10, command_timeout=60) as pool:
        # 1 MiB (below what settings allow, so the graph surely outgrows it)
        assert await ensure_vector_index(pool, MODEL, DIM, VectorIndexSpec(build_memory_mb=1)) is IndexBuild.BUILT
    messages = [r.getMessage() for r in caplog.records if r.name == "shopagent.indexing"]
    warning = next(m for m in messages if "needs ~" in m)
    assert "over 3000 chunks" in warning and "SHOPAGENT_INDEXER__INDEX_BUILD_MEMORY_MB=64" in warning
    assert any("PostgreSQL, building the vector index: hnsw graph no longer fits" in m for m in messages), messages


@pytest.mark.db
@pytest.mark.anyio
async def test_index_status_shows_a_build_in_progress(database):
    await _chunks(database, 200)
    async with open_pool(database, min_size=1, max_size=3, connect_timeout=10, command_timeout=60) as pool:
        admin = PostgresVectorIndexAdmin(pool)
        # A chunk write still open: a concurrent build waits for it, in a phase it reports.
        async with chunk_write_open(database) as transaction, anyio.create_task_group() as tg:
            tg.start_soon(admin.build, MODEL, DIM, VectorIndexSpec())

            async def building() -> str | None:
                return (await admin.state(MODEL)).building

            phase = await eventually(building, timeout=30)
            assert "waiting" in phase, phase
            assert not (await admin.state(MODEL)).ready
            await transaction.commit()
        state = await admin.state(MODEL)
        assert state.ready and state.building is None


@pytest.mark.db
@pytest.mark.anyio
async def test_a_build_outwaits_a_transaction_longer_than_the_lock_timeout(database):
    """A concurrent build waits for the transactions open when it starts (at a million products
    a vocabulary refresh runs for seconds); the connections' lock timeout (`database.
    lock_timeout_seconds`, there for row locks) must not cancel a build of many minutes there."""
    await _chunks(database, 200)
    limits = session_limits(lock_timeout=0.2, idle_in_transaction_timeout=0)
    async with open_pool(
        database, min_size=1, max_size=3, connect_timeout=10, command_timeout=60, server_settings=limits
    ) as pool:
        admin = PostgresVectorIndexAdmin(pool)
        outcome: list[object] = []
        finished = anyio.Event()

        async def build() -> None:
            try:
                outcome.append(await admin.build(MODEL, DIM, VectorIndexSpec()))
            except Exception as exc:
                outcome.append(exc)
            finally:
                finished.set()

        async def waiting_or_finished() -> bool:
            return finished.is_set() or "waiting" in ((await admin.state(MODEL)).building or "")

        async with chunk_write_open(database) as transaction, anyio.create_task_group() as tg:
            tg.start_soon(build)
            await eventually(waiting_or_finished, timeout=30)
            # Five times the lock timeout: a build that gives up at its lock timeout has by then.
            with anyio.move_on_after(1.0):
                await finished.wait()
            await transaction.commit()
        assert outcome == [IndexBuild.BUILT], outcome
        assert (await admin.state(MODEL)).ready
