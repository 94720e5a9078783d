"""Connecting to PostgreSQL: one-off connections, the pool, and the pgvector check."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from urllib.parse import urlsplit, urlunsplit

import anyio
import asyncpg
import msgspec
from pgvector.asyncpg import register_vector

from shopagent.domain.errors import DatabaseError

log = logging.getLogger("shopagent.postgres")

MIN_PGVECTOR = (0, 8)
_json_encoder = msgspec.json.Encoder()


def redact_dsn(dsn: str) -> str:
    """A database URL safe to print: the password (if any) replaced by ***."""
    parts = urlsplit(dsn)
    if parts.password is None:
        return dsn
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}{port}"))


async def connect(dsn: str, *, timeout: float = 10.0) -> asyncpg.Connection:
    """One connection, with connection failures translated into a DatabaseError that says where."""
    try:
        return await asyncpg.connect(dsn, timeout=timeout)
    except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        reason = str(exc) or type(exc).__name__
        raise DatabaseError(f"cannot connect to PostgreSQL at {redact_dsn(dsn)}: {reason}") from None


async def ensure_database(admin_dsn: str, name: str, *, timeout: float = 10.0) -> None:
    """Create database `name` if it does not exist (connecting through `admin_dsn`)."""
    conn = await connect(admin_dsn, timeout=timeout)
    try:
        exists = await conn.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", name)
        if not exists:
            log.info("creating database %s", name)
            with contextlib.suppress(asyncpg.DuplicateDatabaseError):  # a concurrent creator won
                await conn.execute(f'CREATE DATABASE "{_ident(name)}"')
    finally:
        await conn.close()


async def check_pgvector(conn: asyncpg.Connection) -> str:
    """Return the pgvector version this database offers; fail clearly if it is missing or too old."""
    row = await conn.fetchrow(
        "SELECT default_version, installed_version FROM pg_available_extensions WHERE name = 'vector'"
    )
    need = ".".join(map(str, MIN_PGVECTOR))
    if row is None:
        raise DatabaseError(
            f"the pgvector extension (>= {need}) is not available on this PostgreSQL server; install it "
            "(e.g. the postgresql-NN-pgvector package, or an image such as pgvector/pgvector) "
            "or unset SHOPAGENT_DATABASE_URL to use the embedded PostgreSQL"
        )
    installed, available = row["installed_version"], row["default_version"]
    if installed is not None and _version(installed) < MIN_PGVECTOR:
        if _version(available) >= MIN_PGVECTOR:
            raise DatabaseError(
                f"pgvector {installed} is installed in this database but shopagent needs >= {need}; "
                f"run `ALTER EXTENSION vector UPDATE;` as the database owner ({available} is available)"
            )
        raise DatabaseError(f"pgvector {installed} is installed but shopagent needs >= {need}; upgrade pgvector")
    if _version(available) < MIN_PGVECTOR:
        raise DatabaseError(f"this server offers pgvector {available} but shopagent needs >= {need}; upgrade it")
    return installed or available


async def _init_connection(conn: asyncpg.Connection) -> None:
    await register_vector(conn)
    await conn.set_type_codec(
        "jsonb", schema="pg_catalog", encoder=_json_encoder.encode, decoder=msgspec.json.decode, format="text"
    )


@contextlib.asynccontextmanager
async def open_pool(
    dsn: str,
    *,
    min_size: int,
    max_size: int,
    connect_timeout: float,
    command_timeout: float,
    close_timeout: float = 5.0,
) -> AsyncIterator[asyncpg.Pool]:
    """The application pool; every connection knows the vector and jsonb types.

    Open it after migrating: the vector codec needs the extension to exist.
    """
    try:
        pool = await asyncpg.create_pool(
            dsn,
            min_size=min(min_size, max_size),
            max_size=max_size,
            timeout=connect_timeout,
            command_timeout=command_timeout,
            init=_init_connection,
        )
    except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        raise DatabaseError(f"cannot open a pool to PostgreSQL at {redact_dsn(dsn)}: {exc}") from None
    try:
        yield pool
    finally:
        # Shielded: this runs during a graceful stop, when the scope is already cancelled.
        with anyio.CancelScope(shield=True):
            closed = False
            with anyio.move_on_after(close_timeout):
                await pool.close()
                closed = True
            if not closed:
                pool.terminate()


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".") if part.isdigit())


def _ident(name: str) -> str:
    if not name.replace("_", "").isalnum():
        raise DatabaseError(f"invalid database name {name!r}")
    return name
