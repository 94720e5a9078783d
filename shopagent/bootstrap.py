"""The composition root: the one place that builds services and wires actors to roles."""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
import asyncpg
import msgspec
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from shopagent.actors.embedding_pool import run_embedding_pool
from shopagent.actors.http import run_http
from shopagent.actors.ops import run_ops
from shopagent.actors.outbox_poller import run_outbox_poller
from shopagent.actors.reaper import Sweep, run_reaper
from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.adapters.local.minilm import MiniLMEmbedder
from shopagent.adapters.postgres.catalog import PostgresCatalog
from shopagent.adapters.postgres.chunk_store import PostgresChunkStore
from shopagent.adapters.postgres.conversations import PostgresConversations
from shopagent.adapters.postgres.database import (
    GuardedPool,
    check_pgvector,
    connect,
    ensure_database,
    open_pool,
    redact_dsn,
)
from shopagent.adapters.postgres.embedded import EmbeddedPostgres
from shopagent.adapters.postgres.migrations import Migration, load_migrations, migrate
from shopagent.adapters.postgres.outbox import LIVE_WORKER_PREFIX, PostgresOutbox
from shopagent.adapters.postgres.rate_limits import PostgresRateLimits
from shopagent.adapters.postgres.search import PostgresSearchIndex, SearchTuning
from shopagent.adapters.postgres.vector_index import PostgresVectorIndexAdmin
from shopagent.application.agent import AssistantAgent
from shopagent.application.catalog import CatalogService, import_products
from shopagent.application.conversations import ChatPolicy
from shopagent.application.index_status import IndexStatus, index_status
from shopagent.application.indexing import IndexingPolicy, IndexProducts
from shopagent.application.leases import Leases
from shopagent.application.limits import RateLimit
from shopagent.application.ports import ChatModel, EmbeddingModel, IndexBacklog, VectorIndexSpec
from shopagent.application.prompts import system_prompt
from shopagent.application.search import CatalogSearch, CatalogVocabulary, SearchPolicy
from shopagent.application.vector_index import VectorIndexKeeper
from shopagent.domain.catalog import CatalogRules
from shopagent.domain.errors import ConfigError, DatabaseError, DatabaseUnavailable
from shopagent.domain.indexing import OutboxEvent
from shopagent.domain.ranking import FusionWeights, GradeThresholds
from shopagent.domain.text import OptionWords, fold, text_search_config_for
from shopagent.entrypoints.catalog_files import read_catalog_file
from shopagent.entrypoints.http.admin import admin_routes
from shopagent.entrypoints.http.app import build_http_app
from shopagent.entrypoints.http.chat import TurnGuard, chat_routes
from shopagent.entrypoints.http.openapi import openapi_document
from shopagent.entrypoints.http.ops import (
    ActorHealth,
    DependencyHealth,
    Health,
    IndexingHealth,
    MailboxHealth,
    health_metrics,
)
from shopagent.entrypoints.http.visitors import visitor_routes
from shopagent.entrypoints.http.web import web_routes
from shopagent.instrumentation import (
    MeasuredChatModel,
    MeasuredChatService,
    MeasuredEmbedder,
    MeasuredToolGateway,
    index_observers,
    mcp_tool_observer,
    pool_source,
    vector_index_source,
)
from shopagent.runtime.asgi import check_free, is_loopback
from shopagent.runtime.mailbox import Mailbox
from shopagent.runtime.metrics import Metrics, RequestMetrics, route_templates
from shopagent.runtime.signals import StopRequest, cancel_on_signals
from shopagent.runtime.supervisor import ChildSpec, RestartPolicy, Supervisor
from shopagent.settings import Secret, Settings, describe, resolve_data_dir

if TYPE_CHECKING:  # the MCP stack takes a second to import: only the roles that use it do
    from mcp.server.lowlevel import Server as McpServer

    from shopagent.adapters.local.concierge import LanguageNames, OfflineConcierge
    from shopagent.adapters.mcp.gateway import McpToolGateway

log = logging.getLogger("shopagent")
T = TypeVar("T")

DATABASE_NAME = "shopagent"


def indexer_name() -> str:
    """Whose leases: unique per indexer (a container restarted with the same host name and
    pid 1 must not take its predecessor's leases for its own), at most 63 bytes (it is also
    the application name of the indexer's LISTEN connection)."""
    return f"{LIVE_WORKER_PREFIX}{socket.gethostname()[:24]}/{os.getpid()}/{secrets.token_hex(4)}"


