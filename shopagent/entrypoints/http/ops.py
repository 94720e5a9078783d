"""The ops app, served in every role: liveness, readiness and Prometheus metrics."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import msgspec
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.metrics_core import Metric
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from shopagent.entrypoints.http.errors import EXCEPTION_HANDLERS


class ActorHealth(msgspec.Struct, frozen=True, rename="camel"):
    name: str
    state: str
    restarts: int
    last_error: str | None


class MailboxHealth(msgspec.Struct, frozen=True, rename="camel"):
    capacity: int
    depth: int
    waiting_senders: int
    waiting_receivers: int


class DependencyHealth(msgspec.Struct, frozen=True, rename="camel"):
    name: str  # "database", "mcp"
    state: str  # "up" or "down"
    required: bool  # down and required: not ready; down and not required: degraded
    detail: str | None = None


class IndexingHealth(msgspec.Struct, frozen=True, rename="camel"):
    """The catalog's indexing backlog (in an indexer role): products whose latest change is not
    searchable yet."""

    pending: int
    in_flight: int
    dead: int
    oldest_due_seconds: float = 0.0  # how long the oldest due (or in-flight) event has waited


class Health(msgspec.Struct, frozen=True, rename="camel"):
    """`status`: "ready"; "degraded" (serving, an optional dependency is down); "unavailable"
    (a required dependency is down); "starting" (an actor is not ready yet)."""

    ready: bool
    status: str
    actors: list[ActorHealth]
    mailbox: MailboxHealth | None
    dependencies: list[DependencyHealth] = []
    indexing: IndexingHealth | None = None


_encoder = msgspec.json.Encoder()
# The classic text format, which every Prometheus version reads (generate_latest writes it).
METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def build_ops_app(health: Callable[[], Awaitable[Health]], render_metrics: Callable[[], Awaitable[bytes]]) -> Starlette:
    """`render_metrics`: the process's metrics in the Prometheus text format, read anew."""

    async def healthz(request: Request) -> Response:
        return Response(b'{"status":"ok"}', media_type="application/json")

    async def readyz(request: Request) -> Response:
        report = await health()
        return Response(
            _encoder.encode(report), status_code=200 if report.ready else 503, media_type="application/json"
        )

    async def metrics(request: Request) -> Response:
        return Response(await render_metrics(), media_type=METRICS_CONTENT_TYPE)

    routes = [
        Route("/healthz", healthz, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
        Route("/metrics", metrics, methods=["GET"]),
    ]
    return Starlette(routes=routes, exception_handlers=EXCEPTION_HANDLERS)


def health_families(report: Health) -> list[Metric]:
    """The readiness report as Prometheus families (the series /metrics has always had)."""
    ready = GaugeMetricFamily("shopagent_ready", "1 when every actor of this process is ready.", value=report.ready)
    actor_ready = GaugeMetricFamily("shopagent_actor_ready", "1 when the actor is ready.", labels=["actor"])
    restarts = CounterMetricFamily(
        "shopagent_actor_restarts", "Restarts of the actor since the process started.", labels=["actor"]
    )
    for actor in report.actors:
        actor_ready.add_metric([actor.name], actor.state == "ready")
        restarts.add_metric([actor.name], actor.restarts)
    families: list[Metric] = [ready, actor_ready, restarts]
    if report.dependencies:
        up = GaugeMetricFamily(
            "shopagent_dependency_up", "1 when the dependency answered the last check.", labels=["dependency"]
        )
        for dependency in report.dependencies:
            up.add_metric([dependency.name], dependency.state == "up")
        families.append(up)
    if (indexing := report.indexing) is not None:
        events = GaugeMetricFamily("shopagent_outbox_events", "Outbox events not finished, by state.", labels=["state"])
        events.add_metric(["pending"], indexing.pending)
        events.add_metric(["in_flight"], indexing.in_flight)
        events.add_metric(["dead"], indexing.dead)
        families += [
            events,
            GaugeMetricFamily(
                "shopagent_outbox_dead_letters", "Dead-lettered outbox events (see `shopagent index status`).",
                value=indexing.dead,
            ),
            GaugeMetricFamily(
                "shopagent_outbox_oldest_due_age_seconds",
                "How long the oldest event that is due (claimable or in flight) has waited; 0 when none is.",
                value=indexing.oldest_due_seconds,
            ),
        ]  # fmt: skip
    if report.mailbox is not None:
        families += [
            GaugeMetricFamily("shopagent_mailbox_depth", "Items waiting in the indexing mailbox.",
                              value=report.mailbox.depth),
            GaugeMetricFamily("shopagent_mailbox_capacity", "Capacity of the indexing mailbox.",
                              value=report.mailbox.capacity),
        ]  # fmt: skip
    return families


async def health_metrics(health: Callable[[], Awaitable[Health]]) -> list[Metric]:
    """A metrics source: the readiness report, taken now."""
    return health_families(await health())
