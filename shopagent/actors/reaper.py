"""reaper actor: runs housekeeping sweeps every interval (stuck claims, expired leases).

Each sweep is idempotent and safe to run in several processes at once. Ready as soon as
the first tick is scheduled. A failing sweep is logged and retried next tick; it does not
crash the actor, since the next tick is the retry.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import anyio
from anyio.abc import TaskStatus

from shopagent.domain.errors import DatabaseUnavailable, StorageFull

log = logging.getLogger("shopagent.reaper")


@dataclass(frozen=True)
class Sweep:
    name: str
    run: Callable[[], Awaitable[int]]  # returns how many things it released


# Told of every sweep run: (sweep, outcome: ok | skipped | failed, how many it released); for metrics.
SweepObserver = Callable[[str, str, int], None]


async def run_reaper(
    sweeps: Sequence[Sweep],
    *,
    interval_seconds: float,
    observe: SweepObserver | None = None,
    task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    task_status.started()
    while True:
        await anyio.sleep(interval_seconds)
        for sweep in sweeps:
            outcome, released = await _run(sweep)
            if observe is not None:
                observe(sweep.name, outcome, released)


async def _run(sweep: Sweep) -> tuple[str, int]:
    """How the sweep went (ok, skipped, failed) and how many things it released."""
    try:
        released = await sweep.run()
    except StorageFull:
        return "skipped", 0  # said once where it was met; nothing to release needs room meanwhile
    except DatabaseUnavailable as exc:
        log.warning("sweep %s skipped: %s", sweep.name, exc)
        return "skipped", 0
    except Exception:
        log.exception("sweep %s failed; retrying next tick", sweep.name)
        return "failed", 0
    if released:
        log.info("sweep %s released %d", sweep.name, released)
    return "ok", released
