"""The indexing pipeline against the real PostgreSQL, with the hash embedder."""

from __future__ import annotations

from decimal import Decimal
from functools import partial

import anyio
import asyncpg
import msgspec
import pytest

from shopagent.actors.embedding_pool import run_embedding_pool
from shopagent.actors.outbox_poller import run_outbox_poller
from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.adapters.postgres.vector_index import _VECTOR_INDEX_LOCK, vector_index_name
from shopagent.application.indexing import IndexingPolicy, IndexProducts
from shopagent.application.leases import Leases
from shopagent.application.ports import SaveOutcome, VectorIndexSpec
from shopagent.application.vector_index import VectorIndexKeeper
from shopagent.bootstrap import roster_for
from shopagent.domain.catalog import ProductPatch, VariationInput
from shopagent.domain.errors import EmbeddingError
from shopagent.domain.indexing import OutboxEvent, chunk_product
from shopagent.runtime.mailbox import Mailbox
from shopagent.runtime.supervisor import Supervisor
from shopagent.settings import SearchSettings
from shopagent.wiring.services import open_services
from shopagent.wiring.startup import INDEXER_ACTORS
from tests.factories import product_input
from tests.helpers import eventually

pytestmark = pytest.mark.anyio


async def chunks_of(services, product_id: int) -> list[tuple[int, str, str]]:
    async with services.pool.acquire() as conn:
        rows = await conn.fetch(
            "SELECT ordinal, model, content FROM product_chunk WHERE product_id = $1 ORDER BY ordinal", product_id
        )
    return [(r["ordinal"], r["model"], r["content"]) for r in rows]


async def process_all(services, worker: str = "test", lease: float = 60) -> list[SaveOutcome | None]:
    """Claim and process every due event, the way the pipeline does, one at a time."""
    outcomes = []
    while events := await services.outbox.claim(50, lease, 5, worker):
        for event in events:
            outcomes.append(await index_one(services, event))
    return outcomes


async def index_one(services, event) -> SaveOutcome | None:
    return (await services.index_product.index([event]))[event.id]


async def test_creating_a_product_indexes_its_text_but_never_its_price_or_stock(services):
    product = await services.catalog.create_product(product_input())
    assert await process_all(services) == [SaveOutcome.WRITTEN]
    chunks = await chunks_of(services, product.id)
    expected = [c.content for c in chunk_product(product, services.settings.embedding.chunk_token_budget)]
    assert [c[2] for c in chunks] == expected
    assert chunks[0][2] == "Alpine Lined Winter Boot. Boots"
    assert chunks[1][2] == "Alpine Lined Winter Boot: Nordkap, full-grain leather, wool lining"
    assert {c[1] for c in chunks} == {"hash-384"}
    text = " ".join(c[2] for c in chunks)
    assert "189" not in text
    assert "black" not in text  # colours and stock are filters, not meaning


async def test_a_price_or_stock_edit_costs_zero_embedding_calls(services):
    embedder: HashEmbedder = services.embedder
    product = await services.catalog.create_product(product_input())
    await process_all(services)
    calls = embedder.calls
    await services.catalog.update_product(product.id, ProductPatch(price=Decimal("159.00")))
    await services.catalog.adjust_stock(product.id, "black", "42", quantity_delta=3)
    outcomes = await process_all(services)
    assert embedder.calls == calls
    assert SaveOutcome.UNCHANGED in outcomes


async def test_editing_the_description_embeds_only_the_changed_chunks(services):
    embedder: HashEmbedder = services.embedder
    product = await services.catalog.create_product(product_input())
    await process_all(services)
    before = embedder.texts_embedded
    await services.catalog.update_product(
        product.id, ProductPatch(description="A warm boot for icy pavements. Sheepskin inside.")
    )
    await process_all(services)
    assert embedder.texts_embedded - before == 1  # the one new description chunk; title and details reused
    assert (await chunks_of(services, product.id))[2][2].endswith("A warm boot for icy pavements. Sheepskin inside.")


