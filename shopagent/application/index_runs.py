"""Use cases that run the indexing to an end and watch it: `index rebuild` drains the outbox
here, the demo waits until the catalog is indexed before saying it is ready."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import anyio

from shopagent.application.index_status import IndexStatus
from shopagent.application.ports.indexing import IndexRequests
from shopagent.application.vector_index import VectorIndexKeeper
from shopagent.domain.errors import DatabaseError, DatabaseUnavailable

log = logging.getLogger("shopagent.indexing")

Progress = Callable[[int, int], None]
POLL_SECONDS = 0.2


async def reindex_after_model_change(outbox: IndexRequests, model: str) -> int:
    """Queue the products and store pages indexed with another embedding model for `model`
    (the setting was changed): until re-embedded, the search finds them by full text only."""
    queued = await outbox.enqueue_indexed_with_other_models(model)
    if queued:
        log.warning(
            "%d product(s) and store page(s) were indexed with another embedding model; re-indexing them "
            "with %s (until then the search finds them by full text only)",
            queued,
            model,
        )
    return queued


async def drain_index(
    outbox: IndexRequests,
    keeper: VectorIndexKeeper,
    run_indexer: Callable[..., Coroutine[Any, Any, Any]],
    first_event: int,
    total: int,
    progress: Progress,
    *,
    rebuild_vector_index: bool = False,
) -> None:
    """Run the indexer here (`run_indexer`, started with `task_status`, runs until cancelled)
    until the `total` events from `first_event` on are finished, and every older one too, and
    the vector index is built (`rebuild_vector_index`: built anew once they are).

    An older event of a product may outlast the new ones: an indexer that finds the product's
    row busy (another batch is storing it) hands its event back for later. Other indexer
    processes on the same database may take part of the work; that is fine.
    """
    if rebuild_vector_index:
        await keeper.prepare(rebuild=True)
    async with anyio.create_task_group() as tg:
        await tg.start(run_indexer)
        while (finished := await outbox.finished_since(first_event)) < total or (
            await outbox.unfinished_through(first_event + total - 1)
        ):
            progress(min(finished, total - 1), total)
            await anyio.sleep(POLL_SECONDS)  # polled: the work may be another indexer process's
        progress(total, total)
        while keeper.pending and keeper.build_error is None:  # settle here too: the last
            await keeper.settle()  # events may have been another process's
            await anyio.sleep(POLL_SECONDS)
        tg.cancel_scope.cancel()
    if keeper.build_error is not None:
        raise DatabaseError(f"building the vector index failed: {keeper.build_error}")
    if rebuild_vector_index and not await keeper.built_as_configured():
        log.warning(
            "another indexer process built the vector index first, with its own settings: "
            "see `shopagent index status`, and rebuild again once every indexer runs the new ones"
        )


async def wait_until_indexed(
    status: Callable[[], Awaitable[IndexStatus]],
    progress: Progress,
    *,
    poll_seconds: float = 0.5,
    on_outage: Callable[[], None] | None = None,
) -> None:
    """Return once no catalog change waits to be indexed (dead letters aside), reporting
    `progress(products indexed, products)` as it goes; the demo's "ready" waits for this.
    While the database is unavailable it waits for it, like the indexer does (`on_outage` is
    told once per outage)."""
    away = False
    while True:
        try:
            current = await status()
        except DatabaseUnavailable:
            if not away and on_outage is not None:
                on_outage()
            away = True
            await anyio.sleep(poll_seconds)  # polled: the pool probes the database meanwhile
            continue
        away = False
        progress(current.products_indexed, current.products_total)
        if current.pending + current.in_flight == 0:
            return
        await anyio.sleep(poll_seconds)  # polled: the work may be another indexer process's
