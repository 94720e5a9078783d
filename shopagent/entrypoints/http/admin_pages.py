"""The admin store-pages API: /api/admin/store-pages[/{slug}].

Behind the same admin key and rate limit as the catalog API, with the same errors. GET
returns the shape POST and PUT accept (plus the read-only id and timestamps). PUT replaces
the whole page named in the URL, or creates it (201); POST creates a new one (409 when the
slug is taken). Every write reaches the search index through the outbox, as product writes do.
"""

from __future__ import annotations

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from shopagent.application.limits import RateLimit
from shopagent.application.store_pages import StorePageService
from shopagent.domain.catalog import SLUG
from shopagent.domain.store_pages import StorePageInput, page_to_input
from shopagent.entrypoints.http.admin import admin_guard, json_response
from shopagent.entrypoints.http.bodies import read_json
from shopagent.entrypoints.http.errors import ApiError
from shopagent.entrypoints.http.openapi import ApiRoute, Operation

MAX_BODY = 400_000  # a page's text is at most 100 000 characters, each at most 4 bytes


class StorePageList(msgspec.Struct, kw_only=True):
    pages: list[StorePageInput]


def _slug(request: Request) -> str:
    slug: str = request.path_params["slug"]
    if not SLUG.match(slug) or len(slug) > 120:
        raise ApiError(404, "not_found", f"store page {slug!r} does not exist")
    return slug


def _location(slug: str) -> dict[str, str]:
    return {"Location": f"/api/admin/store-pages/{slug}"}


def store_page_routes(pages: StorePageService, admin_key: str | None, limit: RateLimit | None = None) -> list[Route]:
    guarded = admin_guard(admin_key, limit)

    @guarded
    async def list_pages(request: Request) -> Response:
        return json_response(StorePageList(pages=[page_to_input(p) for p in await pages.list()]))

    @guarded
    async def create(request: Request) -> Response:
        page = await pages.create(await read_json(request, StorePageInput, limit=MAX_BODY))
        return json_response(page_to_input(page), 201, headers=_location(page.slug))

    @guarded
    async def read(request: Request) -> Response:
        return json_response(page_to_input(await pages.get(_slug(request))))

    @guarded
    async def replace(request: Request) -> Response:
        slug = _slug(request)
        outcome, page = await pages.put(slug, await read_json(request, StorePageInput, limit=MAX_BODY))
        created = outcome == "created"
        return json_response(page_to_input(page), 201 if created else 200, headers=_location(slug) if created else None)

    @guarded
    async def delete(request: Request) -> Response:
        await pages.delete(_slug(request))
        return Response(status_code=204)

    errors = (400, 401, 403, 429)
    return [
        ApiRoute("/api/admin/store-pages", list_pages, method="GET", operation=Operation(
            "Every store page, by slug", response=StorePageList, security="adminKey", errors=errors)),
        ApiRoute("/api/admin/store-pages", create, method="POST", operation=Operation(
            "Create a store page", ok=201, response=StorePageInput, body=StorePageInput, security="adminKey",
            errors=(*errors, 409, 413), headers={"Location": "the new page's URL"})),
        ApiRoute("/api/admin/store-pages/{slug}", read, method="GET", operation=Operation(
            "One store page", response=StorePageInput, security="adminKey", errors=(*errors, 404))),
        ApiRoute("/api/admin/store-pages/{slug}", replace, method="PUT", operation=Operation(
            "Replace the store page (or create it: 201)", response=StorePageInput, body=StorePageInput,
            security="adminKey", errors=(*errors, 409, 413))),
        ApiRoute("/api/admin/store-pages/{slug}", delete, method="DELETE", operation=Operation(
            "Delete a store page", ok=204, security="adminKey", errors=(*errors, 404))),
    ]  # fmt: skip
