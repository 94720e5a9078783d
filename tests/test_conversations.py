"""Chat turns over persisted conversations: the use cases over the in-memory twin of the
conversations (its contract suite keeps it true to PostgreSQL) and an MCP server of their own,
what depends on the SQL (message sequences, concurrent claims, the reaper's sweep) against the
real PostgreSQL."""

from __future__ import annotations

import contextlib
import uuid
from dataclasses import dataclass

import anyio
import pytest
from mcp.server.mcpserver import MCPServer

from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.adapters.mcp.gateway import open_in_process
from shopagent.adapters.memory.chat import ScriptedChatModel, calls, says
from shopagent.adapters.memory.conversations import MemoryConversations
from shopagent.adapters.postgres.conversations import PostgresConversations
from shopagent.application.agent import AssistantAgent
from shopagent.application.conversations import ChatPolicy, ChatService
from shopagent.domain.chat import ChatMessage, FunctionCall, FunctionResponse, TextPart
from shopagent.domain.conversation import trim_history, turns
from shopagent.domain.errors import (
    ClaimLost,
    ContextLimitReached,
    ContextWindowExceeded,
    ConversationBusy,
    ModelUnavailable,
    NotFound,
)
from shopagent.wiring.services import open_services
from shopagent.wiring.startup import INDEXER_ACTORS
from tests.factories import product_input
from tests.helpers import wait_until

pytestmark = pytest.mark.anyio

SEARCH = "product-semantic-search"


class GatedModel(ScriptedChatModel):
    """Answers "ok" once `gate` is set (at once without one); raises `error` if one is given."""

    def __init__(self, *, error: Exception | None = None) -> None:
        super().__init__([says("ok")])
        self.gate: anyio.Event | None = None
        self.entered = anyio.Event()
        self.error = error

    async def generate(self, system, messages, tools, temperature=None, *, on_text=None):
        reply = await super().generate(system, messages, tools, temperature, on_text=on_text)
        self.entered.set()
        if self.gate is not None:
            await self.gate.wait()
        if self.error is not None:
            raise self.error
        return reply


@pytest.fixture
async def services(settings):
    async with open_services(settings, INDEXER_ACTORS | {"mcp"}, embedder=HashEmbedder()) as services:
        await services.catalog.create_product(product_input("alpine-boot"))
        await services.index_product.index(await services.outbox.claim(10, 60, 5, "t"))
        yield services


@dataclass
class TwinShop:
    """No database: the conversations' twin, and an MCP server (the real SDK, in process) whose
    one tool finds the same boot every time."""

    conversations: MemoryConversations
    server: MCPServer


@pytest.fixture
def twin_shop() -> TwinShop:
    return twin_shop_now()


def twin_shop_now() -> TwinShop:
    server = MCPServer("shop")

    @server.tool(name=SEARCH)
    def search(query: str, limit: int = 5) -> dict:
        # About the size of a real search result: the trim policy's test counts on it.
        boot = {"slug": "alpine-boot", "name": "Alpine Lined Winter Boot", "description": "Lined, warm. " * 60}
        return {"products": [boot]}

    return TwinShop(MemoryConversations(), server)


@contextlib.asynccontextmanager
async def chat_with(shop, model, policy: ChatPolicy | None = None):
    """A chat service over `shop`: the twin shop, or the PostgreSQL services."""
    if isinstance(shop, TwinShop):
        store, server = shop.conversations, shop.server
    else:
        store, server = PostgresConversations(shop.pool), shop.mcp_server
    async with open_in_process(server) as tools:
        agent = AssistantAgent(model, tools, "system", max_steps=4)
        yield ChatService(store, agent, policy or ChatPolicy())


async def sequences(services, conversation_id) -> list[int]:
    async with services.pool.acquire() as conn:
        rows = await conn.fetch(
            "SELECT sequence FROM conversation_message WHERE conversation_id = $1 ORDER BY sequence", conversation_id
        )
    return [r["sequence"] for r in rows]


