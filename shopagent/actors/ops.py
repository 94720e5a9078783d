"""ops actor: /healthz, /readyz, /metrics. Ready once its socket is bound."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial

import anyio
from anyio.abc import TaskStatus

from shopagent.actors.serving import Listening, closed_counter
from shopagent.entrypoints.http.ops import Health, build_ops_app, health_metrics
from shopagent.runtime.asgi import bind_tcp, serve_asgi
from shopagent.runtime.metrics import Metrics


async def run_ops(
    listening: Listening,
    health: Callable[[], Awaitable[Health]],
    *,
    metrics: Metrics | None = None,
    task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """`metrics`: the process's (its sources include the health report); without them, the
    health report's series alone."""
    if metrics is None:
        metrics = Metrics()
        metrics.add_source("health", partial(health_metrics, health))
    sock = bind_tcp(listening.host, listening.port, what="ops")
    await serve_asgi(
        build_ops_app(health, metrics.render),
        sock,
        name="ops",
        grace_seconds=listening.grace_seconds,
        limits=listening.limits,
        on_closed=closed_counter(metrics, "ops"),
        task_status=task_status,
    )
