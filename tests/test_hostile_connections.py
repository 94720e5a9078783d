"""Hostile and flaky clients against the real `shopagent run` process, with real sockets."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator

import anyio
import httpx
import pytest

from shopagent.domain.tokens import issue_token
from tests import hostile_clients
from tests.helpers import AUTH_SECRET, ShopagentProcess, eventually, shopagent

pytestmark = [pytest.mark.anyio, pytest.mark.process]

MCP_KEY = "mcp-key-of-16-bytes-or-more"


@contextlib.asynccontextmanager
async def running(database: str, *, open_files: int | None = None, **more: str) -> AsyncIterator[ShopagentProcess]:
    env = {
        **more,
        "SHOPAGENT_DATABASE_URL": database,
        "SHOPAGENT_EMBEDDING__MODEL": "hash",
        "SHOPAGENT_CHAT__PROVIDER": "offline",
        "SHOPAGENT_CHAT__RATE_PER_MINUTE": "600",
        "SHOPAGENT_CHAT__RATE_BURST": "100",
        "SHOPAGENT_MCP_API_KEY": MCP_KEY,
        "SHOPAGENT_CONNECTIONS__HEADER_TIMEOUT_SECONDS": "2",
    }
    launcher = ["prlimit", f"--nofile={open_files}:{open_files}"] if open_files else []
    async with shopagent("run", env=env, launcher=launcher) as proc:
        await proc.wait_for_log("all actors ready", timeout=60)
        yield proc


def port(proc: ShopagentProcess, server: str) -> int:
    return int(proc.env[f"SHOPAGENT_{server.upper()}__PORT"])


async def cut_body(proc: ShopagentProcess, server: str, path: str, headers: str) -> None:
    """A request declaring 1000 bytes of body that sends 12 and closes."""
    async with await anyio.connect_tcp("127.0.0.1", port(proc, server)) as stream:
        head = f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port(proc, server)}\r\n{headers}Content-Length: 1000\r\n\r\n"
        await stream.send(head.encode() + b'{"query": "b')


async def _two(counted) -> bool:
    return len(await counted()) >= 2


def series(metrics: str, name: str) -> dict[str, float]:
    return {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1])
            for line in metrics.splitlines() if line.startswith(name)}  # fmt: skip


async def test_a_client_dropping_its_request_mid_body_is_a_disconnect_not_a_server_error(database):
    token = issue_token(AUTH_SECRET, "ana")
    async with running(database, SHOPAGENT_LOGGING__ACCESS_LOG="true") as proc, httpx.AsyncClient(timeout=10) as client:
        await cut_body(proc, "http", "/api/assistant-agent/chat",
                       f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n")  # fmt: skip
        await cut_body(proc, "mcp", "/mcp", f"Authorization: Bearer {MCP_KEY}\r\nContent-Type: application/json\r\n"
                       "Accept: application/json, text/event-stream\r\n")  # fmt: skip

        async def counted() -> dict[str, float]:
            text = (await client.get(f"{proc.ops_url}/metrics")).text
            return series(text, "shopagent_http_client_disconnects_total")

        await eventually(lambda: _two(counted), timeout=10, interval=0.05)
        metrics = (await client.get(f"{proc.ops_url}/metrics")).text
    gone = series(metrics, "shopagent_http_client_disconnects_total")
    assert gone == {
        'shopagent_http_client_disconnects_total{route="/api/assistant-agent/chat",server="http"}': 1.0,
        'shopagent_http_client_disconnects_total{route="/mcp",server="mcp"}': 1.0,
    }
    assert not [k for k in series(metrics, "shopagent_http_requests_total") if 'status="500"' in k]
    assert proc.errors() == []
    assert not [e for e in proc.logs if "Traceback" in str(e)]
    cut = [e["message"] for e in proc.logs if " POST /" in e.get("message", "")]
    assert len(cut) == 2 and all(" 499 " in line for line in cut), cut  # the access log: not a 500


async def test_idle_and_slow_connections_do_not_lock_out_chat_or_readiness(database):
    """The soak of bench/connections.py, smaller: 600 sockets held (by a process of their own)
    against a process whose open-file limit is 512, while a client chats and asks /readyz."""
    token = {"Authorization": f"Bearer {issue_token(AUTH_SECRET, 'ana')}"}
    timings: list[tuple[float, float]] = []
    async with running(database, open_files=512) as proc, httpx.AsyncClient(timeout=5) as client:
        api = f"http://127.0.0.1:{port(proc, 'http')}"
        warm = await client.post(f"{api}/api/assistant-agent/chat", json={"query": "boots"}, headers=token)
        assert warm.status_code == 200, warm.text
        lines_before = len(proc.logs)
        for kind in ("idle", "slow body"):
            async with hostile_clients.running(port(proc, "http"), 600, kind) as clients:
                await clients.wait_opened(600, timeout=60)
                for turn in range(5):
                    began = time.perf_counter()
                    chat = await client.post(f"{api}/api/assistant-agent/chat", json={"query": f"boots {turn}"},
                                             headers=token)  # fmt: skip
                    answered = time.perf_counter()
                    ready = await client.get(f"{proc.ops_url}/readyz")
                    timings.append((answered - began, time.perf_counter() - answered))
                    assert chat.status_code == 200, chat.text
                    assert ready.status_code == 200
        log_lines = len(proc.logs) - lines_before
    assert max(max(t) for t in timings) < 1.0, timings
    assert log_lines < 100
    assert proc.errors() == []


async def test_running_out_of_file_descriptors_is_logged_once_a_minute_not_per_failed_accept(database):
    """A cap set above what the open-file limit allows: the process runs out of descriptors."""
    async with running(database, open_files=256, SHOPAGENT_CONNECTIONS__MAX_PER_SERVER="5000") as proc:
        async with hostile_clients.running(port(proc, "http"), 600, "idle") as clients:
            await clients.wait_opened(600, timeout=60)
            await proc.wait_for_log("cannot accept connections", timeout=30)
            await anyio.sleep(3)  # asyncio retries a failed accept every second: let it retry
        lines = [e for e in proc.logs if "accept" in e.get("message", "")]
    assert len(lines) == 1, [e["message"] for e in lines[:5]]
    assert "Too many open files" in lines[0]["message"]
