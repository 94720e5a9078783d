"""The OpenAPI document of the public API, generated from the route table (served at /openapi.json).

Every public route is an `ApiRoute`: a Starlette route that also carries its `Operation`
(summary, auth scheme, request and response Structs, query parameters, error statuses).
The document is built from those and the Structs' JSON Schemas (msgspec), so it describes
exactly the routes that are served, with the limits the Structs enforce.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec
from starlette.routing import BaseRoute, Route

from shopagent import __version__

ERROR_SCHEMA = {
    "type": "object",
    "properties": {
        "error": {
            "type": "object",
            "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
            "required": ["code", "message"],
        }
    },
    "required": ["error"],
}
ERRORS = {
    400: "invalid input (the message names the field)",
    401: "missing or invalid credentials (see the operation's security scheme)",
    403: "this API is disabled on this server",
    404: "no such resource (or not yours)",
    405: "method not allowed (see Allow)",
    409: "conflict: conversation_busy, context_limit_reached, claim_lost, or a stale or duplicate write",
    413: "body too large",
    429: "rate limited; see Retry-After",
    502: "the model answered something unusable",
    503: "the model (or embedding) service is unavailable",
    504: "the turn took too long",
    500: "an internal error",
}
SECURITY_SCHEMES = {
    "chatToken": {
        "type": "http",
        "scheme": "bearer",
        "description": "a chat token (v2.<payload>.<signature>, see the README); the user is its subject",
    },
    "adminKey": {"type": "http", "scheme": "bearer", "description": "SHOPAGENT_ADMIN_API_KEY"},
}
PATH_PARAMETERS = {
    "conversation_id": {"type": "string", "format": "uuid"},
    "product_id": {"type": "integer", "minimum": 1},
    "slug": {"type": "string", "pattern": "^[a-z0-9]+(?:-[a-z0-9]+)*$", "maxLength": 120},
}


@dataclass(frozen=True)
class Query:
    name: str
    schema: dict[str, Any]
    description: str = ""


@dataclass(frozen=True)
class Operation:
    summary: str
    ok: int = 200
    response: type | None = None  # the Struct of the success body; None: no body
    body: type | None = None  # the Struct of the request body
    security: str | None = "chatToken"
    errors: tuple[int, ...] = (400, 401, 429)
    query: tuple[Query, ...] = ()
    description: str = ""
    event_stream: bool = False  # also answers text/event-stream
    headers: dict[str, str] = field(default_factory=dict)  # response headers: name -> description


class ApiRoute(Route):
    """A route with its OpenAPI operation."""

    def __init__(self, path: str, endpoint: Callable[..., Any], *, method: str, operation: Operation) -> None:
        super().__init__(path, endpoint, methods=[method])
        self.method = method.lower()
        self.operation = operation


def openapi_document(store_name: str, routes: Sequence[BaseRoute]) -> dict[str, Any]:
    documented = [r for r in routes if isinstance(r, ApiRoute)]
    structs = {t for r in documented for t in (r.operation.response, r.operation.body) if t is not None}
    (_, components) = msgspec.json.schema_components(
        sorted(structs, key=lambda t: t.__name__), ref_template="#/components/schemas/{name}"
    )
    components["Error"] = ERROR_SCHEMA
    paths: dict[str, dict[str, Any]] = {}
    for route in documented:
        paths.setdefault(route.path, {})[route.method] = _operation(route)
    return {
        "openapi": "3.1.0",
        "info": {"title": f"{store_name} shopping assistant", "version": __version__},
        "components": {"schemas": components, "securitySchemes": SECURITY_SCHEMES},
        "paths": paths,
    }


def _operation(route: ApiRoute) -> dict[str, Any]:
    op = route.operation
    parameters = [
        {"name": name, "in": "path", "required": True, "schema": PATH_PARAMETERS[name]}
        for name in route.param_convertors
    ]
    parameters += [
        {"name": q.name, "in": "query", "schema": q.schema, **({"description": q.description} if q.description else {})}
        for q in op.query
    ]
    content: dict[str, Any] = {}
    if op.response is not None:
        content["application/json"] = {"schema": _ref(op.response.__name__)}
    if op.event_stream:
        content["text/event-stream"] = {"schema": {"type": "string"}}
    ok: dict[str, Any] = {"description": op.summary}
    if content:
        ok["content"] = content
    if op.headers:
        ok["headers"] = {name: {"description": text, "schema": {"type": "string"}} for name, text in op.headers.items()}
    responses: dict[str, Any] = {str(op.ok): ok}
    for status in sorted({*op.errors, 405}):
        error: dict[str, Any] = {
            "description": ERRORS[status],
            "content": {"application/json": {"schema": _ref("Error")}},
        }
        if status == 429:
            error["headers"] = {"Retry-After": {"description": "seconds to wait", "schema": {"type": "integer"}}}
        if status == 405:
            error["headers"] = {"Allow": {"description": "the methods of this path", "schema": {"type": "string"}}}
        responses[str(status)] = error
    operation: dict[str, Any] = {"summary": op.summary, "responses": responses}
    if op.description:
        operation["description"] = op.description
    if parameters:
        operation["parameters"] = parameters
    if op.body is not None:
        operation["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": _ref(op.body.__name__)}},
        }
    operation["security"] = [{op.security: []}] if op.security else []
    return operation


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}