SAMPLE_CATALOG = Path(__file__).parent / "sample_data" / "catalog.json"
INDEXER_ACTORS = frozenset({"embedding-pool", "outbox-poller"})
# Actors that embed text, so need the embedding model (and the search use case).
SEARCH_ACTORS = INDEXER_ACTORS | {"mcp"}
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


CHAT_SIGNING_KEY_MISSING = (
    "the chat API needs SHOPAGENT_AUTH_SECRET (a long random string that signs chat tokens, "
    "e.g. `openssl rand -base64 32`); `shopagent demo` generates one"
)


def preflight(settings: Settings, actors: frozenset[str]) -> None:
    """What start-up would fail on later, found now, before the database starts: missing
    secrets for the roles asked, a provider without its key, a data directory that cannot be
    used, a port in use. Raises ConfigError (or ListenError) with one line saying what to do."""
    secrets, chat = settings.secrets, settings.chat
    if "http" in actors and secrets.auth_secret is None:
        raise ConfigError(CHAT_SIGNING_KEY_MISSING)
    if "http" in actors and chat.provider == "gemini" and secrets.gemini_api_key is None:
        raise ConfigError("chat.provider = 'gemini' needs the GEMINI_API_KEY environment variable")
    needs_embedder = bool(SEARCH_ACTORS & actors) or ("http" in actors and not chat.mcp_url)
    if needs_embedder and settings.embedding.model == "gemini" and secrets.gemini_api_key is None:
        raise ConfigError("embedding.model = 'gemini' needs the GEMINI_API_KEY environment variable")
    if "mcp" in actors and secrets.mcp_api_key is None and not is_loopback(settings.mcp.host):
        raise ConfigError(
            f"refusing to serve MCP on {settings.mcp.host} without a key; set SHOPAGENT_MCP_API_KEY "
            "(or listen on 127.0.0.1)"
        )
    if secrets.database_url is None:
        check_data_dir(resolve_data_dir(settings))
    servers = {"ops": settings.ops, "http": settings.http, "mcp": settings.mcp}
    for name, server in servers.items():
        if name in actors:
            check_free(server.host, server.port, what=name)


CONTAINER_MARKERS = (Path("/.dockerenv"), Path("/run/.containerenv"))  # made by Docker and by podman


def check_data_dir(path: Path, *, in_container: bool | None = None) -> None:
    """The data directory exists (or can be made) and can be written, or a ConfigError says
    how to fix it (in a container, where the folder is likely a host folder mounted there, how
    to fix it on the host)."""
    hint = "set SHOPAGENT_DATA_DIR to a writable directory, or give this one to the user shopagent runs as"
    if path.exists() and not path.is_dir():
        raise ConfigError(f"the data directory {path} is not a directory; {hint}")
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".write-check-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        uid = os.geteuid()
        if in_container is None:
            in_container = any(marker.exists() for marker in CONTAINER_MARKERS)
        fix = (
            f"a host folder mounted on {path} must belong to user id {uid}: on the host, "
            f"`sudo chown -R {uid} <the host folder>`; or mount a named volume instead"
            if in_container
            else f"e.g. `chown -R {uid} {path}`"
        )
        raise ConfigError(
            f"the data directory {path} cannot be written ({exc.strerror or exc}; user id {uid}); {hint} ({fix})"
        ) from None


async def preflight_mcp(settings: Settings, actors: frozenset[str]) -> None:
    """A chat role with chat.mcp_url: can the MCP server be reached with the key? (one line if not)"""
    if "http" not in actors or not settings.chat.mcp_url:
        return
    from shopagent.adapters.mcp.gateway import open_over_http

    key = settings.secrets.mcp_api_key.reveal() if settings.secrets.mcp_api_key else None
    async with open_over_http(settings.chat.mcp_url, key, timeout=settings.database.connect_timeout_seconds):
        pass


