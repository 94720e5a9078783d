"""The public HTTP app: chat and conversations, admin, visitor tokens, the web page, OpenAPI.

The chat service exists only while the app's lifespan runs (it holds the model and the tool
gateway); `RunningChat` is where the routes find it and the task group its turns run in.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, Protocol

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from shopagent.application.catalog import CatalogService
from shopagent.application.conversations import ChatService
from shopagent.application.index_status import IndexStatus
from shopagent.application.insights import UnmetSearchLog
from shopagent.application.limits import RateLimit
from shopagent.application.store_pages import StorePageService
from shopagent.entrypoints.http.admin import admin_routes
from shopagent.entrypoints.http.admin_insights import insights_routes
from shopagent.entrypoints.http.admin_pages import store_page_routes
from shopagent.entrypoints.http.app import build_http_app
from shopagent.entrypoints.http.chat import TurnGuard, chat_routes
from shopagent.entrypoints.http.openapi import openapi_document
from shopagent.entrypoints.http.pictures import picture_routes
from shopagent.entrypoints.http.visitors import VisitorBudgets, visitor_routes
from shopagent.entrypoints.http.web import web_routes

log = logging.getLogger("shopagent")


class Stop(Protocol):
    """The process's stop request: `requested` is set at once, `at` is its `anyio.current_time()`."""

    requested: anyio.Event
    at: float | None


@dataclass(frozen=True, kw_only=True)
class PublicApi:
    """What the public app serves with: collaborators, limits and the chat API's options."""

    store_name: str
    auth_secret: str
    admin_key: str | None  # None: the admin API is disabled
    catalog: CatalogService
    index_status: Callable[[], Awaitable[IndexStatus]]
    open_chat: Callable[[], AbstractAsyncContextManager[ChatService]]  # held for the app's lifetime
    chat_limit: RateLimit
    admin_limit: RateLimit
    visitor_limit: RateLimit
    read_limit: RateLimit | None = None  # listing, reading, deleting conversations, per user
    visitor_budgets: VisitorBudgets | None = None
    audit_result_chars: int
    token_max_ttl_seconds: int
    sse_ping_seconds: float
    anonymous_chat: bool
    visitor_token_ttl_seconds: int
    cors_origins: Sequence[str]
    stop: Stop  # the process's stop: refuse new turns, end running ones within the grace period
    grace_seconds: float
    store_pages: StorePageService | None = None  # None: no store-pages admin API
    unmet_searches: UnmetSearchLog | None = None  # None: no insights on the admin API


class RunningChat:
    """The chat service and the task group its turns run in, while the app's lifespan runs."""

    def __init__(self) -> None:
        self._service: ChatService | None = None
        self._spawn: Callable[..., object] | None = None

    def service(self) -> ChatService:
        if self._service is None:
            raise RuntimeError("the chat service runs only while the app's lifespan does")
        return self._service

    def spawn(self, function: Callable[..., Awaitable[None]], *args: Any) -> None:
        if self._spawn is None:
            raise RuntimeError("chat turns run only while the app's lifespan does")
        self._spawn(function, *args)

    @contextlib.contextmanager
    def serving(self, service: ChatService, spawn: Callable[..., object]) -> Any:
        self._service, self._spawn = service, spawn
        try:
            yield
        finally:
            self._service = self._spawn = None


def public_app(api: PublicApi) -> Starlette:
    """The public app over `api`."""
    guard = TurnGuard()
    chat = RunningChat()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with api.open_chat() as service, anyio.create_task_group() as turns:
            with chat.serving(service, turns.start_soon):
                watching = anyio.CancelScope()
                turns.start_soon(_run_in, watching, end_turns_in_time)
                yield
                watching.cancel()
                guard.close()
                guard.end_all()  # turns the client left (an event stream it dropped) end here too

    async def end_turns_in_time() -> None:
        """On a stop: refuse new turns at once, and end those still running a second before
        the grace period is over, so that each gets its answer (503) before the server closes."""
        await api.stop.requested.wait()
        guard.close()
        stopped_at = api.stop.at if api.stop.at is not None else anyio.current_time()
        await anyio.sleep_until(stopped_at + max(api.grace_seconds - 1.0, api.grace_seconds / 2))
        if guard.running:
            log.warning("ending %d chat turn(s) still running at the end of the grace period", guard.running)
        guard.end_all()

    routes = public_routes(api, chat, guard)
    return build_http_app(api.store_name, routes, lifespan=lifespan, cors_origins=api.cors_origins)


def public_routes(api: PublicApi, chat: RunningChat, guard: TurnGuard) -> list[BaseRoute]:
    """Every route of the public app, /openapi.json (which documents them) included."""
    routes = [
        *chat_routes(
            chat.service,
            api.auth_secret,
            api.chat_limit,
            chat.spawn,
            audit_result_chars=api.audit_result_chars,
            token_max_ttl_seconds=api.token_max_ttl_seconds,
            sse_ping_seconds=api.sse_ping_seconds,
            guard=guard,
            read_limiter=api.read_limit,
            visitors=api.visitor_budgets,
        ),
        *admin_routes(api.catalog, api.index_status, api.admin_key, api.admin_limit),
        *(store_page_routes(api.store_pages, api.admin_key, api.admin_limit) if api.store_pages else []),
        *(insights_routes(api.unmet_searches, api.admin_key, api.admin_limit) if api.unmet_searches else []),
        *visitor_routes(
            api.auth_secret,
            api.visitor_limit,
            enabled=api.anonymous_chat,
            ttl_seconds=api.visitor_token_ttl_seconds,
            budgets=api.visitor_budgets,
        ),
    ]
    return [*routes, openapi_route(api.store_name, routes), *web_routes(api.store_name), *picture_routes()]


def openapi_route(store_name: str, routes: Sequence[BaseRoute]) -> Route:
    """GET /openapi.json: the document of `routes`, built once."""
    document = openapi_document(store_name, routes)

    async def openapi(request: Request) -> JSONResponse:
        return JSONResponse(document)

    return Route("/openapi.json", openapi, methods=["GET"])


async def _run_in(scope: anyio.CancelScope, function: Callable[[], Awaitable[None]]) -> None:
    with scope:
        await function()
