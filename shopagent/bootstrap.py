"""The composition root: the services for the roles asked, the actors wired to them, run.

Read top down: `serve` opens the services (`shopagent.wiring.services`) and runs a supervisor
over the actors; `roster_for` offers each actor from the bundle that holds what it needs
(`core_children`, `search_children`, `indexer_children`), `build_public_app` and
`dependency_checks` are what the http and ops actors serve. What is built from settings lives
below it in `shopagent.wiring` (policies, providers, services, the database, start-up checks,
generated secrets), which never imports this module; the CLI's commands (`shopagent.commands`)
sit above it. Each name is imported from the module that defines it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Coroutine
from functools import partial
from pathlib import Path
from typing import Any

import anyio
from starlette.applications import Starlette

from shopagent.actors.embedding_pool import run_embedding_pool
from shopagent.actors.http import run_http
from shopagent.actors.ops import run_ops
from shopagent.actors.outbox_poller import run_outbox_poller
from shopagent.actors.reaper import Sweep, run_reaper
from shopagent.application import index_runs
from shopagent.application.housekeeping import release_stuck_conversations
from shopagent.application.limits import RateLimit
from shopagent.application.ports import ChatModel
from shopagent.application.ports.operations import RateLimits
from shopagent.domain.errors import ConfigError
from shopagent.entrypoints.http.health import DependencyCheck, database_check, health_of, mcp_check, storage_check
from shopagent.entrypoints.http.ops import Health, health_metrics
from shopagent.entrypoints.http.public import PublicApi, public_app
from shopagent.entrypoints.http.visitors import VisitorBudgets
from shopagent.instrumentation import refusal_counter, sweep_observer
from shopagent.runtime.connections import raise_open_file_limit
from shopagent.runtime.metrics import RequestMetrics, route_templates
from shopagent.runtime.signals import StopRequest, cancel_on_signals
from shopagent.runtime.supervisor import ChildSpec, Supervisor
from shopagent.settings import Settings, describe
from shopagent.wiring.assistant import open_chat
from shopagent.wiring.policies import catalog_rules, embedding_model_id, listening, mcp_serving, restart_policy
from shopagent.wiring.services import CoreServices, IndexerServices, SearchServices, open_services
from shopagent.wiring.startup import (
    CHAT_SIGNING_KEY_MISSING,
    INDEXER_ACTORS,
    START_ORDER,
)

log = logging.getLogger("shopagent")

SAMPLE_CATALOG = Path(__file__).parent / "sample_data" / "catalog.json"
SAMPLE_STORE_PAGES = Path(__file__).parent / "sample_data" / "store_pages"
HealthReport = Callable[[], Awaitable[Health]]
Offered = dict[str, Callable[[], ChildSpec]]


def roster_for(actors: frozenset[str], services: CoreServices, health: HealthReport | None = None) -> list[ChildSpec]:
    """The child specs for the chosen actors, in start order: each actor is offered by the
    bundle that holds what it needs (ops also needs the `health` report)."""
    offered = core_children(services, health)
    if isinstance(services, SearchServices):
        offered |= search_children(services)
    if isinstance(services, IndexerServices):
        offered |= indexer_children(services)
    if missing := sorted(actors - offered.keys()):
        needs = "a health report" if missing == ["ops"] else "services opened for them"
        raise ConfigError(f"cannot run {', '.join(missing)} without {needs}")
    return [offered[name]() for name in START_ORDER if name in actors]


def core_children(services: CoreServices, health: HealthReport | None) -> Offered:
    s = services.settings
    offered: Offered = {
        "http": lambda: ChildSpec(
            "http",
            partial(run_http, listening(s, "http"), partial(build_public_app, services), metrics=services.metrics),
        ),
        "reaper": lambda: ChildSpec("reaper", reaper(services)),
    }
    if health is not None:
        offered["ops"] = lambda: ChildSpec(
            "ops", partial(run_ops, listening(s, "ops"), health, metrics=services.metrics)
        )
    return offered


def search_children(services: SearchServices) -> Offered:
    s = services.settings
    refused = refusal_counter(services.metrics)
    limit = RateLimit(services.rate_limits, s.mcp.rate_per_minute, s.mcp.rate_burst, on_refused=refused("mcp"))
    own_chat = RateLimit(
        services.rate_limits, s.mcp.chat_rate_per_minute, s.mcp.chat_rate_burst, on_refused=refused("mcp_chat")
    )

    def mcp() -> ChildSpec:
        # The MCP server is built (and its stack imported) only when the mcp actor runs: an
        # indexer-only process starts a second or two sooner without it.
        server = services.mcp_server
        run = partial(_run_mcp, mcp_serving(s), server, limit=limit, metrics=services.metrics, own_chat_limit=own_chat)
        return ChildSpec("mcp", run)

    return {"mcp": mcp}


def indexer_children(services: IndexerServices) -> Offered:
    s = services.settings
    keeper = services.index_keeper
    pool = partial(
        run_embedding_pool,
        services.mailbox,
        services.index_product,
        workers=s.indexer.workers,
        batch=s.indexer.claim_batch,
        prepare=keeper.prepare,
        maintain=keeper.maintain,
    )
    poller = partial(
        run_outbox_poller,
        services.pool,
        services.mailbox,
        services.leases,
        batch=s.indexer.claim_batch,
        poll_interval_seconds=s.indexer.poll_interval_seconds,
    )
    return {
        "embedding-pool": lambda: ChildSpec("embedding-pool", pool),
        "outbox-poller": lambda: ChildSpec("outbox-poller", poller),
    }


def sweeps(services: CoreServices) -> list[Sweep]:
    """The reaper's housekeeping."""
    s = services.settings
    return [
        Sweep("expired-leases", partial(services.outbox.release_expired_leases, s.indexer.max_attempts)),
        Sweep(
            "stuck-conversations",
            partial(release_stuck_conversations, services.conversations, s.stuck_after_seconds),
        ),
        Sweep("idle-rate-limits", services.rate_limits.forget_idle),
        Sweep("expired-search-misses", services.unmet_searches.forget_expired),
    ]


