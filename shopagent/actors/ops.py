"""ops actor: /healthz, /readyz, /metrics. Ready once its socket is bound."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import anyio
from anyio.abc import TaskStatus

from shopagent.entrypoints.http.ops import Health, build_ops_app
from shopagent.runtime.asgi import bind_tcp, serve_asgi
from shopagent.settings import Settings


async def run_ops(
    settings: Settings,
    health: Callable[[], Awaitable[Health]],
    *,
    task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    sock = bind_tcp(settings.ops.host, settings.ops.port, what="ops")
    await serve_asgi(
        build_ops_app(health),
        sock,
        name="ops",
        grace_seconds=settings.runtime.shutdown_grace_seconds,
        task_status=task_status,
    )
