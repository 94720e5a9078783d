"""/metrics of the real process after a chat turn, an MCP call and an indexing event; the
Grafana dashboard in deploy/ against it; and a scrape during a database outage."""

from __future__ import annotations

import json
import re
import tempfile
from functools import partial
from pathlib import Path

import anyio
import httpx
import httpx2
import msgspec
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

from shopagent.actors.http import run_http
from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.adapters.memory.chat import ScriptedChatModel, says
from shopagent.bootstrap import build_public_app, dependency_checks, health_of, roster_for
from shopagent.domain.errors import ModelUnavailable
from shopagent.domain.tokens import issue_token
from shopagent.entrypoints.http.ops import health_metrics
from shopagent.instrumentation import MeasuredChatModel
from shopagent.runtime.metrics import Metrics
from shopagent.runtime.supervisor import RestartPolicy, Supervisor
from shopagent.settings import HttpSettings, OpsSettings
from shopagent.wiring.policies import listening
from shopagent.wiring.services import open_services
from shopagent.wiring.startup import INDEXER_ACTORS
from tests.conftest import _create_database, settings_for
from tests.factories import product_input
from tests.fake_openai import reply, running_fake_openai, tool_call
from tests.helpers import AUTH_SECRET, REPO, eventually, free_port, shopagent
from tests.outage import postgres_link

pytestmark = pytest.mark.anyio

ADMIN_KEY = "admin-key-for-metrics-tests"
MCP_KEY = "mcp-key-for-metrics-tests"
SEARCH = "product-semantic-search"
DASHBOARD = REPO / "deploy" / "grafana-dashboard.json"


def samples(text: str) -> list[Sample]:
    return [s for family in text_string_to_metric_families(text) for s in family.samples]


def value(scraped: list[Sample], name: str, **labels: str) -> float | None:
    """The sum of the samples called `name` with these labels (None: there is none)."""
    found = [s.value for s in scraped if s.name == name and labels.items() <= s.labels.items()]
    return sum(found) if found else None


async def scrape(ops_url: str) -> str:
    async with httpx.AsyncClient() as client:
        response = await client.get(f"{ops_url}/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    return response.text


@pytest.fixture(scope="module")
async def after_a_turn_a_call_and_an_event(embedded_pg, template_db) -> str:
    """The /metrics text of a whole process (every role) after one product was created and
    indexed, one chat turn answered with a tool call (OpenAI-compatible fake), and one MCP
    call over HTTP."""
    async for dsn in _create_database(embedded_pg, template_db):
        async with running_fake_openai() as fake:
            fake.script = [
                reply(tool_calls=[tool_call("call-1", SEARCH, {"query": "winter boot"})]),
                reply("The Alpine Lined Winter Boot, 189.00."),
            ]
            env = {
                "SHOPAGENT_DATABASE_URL": dsn,
                "SHOPAGENT_EMBEDDING__MODEL": "hash",
                "SHOPAGENT_CHAT__PROVIDER": "openai",
                "SHOPAGENT_CHAT__OPENAI_BASE_URL": fake.base_url,
                "SHOPAGENT_CHAT__OPENAI_MODEL": "fake-model",
                "SHOPAGENT_ADMIN_API_KEY": ADMIN_KEY,
                "SHOPAGENT_MCP_API_KEY": MCP_KEY,
            }
            async with shopagent("run", env=env) as proc:
                await proc.wait_for_log("all actors ready", timeout=60)
                await drive(proc.env)
                text = await scrape(proc.ops_url)
        return text
    raise AssertionError("no database")


async def drive(env) -> None:
    api = f"http://127.0.0.1:{env['SHOPAGENT_HTTP__PORT']}"
    admin = {"Authorization": f"Bearer {ADMIN_KEY}"}
    async with httpx.AsyncClient(base_url=api, timeout=30) as client:
        created = await client.post("/api/admin/products", json=msgspec.to_builtins(product_input()), headers=admin)
        assert created.status_code == 201, created.text

        async def indexed() -> bool:
            status = (await client.get("/api/admin/index/status", headers=admin)).json()
            return status["productsIndexed"] == 1 and status["pending"] + status["inFlight"] == 0

        await eventually(indexed, timeout=20, interval=0.05)
        customer = {"Authorization": f"Bearer {issue_token(AUTH_SECRET, 'ana', 3600)}"}
        turn = await client.post("/api/assistant-agent/chat", json={"query": "warm winter boots?"}, headers=customer)
        assert turn.status_code == 200, turn.text
        conversation = await client.get(f"/api/conversations/{turn.json()['conversationId']}", headers=customer)
        assert conversation.status_code == 200
        assert (await client.get(f"/api/conversations/{turn.json()['conversationId']}/nope")).status_code == 404
    mcp_url = f"http://127.0.0.1:{env['SHOPAGENT_MCP__PORT']}/mcp"
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {MCP_KEY}"}) as http,
        Client(streamable_http_client(mcp_url, http_client=http)) as mcp,
    ):
        found = await mcp.call_tool(SEARCH, {"query": "leather boot", "limit": 3})
        assert not found.is_error


