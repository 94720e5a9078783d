"""The agent loop with a scripted model and the real in-process MCP gateway, over the search of
the in-memory twins (a `unit` test: the loop is not about SQL; the chat API's tests run it over
PostgreSQL end to end)."""

from __future__ import annotations

import anyio
import pytest

from shopagent.adapters.mcp.gateway import open_in_process
from shopagent.adapters.memory.chat import ScriptedChatModel, calls, says
from shopagent.application.agent import AgentEvent, AssistantAgent
from shopagent.domain.chat import FunctionResponse
from tests.factories import stock_boot_and_sandal
from tests.twin_services import twin_services

pytestmark = pytest.mark.anyio

SEARCH = "product-semantic-search"


@pytest.fixture
async def tools():
    services = twin_services()
    await stock_boot_and_sandal(services)
    async with open_in_process(services.mcp_server) as gateway:
        yield gateway


def agent(model, tools, **options) -> AssistantAgent:
    return AssistantAgent(model, tools, "You are a test assistant.", **options)


async def test_a_reply_without_function_calls_is_the_answer(tools):
    model = ScriptedChatModel([says("Hello, how can I help?")])
    answer, new = await agent(model, tools).run([], "hi")
    assert answer == "Hello, how can I help?"
    assert [m.role for m in new] == ["model"]
    assert model.tools_seen[0] == [SEARCH, "get-product-full-details", "search-store-information"]
    assert model.calls[0][-1].text == "hi"


async def test_a_tool_call_runs_through_the_gateway_and_its_result_goes_back_to_the_model(tools):
    model = ScriptedChatModel([calls((SEARCH, {"query": "winter boot", "limit": 1})), says("The Alpine boot.")])
    events: list[AgentEvent] = []
    answer, new = await agent(model, tools).run([], "boots?", on_event=events.append)
    assert answer == "The Alpine boot."
    assert [m.role for m in new] == ["model", "user", "model"]
    (response,) = new[1].parts
    assert isinstance(response, FunctionResponse)
    assert (response.name, response.id, response.result["isError"]) == (SEARCH, "call-1", False)
    assert response.result["structuredContent"]["products"][0]["slug"] == "alpine-boot"
    assert model.calls[1][-1] == new[1]  # the model saw the tool result
    assert [e.kind for e in events] == ["model", "tool", "delta", "model", "final"]
    assert events[1].args == {"query": "winter boot", "limit": 1}
    assert events[1].result is not None and events[1].result.structured == response.result["structuredContent"]
    assert (events[2].step, events[2].text) == (2, "The Alpine boot.")  # the answer's text, before its step


async def test_several_calls_in_one_step_run_concurrently_and_answer_in_call_order(tools):
    in_flight, peak = 0, 0
    fast_done = anyio.Event()

    class Slow:
        """The real gateway, with the first call held until the second has finished, so it finishes last."""

        def __init__(self, inner) -> None:
            self.inner = inner

        async def list_tools(self):
            return await self.inner.list_tools()

        async def safe_call(self, name, args):
            nonlocal in_flight, peak
            in_flight += 1
            peak = max(peak, in_flight)
            try:
                if args.get("query") == "slow boot":
                    with anyio.fail_after(10):  # calls made one after the other would never get past this
                        await fast_done.wait()
                    return await self.inner.safe_call(name, args)
                try:
                    return await self.inner.safe_call(name, args)
                finally:
                    fast_done.set()
            finally:
                in_flight -= 1

    model = ScriptedChatModel(
        [calls((SEARCH, {"query": "slow boot", "limit": 1}), (SEARCH, {"query": "sandal", "limit": 1})), says("Both.")]
    )
    _, new = await agent(model, Slow(tools)).run([], "boots and sandals")
    responses = new[1].parts
    assert [r.id for r in responses] == ["call-1", "call-2"]
    assert [r.result["structuredContent"]["products"][0]["slug"] for r in responses] == ["alpine-boot", "beach-sandal"]
    assert peak == 2


async def test_an_unknown_tool_becomes_an_error_result_and_the_model_recovers(tools):
    model = ScriptedChatModel([calls(("buy-everything", {})), says("Sorry, I can only search.")])
    answer, new = await agent(model, tools).run([], "buy it all")
    assert answer == "Sorry, I can only search."
    (response,) = new[1].parts
    assert response.result["isError"] is True
    assert "there is no tool 'buy-everything'" in response.result["content"]


async def test_bad_arguments_reach_the_model_as_a_tool_error(tools):
    model = ScriptedChatModel([calls((SEARCH, {"query": "boot", "limit": 99})), says("Let me try again.")])
    _, new = await agent(model, tools).run([], "boots")
    assert "limit 99 is out of range" in new[1].parts[0].result["content"]


async def test_a_model_that_never_stops_calling_tools_is_answered_with_the_last_search_after_max_steps(tools):
    queries = iter(["sandal", "boot", "winter boot"])
    model = ScriptedChatModel(lambda messages: calls((SEARCH, {"query": next(queries), "limit": 1})))
    answer, new = await agent(model, tools, max_steps=3).run([], "boots")
    assert len(model.calls) == 3
    lines = answer.splitlines()
    assert lines[1:] == ["- Alpine Lined Winter Boot: 189.00 EUR", "Ask me about any of them for more details."]
    assert "winter boot" in lines[0]
    assert [m.role for m in new] == ["model", "user"] * 3 + ["model"]
    assert new[-1].text == answer
