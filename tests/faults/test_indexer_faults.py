"""Indexer processes killed and stopped mid-backlog: leases bound what a dead indexer strands,
a stopping one hands its unstarted claims back at once, and the index ends up whole."""

from __future__ import annotations

import signal
import tempfile
from collections.abc import AsyncIterator
from functools import partial
from pathlib import Path

import pytest

from tests.faults.harness import (
    OwnedPostgres,
    all_ready,
    database_copy,
    holder_pattern,
    import_catalog,
    index_report,
    now,
    outbox_done,
    poll,
    run_role,
    service_env,
    write_catalog,
)
from tests.helpers import ShopagentProcess, eventually

pytestmark = pytest.mark.anyio

PRODUCTS = 1000
CLAIM_BATCH = 8  # holding more than this, an indexer has claimed events it has not started
LEASE_SECONDS = 5.0
LONG_LEASE_SECONDS = 30.0  # where a lease must not be waited for
# After its lease runs out, a stranded event may still wait for a claim round and its batch.
LEASE_SLACK_SECONDS = 3.0
# Small batches, one worker and a small mailbox: an indexer holds a few batches at a time and
# the backlog lasts long enough (several seconds) to kill one of two indexers in the middle.
SLOW_INDEXER = {
    "SHOPAGENT_INDEXER__LEASE_SECONDS": str(LEASE_SECONDS),
    "SHOPAGENT_INDEXER__WORKERS": "1",
    "SHOPAGENT_INDEXER__CLAIM_BATCH": str(CLAIM_BATCH),
    "SHOPAGENT_EMBEDDING__BATCH_SIZE": "8",
    "SHOPAGENT_RUNTIME__MAILBOX_CAPACITY": "64",
}


async def held_by(pg: OwnedPostgres, proc: ShopagentProcess) -> list[int]:
    """Ids of the pending events `proc` holds a live lease on."""
    rows = await pg.fetch(
        """
        SELECT id FROM outbox_event
        WHERE status = 'pending' AND locked_until > now() AND locked_by ~ $1
        ORDER BY id
        """,
        holder_pattern(proc),
    )
    return [r["id"] for r in rows]


async def _import_backlog(pg: OwnedPostgres) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        await import_catalog(service_env(pg), write_catalog(Path(scratch) / "catalog.json", PRODUCTS))
    assert await pg.fetchval("SELECT count(*) FROM outbox_event WHERE status = 'pending'") == PRODUCTS


@pytest.fixture(scope="module")
async def backlog_database(pg_server: OwnedPostgres) -> AsyncIterator[OwnedPostgres]:
    """A database holding the imported catalog and its 1000 pending outbox events (imported
    once by the real `shopagent catalog import`), the template of each test's own copy."""
    async with database_copy(pg_server) as backlog:
        await _import_backlog(backlog)
        yield backlog


@pytest.fixture
async def backlog_pg(backlog_database: OwnedPostgres) -> AsyncIterator[OwnedPostgres]:
    async with database_copy(backlog_database) as database:
        yield database


async def holding_mid_backlog(pg, indexer, fewest: int, most: int) -> list[int] | None:
    """The events `indexer` holds, once it holds more than a batch while `fewest`..`most`
    events are still pending."""
    held = await held_by(pg, indexer)
    left = await pg.fetchval("SELECT count(*) FROM outbox_event WHERE status = 'pending'")
    return held if len(held) > CLAIM_BATCH and fewest <= left <= most else None


async def settled(pg, indexer) -> bool:
    """Whether none of a stopped process's database sessions still runs a statement it sent
    before it stopped (a COMMIT of finished events may be on its way): each waits for it, or is idle."""
    rows = await pg.fetch(
        "SELECT state, wait_event FROM pg_stat_activity WHERE application_name LIKE $1",
        f"shopagent/%/{indexer.process.pid}",
    )
    return all(r["state"] != "active" or r["wait_event"] in ("ClientRead", "ClientWrite") for r in rows)


