"""The readiness report: the supervisor's actors, the mailbox and the dependencies, translated
into the ops app's `Health` (what /readyz answers and the health series of /metrics)."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Sequence

import msgspec

from shopagent.application.ports import IndexBacklog
from shopagent.application.ports.operations import Database, Gateway, Inbox, Supervised
from shopagent.domain.errors import DatabaseUnavailable
from shopagent.entrypoints.http.ops import ActorHealth, DependencyHealth, Health, IndexingHealth, MailboxHealth

DependencyCheck = Callable[[], Awaitable[DependencyHealth]]


def database_check(database: Database) -> DependencyCheck:
    """The database: required (down, the process is not ready)."""

    async def check() -> DependencyHealth:
        if await database.check():
            return DependencyHealth("database", "up", required=True)
        return DependencyHealth("database", "down", required=True, detail=database.reason)

    return check


def storage_check(database: Database) -> DependencyCheck:
    """The database's disk: optional (while it is full, writes are refused with 503
    `storage_full`; reads go on), so a full disk makes the process degraded, not unready."""

    async def check() -> DependencyHealth:
        if (reason := database.storage_full) is None:
            return DependencyHealth("storage", "up", required=False)
        return DependencyHealth("storage", "full", required=False, detail=f"disk full: {reason}")

    return check


def mcp_check(current: Callable[[], Gateway | None]) -> DependencyCheck:
    """The MCP server at chat.mcp_url, through the gateway the chat app holds while it runs
    (`current()`): optional (while it is away, turns are answered without the catalog tools,
    saying so)."""

    async def check() -> DependencyHealth:
        gateway = current()
        if gateway is None:  # the chat app has not started (or has stopped) its gateway
            return DependencyHealth("mcp", "down", required=False, detail="not connected")
        if await gateway.check():
            return DependencyHealth("mcp", "up", required=False)
        return DependencyHealth("mcp", "down", required=False, detail=gateway.last_error)

    return check


async def health_of(
    supervisor: Supervised,
    mailbox: Inbox | None,
    scrub: Callable[[str], str],
    dependencies: Sequence[DependencyCheck] = (),
    backlog: Callable[[], Awaitable[IndexBacklog]] | None = None,
) -> Health:
    actors = [
        ActorHealth(s.name, s.state.value, s.restarts, scrub(s.last_error) if s.last_error else None)
        for s in supervisor.statuses()
    ]
    box = None
    if mailbox is not None:
        m = mailbox.statistics()
        box = MailboxHealth(m.capacity, m.depth, m.waiting_senders, m.waiting_receivers)
    checked = [await check() for check in dependencies]
    indexing = None
    if backlog is not None and all(d.state == "up" for d in checked if d.name == "database"):
        with contextlib.suppress(DatabaseUnavailable):
            b = await backlog()
            indexing = IndexingHealth(b.pending, b.in_flight, b.dead, b.oldest_due_seconds)
    checked = [msgspec.structs.replace(d, detail=scrub(d.detail) if d.detail else None) for d in checked]
    if not supervisor.all_ready():
        status = "starting"
    elif any(d.state != "up" and d.required for d in checked):
        status = "unavailable"
    elif any(d.state != "up" for d in checked):
        status = "degraded"
    else:
        status = "ready"
    return Health(
        ready=status in ("ready", "degraded"),
        status=status,
        actors=actors,
        mailbox=box,
        dependencies=checked,
        indexing=indexing,
    )
