"""Bearer-key check in front of the MCP app (ASGI middleware, constant-time comparison)."""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Receive, Scope, Send

from shopagent.domain.inputs import same_secret


class PostOnly:
    """405 with `Allow: POST` for any other method: this stateless server offers no event stream
    to GET and no session to DELETE, which the Streamable HTTP transport allows a server to say."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] == "POST":
            await self._app(scope, receive, send)
            return
        body = json.dumps(
            {"error": {"code": "method_not_allowed", "message": f"{scope['method']} is not supported here; "
                       "this stateless MCP server answers POST only (no event stream, no sessions)"}}
        ).encode()  # fmt: skip
        await send(
            {
                "type": "http.response.start",
                "status": 405,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"allow", b"POST"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


class BearerKey:
    def __init__(self, app: ASGIApp, key: str, realm: str = "shopagent-mcp") -> None:
        self._app = app
        self._key = key.encode()
        self._realm = realm

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # lifespan passes through
            await self._app(scope, receive, send)
            return
        header = next((v for k, v in scope["headers"] if k == b"authorization"), b"")
        scheme, _, token = header.partition(b" ")
        if scheme.lower() == b"bearer" and same_secret(token.strip(), self._key):
            await self._app(scope, receive, send)
            return
        body = json.dumps(
            {"error": {"code": "unauthorized", "message": "send the MCP key as 'Authorization: Bearer <key>'"}}
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", f'Bearer realm="{self._realm}"'.encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