async def frozen_holding(pg, indexer, fewest: int, most: int) -> list[int] | None:
    """`holding_mid_backlog`, read with `indexer` stopped (SIGSTOP) and its statements in flight
    landed (twice settled: a statement just received wakes its session); it is let go on (SIGCONT)
    when it holds no such events yet."""
    indexer.signal(signal.SIGSTOP)
    for _ in range(2):
        await eventually(partial(settled, pg, indexer), timeout=10, interval=0.01)
    held = await holding_mid_backlog(pg, indexer, fewest, most)
    if held is None:
        indexer.signal(signal.SIGCONT)
    return held


async def test_a_killed_indexer_strands_its_events_for_at_most_the_lease_and_the_index_ends_whole(backlog_pg):
    pg = backlog_pg
    env = service_env(pg, **SLOW_INDEXER)
    async with (
        run_role("indexer", env, wait_ready=False) as victim,
        run_role("indexer", env, wait_ready=False) as survivor,
    ):
        await all_ready(victim, survivor)

        # Late in the backlog, so that the others may run out of work before the victim's
        # leases run out: then no busy claim loop picks its events up by the way; only waking
        # when a lease ends (or taking over a dead indexer's leases) brings them back in time.
        # Read while it is frozen: a fast worker could otherwise finish everything it held between
        # the read and the kill (a batch takes milliseconds with the hash embedder).
        held = await eventually(partial(frozen_holding, pg, victim, 100, 400), timeout=30, interval=0.02)
        victim.signal(signal.SIGKILL)
        killed_at = now()
        assert await victim.wait_exit(timeout=10) == -signal.SIGKILL
        kill_db_time = await pg.fetchval("SELECT clock_timestamp()")
        # What it held and had not finished when it died (others may take it over at once).
        stranded = [
            r["id"]
            for r in await pg.fetch(
                "SELECT id FROM outbox_event WHERE id = ANY($1::bigint[]) AND (status <> 'done' OR done_at > $2)",
                held,
                kill_db_time,
            )
        ]
        assert stranded, f"harness: the victim had finished all it held ({held}) when it was killed"

        # The replacement may be as fast as it likes; only the lease must be the same.
        fast = service_env(pg, SHOPAGENT_INDEXER__LEASE_SECONDS=str(LEASE_SECONDS))
        async with run_role("indexer", fast) as replacement:
            await eventually(lambda: outbox_done(pg), timeout=60, interval=0.2)
            drained_after = now() - killed_at
            report = await index_report(pg)
            finished = await pg.fetchrow(
                """
                SELECT max(done_at) AS last_done, count(*) FILTER (WHERE status = 'done') AS done,
                       max(attempts) AS max_attempts
                FROM outbox_event WHERE id = ANY($1::bigint[])
                """,
                stranded,
            )
            others = await pg.fetchrow(
                "SELECT count(*) FILTER (WHERE attempts <> 0) AS counted, max(attempts) AS max_attempts "
                "FROM outbox_event WHERE NOT id = ANY($1::bigint[])",
                stranded,
            )
            assert survivor.process.returncode is None and replacement.process.returncode is None
            errors = survivor.errors() + replacement.errors()

    print(f"stranded {len(stranded)} events; backlog drained {drained_after:.1f}s after the kill")
    assert report == {
        "products": PRODUCTS, "events": PRODUCTS, "pending": 0, "dead": 0, "without_chunks": 0,
        "duplicate_chunks": 0, "gapped_chunk_sets": 0, "stale": 0, "other_model_chunks": 0,
    }, report  # fmt: skip
    assert finished["done"] == len(stranded)
    stranded_for = (finished["last_done"] - kill_db_time).total_seconds()
    print(f"the last stranded event was done {stranded_for:.1f}s after the kill (lease {LEASE_SECONDS:g}s)")
    assert stranded_for <= LEASE_SECONDS + LEASE_SLACK_SECONDS, stranded_for
    # `attempts` counts failures only: nothing failed, so nothing counted (a lease that ran out
    # under a killed indexer may count as one failure).
    assert finished["max_attempts"] <= 1, finished
    assert others["counted"] == 0, others
    assert errors == []


