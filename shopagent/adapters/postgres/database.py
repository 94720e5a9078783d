"""Connecting to PostgreSQL: one-off connections, the pool, and the pgvector check."""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import AsyncIterator, Mapping
from urllib.parse import urlsplit, urlunsplit

import anyio
import asyncpg
import msgspec
from asyncpg.pool import PoolConnectionProxy
from pgvector.asyncpg import register_vector

from shopagent.adapters.postgres.pool import Connection
from shopagent.adapters.postgres.storage import StorageWatch
from shopagent.domain.errors import DatabaseError, DatabaseUnavailable

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
        kind = DatabaseUnavailable if is_unavailable(exc) else DatabaseError
        raise kind(f"cannot connect to PostgreSQL at {redact_dsn(dsn)}: {reason}") from None


# The server is away (stopped, restarting, unreachable): errors a retry once it is back cures.
_UNAVAILABLE = (
    OSError,  # refused, reset, no socket file, no route
    asyncpg.PostgresConnectionError,  # the connection broke or was never made
    asyncpg.AdminShutdownError,  # 57P01: terminated by a shutdown or an administrator
    asyncpg.CrashShutdownError,  # 57P02
    asyncpg.CannotConnectNowError,  # 57P03: starting up, shutting down, in recovery
    asyncpg.TooManyConnectionsError,  # 53300
)


def is_unavailable(exc: BaseException) -> bool:
    """Whether `exc` says the database cannot be reached (as opposed to a failed statement)."""
    if isinstance(exc, _UNAVAILABLE):
        return True
    return isinstance(exc, asyncpg.InterfaceError) and "closed" in str(exc)


def _broken(conn: Connection) -> bool:
    """Whether a pooled connection in use is closed: then a client-side error on it (asyncpg's
    "cannot switch to state …; another operation is in progress", say) means the connection
    broke under the statement, not that it was misused.

    The case this is for: a server shutting down sends every connection, idle ones in the pool
    too, a FATAL "terminating connection due to administrator command", then hangs up. asyncpg
    has no place for that message on an idle connection: its protocol is left waiting for a
    ReadyForQuery that never comes. Until asyncpg reads the hang-up (a turn of the event loop
    later, longer on a busy machine) the connection looks open and the pool hands it out; the
    next statement on it fails inside asyncpg, which aborts the connection. A connection in use
    that asyncpg has given back to its pool is closed too: it does that when it sees one close."""
    try:
        return conn.is_closed()
    except asyncpg.InterfaceError:  # "connection has been released back to the pool"
        return True


# What a client is told (the reason, which may name hosts, goes to the log and /readyz only).
_UNAVAILABLE_MESSAGE = "the database is unavailable right now; try again in a moment"


