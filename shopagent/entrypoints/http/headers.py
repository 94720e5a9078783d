"""Response headers every answer of the public app carries.

- `X-Content-Type-Options: nosniff` on everything: a browser must not read a JSON error or an
  event stream as HTML or script, whatever text a client managed to put in it.
- `Cache-Control: no-store` on the API (`/api` and below, JSON and event streams alike): its
  answers hold a customer's conversations and an admin's catalog, and no cache between the
  shop and the browser should keep them. The page and the widget keep their own
  `Cache-Control: no-cache` (revalidated with their ETag).

A plain ASGI middleware rather than Starlette's BaseHTTPMiddleware, so event streams pass
through unbuffered.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send


def is_api_path(path: str) -> bool:
    return path == "/api" or path.startswith("/api/")


class ResponseHeaders:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        api = is_api_path(scope["path"])

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers["X-Content-Type-Options"] = "nosniff"
                if api:
                    headers["Cache-Control"] = "no-store"
            await send(message)

        await self.app(scope, receive, send_with_headers)