async def test_a_stopping_indexer_hands_back_what_it_had_not_finished_at_once(backlog_pg):
    """SIGTERM to one of two indexers mid-backlog: the other takes what it held at once (well
    within the lease, made long here), and a hand-back is nobody's failure."""
    pg = backlog_pg
    env = service_env(pg, **SLOW_INDEXER | {"SHOPAGENT_INDEXER__LEASE_SECONDS": str(LONG_LEASE_SECONDS)})
    async with (
        run_role("indexer", env, wait_ready=False) as stopping,
        run_role("indexer", env, wait_ready=False) as other,
    ):
        await all_ready(stopping, other)

        held = await eventually(
            partial(holding_mid_backlog, pg, stopping, 400, PRODUCTS - 50), timeout=30, interval=0.02
        )
        signalled = now()
        stopping.signal(signal.SIGTERM)
        signal_db_time = await pg.fetchval("SELECT clock_timestamp()")
        assert await stopping.wait_exit(timeout=15) == 0
        stopped_in = now() - signalled
        exit_db_time = await pg.fetchval("SELECT clock_timestamp()")
        # What it held at the signal, and what it still held when it was gone.
        ids = sorted(
            {*held, *(r["id"] for r in await pg.fetch(
                "SELECT id FROM outbox_event WHERE status = 'pending' AND locked_by ~ $1", holder_pattern(stopping)))}
        )  # fmt: skip

        async def all_done() -> bool:
            return await pg.fetchval(
                "SELECT count(*) = 0 FROM outbox_event WHERE id = ANY($1::bigint[]) AND status <> 'done'", ids
            )

        await poll(all_done, timeout=10, interval=0.05)  # a third of the lease: enough to tell
        finished = await pg.fetchrow(
            "SELECT count(*) FILTER (WHERE status = 'done') AS done, max(done_at) AS last_done, "
            "count(*) FILTER (WHERE done_at > $2) AS done_after_signal "
            "FROM outbox_event WHERE id = ANY($1::bigint[])",
            ids,
            signal_db_time,
        )
        await eventually(lambda: outbox_done(pg), timeout=60, interval=0.2)
        report = await index_report(pg)
        counted = await pg.fetchval("SELECT count(*) FROM outbox_event WHERE attempts <> 0")
        errors = {"stopped": stopping.errors(), "other": other.errors()}
    done_after_exit = (finished["last_done"] - exit_db_time).total_seconds() if finished["last_done"] else -1.0
    print(
        f"held {len(held)} events at SIGTERM, exited {stopped_in:.2f}s later; {finished['done_after_signal']} of "
        f"{len(ids)} were done after the signal, the last {done_after_exit:.2f}s after the exit"
    )
    assert stopped_in < 3
    # Not left waiting until its lease (30 s) ran out: handed back (or finished) at once.
    assert finished["done"] == len(ids), f"{len(ids) - finished['done']} event(s) still wait 10s after the exit"
    assert done_after_exit < 3, done_after_exit
    assert counted == 0  # handing back is not a failure
    assert report["pending"] == report["dead"] == report["without_chunks"] == report["stale"] == 0, report
    assert errors == {"stopped": [], "other": []}  # a stop is no error


def test_the_default_lease_is_15_seconds():
    from shopagent.settings import IndexerSettings

    assert IndexerSettings().lease_seconds == 15


FROZEN_LEASE_SECONDS = 2.0
FROZEN_IDLE_SECONDS = 1.0  # idle_in_transaction_timeout_seconds: a frozen holder's locks last this long


_IN_TRANSACTION_WITH_PRODUCT_LOCKS = """
    SELECT a.pid FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid
    WHERE a.application_name ~ $1 AND a.state = 'idle in transaction' AND l.relation = 'product'::regclass
      AND l.mode = 'RowShareLock' AND a.state_change < now() - make_interval(secs => $2)
    LIMIT 1
"""


async def _backend_gone(pg: OwnedPostgres, backend: int) -> bool:
    return not await pg.fetchval("SELECT count(*) FROM pg_stat_activity WHERE pid = $1", backend)