def reaper(services: CoreServices) -> Callable[..., Coroutine[Any, Any, None]]:
    """The reaper over the services' sweeps, counted on their metrics."""
    housekeeping = sweeps(services)
    observe = sweep_observer(services.metrics, [sweep.name for sweep in housekeeping])
    interval = services.settings.reaper.interval_seconds
    return partial(run_reaper, housekeeping, interval_seconds=interval, observe=observe)


async def _run_mcp(*args: Any, **kwargs: Any) -> None:
    from shopagent.actors.mcp import run_mcp  # the MCP stack: only the roles that serve it import it

    await run_mcp(*args, **kwargs)


def build_public_app(services: CoreServices, chat_model: ChatModel | None = None) -> Starlette:
    """The public HTTP app over these services. Needs the auth secret.

    `chat_model` replaces the configured one (tests and benchmarks).
    """
    s = services.settings
    if s.secrets.auth_secret is None:
        raise ConfigError(CHAT_SIGNING_KEY_MISSING)
    limits = services.rate_limits
    refused = refusal_counter(services.metrics)
    api = PublicApi(
        store_name=s.store.name,
        price_locale=catalog_rules(s).locale,
        auth_secret=s.secrets.auth_secret.reveal(),
        admin_key=s.secrets.admin_api_key.reveal() if s.secrets.admin_api_key else None,
        catalog=services.catalog,
        store_pages=services.store_pages,
        unmet_searches=services.unmet_searches,
        index_status=partial(services.index_status, embedding_model_id(s)),
        open_chat=partial(open_chat, services, chat_model),
        chat_limit=RateLimit(limits, s.chat.rate_per_minute, s.chat.rate_burst, "messages", refused("chat")),
        admin_limit=RateLimit(limits, s.admin.rate_per_minute, s.admin.rate_burst, on_refused=refused("admin")),
        visitor_limit=RateLimit(
            limits, s.http.anonymous_rate_per_minute, s.http.anonymous_rate_burst, "visitor tokens", refused("visitor")
        ),
        read_limit=RateLimit(limits, s.chat.read_rate_per_minute, s.chat.read_rate_burst, on_refused=refused("read")),
        visitor_budgets=visitor_budgets(s, limits, refused),
        audit_result_chars=s.chat.audit_result_chars,
        token_max_ttl_seconds=s.chat.token_max_ttl_seconds,
        sse_ping_seconds=s.chat.sse_ping_seconds,
        anonymous_chat=s.http.anonymous_chat,
        visitor_token_ttl_seconds=min(s.http.anonymous_token_ttl_seconds, s.chat.token_max_ttl_seconds),
        cors_origins=s.http.cors_origins,
        stop=services.stop,
        grace_seconds=s.runtime.shutdown_grace_seconds,
    )
    app = public_app(api)
    route_of = route_templates(lambda: app.router.routes)
    app.add_middleware(RequestMetrics, metrics=services.metrics, server="http", route_of=route_of)
    return app


