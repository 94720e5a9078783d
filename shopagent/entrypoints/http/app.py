"""The public HTTP app: service info plus the route groups of each feature."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route
from starlette.types import Lifespan

from shopagent import __version__
from shopagent.entrypoints.http.errors import EXCEPTION_HANDLERS
from shopagent.entrypoints.http.headers import ResponseHeaders


def merge_methods(routes: Sequence[BaseRoute]) -> list[BaseRoute]:
    """One route per path, dispatching on the method, so a 405 lists in `Allow` every method
    the path has (Starlette reports those of the first route with that path only)."""
    by_path: dict[str, list[Route]] = {}
    merged: list[BaseRoute] = []
    for route in routes:
        if isinstance(route, Route) and route.methods:
            if route.path not in by_path:
                by_path[route.path] = []
                merged.append(route)  # placeholder, replaced below, keeping the order
            by_path[route.path].append(route)
        else:
            merged.append(route)
    for path, group in by_path.items():
        if len(group) == 1:
            continue
        endpoints = {m: r.endpoint for r in group for m in (r.methods or ())}

        async def dispatch(request: Request, endpoints: dict[str, Any] = endpoints) -> Any:
            return await endpoints[request.method](request)

        combined = Route(path, dispatch, methods=sorted(endpoints))
        merged[merged.index(group[0])] = combined
    return merged


def build_http_app(
    store_name: str,
    routes: Sequence[BaseRoute] = (),
    lifespan: Lifespan[Starlette] | None = None,
    *,
    cors_origins: Sequence[str] = (),
) -> Starlette:
    """`cors_origins`: browser origins that may call the API from their pages (preflight included).
    Credentials are bearer tokens in a header, never cookies, so none are allowed. Every answer
    gets the headers of `ResponseHeaders`."""

    async def index(request: Request) -> JSONResponse:
        return JSONResponse({"service": "shopagent", "store": store_name, "version": __version__})

    middleware = [Middleware(ResponseHeaders)]
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
        routes=merge_methods([Route("/api", index, methods=["GET"]), *routes]),
        exception_handlers=EXCEPTION_HANDLERS,
        lifespan=lifespan,
        middleware=middleware,
    )