async def test_a_new_conversation_is_stored_with_its_title_and_messages(twin_shop):
    model = ScriptedChatModel([calls((SEARCH, {"query": "boots"})), says("Try the Alpine boot.")])
    async with chat_with(twin_shop, model) as chat:
        result = await chat.run_turn("ana", "  Do you have   warm boots for a winter hike in the Alps?  ")
        stored = await chat.get("ana", result.conversation_id)
    assert result.response == "Try the Alpine boot."
    assert stored.title == "Do you have warm boots for a winter hike in the Alps?"
    assert stored.model_id == "scripted"
    assert [m.role for m in stored.messages] == ["user", "model", "user", "model"]
    assert isinstance(stored.messages[2].parts[0], FunctionResponse)
    assert stored.usage.input_tokens == 2  # the scripted model reports 1 per reply
    assert not stored.is_processing


async def test_fifty_concurrent_turns_on_one_conversation_one_wins_the_rest_are_busy(services):
    model = GatedModel()
    async with chat_with(services, model) as chat:
        first = await chat.run_turn("ana", "hello")
        model.gate, answered_before = anyio.Event(), len(model.calls)
        outcomes: list[str] = []

        def all_claims_decided() -> bool:  # each turn is with the model (held there) or was refused
            return len(model.calls) - answered_before + outcomes.count("busy") == 50

        async def turn(n: int) -> None:
            try:
                await chat.run_turn("ana", f"message {n}", first.conversation_id)
                outcomes.append("ok")
            except ConversationBusy:
                outcomes.append("busy")

        with anyio.fail_after(30):
            async with anyio.create_task_group() as tg:
                for n in range(50):
                    tg.start_soon(turn, n)
                await wait_until(all_claims_decided)
                model.gate.set()
    assert outcomes.count("ok") == 1
    assert outcomes.count("busy") == 49
    assert await sequences(services, first.conversation_id) == [1, 2, 3, 4]


async def test_two_hundred_turns_over_twenty_conversations_leave_no_gaps_or_duplicates(services):
    async with chat_with(services, ScriptedChatModel([says("ok")])) as chat:
        conversations = [(await chat.run_turn(f"user-{n}", "first")).conversation_id for n in range(20)]

        async def talk(conversation_id) -> None:
            for n in range(9):
                await chat.run_turn(f"user-{conversations.index(conversation_id)}", f"turn {n}", conversation_id)

        with anyio.fail_after(60):
            async with anyio.create_task_group() as tg:
                for conversation_id in conversations:
                    tg.start_soon(talk, conversation_id)
    for conversation_id in conversations:
        assert await sequences(services, conversation_id) == list(range(1, 21))  # 10 turns x (user, model)


@pytest.fixture(params=["memory", "postgres"])
def either_shop(request: pytest.FixtureRequest):
    """The twin shop, or the PostgreSQL services (asked for only then: it opens the database)."""
    return twin_shop_now() if request.param == "memory" else request.getfixturevalue("services")


def store_of(shop):
    return shop.conversations if isinstance(shop, TwinShop) else PostgresConversations(shop.pool)


async def test_a_turn_whose_claim_was_reaped_stores_nothing_and_cannot_free_the_new_claim(either_shop):
    services = either_shop
    store = store_of(services)
    slow, quick = GatedModel(), GatedModel()
    slow.gate, quick.gate = anyio.Event(), anyio.Event()
    async with chat_with(services, ScriptedChatModel([says("hi")])) as setup:
        conversation_id = (await setup.run_turn("ana", "hello")).conversation_id
    results: dict[str, object] = {}
    finished = {"slow": anyio.Event(), "quick": anyio.Event()}

    async def run(name, model) -> None:
        async with chat_with(services, model) as chat:
            try:
                results[name] = await chat.run_turn("ana", f"from {name}", conversation_id)
            except ClaimLost as exc:
                results[name] = exc
            finally:
                finished[name].set()

    with anyio.fail_after(20):
        async with anyio.create_task_group() as tg:
            tg.start_soon(run, "slow", slow)
            await slow.entered.wait()
            assert await store.release_stuck(0) == [conversation_id]  # the reaper gives up on it
            tg.start_soon(run, "quick", quick)
            await quick.entered.wait()  # the second turn holds a fresh claim now
            slow.gate.set()
            await finished["slow"].wait()
            assert isinstance(results["slow"], ClaimLost)
            still = await store.find(conversation_id, with_messages=False)
            assert still.is_processing  # the slow turn could not release the new claim
            quick.gate.set()
    conversation = await store.find(conversation_id)
    texts = [m.text for m in conversation.messages if m.role == "user"]
    assert texts == ["hello", "from quick"]
    assert not conversation.is_processing


