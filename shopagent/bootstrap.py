"""The composition root: the one place that builds services and wires actors to roles."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import anyio
import asyncpg

from shopagent.actors.embedding_pool import run_embedding_pool
from shopagent.actors.http import run_http
from shopagent.actors.mcp import run_mcp
from shopagent.actors.ops import run_ops
from shopagent.actors.outbox_poller import run_outbox_poller
from shopagent.actors.reaper import Sweep, run_reaper
from shopagent.adapters.postgres.database import (
    check_pgvector,
    connect,
    ensure_database,
    open_pool,
    redact_dsn,
)
from shopagent.adapters.postgres.embedded import EmbeddedPostgres
from shopagent.adapters.postgres.migrations import Migration, load_migrations, migrate
from shopagent.domain.errors import ConfigError
from shopagent.entrypoints.http.ops import ActorHealth, Health, MailboxHealth
from shopagent.runtime.mailbox import Mailbox
from shopagent.runtime.signals import StopRequest, cancel_on_signals
from shopagent.runtime.supervisor import ChildSpec, RestartPolicy, Supervisor
from shopagent.settings import Settings, describe, resolve_data_dir

log = logging.getLogger("shopagent")

DATABASE_NAME = "shopagent"
ROLES: dict[str, tuple[str, ...]] = {
    "chat": ("http",),
    "mcp": ("mcp",),
    # Poller and pool share the in-memory mailbox, so they always run together.
    "indexer": ("embedding-pool", "outbox-poller"),
    "reaper": ("reaper",),
}
VALID_ROLES = ("all", *ROLES)
# Start order: ops first (so /readyz answers during start-up), consumers before producers.
START_ORDER = ("ops", "embedding-pool", "outbox-poller", "mcp", "http", "reaper")


def parse_roles(text: str) -> frozenset[str]:
    """`"chat,mcp"` -> the actor names to run (always including ops)."""
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names:
        raise ConfigError(f"no role given; valid roles: {', '.join(VALID_ROLES)}")
    unknown = [n for n in names if n not in VALID_ROLES]
    if unknown:
        raise ConfigError(f"unknown role {unknown[0]!r}; valid roles: {', '.join(VALID_ROLES)}")
    roles = ROLES.keys() if "all" in names else names
    return frozenset({"ops", *(actor for role in roles for actor in ROLES[role])})


@dataclass
class Services:
    settings: Settings
    dsn: str
    pool: asyncpg.Pool
    mailbox: Mailbox[Any] | None


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
        applied = await migrate(conn, load_migrations() if migrations is None else migrations)
    finally:
        await conn.close()
    for migration in applied:
        log.info("applied migration %s", migration)
    return applied


@contextlib.asynccontextmanager
async def open_services(settings: Settings, actors: frozenset[str]) -> AsyncIterator[Services]:
    async with open_database(settings) as dsn:
        await prepare_schema(dsn, settings)
        db = settings.database
        async with open_pool(
            dsn,
            min_size=db.pool_min_size,
            max_size=db.pool_max_size,
            connect_timeout=db.connect_timeout_seconds,
            command_timeout=db.command_timeout_seconds,
        ) as pool:
            mailbox = Mailbox[Any](settings.runtime.mailbox_capacity) if "outbox-poller" in actors else None
            try:
                yield Services(settings=settings, dsn=dsn, pool=pool, mailbox=mailbox)
            finally:
                if mailbox is not None:
                    mailbox.close()


async def _claim_nothing() -> list[Any]:
    # The outbox arrives with the catalog; until then there is nothing to claim.
    return []


async def _index_nothing(job: Any) -> None:
    log.warning("no indexing handler is configured; dropping %r", job)


def roster_for(actors: frozenset[str], services: Services, health: Callable[[], Health]) -> list[ChildSpec]:
    """The child specs for the chosen actors, in start order."""
    s = services.settings
    factories: dict[str, Callable[[], ChildSpec]] = {
        "ops": lambda: ChildSpec("ops", partial(run_ops, s, health)),
        "embedding-pool": lambda: ChildSpec(
            "embedding-pool",
            partial(run_embedding_pool, _mailbox(services), _index_nothing, workers=s.indexer.workers),
        ),
        "outbox-poller": lambda: ChildSpec(
            "outbox-poller",
            partial(
                run_outbox_poller,
                services.dsn,
                _mailbox(services),
                _claim_nothing,
                poll_interval_seconds=s.indexer.poll_interval_seconds,
            ),
        ),
        "mcp": lambda: ChildSpec("mcp", partial(run_mcp, s)),
        "http": lambda: ChildSpec("http", partial(run_http, s)),
        "reaper": lambda: ChildSpec(
            "reaper", partial(run_reaper, _sweeps(services), interval_seconds=s.reaper.interval_seconds)
        ),
    }
    return [factories[name]() for name in START_ORDER if name in actors]


def _mailbox(services: Services) -> Mailbox[Any]:
    assert services.mailbox is not None, "the indexer actors need the mailbox"
    return services.mailbox


def _sweeps(services: Services) -> list[Sweep]:
    return []


def restart_policy(settings: Settings) -> RestartPolicy:
    r = settings.runtime
    return RestartPolicy(
        max_restarts=r.restart_max,
        within_seconds=r.restart_window_seconds,
        backoff_seconds=r.restart_backoff_seconds,
        backoff_max_seconds=r.restart_backoff_max_seconds,
    )


def health_of(supervisor: Supervisor, mailbox: Mailbox[Any] | None, scrub: Callable[[str], str]) -> Health:
    actors = [
        ActorHealth(s.name, s.state.value, s.restarts, scrub(s.last_error) if s.last_error else None)
        for s in supervisor.statuses()
    ]
    box = None
    if mailbox is not None:
        m = mailbox.statistics()
        box = MailboxHealth(m.capacity, m.depth, m.waiting_senders, m.waiting_receivers)
    return Health(ready=supervisor.all_ready(), actors=actors, mailbox=box)


async def serve(
    settings: Settings,
    actors: frozenset[str],
    *,
    scrub: Callable[[str], str] = str,
    on_ready: Callable[[Services], None] | None = None,
) -> None:
    """Run the chosen actors until SIGTERM/SIGINT (returns) or a failure (raises)."""
    log.debug("settings: %s", describe(settings))
    stop = StopRequest()
    main_scope = anyio.CancelScope()
    async with anyio.create_task_group() as outer:
        await outer.start(
            partial(cancel_on_signals, main_scope, stop, grace_seconds=settings.runtime.shutdown_grace_seconds)
        )
        with main_scope:
            async with open_services(settings, actors) as services:
                supervisor: Supervisor | None = None

                def health() -> Health:
                    assert supervisor is not None
                    return health_of(supervisor, services.mailbox, scrub)

                supervisor = Supervisor(roster_for(actors, services, health), restart_policy(settings))
                async with anyio.create_task_group() as tg:
                    await tg.start(supervisor.run)
                    if on_ready is not None:
                        on_ready(services)
        outer.cancel_scope.cancel()
    if stop.signal is not None:
        log.info("stopped after %s", stop.signal.name)
