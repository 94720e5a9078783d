"""SIGTERM/SIGINT turn into cancellation of the main scope: a graceful stop."""

from __future__ import annotations

import logging
import signal

import anyio
from anyio.abc import TaskStatus

log = logging.getLogger("shopagent.signals")

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class StopRequest:
    """Records which signal asked the process to stop (None: none did)."""

    def __init__(self) -> None:
        self.signal: signal.Signals | None = None


async def cancel_on_signals(
    scope: anyio.CancelScope,
    stop: StopRequest,
    *,
    grace_seconds: float,
    task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Cancel `scope` on the first stop signal; keep listening so later ones are only logged.

    Run this outside `scope` and cancel it once the scope has finished its cleanup.
    """
    with anyio.open_signal_receiver(*STOP_SIGNALS) as signals:
        task_status.started()
        async for signum in signals:
            received = signal.Signals(signum)
            if stop.signal is None:
                stop.signal = received
                log.info("received %s: stopping (grace period %.0fs)", received.name, grace_seconds)
                scope.cancel()
            else:
                log.warning("received %s again: still stopping, within %.0fs", received.name, grace_seconds)
