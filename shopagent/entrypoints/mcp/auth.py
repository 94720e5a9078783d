"""ASGI middleware in front of the MCP app: the bearer key (constant-time comparison), the rate
limit, and 405 for methods a stateless server does not offer."""

from __future__ import annotations

import hashlib
import json
import math

from starlette.types import ASGIApp, Receive, Scope, Send

from shopagent.application.limits import OWN_CHAT_CLIENT, OWN_CHAT_HEADER, RateLimit
from shopagent.domain.errors import DatabaseUnavailable, RateLimitExceeded
from shopagent.domain.inputs import same_secret


async def send_error(send: Send, status: int, code: str, message: str, headers: list[tuple[bytes, bytes]]) -> None:
    """An error response in the usual body, `{"error": {"code", "message"}}`, straight from ASGI."""
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    start = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *headers]
    await send({"type": "http.response.start", "status": status, "headers": start})
    await send({"type": "http.response.body", "body": body})


class PostOnly:
    """405 with `Allow: POST` for any other method: this stateless server offers no event stream
    to GET and no session to DELETE, which the Streamable HTTP transport allows a server to say."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] == "POST":
            await self._app(scope, receive, send)
            return
        message = (f"{scope['method']} is not supported here; this stateless MCP server answers POST only "
                   "(no event stream, no sessions)")  # fmt: skip
        await send_error(send, 405, "method_not_allowed", message, [(b"allow", b"POST")])


class Throttle:
    """429 with Retry-After past the rate limit: per bearer key (hashed), else per client address.
    Sits behind BearerKey, so only callers with the right key use up its budget. The deployment's
    own chat instances (they send `OWN_CHAT_HEADER`) have a budget of their own, `own_chat`."""

    def __init__(self, app: ASGIApp, limit: RateLimit, own_chat: RateLimit | None = None) -> None:
        self._app = app
        self._limit = limit
        self._own_chat = own_chat
        self._own_chat_header = (OWN_CHAT_HEADER.lower().encode(), OWN_CHAT_CLIENT.encode())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        header = next((v for k, v in scope["headers"] if k == b"authorization"), b"")
        caller = hashlib.sha256(header).hexdigest()[:16] if header else (scope.get("client") or ("-",))[0]
        limit, bucket = self._limit, f"mcp:{caller}"
        if self._own_chat is not None and self._own_chat_header in scope["headers"]:
            limit, bucket = self._own_chat, f"mcp-chat:{caller}"
        try:
            await limit.take(bucket)
        except RateLimitExceeded as exc:
            retry_after = str(math.ceil(exc.retry_after)).encode()
            await send_error(send, 429, "rate_limited", str(exc), [(b"retry-after", retry_after)])
            return
        except DatabaseUnavailable:
            # The budgets live in the database. Let the call through: the tool, which needs
            # the database too, answers with a tool error the client's model can read.
            pass
        await self._app(scope, receive, send)


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
        realm = f'Bearer realm="{self._realm}"'.encode()
        message = "send the MCP key as 'Authorization: Bearer <key>'"
        await send_error(send, 401, "unauthorized", message, [(b"www-authenticate", realm)])
