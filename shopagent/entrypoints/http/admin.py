"""The admin catalog API: /api/admin/products[/{id}], /api/admin/index/status.

Protected by `Authorization: Bearer <SHOPAGENT_ADMIN_API_KEY>`; with no key configured the
whole API answers 403 and says how to enable it. GET returns the same JSON shape POST and
PUT accept (plus the read-only id, timestamps and per-variation `available`), so a product
can be read, edited and written back. PUT is a partial update: omitted fields keep their
value, and `variations`, when given, replaces the whole set.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import wraps
from typing import Annotated

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from shopagent.application.catalog import CatalogService
from shopagent.application.index_status import IndexStatus
from shopagent.application.limits import RateLimit
from shopagent.domain.catalog import ProductInput, ProductPatch, product_to_input
from shopagent.domain.inputs import ascii_int, is_ascii_int, same_secret
from shopagent.entrypoints.http.bodies import read_json
from shopagent.entrypoints.http.errors import ApiError
from shopagent.entrypoints.http.openapi import ApiRoute, Operation, Query

MAX_BODY = 1_000_000
_encoder = msgspec.json.Encoder(decimal_format="string")


# Stock is kept in 32-bit columns: a change beyond this is a typo, refused before the database.
StockDelta = Annotated[int, msgspec.Meta(ge=-1_000_000_000, le=1_000_000_000)]


class StockChange(msgspec.Struct, forbid_unknown_fields=True, rename="camel", kw_only=True):
    """The variation by its SKU, or by its colour, size and option values (those it has)."""

    color: str = ""
    size: str = ""
    options: dict[str, str] = msgspec.field(default_factory=dict)
    sku: str | None = None
    quantity_delta: StockDelta = 0
    reserved_delta: StockDelta = 0


class ProductPage(msgspec.Struct, kw_only=True):
    products: list[ProductInput]
    next: int | None  # the `after` of the next page; null on the last


def json_response(data: object, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(_encoder.encode(data), status_code=status, media_type="application/json", headers=headers)


Handler = Callable[[Request], Awaitable[Response]]


def admin_guard(admin_key: str | None, limit: RateLimit | None) -> Callable[[Handler], Handler]:
    def decorate(handler: Handler) -> Handler:
        @wraps(handler)
        async def checked(request: Request) -> Response:
            if admin_key is None:
                raise ApiError(403, "admin_disabled", "the admin API is disabled; set SHOPAGENT_ADMIN_API_KEY")
            scheme, _, token = request.headers.get("authorization", "").partition(" ")
            if scheme.lower() != "bearer" or not same_secret(token.strip(), admin_key):
                raise ApiError(
                    401,
                    "unauthorized",
                    "send the admin API key as 'Authorization: Bearer <key>'",
                    {"WWW-Authenticate": 'Bearer realm="shopagent-admin"'},
                )
            if limit is not None:
                await limit.take("admin")
            return await handler(request)

        return checked

    return decorate


def _product_id(request: Request) -> int:
    raw = request.path_params["product_id"]
    if not is_ascii_int(raw) or len(raw) > 18:
        raise ApiError(404, "not_found", f"product {raw} does not exist")
    return int(raw)


def admin_routes(
    catalog: CatalogService,
    index_status: Callable[[], Awaitable[IndexStatus]],
    admin_key: str | None,
    limit: RateLimit | None = None,
) -> list[Route]:
    """`limit`: requests allowed with the admin key, across every replica (None: unlimited)."""
    guarded = admin_guard(admin_key, limit)

    @guarded
    async def create(request: Request) -> Response:
        product = await catalog.create_product(await read_json(request, ProductInput, limit=MAX_BODY))
        return json_response(product_to_input(product), 201, headers={"Location": f"/api/admin/products/{product.id}"})

    @guarded
    async def list_products(request: Request) -> Response:
        limit = _int_param(request, "limit", 50, 1, 500)
        after = _int_param(request, "after", 0, 0, MAX_AFTER)
        products = await catalog.list_products(limit=limit, after_id=after)
        following = products[-1].id if len(products) == limit else None
        return json_response(ProductPage(products=[product_to_input(p) for p in products], next=following))

    @guarded
    async def read(request: Request) -> Response:
        return json_response(product_to_input(await catalog.get_product(_product_id(request))))

    @guarded
    async def update(request: Request) -> Response:
        patch = await read_json(request, ProductPatch, limit=MAX_BODY)
        return json_response(product_to_input(await catalog.update_product(_product_id(request), patch)))

    @guarded
    async def delete(request: Request) -> Response:
        await catalog.delete_product(_product_id(request))
        return Response(status_code=204)

    @guarded
    async def adjust_stock(request: Request) -> Response:
        change = await read_json(request, StockChange, limit=10_000)
        product = await catalog.adjust_stock(
            _product_id(request),
            change.color,
            change.size,
            change.quantity_delta,
            change.reserved_delta,
            options=change.options,
            sku=change.sku,
        )
        return json_response(product_to_input(product))

    @guarded
    async def status(request: Request) -> Response:
        return json_response(await index_status())

    errors = (400, 401, 403, 429)
    return [
        ApiRoute("/api/admin/products", create, method="POST", operation=Operation(
            "Create a product", ok=201, response=ProductInput, body=ProductInput, security="adminKey",
            errors=(*errors, 409, 413), headers={"Location": "the new product's URL"})),
        ApiRoute("/api/admin/products", list_products, method="GET", operation=Operation(
            "Products by id, a page at a time", response=ProductPage, security="adminKey", errors=errors, query=(
                Query("limit", {"type": "integer", "minimum": 1, "maximum": 500, "default": 50}),
                Query("after", {"type": "integer", "minimum": 0, "maximum": MAX_AFTER}, "`next` of the previous page"),
            ))),
        ApiRoute("/api/admin/products/{product_id}", read, method="GET", operation=Operation(
            "One product", response=ProductInput, security="adminKey", errors=(*errors, 404))),
        ApiRoute("/api/admin/products/{product_id}", update, method="PUT", operation=Operation(
            "Update: only the fields given change; variations, if given, replace them all", response=ProductInput,
            body=ProductPatch, security="adminKey", errors=(*errors, 404, 409, 413))),
        ApiRoute("/api/admin/products/{product_id}", delete, method="DELETE", operation=Operation(
            "Delete a product", ok=204, security="adminKey", errors=(*errors, 404))),
        ApiRoute("/api/admin/products/{product_id}/stock", adjust_stock, method="POST", operation=Operation(
            "Change the stock of one variation", response=ProductInput, body=StockChange, security="adminKey",
            errors=(*errors, 404, 409, 413))),
        ApiRoute("/api/admin/index/status", status, method="GET", operation=Operation(
            "Indexing status", response=IndexStatus, security="adminKey", errors=errors)),
    ]  # fmt: skip


MAX_AFTER = 2**62  # beyond any product id; a larger one would not fit a PostgreSQL bigint


def _int_param(request: Request, name: str, default: int, least: int, most: int) -> int:
    raw = request.query_params.get(name)
    if not raw:  # absent or empty: the default
        return default
    return ascii_int(raw, name, least, most)
