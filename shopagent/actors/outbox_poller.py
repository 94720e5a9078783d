"""outbox-poller actor: claims due outbox events and feeds them into the mailbox.

It LISTENs on a dedicated connection so a committed catalog write wakes it at once;
polling every `poll_interval_seconds` is only the fallback. Ready once LISTEN is
registered and the first claim has run. A lost LISTEN connection crashes the actor so the
supervisor restarts it with a fresh one.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import anyio
from anyio.abc import TaskStatus

from shopagent.adapters.postgres.catalog import OUTBOX_CHANNEL
from shopagent.adapters.postgres.database import connect
from shopagent.runtime.mailbox import Mailbox

log = logging.getLogger("shopagent.outbox_poller")
T = TypeVar("T")


async def run_outbox_poller(
    dsn: str,
    mailbox: Mailbox[T],
    claim: Callable[[int], Awaitable[Sequence[T]]],
    *,
    batch: int,
    poll_interval_seconds: float,
    task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    conn = await connect(dsn)
    wake = anyio.Event()

    def wake_up(*_: Any) -> None:
        # A NOTIFY means work; a lost connection must wake us too, to notice and crash.
        wake.set()

    try:
        conn.add_termination_listener(wake_up)
        await conn.add_listener(OUTBOX_CHANNEL, wake_up)
        async with mailbox.sender() as outbox:
            requested = _room(mailbox, batch)
            claimed = await claim(requested)
            task_status.started()
            while True:
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
                if conn.is_closed():
                    raise ConnectionError("the LISTEN connection to PostgreSQL was lost")
                requested = _room(mailbox, batch)
                claimed = await claim(requested)
    finally:
        with anyio.CancelScope(shield=True), anyio.move_on_after(2):
            await conn.close()


def _room(mailbox: Mailbox[T], batch: int) -> int:
    """Claim no more than fits: a claimed event waiting in memory still runs down its lease."""
    stats = mailbox.statistics()
    return max(1, min(batch, stats.capacity - stats.depth))
