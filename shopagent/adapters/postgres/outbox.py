"""PostgresOutbox: the outbox events' queue (claims, leases, retries, dead letters)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shopagent.adapters.postgres.catalog import OUTBOX_CHANNEL
from shopagent.adapters.postgres.pool import Connection, ConnectionPool
from shopagent.application.ports import IndexBacklog
from shopagent.domain.indexing import EventKind, OutboxEvent

# An indexer process names itself "indexer/<host>/<pid>/<random>" and keeps a connection open
# under that application name (its LISTEN connection) while it runs. When that connection is
# gone, so is the process (`kill -9` closes its sockets at once): its leases are free to take
# at once. A lease of any other holder (or of a machine that vanished without closing its
# connections) lasts until it runs out.
LIVE_WORKER_PREFIX = "indexer/"
_BACKLOG = """
    SELECT
        count(*) FILTER (WHERE status = 'pending' AND (locked_until IS NULL OR locked_until < now())) AS pending,
        count(*) FILTER (WHERE status = 'pending' AND locked_until >= now()) AS in_flight,
        count(*) FILTER (WHERE status = 'dead') AS dead,
        coalesce(extract(epoch FROM now() - min(available_at) FILTER (
            WHERE status = 'pending' AND available_at <= now()
        )), 0)::float8 AS oldest_due_seconds
    FROM outbox_event WHERE status <> 'done'
"""
# In flight, or claimable now: what an idle indexer would still work on.
_WAITING = """
    status = 'pending' AND (locked_until >= now() OR (attempts < $1 AND available_at <= now()))
