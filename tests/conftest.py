"""Shared fixtures: one embedded PostgreSQL per test session, a migrated template
database, and a fresh database cloned from it for every test that asks."""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import anyio
import asyncpg
import pytest

import shopagent
from shopagent.adapters.postgres.embedded import EmbeddedPostgres
from shopagent.runtime.retry import waits_off
from shopagent.settings import Settings
from shopagent.wiring.database import prepare_schema
from tests.tiers import guard_unit, mark_tiers

TEMPLATE = "shopagent_template"
# Durability is irrelevant for throw-away test data; these make the suite faster.
# (a test module keeps each of its indexed shops open to its end, each with its pools: room for them all)
FAST_OPTIONS = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off", "max_connections": "300"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    mark_tiers(items)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    yield from guard_unit(item)


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    # asyncpg and uvicorn run on asyncio only.
    return "asyncio"


@pytest.fixture(autouse=True)
def retry_waits() -> Iterator[list[float]]:
    """Retry and restart waits return at once in every test; the list holds the delays asked for.

    A test that measures real waiting opens `shopagent.runtime.retry.waits_on()` itself.
    """
    with waits_off() as asked:
        yield asked


# Room the suite's clusters take at most (the template, the server and its largest databases).
MEMORY_DISK_ROOM = 1 << 30


def scratch_dir(prefix: str) -> Path:
    """A new directory for a throw-away cluster: in memory (/dev/shm) when there is room there,
    so that creating, copying and deleting databases does not wait on the disk (a database of
    its own for a test is made in 10-15 ms there, 65-270 ms on this machine's disk); else in
    the temp folder."""
    shm = Path("/dev/shm")  # noqa: S108 - a private mkdtemp below it
    in_memory = shm.is_dir() and os.access(shm, os.W_OK) and shutil.disk_usage(shm).free >= MEMORY_DISK_ROOM
    return Path(tempfile.mkdtemp(prefix=prefix, dir=shm if in_memory else None))


