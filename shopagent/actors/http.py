"""http actor: the public HTTP API. Ready once its socket is bound."""

from __future__ import annotations

import anyio
from anyio.abc import TaskStatus

from shopagent.entrypoints.http.app import build_http_app
from shopagent.runtime.asgi import bind_tcp, serve_asgi
from shopagent.settings import Settings


async def run_http(settings: Settings, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
    sock = bind_tcp(settings.http.host, settings.http.port, what="http")
    await serve_asgi(
        build_http_app(settings.store.name),
        sock,
        name="http",
        grace_seconds=settings.runtime.shutdown_grace_seconds,
        access_log=settings.logging.access_log,
        task_status=task_status,
    )