"""


class PostgresOutbox:
    def __init__(self, pool: ConnectionPool) -> None:
        self._pool = pool

    async def claim(self, limit: int, lease_seconds: float, max_attempts: int, worker: str) -> list[OutboxEvent]:
        """Lease up to `limit` due events to `worker`. An event whose previous lease ran out
        (its holder died or hung) is taken over, and the lost lease counted; so is one held
        by an indexer process that is gone (see `LIVE_WORKER_PREFIX`), without waiting for
        its lease to run out."""
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(
                """
                WITH live AS (
                    SELECT application_name AS worker FROM pg_stat_activity WHERE application_name LIKE $5 || '%'
                ),
                due AS (
                    SELECT id FROM outbox_event
                    WHERE status = 'pending' AND available_at <= now() AND attempts < $3 AND lost_leases < $3
                      AND (locked_until IS NULL OR locked_until < now()
                           OR (starts_with(locked_by, $5) AND locked_by NOT IN (SELECT worker FROM live)))
                    ORDER BY id
                    LIMIT $1
                    FOR UPDATE SKIP LOCKED
                )
                UPDATE outbox_event e
                SET locked_until = now() + make_interval(secs => $2), locked_by = $4,
                    lost_leases = e.lost_leases + (e.locked_until IS NOT NULL)::int
                FROM due WHERE e.id = due.id
                RETURNING e.id, e.kind, e.product_id, e.attempts
                """,
                limit,
                lease_seconds,
                max_attempts,
                worker,
                LIVE_WORKER_PREFIX,
            )
        events = [OutboxEvent(r["id"], EventKind(r["kind"]), r["product_id"], r["attempts"]) for r in rows]
        return sorted(events, key=lambda e: e.id)

    async def renew(self, event_ids: Sequence[int], lease_seconds: float, worker: str) -> list[int]:
        """Extend `worker`'s leases of these events; returns the ids it still holds."""
        if not event_ids:
            return []
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(
                """
                UPDATE outbox_event SET locked_until = now() + make_interval(secs => $2)
                WHERE id = ANY($1::bigint[]) AND locked_by = $3 AND status = 'pending'
                RETURNING id
                """,
                list(event_ids),
                lease_seconds,
                worker,
            )
        return [r["id"] for r in rows]

    async def release(self, worker: str) -> int:
        """Give up every lease `worker` holds (on a stop: nothing of them is stored yet; a claim
        cut short by the stop may have leased events its caller never saw) and wake the other
        indexers, so they take them at once."""
        async with self._pool.acquire() as conn, conn.transaction():
            rows = await conn.fetch(
                """
                UPDATE outbox_event SET locked_until = NULL, locked_by = NULL
                WHERE locked_by = $1 AND status = 'pending' AND locked_until IS NOT NULL
                RETURNING id
                """,
                worker,
            )
            if rows:
                await conn.execute("SELECT pg_notify($1, '')", OUTBOX_CHANNEL)
        return len(rows)

    async def pending_among(self, event_ids: Sequence[int]) -> list[int]:
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(
                "SELECT id FROM outbox_event WHERE id = ANY($1::bigint[]) AND status = 'pending'", event_ids
            )
        return [r["id"] for r in rows]

    async def fail(self, event: OutboxEvent, error: str, retry_in: float | None) -> None:
        async with self._pool.acquire() as conn:
            if retry_in is None:
                await conn.execute(
                    """
                    UPDATE outbox_event
                    SET status = 'dead', attempts = attempts + 1, locked_until = NULL, last_error = $2
                    WHERE id = $1 AND status = 'pending'
                    """,
                    event.id,
                    error[:2000],
                )
            else:
                await conn.execute(
                    """
                    UPDATE outbox_event
                    SET attempts = attempts + 1, locked_until = NULL, last_error = $2,
                        available_at = now() + make_interval(secs => $3)
                    WHERE id = $1 AND status = 'pending'
                    """,
                    event.id,
                    error[:2000],
                    retry_in,
                )

    async def release_expired_leases(self, max_attempts: int) -> int:
        """Free the leases that ran out (their indexer died or hung), counting each lost lease;
        an event that lost `max_attempts` leases is dead-lettered: it seems to take its
        workers down with it."""
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(
                """
                UPDATE outbox_event
                SET locked_until = NULL, locked_by = NULL, lost_leases = lost_leases + 1,
                    status = CASE WHEN lost_leases + 1 >= $1 THEN 'dead' ELSE status END,
                    last_error = CASE WHEN lost_leases + 1 >= $1
                        THEN coalesce(last_error || '; ', '') || format(
                            'its lease ran out %s times: the indexer holding it stopped or hung', lost_leases + 1)
                        ELSE last_error END
                WHERE status = 'pending' AND locked_until < now()
                RETURNING id
                """,
                max_attempts,
            )
        return len(rows)

    async def backlog(self) -> IndexBacklog:
        """The outbox events waiting (due or backing off), in flight and dead-lettered."""
        async with self._pool.acquire() as conn:
            row = await conn.fetchrow(_BACKLOG)
        assert row is not None  # aggregates without GROUP BY: always one row
        return IndexBacklog(
            pending=row["pending"],
            in_flight=row["in_flight"],
            dead=row["dead"],
            oldest_due_seconds=max(0.0, row["oldest_due_seconds"]),
        )

    async def has_backlog(self, max_attempts: int) -> bool:
        async with self._pool.acquire() as conn:
            return await conn.fetchval(f"SELECT EXISTS (SELECT 1 FROM outbox_event WHERE {_WAITING})", max_attempts)

    async def products_waiting(self, max_attempts: int) -> int:
        async with self._pool.acquire() as conn:
            return await conn.fetchval(
                f"SELECT count(DISTINCT product_id) FROM outbox_event WHERE {_WAITING} AND kind LIKE 'product.%'",
                max_attempts,
            )

    async def dead_letters(self, limit: int) -> list[dict[str, Any]]:
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(
                """
                SELECT id, kind, product_id, attempts, lost_leases, last_error, created_at FROM outbox_event
                WHERE status = 'dead' ORDER BY id DESC LIMIT $1
                """,
                limit,
            )
        return [
            {
                "id": r["id"],
                "kind": r["kind"],
                "productId": r["product_id"],
                "attempts": r["attempts"],
                "lostLeases": r["lost_leases"],
                "lastError": r["last_error"],
                "createdAt": r["created_at"].isoformat(),
            }
            for r in rows
        ]

    async def retry_dead(self) -> int:
        async with self._pool.acquire() as conn, conn.transaction():
            revived = await conn.fetch(
                """
                UPDATE outbox_event
                SET status = 'pending', attempts = 0, available_at = now(), locked_until = NULL, locked_by = NULL
                WHERE status = 'dead'
                RETURNING id
                """
            )
            if revived:
                await conn.execute("SELECT pg_notify($1, '')", OUTBOX_CHANNEL)
        return len(revived)

    async def enqueue_all(self) -> tuple[int, int]:
        """An upsert event for every product and store page: (how many, id of the first)."""
        async with self._pool.acquire() as conn, conn.transaction():
            row = await conn.fetchrow(
                """
                WITH added AS (
                    INSERT INTO outbox_event (kind, product_id)
                    SELECT kind, id FROM (
                        SELECT 'product.upserted' AS kind, id, 1 AS aggregate FROM product
                        UNION ALL SELECT 'store_page.upserted', id, 2 FROM store_page
                    ) AS every_aggregate ORDER BY aggregate, id
                    RETURNING id
                )
                SELECT count(*) AS n, coalesce(min(id), 0) AS first FROM added
                """
            )
            await conn.execute("SELECT pg_notify($1, '')", OUTBOX_CHANNEL)
        assert row is not None  # aggregates without GROUP BY: always one row
        return row["n"], row["first"]

    async def enqueue_indexed_with_other_models(self, model: str) -> int:
        async with self._pool.acquire() as conn, conn.transaction():
            # One at a time: a second indexer starting meanwhile sees the first one's events.
            await conn.execute("SELECT pg_advisory_xact_lock(hashtext('shopagent.outbox.model_change'))")
            added = await conn.fetchval(
                """
                WITH stale AS (
                    SELECT 'product.upserted' AS kind, product_id AS id, 1 AS aggregate FROM product_index
                    WHERE model <> $1
                    UNION ALL SELECT 'store_page.upserted', page_id, 2 FROM store_page_index WHERE model <> $1
                ), added AS (
                    INSERT INTO outbox_event (kind, product_id)
                    SELECT kind, id FROM stale s WHERE NOT EXISTS (
                        SELECT 1 FROM outbox_event e
                        WHERE e.product_id = s.id AND e.kind = s.kind AND e.status = 'pending'
                    )
                    ORDER BY aggregate, id
                    RETURNING id
                )
                SELECT count(*) FROM added
                """,
                model,
            )
            if added:
                await conn.execute("SELECT pg_notify($1, '')", OUTBOX_CHANNEL)
        return added

    async def finished_since(self, first_event: int) -> int:
        """How many events from `first_event` on are finished (done or dead-lettered)."""
        async with self._pool.acquire() as conn:
            return await conn.fetchval(
                "SELECT count(*) FROM outbox_event WHERE id >= $1 AND status <> 'pending'", first_event
            )

    async def unfinished_through(self, last_event: int) -> int:
        """How many events up to `last_event` are not finished yet (waiting or in flight)."""
        async with self._pool.acquire() as conn:
            return await conn.fetchval(
                "SELECT count(*) FROM outbox_event WHERE id <= $1 AND status = 'pending'", last_event
            )


