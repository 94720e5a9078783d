"""An mcp instance stopped and started again under a running chat instance: meanwhile turns are
answered saying the tool could not be reached, the chat instance reports itself degraded (not
unready), and once the mcp instance is back the tools work again without a chat restart."""

from __future__ import annotations

import signal

import httpx
import pytest

from tests.faults.harness import (
    ADMIN_HEADERS,
    alive,
    chat_headers,
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
from tests.helpers import eventually, free_port

pytestmark = pytest.mark.anyio


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


async def test_an_mcp_instance_restarted_under_a_chat_instance(pg):
    env = service_env(pg)
    mcp_env = env | {"SHOPAGENT_MCP__PORT": str(free_port())}
    async with run_role("mcp,indexer", mcp_env) as mcp:
        chat_env = env | {"SHOPAGENT_CHAT__MCP_URL": mcp_url(mcp)}
        async with (
            run_role("chat", chat_env) as chat,
            httpx.AsyncClient(base_url=http_url(chat), timeout=30) as client,
        ):
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