@dataclass
class Services:
    settings: Settings
    dsn: str
    pool: GuardedPool
    catalog: CatalogService
    outbox: PostgresOutbox
    chunk_store: PostgresChunkStore
    vector_index: PostgresVectorIndexAdmin
    mailbox: Mailbox[OutboxEvent] | None = None
    embedder: EmbeddingModel | None = None
    index_product: IndexProducts | None = None
    index_keeper: VectorIndexKeeper | None = None
    leases: Leases | None = None
    search: CatalogSearch | None = None
    _mcp_server: McpServer[Any] | None = None
    actors: frozenset[str] = frozenset()
    remote_tools: McpToolGateway | None = None  # the chat app's gateway to chat.mcp_url, while it runs
    stop: StopRequest = field(default_factory=StopRequest)  # the process's stop, for servers that drain
    metrics: Metrics = field(default_factory=Metrics)  # the process's own registry and instruments

    @property
    def mcp_server(self) -> McpServer[Any] | None:
        """The MCP server over this process's search (built on first use), if it has one."""
        if self._mcp_server is None and self.search is not None:
            from shopagent.entrypoints.mcp.server import build_mcp_server

            store = self.settings.store
            self._mcp_server = build_mcp_server(
                self.search, store.name, store.currency, observe=mcp_tool_observer(self.metrics)
            )
        return self._mcp_server

    async def index_status(self, model: str) -> IndexStatus:
        return await index_status(self.outbox, self.chunk_store, self.vector_index, model)


def catalog_rules(settings: Settings) -> CatalogRules:
    c = settings.catalog
    return CatalogRules.create(settings.store.currency, c.colors, c.sizes, c.color_aliases)


async def build_embedder(settings: Settings) -> EmbeddingModel:
    """The configured embedding model, loaded and ready."""
    e = settings.embedding
    if e.model == "local":
        return await MiniLMEmbedder.load()
    if e.model == "hash":
        return HashEmbedder(e.hash_dimensions)
    if settings.secrets.gemini_api_key is None:
        raise ConfigError("embedding.model = 'gemini' needs the GEMINI_API_KEY environment variable")
    from shopagent.adapters.gemini.embeddings import GeminiEmbedder  # its SDK is large: only when used

    return GeminiEmbedder(
        settings.secrets.gemini_api_key.reveal(),
        model=e.gemini_model,
        dimensions=e.gemini_dimensions,
        timeout_seconds=e.gemini_timeout_seconds,
    )


def indexing_policy(settings: Settings) -> IndexingPolicy:
    i, e = settings.indexer, settings.embedding
    return IndexingPolicy(
        token_budget=e.chunk_token_budget,
        batch_size=e.batch_size,
        max_attempts=i.max_attempts,
        backoff_seconds=i.retry_backoff_seconds,
        backoff_max_seconds=i.retry_backoff_max_seconds,
    )


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


@contextlib.asynccontextmanager
async def open_services(
    settings: Settings, actors: frozenset[str], *, embedder: EmbeddingModel | None = None
) -> AsyncIterator[Services]:
    """Database (migrated), pool and the services the chosen actors need."""
    rules = catalog_rules(settings)
    async with contextlib.AsyncExitStack() as exits, open_database(settings) as dsn:
        await prepare_schema(dsn, settings)
        db = settings.database
        async with open_pool(
            dsn,
            min_size=db.pool_min_size,
            max_size=db.pool_max_size,
            connect_timeout=db.connect_timeout_seconds,
            command_timeout=db.command_timeout_seconds,
        ) as raw_pool:
            pool = GuardedPool(raw_pool, dsn)
            repository = PostgresCatalog(pool)
            services = Services(
                settings=settings,
                dsn=dsn,
                pool=pool,
                catalog=CatalogService(repository, rules),
                outbox=PostgresOutbox(pool),
                chunk_store=PostgresChunkStore(pool, text_search_config(settings)),
                vector_index=PostgresVectorIndexAdmin(pool),
                actors=actors,
            )
            services.metrics.add_source("database-pool", pool_source(pool))
            in_process_tools = "http" in actors and not settings.chat.mcp_url
            if SEARCH_ACTORS & actors or in_process_tools:
                given = embedder or await build_embedder(settings)
                if embedder is None:  # ours to close
                    exits.push_async_callback(given.aclose)
                services.embedder = MeasuredEmbedder(given, services.metrics)
                services.search = CatalogSearch(
                    services.embedder,
                    PostgresSearchIndex(pool, text_search_config(settings), search_tuning(settings)),
                    repository,
                    rules,
                    search_policy(settings),
                )
            if INDEXER_ACTORS & actors:
                assert services.embedder is not None
                services.index_keeper = vector_index_keeper(settings, services, services.embedder)
                i = settings.indexer
                services.metrics.add_source(
                    "vector-index",
                    vector_index_source(pool, services.vector_index, services.chunk_store, services.embedder.model_id),
                )
                indexed, failed = index_observers(services.metrics)
                services.leases = Leases(
                    services.outbox,
                    lease_seconds=i.lease_seconds,
                    max_attempts=i.max_attempts,
                    worker=indexer_name(),
                    ahead=i.workers * i.claim_batch,  # one batch waiting per worker
                )
                services.index_product = IndexProducts(
                    repository,
                    services.outbox,
                    services.chunk_store,
                    services.embedder,
                    indexing_policy(settings),
                    on_indexed=indexed,
                    on_failed=failed,
                    keeper=services.index_keeper,
                    leases=services.leases,
                    database_back=pool.wait_until_up,
                )
                services.mailbox = exits.enter_context(Mailbox[OutboxEvent](settings.runtime.mailbox_capacity))
            yield services


