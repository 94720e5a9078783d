"""Budgets of the public API: anonymous visitors per client address and together, and the
conversation endpoints' own per-user budget (a real server on loopback, the real PostgreSQL)."""

from __future__ import annotations

import contextlib
from functools import partial

import anyio
import httpx
import msgspec
import pytest
from starlette.requests import Request

from shopagent.actors.http import run_http
from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.bootstrap import build_public_app
from shopagent.domain.tokens import issue_token
from shopagent.entrypoints.http.visitors import client_address
from shopagent.settings import ChatSettings, HttpSettings
from shopagent.wiring.policies import listening
from shopagent.wiring.services import open_services
from shopagent.wiring.startup import INDEXER_ACTORS
from tests.helpers import AUTH_SECRET, free_port

pytestmark = pytest.mark.anyio

CHAT = "/api/assistant-agent/chat"
TOKEN = "/api/assistant-agent/visitor-token"


@contextlib.asynccontextmanager
async def public_api(settings, chat: dict, **http):
    port = free_port()
    settings = msgspec.structs.replace(settings, http=HttpSettings(port=port, anonymous_chat=True, **http),
                                       chat=ChatSettings(provider="offline", **chat))  # fmt: skip
    async with (
        open_services(settings, INDEXER_ACTORS | {"http"}, embedder=HashEmbedder()) as services,
        anyio.create_task_group() as tg,
    ):
        await tg.start(partial(run_http, listening(settings, "http"), partial(build_public_app, services)))
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            yield client
        tg.cancel_scope.cancel()


def behind_proxy(address: str) -> dict[str, str]:
    """From loopback X-Forwarded-For is trusted (a proxy on this host): a client at `address`."""
    return {"X-Forwarded-For": address}


async def visitor(api: httpx.AsyncClient, address: str) -> dict[str, str]:
    minted = await api.post(TOKEN, headers=behind_proxy(address))
    assert minted.status_code == 200, minted.text
    return {**behind_proxy(address), "Authorization": f"Bearer {minted.json()['token']}"}


async def test_more_visitor_tokens_buy_no_more_messages_from_one_address(settings):
    async with public_api(settings, {"rate_burst": 2, "rate_per_minute": 0.5}) as api:
        tokens = [await visitor(api, "203.0.113.7") for _ in range(3)]
        statuses = [(await api.post(CHAT, json={"query": "boots"}, headers=t)).status_code for t in tokens]
        elsewhere = await api.post(CHAT, json={"query": "boots"}, headers=await visitor(api, "203.0.113.8"))
    assert statuses == [200, 200, 429]  # one budget for the address, not one per token
    assert elsewhere.status_code == 200


async def test_anonymous_visitors_together_share_one_budget_per_minute(settings):
    async with public_api(settings, {}, anonymous_messages_per_minute=2) as api:
        addresses = ["203.0.113.1", "203.0.113.2", "203.0.113.3"]
        statuses = [(await api.post(CHAT, json={"query": "boots"}, headers=await visitor(api, a))).status_code
                    for a in addresses]  # fmt: skip
        known = await api.post(CHAT, json={"query": "boots"},
                               headers={"Authorization": f"Bearer {issue_token(AUTH_SECRET, 'ana')}"})  # fmt: skip
    assert statuses == [200, 200, 429]
    assert known.status_code == 200  # a shop's own customers are not anonymous visitors


async def test_visitor_tokens_are_capped_per_address_per_hour(settings):
    async with public_api(settings, {}, anonymous_rate_burst=100, anonymous_tokens_per_hour=3) as api:
        statuses = [(await api.post(TOKEN, headers=behind_proxy("203.0.113.9"))).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]


@pytest.mark.parametrize(
    ("host", "counted_as"),
    [("203.0.113.7", "203.0.113.7"), ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),
     ("2001:db8:1:2:bbbb::9", "2001:db8:1:2::/64"), ("::ffff:203.0.113.7", "203.0.113.7")],
)  # fmt: skip
def test_an_ipv6_client_is_counted_by_its_64_network(host, counted_as):
    request = Request({"type": "http", "client": (host, 1234), "headers": []})
    assert client_address(request) == counted_as


@pytest.mark.parametrize("method", ["list", "read", "delete"])
async def test_the_conversation_endpoints_are_rate_limited_on_a_budget_of_their_own(settings, method):
    headers = {"Authorization": f"Bearer {issue_token(AUTH_SECRET, 'ana')}"}
    async with public_api(settings, {"read_rate_burst": 2, "read_rate_per_minute": 0.5}) as api:
        answer = await api.post(CHAT, json={"query": "boots"}, headers=headers)
        url = f"/api/conversations/{answer.json()['conversationId']}"
        missing = "/api/conversations/00000000-0000-0000-0000-000000000000"
        call = {"list": partial(api.get, "/api/conversations"), "read": partial(api.get, url),
                "delete": partial(api.delete, missing)}[method]  # fmt: skip
        statuses = [(await call(headers=headers)).status_code for _ in range(3)]
        limited = await call(headers=headers)
        still_chatting = await api.post(CHAT, json={"query": "boots"}, headers=headers)
    assert 429 not in statuses[:2] and statuses[2] == 429
    assert limited.headers["retry-after"]
    assert limited.json()["error"]["code"] == "rate_limited"
    assert still_chatting.status_code == 200  # the messages' budget is not spent by reading
