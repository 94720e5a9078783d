"""Database outages are a normal condition: requests get a fast 503, MCP a tool error, the
readiness report says why, the indexer pauses instead of crashing, and all of it resumes
moments after the database is back, with no restart."""

from __future__ import annotations

import tempfile
import time
from functools import partial
from pathlib import Path

import anyio
import httpx
import msgspec
import pytest
from mcp import Client

from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.adapters.mcp.gateway import open_in_process
from shopagent.adapters.memory.chat import ScriptedChatModel, says
from shopagent.adapters.postgres.conversations import PostgresConversations
from shopagent.application.agent import AssistantAgent
from shopagent.application.conversations import ChatPolicy, ChatService
from shopagent.bootstrap import INDEXER_ACTORS, build_public_app, dependency_checks, open_services, roster_for
from shopagent.domain.errors import DatabaseUnavailable
from shopagent.runtime.supervisor import RestartPolicy, Supervisor
from shopagent.settings import Secret
from tests.conftest import settings_for
from tests.factories import product_input
from tests.helpers import eventually
from tests.outage import postgres_link

pytestmark = pytest.mark.anyio

ADMIN_KEY = "admin-key-for-outage-tests"
OUTAGE_SECONDS = 2.0  # longer than the restart budget below lets a crashing actor survive


@pytest.fixture
async def link(database):
    with tempfile.TemporaryDirectory(prefix="pglink-") as directory:  # a short path: socket names are limited
        async with postgres_link(database, Path(directory)) as link:
            yield link


@pytest.fixture
async def linked(link):
    settings = settings_for(link.dsn)
    secrets = msgspec.structs.replace(settings.secrets, admin_api_key=Secret(ADMIN_KEY))
    settings = msgspec.structs.replace(settings, secrets=secrets)
    async with open_services(settings, INDEXER_ACTORS | {"http", "mcp"}, embedder=HashEmbedder(384)) as services:
        yield services


async def test_requests_in_an_outage_get_a_fast_503_and_succeed_again_within_a_second_of_its_end(linked, link):
    app = build_public_app(linked)
    headers = {"Authorization": f"Bearer {ADMIN_KEY}"}
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://shop.test") as client:
        assert (await client.get("/api/admin/products", headers=headers)).status_code == 200
        link.cut()
        for _ in range(5):  # the first meets the broken connection, the others fail at once
            began = time.monotonic()
            response = await client.get("/api/admin/products", headers=headers)
            assert time.monotonic() - began < 1.0
            assert response.status_code == 503
            assert response.json()["error"]["code"] == "database_unavailable"
            assert response.headers["retry-after"] == "1"
        created = await client.post("/api/admin/products", json=msgspec.to_builtins(product_input()), headers=headers)
        assert created.status_code == 503  # nothing half-written either

        await link.restore()
        back = time.monotonic()

        async def answered() -> httpx.Response | None:
            response = await client.get("/api/admin/products", headers=headers)
            return response if response.status_code == 200 else None

        listed = await eventually(answered, timeout=5)
        assert time.monotonic() - back < 1.0
        assert listed.json()["products"] == []


async def test_mcp_tools_answer_a_tool_error_in_an_outage_and_readiness_says_why(linked, link):
    [database] = dependency_checks(linked)
    assert (await database()).state == "up"
    async with Client(linked.mcp_server) as client:
        link.cut()
        result = await client.call_tool("get-product-full-details", {"productId": 1})
        assert result.is_error
        assert "temporarily unavailable" in result.content[0].text
        down = await database()
        assert (down.state, down.required) == ("down", True)
        assert down.detail
        await link.restore()
        assert (await eventually(lambda: _up(database), timeout=5)).state == "up"
        result = await client.call_tool("get-product-full-details", {"productId": 1})
        assert "does not exist" in result.content[0].text  # an answer from the database again


async def _up(check):
    report = await check()
    return report if report.state == "up" else None


async def test_the_indexer_pauses_through_an_outage_and_resumes_without_a_restart(linked, link):
    first = await linked.catalog.create_product(product_input("boot-before"))
    # One restart allowed: an actor that crashes on the outage (and again on restarting
    # into it) takes the whole tree down.
    supervisor = Supervisor(roster_for(INDEXER_ACTORS, linked), RestartPolicy(max_restarts=1, backoff_seconds=0.05))

    async def indexed(product_id: int) -> bool:
        async with linked.pool.acquire() as conn:
            return bool(await conn.fetchval("SELECT count(*) FROM product_chunk WHERE product_id = $1", product_id))

    async with anyio.create_task_group() as tg:
        await tg.start(supervisor.run)
        await eventually(partial(indexed, first.id), timeout=10)
        link.cut()
        await eventually(lambda: _noticed(linked), timeout=5)  # the LISTEN connection broke
        await anyio.sleep(OUTAGE_SECONDS)  # the outage itself
        await link.restore()
        second = await eventually(lambda: _created(linked), timeout=5)
        await eventually(partial(indexed, second.id), timeout=5)  # woken by its NOTIFY
        assert {s.name: (s.state.value, s.restarts) for s in supervisor.statuses()} == {
            "embedding-pool": ("ready", 0),
            "outbox-poller": ("ready", 0),
        }
        tg.cancel_scope.cancel()


async def _noticed(services) -> bool:
    return not services.pool.up


async def _created(services):
    try:
        return await services.catalog.create_product(product_input("boot-after"))
    except DatabaseUnavailable:
        return None


class WaitingModel(ScriptedChatModel):
    """Answers "ok", after `gate` is set when one is given."""

    def __init__(self) -> None:
        super().__init__(lambda messages: says("ok"))
        self.gate: anyio.Event | None = None
        self.entered = anyio.Event()

    async def generate(self, system, messages, tools, temperature=None, *, on_text=None):
        reply = await super().generate(system, messages, tools, temperature, on_text=on_text)
        self.entered.set()
        if self.gate is not None:
            await self.gate.wait()
        return reply


async def test_a_turn_cut_by_an_outage_leaves_its_conversation_free_for_the_next_message(linked, link):
    model = WaitingModel()
    async with open_in_process(linked.mcp_server) as tools:
        chat = ChatService(PostgresConversations(linked.pool), AssistantAgent(model, tools, "system"), ChatPolicy())
        first = await chat.run_turn("ana", "boots?")
        model.gate, model.entered = anyio.Event(), anyio.Event()
        failed: list[Exception] = []
        async with anyio.create_task_group() as tg:

            async def cut_while_it_thinks() -> None:
                await model.entered.wait()
                link.cut()  # the answer cannot be stored, nor the claim released
                model.gate.set()

            tg.start_soon(cut_while_it_thinks)
            try:
                await chat.run_turn("ana", "and socks?", first.conversation_id)
            except DatabaseUnavailable as exc:
                failed.append(exc)
        assert failed  # the client got 503 database_unavailable
        await link.restore()
        model.gate = None
        # Not "still being answered" until the reaper's stuck_after_seconds: free at once.
        again = await eventually(lambda: _turn(chat, first.conversation_id), timeout=5)
        assert again.response == "ok"
        stored = await chat.get("ana", first.conversation_id)
        assert [m.text for m in stored.messages] == ["boots?", "ok", "and socks?", "ok"]


async def _turn(chat, conversation_id):
    try:
        return await chat.run_turn("ana", "and socks?", conversation_id)
    except DatabaseUnavailable:
        return None
