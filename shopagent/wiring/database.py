"""shopagent's database: the configured PostgreSQL or the embedded one, its schema migrated."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Sequence

import anyio
import asyncpg

from shopagent.adapters.postgres.database import check_pgvector, connect, ensure_database, redact_dsn
from shopagent.adapters.postgres.embedded import EmbeddedPostgres
from shopagent.adapters.postgres.migrations import Migration, load_migrations, migrate
from shopagent.domain.errors import ConfigError
from shopagent.settings import Settings, resolve_data_dir
from shopagent.wiring.policies import text_search_config

log = logging.getLogger("shopagent")

DATABASE_NAME = "shopagent"


@contextlib.asynccontextmanager
async def open_database(settings: Settings) -> AsyncIterator[str]:
    """Yield the DSN of shopagent's database: the configured one, or the embedded server's."""
    if settings.secrets.database_url is not None:
        dsn = settings.secrets.database_url.reveal()
        log.info("using PostgreSQL at %s", redact_dsn(dsn))
        yield dsn
        return
    server = EmbeddedPostgres(
        resolve_data_dir(settings), start_timeout=settings.database.embedded_start_timeout_seconds
    )
    await anyio.to_thread.run_sync(server.start)
    try:
        await ensure_database(server.dsn("postgres"), DATABASE_NAME)
        log.info("using the embedded PostgreSQL in %s", server.pgdata)
        yield server.dsn(DATABASE_NAME)
    finally:
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(server.stop)


async def prepare_schema(
    dsn: str, settings: Settings, migrations: Sequence[Migration] | None = None
) -> list[Migration]:
    """Check pgvector and apply pending migrations; return what was applied."""
    conn = await connect(dsn, timeout=settings.database.connect_timeout_seconds)
    try:
        version = await check_pgvector(conn)
        log.debug("pgvector %s available", version)
        await check_text_search_config(conn, text_search_config(settings))
        applied = await migrate(conn, load_migrations() if migrations is None else migrations)
    finally:
        await conn.close()
    for migration in applied:
        log.info("applied migration %s", migration)
    return applied


async def check_text_search_config(conn: asyncpg.Connection, name: str) -> None:
    available = [r["cfgname"] for r in await conn.fetch("SELECT cfgname FROM pg_ts_config ORDER BY 1")]
    if name not in available:
        raise ConfigError(
            f"search.text_search_config {name!r} is not a text search configuration of this PostgreSQL; "
            f"use one of: {', '.join(available)}"
        )
