"""What the http, mcp and ops actors share: their connection bounds and where they are counted."""

from __future__ import annotations

from collections.abc import Callable

from shopagent.runtime.connections import ConnectionLimits, default_max_connections
from shopagent.runtime.metrics import Metrics
from shopagent.settings import Settings

# The ops server answers probes and scrapes, a handful at a time.
OPS_MAX_CONNECTIONS = 64


def connection_limits(settings: Settings, *, ops: bool = False) -> ConnectionLimits:
    c = settings.connections
    cap = c.max_per_server or default_max_connections()
    return ConnectionLimits(
        max_connections=min(cap, OPS_MAX_CONNECTIONS) if ops and not c.max_per_server else cap,
        header_timeout_seconds=c.header_timeout_seconds,
        body_timeout_seconds=c.body_timeout_seconds,
        keep_alive_seconds=c.keep_alive_seconds,
    )


def closed_counter(metrics: Metrics | None, server: str) -> Callable[[str], None] | None:
    """`on_closed` for serve_asgi: counts on `metrics` under `server`."""
    if metrics is None:
        return None
    counter = metrics.connections_closed

    def closed(reason: str) -> None:
        counter.labels(server, reason).inc()

    return closed
