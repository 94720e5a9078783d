"""The public HTTP app: service info plus the route groups of each feature."""

from __future__ import annotations

from collections.abc import Sequence

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route
from starlette.types import Lifespan

from shopagent import __version__
from shopagent.entrypoints.http.errors import EXCEPTION_HANDLERS


def build_http_app(
    store_name: str,
    routes: Sequence[BaseRoute] = (),
    lifespan: Lifespan | None = None,
    *,
    cors_origins: Sequence[str] = (),
) -> Starlette:
    """`cors_origins`: browser origins that may call the API from their pages (preflight included).
    Credentials are bearer tokens in a header, never cookies, so none are allowed."""

    async def index(request: Request) -> JSONResponse:
        return JSONResponse({"service": "shopagent", "store": store_name, "version": __version__})

    middleware = []
    if cors_origins:
        middleware.append(
            Middleware(
                CORSMiddleware,
                allow_origins=list(cors_origins),
                allow_methods=["GET", "POST", "PUT", "DELETE"],
                allow_headers=["Authorization", "Content-Type", "Accept", "Last-Event-ID"],
                expose_headers=["Retry-After", "Location"],
                max_age=600,
            )
        )
    return Starlette(
        routes=[Route("/api", index, methods=["GET"]), *routes],
        exception_handlers=EXCEPTION_HANDLERS,
        lifespan=lifespan,
        middleware=middleware,
    )