async def test_deleting_a_product_removes_its_chunks_and_a_late_upsert_cannot_bring_them_back(services):
    product = await services.catalog.create_product(product_input())
    await process_all(services)
    # The upsert event of an edit is claimed, then the product is deleted before it is processed.
    await services.catalog.update_product(product.id, ProductPatch(name="Alpine Boot II"))
    late = await services.outbox.claim(10, 60, 5, "slow-worker")
    await services.catalog.delete_product(product.id)
    assert await chunks_of(services, product.id) == []
    assert [await index_one(services, e) for e in late] == [SaveOutcome.GONE]
    assert await process_all(services) == [SaveOutcome.GONE]  # the delete event itself
    assert await chunks_of(services, product.id) == []


async def test_a_duplicated_job_is_a_no_op_success(services):
    embedder: HashEmbedder = services.embedder
    await services.catalog.create_product(product_input())
    (event,) = await services.outbox.claim(10, 60, 5, "w")
    assert await index_one(services, event) == SaveOutcome.WRITTEN
    calls = embedder.calls
    assert await index_one(services, event) is None  # delivered again
    assert embedder.calls == calls
    assert (await services.index_status("hash-384")).dead == 0


async def lost_leases_and_attempts(services, event_id: int) -> tuple[int, int]:
    async with services.pool.acquire() as conn:
        row = await conn.fetchrow("SELECT lost_leases, attempts FROM outbox_event WHERE id = $1", event_id)
    return row["lost_leases"], row["attempts"]


async def test_a_worker_killed_mid_job_is_recovered_after_its_lease_which_costs_no_attempt(services):
    product = await services.catalog.create_product(product_input())
    (event,) = await services.outbox.claim(10, 0.2, 5, "doomed-worker")  # then it "dies"
    assert await services.outbox.claim(10, 60, 5, "other") == []  # leased: nobody else takes it
    retaken = await eventually(lambda: services.outbox.claim(10, 60, 5, "rescuer"))
    assert [e.id for e in retaken] == [event.id]
    # Nothing failed: the lost lease is counted apart, the attempts are untouched.
    assert retaken[0].attempts == 0
    assert await lost_leases_and_attempts(services, event.id) == (1, 0)
    assert await index_one(services, retaken[0]) == SaveOutcome.WRITTEN
    # The doomed worker wakes up and finishes its stale copy: nothing changes.
    assert await index_one(services, event) is None
    chunks = await chunks_of(services, product.id)
    assert [c[0] for c in chunks] == list(range(len(chunk_product(product, 96))))  # none missing, none doubled


async def test_the_leases_of_an_indexer_whose_connection_is_gone_are_taken_over_at_once(services, database):
    await services.catalog.create_product(product_input())
    doomed = "indexer/host-a/4242/0a1b2c3d"
    alive = await asyncpg.connect(database, server_settings={"application_name": doomed})  # its LISTEN connection
    (event,) = await services.outbox.claim(10, 60, 5, doomed)
    assert await services.outbox.claim(10, 60, 5, "indexer/host-b/7/00000000") == []  # alive: its lease holds
    await alive.close()  # the process is killed: its connections close with it

    async def taken_over():
        return await services.outbox.claim(10, 60, 5, "indexer/host-b/7/00000000")

    retaken = await eventually(taken_over, timeout=5)  # long before the 60 s lease runs out
    assert [e.id for e in retaken] == [event.id]
    assert await lost_leases_and_attempts(services, event.id) == (1, 0)


class FlakyEmbedder(HashEmbedder):
    def __init__(self) -> None:
        super().__init__(384)
        self.broken = True

    async def embed_documents(self, texts):
        if self.broken:
            raise EmbeddingError("the embedding service is down")
        return await super().embed_documents(texts)


async def test_a_failing_embedder_dead_letters_after_the_attempts_and_retry_failed_recovers(services):
    flaky = FlakyEmbedder()
    policy = IndexingPolicy(max_attempts=3, backoff_seconds=0.01, backoff_max_seconds=0.02)
    index = IndexProducts(
        services.catalog.repository, services.outbox, services.chunk_store, services.indexing_unit, flaky, policy
    )
    product = await services.catalog.create_product(product_input())

    async def dead_lettered():
        for event in await services.outbox.claim(10, 60, 3, "w"):
            await index([event])
        return (await services.index_status("hash-384")).dead == 1

    await eventually(dead_lettered)
    status = await services.index_status("hash-384")
    assert status.dead_events[0]["attempts"] == 3
    assert status.dead_events[0]["lastError"] == "the embedding service is down"
    assert status.pending == 0

    flaky.broken = False
    assert await services.outbox.retry_dead() == 1
    await index(await services.outbox.claim(10, 60, 3, "w"))
    status = await services.index_status("hash-384")
    assert (status.dead, status.products_indexed) == (0, 1)
    assert len(await chunks_of(services, product.id)) == len(chunk_product(product, 96))


