"""The series an operator needs beyond requests and indexing, each moved by the action that
should move it on a real process over a real PostgreSQL: process and build info, searches
without a strong match by tool (an MCP client's and the assistant's own), 429s by limiter, open
event streams, reaper sweeps and what they released (lost leases: an indexer's leases over the
real PostgreSQL, taken by another); no `_created` series; the exposition passes
`promtool check metrics`. And the shop owner's report of those searches,
on the admin API and as `shopagent insights`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Any

import anyio
import asyncpg
import httpx
import httpx2
import msgspec
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from prometheus_client.samples import Sample

import shopagent
from shopagent.adapters.postgres.outbox import PostgresOutbox
from shopagent.application.leases import Leases
from shopagent.domain.indexing import EventKind
from shopagent.domain.tokens import issue_token
from shopagent.instrumentation import lease_loss_counter
from shopagent.runtime.metrics import Metrics
from tests.conftest import _create_database
from tests.factories import product_input
from tests.fake_openai import FakeOpenAI, reply, serving, tool_call
from tests.helpers import AUTH_SECRET, REPO, eventually
from tests.helpers import shopagent as shopagent_process
from tests.test_metrics import samples, scrape, value

pytestmark = pytest.mark.anyio

ADMIN_KEY = "admin-key-for-series-tests"
MCP_KEY = "mcp-key-for-series-tests"
SEARCH = "product-semantic-search"
STORE_INFO = "search-store-information"
INSIGHTS = "/api/admin/insights/no-strong-match"


class HeldOpenAI(FakeOpenAI):
    """A fake that answers once `release` is set, so a test can look while a turn is running."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = anyio.Event()
        self.release = anyio.Event()

    async def answer(self, body: dict[str, Any]) -> Any:
        self.asked.set()
        await self.release.wait()
        return await super().answer(body)


@dataclass
class Run:
    """What the process showed along the way: scrapes named by the moment they were taken."""

    scrapes: dict[str, list[Sample]] = field(default_factory=dict)
    last_text: str = ""
    answers: dict[str, httpx.Response] = field(default_factory=dict)
    cli: dict[str, subprocess.CompletedProcess[str]] = field(default_factory=dict)


@pytest.fixture(scope="module")
async def run(embedded_pg, template_db) -> Run:
    async for dsn in _create_database(embedded_pg, template_db):
        held = HeldOpenAI()
        async with serving(held) as fake:
            env = {
                "SHOPAGENT_DATABASE_URL": dsn,
                "SHOPAGENT_EMBEDDING__MODEL": "hash",
                "SHOPAGENT_CHAT__PROVIDER": "openai",
                "SHOPAGENT_CHAT__OPENAI_BASE_URL": fake.base_url,
                "SHOPAGENT_CHAT__OPENAI_MODEL": "fake-model",
                "SHOPAGENT_ADMIN_API_KEY": ADMIN_KEY,
                "SHOPAGENT_MCP_API_KEY": MCP_KEY,
                "SHOPAGENT_CHAT__READ_RATE_PER_MINUTE": "1",
                "SHOPAGENT_CHAT__READ_RATE_BURST": "1",
                "SHOPAGENT_REAPER__INTERVAL_SECONDS": "0.2",
                "SHOPAGENT_INDEXER__POLL_INTERVAL_SECONDS": "600",  # only the reaper frees a stale lease
                "SHOPAGENT_INSIGHTS__RETENTION_DAYS": "30",
            }
            async with shopagent_process("run", env=env) as proc:
                await proc.wait_for_log("all actors ready", timeout=60)
                result = Run()
                await drive(proc, held, dsn, result)
                result.last_text = await scrape(proc.ops_url)
            result.cli = insights_commands(dsn)
        return result
    raise AssertionError("no database")


