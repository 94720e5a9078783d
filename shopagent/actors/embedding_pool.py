"""embedding-pool actor: N workers, each with its own clone of the mailbox's receiving end.

A worker takes what the mailbox holds, up to `batch` jobs, and hands them to the handler
together (one round trip and one embedding call serve many jobs). Ready once every worker
holds its clone. A handler exception crashes the pool, and the supervisor restarts it;
each job's durable record (its outbox row) is what guarantees it is not lost.

`prepare` runs before the workers start (on every restart too) and `maintain` beside them
once they are up; the indexer uses them to decide when its vector index gets built, and to
build it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Coroutine
from functools import partial
from typing import Any, TypeVar

import anyio
from anyio.abc import TaskStatus
from anyio.streams.memory import MemoryObjectReceiveStream

from shopagent.runtime.mailbox import Mailbox

log = logging.getLogger("shopagent.embedding_pool")
T = TypeVar("T")


async def run_embedding_pool(
    mailbox: Mailbox[T],
    handle: Callable[[list[T]], Awaitable[None]],
    *,
    workers: int,
    batch: int = 1,
    prepare: Callable[[], Awaitable[None]] | None = None,
    maintain: Callable[[], Coroutine[Any, Any, None]] | None = None,
    task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    if prepare is not None:
        await prepare()
    async with anyio.create_task_group() as tg:
        for _ in range(workers):
            await tg.start(partial(_work, mailbox.receiver(), handle, batch))
        task_status.started()
        if maintain is not None:
            tg.start_soon(maintain)


async def _work(
    inbox: MemoryObjectReceiveStream[T],
    handle: Callable[[list[T]], Awaitable[None]],
    batch: int,
    *,
    task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    async with inbox:
        task_status.started()
        async for first in inbox:
            jobs = [first]
            while len(jobs) < batch:
                try:
                    jobs.append(inbox.receive_nowait())
                except anyio.WouldBlock:
                    break
            await handle(jobs)