async def test_two_indexers_split_the_work_and_never_process_one_event_at_the_same_time(settings):
    from shopagent.wiring.services import open_services

    active: set[int] = set()
    processed: list[tuple[str, int]] = []
    overlaps: list[int] = []
    holding = {"first": anyio.Event(), "second": anyio.Event()}

    def tracked(name: str, index):
        other = "second" if name == "first" else "first"

        async def handle(events):
            ids = {event.id for event in events}
            overlaps.extend(ids & active)
            active.update(ids)
            try:
                # Each indexer holds its first events until the other holds some too: both
                # work at once (an event both were given would be seen in `active` twice).
                holding[name].set()
                with anyio.fail_after(15):
                    await holding[other].wait()
                await index(events)
                processed.extend((name, event_id) for event_id in ids)
            finally:
                active.difference_update(ids)

        return handle

    # Small claims and a small mailbox, as backpressure makes them in a busy deployment.
    settings = msgspec.structs.replace(
        settings,
        indexer=msgspec.structs.replace(settings.indexer, claim_batch=4),
        runtime=msgspec.structs.replace(settings.runtime, mailbox_capacity=4),
    )
    async with (
        open_services(settings, INDEXER_ACTORS, embedder=HashEmbedder()) as first,
        open_services(settings, INDEXER_ACTORS, embedder=HashEmbedder()) as second,
    ):
        pipelines = []
        for name, services in (("first", first), ("second", second)):
            services.index_product = tracked(name, services.index_product)
            pipelines.append(Supervisor(roster_for(INDEXER_ACTORS, services)))
        async with anyio.create_task_group() as tg:
            for pipeline in pipelines:
                await tg.start(pipeline.run)
            for n in range(120):
                await first.catalog.create_product(product_input(f"boot-{n}", name=f"Boot number {n}"))

            async def all_indexed():
                status = await first.index_status("hash-384")
                return status.products_indexed == 120 and status.pending + status.in_flight == 0

            await eventually(all_indexed, timeout=30)
            tg.cancel_scope.cancel()
    ids = [event_id for _, event_id in processed]
    assert overlaps == []
    assert len(ids) == len(set(ids))  # no event processed twice
    assert {name for name, _ in processed} == {"first", "second"}


async def test_the_running_pipeline_indexes_a_write_within_moments_of_its_commit(services):
    supervisor = Supervisor(roster_for(INDEXER_ACTORS, services))
    async with anyio.create_task_group() as tg:
        await tg.start(supervisor.run)
        product = await services.catalog.create_product(product_input())  # NOTIFY wakes the poller
        await eventually(lambda: chunks_of(services, product.id), timeout=2)
        await services.catalog.update_product(
            product.id,
            ProductPatch(variations=[VariationInput(color="red", size="40", quantity=1)], name="Red Boot"),
        )

        async def renamed():
            chunks = await chunks_of(services, product.id)
            return chunks and chunks[0][2] == "Red Boot. Boots"

        await eventually(renamed, timeout=2)
        tg.cancel_scope.cancel()


async def vector_index_definition(services) -> str | None:
    """The hash model's vector index as PostgreSQL describes it, or None when there is none."""
    async with services.pool.acquire() as conn:
        return await conn.fetchval("SELECT pg_get_indexdef(to_regclass($1))", vector_index_name("hash-384"))


def with_bulk_threshold(settings, events: int, **search):
    return msgspec.structs.replace(
        settings,
        indexer=msgspec.structs.replace(settings.indexer, bulk_load_events=events),
        search=msgspec.structs.replace(settings.search, **search),
    )


