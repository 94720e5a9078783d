"""Schema migrations: ordered SQL files shipped in the package.

Files are named `NNNN_description.sql`. Each runs in its own transaction together with the
row that records it, so a failing migration leaves the schema exactly as it was. The whole
run holds a PostgreSQL advisory lock, so instances starting at once apply each migration
once: the others wait, then find nothing left to do.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable

import asyncpg

from shopagent.domain.errors import MigrationError

log = logging.getLogger("shopagent.migrations")

# Any constant works; it only has to be the same in every shopagent process.
ADVISORY_LOCK_KEY = 0x5A0B_A6E7
_FILE_NAME = re.compile(r"^(?P<version>\d{4})_(?P<name>[a-z0-9_]+)\.sql$")
# Checksums a migration file had in earlier versions with the same statements (only its
# comments were edited since): a database that recorded one of them is up to date.
# tests/test_migrations.py pins each shipped file's checksum, so an edit is caught there.
EQUIVALENT_CHECKSUMS: dict[int, frozenset[str]] = {
    4: frozenset({
        "dddfb8914c7172d14a3cc6201c7ce404586aaac0c8cdb9f80348ad7dc8f8eda7",  # as of 8aa42e1
        "5992ceb14c44174cc002138da27406f187d5771a81c60d8cab6f0ef721931387",  # as of 8ad885c
    }),
}  # fmt: skip


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()

    def __str__(self) -> str:
        return f"{self.version:04d}_{self.name}"


def load_migrations(source: Traversable | None = None) -> list[Migration]:
    """The migrations in `source` (default: those shipped in the package), ordered by version."""
    folder = source if source is not None else resources.files("shopagent.adapters.postgres") / "migrations"
    found: list[Migration] = []
    for entry in folder.iterdir():
        if not entry.name.endswith(".sql"):
            continue
        match = _FILE_NAME.match(entry.name)
        if match is None:
            raise MigrationError(f"migration file {entry.name!r} is not named NNNN_description.sql")
        found.append(Migration(int(match["version"]), match["name"], entry.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.version)
    versions = [m.version for m in found]
    if len(set(versions)) != len(versions):
        raise MigrationError(f"two migration files share a version number: {versions}")
    return found


async def migrate(
    conn: asyncpg.Connection, migrations: Sequence[Migration], *, lock_timeout: float = 300.0
) -> list[Migration]:
    """Apply every migration not yet recorded; return the ones applied by this call."""
    await conn.execute("SELECT pg_advisory_lock($1)", ADVISORY_LOCK_KEY, timeout=lock_timeout)
    try:
        await conn.execute(
            """
            CREATE TABLE IF NOT EXISTS schema_migration (
                version integer PRIMARY KEY,
                name text NOT NULL,
                checksum text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """
        )
        applied = {r["version"]: r for r in await conn.fetch("SELECT version, name, checksum FROM schema_migration")}
        _check_history(applied, migrations)
        done = []
        for migration in migrations:
            if migration.version in applied:
                continue
            await _apply(conn, migration)
            done.append(migration)
        return done
    finally:
        await conn.execute("SELECT pg_advisory_unlock($1)", ADVISORY_LOCK_KEY)


def _check_history(applied: dict[int, asyncpg.Record], migrations: Sequence[Migration]) -> None:
    known = {m.version: m for m in migrations}
    for version, row in applied.items():
        migration = known.get(version)
        if migration is None:
            # A newer shopagent migrated this database; this older one can still run on it
            # (migrations only add), which is what a rolling upgrade needs.
            log.warning("database has migration %04d_%s that this version does not know", version, row["name"])
        elif row["checksum"] not in {migration.checksum, *EQUIVALENT_CHECKSUMS.get(version, ())}:
            raise MigrationError(
                f"migration {migration} was changed after it was applied to this database; "
                "restore the original file and put the change in a new migration"
            )


async def _apply(conn: asyncpg.Connection, migration: Migration) -> None:
    log.info("applying migration %s", migration)
    try:
        async with conn.transaction():
            await conn.execute(migration.sql)
            await conn.execute(
                "INSERT INTO schema_migration (version, name, checksum) VALUES ($1, $2, $3)",
                migration.version,
                migration.name,
                migration.checksum,
            )
    except asyncpg.PostgresError as exc:
        raise MigrationError(f"migration {migration} failed and was rolled back: {exc}") from None