async def complete_events(conn: Connection, events: Sequence[OutboxEvent]) -> list[int]:
    """Mark the events done, and older unclaimed events of the same products with them, on
    the caller's connection (in its transaction: the indexing unit of work, `indexing_unit`).

    Those older events are covered: the product (or store page: events of the same id but
    another aggregate are not) was read after they committed (catalog
    writes lock the product row before inserting their event, so a product's event ids
    follow commit order). Returns the ids this call completed.
    """
    done = await conn.fetch(
        """
        UPDATE outbox_event SET status = 'done', done_at = now(), locked_until = NULL
        WHERE id = ANY($1::bigint[]) AND status = 'pending'
        RETURNING id
        """,
        [e.id for e in events],
    )
    newest: dict[tuple[str, int], int] = {}
    for e in events:
        key = (e.kind.aggregate, e.product_id)
        newest[key] = max(e.id, newest.get(key, 0))
    await conn.execute(
        """
        UPDATE outbox_event e SET status = 'done', done_at = now(), last_error = 'covered by event ' || t.event_id
        FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS t(aggregate, product_id, event_id)
        WHERE e.product_id = t.product_id AND e.id < t.event_id AND e.status = 'pending'
          AND split_part(e.kind, '.', 1) = t.aggregate
          AND (e.locked_until IS NULL OR e.locked_until < now())
        """,
        [aggregate for aggregate, _ in newest],
        [aggregate_id for _, aggregate_id in newest],
        list(newest.values()),
    )
    return [r["id"] for r in done]


async def postpone_events(conn: Connection, events: Sequence[OutboxEvent], delay: float) -> None:
    """Hand the events back, due again in `delay` seconds, on the caller's connection: their
    product was busy, which is nobody's failure (no attempt is counted)."""
    if not events:
        return
    await conn.execute(
        """
        UPDATE outbox_event SET locked_until = NULL, locked_by = NULL,
            available_at = now() + make_interval(secs => $2)
        WHERE id = ANY($1::bigint[]) AND status = 'pending'
        """,
        [e.id for e in events],
        delay,
    )