async def run_indexer_watching_the_vector_index(services, products: int) -> list[bool]:
    """Run the indexer actors until `products` are indexed and the vector index exists;
    return, per batch, whether the vector index existed while the batch ran."""
    seen: list[bool] = []
    index = services.index_product

    async def watched(events):
        seen.append(await vector_index_definition(services) is not None)
        await index(events)

    services.index_product = watched

    async def done():
        status = await services.index_status("hash-384")
        return (
            status.products_indexed == products
            and status.pending + status.in_flight == 0
            and (await vector_index_definition(services) is not None)
        )

    async with anyio.create_task_group() as tg:
        await tg.start(Supervisor(roster_for(INDEXER_ACTORS, services)).run)
        await eventually(done, timeout=30)
        tg.cancel_scope.cancel()
    return seen


async def test_a_bulk_load_stores_chunks_first_then_builds_the_vector_index_with_its_settings(settings):
    settings = with_bulk_threshold(settings, 20, hnsw_m=8, hnsw_ef_construction=24)
    async with open_services(settings, INDEXER_ACTORS, embedder=HashEmbedder()) as services:
        await services.index_keeper.prepare()
        await services.index_keeper.settle()  # the index of an empty catalog: built at once
        assert await vector_index_definition(services) is not None
        for n in range(30):  # more than the threshold and than the products indexed (none)
            await services.catalog.create_product(product_input(f"boot-{n}", name=f"Boot number {n}"))
        seen = await run_indexer_watching_the_vector_index(services, 30)
        definition = await vector_index_definition(services)
        async with services.pool.acquire() as conn:
            chunks = await conn.fetchval("SELECT count(*) FROM product_chunk WHERE model = 'hash-384'")
    assert seen and not any(seen)  # dropped before the first batch, built after the last
    assert "m='8'" in definition and "ef_construction='24'" in definition
    assert "WHERE (model = 'hash-384'::text)" in definition
    assert chunks >= 60


async def test_a_small_backlog_is_indexed_into_the_live_vector_index(settings):
    settings = with_bulk_threshold(settings, 20)
    async with open_services(settings, INDEXER_ACTORS, embedder=HashEmbedder()) as services:
        await services.index_keeper.prepare()
        await services.index_keeper.settle()
        before = await vector_index_definition(services)
        assert before is not None and "m='16'" in before
        for n in range(5):
            await services.catalog.create_product(product_input(f"boot-{n}", name=f"Boot number {n}"))
        seen = await run_indexer_watching_the_vector_index(services, 5)
        assert await vector_index_definition(services) == before
    assert seen and all(seen)


def leases_of(services, *, lease: float = 60, ahead: int = 32, worker: str = "this-indexer") -> Leases:
    return Leases(services.outbox, lease_seconds=lease, max_attempts=5, worker=worker, ahead=ahead)


async def test_the_poller_hands_a_whole_claim_to_an_idle_worker_as_one_batch(services):
    for n in range(32):
        await services.catalog.create_product(product_input(f"boot-{n}"))
    leases = leases_of(services)
    batches: list[int] = []
    all_handled = anyio.Event()

    async def handle(jobs) -> None:
        leases.started(jobs)
        batches.append(len(jobs))
        if sum(batches) == 32:
            all_handled.set()

    with Mailbox[OutboxEvent](64) as mailbox:
        async with anyio.create_task_group() as tg:
            await tg.start(partial(run_embedding_pool, mailbox, handle, workers=1, batch=32))
            await tg.start(
                partial(run_outbox_poller, services.pool, mailbox, leases, batch=32, poll_interval_seconds=60)
            )
            with anyio.fail_after(5):
                await all_handled.wait()
            tg.cancel_scope.cancel()
    assert batches == [32]  # one round trip and one embedding call for the lot, not 32


