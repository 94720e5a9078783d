"""mcp actor: the MCP Streamable HTTP server at /mcp.

Stateless with JSON responses, so any replica can answer any request. The HTTP app is built
anew on every start because the SDK's session manager can run only once per app. Ready once
the socket is bound and the session manager runs (the app's lifespan started).
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
from anyio.abc import TaskStatus
from mcp.server.lowlevel import Server
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp, Scope

from shopagent.actors.serving import McpServing, closed_counter
from shopagent.application.limits import RateLimit
from shopagent.domain.errors import ConfigError
from shopagent.entrypoints.mcp.auth import BearerKey, PostOnly, Throttle
from shopagent.entrypoints.mcp.bodies import BodyFirst
from shopagent.entrypoints.mcp.fast_path import FastToolCalls
from shopagent.entrypoints.mcp.server import CatalogServer
from shopagent.runtime.asgi import bind_tcp, is_loopback, serve_asgi
from shopagent.runtime.metrics import Metrics, RequestMetrics
from shopagent.settings import McpSettings

log = logging.getLogger("shopagent.mcp")


def transport_security(mcp: McpSettings) -> TransportSecuritySettings:
    """Host/Origin checks against DNS rebinding: the configured allow-list, else loopback names."""
    if mcp.allowed_hosts or mcp.allowed_origins:
        return TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=list(mcp.allowed_hosts),
            allowed_origins=list(mcp.allowed_origins),
        )
    if is_loopback(mcp.host):
        return TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
            allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
        )
    return TransportSecuritySettings(enable_dns_rebinding_protection=False)


def build_mcp_app(
    server: Server[Any],
    serving: McpServing,
    limit: RateLimit | None = None,
    metrics: Metrics | None = None,
    own_chat_limit: RateLimit | None = None,
) -> ASGIApp:
    """The Streamable HTTP app (stateless, JSON responses), behind the bearer key if one is set,
    and `limit` per key (per client address without one), shared by every replica; its
    requests counted on `metrics` (refused ones included)."""
    mcp, key = serving.mcp, serving.key
    if key is None and not is_loopback(mcp.host):
        raise ConfigError(
            f"refusing to serve MCP on {mcp.host} without a key; set SHOPAGENT_MCP_API_KEY (or listen on 127.0.0.1)"
        )
    security = transport_security(mcp)
    app: ASGIApp = server.streamable_http_app(
        stateless_http=True,
        json_response=True,
        host=mcp.host,
        transport_security=security,
        max_request_body_size=mcp.max_body_bytes,
    )
    if not mcp.fast_path:
        log.info("the MCP fast path is off (mcp.fast_path = false): every request goes through the SDK")
    elif isinstance(server, CatalogServer):  # our tools: their ordinary calls skip the SDK's machinery
        app = FastToolCalls(app, server, security, max_body=mcp.max_body_bytes)
    app = PostOnly(BodyFirst(app, max_body=mcp.max_body_bytes))
    if limit is not None:
        app = Throttle(app, limit, own_chat_limit)
    if key is None:
        log.warning("MCP on %s has no key: any local process can call it; set SHOPAGENT_MCP_API_KEY", mcp.host)
    else:
        app = BearerKey(app, key)
    if metrics is not None:
        app = RequestMetrics(app, metrics=metrics, server="mcp", route_of=_mcp_route)
    return app


def _mcp_route(scope: Scope) -> str:
    return "/mcp" if scope["path"].rstrip("/") == "/mcp" else "other"


async def run_mcp(
    serving: McpServing,
    server: Server[Any],
    *,
    limit: RateLimit | None = None,
    metrics: Metrics | None = None,
    own_chat_limit: RateLimit | None = None,
    task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    app = build_mcp_app(server, serving, limit, metrics, own_chat_limit)
    listening = serving.listening
    sock = bind_tcp(listening.host, listening.port, what="mcp")
    await serve_asgi(
        app,
        sock,
        name="mcp",
        grace_seconds=listening.grace_seconds,
        access_log=listening.access_log,
        limits=listening.limits,
        on_closed=closed_counter(metrics, "mcp"),
        task_status=task_status,
    )
