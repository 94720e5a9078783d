"""The indexing's status, as `shopagent index status` and the admin API report it."""

from __future__ import annotations

from typing import Any

import msgspec

from shopagent.application.ports import ChunkStore, Outbox, VectorIndexAdmin

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
    text_search_config: str = ""  # the configuration full-text documents are written in
    text_documents: dict[str, int] = msgspec.field(default_factory=dict)  # products by configuration


async def index_status(outbox: Outbox, chunks: ChunkStore, vector_index: VectorIndexAdmin, model: str) -> IndexStatus:
    """The outbox's backlog and newest dead letters, the products indexed with `model`, and
    whether its vector index is ready. Read one after the other, not as one snapshot: a
    report for people, who see it change anyway."""
    backlog = await outbox.backlog()
    coverage = await chunks.coverage(model)
    state = await vector_index.state(model)
    dead = await outbox.dead_letters(DEAD_EVENTS_SHOWN)
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
        text_search_config=coverage.text_search_config,
        text_documents=coverage.text_documents,
    )