async def test_an_idle_indexer_builds_the_missing_vector_index_once_another_finishes_its_work(services):
    await services.catalog.create_product(product_input())
    [event] = await services.outbox.claim(10, 60, 5, "another-indexer")  # in flight elsewhere
    async with anyio.create_task_group() as tg:
        await tg.start(Supervisor(roster_for(INDEXER_ACTORS, services)).run)
        await services.index_keeper.settle()
        assert await vector_index_definition(services) is None  # not while work is in flight
        async with services.pool.acquire() as conn:  # the other indexer finishes; no event comes here
            await conn.execute("UPDATE outbox_event SET status = 'done', locked_until = NULL WHERE id = $1", event.id)
        # Built, not only begun: a concurrent build's index exists (invalid) from its start, and
        # cancelling the indexer then would leave it unfinished.
        await eventually(lambda: index_ready(services), timeout=10)
        tg.cancel_scope.cancel()
    status = await services.index_status("hash-384")
    assert status.vector_index_ready and status.vector_index_settings == "m=16, ef_construction=64"


async def index_ready(services) -> bool:
    return (await services.index_status("hash-384")).vector_index_ready


async def test_a_build_in_progress_elsewhere_is_waited_for_not_duplicated(services, database):
    other = await asyncpg.connect(database)  # another process, holding the build lock
    try:
        await other.execute("SELECT pg_advisory_lock($1)", _VECTOR_INDEX_LOCK)
        await services.index_keeper.prepare()
        await services.index_keeper.settle()
        assert services.index_keeper.pending  # busy elsewhere: still to do here
        assert await vector_index_definition(services) is None
        await other.execute("SELECT pg_advisory_unlock($1)", _VECTOR_INDEX_LOCK)
        await services.index_keeper.settle()
        assert not services.index_keeper.pending
        assert await vector_index_definition(services) is not None
    finally:
        await other.close()


async def test_an_invalid_index_left_by_a_failed_build_is_replaced(services):
    await services.index_keeper.prepare()
    await services.index_keeper.settle()
    name = vector_index_name("hash-384")
    async with services.pool.acquire() as conn:  # what a cancelled CREATE INDEX CONCURRENTLY leaves
        await conn.execute("UPDATE pg_index SET indisvalid = false WHERE indexrelid = to_regclass($1)", name)
    state = await services.vector_index.state("hash-384")
    assert not state.ready and not (await services.index_status("hash-384")).vector_index_ready
    await services.index_keeper.prepare()
    assert services.index_keeper.pending
    await services.index_keeper.settle()
    async with services.pool.acquire() as conn:
        assert await conn.fetchval("SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass($1)", name)
    assert not services.index_keeper.pending


def test_hnsw_settings_pgvector_would_refuse_are_refused_at_load():
    with pytest.raises(msgspec.ValidationError, match="at least twice hnsw_m"):
        msgspec.convert({"hnsw_m": 40, "hnsw_ef_construction": 64}, SearchSettings)


async def test_a_failing_build_is_logged_and_tried_again_later_without_stopping_the_indexer(services, caplog):
    # Settings pgvector refuses (our settings would not let them through): the build fails.
    keeper = VectorIndexKeeper(
        services.vector_index, services.outbox, services.chunk_store, "hash-384", 384,
        VectorIndexSpec(m=40, ef_construction=64), bulk_load_events=2000, max_attempts=5,
    )  # fmt: skip
    await keeper.prepare()
    await keeper.settle()
    assert keeper.pending and await vector_index_definition(services) is None
    assert "building the vector index of hash-384 failed, trying again in 60 s" in caplog.text
    assert "ef_construction must be greater than or equal to 2 * m" in caplog.text
    async with services.pool.acquire() as conn:  # nothing left behind: no lock, no invalid index
        assert await conn.fetchval("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'") == 0
        assert await conn.fetchval("SELECT to_regclass($1)", vector_index_name("hash-384")) is None


async def test_a_steady_trickle_of_events_does_not_postpone_the_build_for_ever(services):
    await services.catalog.create_product(product_input())  # one event due, and it stays due
    keeper = services.index_keeper
    await keeper.prepare()
    await keeper.settle()
    assert keeper.pending  # waits for the backlog to drain...
    keeper.patience_seconds = 0.0  # the patience, as if spent
    await keeper.settle()
    assert not keeper.pending  # ...but not for ever, when it is far from a bulk load
    assert await vector_index_definition(services) is not None


