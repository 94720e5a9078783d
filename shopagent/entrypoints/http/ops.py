"""The ops app, served in every role: liveness, readiness and Prometheus metrics."""

from __future__ import annotations

from collections.abc import Callable

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


class Health(msgspec.Struct, frozen=True, rename="camel"):
    ready: bool
    actors: list[ActorHealth]
    mailbox: MailboxHealth | None


_encoder = msgspec.json.Encoder()


def build_ops_app(health: Callable[[], Health]) -> Starlette:
    async def healthz(request: Request) -> Response:
        return Response(b'{"status":"ok"}', media_type="application/json")

    async def readyz(request: Request) -> Response:
        report = health()
        return Response(
            _encoder.encode(report), status_code=200 if report.ready else 503, media_type="application/json"
        )

    async def metrics(request: Request) -> Response:
        return PlainTextResponse(render_metrics(health()), media_type="text/plain; version=0.0.4")

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
