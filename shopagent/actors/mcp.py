"""mcp actor: the MCP Streamable HTTP server at /mcp.

Stateless with JSON responses, so any replica can answer any request. The server object is
built anew on every start because its session manager can run only once per instance.
Ready once the socket is bound and the session manager runs (the app's lifespan started).
"""

from __future__ import annotations

import anyio
from anyio.abc import TaskStatus

from shopagent.entrypoints.mcp.server import build_mcp_server
from shopagent.runtime.asgi import bind_tcp, serve_asgi
from shopagent.settings import Settings


async def run_mcp(settings: Settings, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
    server = build_mcp_server(settings.store.name)
    app = server.streamable_http_app(stateless_http=True, json_response=True, host=settings.mcp.host)
    sock = bind_tcp(settings.mcp.host, settings.mcp.port, what="mcp")
    await serve_asgi(
        app,
        sock,
        name="mcp",
        grace_seconds=settings.runtime.shutdown_grace_seconds,
        access_log=settings.logging.access_log,
        task_status=task_status,
    )