async def test_a_build_cancelled_midway_leaves_no_lock_and_the_next_one_replaces_its_leftover(services, database):
    keeper = services.index_keeper
    name = vector_index_name("hash-384")

    async def validity(conn):
        return await conn.fetchval("SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass($1)", name)

    async def no_advisory_lock():
        async with services.pool.acquire() as conn:
            return await conn.fetchval("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'") == 0

    await services.catalog.create_product(product_input())
    [event] = await services.outbox.claim(10, 60, 5, "test")
    await services.index_product.index([event])
    await keeper.prepare()
    writer = await asyncpg.connect(database)  # an open chunk write: the concurrent build waits for it
    try:
        async with writer.transaction():
            await writer.execute("UPDATE product_chunk SET kind = kind")

            async def building() -> bool:
                # The build has committed its (not yet valid) index and waits for the writer; seeing
                # the statement in pg_stat_activity alone is too early: cancelled before that commit,
                # a build leaves nothing behind.
                async with services.pool.acquire() as conn:
                    return await validity(conn) is False

            async with anyio.create_task_group() as tg:
                tg.start_soon(keeper.settle)
                await eventually(building)  # stuck behind the writer...
                tg.cancel_scope.cancel()  # ...then cancelled (a stop, a restart)
            assert keeper.pending
            await eventually(no_advisory_lock)  # the connection went back to the pool, reset
            async with services.pool.acquire() as conn:
                assert await validity(conn) is False  # the cancelled build's leftover
    finally:
        await writer.close()
    await keeper.settle()
    assert not keeper.pending
    async with services.pool.acquire() as conn:
        assert await validity(conn) is True


async def test_draining_the_index_reports_a_build_that_fails_instead_of_waiting_for_ever(services):
    from shopagent.bootstrap import drain_index
    from shopagent.domain.errors import DatabaseError

    failing = VectorIndexKeeper(
        services.vector_index, services.outbox, services.chunk_store, "hash-384", 384,
        VectorIndexSpec(m=40, ef_construction=64), bulk_load_events=2000, max_attempts=5,
    )  # fmt: skip
    services.index_keeper = services.index_product.keeper = failing
    await services.catalog.create_product(product_input())
    total, first = await services.outbox.enqueue_all()
    with anyio.fail_after(30), pytest.raises(DatabaseError, match="building the vector index failed: ef_construction"):
        await drain_index(services, first, total, lambda done, total: None, rebuild_vector_index=True)


async def test_the_poller_claims_one_batch_ahead_per_worker_and_a_stop_hands_back_everything_unfinished(services):
    for n in range(40):
        await services.catalog.create_product(product_input(f"boot-{n}"))
    leases = leases_of(services, ahead=8)

    async def held() -> int:
        async with services.pool.acquire() as conn:
            return await conn.fetchval(
                "SELECT count(*) FROM outbox_event WHERE locked_by = $1 AND locked_until > now()", leases.worker
            )

    async def handle(jobs) -> None:
        leases.started(jobs)
        await anyio.sleep_forever()  # a batch that is still running when the stop comes

    with Mailbox[OutboxEvent](64) as mailbox:
        async with anyio.create_task_group() as tg:
            await tg.start(partial(run_embedding_pool, mailbox, handle, workers=1, batch=4))
            await tg.start(
                partial(run_outbox_poller, services.pool, mailbox, leases, batch=4, poll_interval_seconds=60)
            )
            # The running batch (4) and at most `ahead` (8) waiting, not the 40 the mailbox would hold.
            await eventually(lambda: _equals(held, 12))
            tg.cancel_scope.cancel()
    assert await held() == 0
    taken = await services.outbox.claim(100, 60, 5, "indexer/another/1/00000000")
    assert len(taken) == 40  # at once: no lease to wait for


async def _equals(count, expected: int) -> bool:
    return await count() == expected


async def test_an_indexer_only_roster_leaves_the_mcp_server_unbuilt(services):
    """Offering the mcp actor builds nothing: only running it builds the MCP server (and
    imports its stack), so an indexer-only process starts without it."""
    roster = roster_for(INDEXER_ACTORS, services)
    assert [spec.name for spec in roster] == ["embedding-pool", "outbox-poller"]
    assert "mcp_server" not in vars(services)  # the cached property was never read
    roster_for(INDEXER_ACTORS | {"mcp"}, services)
    assert "mcp_server" in vars(services)
