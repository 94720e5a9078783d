"""A split deployment (an mcp instance with the indexer, a chat instance using it) over a
database of its own, with the default MCP rate limit, shared by the module's two tests in this
order:

- Many shoppers at once: the chat instance's own tool calls have a budget apart from outside
  clients' (600/min, burst 100), a throttled call waits for its Retry-After instead of
  failing, and a call turned away never cuts the others in flight on the shared session. No
  turn says a tool "could not be reached".
- The mcp instance stopped and started again under the running chat instance: meanwhile turns
  are answered saying the tool could not be reached, the chat instance reports itself
  degraded (not unready), and once the mcp instance is back the tools work again without a
  chat restart. (It leaves the deployment's mcp instance stopped: it comes last.)
"""

from __future__ import annotations

import signal
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass

import anyio
import httpx
import pytest

from tests.faults.harness import (
    ADMIN_HEADERS,
    HIGH_RATE,
    OwnedPostgres,
    alive,
    chat_headers,
    database_copy,
    dependency,
    http_url,
    index_report,
    mcp_url,
    new_user,
    now,
    poll,
    product_body,
    readyz,
    run_role,
    service_env,
)
from tests.helpers import ShopagentProcess, eventually, free_port

pytestmark = pytest.mark.anyio

USERS = 100
TURNS = 5


@dataclass
class SplitDeployment:
    pg: OwnedPostgres
    mcp_env: dict[str, str]  # to start the mcp instance again, on the same port
    mcp: ShopagentProcess
    chat: ShopagentProcess


@pytest.fixture(scope="module")
async def split(pg_server: OwnedPostgres) -> AsyncIterator[SplitDeployment]:
    async with database_copy(pg_server) as pg:
        default_mcp_rate = {f"SHOPAGENT_MCP__{key}" for key in HIGH_RATE}
        env = {k: v for k, v in service_env(pg).items() if k not in default_mcp_rate}
        mcp_env = env | {"SHOPAGENT_MCP__PORT": str(free_port())}
        async with (
            run_role("mcp,indexer", mcp_env) as mcp,
            run_role("chat", env | {"SHOPAGENT_CHAT__MCP_URL": mcp_url(mcp)}) as chat,
        ):
            yield SplitDeployment(pg, mcp_env, mcp, chat)


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


async def test_a_hundred_shoppers_on_a_split_deployment_are_never_told_a_tool_could_not_be_reached(split):
    mcp, chat = split.mcp, split.chat
    assert alive(mcp) and alive(chat), "harness: the deployment was stopped by a test before this one"
    outcomes: Counter[str] = Counter()
    # No kept-alive connections: one the server closes as idle while the client reuses it is a
    # client's race, not what is tested here.
    no_reuse = httpx.Limits(max_keepalive_connections=0)
    # An empty catalog: every turn still calls the search tool, and nothing waits for indexing.
    async with httpx.AsyncClient(base_url=http_url(chat), timeout=60, limits=no_reuse) as client:
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


async def _turn(client: httpx.AsyncClient, user: str, conversation: str | None = None) -> tuple[httpx.Response, dict]:
    """One chat turn, and the conversation as stored afterwards."""
    body = {"query": "warm boots", **({"conversationId": conversation} if conversation else {})}
    response = await client.post("/api/assistant-agent/chat", json=body, headers=chat_headers(user))
    if response.status_code != 200:
        return response, {}
    detail = await client.get(f"/api/conversations/{response.json()['conversationId']}", headers=chat_headers(user))
    return response, detail.json()


def tool_results(detail: dict) -> list[dict]:
    """The tool results of the conversation's last turn."""
    results = []
    for message in reversed(detail.get("messages", [])):
        if message["role"] == "user" and message["text"]:
            break
        results = message["toolResults"] + results
    return results


async def test_an_mcp_instance_restarted_under_a_chat_instance(split):
    pg, mcp, chat, mcp_env = split.pg, split.mcp, split.chat, split.mcp_env
    assert alive(mcp) and alive(chat), "harness: the deployment was stopped by a test before this one"
    async with httpx.AsyncClient(base_url=http_url(chat), timeout=30) as client:
        for n in range(3):
            created = await client.post("/api/admin/products", json=product_body(n), headers=ADMIN_HEADERS)
            assert created.status_code == 201, created.text
        await eventually(lambda: _indexed(pg, 3), timeout=30, interval=0.1)
        user = new_user()
        first, first_detail = await _turn(client, user)
        assert first.status_code == 200, first.text
        assert [r["isError"] for r in tool_results(first_detail)] == [False], first_detail
        conversation = first.json()["conversationId"]
        before = await poll(lambda: _readyz_with(chat, "mcp", "up"), timeout=5)
        before = before or await readyz(chat)

        mcp.signal(signal.SIGTERM)
        assert await mcp.wait_exit(timeout=15) == 0
        away, away_detail = await _turn(client, user, conversation)
        degraded = await poll(lambda: _readyz_with(chat, "mcp", "down"), timeout=10)
        degraded = degraded or await readyz(chat)
        chat_pid = chat.process.pid

        async with run_role("mcp,indexer", mcp_env) as mcp_again:  # the same port
            back_at = now()
            back, back_detail = await _turn(client, user, conversation)  # at once, no waiting
            up_again = await poll(lambda: _readyz_with(chat, "mcp", "up"), timeout=10)
            up_again = up_again or await readyz(chat)
            mcp_up_after = now() - back_at
            assert alive(mcp_again)
        assert alive(chat) and chat.process.pid == chat_pid
        assert chat.errors() == [], chat.errors()

    print(f"readyz showed mcp up {mcp_up_after:.2f}s after the new mcp instance was ready")
    status, body = before
    assert status == 200 and body.get("status") == "ready", body
    assert (dependency(body, "mcp") or {}).get("state") == "up", body
    # While the mcp instance was away: an answer saying so (not a 500), the failed call stored.
    assert away.status_code == 200, away.text
    assert "could not be reached" in away.json()["response"], away.json()
    assert [r["isError"] for r in tool_results(away_detail)] == [True], away_detail
    # ... and the chat instance was degraded, still ready (200): the database is up.
    status, body = degraded
    assert status == 200 and body.get("status") == "degraded", body
    assert (dependency(body, "mcp") or {}).get("state") == "down", body
    assert (dependency(body, "database") or {}).get("state") == "up", body
    # Back: the next turn's tool call succeeded, and readiness shows the mcp dependency up.
    assert back.status_code == 200, back.text
    assert [r["isError"] for r in tool_results(back_detail)] == [False], back_detail
    assert "could not be reached" not in back.json()["response"]
    status, body = up_again
    assert status == 200 and body.get("status") == "ready", body
    assert (dependency(body, "mcp") or {}).get("state") == "up", body


async def _readyz_with(proc, name: str, state: str):
    status, body = await readyz(proc)
    found = dependency(body, name) if status is not None else None
    return (status, body) if found is not None and found.get("state") == state else None


async def _indexed(pg, count: int) -> bool:
    report = await index_report(pg)
    return report["products"] == count and report["pending"] == 0 and report["stale"] == 0