async def test_a_failing_model_leaves_history_unchanged_and_the_conversation_unlocked(twin_shop):
    async with chat_with(twin_shop, ScriptedChatModel([says("hi")])) as chat:
        conversation_id = (await chat.run_turn("ana", "hello")).conversation_id
    async with chat_with(twin_shop, GatedModel(error=ModelUnavailable("the model is down"))) as chat:
        with pytest.raises(ModelUnavailable):
            await chat.run_turn("ana", "are you there?", conversation_id)
        stored = await chat.get("ana", conversation_id)
    assert [m.text for m in stored.messages] == ["hello", "hi"]
    assert not stored.is_processing


async def test_the_context_flag_blocks_the_next_turn_before_any_model_call(twin_shop):
    async with chat_with(twin_shop, ScriptedChatModel([says("hi")])) as chat:
        conversation_id = (await chat.run_turn("ana", "hello")).conversation_id
    full = GatedModel(error=ContextWindowExceeded("too long"))
    async with chat_with(twin_shop, full) as chat:
        with pytest.raises(ContextLimitReached):
            await chat.run_turn("ana", "more", conversation_id)
        calls_before = len(full.calls)
        with pytest.raises(ContextLimitReached):
            await chat.run_turn("ana", "and more", conversation_id)
        stored = await chat.get("ana", conversation_id)
    assert len(full.calls) == calls_before  # refused before the model was asked
    assert stored.max_context_window_reached
    assert [m.text for m in stored.messages] == ["hello", "hi"]


def tool_turn(n: int) -> list[ChatMessage]:
    return [
        ChatMessage.user(f"question {n} " + "x" * 400),
        ChatMessage(role="model", parts=[FunctionCall(SEARCH, {"query": f"q{n}"}, id=f"c{n}")]),
        ChatMessage(
            role="user", parts=[FunctionResponse(SEARCH, {"isError": False, "content": "y" * 400}, id=f"c{n}")]
        ),
        ChatMessage(role="model", parts=[TextPart(f"answer {n}")]),
    ]


def test_trimming_drops_whole_turns_and_never_splits_a_call_from_its_response():
    history = [m for n in range(6) for m in tool_turn(n)]
    trimmed = trim_history(history, budget=600)
    assert trimmed and trimmed[0].role == "user" and not any(isinstance(p, FunctionResponse) for p in trimmed[0].parts)
    assert len(turns(trimmed)) < 6
    assert trimmed == history[-len(trimmed) :]
    calls_seen = set()
    for message in trimmed:
        for part in message.parts:
            if isinstance(part, FunctionCall):
                calls_seen.add(part.id)
            if isinstance(part, FunctionResponse):
                assert part.id in calls_seen


async def test_the_trim_policy_sends_the_newest_whole_turns_and_keeps_the_stored_history(twin_shop):
    model = ScriptedChatModel(lambda messages: says("fine"))
    policy = ChatPolicy(context_policy="trim", context_token_budget=1000)
    async with chat_with(twin_shop, ScriptedChatModel([calls((SEARCH, {"query": "boot"})), says("ok")])) as chat:
        conversation_id = (await chat.run_turn("ana", "first " + "x" * 1500)).conversation_id
    async with chat_with(twin_shop, ScriptedChatModel([calls((SEARCH, {"query": "boot"})), says("ok")])) as chat:
        await chat.run_turn("ana", "second " + "x" * 1500, conversation_id)
    async with chat_with(twin_shop, model, policy) as chat:
        await chat.run_turn("ana", "third", conversation_id)
        stored = await chat.get("ana", conversation_id)
    sent = model.calls[0]
    assert sent[0].text.startswith("second")  # the oldest turn was left out ...
    assert sent[-1].text == "third"
    assert len(stored.messages) == 10  # ... but nothing was deleted


