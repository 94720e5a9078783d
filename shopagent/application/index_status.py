"""The indexing's status, as `shopagent index status` and the admin API report it."""

from __future__ import annotations

from typing import Any, Protocol

import msgspec

from shopagent.application.ports.indexing import ChunkStore, Outbox, VectorIndexAdmin
from shopagent.domain.store_pages import PageCoverage

DEAD_EVENTS_SHOWN = 20


class IndexStatus(msgspec.Struct, frozen=True, rename="camel"):
    model: str
    pending: int
    in_flight: int
    dead: int
    products_indexed: int
    products_total: int
    dead_events: list[dict[str, Any]]
    vector_index_ready: bool = False  # False: searches scan the model's chunks until it is built
    vector_index_settings: str | None = None  # how the ready index was built, "m=16, ef_construction=64"
    vector_index_build: str | None = None  # a build in progress: its phase and how far it is
    text_search_config: str = ""  # the configuration full-text documents are written in
    text_documents: dict[str, int] = msgspec.field(default_factory=dict)  # products by configuration
    store_pages_indexed: int = 0  # store pages whose passages come from the model
    store_pages_total: int = 0


class PageCounts(Protocol):
    async def coverage(self, model: str) -> PageCoverage: ...


async def index_status(
    outbox: Outbox, chunks: ChunkStore, vector_index: VectorIndexAdmin, model: str, pages: PageCounts | None = None
) -> IndexStatus:
    """The outbox's backlog and newest dead letters, the products indexed with `model`, and
    whether its vector index is ready. Read one after the other, not as one snapshot: a
    report for people, who see it change anyway."""
    backlog = await outbox.backlog()
    coverage = await chunks.coverage(model)
    state = await vector_index.state(model)
    dead = await outbox.dead_letters(DEAD_EVENTS_SHOWN)
    page_coverage = await pages.coverage(model) if pages is not None else PageCoverage(0, 0)
    return IndexStatus(
        model=model,
        pending=backlog.pending,
        in_flight=backlog.in_flight,
        dead=backlog.dead,
        products_indexed=coverage.products_indexed,
        products_total=coverage.products_total,
        dead_events=dead,
        vector_index_ready=state.ready,
        vector_index_settings=state.settings,
        vector_index_build=state.building,
        text_search_config=coverage.text_search_config,
        text_documents=coverage.text_documents,
        store_pages_indexed=page_coverage.pages_indexed,
        store_pages_total=page_coverage.pages_total,
    )
