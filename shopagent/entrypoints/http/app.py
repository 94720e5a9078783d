"""The public HTTP app: service info plus the route groups of each feature."""

from __future__ import annotations

from collections.abc import Sequence

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route
from starlette.types import Lifespan

from shopagent import __version__
from shopagent.entrypoints.http.errors import EXCEPTION_HANDLERS


def build_http_app(store_name: str, routes: Sequence[BaseRoute] = (), lifespan: Lifespan | None = None) -> Starlette:
    async def index(request: Request) -> JSONResponse:
        return JSONResponse({"service": "shopagent", "store": store_name, "version": __version__})

    return Starlette(
        routes=[Route("/api", index, methods=["GET"]), *routes],
        exception_handlers=EXCEPTION_HANDLERS,
        lifespan=lifespan,
    )
