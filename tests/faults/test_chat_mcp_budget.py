"""A split deployment under many shoppers at once, with the default MCP rate limit: the chat
instance's own tool calls have a budget apart from outside clients' (600/min, burst 100), a
throttled call waits for its Retry-After instead of failing, and a call turned away never cuts
the others in flight on the shared session. No turn says a tool "could not be reached"."""

from __future__ import annotations

from collections import Counter

import anyio
import httpx
import pytest

from tests.faults.harness import (
    HIGH_RATE,
    chat_headers,
    http_url,
    mcp_url,
    new_user,
    now,
    run_role,
    service_env,
)
from tests.helpers import free_port

pytestmark = pytest.mark.anyio

USERS = 100
TURNS = 5


async def _shopper(client: httpx.AsyncClient, outcomes: Counter[str]) -> None:
    user, conversation = new_user(), None
    for _ in range(TURNS):
        body = {"query": "warm boots", **({"conversationId": conversation} if conversation else {})}
        response = await client.post("/api/assistant-agent/chat", json=body, headers=chat_headers(user))
        if response.status_code != 200:
            outcomes[f"http {response.status_code}"] += 1
            continue
        conversation = response.json()["conversationId"]
        answered = response.json()["response"]
        outcomes["could not be reached" if "could not be reached" in answered else "ok"] += 1


async def test_a_hundred_shoppers_on_a_split_deployment_are_never_told_a_tool_could_not_be_reached(pg):
    default_mcp_rate = {f"SHOPAGENT_MCP__{key}" for key in HIGH_RATE}
    env = {k: v for k, v in service_env(pg).items() if k not in default_mcp_rate}
    mcp_env = env | {"SHOPAGENT_MCP__PORT": str(free_port())}
    outcomes: Counter[str] = Counter()
    # No kept-alive connections: one the server closes as idle while the client reuses it is a
    # client's race, not what is tested here.
    no_reuse = httpx.Limits(max_keepalive_connections=0)
    # An empty catalog: every turn still calls the search tool, and nothing waits for indexing.
    async with (
        run_role("mcp", mcp_env) as mcp,
        run_role("chat", env | {"SHOPAGENT_CHAT__MCP_URL": mcp_url(mcp)}) as chat,
        httpx.AsyncClient(base_url=http_url(chat), timeout=60, limits=no_reuse) as client,
    ):
        started = now()
        with anyio.fail_after(120):
            async with anyio.create_task_group() as tg:
                for _ in range(USERS):
                    tg.start_soon(_shopper, client, outcomes)
        took = now() - started
        errors = {"chat": chat.errors(), "mcp": mcp.errors()}
    print(f"{USERS} shoppers x {TURNS} turns in {took:.1f}s: {dict(outcomes)}")
    assert outcomes == Counter({"ok": USERS * TURNS}), outcomes
    assert errors == {"chat": [], "mcp": []}
