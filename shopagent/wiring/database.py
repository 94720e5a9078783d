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
from shopagent.domain.errors import ConfigError, DatabaseError
from shopagent.settings import DatabaseSettings, Settings, resolve_data_dir
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
        resolve_data_dir(settings),
        start_timeout=settings.database.embedded_start_timeout_seconds,
        options=embedded_options(settings.database),
    )
    await anyio.to_thread.run_sync(server.start)
    try:
        await ensure_database(server.dsn("postgres"), DATABASE_NAME)
        log.info("using the embedded PostgreSQL in %s", server.pgdata)
        async with anyio.create_task_group() as tg:
            tg.start_soon(supervise_embedded, server)
            yield server.dsn(DATABASE_NAME)
            tg.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(server.stop)


def embedded_options(database: DatabaseSettings) -> dict[str, str]:
    """The server settings the embedded PostgreSQL starts with (PostgreSQL's defaults otherwise)."""
    megabytes = database.embedded_shared_buffers_mb
    return {"shared_buffers": f"{megabytes}MB"} if megabytes else {}


async def supervise_embedded(
    server: EmbeddedPostgres, *, every_seconds: float = 0.5, attempts: int = 5, backoff_seconds: float = 1.0
) -> None:
    """Start the embedded PostgreSQL again when it dies (killed, crashed): up to `attempts`
    times in a row, waiting longer each time; past that, raise, so the process exits non-zero
    and whoever runs it (a container's restart policy) starts it afresh. Meanwhile requests
    get the usual 503 `database_unavailable` and recover with the server."""
    failures = 0
    while True:
        await anyio.sleep(every_seconds)  # nothing announces a postmaster's death to us
        if failures == 0 and server.alive():
            continue
        if failures == 0:
            log.error("the embedded PostgreSQL stopped unexpectedly; starting it again")
        try:
            await anyio.to_thread.run_sync(server.restart)
        except DatabaseError as exc:
            failures += 1
            if failures >= attempts:
                raise DatabaseError(
                    f"the embedded PostgreSQL stopped and could not be started again ({attempts} tries): {exc}"
                ) from None
            delay = backoff_seconds * 2 ** (failures - 1)
            log.warning("the embedded PostgreSQL did not start (try %d of %d), next in %.0fs: %s",
                        failures, attempts, delay, exc)  # fmt: skip
            await anyio.sleep(delay)
            continue
        log.info("the embedded PostgreSQL runs again")
        failures = 0


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
