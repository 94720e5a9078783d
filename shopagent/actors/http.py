"""http actor: the public HTTP API. Ready once its socket is bound."""

from __future__ import annotations

from collections.abc import Callable

import anyio
from anyio.abc import TaskStatus
from starlette.types import ASGIApp

from shopagent.actors.serving import Listening, closed_counter
from shopagent.runtime.asgi import bind_tcp, serve_asgi
from shopagent.runtime.metrics import Metrics


async def run_http(
    listening: Listening,
    build_app: Callable[[], ASGIApp],
    *,
    metrics: Metrics | None = None,
    task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    sock = bind_tcp(listening.host, listening.port, what="http")
    await serve_asgi(
        build_app(),
        sock,
        name="http",
        grace_seconds=listening.grace_seconds,
        access_log=listening.access_log,
        limits=listening.limits,
        on_closed=closed_counter(metrics, "http"),
        task_status=task_status,
    )