def vector_index_keeper(settings: Settings, services: Services, embedder: EmbeddingModel) -> VectorIndexKeeper:
    return VectorIndexKeeper(
        services.vector_index,
        services.outbox,
        services.chunk_store,
        embedder.model_id,
        embedder.dimension,
        VectorIndexSpec(
            m=settings.search.hnsw_m,
            ef_construction=settings.search.hnsw_ef_construction,
            build_memory_mb=settings.indexer.index_build_memory_mb,
        ),
        bulk_load_events=settings.indexer.bulk_load_events,
        max_attempts=settings.indexer.max_attempts,
    )


def text_search_config(settings: Settings) -> str:
    """`search.text_search_config`, or the one of the store language when it is empty."""
    return settings.search.text_search_config or text_search_config_for(settings.store.language)


async def check_text_search_config(conn: asyncpg.Connection, name: str) -> None:
    available = [r["cfgname"] for r in await conn.fetch("SELECT cfgname FROM pg_ts_config ORDER BY 1")]
    if name not in available:
        raise ConfigError(
            f"search.text_search_config {name!r} is not a text search configuration of this PostgreSQL; "
            f"use one of: {', '.join(available)}"
        )


def search_policy(settings: Settings) -> SearchPolicy:
    s = settings.search
    return SearchPolicy(
        weights=FusionWeights(vector=s.vector_weight, lexical=s.lexical_weight, k=s.fusion_k),
        grades=GradeThresholds(
            strong_distance=s.strong_distance,
            title_distance=s.title_distance,
            partial_distance=s.partial_distance,
            strong_coverage=s.strong_title_share,
        ),
        depth=s.candidates_per_leg,
        vocabulary_refresh_seconds=s.vocabulary_refresh_seconds,
    )


def search_tuning(settings: Settings) -> SearchTuning:
    s = settings.search
    return SearchTuning(
        ef_search=s.ef_search, max_scan_tuples=s.max_scan_tuples, exact_below_products=s.exact_below_products
    )


def roster_for(
    actors: frozenset[str], services: Services, health: Callable[[], Awaitable[Health]] | None = None
) -> list[ChildSpec]:
    """The child specs for the chosen actors, in start order."""
    s = services.settings
    factories: dict[str, Callable[[], ChildSpec]] = {
        "ops": lambda: ChildSpec(
            "ops", partial(run_ops, s, _need_value(health, "a health report"), metrics=services.metrics)
        ),
        "embedding-pool": lambda: ChildSpec(
            "embedding-pool",
            partial(
                run_embedding_pool,
                _mailbox(services),
                _indexer(services),
                workers=s.indexer.workers,
                batch=s.indexer.claim_batch,
                prepare=_keeper(services).prepare,
                maintain=_keeper(services).maintain,
            ),
        ),
        "outbox-poller": lambda: ChildSpec(
            "outbox-poller",
            partial(
                run_outbox_poller,
                services.pool,
                _mailbox(services),
                _need_value(services.leases, "the leases"),
                batch=s.indexer.claim_batch,
                poll_interval_seconds=s.indexer.poll_interval_seconds,
            ),
        ),
        "mcp": lambda: ChildSpec(
            "mcp",
            partial(
                _run_mcp,
                s,
                _need_value(services.mcp_server, "the MCP server"),
                limit=RateLimit(PostgresRateLimits(services.pool), s.mcp.rate_per_minute, s.mcp.rate_burst),
                metrics=services.metrics,
            ),
        ),
        "http": lambda: ChildSpec("http", partial(run_http, s, partial(build_public_app, services))),
        "reaper": lambda: ChildSpec(
            "reaper", partial(run_reaper, _sweeps(services), interval_seconds=s.reaper.interval_seconds)
        ),
    }
    return [factories[name]() for name in START_ORDER if name in actors]


def embedding_model_id(settings: Settings) -> str:
    """The id the configured model records on chunks, known without loading the model."""
    e = settings.embedding
    if e.model == "local":
        return MiniLMEmbedder.model_id
    if e.model == "hash":
        return f"hash-{e.hash_dimensions}"
    return f"{e.gemini_model}@{e.gemini_dimensions}"


