"""SIGTERM/SIGINT turn into cancellation of the main scope: a graceful stop."""

from __future__ import annotations

import logging
import signal

import anyio
from anyio.abc import TaskStatus

log = logging.getLogger("shopagent.signals")

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class StopRequest:
    """Whether, when and by which signal the process was asked to stop.

    `requested` is set at once, so that servers can refuse new work and finish what runs
    within the grace period (`at` is the `anyio.current_time()` of the request).
    """

    def __init__(self) -> None:
        self.signal: signal.Signals | None = None
        self.requested = anyio.Event()
        self.at: float | None = None

    def request(self, received: signal.Signals | None = None) -> None:
        if self.at is None:
            self.signal = received
            self.at = anyio.current_time()
            self.requested.set()


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
            if stop.at is None:
                stop.request(received)
                log.info("received %s: stopping (grace period %.0fs)", received.name, grace_seconds)
                scope.cancel()
            else:
                log.warning("received %s again: still stopping, within %.0fs", received.name, grace_seconds)