def visitor_budgets(
    s: Settings, limits: RateLimits, refused: Callable[[str], Callable[[], None]] | None = None
) -> VisitorBudgets:
    hourly = s.http.anonymous_tokens_per_hour
    per_minute = s.http.anonymous_messages_per_minute
    return VisitorBudgets(
        tokens_per_hour=RateLimit(
            limits, hourly / 60, hourly, "visitor tokens this hour", refused("visitor_hourly") if refused else None
        ),
        messages=RateLimit(
            limits,
            per_minute,
            max(1, int(per_minute)),
            "messages from anonymous visitors",
            refused("anonymous_messages") if refused else None,
        ),
    )


def dependency_checks(services: CoreServices) -> list[DependencyCheck]:
    """What this process's readiness depends on besides its actors: the database (required),
    and in a chat role with chat.mcp_url, the MCP server (optional: while it is away, turns
    are answered without the catalog tools, saying so)."""
    checks = [database_check(services.pool), storage_check(services.pool)]
    if services.settings.chat.mcp_url and "http" in services.actors:
        checks.append(mcp_check(lambda: services.remote_tools.gateway))
    return checks


async def serve(
    settings: Settings,
    actors: frozenset[str],
    *,
    scrub: Callable[[str], str] = str,
    prepare: Callable[[CoreServices], Awaitable[None]] | None = None,
    on_ready: Callable[[CoreServices], Awaitable[None]] | None = None,
) -> None:
    """Run the chosen actors until SIGTERM/SIGINT (returns) or a failure (raises)."""
    log.debug("settings: %s", describe(settings))
    log.debug("open-file limit: %d", raise_open_file_limit())  # before the servers size their caps from it
    stop = StopRequest()
    main_scope = anyio.CancelScope()
    async with anyio.create_task_group() as outer:
        await outer.start(
            partial(cancel_on_signals, main_scope, stop, grace_seconds=settings.runtime.shutdown_grace_seconds)
        )
        with main_scope:
            async with open_services(settings, actors, stop=stop) as services:
                if prepare is not None:
                    await prepare(services)
                supervisor = supervise(services, scrub)
                async with anyio.create_task_group() as tg:
                    await tg.start(supervisor.run)
                    if on_ready is not None:
                        await on_ready(services)
        outer.cancel_scope.cancel()
    if stop.signal is not None:
        log.info("stopped after %s", stop.signal.name)


def supervise(services: CoreServices, scrub: Callable[[str], str]) -> Supervisor:
    """A supervisor over the services' actors, with ops reporting its health."""
    checks = dependency_checks(services)
    indexing = services if isinstance(services, IndexerServices) else None
    mailbox = indexing.mailbox if indexing is not None else None
    backlog = indexing.outbox.backlog if indexing is not None else None

    async def health() -> Health:
        return await health_of(supervisor, mailbox, scrub, checks, backlog)

    services.metrics.add_source("health", partial(health_metrics, health))
    supervisor = Supervisor(roster_for(services.actors, services, health), restart_policy(services.settings))
    return supervisor


async def drain_index(
    services: IndexerServices,
    first_event: int,
    total: int,
    progress: Callable[[int, int], None],
    *,
    rebuild_vector_index: bool = False,
) -> None:
    """Run the indexer actors here until the `total` events from `first_event` on are finished
    (see `application.index_runs.drain_index`)."""
    supervisor = Supervisor(roster_for(INDEXER_ACTORS, services), restart_policy(services.settings))
    await index_runs.drain_index(
        services.outbox,
        services.index_keeper,
        supervisor.run,
        first_event,
        total,
        progress,
        rebuild_vector_index=rebuild_vector_index,
    )
