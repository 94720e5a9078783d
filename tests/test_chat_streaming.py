"""Streamed answers over the chat API: the real Gemini SDK and the OpenAI-compatible adapter
against their local fake servers in streaming mode, the real HTTP server and PostgreSQL."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import anyio
import httpx
import pytest

from shopagent.adapters.gemini.chat import GeminiChatModel
from shopagent.adapters.openai_compat.chat import OpenAICompatChatModel
from tests import fake_gemini, fake_openai
from tests.helpers import eventually
from tests.test_chat_api import SEARCH, chat_api, token

pytestmark = pytest.mark.anyio

CHAT = "/api/assistant-agent/chat"
STREAM = {**token("ana"), "Accept": "text/event-stream"}
ANSWER = ["The Alpine ", "Lined Winter Boot ", "is warm."]


@dataclass
class Provider:
    """A model adapter on its fake server, and how that server's answers are written."""

    model: Any
    fake: Any

    def search_then_answer(self, *, hold_answer: bool = False, cut_answer: bool = False) -> None:
        """Script a streamed step calling the search (after a short preamble), then the answer streamed
        in ANSWER's pieces; held after its first piece, or cut off after it."""
        answer = self.answer(*ANSWER[:1] if cut_answer else ANSWER, cut=cut_answer)
        if hold_answer:
            answer.hold_after = self.first_text_chunk
        self.fake.script = [self.search("Let me look. "), answer]


class GeminiProvider(Provider):
    first_text_chunk = 1  # chunks: the first text piece, then the rest

    def search(self, preamble: str) -> fake_gemini.Streamed:
        call = {"functionCall": {"name": SEARCH, "args": {"query": "boot"}, "id": "call-1"}}
        return fake_gemini.streamed({"text": preamble}, call)

    def answer(self, *pieces: str, cut: bool = False) -> fake_gemini.Streamed:
        usage = {"promptTokenCount": 50, "candidatesTokenCount": 9}
        return fake_gemini.streamed(*({"text": p} for p in pieces), usage=usage, finish_reason=None if cut else "STOP")

    def whole(self, text: str) -> tuple[int, dict[str, Any]]:
        return fake_gemini.generated({"text": text})

    def streamed_requests(self) -> list[bool]:
        return [path.endswith(":streamGenerateContent") for path, _ in self.fake.requests]


class OpenAIProvider(Provider):
    first_text_chunk = 2  # chunks: the role, the first text piece, then the rest

    def search(self, preamble: str) -> fake_openai.Streamed:
        return fake_openai.streamed(preamble, tool_calls=[fake_openai.tool_call("call-1", SEARCH, {"query": "boot"})])

    def answer(self, *pieces: str, cut: bool = False) -> fake_openai.Streamed:
        return fake_openai.streamed(*pieces, finish=not cut, done=not cut)

    def whole(self, text: str) -> fake_openai.Answer:
        return fake_openai.reply(text)

    def streamed_requests(self) -> list[bool]:
        return [request.body.get("stream") is True for request in self.fake.requests]


@contextlib.asynccontextmanager
async def provider_of(name: str) -> AsyncIterator[Provider]:
    if name == "gemini":
        async with fake_gemini.running_fake_gemini() as fake:
            model = GeminiChatModel("test-key", base_url=fake.base_url, backoff_seconds=0.01, max_attempts=2)
            try:
                yield GeminiProvider(model, fake)
            finally:
                await model.aclose()
    else:
        async with fake_openai.running_fake_openai() as fake:
            model = OpenAICompatChatModel(fake.base_url, "fake-model", backoff_seconds=0.01, max_attempts=2)
            try:
                yield OpenAIProvider(model, fake)
            finally:
                await model.aclose()


@pytest.fixture(params=["gemini", "openai"])
async def provider(request) -> AsyncIterator[Provider]:
    async with provider_of(request.param) as provider:
        yield provider


async def sse_events(response: httpx.Response) -> AsyncIterator[tuple[str, Any]]:
    kind = None
    async for line in response.aiter_lines():
        if line.startswith("event: "):
            kind = line.removeprefix("event: ")
        elif line.startswith("data: "):
            yield kind, json.loads(line.removeprefix("data: "))


async def stream_turn(api: httpx.AsyncClient, body: dict[str, Any]) -> list[tuple[str, Any]]:
    with anyio.fail_after(20):
        async with api.stream("POST", CHAT, json=body, headers=STREAM) as response:
            assert response.status_code == 200
            return [event async for event in sse_events(response)]


