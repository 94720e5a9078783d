"""ops actor: /healthz, /readyz, /metrics. Ready once its socket is bound."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial

import anyio
from anyio.abc import TaskStatus

from shopagent.actors.serving import closed_counter, connection_limits
from shopagent.entrypoints.http.ops import Health, build_ops_app, health_metrics
from shopagent.runtime.asgi import bind_tcp, serve_asgi
from shopagent.runtime.metrics import Metrics
from shopagent.settings import Settings


async def run_ops(
    settings: Settings,
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
    sock = bind_tcp(settings.ops.host, settings.ops.port, what="ops")
    await serve_asgi(
        build_ops_app(health, metrics.render),
        sock,
        name="ops",
        grace_seconds=settings.runtime.shutdown_grace_seconds,
        limits=connection_limits(settings, ops=True),
        on_closed=closed_counter(metrics, "ops"),
        task_status=task_status,
    )
