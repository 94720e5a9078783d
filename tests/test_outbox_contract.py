"""The `Outbox` port's contract, run against every implementation (tests/index_backends.py).
Leases run out because the test moves the store's time on (`advance`), not by waiting."""

from __future__ import annotations

import numpy as np
import pytest

from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.application.ports import IndexBacklog
from shopagent.application.ports.indexing import SaveItem
from shopagent.domain.catalog import ProductPatch
from shopagent.domain.indexing import EventKind, chunk_product, chunk_set_hash
from tests.factories import product_input

pytestmark = pytest.mark.anyio


async def products(backend, n: int) -> list[int]:
    return [(await backend.catalog.create_product(product_input(f"boot-{i}"))).id for i in range(n)]


async def test_claim_leases_due_events_oldest_first_and_never_one_leased_to_another(index_backend):
    outbox = index_backend.outbox
    ids = await products(index_backend, 3)
    first = await outbox.claim(2, 60, 5, "a")
    assert [(e.product_id, e.kind, e.attempts) for e in first] == [
        (ids[0], EventKind.UPSERTED, 0),
        (ids[1], EventKind.UPSERTED, 0),
    ]
    assert [e.product_id for e in await outbox.claim(10, 60, 5, "b")] == [ids[2]]
    assert await outbox.claim(10, 60, 5, "c") == []


async def test_a_lease_that_runs_out_frees_the_event_as_a_lost_lease_not_a_failed_attempt(index_backend):
    outbox = index_backend.outbox
    await products(index_backend, 1)
    (event,) = await outbox.claim(10, 30, 5, "doomed")  # then it "dies"
    assert await outbox.claim(10, 30, 5, "rescuer") == []  # leased
    await index_backend.advance(31)
    retaken = await outbox.claim(10, 30, 5, "rescuer")
    assert [(e.id, e.attempts) for e in retaken] == [(event.id, 0)]
    await index_backend.advance(31)
    assert await _lease_over(outbox)
    # The lost lease counts against the cap: with at most one, nobody takes it again.
    assert await outbox.claim(10, 60, 1, "third") == []
    assert [e.id for e in await outbox.claim(10, 60, 2, "third")] == [event.id]


async def _lease_over(outbox) -> bool:
    return (await outbox.backlog()).in_flight == 0


async def test_renew_extends_only_the_workers_own_leases(index_backend):
    outbox = index_backend.outbox
    await products(index_backend, 2)
    kept, lapsing = await outbox.claim(10, 30, 5, "a")
    assert await outbox.renew([kept.id, lapsing.id], 60, "b") == []  # not b's
    assert await outbox.renew([kept.id], 60, "a") == [kept.id]
    await index_backend.advance(31)
    assert [e.id for e in await outbox.claim(10, 60, 5, "b")] == [lapsing.id]
    assert await outbox.renew([kept.id, lapsing.id], 60, "a") == [kept.id]  # the other is b's now
    assert await outbox.renew([], 60, "a") == []


async def test_release_gives_back_the_workers_leases_at_once_and_no_one_elses(index_backend):
    outbox = index_backend.outbox
    await products(index_backend, 3)
    mine = await outbox.claim(2, 60, 5, "a")
    theirs = await outbox.claim(1, 60, 5, "b")
    assert await outbox.release("a") == 2
    assert await outbox.renew([e.id for e in mine], 60, "a") == []
    assert [e.id for e in await outbox.claim(10, 60, 5, "c")] == [e.id for e in mine]
    assert await outbox.renew([e.id for e in theirs], 60, "b") == [theirs[0].id]
    assert await outbox.release("a") == 0


async def test_a_failed_attempt_waits_for_its_retry_and_is_counted(index_backend):
    outbox = index_backend.outbox
    await products(index_backend, 1)
    (event,) = await outbox.claim(10, 60, 5, "a")
    await outbox.fail(event, "the embedding service is down", 0)
    (again,) = await outbox.claim(10, 60, 5, "b")
    assert (again.id, again.attempts) == (event.id, 1)
    await outbox.fail(again, "still down", 3600)
    assert await outbox.claim(10, 60, 5, "a") == []  # backing off
    backlog = await outbox.backlog()
    assert (backlog.pending, backlog.in_flight, backlog.dead) == (1, 0, 0)
    assert await outbox.pending_among([event.id]) == [event.id]
    assert await outbox.dead_letters(20) == []


async def test_an_event_out_of_attempts_is_left_alone(index_backend):
    outbox = index_backend.outbox
    await products(index_backend, 1)
    (event,) = await outbox.claim(10, 60, 5, "a")
    await outbox.fail(event, "broken", 0)
    (event,) = await outbox.claim(10, 60, 5, "a")
    await outbox.fail(event, "broken", 0)
    assert await outbox.claim(10, 60, 2, "a") == []
    assert not await outbox.has_backlog(2)
    assert [e.attempts for e in await outbox.claim(10, 60, 3, "a")] == [2]