def build_public_app(services: Services, chat_model: ChatModel | None = None) -> Starlette:
    """The public HTTP app: chat and conversations, admin, OpenAPI. Needs the auth secret.

    `chat_model` replaces the configured one (tests and benchmarks).
    """
    s = services.settings
    if s.secrets.auth_secret is None:
        raise ConfigError(CHAT_SIGNING_KEY_MISSING)
    admin_key = s.secrets.admin_api_key.reveal() if s.secrets.admin_api_key else None
    running: dict[str, Any] = {}
    guard = TurnGuard()

    async def end_turns_in_time() -> None:
        """On a stop: refuse new turns at once, and end those still running a second before
        the grace period is over, so that each gets its answer (503) before the server closes."""
        await services.stop.requested.wait()
        guard.close()
        grace = s.runtime.shutdown_grace_seconds
        assert services.stop.at is not None
        await anyio.sleep_until(services.stop.at + max(grace - 1.0, grace / 2))
        if guard.running:
            log.warning("ending %d chat turn(s) still running at the end of the grace period", guard.running)
        guard.end_all()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with open_agent(services, chat_model) as agent, anyio.create_task_group() as turns:
            conversations = PostgresConversations(services.pool)
            running["chat"] = MeasuredChatService(conversations, agent, chat_policy(s), metrics=services.metrics)
            running["spawn"] = turns.start_soon
            watching = anyio.CancelScope()
            turns.start_soon(_run_in, watching, end_turns_in_time)
            yield
            watching.cancel()
            guard.close()
            guard.end_all()  # turns the client left (an event stream it dropped) end here too

    def spawn(function: Callable[..., Awaitable[None]], *args: Any) -> None:
        running["spawn"](function, *args)

    limits = PostgresRateLimits(services.pool)
    limiter = RateLimit(limits, s.chat.rate_per_minute, s.chat.rate_burst, what="messages")
    admin_limit = RateLimit(limits, s.admin.rate_per_minute, s.admin.rate_burst)
    visitor_limit = RateLimit(limits, s.http.anonymous_rate_per_minute, s.http.anonymous_rate_burst, "visitor tokens")

    async def openapi(request: Request) -> JSONResponse:
        return JSONResponse(document)

    routes = [
        *chat_routes(
            lambda: running["chat"],
            s.secrets.auth_secret.reveal(),
            limiter,
            spawn,
            audit_result_chars=s.chat.audit_result_chars,
            token_max_ttl_seconds=s.chat.token_max_ttl_seconds,
            sse_ping_seconds=s.chat.sse_ping_seconds,
            guard=guard,
        ),
        *admin_routes(services.catalog, partial(services.index_status, embedding_model_id(s)), admin_key, admin_limit),
        *visitor_routes(
            s.secrets.auth_secret.reveal(),
            visitor_limit,
            enabled=s.http.anonymous_chat,
            ttl_seconds=min(s.http.anonymous_token_ttl_seconds, s.chat.token_max_ttl_seconds),
        ),
        Route("/openapi.json", openapi, methods=["GET"]),
        *web_routes(s.store.name),
    ]
    document = openapi_document(s.store.name, routes)
    app = build_http_app(s.store.name, routes, lifespan=lifespan, cors_origins=s.http.cors_origins)
    route_of = route_templates(lambda: app.router.routes)
    app.add_middleware(RequestMetrics, metrics=services.metrics, server="http", route_of=route_of)
    return app


async def _run_mcp(*args: Any, **kwargs: Any) -> None:
    from shopagent.actors.mcp import run_mcp

    await run_mcp(*args, **kwargs)


async def _run_in(scope: anyio.CancelScope, function: Callable[[], Awaitable[None]]) -> None:
    with scope:
        await function()


def vocabulary_source(services: Services) -> Callable[[], Awaitable[Any]]:
    """The catalog's words: the search's own copy in this process, else read from the index."""
    if services.search is not None:
        return services.search.vocabulary
    s = services.settings
    index = PostgresSearchIndex(services.pool, text_search_config(s), search_tuning(s))
    return CatalogVocabulary(index, s.search.vocabulary_refresh_seconds)


def chat_policy(settings: Settings) -> ChatPolicy:
    c = settings.chat
    return ChatPolicy(
        context_policy=c.context_policy,
        context_token_budget=c.context_token_budget,
        turn_timeout_seconds=c.turn_timeout_seconds,
    )


