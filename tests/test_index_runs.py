"""`index rebuild`'s drain: it ends once its own events are finished and every older one too
(over the in-memory twins: the rule is the use case's, not the SQL's)."""

from __future__ import annotations

import anyio
import pytest

from shopagent.application.index_runs import drain_index
from shopagent.application.vector_index import VectorIndexKeeper
from shopagent.domain.indexing import VectorIndexSpec
from tests.factories import product_input
from tests.twin_services import twin_services

pytestmark = pytest.mark.anyio


async def test_the_drain_waits_for_an_older_event_in_flight_as_well_as_its_own():
    services = twin_services()
    storage, outbox = services.storage, services.outbox
    for n in range(2):
        await services.catalog.create_product(product_input(f"boot-{n}"))
    # An older event is in flight (the batch storing it was handed the product's row busy,
    # say) while the rebuild's own events are finished.
    older = await outbox.claim(1, 60, 5, "another batch")
    total, first = await outbox.enqueue_all()
    own_done, looked_again, release = anyio.Event(), anyio.Event(), anyio.Event()

    async def run_indexer(*, task_status=anyio.TASK_STATUS_IGNORED) -> None:
        task_status.started()
        outbox.complete(await outbox.claim(10, 60, 5, "rebuild"))
        own_done.set()
        await release.wait()
        outbox.complete(older)
        await anyio.sleep_forever()

    def progress(finished: int, of: int) -> None:
        if own_done.is_set():
            looked_again.set()  # the drain went round once more after its own were done

    keeper = VectorIndexKeeper(
        storage.vector_index, outbox, storage.chunks, "hash-384", 384, VectorIndexSpec(),
        bulk_load_events=0, max_attempts=5,
    )  # fmt: skip
    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:

            async def drain() -> None:
                await drain_index(outbox, keeper, run_indexer, first, total, progress)
                tg.cancel_scope.cancel()

            tg.start_soon(drain)
            await looked_again.wait()
            assert await outbox.finished_since(first) == total
            assert await outbox.unfinished_through(first + total - 1) == 1  # still draining
            release.set()
    assert await outbox.unfinished_through(first + total - 1) == 0
