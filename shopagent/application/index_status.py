"""The indexing's status, as `shopagent index status` and the admin API report it."""

from __future__ import annotations

from shopagent.application.ports import ChunkStore, IndexStatus, Outbox, VectorIndexAdmin

DEAD_EVENTS_SHOWN = 20


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