def _need_value(value: T | None, what: str) -> T:
    assert value is not None, f"{what} was not built for these actors"
    return value


def _mailbox(services: Services) -> Mailbox[OutboxEvent]:
    assert services.mailbox is not None, "the indexer actors need the mailbox"
    return services.mailbox


def _indexer(services: Services) -> IndexProducts:
    assert services.index_product is not None, "the indexer actors need the indexing use case"
    return services.index_product


def _keeper(services: Services) -> VectorIndexKeeper:
    assert services.index_keeper is not None, "the indexer actors need the vector index keeper"
    return services.index_keeper


def _sweeps(services: Services) -> list[Sweep]:
    settings = services.settings
    conversations = PostgresConversations(services.pool)

    async def stuck_conversations() -> int:
        released = await conversations.release_stuck(settings.reaper.stuck_after_seconds)
        for conversation_id in released:
            log.warning("released conversation %s: its turn ran longer than %.0fs", conversation_id,
                        settings.reaper.stuck_after_seconds)  # fmt: skip
        return len(released)

    return [
        Sweep("expired-leases", partial(services.outbox.release_expired_leases, settings.indexer.max_attempts)),
        Sweep("stuck-conversations", stuck_conversations),
        Sweep("idle-rate-limits", PostgresRateLimits(services.pool).forget_idle),
    ]


def restart_policy(settings: Settings) -> RestartPolicy:
    r = settings.runtime
    return RestartPolicy(
        max_restarts=r.restart_max,
        within_seconds=r.restart_window_seconds,
        backoff_seconds=r.restart_backoff_seconds,
        backoff_max_seconds=r.restart_backoff_max_seconds,
    )