async def freeze_inside_a_transaction(pg: OwnedPostgres, victim: ShopagentProcess) -> int:
    """SIGSTOP the victim while one of its pool's connections is in a transaction that holds
    product row locks (`FOR NO KEY UPDATE` shows as a RowShareLock on the table), and return
    that backend's pid once it has stayed idle in that transaction (the victim is frozen)."""
    own = f"^shopagent/[^/]*/{victim.process.pid}$"
    for _ in range(500):
        victim.signal(signal.SIGSTOP)
        # In a transaction now, and still in it a moment later (not committing as it stopped).
        if await pg.fetchval(_IN_TRANSACTION_WITH_PRODUCT_LOCKS, own, 0.0) and (
            backend := await poll(lambda: pg.fetchval(_IN_TRANSACTION_WITH_PRODUCT_LOCKS, own, 0.15), timeout=0.3)
        ):
            return backend
        victim.signal(signal.SIGCONT)  # caught outside a transaction: again (the query paces it)
    raise AssertionError("harness: the victim was never frozen inside a transaction")


async def test_a_frozen_indexer_holding_row_locks_does_not_hold_up_the_other(backlog_pg):
    """SIGSTOP one of two indexers while its transaction holds product row locks: the server
    ends that idle transaction, the other indexer skips rows still locked instead of queueing
    behind them, takes the frozen one's events over when their lease runs out, and drains the
    backlog within twice the time the two would have taken (from their rate before the freeze)."""
    pg = backlog_pg
    env = service_env(
        pg,
        **SLOW_INDEXER
        | {
            "SHOPAGENT_INDEXER__LEASE_SECONDS": str(FROZEN_LEASE_SECONDS),
            "SHOPAGENT_INDEXER__POLL_INTERVAL_SECONDS": "0.5",
            "SHOPAGENT_DATABASE__IDLE_IN_TRANSACTION_TIMEOUT_SECONDS": str(FROZEN_IDLE_SECONDS),
        },
    )
    async with (
        run_role("indexer", env, wait_ready=False) as victim,
        run_role("indexer", env, wait_ready=False) as survivor,
    ):
        await all_ready(victim, survivor)
        started = now()
        # Anywhere between a tenth and four fifths of the way through: a narrower window (once 134
        # events wide) could pass unseen between two polls on a loaded machine.
        await eventually(partial(holding_mid_backlog, pg, victim, 200, PRODUCTS - 100), timeout=30, interval=0.02)
        backend = await freeze_inside_a_transaction(pg, victim)
        frozen_at = now()
        done_before = await pg.fetchval("SELECT count(*) FROM outbox_event WHERE status = 'done'")
        # Two indexers' pace before the freeze: the whole backlog at that pace is the bound's base.
        unfrozen_estimate = (frozen_at - started) * PRODUCTS / max(done_before, 1)
        # The frozen one's claimed events wait out their lease whatever the pace (on a fast machine
        # twice the estimate can be shorter than the lease): the bound is never below that wait.
        bound = max(2 * unfrozen_estimate, frozen_at - started + FROZEN_LEASE_SECONDS + LEASE_SLACK_SECONDS)
        await poll(lambda: outbox_done(pg), timeout=max(bound - (now() - started), 1.0), interval=0.1)
        drained_in = now() - started
        report = await index_report(pg)
        # The server ends that transaction FROZEN_IDLE_SECONDS after it went idle; the drain may
        # finish first (the survivor skips the locked rows), so wait for it, with a bound.
        backend_gone = await poll(lambda: _backend_gone(pg, backend), timeout=FROZEN_IDLE_SECONDS + 10, interval=0.1)
        counted = await pg.fetchval("SELECT count(*) FROM outbox_event WHERE attempts <> 0")
        victim.signal(signal.SIGKILL)
        assert await victim.wait_exit(timeout=10) == -signal.SIGKILL
        errors = survivor.errors()
    print(
        f"frozen after {done_before} of {PRODUCTS} events ({frozen_at - started:.1f}s); drained in "
        f"{drained_in:.1f}s, bound {bound:.1f}s (2x the unfrozen estimate {unfrozen_estimate:.1f}s, at least the lease)"
    )
    assert report["pending"] == 0, f"{report['pending']} events still pending after {drained_in:.1f}s: {report}"
    assert drained_in <= bound
    assert backend_gone, "the frozen indexer's idle transaction was not ended"
    assert report["dead"] == report["without_chunks"] == report["stale"] == report["duplicate_chunks"] == 0, report
    assert counted == 0, "a busy row or a frozen holder counted as a failure"
    assert errors == []