async def test_a_dead_letter_is_listed_finished_and_retried_on_request(index_backend):
    outbox = index_backend.outbox
    (product_id,) = await products(index_backend, 1)
    (event,) = await outbox.claim(10, 60, 5, "a")
    await outbox.fail(event, "x" * 3000, None)
    assert await outbox.pending_among([event.id]) == []
    assert await outbox.claim(10, 60, 5, "a") == []
    assert (await outbox.backlog()).dead == 1
    assert await outbox.finished_since(event.id) == 1
    (dead,) = await outbox.dead_letters(20)
    assert (dead["id"], dead["kind"], dead["productId"], dead["attempts"], dead["lostLeases"]) == (
        event.id, "product.upserted", product_id, 1, 0,
    )  # fmt: skip
    assert dead["lastError"] == "x" * 2000 and dead["createdAt"]
    assert await outbox.retry_dead() == 1
    assert await outbox.dead_letters(20) == []
    (revived,) = await outbox.claim(10, 60, 5, "a")
    assert (revived.id, revived.attempts) == (event.id, 0)


async def test_expired_leases_are_freed_and_an_event_that_lost_too_many_is_dead_lettered(index_backend):
    outbox, catalog = index_backend.outbox, index_backend.catalog
    first = await catalog.create_product(product_input("boot-one"))
    second = await catalog.create_product(product_input("boot-two"))
    (event,) = await outbox.claim(1, 30, 5, "crashing-worker")  # never finished
    await index_backend.advance(31)
    assert await _lease_over(outbox)
    retaken = await outbox.claim(2, 30, 5, "crashing-worker")  # the first one's lease is lost once
    assert [(e.product_id, e.attempts) for e in retaken] == [(first.id, 0), (second.id, 0)]

    # With at most 2: the first event has lost its second lease (it seems to take its workers
    # down with it) and is dead-lettered; the second only needs a new lease.
    await index_backend.advance(31)
    assert await outbox.release_expired_leases(max_attempts=2) == 2
    backlog = await outbox.backlog()
    assert (backlog.dead, backlog.pending, backlog.in_flight) == (1, 1, 0)
    (dead,) = await outbox.dead_letters(20)
    assert (dead["id"], dead["productId"], dead["attempts"], dead["lostLeases"]) == (event.id, first.id, 0, 2)
    assert dead["lastError"] == "its lease ran out 2 times: the indexer holding it stopped or hung"
    assert [(e.product_id, e.attempts) for e in await outbox.claim(10, 60, 5, "w")] == [(second.id, 0)]
    assert await outbox.release_expired_leases(max_attempts=2) == 0


async def test_only_events_in_flight_or_due_count_as_backlog(index_backend):
    outbox, catalog = index_backend.outbox, index_backend.catalog
    assert not await outbox.has_backlog(5) and await outbox.products_waiting(5) == 0
    product = await catalog.create_product(product_input())
    assert await outbox.has_backlog(5)  # due
    [event] = await outbox.claim(10, 60, 5, "test")
    assert await outbox.has_backlog(5)  # in flight
    await outbox.fail(event, "the embedding service is down", 3600)
    assert not await outbox.has_backlog(5)  # waiting an hour for its retry: not worth waiting for
    assert await outbox.products_waiting(5) == 0
    await catalog.update_product(product.id, ProductPatch(name="Renamed"))
    await catalog.create_product(product_input("boot-two"))
    await catalog.update_product(product.id, ProductPatch(name="Renamed again"))
    assert await outbox.has_backlog(5)
    assert await outbox.products_waiting(5) == 2  # products, not events


async def test_the_backlog_tells_waiting_from_in_flight_and_how_long_the_oldest_waited(index_backend):
    outbox = index_backend.outbox
    assert await outbox.backlog() == IndexBacklog(pending=0, in_flight=0, dead=0)
    await products(index_backend, 3)
    await outbox.claim(1, 60, 5, "a")
    backlog = await outbox.backlog()
    assert (backlog.pending, backlog.in_flight, backlog.dead) == (2, 1, 0)
    assert backlog.oldest_due_seconds >= 0


async def test_enqueue_all_queues_every_product_and_finished_since_follows_them(index_backend):
    outbox, unit = index_backend.outbox, index_backend.unit
    await products(index_backend, 3)
    for event in await outbox.claim(10, 60, 5, "a"):
        await outbox.fail(event, "gone for good", None)
    total, first = await outbox.enqueue_all()
    assert total == 3
    assert await outbox.finished_since(first) == 0
    queued = await outbox.claim(10, 60, 5, "a")
    assert [e.id for e in queued] == list(range(first, first + 3))
    await outbox.fail(queued[0], "dead", None)
    embedder = HashEmbedder()
    product = await index_backend.catalog.get_product(queued[1].product_id)
    parts = chunk_product(product, 96)
    vectors = np.stack([embedder.vector(c.content) for c in parts])
    await unit.store_chunk_sets(
        [queued[1]], [SaveItem(product, parts, chunk_set_hash("hash-384", parts), vectors)], "hash-384"
    )
    assert await outbox.finished_since(first) == 2  # one dead-lettered, one done


async def test_unfinished_through_counts_waiting_and_in_flight_events_up_to_an_id(index_backend):
    outbox = index_backend.outbox
    await products(index_backend, 3)
    older = await outbox.claim(1, 60, 5, "a")  # the first in flight, the next two waiting
    total, first = await outbox.enqueue_all()
    assert await outbox.unfinished_through(first - 1) == 3
    assert await outbox.unfinished_through(first + total - 1) == 6
    await outbox.fail(older[0], "gone for good", None)  # dead-lettered: finished
    assert await outbox.unfinished_through(first - 1) == 2
    assert await outbox.unfinished_through(0) == 0