async def test_after_a_chat_turn_an_mcp_call_and_an_indexing_event_their_series_moved(
    after_a_turn_a_call_and_an_event,
):
    s = samples(after_a_turn_a_call_and_an_event)
    chat_route = {"server": "http", "route": "/api/assistant-agent/chat", "method": "POST"}
    # Requests by route template (never the raw path), method and status, with their latency.
    assert value(s, "shopagent_http_requests_total", **chat_route, status="200") == 1
    assert value(s, "shopagent_http_request_duration_seconds_count", **chat_route) == 1
    assert value(s, "shopagent_http_requests_total", route="/api/admin/products", status="201") == 1
    assert value(s, "shopagent_http_requests_total", route="/api/conversations/{conversation_id}", status="200") == 1
    assert value(s, "shopagent_http_requests_total", server="http", route="other", status="404") == 1
    assert value(s, "shopagent_http_requests_total", server="mcp", route="/mcp", method="POST", status="200") >= 1
    assert not [x for x in s if "conversations/" in x.labels.get("route", "") and "{" not in x.labels["route"]]
    # MCP tool calls: the agent's (in process) and the MCP client's (over HTTP).
    assert value(s, "shopagent_mcp_tool_calls_total", tool=SEARCH, outcome="ok") == 2
    assert value(s, "shopagent_mcp_tool_duration_seconds_count", tool=SEARCH) == 2
    # The chat turn: two steps (a tool call, then the answer) and the tokens the model reported.
    assert value(s, "shopagent_chat_turns_total", provider="openai", outcome="ok") == 1
    assert value(s, "shopagent_chat_steps_total", provider="openai") == 2
    assert value(s, "shopagent_chat_tool_calls_total", tool=SEARCH, outcome="ok") == 1
    assert value(s, "shopagent_model_request_duration_seconds_count", provider="openai", model="fake-model") == 2
    assert value(s, "shopagent_model_tokens_total", provider="openai", direction="input") == 20
    assert value(s, "shopagent_model_tokens_total", provider="openai", direction="output") == 10
    # Indexing: the event, its embedding batch, and the queries embedded for the searches.
    assert value(s, "shopagent_index_events_processed_total", outcome="written") == 1
    # Documents: the event's batch, and the category names the ranking compares queries with
    # (embedded once, on the first search).
    assert value(s, "shopagent_embedding_duration_seconds_count", model="hash-384", kind="documents") == 2
    assert value(s, "shopagent_embedding_duration_seconds_count", model="hash-384", kind="query") == 2
    assert value(s, "shopagent_embedding_batch_size_count", model="hash-384") == 2
    assert value(s, "shopagent_embedding_batch_size_sum", model="hash-384") >= 1
    # Read at scrape time: the outbox, the vector index, the pool.
    for state in ("pending", "in_flight", "dead"):
        assert value(s, "shopagent_outbox_events", state=state) == 0
    assert value(s, "shopagent_outbox_dead_letters") == 0
    assert value(s, "shopagent_outbox_oldest_due_age_seconds") == 0
    assert value(s, "shopagent_vector_index_ready", model="hash-384") is not None
    assert value(s, "shopagent_indexed_products", model="hash-384") == 1
    assert value(s, "shopagent_db_pool_connections", state="max") == 10
    assert value(s, "shopagent_db_pool_connections", state="in_use") is not None
    assert value(s, "shopagent_db_pool_connections", state="idle") >= 1
    # The series /metrics had before, under the same names.
    assert value(s, "shopagent_ready") == 1
    assert value(s, "shopagent_actor_ready", actor="http") == 1
    assert value(s, "shopagent_actor_restarts_total", actor="embedding-pool") == 0
    assert value(s, "shopagent_dependency_up", dependency="database") == 1
    assert value(s, "shopagent_mailbox_depth") == 0
    assert value(s, "shopagent_mailbox_capacity") is not None


def dashboard_series(dashboard: dict) -> set[str]:
    exprs = []

    def walk(node) -> None:
        if isinstance(node, dict):
            exprs.extend(v for k, v in node.items() if k in ("expr", "query") and isinstance(v, str))
            for child in node.values():
                walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(dashboard)
    return {name for expr in exprs for name in re.findall(r"\bshopagent_[a-z0-9_]+", expr)}


def test_the_dashboard_is_a_grafana_dashboard_over_prometheus():
    dashboard = json.loads(DASHBOARD.read_text())
    assert dashboard["title"] and dashboard["uid"] and dashboard["schemaVersion"] >= 36
    panels = dashboard["panels"]
    assert len({p["id"] for p in panels}) == len(panels)
    graphs = [p for p in panels if p["type"] != "row"]
    assert all(p["targets"] and all(t["expr"] for t in p["targets"]) for p in graphs)
    assert {p["datasource"]["uid"] for p in graphs} == {"${datasource}"}
    titles = " ".join(p["title"].lower() for p in graphs)
    for topic in ("request", "5xx", "p95", "chat turns", "model latency", "tokens", "outbox", "oldest", "dead"):
        assert topic in titles, topic
    assert "pool" in titles
    for topic in ("memory", "cpu", "open files", "build", "without a strong match", "429", "event streams", "reaper",
                  "lost leases"):  # fmt: skip
        assert topic in titles, topic


