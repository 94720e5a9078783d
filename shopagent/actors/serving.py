"""What the http, mcp and ops actors share: what they take of the settings (`Listening`, made
by the composition root), and where their connections are counted."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from shopagent.runtime.connections import ConnectionLimits
from shopagent.runtime.metrics import Metrics
from shopagent.settings import McpSettings


@dataclass(frozen=True)
class Listening:
    """A server actor's part of the settings: where it listens, how long a stop may drain its
    requests, its connection bounds, and whether it logs every request."""

    host: str
    port: int
    grace_seconds: float
    limits: ConnectionLimits
    access_log: bool = False


@dataclass(frozen=True)
class McpServing:
    """The mcp actor's part of the settings: where it listens, its section, its key."""

    listening: Listening
    mcp: McpSettings
    key: str | None


def closed_counter(metrics: Metrics | None, server: str) -> Callable[[str], None] | None:
    """`on_closed` for serve_asgi: counts on `metrics` under `server`."""
    if metrics is None:
        return None
    counter = metrics.connections_closed

    def closed(reason: str) -> None:
        counter.labels(server, reason).inc()

    return closed
