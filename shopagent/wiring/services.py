"""The services a process's actors use, one bundle per capability, built for the roles asked.

Each bundle extends the one below it, because each capability needs the one below: every role
has the core (settings, database, catalog, conversations); a role that embeds text (mcp, the
indexer, a chat app serving its own tools) adds the search; the indexer adds the mailbox and the
indexing use case. `open_services` builds the smallest bundle the actors need; `open_core`,
`open_search` and `open_indexer` build one each, so the type of what they yield says what is
there: nothing optional, nothing to assert.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import secrets
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar

import anyio

from shopagent.adapters.postgres.catalog import PostgresCatalog
from shopagent.adapters.postgres.chunk_store import PostgresChunkStore
from shopagent.adapters.postgres.conversations import PostgresConversations
from shopagent.adapters.postgres.database import GuardedPool, open_pool, session_limits
from shopagent.adapters.postgres.indexing_unit import PostgresIndexingUnitOfWork
from shopagent.adapters.postgres.outbox import LIVE_WORKER_PREFIX, PostgresOutbox
from shopagent.adapters.postgres.rate_limits import PostgresRateLimits
from shopagent.adapters.postgres.search import PostgresSearchIndex
from shopagent.adapters.postgres.search_misses import PostgresSearchMisses
from shopagent.adapters.postgres.store_pages import PostgresStorePages
from shopagent.adapters.postgres.store_passages import PostgresPassageStore
from shopagent.adapters.postgres.vector_index import PostgresVectorIndexAdmin
from shopagent.application.catalog import CatalogService
from shopagent.application.index_runs import reindex_after_model_change
from shopagent.application.index_status import IndexStatus, index_status
from shopagent.application.indexing import IndexProducts
from shopagent.application.insights import UnmetSearchLog
from shopagent.application.leases import Leases
from shopagent.application.ports import EmbeddingModel
from shopagent.application.search import CatalogSearch, keep_search_fresh
from shopagent.application.store_pages import (
    IndexStorePages,
    StoreInformationSearch,
    StorePageService,
    StoreSearchPolicy,
)
from shopagent.application.vector_index import VectorIndexKeeper
from shopagent.domain.errors import DatabaseUnavailable
from shopagent.domain.indexing import OutboxEvent
from shopagent.domain.tools import SEARCH_TOOL, STORE_INFO_TOOL
from shopagent.instrumentation import (
    MeasuredEmbedder,
    index_observers,
    lease_loss_counter,
    mcp_tool_observer,
    pool_source,
    unmet_search_recorder,
    vector_index_source,
)
from shopagent.runtime.mailbox import Mailbox
from shopagent.runtime.metrics import Metrics
from shopagent.runtime.signals import StopRequest
from shopagent.settings import Settings
from shopagent.wiring.database import open_database, prepare_schema
from shopagent.wiring.policies import (
    indexing_policy,
    passage_grading_for,
    search_policy,
    search_tuning,
    store_links,
    text_search_config,
    vector_index_spec,
)
from shopagent.wiring.providers import build_embedder, option_words
from shopagent.wiring.startup import INDEXER_ACTORS, searches_here

if TYPE_CHECKING:  # the MCP stack takes a second to import: only the roles that use it do
    from mcp.server.lowlevel import Server as McpServer

    from shopagent.adapters.mcp.gateway import McpToolGateway

B = TypeVar("B", bound="CoreServices")
log = logging.getLogger("shopagent.search")


@dataclass
class RemoteTools:
    """The chat app's gateway to chat.mcp_url while the app runs (None otherwise); the
    readiness check asks it whether the MCP server answers."""

    gateway: McpToolGateway | None = None


@dataclass(kw_only=True)
class CoreServices:
    """What every role has."""

    settings: Settings
    actors: frozenset[str]
    dsn: str
    pool: GuardedPool
    catalog: CatalogService
    outbox: PostgresOutbox
    chunk_store: PostgresChunkStore
    vector_index: PostgresVectorIndexAdmin
    conversations: PostgresConversations
    rate_limits: PostgresRateLimits
    store_pages: StorePageService
    passages: PostgresPassageStore
    indexing_unit: PostgresIndexingUnitOfWork  # writes chunk or passage sets with their events
    unmet_searches: UnmetSearchLog  # searches that found nothing strong, for the shop owner
    metrics: Metrics  # the process's own registry and instruments
    stop: StopRequest  # the process's stop, for servers that drain
    remote_tools: RemoteTools = field(default_factory=RemoteTools)

    async def index_status(self, model: str) -> IndexStatus:
        return await index_status(self.outbox, self.chunk_store, self.vector_index, model, self.passages)


@dataclass(kw_only=True)
class SearchServices(CoreServices):
    """The core, and the search over the catalog with its embedding model."""

    embedder: EmbeddingModel
    search: CatalogSearch
    store_information: StoreInformationSearch

    @cached_property
    def mcp_server(self) -> McpServer[Any]:
        """The MCP server over this process's search (built on first use)."""
        from shopagent.entrypoints.mcp.server import build_mcp_server

        store = self.settings.store
        return build_mcp_server(
            self.search,
            store.name,
            store.currency,
            observe=mcp_tool_observer(self.metrics),
            store_information=self.store_information,
            on_unmet=unmet_search_recorder(self.metrics, self.unmet_searches, (SEARCH_TOOL, STORE_INFO_TOOL)),
        )


