"""http actor: the public HTTP API. Ready once its socket is bound."""

from __future__ import annotations

from collections.abc import Callable

import anyio
from anyio.abc import TaskStatus
from starlette.types import ASGIApp

from shopagent.actors.serving import closed_counter, connection_limits
from shopagent.runtime.asgi import bind_tcp, serve_asgi
from shopagent.runtime.metrics import Metrics
from shopagent.settings import Settings


async def run_http(
    settings: Settings,
    build_app: Callable[[], ASGIApp],
    *,
    metrics: Metrics | None = None,
    task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    sock = bind_tcp(settings.http.host, settings.http.port, what="http")
    await serve_asgi(
        build_app(),
        sock,
        name="http",
        grace_seconds=settings.runtime.shutdown_grace_seconds,
        access_log=settings.logging.access_log,
        limits=connection_limits(settings),
        on_closed=closed_counter(metrics, "http"),
        task_status=task_status,
    )
