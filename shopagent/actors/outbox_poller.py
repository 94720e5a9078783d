"""outbox-poller actor: claims due outbox events and feeds them into the mailbox.

It LISTENs on a dedicated connection so a committed catalog write wakes it at once;
polling every `poll_interval_seconds` is only the fallback. It claims through `Leases`, no
further ahead than the workers start soon, and keeps the held leases renewed. Ready once
LISTEN is registered and the first claim has run.

A database outage pauses it: it waits until the database answers again, then listens and
claims anew (the supervisor's restart budget is for bugs, not for a database restart). On a
stop, the events it claimed and that are not finished are released for another indexer.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

import anyio
from anyio.abc import TaskStatus

from shopagent.adapters.postgres.catalog import OUTBOX_CHANNEL
from shopagent.adapters.postgres.database import GuardedPool
from shopagent.application.leases import Leases
from shopagent.domain.errors import DatabaseUnavailable
from shopagent.domain.indexing import OutboxEvent
from shopagent.runtime.mailbox import Mailbox

log = logging.getLogger("shopagent.outbox_poller")
_RELEASE_SECONDS = 2.0  # at most this long, on a stop, to hand the unfinished events back


async def run_outbox_poller(
    database: GuardedPool,
    mailbox: Mailbox[OutboxEvent],
    leases: Leases,
    *,
    batch: int,
    poll_interval_seconds: float,
    task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    ready = False

    def started() -> None:
        nonlocal ready
        if not ready:
            ready = True
            task_status.started()

    try:
        async with mailbox.sender() as outbox, anyio.create_task_group() as tg:
            tg.start_soon(leases.keep_renewed)
            while True:
                try:
                    await _listen_and_claim(database, mailbox, outbox, leases, batch, poll_interval_seconds, started)
                except DatabaseUnavailable:
                    if not ready:
                        raise  # at start-up, a clear failure is better than waiting in silence
                await database.wait_until_up()
    except anyio.get_cancelled_exc_class():
        with anyio.CancelScope(shield=True), anyio.move_on_after(_RELEASE_SECONDS):
            held = leases.held
            try:
                released = await leases.release_all()
            except DatabaseUnavailable:
                log.warning("could not release %d claimed event(s): the database is away; their leases run out", held)
            else:
                if released:
                    log.info("released %d claimed event(s) not finished here, for another indexer", released)
        raise


async def _listen_and_claim(
    database: GuardedPool,
    mailbox: Mailbox[OutboxEvent],
    outbox: Any,
    leases: Leases,
    batch: int,
    poll_interval_seconds: float,
    started: Any,
) -> None:
    """Listen and claim until the LISTEN connection is lost (returns) or a claim meets an
    outage (raises DatabaseUnavailable)."""
    # Named after the worker: while this connection lives, other indexers leave our leases be.
    conn = await database.connect(application_name=leases.worker)
    wake = anyio.Event()

    def wake_up(*_: Any) -> None:
        # A NOTIFY means work; a lost connection must wake us too, to listen again.
        wake.set()

    try:
        conn.add_termination_listener(wake_up)
        await conn.add_listener(OUTBOX_CHANNEL, wake_up)
        while not conn.is_closed():
            await leases.wait_for_room()
            requested = min(batch, leases.room(), _mailbox_room(mailbox))
            claimed = await leases.claim(requested)
            started()
            for event in claimed:
                try:
                    # All at once, not yielding between events, so a worker that wakes
                    # finds the whole claim waiting and takes it as one batch.
                    outbox.send_nowait(event)
                except anyio.WouldBlock:
                    await outbox.send(event)  # waits while the mailbox is full: backpressure
            if len(claimed) < requested:  # caught up: sleep until notified (or the poll interval)
                with anyio.move_on_after(poll_interval_seconds):
                    await wake.wait()
                wake = anyio.Event()
        log.warning("the LISTEN connection to PostgreSQL was lost; listening again")
    finally:
        # A connection the outage broke may fail to close: it is gone either way.
        with anyio.CancelScope(shield=True), anyio.move_on_after(2), contextlib.suppress(Exception):
            await conn.close()


def _mailbox_room(mailbox: Mailbox[OutboxEvent]) -> int:
    stats = mailbox.statistics()
    return max(1, stats.capacity - stats.depth)
