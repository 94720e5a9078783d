"""The chat page, the widget script and anonymous visitor tokens over HTTP (a real server on
loopback, the real PostgreSQL for the rate limits)."""

from __future__ import annotations

import contextlib
import time
from datetime import datetime
from functools import partial

import anyio
import httpx
import msgspec
import pytest

from shopagent.actors.http import run_http
from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.bootstrap import build_public_app
from shopagent.domain.tokens import issue_token, verify_token
from shopagent.settings import HttpSettings
from shopagent.wiring.policies import listening
from shopagent.wiring.services import open_services
from shopagent.wiring.startup import INDEXER_ACTORS
from tests.helpers import free_port

pytestmark = pytest.mark.anyio

SECRET = "test-auth-secret-of-32-bytes-or-more"


@contextlib.asynccontextmanager
async def public_api(settings, **http):
    port = free_port()
    settings = msgspec.structs.replace(settings, http=HttpSettings(port=port, **http))
    async with (
        open_services(settings, INDEXER_ACTORS | {"http"}, embedder=HashEmbedder()) as services,
        anyio.create_task_group() as tg,
    ):
        await tg.start(partial(run_http, listening(settings, "http"), partial(build_public_app, services)))
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            yield client
        tg.cancel_scope.cancel()


async def test_the_chat_page_and_the_widget_are_served_with_their_types_and_etags(settings):
    async with public_api(settings) as api:
        page = await api.get("/")
        script = await api.get("/widget.js")
        again = await api.get("/widget.js", headers={"If-None-Match": script.headers["etag"]})
        info = await api.get("/api")
        missing = await api.get("/nope")
    assert page.status_code == 200
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert '<script src="/widget.js" data-mode="page"' in page.text
    assert "<title>Shopagent Demo Store · shopping assistant</title>" in page.text
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert script.headers["content-type"] == "text/javascript; charset=utf-8"
    assert script.headers["cache-control"] == "no-cache"
    assert script.headers["cross-origin-resource-policy"] == "cross-origin"
    assert (again.status_code, again.content) == (304, b"")
    assert info.json()["service"] == "shopagent"  # the service info stays where it was
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "not_found"


async def test_the_store_name_is_escaped_in_the_page(settings):
    settings = msgspec.structs.replace(settings, store=msgspec.structs.replace(settings.store, name="<b>Tom & Jo</b>"))
    async with public_api(settings) as api:
        page = await api.get("/")
    assert "&lt;b&gt;Tom &amp; Jo&lt;/b&gt;" in page.text
    assert "<b>" not in page.text


async def test_visitor_tokens_are_refused_unless_the_anonymous_mode_is_on(settings):
    async with public_api(settings) as api:
        response = await api.post("/api/assistant-agent/visitor-token")
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "anonymous_chat_disabled"


async def test_a_visitor_token_is_short_lived_for_a_new_user_each_time(settings):
    async with public_api(settings, anonymous_chat=True, anonymous_token_ttl_seconds=600) as api:
        first = (await api.post("/api/assistant-agent/visitor-token")).json()
        second = (await api.post("/api/assistant-agent/visitor-token")).json()
        chat = await api.get("/api/conversations", headers={"Authorization": f"Bearer {first['token']}"})
    assert verify_token(SECRET, first["token"]) == first["userId"]
    assert first["userId"].startswith("visitor-")
    assert first["userId"] != second["userId"]
    expires = datetime.fromisoformat(first["expiresAt"]).timestamp()
    assert time.time() + 590 < expires <= time.time() + 600
    assert chat.status_code == 200


async def test_visitor_tokens_are_rate_limited_per_client_address(settings):
    async with public_api(settings, anonymous_chat=True, anonymous_rate_burst=2, anonymous_rate_per_minute=0.5) as api:
        # From loopback X-Forwarded-For is trusted (a proxy on this host): two clients behind it.
        one, other = {"X-Forwarded-For": "203.0.113.7"}, {"X-Forwarded-For": "203.0.113.8"}
        statuses = [(await api.post("/api/assistant-agent/visitor-token", headers=one)).status_code for _ in range(3)]
        another = await api.post("/api/assistant-agent/visitor-token", headers=other)
    assert statuses == [200, 200, 429]
    assert another.status_code == 200


async def test_an_expired_token_is_401_token_expired(settings):
    async with public_api(settings) as api:
        response = await api.get(
            "/api/conversations", headers={"Authorization": f"Bearer {issue_token(SECRET, 'a', -5)}"}
        )
    assert response.status_code == 401
    assert response.json()["error"] == {"code": "token_expired", "message": "the token has expired; ask for a new one"}
