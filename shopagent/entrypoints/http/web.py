"""The chat page (`GET /`) and the embeddable widget (`GET /widget.js`): plain files in `static/`.

No build step: the widget is one script that draws itself in a shadow root (its own CSS, so
a shop's styles and ours do not clash). A shop embeds it with one tag, e.g.
`<script src="https://chat.shop.example/widget.js" data-token-url="/chat-token" defer></script>`;
the page at `/` is the same script in full-page mode. Both answer with an ETag and
`Cache-Control: no-cache`, so browsers revalidate (a 304) and see a new version at once.
"""

from __future__ import annotations

import hashlib
import html
import re
from importlib import resources

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

# The page loads nothing but our script and the product images (from wherever the catalog keeps them).
PAGE_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; "
    "img-src https: http: data:; base-uri 'none'; form-action 'none'; frame-ancestors 'self'"
)


class StaticFile:
    """One file's bytes with its content type and ETag; `respond` answers 304 when the client has it."""

    def __init__(self, body: bytes, media_type: str, headers: dict[str, str] | None = None) -> None:
        self.body, self.media_type = body, media_type
        self.etag = f'"{hashlib.sha256(body).hexdigest()[:20]}"'
        self.headers = {"ETag": self.etag, "Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff",
                        **(headers or {})}  # fmt: skip

    async def respond(self, request: Request) -> Response:
        if self.etag in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers=self.headers)
        return Response(self.body, media_type=self.media_type, headers=self.headers)


def web_routes(store_name: str, price_locale: str = "en") -> list[Route]:
    """The page and the widget; the widget writes prices in `price_locale` (a BCP 47 tag) where
    the server sent none written (the cards of answers stored by an older version)."""
    static = resources.files("shopagent.entrypoints.http") / "static"
    page = (static / "index.html").read_text("utf-8").replace("{{store}}", html.escape(store_name))
    script = (static / "widget.js").read_text("utf-8").replace("{{locale}}", _tag(price_locale)).encode()
    embeddable = {"Cross-Origin-Resource-Policy": "cross-origin"}  # shops load it from pages on other origins
    files = {
        "/": StaticFile(page.encode(), "text/html; charset=utf-8", {"Content-Security-Policy": PAGE_POLICY}),
        "/widget.js": StaticFile(script, "text/javascript; charset=utf-8", embeddable),
    }
    return [Route(path, file.respond, methods=["GET", "HEAD"]) for path, file in files.items()]


def _tag(locale: str) -> str:
    """`locale` if it is a plain BCP 47 tag (it goes into the script as a string), else English."""
    return locale if re.fullmatch(r"[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*", locale) else "en"
