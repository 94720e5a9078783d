"""embedding-pool actor: N workers, each with its own clone of the mailbox's receiving end.

Ready once every worker holds its clone. A handler exception crashes the pool, and the
supervisor restarts it; the job's durable record (its outbox row) is what guarantees it
is not lost.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from functools import partial
from typing import TypeVar

import anyio
from anyio.abc import TaskStatus
from anyio.streams.memory import MemoryObjectReceiveStream

from shopagent.runtime.mailbox import Mailbox

log = logging.getLogger("shopagent.embedding_pool")
T = TypeVar("T")


async def run_embedding_pool(
    mailbox: Mailbox[T],
    handle: Callable[[T], Awaitable[None]],
    *,
    workers: int,
    task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    async with anyio.create_task_group() as tg:
        for number in range(workers):
            await tg.start(partial(_work, mailbox.receiver(), handle, number))
        task_status.started()


async def _work(
    inbox: MemoryObjectReceiveStream[T],
    handle: Callable[[T], Awaitable[None]],
    number: int,
    *,
    task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    async with inbox:
        task_status.started()
        async for job in inbox:
            await handle(job)