@dataclass(kw_only=True)
class IndexerServices(SearchServices):
    """The search, and the indexer's mailbox, leases, indexing use case and vector index keeper."""

    mailbox: Mailbox[OutboxEvent]
    leases: Leases
    index_keeper: VectorIndexKeeper
    index_product: IndexProducts


def indexer_name() -> str:
    """Whose leases: unique per indexer (a container restarted with the same host name and
    pid 1 must not take its predecessor's leases for its own), at most 63 bytes (it is also
    the application name of the indexer's LISTEN connection)."""
    return f"{LIVE_WORKER_PREFIX}{socket.gethostname()[:24]}/{os.getpid()}/{secrets.token_hex(4)}"


@contextlib.asynccontextmanager
async def open_services(
    settings: Settings,
    actors: frozenset[str],
    *,
    embedder: EmbeddingModel | None = None,
    stop: StopRequest | None = None,
) -> AsyncIterator[CoreServices]:
    """The services the chosen actors need: `IndexerServices` for the indexer actors,
    `SearchServices` for the others that embed text, `CoreServices` otherwise. `embedder`
    replaces the configured model (the caller closes it); `stop` is the process's stop request."""
    async with open_core(settings, actors, stop=stop) as core:
        if not searches_here(settings, actors):
            yield core
            return
        async with open_search(core, embedder=embedder) as searching:
            if not INDEXER_ACTORS & actors:
                yield searching
                return
            async with open_indexer(searching) as indexing:
                yield indexing


@contextlib.asynccontextmanager
async def open_core(
    settings: Settings, actors: frozenset[str], *, stop: StopRequest | None = None
) -> AsyncIterator[CoreServices]:
    """The database (migrated), its pool, and the services every role has."""
    async with open_database(settings) as dsn:
        await prepare_schema(dsn, settings)
        db = settings.database
        async with open_pool(
            dsn,
            min_size=db.pool_min_size,
            max_size=db.pool_max_size,
            connect_timeout=db.connect_timeout_seconds,
            command_timeout=db.command_timeout_seconds,
            server_settings=session_limits(db.lock_timeout_seconds, db.idle_in_transaction_timeout_seconds)
            | {"application_name": pool_connection_name()},
        ) as raw_pool:
            yield core_services(settings, actors, dsn, GuardedPool(raw_pool, dsn), stop or StopRequest())


def pool_connection_name() -> str:
    """What the pool's connections show in `pg_stat_activity.application_name`: which process
    holds a lock or an open transaction (not `indexer/…`: that names live indexers' LISTEN)."""
    return f"shopagent/{socket.gethostname()}/{os.getpid()}"


@contextlib.asynccontextmanager
async def open_search(core: CoreServices, *, embedder: EmbeddingModel | None = None) -> AsyncIterator[SearchServices]:
    """The core and the search, with the configured embedding model (closed on exit) or `embedder`."""
    async with contextlib.AsyncExitStack() as exits:
        model = embedder or await build_embedder(core.settings)
        if embedder is None:  # ours to close
            exits.push_async_callback(model.aclose)
        searching = search_services(core, model)
        async with anyio.create_task_group() as tg:
            tg.start_soon(keep_search_fresh, searching.search, _refresh_failed)
            yield searching
            tg.cancel_scope.cancel()


def _refresh_failed(exc: Exception) -> None:
    if isinstance(exc, DatabaseUnavailable):  # the outage is reported where it is met
        log.debug("search data not refreshed: the database is unavailable")
    else:
        log.error("search data not refreshed: %s", exc, exc_info=exc)