async def drive(proc, held: HeldOpenAI, dsn: str, run: Run) -> None:
    env = proc.env
    api = f"http://127.0.0.1:{env['SHOPAGENT_HTTP__PORT']}"
    admin = {"Authorization": f"Bearer {ADMIN_KEY}"}
    customer = {"Authorization": f"Bearer {issue_token(AUTH_SECRET, 'ana', 3600)}"}

    async def snapshot(moment: str) -> list[Sample]:
        run.scrapes[moment] = samples(await scrape(proc.ops_url))
        return run.scrapes[moment]

    await snapshot("start")
    async with httpx.AsyncClient(base_url=api, timeout=30) as client:
        created = await client.post("/api/admin/products", json=msgspec.to_builtins(product_input()), headers=admin)
        assert created.status_code == 201, created.text

        async def indexed() -> bool:
            return (await client.get("/api/admin/index/status", headers=admin)).json()["productsIndexed"] == 1

        await eventually(indexed, timeout=20, interval=0.05)
        await snapshot("indexed")
        mcp_url = f"http://127.0.0.1:{env['SHOPAGENT_MCP__PORT']}/mcp"
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {MCP_KEY}"}) as http,
            Client(streamable_http_client(mcp_url, http_client=http)) as mcp,
        ):
            strong = await mcp.call_tool(SEARCH, {"query": "Alpine Lined Winter Boot"})
            assert strong.structured_content["noStrongMatch"] is False
            await snapshot("strong search")
            for query in ("Swimming Goggles for the POOL", "swimming  goggles for the pool"):
                found = await mcp.call_tool(SEARCH, {"query": query})
                assert found.structured_content["noStrongMatch"] is True
            asked = await mcp.call_tool(STORE_INFO, {"query": "do you ship to mars"})
            assert asked.structured_content["noStrongMatch"] is True
        await snapshot("searches without a strong match")

        assert (await client.get("/api/conversations", headers=customer)).status_code == 200
        assert (await client.get("/api/conversations", headers=customer)).status_code == 429
        await snapshot("refused")

        # A chat turn as an event stream whose model holds its first answer: the stream is open.
        held.script = [
            reply(tool_calls=[tool_call("call-1", SEARCH, {"query": "periscope for a submarine"})]),
            reply("We do not carry periscopes."),
        ]
        async with anyio.create_task_group() as tg:
            streamed: list[str] = []

            async def stream_turn() -> None:
                headers = customer | {"Accept": "text/event-stream"}
                body = {"query": "a periscope?"}
                async with client.stream("POST", "/api/assistant-agent/chat", json=body, headers=headers) as answer:
                    assert answer.status_code == 200
                    streamed.extend([line async for line in answer.aiter_lines()])

            tg.start_soon(stream_turn)
            with anyio.fail_after(20):
                await held.asked.wait()
            await snapshot("stream open")
            held.release.set()
        assert any(line.startswith("event: done") for line in streamed), streamed

        async def closed() -> bool:  # the server counts the stream closed once its app returned
            return value(await snapshot("stream closed"), "shopagent_event_streams_open", server="http") == 0

        await eventually(closed, timeout=10, interval=0.05)

        # A lease left by an indexer that is gone, and a search kept past the retention: the reaper's.
        conn = await asyncpg.connect(dsn)
        try:
            await conn.execute(
                "INSERT INTO outbox_event (kind, product_id, locked_until, locked_by) "
                "VALUES ('product.upserted', $1, now() - interval '1 minute', 'indexer/gone/1/x')",
                created.json()["id"],
            )
            await conn.execute(
                "INSERT INTO search_miss (searched_at, tool, query) VALUES (now() - interval '31 days', $1, 'old')",
                SEARCH,
            )
        finally:
            await conn.close()

        async def swept() -> list[Sample] | None:
            s = await snapshot("swept")
            released = [
                value(s, "shopagent_reaper_released_total", sweep=n)
                for n in ("expired-leases", "expired-search-misses")
            ]
            return s if all(r and r >= 1 for r in released) else None

        await eventually(swept, timeout=20, interval=0.1)

        run.answers["report"] = await client.get(INSIGHTS, params={"since": "1h"}, headers=admin)
        run.answers["a month"] = await client.get(INSIGHTS, params={"since": "31d", "limit": "1"}, headers=admin)
        run.answers["bad period"] = await client.get(INSIGHTS, params={"since": "7 days"}, headers=admin)
        run.answers["bad limit"] = await client.get(INSIGHTS, params={"limit": "0"}, headers=admin)
        run.answers["no key"] = await client.get(INSIGHTS)
        run.answers["openapi"] = await client.get("/openapi.json")