async def test_the_reaper_frees_a_stuck_conversation_and_the_user_can_continue(twin_shop):
    store = twin_shop.conversations
    async with chat_with(twin_shop, ScriptedChatModel([says("hi")])) as chat:
        conversation_id = (await chat.run_turn("ana", "hello")).conversation_id
        assert await store.claim(conversation_id) is not None  # a turn that crashed mid-way
        with pytest.raises(ConversationBusy):
            await chat.run_turn("ana", "hello again", conversation_id)
        assert await store.release_stuck(0) == [conversation_id]
        result = await chat.run_turn("ana", "hello again", conversation_id)
    assert result.response == "hi"


async def test_another_users_conversation_does_not_exist_for_you(twin_shop):
    async with chat_with(twin_shop, ScriptedChatModel([says("hi")])) as chat:
        conversation_id = (await chat.run_turn("ana", "hello")).conversation_id
        with pytest.raises(NotFound):
            await chat.run_turn("bob", "mine now", conversation_id)
        with pytest.raises(NotFound):
            await chat.get("bob", conversation_id)
        with pytest.raises(NotFound):
            await chat.delete("bob", conversation_id)
        with pytest.raises(NotFound):
            await chat.get("ana", uuid.uuid4())
        await chat.delete("ana", conversation_id)
        with pytest.raises(NotFound):
            await chat.get("ana", conversation_id)


async def test_a_crashed_turns_claim_is_released_once_the_turn_timeout_and_a_margin_have_passed(services):
    """A claim can only outlive the turn timeout if its turn crashed: by default the reaper's
    sweep frees it 15 s after that (135 s with the default 120 s timeout), not after minutes."""
    import asyncpg

    from shopagent.bootstrap import sweeps

    assert services.settings.stuck_after_seconds == services.settings.chat.turn_timeout_seconds + 15
    store = PostgresConversations(services.pool)
    release = next(sweep for sweep in sweeps(services) if sweep.name == "stuck-conversations")
    async with chat_with(services, ScriptedChatModel([says("hi")])) as chat:
        young = (await chat.run_turn("ana", "hello")).conversation_id
        old = (await chat.run_turn("bob", "hello")).conversation_id
    for conversation_id, age in ((young, services.settings.chat.turn_timeout_seconds), (old, 136)):
        assert await store.claim(conversation_id) is not None  # a turn that crashed mid-way
        conn = await asyncpg.connect(services.settings.secrets.database_url.reveal())
        try:
            await conn.execute(
                "UPDATE conversation SET processing_started_at = now() - make_interval(secs => $2) WHERE id = $1",
                conversation_id,
                float(age),
            )
        finally:
            await conn.close()
    assert await release.run() == 1  # only the one claimed longer than the timeout and the margin
    assert await store.claim(old) is not None
    assert await store.claim(young) is None  # still "answering": it may yet finish


def test_a_stuck_claim_threshold_at_or_below_the_turn_timeout_is_refused():
    from shopagent.settings import ChatSettings, ReaperSettings, Settings

    with pytest.raises(ValueError, match=r"must exceed chat\.turn_timeout_seconds"):
        Settings(chat=ChatSettings(turn_timeout_seconds=120), reaper=ReaperSettings(stuck_after_seconds=100))
    settings = Settings(chat=ChatSettings(turn_timeout_seconds=60), reaper=ReaperSettings(stuck_after_seconds=0))
    assert settings.stuck_after_seconds == 75
    assert Settings(reaper=ReaperSettings(stuck_after_seconds=600)).stuck_after_seconds == 600
