"""Database outages are a normal condition: requests get a fast 503, MCP a tool error, the
readiness report says why, the indexer pauses instead of crashing, and all of it resumes
moments after the database is back, with no restart."""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from functools import partial
from pathlib import Path

import anyio
import asyncpg
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
from shopagent.bootstrap import build_public_app, dependency_checks, roster_for
from shopagent.domain.errors import DatabaseUnavailable
from shopagent.runtime.supervisor import RestartPolicy, Supervisor
from shopagent.settings import Secret
from shopagent.wiring.services import open_services
from shopagent.wiring.startup import INDEXER_ACTORS
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
        # Far below the connect timeout (10 s) a request that did not know of the outage could wait.
        with anyio.fail_after(5):
            for _ in range(5):  # the first meets the broken connection, the others fail at once
                response = await client.get("/api/admin/products", headers=headers)
                assert not linked.pool.up  # the outage is remembered: no waiting on the server
                assert response.status_code == 503
                assert response.json()["error"]["code"] == "database_unavailable"
                assert response.headers["retry-after"] == "1"
        created = await client.post("/api/admin/products", json=msgspec.to_builtins(product_input()), headers=headers)
        assert created.status_code == 503  # nothing half-written either

        await link.restore()
        listed, refused = await _refusals_until_answered(lambda: client.get("/api/admin/products", headers=headers))
        assert refused <= MAX_REFUSALS_AFTER_RESTORE, refused
        assert listed.json()["products"] == []


# Requests sent every PACING_SECONDS after the database is back are refused only until the pool's
# next probe (every 0.25 s): a count a busy machine can only lower, as it spreads the requests out.
PACING_SECONDS = 0.05
MAX_REFUSALS_AFTER_RESTORE = 6


async def _refusals_until_answered(send) -> tuple[httpx.Response, int]:
    """Send `send()` every PACING_SECONDS until it answers 200: that answer, and how many were refused."""
    refused = 0
    with anyio.fail_after(10):
        while (response := await send()).status_code != 200:
            refused += 1
            await anyio.sleep(PACING_SECONDS)  # pacing, not synchronisation
    return response, refused


async def test_connections_the_server_said_goodbye_on_while_idle_in_the_pool_get_a_503_not_a_500(
    linked, link, database
):
    """A server shutting down tells every connection, idle ones too, "terminating connection due
    to administrator command" and hangs up. asyncpg has no place for that message on an idle
    connection, and until the hang-up reaches it the pool still hands the connection out: the
    next statement on it fails inside asyncpg. That is the outage, not an internal error."""
    product = await linked.catalog.create_product(product_input("boot"))
    requests = [("GET", "/api/admin/products"), ("GET", f"/api/admin/products/{product.id}")] * 3
    requests += [("PUT", f"/api/admin/products/{product.id}")] * 2
    await _hold_connections(linked.pool, len(requests) + 1)  # so many wait idle in the pool
    app = build_public_app(linked)
    headers = {"Authorization": f"Bearer {ADMIN_KEY}"}
    async with (
        httpx.AsyncClient(transport=_answering(app), base_url="http://shop.test", headers=headers) as http,
        Client(linked.mcp_server) as mcp,
    ):
        link.hold_hangups()
        goodbyes = await _terminate_backends(database)
        assert goodbyes >= len(requests)
        with anyio.fail_after(5):
            await link.wait_held(goodbyes)  # every goodbye reached the app; no hang-up did

        answers: list[tuple[int, str]] = []
        tools: list[tuple[bool, str]] = []

        async def request(method: str, path: str) -> None:
            body = {"rating": 4.5} if method == "PUT" else None
            response = await http.request(method, path, json=body)
            answers.append((response.status_code, response.json().get("error", {}).get("code", "")))

        async def search() -> None:
            result = await mcp.call_tool("product-semantic-search", {"query": "boots", "limit": 3})
            tools.append((result.is_error, result.content[0].text if result.is_error else ""))

        with anyio.fail_after(10):
            async with anyio.create_task_group() as tg:
                for method, path in requests:
                    tg.start_soon(request, method, path)
                tg.start_soon(search)
        # Each got the outage's answer, or (the database being up) a fresh connection and its answer.
        assert [a for a in answers if a not in ((503, "database_unavailable"), (200, ""))] == [], answers
        assert (503, "database_unavailable") in answers
        assert [t for t in tools if t[0] and "temporarily unavailable" not in t[1]] == [], tools

        link.release_hangups()
        _, refused = await _refusals_until_answered(lambda: http.get(f"/api/admin/products/{product.id}"))
        assert refused <= MAX_REFUSALS_AFTER_RESTORE, refused


async def test_a_goodbye_after_the_last_statement_makes_the_release_an_outage_too(linked, link, database):
    """The pool resets a connection it takes back with a statement, which meets the goodbye."""
    with pytest.raises(DatabaseUnavailable):
        async with linked.pool.acquire() as conn:
            assert await conn.fetchval("SELECT 1") == 1
            link.hold_hangups()
            assert await _terminate_backends(database) >= 1
            with anyio.fail_after(5):
                await link.wait_held(1)
    assert not linked.pool.up
    link.release_hangups()
    await eventually(lambda: _answers(linked.pool), timeout=5)


async def _answers(pool) -> bool:
    try:
        async with pool.acquire() as conn:
            return await conn.fetchval("SELECT 1") == 1
    except DatabaseUnavailable:
        return False


async def test_a_statement_run_while_another_is_in_progress_on_its_connection_is_a_bug_not_an_outage(linked):
    with pytest.raises(asyncpg.InterfaceError, match="another operation is in progress"):
        async with linked.pool.acquire() as conn:
            first = asyncio.ensure_future(conn.fetchval("SELECT pg_sleep(0.05)"))
            await anyio.lowlevel.checkpoint()  # the first statement is under way
            try:
                await conn.fetchval("SELECT 1")
            finally:
                await first
    assert linked.pool.up


def _answering(app) -> httpx.ASGITransport:
    """A transport that hands back the app's 500 as a response, as a server would."""
    return httpx.ASGITransport(app=app, raise_app_exceptions=False)


async def _hold_connections(pool, count: int) -> None:
    """Open `count` connections in the pool at once (then leave them idle there)."""
    async with contextlib.AsyncExitStack() as stack:
        for _ in range(count):
            conn = await stack.enter_async_context(pool.acquire())
            await conn.fetchval("SELECT 1")


async def _terminate_backends(dsn: str) -> int:
    """What a shutting-down server does to each client connection of the database (but ours)."""
    conn = await asyncpg.connect(dsn)
    try:
        return await conn.fetchval(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
        )
    finally:
        await conn.close()


async def test_mcp_tools_answer_a_tool_error_in_an_outage_and_readiness_says_why(linked, link):
    database, storage = dependency_checks(linked)
    assert (await storage()).state == "up"  # the disk: up until a write finds it full
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