async def health_of(
    supervisor: Supervisor,
    mailbox: Mailbox[Any] | None,
    scrub: Callable[[str], str],
    dependencies: Sequence[Callable[[], Awaitable[DependencyHealth]]] = (),
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


def dependency_checks(services: Services) -> list[Callable[[], Awaitable[DependencyHealth]]]:
    """What this process's readiness depends on besides its actors: the database (required),
    and in a chat role with chat.mcp_url, the MCP server (optional: while it is away, turns
    are answered without the catalog tools, saying so)."""

    async def database() -> DependencyHealth:
        if await services.pool.check():
            return DependencyHealth("database", "up", required=True)
        return DependencyHealth("database", "down", required=True, detail=services.pool.reason)

    async def mcp() -> DependencyHealth:
        gateway = services.remote_tools
        if gateway is None:  # the chat app has not started (or has stopped) its gateway
            return DependencyHealth("mcp", "down", required=False, detail="not connected")
        if await gateway.check():
            return DependencyHealth("mcp", "up", required=False)
        return DependencyHealth("mcp", "down", required=False, detail=gateway.last_error)

    checks = [database]
    if services.settings.chat.mcp_url and "http" in services.actors:
        checks.append(mcp)
    return checks


async def serve(
    settings: Settings,
    actors: frozenset[str],
    *,
    scrub: Callable[[str], str] = str,
    prepare: Callable[[Services], Awaitable[None]] | None = None,
    on_ready: Callable[[Services], Awaitable[None]] | None = None,
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
                services.stop = stop
                if prepare is not None:
                    await prepare(services)
                supervisor: Supervisor | None = None

                checks = dependency_checks(services)

                async def health() -> Health:
                    assert supervisor is not None
                    backlog = services.outbox.backlog if INDEXER_ACTORS & actors else None
                    return await health_of(supervisor, services.mailbox, scrub, checks, backlog)

                services.metrics.add_source("health", partial(health_metrics, health))

                supervisor = Supervisor(roster_for(actors, services, health), restart_policy(settings))
                async with anyio.create_task_group() as tg:
                    await tg.start(supervisor.run)
                    if on_ready is not None:
                        await on_ready(services)
        outer.cancel_scope.cancel()
    if stop.signal is not None:
        log.info("stopped after %s", stop.signal.name)


async def drain_index(
    services: Services,
    first_event: int,
    total: int,
    progress: Callable[[int, int], None],
    *,
    rebuild_vector_index: bool = False,
) -> None:
    """Run the indexer actors here until the `total` events from `first_event` on are finished
    and the vector index is built (`rebuild_vector_index`: built anew once they are).

    Other indexer processes on the same database may take part of the work; that is fine.
    """
    keeper = _keeper(services)
    if rebuild_vector_index:
        await keeper.prepare(rebuild=True)
    supervisor = Supervisor(roster_for(INDEXER_ACTORS, services), restart_policy(services.settings))
    async with anyio.create_task_group() as tg:
        await tg.start(supervisor.run)
        while (finished := await services.outbox.finished_since(first_event)) < total:
            progress(finished, total)
            await anyio.sleep(0.2)
        progress(total, total)
        while keeper.pending and keeper.build_error is None:  # settle here too: the last
            await keeper.settle()  # events may have been another process's
            await anyio.sleep(0.2)
        tg.cancel_scope.cancel()
    if keeper.build_error is not None:
        raise DatabaseError(f"building the vector index failed: {keeper.build_error}")
    if rebuild_vector_index and not await keeper.built_as_configured():
        log.warning(
            "another indexer process built the vector index first, with its own settings: "
            "see `shopagent index status`, and rebuild again once every indexer runs the new ones"
        )


DEMO_SECRETS = ("admin_api_key", "mcp_api_key", "auth_secret")
GENERATED_SECRETS_FILE = "generated-secrets.json"  # `run` with runtime.generate_secrets


def with_demo_secrets(settings: Settings, file_name: str = "demo-secrets.json") -> Settings:
    """Fill the keys that the environment does not set from `<data dir>/<file_name>`,
    generating them once (file mode 0600)."""
    path = resolve_data_dir(settings) / file_name
    stored: dict[str, str] = {}
    if path.exists():
        stored = msgspec.json.decode(path.read_bytes(), type=dict[str, str])
    missing = [name for name in DEMO_SECRETS if name not in stored]
    if missing:
        stored |= {name: secrets.token_urlsafe(24) for name in missing}
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as file:
            file.write(msgspec.json.format(msgspec.json.encode(stored)))
    current = settings.secrets
    filled = {name: getattr(current, name) or Secret(stored[name]) for name in DEMO_SECRETS}
    return msgspec.structs.replace(settings, secrets=msgspec.structs.replace(current, **filled))


def demo_secret(settings: Settings, name: str) -> Secret | None:
    """A secret `shopagent demo` (or `run` with runtime.generate_secrets) generated earlier in
    this data directory, if any."""
    for file_name in ("demo-secrets.json", GENERATED_SECRETS_FILE):
        path = resolve_data_dir(settings) / file_name
        if path.exists():
            value = msgspec.json.decode(path.read_bytes(), type=dict[str, str]).get(name)
            if value:
                return Secret(value)
    return None


async def wait_until_indexed(services: Services, progress: Callable[[int, int], None]) -> None:
    """Return once no catalog change waits to be indexed (dead letters aside), reporting
    `progress(products indexed, products)` as it goes; the demo's "ready" waits for this."""
    model = embedding_model_id(services.settings)
    while True:
        status = await services.index_status(model)
        progress(status.products_indexed, status.products_total)
        if status.pending + status.in_flight == 0:
            return
        await anyio.sleep(0.5)  # polled: the work may be another indexer process's


async def import_sample_catalog_if_empty(services: Services) -> None:
    if await services.catalog.repository.count() > 0:
        return
    items = read_catalog_file(SAMPLE_CATALOG)
    summary = await import_products(services.catalog, items)
    log.info("imported the sample catalog: %d products", summary.created)
    if summary.rejected:
        log.warning("sample catalog: %d product(s) rejected: %s", len(summary.rejected), summary.rejected[:3])


def build_chat_model(settings: Settings, vocabulary: Callable[[], Awaitable[Any]] | None = None) -> ChatModel:
    """The configured chat model (the offline concierge unless a provider is set up).

    `vocabulary` gives the catalog's words (`Vocabulary`), which the concierge uses to tell
    shopping from off-topic requests.
    """
    chat, secrets = settings.chat, settings.secrets
    provider = chat_provider(settings)
    if provider == "gemini":
        if secrets.gemini_api_key is None:
            raise ConfigError("chat.provider = 'gemini' needs the GEMINI_API_KEY environment variable")
        from shopagent.adapters.gemini.chat import GeminiChatModel

        return GeminiChatModel(secrets.gemini_api_key.reveal(), model=chat.gemini_model)
    if provider == "openai":
        from shopagent.adapters.openai_compat.chat import OpenAICompatChatModel

        key = secrets.openai_api_key.reveal() if secrets.openai_api_key else None
        return OpenAICompatChatModel(chat.openai_base_url, chat.openai_model, api_key=key)
    return build_concierge(settings, vocabulary)


def chat_provider(settings: Settings) -> str:
    """The chat provider in use: chat.provider, with "auto" resolved."""
    if settings.chat.provider == "auto":
        return "gemini" if settings.secrets.gemini_api_key is not None else "offline"
    return settings.chat.provider


def build_concierge(settings: Settings, vocabulary: Callable[[], Awaitable[Any]] | None = None) -> OfflineConcierge:
    from shopagent.adapters.local.concierge import OfflineConcierge, replies_for  # chat roles only

    language = settings.store.language
    replies = replies_for(language)
    if replies is None:
        log.info("the offline assistant has no replies in %r; it answers in English", language)
    return OfflineConcierge(
        catalog_rules(settings),
        settings.store.name,
        language=language.split("-")[0].casefold(),
        names=language_names(settings),
        vocabulary=vocabulary,
        **({"replies": replies} if replies is not None else {}),
    )


def language_names(settings: Settings) -> dict[str, LanguageNames]:
    """Each language's words for the catalog's colours and sizes: the built-in German and
    French colour names, then [catalog.language_aliases], whose targets must exist."""
    from shopagent.adapters.local.concierge import LanguageNames
    from shopagent.adapters.local.concierge.phrases import BUILTIN_COLOR_NAMES, BUILTIN_SIZE_NAMES

    rules = catalog_rules(settings)
    names: dict[str, LanguageNames] = {}
    for language in {*BUILTIN_COLOR_NAMES, *BUILTIN_SIZE_NAMES, *settings.catalog.language_aliases}:
        configured = settings.catalog.language_aliases.get(language)
        colors = dict(BUILTIN_COLOR_NAMES.get(language, {}))
        sizes = dict(BUILTIN_SIZE_NAMES.get(language, {}))
        if configured is not None:
            for word, target in configured.colors.items():
                if rules.color(target) is None:
                    raise ConfigError(
                        f"catalog.language_aliases.{language}.colors: {word!r} points to {target!r}, "
                        f"which is not one of catalog.colors"
                    )
            for word, target in configured.sizes.items():
                if rules.size(target) is None:
                    raise ConfigError(
                        f"catalog.language_aliases.{language}.sizes: {word!r} points to {target!r}, "
                        f"which is not one of catalog.sizes"
                    )
            # The shop's own words first: they are how its colours are written in that language.
            colors = {**configured.colors, **{k: v for k, v in colors.items() if k not in configured.colors}}
            sizes = {**configured.sizes, **sizes}
        names[language] = LanguageNames(colors=colors, sizes=sizes)
    return names


def option_words(settings: Settings) -> OptionWords:
    """How shop exports may write the catalog's colours and sizes: every language's names for them."""
    names = language_names(settings).values()
    return OptionWords(
        catalog_rules(settings),
        colors={fold(word): color for language in names for word, color in language.colors.items()},
        sizes={fold(word): size for language in names for word, size in language.sizes.items()},
    )


@contextlib.asynccontextmanager
async def open_tool_gateway(services: Services) -> AsyncIterator[McpToolGateway]:
    """The agent's tools: the MCP server at chat.mcp_url, else this process's own, in memory."""
    from shopagent.adapters.mcp.gateway import open_in_process, open_over_http

    settings = services.settings
    if settings.chat.mcp_url:
        key = settings.secrets.mcp_api_key.reveal() if settings.secrets.mcp_api_key else None
        async with open_over_http(settings.chat.mcp_url, key) as gateway:
            services.remote_tools = gateway
            try:
                yield gateway
            finally:
                services.remote_tools = None
        return
    async with open_in_process(_need_value(services.mcp_server, "the in-process MCP server")) as gateway:
        yield gateway


@contextlib.asynccontextmanager
async def open_agent(services: Services, model: ChatModel | None = None) -> AsyncIterator[AssistantAgent]:
    """The assistant with the configured (or given) model and tools; both are closed on exit."""
    settings = services.settings
    provider = chat_provider(settings) if model is None else "custom"  # a model given by a test or benchmark
    model = MeasuredChatModel(
        model or build_chat_model(settings, vocabulary_source(services)), services.metrics, provider
    )
    try:
        async with open_tool_gateway(services) as gateway:
            tools = MeasuredToolGateway(gateway, services.metrics)
            store = settings.store
            prompt = system_prompt(store.name, store.currency, store.country, store.language)
            yield AssistantAgent(
                model, tools, prompt, max_steps=settings.chat.max_steps, temperature=settings.chat.temperature
            )
    finally:
        with anyio.CancelScope(shield=True):
            await model.aclose()