async def test_deltas_arrive_in_order_and_the_answer_is_their_concatenation_stored_once(settings, provider):
    provider.search_then_answer()
    async with chat_api(settings, provider.model) as api:
        events = await stream_turn(api, {"query": "warm boots?"})
        conversation = events[-1][1]["conversationId"]
        detail = (await api.get(f"/api/conversations/{conversation}", headers=token("ana"))).json()

        provider.fake.script = [provider.whole("Size 42 is in stock.")]
        follow_up = await api.post(CHAT, json={"query": "size 42?", "conversationId": conversation},
                                   headers=token("ana"))  # fmt: skip

    kinds = [kind for kind, _ in events]
    assert kinds == ["delta", "step", "tool", "delta", "delta", "delta", "step", "answer", "done"]
    step, tool, answer = events[1][1], events[2][1], events[7][1]
    assert events[0][1] == {"text": "Let me look. "}  # the searching step's preamble, streamed too
    assert step == {"step": 1, "calls": [SEARCH]}
    assert (tool["name"], tool["arguments"], tool["isError"]) == (SEARCH, {"query": "boot"}, False)
    (card,) = tool["products"]
    assert (card["slug"], card["name"], card["price"], card["discountPrice"], card["currency"]) == (
        "alpine-boot", "Alpine Lined Winter Boot", "189.00", None, "EUR"
    )  # fmt: skip
    assert (card["availableColors"], card["availableSizes"], card["inStock"]) == (["black"], ["42"], True)

    deltas = [data["text"] for kind, data in events[3:6]]
    assert deltas == ANSWER
    assert answer["text"] == "".join(deltas)
    assert answer["message"]["sequence"] == 4 and answer["message"]["role"] == "model"
    assert answer["message"]["text"] == answer["text"]

    messages = [(m["sequence"], m["role"], m["text"]) for m in detail["messages"]]
    assert messages == [(1, "user", "warm boots?"), (2, "model", "Let me look. "), (3, "user", ""),
                        (4, "model", "".join(ANSWER))]  # fmt: skip
    assert detail["messages"][3] == answer["message"]

    # The JSON endpoint asks for no stream and answers as it always did.
    assert follow_up.json() == {"conversationId": conversation, "response": "Size 42 is in stock.", "products": []}
    assert provider.streamed_requests() == [True, True, False]


async def test_a_client_that_leaves_after_the_first_delta_still_gets_the_turn_stored(settings, provider):
    provider.search_then_answer(hold_answer=True)
    held = provider.fake.script[1]
    async with chat_api(settings, provider.model) as api:
        seen = []
        with anyio.fail_after(20):
            async with api.stream("POST", CHAT, json={"query": "warm boots?"}, headers=STREAM) as response:
                async for kind, data in sse_events(response):
                    seen.append((kind, data))
                    if kind == "delta" and data["text"] == ANSWER[0]:
                        break  # the client goes away while the answer is being written
            assert held.held.is_set()
        held.resume.set()

        async def stored() -> list:
            return (await api.get("/api/conversations", headers=token("ana"))).json()["conversations"]

        (listed,) = await eventually(stored, timeout=20)
        detail = (await api.get(f"/api/conversations/{listed['id']}", headers=token("ana"))).json()
    assert [kind for kind, _ in seen] == ["delta", "step", "tool", "delta"]
    assert [(m["role"], m["text"]) for m in detail["messages"]] == [
        ("user", "warm boots?"), ("model", "Let me look. "), ("user", ""), ("model", "".join(ANSWER)),
    ]  # fmt: skip
    assert detail["isProcessing"] is False


async def test_a_stream_cut_after_some_deltas_ends_with_an_error_event_and_stores_nothing(settings, provider):
    provider.search_then_answer(cut_answer=True)
    async with chat_api(settings, provider.model) as api:
        events = await stream_turn(api, {"query": "warm boots?"})
        listed = (await api.get("/api/conversations", headers=token("ana"))).json()["conversations"]
    assert [kind for kind, _ in events] == ["delta", "step", "tool", "delta", "error"]
    assert events[3][1] == {"text": ANSWER[0]}
    error = events[-1][1]
    assert (error["status"], error["code"]) == (503, "model_unavailable")
    assert "broke off a streamed answer" in error["message"]
    assert provider.streamed_requests() == [True, True]  # not retried: the text had gone out
    assert listed == []
