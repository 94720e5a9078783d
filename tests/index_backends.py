"""Implementations of the indexing ports (`Outbox`, `ChunkStore`, `IndexingUnitOfWork`,
`VectorIndexAdmin`) for the contract suites, PostgreSQL's and the in-memory twins: each gives all
four over one fresh store, with the catalog whose writes record the outbox events. Another
implementation joins the suites by adding a factory to `BACKENDS` (and its name to the
`index_backend` fixture's params): it takes the pytest request (for the fixtures it needs,
synchronously) and returns the async context that opens it."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any

import asyncpg
import pytest

from shopagent.application.catalog import CatalogService
from shopagent.application.ports import SearchIndex, StorePageRepository
from shopagent.application.ports.indexing import (
    ChunkStore,
    IndexingUnitOfWork,
    Outbox,
    PassageStore,
    VectorIndexAdmin,
)
from tests.clocks import FakeClock


@dataclass
class IndexBackend:
    outbox: Outbox
    chunks: ChunkStore
    unit: IndexingUnitOfWork  # stores chunk sets and completes their events, in one transaction
    vector_index: VectorIndexAdmin
    catalog: CatalogService  # its writes queue the outbox events
    search: SearchIndex  # over the catalog and the stored chunk sets
    pages: StorePageRepository  # its writes queue outbox events too
    passages: PassageStore  # the store pages' passage sets (written by the unit of work)
    # While entered, another process is building the vector index (and holds off others).
    building_elsewhere: Callable[[], AbstractAsyncContextManager[None]]
    # The store's time moves on this many seconds (leases run out, retries fall due).
    advance: Callable[[float], Awaitable[None]]


_AGE_EVENTS = """
    UPDATE outbox_event SET locked_until = locked_until - make_interval(secs => $1),
        available_at = available_at - make_interval(secs => $1), created_at = created_at - make_interval(secs => $1)
"""


def postgres_backend(request: pytest.FixtureRequest) -> AbstractAsyncContextManager[IndexBackend]:
    """The PostgreSQL adapters over a fresh migrated database."""
    return _postgres_backend(request.getfixturevalue("database"))


@contextlib.asynccontextmanager
async def _postgres_backend(dsn: str) -> AsyncIterator[IndexBackend]:
    from shopagent.adapters.postgres.catalog import PostgresCatalog
    from shopagent.adapters.postgres.chunk_store import PostgresChunkStore
    from shopagent.adapters.postgres.database import GuardedPool, open_pool
    from shopagent.adapters.postgres.indexing_unit import PostgresIndexingUnitOfWork
    from shopagent.adapters.postgres.outbox import PostgresOutbox
    from shopagent.adapters.postgres.search import PostgresSearchIndex
    from shopagent.adapters.postgres.store_pages import PostgresStorePages
    from shopagent.adapters.postgres.store_passages import PostgresPassageStore
    from shopagent.adapters.postgres.vector_index import _VECTOR_INDEX_LOCK, PostgresVectorIndexAdmin
    from shopagent.settings import Settings
    from shopagent.wiring.policies import catalog_rules

    @contextlib.asynccontextmanager
    async def building_elsewhere() -> AsyncIterator[None]:
        other = await asyncpg.connect(dsn)
        try:
            await other.execute("SELECT pg_advisory_lock($1)", _VECTOR_INDEX_LOCK)
            yield
        finally:
            await other.close()

    async with open_pool(dsn, min_size=1, max_size=4, connect_timeout=10, command_timeout=60) as raw:
        pool = GuardedPool(raw, dsn)
        chunks = PostgresChunkStore(pool)
        passages = PostgresPassageStore(pool)

        async def advance(seconds: float) -> None:
            # The database's clock cannot be moved; the events' times are moved back instead.
            async with pool.acquire() as conn:
                await conn.execute(_AGE_EVENTS, seconds)

        yield IndexBackend(
            outbox=PostgresOutbox(pool),
            chunks=chunks,
            unit=PostgresIndexingUnitOfWork(pool, chunks, passages),
            vector_index=PostgresVectorIndexAdmin(pool),
            catalog=CatalogService(PostgresCatalog(pool), catalog_rules(Settings())),
            search=PostgresSearchIndex(pool),
            pages=PostgresStorePages(pool),
            passages=passages,
            building_elsewhere=building_elsewhere,
            advance=advance,
        )


def memory_backend(request: pytest.FixtureRequest) -> AbstractAsyncContextManager[IndexBackend]:
    """The in-memory twins (shopagent.adapters.memory), over one fresh store."""
    return memory_backend_with()


@contextlib.asynccontextmanager
async def memory_backend_with(search: type[Any] | None = None) -> AsyncIterator[IndexBackend]:
    """The in-memory twins, with `search` (a `MemorySearchIndex` class) as the search twin when given."""
    from shopagent.adapters.memory.storage import MemoryStorage
    from shopagent.settings import Settings
    from shopagent.wiring.policies import catalog_rules

    clock = FakeClock()
    storage = MemoryStorage(clock.monotonic)

    async def advance(seconds: float) -> None:
        clock.advance(seconds)

    @contextlib.asynccontextmanager
    async def building_elsewhere() -> AsyncIterator[None]:
        with storage.vector_index.built_elsewhere():
            yield

    yield IndexBackend(
        outbox=storage.outbox,
        chunks=storage.chunks,
        unit=storage.unit,
        vector_index=storage.vector_index,
        catalog=CatalogService(storage.catalog, catalog_rules(Settings())),
        search=search(storage.catalog, storage.chunks) if search is not None else storage.search,
        pages=storage.store_pages,
        passages=storage.passages,
        building_elsewhere=building_elsewhere,
        advance=advance,
    )


BACKENDS = {"postgres": postgres_backend, "memory": memory_backend}
