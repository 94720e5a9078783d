"""The ops app, served in every role: liveness, readiness and Prometheus metrics."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import msgspec
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
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


def build_ops_app(health: Callable[[], Awaitable[Health]]) -> Starlette:
    async def healthz(request: Request) -> Response:
        return Response(b'{"status":"ok"}', media_type="application/json")

    async def readyz(request: Request) -> Response:
        report = await health()
        return Response(
            _encoder.encode(report), status_code=200 if report.ready else 503, media_type="application/json"
        )

    async def metrics(request: Request) -> Response:
        return PlainTextResponse(render_metrics(await health()), media_type="text/plain; version=0.0.4")

    routes = [
        Route("/healthz", healthz, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
        Route("/metrics", metrics, methods=["GET"]),
    ]
    return Starlette(routes=routes, exception_handlers=EXCEPTION_HANDLERS)


def render_metrics(report: Health) -> str:
    lines = [
        "# HELP shopagent_ready 1 when every actor of this process is ready.",
        "# TYPE shopagent_ready gauge",
        f"shopagent_ready {int(report.ready)}",
        "# HELP shopagent_actor_ready 1 when the actor is ready.",
        "# TYPE shopagent_actor_ready gauge",
        *(f'shopagent_actor_ready{{actor="{a.name}"}} {int(a.state == "ready")}' for a in report.actors),
        "# HELP shopagent_actor_restarts_total Restarts of the actor since the process started.",
        "# TYPE shopagent_actor_restarts_total counter",
        *(f'shopagent_actor_restarts_total{{actor="{a.name}"}} {a.restarts}' for a in report.actors),
    ]
    if report.dependencies:
        lines += [
            "# HELP shopagent_dependency_up 1 when the dependency answered the last check.",
            "# TYPE shopagent_dependency_up gauge",
            *(f'shopagent_dependency_up{{dependency="{d.name}"}} {int(d.state == "up")}' for d in report.dependencies),
        ]
    if report.indexing is not None:
        lines += [
            "# HELP shopagent_outbox_events Outbox events not finished, by state.",
            "# TYPE shopagent_outbox_events gauge",
            f'shopagent_outbox_events{{state="pending"}} {report.indexing.pending}',
            f'shopagent_outbox_events{{state="in_flight"}} {report.indexing.in_flight}',
            f'shopagent_outbox_events{{state="dead"}} {report.indexing.dead}',
        ]
    if report.mailbox is not None:
        lines += [
            "# HELP shopagent_mailbox_depth Items waiting in the indexing mailbox.",
            "# TYPE shopagent_mailbox_depth gauge",
            f"shopagent_mailbox_depth {report.mailbox.depth}",
            "# HELP shopagent_mailbox_capacity Capacity of the indexing mailbox.",
            "# TYPE shopagent_mailbox_capacity gauge",
            f"shopagent_mailbox_capacity {report.mailbox.capacity}",
        ]
    return "\n".join(lines) + "\n"
