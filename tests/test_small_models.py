"""The agent with a small model's slips, over the real OpenAI-compatible client against a local
fake server, and the real MCP tools over the test database: calls written as text, calls
repeated, a model that never gives an answer."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import anyio
import pytest

from shopagent.adapters.mcp.gateway import open_in_process
from shopagent.adapters.openai_compat.chat import OpenAICompatChatModel
from shopagent.application.agent import AgentEvent, AssistantAgent
from shopagent.domain.chat import ChatMessage, FunctionCall, FunctionResponse
from tests.factories import boot_and_sandal_shop
from tests.fake_openai import FakeOpenAI, reply, serving, streamed, tool_call, written_call

pytestmark = pytest.mark.anyio

SEARCH = "product-semantic-search"
ANSWER = "The Alpine Lined Winter Boot costs 189.00 EUR."


@pytest.fixture
async def shop(settings):
    async with boot_and_sandal_shop(settings) as services:
        yield services


@contextlib.asynccontextmanager
async def assistant(shop, **options) -> AsyncIterator[tuple[FakeOpenAI, AssistantAgent]]:
    with anyio.fail_after(30):
        async with serving(FakeOpenAI()) as fake:
            model = OpenAICompatChatModel(fake.base_url, "small-model", max_attempts=1)
            try:
                async with open_in_process(shop.mcp_server) as tools:
                    yield fake, AssistantAgent(model, tools, "You are the shop's assistant.", **options)
            finally:
                await model.aclose()


def searches_served(shop) -> float:
    labels = {"tool": SEARCH, "outcome": "ok"}
    return shop.metrics.registry.get_sample_value("shopagent_mcp_tool_calls_total", labels) or 0


def pairs_every_call_with_its_response(messages: list[ChatMessage]) -> bool:
    calls = [p.id for m in messages for p in m.parts if isinstance(p, FunctionCall)]
    responses = [p.id for m in messages for p in m.parts if isinstance(p, FunctionResponse)]
    return calls == responses


FORMS = {
    "json-fence": {},
    "bare-with-parameters-as-text": {"fence": False, "key": "parameters", "arguments_as_text": True},
    "tool-call-tags": {"tags": True},
}


@pytest.mark.parametrize("form", FORMS)
async def test_a_tool_call_written_as_the_whole_text_is_run_as_that_call_and_never_shown(shop, form):
    async with assistant(shop) as (fake, agent):
        fake.script = [written_call(SEARCH, {"query": "winter boot", "limit": 1}, **FORMS[form]), reply(ANSWER)]
        events: list[AgentEvent] = []
        answer, new = await agent.run([], "warm boots?", on_event=events.append)
        # JSON naming no tool that was offered is an answer like any other.
        fake.script = [written_call("buy-everything", {})]
        other, _ = await agent.run([], "buy it all")
    assert answer == ANSWER
    assert [e.text for e in events if e.kind == "delta"] == [ANSWER]
    (call,) = new[0].parts
    assert isinstance(call, FunctionCall) and (call.name, call.args) == (SEARCH, {"query": "winter boot", "limit": 1})
    (response,) = new[1].parts
    assert response.id == call.id and not response.result["isError"]
    assert response.result["structuredContent"]["products"][0]["name"] == "Alpine Lined Winter Boot"
    # The model sees its call as a call, answered, in the next request.
    _, _, made, result = fake.requests[1].body["messages"]
    assert (made["content"], made["tool_calls"][0]["function"]["name"]) == ("", SEARCH)
    assert (result["role"], result["tool_call_id"]) == ("tool", made["tool_calls"][0]["id"])
    assert other.startswith("```json") and '"buy-everything"' in other


async def test_streamed_text_of_a_call_written_as_text_never_reaches_the_shopper(shop):
    async with assistant(shop) as (fake, agent):
        fake.script = [
            streamed('```json\n{"name": "product-semantic-search", ', '"arguments": {"query": "winter boot"}}\n```'),
            streamed("The Alpine Lined Winter Boot ", "costs 189.00 EUR."),
        ]
        events: list[AgentEvent] = []
        answer, _ = await agent.run([], "warm boots?", on_event=events.append)
    assert [e.text for e in events if e.kind == "delta"] == ["The Alpine Lined Winter Boot ", "costs 189.00 EUR."]
    assert answer == ANSWER
    assert [e.kind for e in events].count("tool") == 1


async def test_a_repeated_call_is_answered_with_the_first_result_and_the_model_is_told_so(shop):
    async with assistant(shop) as (fake, agent):
        fake.script = [
            reply(tool_calls=[tool_call("call_1", SEARCH, {"query": "winter boot", "limit": 1})]),
            reply(tool_calls=[tool_call("call_2", SEARCH, {"limit": 1, "query": "winter boot"})]),  # the same call
            reply(ANSWER),
        ]
        served_before = searches_served(shop)
        events: list[AgentEvent] = []
        answer, new = await agent.run([], "warm boots?", on_event=events.append)
    assert answer == ANSWER
    assert searches_served(shop) - served_before == 1
    assert [e.repeated for e in events if e.kind == "tool"] == [False, True]
    first, repeat = new[1].parts[0], new[3].parts[0]
    assert repeat.id == "call_2"
    assert repeat.result["structuredContent"] == first.result["structuredContent"]
    assert "already made this exact call" in repeat.result["repeatedCall"]
    assert "already made this exact call" in fake.requests[2].body["messages"][-1]["content"]


async def test_a_model_that_keeps_repeating_a_call_is_stopped_and_answered_with_what_that_search_found(shop):
    async with assistant(shop, max_steps=8) as (fake, agent):
        fake.script = [
            reply(tool_calls=[tool_call(f"call_{n}", SEARCH, {"query": "winter boot", "limit": 1})]) for n in range(8)
        ]
        answer, new = await agent.run([], "warm boots?")
    assert len(fake.requests) == 3  # the call, a repeat (told), a repeat again: stopped
    assert answer.splitlines() == [
        "I could not finish looking into this, but here is what I found for “winter boot”:",
        "- Alpine Lined Winter Boot: 189.00 EUR",
        "Ask me about any of them for more details.",
    ]
    assert [m.role for m in new] == ["model", "user"] * 3 + ["model"]
    assert new[-1].text == answer
    assert pairs_every_call_with_its_response(new)