async def test_every_series_the_dashboard_uses_is_in_a_real_scrape(after_a_turn_a_call_and_an_event):
    scraped = {s.name for s in samples(after_a_turn_a_call_and_an_event)}
    used = dashboard_series(json.loads(DASHBOARD.read_text()))
    assert len(used) >= 15
    assert sorted(used - scraped) == []


async def test_a_scrape_in_a_database_outage_answers_with_dependency_up_0_and_the_other_series(database):
    with tempfile.TemporaryDirectory(prefix="pglink-") as directory:  # a short path: socket names are limited
        async with postgres_link(database, Path(directory)) as link:
            port = free_port()
            settings = msgspec.structs.replace(settings_for(link.dsn), ops=OpsSettings(port=port))
            async with open_services(settings, INDEXER_ACTORS | {"mcp"}, embedder=HashEmbedder(384)) as services:
                checks = dependency_checks(services)

                async def health():
                    return await health_of(supervisor, services.mailbox, str, checks, services.outbox.backlog)

                services.metrics.add_source("health", partial(health_metrics, health))
                supervisor = Supervisor(roster_for(frozenset({"ops"}), services, health), RestartPolicy())
                url = f"http://127.0.0.1:{port}"
                with anyio.fail_after(30):
                    async with anyio.create_task_group() as tg:
                        await tg.start(supervisor.run)
                        before = samples(await scrape(url))
                        assert value(before, "shopagent_dependency_up", dependency="database") == 1
                        assert value(before, "shopagent_vector_index_ready", model="hash-384") == 0
                        link.cut()

                        async def scraped_down() -> list[Sample] | None:
                            s = samples(await scrape(url))
                            return s if value(s, "shopagent_dependency_up", dependency="database") == 0 else None

                        down = await eventually(scraped_down, timeout=10)
                        assert value(down, "shopagent_ready") == 0
                        assert value(down, "shopagent_actor_ready", actor="ops") == 1
                        assert value(down, "shopagent_db_pool_connections", state="max") == 10
                        assert value(down, "shopagent_mailbox_capacity") is not None
                        assert value(down, "shopagent_vector_index_ready", model="hash-384") is None
                        assert value(down, "shopagent_outbox_events", state="pending") is None
                        await link.restore()
                        tg.cancel_scope.cancel()


class StreamingModel(ScriptedChatModel):
    """A scripted model whose `generate` takes a streaming callback, as streaming adapters do."""

    async def generate(self, system, messages, tools, temperature=None, *, on_text=None):
        reply = await super().generate(system, messages, tools, temperature)
        if isinstance(reply, Exception):
            raise reply
        if on_text is not None:
            on_text(reply.text)
        return reply


async def test_a_measured_model_passes_keyword_arguments_through_and_times_failed_requests_too():
    metrics = Metrics()
    model = MeasuredChatModel(StreamingModel([says("hello"), ModelUnavailable("down")]), metrics, "custom")
    streamed: list[str] = []
    reply = await model.generate("system", [], [], on_text=streamed.append)
    assert (reply.text, streamed, model.model_id) == ("hello", ["hello"], "scripted")
    with pytest.raises(ModelUnavailable):
        await model.generate("system", [], [], 0.2, on_text=streamed.append)
    sample = metrics.registry.get_sample_value
    assert sample("shopagent_chat_steps_total", {"provider": "custom"}) == 2
    assert sample("shopagent_model_request_duration_seconds_count", {"provider": "custom", "model": "scripted"}) == 2
    assert sample("shopagent_model_tokens_total", {"provider": "custom", "direction": "output"}) == 1  # says(): 1


async def test_a_failed_turn_is_counted_with_its_error_and_its_request_with_the_status_it_got(settings):
    port = free_port()
    settings = msgspec.structs.replace(settings, http=HttpSettings(port=port))
    model = StreamingModel([ModelUnavailable("the model service is down")])
    async with open_services(settings, frozenset({"http"}), embedder=HashEmbedder()) as services:
        async with anyio.create_task_group() as tg:
            await tg.start(partial(run_http, listening(settings, "http"), partial(build_public_app, services, model)))
            customer = {"Authorization": f"Bearer {issue_token(AUTH_SECRET, 'ana', 3600)}"}
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
                failed = await client.post("/api/assistant-agent/chat", json={"query": "boots?"}, headers=customer)
            tg.cancel_scope.cancel()
        s = samples((await services.metrics.render()).decode())
    assert failed.status_code >= 500
    assert value(s, "shopagent_chat_turns_total", provider="custom", outcome="model_unavailable") == 1
    assert value(s, "shopagent_chat_turns_total", outcome="ok") is None
    route = {"route": "/api/assistant-agent/chat", "method": "POST"}
    assert value(s, "shopagent_http_requests_total", **route, status=str(failed.status_code)) == 1
    assert value(s, "shopagent_db_pool_connections", state="max") == 10
