"""The public HTTP app (chat, conversations, admin). Routes arrive with their features."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from shopagent import __version__
from shopagent.entrypoints.http.errors import EXCEPTION_HANDLERS


def build_http_app(store_name: str) -> Starlette:
    async def index(request: Request) -> JSONResponse:
        return JSONResponse({"service": "shopagent", "store": store_name, "version": __version__})

    routes = [Route("/api", index, methods=["GET"])]
    return Starlette(routes=routes, exception_handlers=EXCEPTION_HANDLERS)