def insights_commands(dsn: str) -> dict[str, subprocess.CompletedProcess[str]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHOPAGENT_")} | {"SHOPAGENT_DATABASE_URL": dsn}

    def command(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "shopagent", "insights", *args],
            env=env, cwd=REPO, capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip

    return {
        "table": command("--since", "1h"),
        "json": command("--since", "1h", "--json"),
        "bad": command("--since", "7x"),
    }


def moved(run: Run, before: str, after: str, name: str, **labels: str) -> float:
    return (value(run.scrapes[after], name, **labels) or 0) - (value(run.scrapes[before], name, **labels) or 0)


async def test_searches_without_a_strong_match_are_counted_by_tool_the_assistants_own_included(run):
    counter = "shopagent_searches_without_strong_match_total"
    assert value(run.scrapes["start"], counter, tool=SEARCH) == 0  # present from the start
    assert value(run.scrapes["start"], counter, tool=STORE_INFO) == 0
    assert moved(run, "indexed", "strong search", counter, tool=SEARCH) == 0
    assert moved(run, "strong search", "searches without a strong match", counter, tool=SEARCH) == 2
    assert moved(run, "strong search", "searches without a strong match", counter, tool=STORE_INFO) == 1
    # The chat turn's search for a periscope, through the assistant's own tool gateway.
    assert moved(run, "stream open", "stream closed", counter, tool=SEARCH) == 1


async def test_a_refused_request_is_counted_by_its_limiter(run):
    assert value(run.scrapes["start"], "shopagent_rate_limited_total", limiter="read") == 0
    assert moved(run, "searches without a strong match", "refused", "shopagent_rate_limited_total", limiter="read") == 1
    for limiter in ("chat", "admin", "mcp", "mcp_chat", "visitor"):
        assert value(run.scrapes["refused"], "shopagent_rate_limited_total", limiter=limiter) == 0


async def test_an_open_event_stream_is_counted_while_it_is_open(run):
    streams = "shopagent_event_streams_open"
    assert value(run.scrapes["start"], streams, server="http") == 0
    assert value(run.scrapes["stream open"], streams, server="http") == 1
    assert value(run.scrapes["stream closed"], streams, server="http") == 0


async def test_reaper_sweeps_and_what_they_released_are_counted(run):
    s = run.scrapes["swept"]
    for sweep in ("expired-leases", "stuck-conversations", "idle-rate-limits", "expired-search-misses"):
        assert value(s, "shopagent_reaper_sweeps_total", sweep=sweep, outcome="ok") >= 1
    assert moved(run, "stream closed", "swept", "shopagent_reaper_released_total", sweep="expired-leases") == 1
    assert moved(run, "stream closed", "swept", "shopagent_reaper_released_total", sweep="expired-search-misses") == 1
    assert value(s, "shopagent_reaper_released_total", sweep="stuck-conversations") == 0
    assert value(s, "shopagent_index_leases_lost_total") == 0  # present; moved in the test below


async def test_process_and_build_series_are_there_and_move(run):
    start, end = run.scrapes["start"], samples(run.last_text)
    assert value(end, "shopagent_build_info", version=shopagent.__version__) == 1
    assert value(end, "python_info") == 1
    assert value(end, "process_resident_memory_bytes") > 10_000_000
    assert value(end, "process_open_fds") > 5
    assert value(end, "process_max_fds") >= value(end, "process_open_fds")
    assert value(end, "process_start_time_seconds") > 1_700_000_000
    assert value(end, "process_cpu_seconds_total") > value(start, "process_cpu_seconds_total")


async def test_the_exposition_has_no_created_series_and_passes_promtool(run):
    names = {s.name for s in samples(run.last_text)}
    assert "shopagent_http_requests_total" in names
    assert not [n for n in names if n.endswith("_created")]
    promtool = shutil.which("promtool")
    if promtool is None:
        pytest.skip("promtool is not installed (Debian: apt-get install prometheus; .ci/run installs it)")
    with anyio.fail_after(30):
        checked = await anyio.run_process([promtool, "check", "metrics"], input=run.last_text.encode(), check=False)
    assert (checked.returncode, (checked.stdout + checked.stderr).decode()) == (0, "")


async def test_the_admin_api_reports_searches_without_a_strong_match_most_frequent_first(run):
    report = run.answers["report"]
    assert report.status_code == 200, report.text
    body = report.json()
    assert body["totalSearches"] == 4 and body["retentionDays"] == 30
    queries = [(q["query"], q["searches"], q["tools"], q["bestMatch"]) for q in body["queries"]]
    assert queries[0] == ("swimming goggles for the pool", 2, [SEARCH], queries[0][3])
    assert queries[0][3] in ("partial", "weak")
    assert sorted(q[:3] for q in queries[1:]) == [
        ("do you ship to mars", 1, [STORE_INFO]),
        ("periscope for a submarine", 1, [SEARCH]),
    ]
    assert ("do you ship to mars", None) in [(q[0], q[3]) for q in queries]  # no store pages: nothing found
    assert body["since"] < body["until"] and all(q["lastSearchedAt"] for q in body["queries"])
    # The month-old search was forgotten by the reaper; a limit keeps the most frequent.
    month = run.answers["a month"].json()
    assert month["totalSearches"] == 4 and [q["query"] for q in month["queries"]] == ["swimming goggles for the pool"]


async def test_the_admin_report_refuses_a_bad_period_or_limit_and_a_missing_key(run):
    bad = run.answers["bad period"]
    assert bad.status_code == 400
    assert bad.json()["error"]["code"] == "validation_error"
    assert "30m, 12h, 7d or 4w" in bad.json()["error"]["message"]
    assert run.answers["bad limit"].status_code == 400
    assert run.answers["no key"].status_code == 401
    operation = run.answers["openapi"].json()["paths"][INSIGHTS]["get"]
    assert {p["name"] for p in operation["parameters"]} == {"since", "limit"}


async def test_the_insights_command_prints_the_report_as_a_table_or_json(run):
    table = run.cli["table"]
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines[0].startswith("4 search(es) found nothing strong from ")
    assert lines[1].split() == ["searches", "best", "last", "searched", "tools", "query"]
    assert lines[2].split()[0] == "2" and lines[2].endswith("swimming goggles for the pool")
    as_json = json.loads(run.cli["json"].stdout)
    assert as_json["queries"][0]["query"] == "swimming goggles for the pool"
    bad = run.cli["bad"]
    assert bad.returncode == 2
    assert "30m, 12h, 7d or 4w" in bad.stderr


async def test_a_lease_another_indexer_took_is_counted_once_as_lost(database):
    pool = await asyncpg.create_pool(database, min_size=1, max_size=2)
    try:
        outbox = PostgresOutbox(pool)
        metrics = Metrics()
        leases = Leases(outbox, lease_seconds=30, max_attempts=5, worker="indexer/a", ahead=4,
                        on_lost=lease_loss_counter(metrics))  # fmt: skip
        async with pool.acquire() as conn:
            for product in (1, 2, 3):
                await conn.execute(
                    "INSERT INTO outbox_event (kind, product_id) VALUES ($1, $2)", "product.upserted", product
                )
        events = await leases.claim(3)
        assert [e.kind for e in events] == [EventKind.UPSERTED] * 3
        leases.started(events[:2])
        lost = metrics.registry.get_sample_value
        await leases.renew()
        assert lost("shopagent_index_leases_lost_total") == 0
        # Another indexer takes the started event 1 and the waiting event 3; event 2 is finished.
        async with pool.acquire() as conn:
            await conn.execute(
                "UPDATE outbox_event SET locked_by = 'indexer/b' WHERE id = ANY($1::bigint[])",
                [events[0].id, events[2].id],
            )
            await conn.execute("UPDATE outbox_event SET status = 'done' WHERE id = $1", events[1].id)
        leases.finished([events[1]])
        await leases.renew()
        assert lost("shopagent_index_leases_lost_total") == 2
        await leases.renew()  # the started one is still its worker's: not lost twice
        assert lost("shopagent_index_leases_lost_total") == 2
        assert leases.held == 1
    finally:
        await pool.close()