class GuardedPool:
    """The application pool, with outages as a normal condition.

    Errors that say the server is away become `DatabaseUnavailable` (503 at the edge), and
    the pool remembers the outage: while it lasts, `acquire` fails at once instead of
    waiting for a connection timeout, except that every `probe_interval` one caller tries a
    fresh connection. When one succeeds the pool's connections (broken by the restart) are
    replaced and work resumes: within `probe_interval` of the server being back for callers
    that keep trying, and for `wait_until_up`, which background workers use to pause.
    It is the `ConnectionPool` the adapters are given; asyncpg's own pool is `pool`.
    """

    def __init__(self, pool: asyncpg.Pool, dsn: str, *, probe_interval: float = 0.25, probe_timeout: float = 2.0):
        self.pool = pool
        self._dsn = dsn
        self._probe_interval = probe_interval
        self._probe_timeout = probe_timeout
        self._down_since: float | None = None
        self._reason = ""
        self._probed_at = 0.0
        self._probing = False
        self._answered_at = -1e9  # when a use of the pool last went through
        self.storage = StorageWatch()  # writes refused for lack of disk space

    @property
    def up(self) -> bool:
        return self._down_since is None

    @property
    def storage_full(self) -> str | None:
        """Why writes are refused for lack of disk space, while they are (see `StorageWatch`)."""
        return self.storage.reason

    @property
    def reason(self) -> str | None:
        """Why the database is considered down (None while it is up)."""
        return None if self._down_since is None else self._reason

    @contextlib.asynccontextmanager
    async def acquire(self) -> AsyncIterator[PoolConnectionProxy]:
        if self._down_since is not None and not await self._probe():
            raise DatabaseUnavailable(_UNAVAILABLE_MESSAGE)
        releasing = False
        try:
            async with self.pool.acquire() as conn:
                try:
                    yield conn
                except (asyncpg.InterfaceError, asyncpg.InternalClientError) as exc:
                    if not _broken(conn):
                        if isinstance(exc, asyncpg.InternalClientError):
                            conn.terminate()  # its protocol state is unknown: never reuse it
                        raise
                    self._went_down(exc)
                    raise DatabaseUnavailable(_UNAVAILABLE_MESSAGE) from None
                releasing = True
        except Exception as exc:
            # The pool resets a released connection with a statement, which meets a goodbye
            # that came after the caller's last one (see `_broken`); asyncpg has terminated it.
            said_goodbye = releasing and isinstance(exc, asyncpg.InternalClientError)
            if isinstance(exc, asyncpg.DiskFullError):
                raise self.storage.met(exc) from None
            if not (said_goodbye or is_unavailable(exc)):
                raise
            self._went_down(exc)
            raise DatabaseUnavailable(_UNAVAILABLE_MESSAGE) from None
        self._answered_at = time.monotonic()

    async def connect(self, *, application_name: str | None = None) -> asyncpg.Connection:
        """A dedicated connection outside the pool (for LISTEN), under the same outage rules."""
        if self._down_since is not None and not await self._probe():
            raise DatabaseUnavailable(_UNAVAILABLE_MESSAGE)
        named = {"application_name": application_name} if application_name else None
        try:
            return await asyncpg.connect(self._dsn, timeout=self._probe_timeout * 5, server_settings=named)
        except Exception as exc:
            if not is_unavailable(exc) and not isinstance(exc, TimeoutError):
                raise
            self._went_down(exc)
            raise DatabaseUnavailable(_UNAVAILABLE_MESSAGE) from None

    async def check(self) -> bool:
        """Whether the database answers now: it did within the last second (a busy process
        need not wait for a free connection to know), else one round trip; a probe while
        it is down."""
        if self._down_since is not None:
            return await self._probe()
        if time.monotonic() - self._answered_at < 1.0:
            return True
        try:
            async with self.acquire() as conn:
                await conn.fetchval("SELECT 1", timeout=self._probe_timeout)
        except DatabaseUnavailable:
            return False
        except TimeoutError:
            self._went_down(TimeoutError(f"no answer within {self._probe_timeout:g}s"))
            return False
        return True

    async def wait_until_up(self) -> None:
        """Return once the database answers again (at once while it is up), and, after a
        write that failed for lack of disk space, once it is time to try writing again."""
        while not (self.up or await self._probe()):  # noqa: ASYNC110 - polling another server
            await anyio.sleep(self._probe_interval)
        await self.storage.wait_for_room()

    def _went_down(self, exc: BaseException) -> None:
        self._reason = _short_reason(exc)
        if self._down_since is None:
            self._down_since = time.monotonic()
            self._probed_at = self._down_since
            log.warning("the database became unavailable: %s; pausing until it is back", self._reason)

    async def _probe(self) -> bool:
        """Try one fresh connection, unless another caller is trying or one was tried just now."""
        if self._down_since is None:
            return True
        now = time.monotonic()
        if self._probing or now - self._probed_at < self._probe_interval:
            return False
        self._probing, self._probed_at = True, now
        try:
            try:
                conn = await asyncpg.connect(self._dsn, timeout=self._probe_timeout)
            except Exception as exc:  # still away (or worse: it stays down, with this reason)
                self._reason = _short_reason(exc)
                return False
            with contextlib.suppress(Exception):
                await conn.close(timeout=self._probe_timeout)
            await self.pool.expire_connections()  # the old ones died with the server
            log.warning("the database is available again after %.1f s", time.monotonic() - (self._down_since or now))
            self._down_since = None
            self._answered_at = time.monotonic()  # the server just answered: `check` need not ask again
            return True
        finally:
            self._probing = False


class _OneLineWhileAway(logging.Filter):
    """asyncpg logs every failed attempt to refill its pool with a traceback; while the
    database is away that is the expected state, so keep the line and its reason only."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None and is_unavailable(exc):
            record.msg, record.args = f"{record.getMessage()}: {_short_reason(exc)}", ()
            record.exc_info, record.exc_text = None, None
        return True


logging.getLogger("asyncpg.pool").addFilter(_OneLineWhileAway())


def _short_reason(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


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
        "jsonb", schema="pg_catalog", encoder=_encode_json, decoder=msgspec.json.decode, format="text"
    )


def _encode_json(value: object) -> str:
    return _json_encoder.encode(value).decode()


@contextlib.asynccontextmanager
async def open_pool(
    dsn: str,
    *,
    min_size: int,
    max_size: int,
    connect_timeout: float,
    command_timeout: float,
    close_timeout: float = 5.0,
    server_settings: Mapping[str, str] | None = None,
) -> AsyncIterator[asyncpg.Pool]:
    """The application pool; every connection knows the vector and jsonb types and carries
    `server_settings` (see `session_limits`).

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
            server_settings=dict(server_settings or {}),
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


def session_limits(lock_timeout: float, idle_in_transaction_timeout: float) -> dict[str, str]:
    """PostgreSQL settings of every connection: how long a statement waits for a lock, and
    how long a session may sit idle in an open transaction before the server ends it (so a
    frozen or cut-off holder's row locks are freed); 0 turns a limit off."""
    return {
        "lock_timeout": str(round(lock_timeout * 1000)),
        "idle_in_transaction_session_timeout": str(round(idle_in_transaction_timeout * 1000)),
    }


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".") if part.isdigit())


def _ident(name: str) -> str:
    if not name.replace("_", "").isalnum():
        raise DatabaseError(f"invalid database name {name!r}")
    return name