def _in_thread(fn, *args):
    """Run an async function to completion on a private event loop in a worker thread."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(anyio.run, fn, *args).result()


@pytest.fixture
def outside_tmp_path() -> Iterator[Path]:
    """A fresh folder outside pytest's own temporary tree, for what a PostgreSQL of its own keeps
    (a data directory, a benchmark's TMPDIR): any pytest session started meanwhile by the same
    user takes others' access to that tree away, and the PostgreSQL user could no longer reach
    its files."""
    folder = scratch_dir("shopagent-test-")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def embedded_pg() -> Iterator[EmbeddedPostgres]:
    data_dir = scratch_dir("shopagent-tests-")
    server = EmbeddedPostgres(data_dir, options=FAST_OPTIONS)
    server.start()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def template_db(embedded_pg: EmbeddedPostgres) -> str:
    async def build() -> None:
        admin = await asyncpg.connect(embedded_pg.dsn("postgres"))
        try:
            await admin.execute(f'CREATE DATABASE "{TEMPLATE}"')
        finally:
            await admin.close()
        await prepare_schema(embedded_pg.dsn(TEMPLATE), Settings())

    _in_thread(build)
    return TEMPLATE


async def _create_database(embedded_pg: EmbeddedPostgres, template: str) -> AsyncIterator[str]:
    name = f"test_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(embedded_pg.dsn("postgres"))
    try:
        # A file copy of the small template is twice as fast as WAL_LOG, the default since PostgreSQL 15
        # (its checkpoint costs nothing with fsync off).
        await admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}" STRATEGY FILE_COPY')
        yield embedded_pg.dsn(name)
        await admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
    finally:
        await admin.close()


@pytest.fixture
async def database(embedded_pg: EmbeddedPostgres, template_db: str) -> AsyncIterator[str]:
    """DSN of a fresh, migrated database of its own."""
    async for dsn in _create_database(embedded_pg, template_db):
        yield dsn


@pytest.fixture
async def empty_database(embedded_pg: EmbeddedPostgres) -> AsyncIterator[str]:
    """DSN of a fresh database with no shopagent schema at all."""
    async for dsn in _create_database(embedded_pg, "template1"):
        yield dsn


def settings_for(dsn: str, **sections) -> Settings:
    """Settings pointing at a test database, with the hash embedder unless told otherwise."""
    import msgspec

    from shopagent.settings import EmbeddingSettings, Secret, Secrets

    secrets = Secrets(database_url=Secret(dsn), auth_secret=Secret("test-auth-secret-of-32-bytes-or-more"))
    settings = Settings(secrets=secrets, embedding=EmbeddingSettings(model="hash"))
    return msgspec.structs.replace(settings, **sections)


@pytest.fixture
def settings(database: str) -> Settings:
    return settings_for(database)


@pytest.fixture
async def services(settings: Settings):
    """The real services (PostgreSQL adapters) over the test database, hash embedder."""
    from shopagent.adapters.local.hash_embedder import HashEmbedder
    from shopagent.wiring.services import open_services
    from shopagent.wiring.startup import INDEXER_ACTORS

    async with open_services(settings, INDEXER_ACTORS, embedder=HashEmbedder(settings.embedding.hash_dimensions)) as s:
        yield s


async def _indexed_shop(
    embedded_pg: EmbeddedPostgres, template_db: str, catalog: Path, config: Path | None = None, embedder=None
):
    """A shop's catalog imported and indexed with the real local model (or `embedder`), with
    its store and catalog settings (`config`); the other settings are the tests' defaults."""
    import msgspec

    from shopagent.adapters.local.minilm import MiniLMEmbedder
    from shopagent.application.catalog import import_products
    from shopagent.entrypoints.catalog_files import read_catalog_file
    from shopagent.settings import load_settings
    from shopagent.wiring.services import open_services
    from shopagent.wiring.startup import INDEXER_ACTORS

    async for dsn in _create_database(embedded_pg, template_db):
        settings = settings_for(dsn)
        # (a shop searched one request at a time: a small pool, so the many shops a test module keeps open at
        # once stay within the server's connections)
        settings = msgspec.structs.replace(
            settings, database=msgspec.structs.replace(settings.database, pool_min_size=1, pool_max_size=3)
        )
        if config is not None:
            shop = load_settings(config, environ={})
            settings = msgspec.structs.replace(settings, catalog=shop.catalog, store=shop.store)
        embedder = embedder or MiniLMEmbedder()
        async with open_services(settings, INDEXER_ACTORS | {"mcp"}, embedder=embedder) as services:
            summary = await import_products(services.catalog, read_catalog_file(catalog))
            assert summary.rejected == []
            while events := await services.outbox.claim(64, 60, 5, "shop"):
                await services.index_product.index(events)
            yield services


@pytest.fixture(scope="session")
async def sample_shop(embedded_pg: EmbeddedPostgres, template_db: str):
    """The bundled sample catalog, indexed with the real local model (shared by the session)."""
    from shopagent.bootstrap import SAMPLE_CATALOG

    async for services in _indexed_shop(embedded_pg, template_db, SAMPLE_CATALOG):
        yield services


@pytest.fixture(scope="session")
def multilingual_embedder():
    """The multilingual encoder, loaded once for the session (a few seconds each time)."""
    from shopagent.adapters.local.multilingual import MultilingualEmbedder

    return MultilingualEmbedder()


@pytest.fixture(scope="session")
async def multilingual_sample_shop(embedded_pg: EmbeddedPostgres, template_db: str, multilingual_embedder):
    """The bundled sample catalog, indexed with the multilingual encoder (shared by the session)."""
    from shopagent.bootstrap import SAMPLE_CATALOG

    async for services in _indexed_shop(embedded_pg, template_db, SAMPLE_CATALOG, embedder=multilingual_embedder):
        yield services


DATA = Path(__file__).parent / "data"
KITCHEN = DATA / "kitchen"


@pytest.fixture(scope="session")
async def kitchen_shop(embedded_pg: EmbeddedPostgres, template_db: str):
    """A second trade (tests/data/kitchen: 64 kitchenware products with their own colours and
    sizes), indexed with the real local model (shared by the session)."""
    async for services in _indexed_shop(embedded_pg, template_db, KITCHEN / "catalog.json", KITCHEN / "config.toml"):
        yield services


@pytest.fixture(scope="session")
async def electronics_shop(embedded_pg: EmbeddedPostgres, template_db: str):
    """A third trade (tests/data/electronics: 79 products of a consumer-electronics shop, written
    by someone who never saw its queries), indexed with the real local model."""
    shop = DATA / "electronics"
    async for services in _indexed_shop(embedded_pg, template_db, shop / "catalog.json", shop / "config.toml"):
        yield services


@pytest.fixture(scope="session")
async def pets_shop(embedded_pg: EmbeddedPostgres, template_db: str):
    """A fourth trade (tests/data/pets: 80 products of a pet-supplies shop with named options,
    written by someone who never saw its queries), indexed with the real local model."""
    shop = DATA / "pets"
    async for services in _indexed_shop(embedded_pg, template_db, shop / "catalog.json", shop / "config.toml"):
        yield services


@pytest.fixture(scope="session")
async def garden_shop(embedded_pg: EmbeddedPostgres, template_db: str):
    """A fifth trade (tests/data/garden: 80 products of a garden shop, written, asked and judged
    blind like the pet shop), indexed with the real local model."""
    shop = DATA / "garden"
    async for services in _indexed_shop(embedded_pg, template_db, shop / "catalog.json", shop / "config.toml"):
        yield services


@pytest.fixture(scope="session")
async def toys_shop(embedded_pg: EmbeddedPostgres, template_db: str):
    """A sixth trade (tests/data/toys: 80 products of a toy shop, written, asked and judged blind like the
    garden shop), indexed with the real local model."""
    shop = DATA / "toys"
    async for services in _indexed_shop(embedded_pg, template_db, shop / "catalog.json", shop / "config.toml"):
        yield services


@pytest.fixture(scope="session")
async def bikes_shop(embedded_pg: EmbeddedPostgres, template_db: str):
    """A seventh trade (tests/data/bikes: 80 products of a bike and outdoor shop, written, asked and judged
    blind like the toy shop), indexed with the real local model."""
    shop = DATA / "bikes"
    async for services in _indexed_shop(embedded_pg, template_db, shop / "catalog.json", shop / "config.toml"):
        yield services


@pytest.fixture(scope="session")
async def coffee_shop(embedded_pg: EmbeddedPostgres, template_db: str):
    """The roastery sample (shopagent/sample_data/coffee: 47 products of coffee, tea and brewing gear, a trade
    no judged set was written for), indexed with the real local model."""
    shop = Path(shopagent.__file__).parent / "sample_data" / "coffee"
    async for services in _indexed_shop(embedded_pg, template_db, shop / "catalog.json", shop / "settings.toml"):
        yield services


@pytest.fixture(scope="session")
async def kitchen_de_shop(embedded_pg: EmbeddedPostgres, template_db: str):
    """The kitchenware shop in German (store.language = "de", German product text)."""
    shop = DATA / "kitchen_de"
    async for services in _indexed_shop(embedded_pg, template_db, shop / "catalog.json", shop / "config.toml"):
        yield services


@pytest.fixture(scope="session")
async def kitchen_fr_shop(embedded_pg: EmbeddedPostgres, template_db: str):
    """The kitchenware shop in French (store.language = "fr", French product text)."""
    shop = DATA / "kitchen_fr"
    async for services in _indexed_shop(embedded_pg, template_db, shop / "catalog.json", shop / "config.toml"):
        yield services


@pytest.fixture(params=["memory", "postgres"])
def index_backend_opener(request: pytest.FixtureRequest):
    from tests.index_backends import BACKENDS

    return BACKENDS[request.param](request)


@pytest.fixture
async def index_backend(index_backend_opener):
    """Each implementation of the indexing ports (tests/index_backends.py), over a fresh store."""
    async with index_backend_opener as backend:
        yield backend
