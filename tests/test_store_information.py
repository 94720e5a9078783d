"""The demo shop's store pages with the real local model: grades, honesty when nothing answers,
and the tool declared to both LLM providers (fake Gemini and OpenAI-compatible servers)."""

from __future__ import annotations

import pytest
from mcp import Client

from shopagent.adapters.local.minilm import MiniLMEmbedder
from shopagent.adapters.mcp.gateway import open_in_process
from shopagent.application.store_pages import import_pages
from shopagent.bootstrap import SAMPLE_STORE_PAGES
from shopagent.domain.chat import ChatMessage
from shopagent.domain.tools import STORE_INFO_TOOL
from shopagent.entrypoints.http.sources import page_sources
from shopagent.entrypoints.store_page_files import read_store_pages
from shopagent.wiring.services import open_services
from shopagent.wiring.startup import INDEXER_ACTORS
from tests.fake_gemini import generated
from tests.fake_openai import reply
from tests.test_gemini_chat import gemini
from tests.test_openai_chat import openai

pytestmark = pytest.mark.anyio

# (question, the page that answers it)
ANSWERED = [
    ("do you ship to Austria?", "shipping"),
    ("how much is shipping to Switzerland", "shipping"),
    ("how long does delivery take in Germany", "shipping"),
    ("what is your return policy?", "returns"),
    ("when will I get my refund", "returns"),
    ("can I pay by invoice?", "payment"),
    ("do you accept PayPal", "payment"),
    ("what size is EU 42 in UK sizes", "size-guide"),
    ("do you sell gift cards", "faq"),
    ("can I cancel my order", "faq"),
]
UNANSWERED = ["what's the weather in Berlin", "what are your opening hours", "do you have red boots"]


@pytest.fixture
async def demo_pages(settings):
    async with open_services(settings, INDEXER_ACTORS | {"mcp"}, embedder=MiniLMEmbedder()) as services:
        summary = await import_pages(services.store_pages, read_store_pages(SAMPLE_STORE_PAGES))
        assert (summary.created, summary.rejected) == (5, [])
        while events := await services.outbox.claim(64, 60, 5, "test"):
            await services.index_product.index(events)
        yield services


async def test_the_demo_pages_answer_store_questions_strongly_from_the_right_page(demo_pages):
    async with Client(demo_pages.mcp_server) as client:
        for question, page in ANSWERED:
            found = (await client.call_tool(STORE_INFO_TOOL, {"query": question})).structured_content
            top = found["passages"][0]
            assert (top["page"], top["grade"], found["noStrongMatch"]) == (page, "strong", False), question
        for question in UNANSWERED:
            found = (await client.call_tool(STORE_INFO_TOOL, {"query": question})).structured_content
            assert found["noStrongMatch"] is True, question
            assert all(p["grade"] != "strong" for p in found["passages"]), question


async def test_a_strong_passage_cites_its_page_for_the_chat_page(demo_pages):
    async with open_in_process(demo_pages.mcp_server) as gateway:
        shipped = await gateway.safe_call(STORE_INFO_TOOL, {"query": "do you ship to Austria?"})
        weather = await gateway.safe_call(STORE_INFO_TOOL, {"query": "what's the weather in Berlin"})
    (source, *_) = page_sources(STORE_INFO_TOOL, shipped)
    assert (source.page, source.title, source.url) == (
        "shipping",
        "Shipping and delivery",
        "https://shop.example.com/shipping",
    )
    assert page_sources(STORE_INFO_TOOL, weather) == []


async def test_both_llm_providers_are_given_the_store_information_tool(services):
    async with open_in_process(services.mcp_server) as gateway:
        tools = await gateway.list_tools()
    assert STORE_INFO_TOOL in [t.name for t in tools]
    question = [ChatMessage.user("do you ship to Austria?")]

    async with gemini() as (fake, model):
        fake.script = [generated({"text": "Yes."})]
        await model.generate("system", question, tools)
    declared = [d["name"] for d in fake.requests[0][1]["tools"][0]["functionDeclarations"]]
    assert STORE_INFO_TOOL in declared

    async with openai() as (fake_openai, chat_model):
        fake_openai.script = [reply("Yes.")]
        await chat_model.generate("system", question, tools)
    assert STORE_INFO_TOOL in [t["function"]["name"] for t in fake_openai.requests[0].body["tools"]]