@contextlib.asynccontextmanager
async def open_indexer(searching: SearchServices) -> AsyncIterator[IndexerServices]:
    """The search and the indexer's mailbox (closed on exit), leases and use cases. Products
    indexed with another embedding model than this one are queued for re-indexing first."""
    with Mailbox[OutboxEvent](searching.settings.runtime.mailbox_capacity) as mailbox:
        await reindex_after_model_change(searching.outbox, searching.embedder.model_id)
        yield indexer_services(searching, mailbox)


def core_services(
    settings: Settings, actors: frozenset[str], dsn: str, pool: GuardedPool, stop: StopRequest
) -> CoreServices:
    metrics = Metrics()
    metrics.add_source("database-pool", pool_source(pool))
    chunks = PostgresChunkStore(pool, text_search_config(settings))
    passages = PostgresPassageStore(pool, settings.store.language, text_search_config(settings))
    return CoreServices(
        settings=settings,
        actors=actors,
        dsn=dsn,
        pool=pool,
        catalog=CatalogService(PostgresCatalog(pool), option_words(settings).rules),
        outbox=PostgresOutbox(pool),
        chunk_store=chunks,
        vector_index=PostgresVectorIndexAdmin(pool),
        conversations=PostgresConversations(pool),
        rate_limits=PostgresRateLimits(pool),
        store_pages=StorePageService(PostgresStorePages(pool), settings.store.language),
        passages=passages,
        indexing_unit=PostgresIndexingUnitOfWork(pool, chunks, passages),
        unmet_searches=UnmetSearchLog(PostgresSearchMisses(pool), settings.insights.retention_days),
        metrics=metrics,
        stop=stop,
    )


def search_services(core: CoreServices, model: EmbeddingModel) -> SearchServices:
    s = core.settings
    embedder = MeasuredEmbedder(model, core.metrics)
    index = PostgresSearchIndex(core.pool, text_search_config(s), search_tuning(s))
    policy = search_policy(s, model.model_id)
    search = CatalogSearch(
        embedder, index, core.catalog.repository, core.catalog.rules, policy, store_links(core.settings)
    )
    from shopagent.adapters.local.multilingual import MultilingualEmbedder  # as passage_grading_for does

    multilingual = model.model_id == MultilingualEmbedder.model_id  # reads German and French itself
    store_policy = StoreSearchPolicy(grading=passage_grading_for(model.model_id), read_for_vector=not multilingual)
    store_information = StoreInformationSearch(embedder, core.passages, store_policy, s.store.language)
    return _extend(core, SearchServices, embedder=embedder, search=search, store_information=store_information)


def indexer_services(searching: SearchServices, mailbox: Mailbox[OutboxEvent]) -> IndexerServices:
    s, i = searching.settings, searching.settings.indexer
    outbox, chunks, embedder, metrics = searching.outbox, searching.chunk_store, searching.embedder, searching.metrics
    unit = searching.indexing_unit
    keeper = VectorIndexKeeper(
        searching.vector_index,
        outbox,
        chunks,
        embedder.model_id,
        embedder.dimension,
        vector_index_spec(s),
        bulk_load_events=i.bulk_load_events,
        max_attempts=i.max_attempts,
    )
    metrics.add_source(
        "vector-index", vector_index_source(searching.pool, searching.vector_index, chunks, embedder.model_id)
    )
    leases = Leases(
        outbox,
        lease_seconds=i.lease_seconds,
        max_attempts=i.max_attempts,
        worker=indexer_name(),
        ahead=i.workers * i.claim_batch,  # one batch waiting per worker
        on_lost=lease_loss_counter(metrics),
    )
    indexed, failed = index_observers(metrics)
    index_product = IndexProducts(
        searching.catalog.repository,
        outbox,
        chunks,
        unit,
        embedder,
        indexing_policy(s),
        on_indexed=indexed,
        on_failed=failed,
        on_changed=searching.search.changed,  # this process's searches read the new words soon
        keeper=keeper,
        leases=leases,
        database_back=searching.pool.wait_until_up,
        pages=IndexStorePages(
            searching.store_pages.repository, searching.passages, unit, embedder, indexing_policy(s).token_budget
        ),
    )
    return _extend(
        searching, IndexerServices, mailbox=mailbox, leases=leases, index_keeper=keeper, index_product=index_product
    )


def _extend(base: CoreServices, bundle: type[B], **more: Any) -> B:
    """`base`'s services and `more`, as the larger `bundle`."""
    return bundle(**{f.name: getattr(base, f.name) for f in dataclasses.fields(base)}, **more)
