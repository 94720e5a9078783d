"""The demo shop's store pages with the real local model: grades, honesty when nothing answers,
and the tool declared to both LLM providers (fake Gemini and OpenAI-compatible servers)."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from shopagent.adapters.local.minilm import MiniLMEmbedder
from shopagent.adapters.mcp.gateway import open_in_process
from shopagent.application.store_pages import import_pages
from shopagent.bootstrap import SAMPLE_STORE_PAGES
from shopagent.domain.chat import ChatMessage
from shopagent.domain.store_words import read_store_question
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
TESTS = Path(__file__).resolve().parent

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
    ("can I send back shoes that don't fit?", "returns"),  # "send back" is a return
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


@pytest.mark.parametrize(
    ("question", "read"),
    [
        ("Liefert ihr auch nach Österreich?", "deliver austria"),
        ("Wie hoch sind die Versandkosten?", "shipping cost"),
        ("Kann ich per Rechnung bezahlen?", "invoice pay"),
        ("Vous livrez en Suisse ?", "deliver switzerland"),
        ("Vous livrez aux Pays-Bas ?", "deliver netherlands"),
        ("Quels moyens de paiement acceptez-vous ?", "payment"),
        ("Kann ich mit Klarna zahlen?", "klarna pay"),  # a word with no entry is kept as written
        # English questions are searched as written, also where a word is French for another ("pays")
        ("who pays for return shipping?", "who pays for return shipping?"),
        ("do you accept PayPal", "do you accept PayPal"),
        ("do you deliver to Porto?", "do you deliver to Porto?"),  # a town, though "Porto" is German for postage
        # a town named where the pages name its country
        ("when does it arrive in Basel?", "when does it delivery basel switzerland"),
        ("can you post it to Galway?", "can you post it to galway ireland"),
        ("Liefert ihr nach Wien?", "deliver wien austria"),
        # "send back" is a return, in English pages' words; what is sent back stays
        ("can I send back shoes that don't fit?", "can i return shoes that don t fit"),
        ("I'd like to send the boots back", "i d like to return the boots"),
        # sending to a place is shipping there, as the pages say
        ("can you send it to Graz?", "can you ship it to graz austria"),
        ("if I order today, when would it arrive?", "if i order today when would it delivery"),
        # and picking up is collecting, a store is the shop
        ("can I pick up my order?", "can i collect my order"),
        ("do you have a physical store?", "do you have a physical shop"),
    ],
)
def test_german_and_french_questions_are_read_in_the_english_pages_words(question, read):
    assert read_store_question(question, "en") == read


def test_questions_are_not_read_against_pages_in_another_language():
    assert read_store_question("Liefert ihr auch nach Österreich?", "de") == "Liefert ihr auch nach Österreich?"


# A shop of another trade, its pages written by someone else: questions from its tuning half
# (tests/data/garden and pets, store_questions.jsonl and the store turns of conversations.jsonl),
# each with the page the judge named. Before the three nearest passages agreeing on a page made it
# the answer, the first two were graded partial (the assistant said "I don't have that
# information") and the German one weak.
OTHER_SHOPS = [
    ("garden", "ok. whats your return policy if i order the wrong thing", "returns"),
    ("garden", "do you deliver pallets or only bags? I'm in Antwerp", "shipping"),
    ("pets", "wie lange dauert die lieferung nach deutschland?", "shipping"),
    ("garden", "how long does delivery to the netherlands take?", "shipping"),
    ("pets", "do you accept paypal? or ideal", "payment"),
    # picking up is collecting, a store is the shop (both were answered from the FAQ's "cancel my order",
    # or not at all)
    ("garden", "can I pick up my order", "shipping"),
    # a town named for its country: Leuven is in Belgium, whose row of the delivery table answers (it was on the
    # topic only, no passage sure)
    ("garden", "how quick can you deliver to Leuven", "shipping"),
    ("pets", "can I pick up my order", "shipping"),
    ("pets", "do you have a physical store", "faq"),
    # two topics named ("exchange", "size"): the returns passage, strong by its own words, first (the size
    # guide's, nearest of the page titled for sizes, was put before it while that made it strong too)
    ("clothing", "can i exchange for a smaller size", "returns"),
]


# (shop, question, the page titled for its topic): nothing surely answers, and the nearest passage of
# that page comes first, graded partial ("on the topic"). Before, another page's passage came first
# or the titled page's was weak; the questions the pages do not answer ("christmas trees", "parcel
# locker") have it too, and no strong one.
ON_TOPIC = [
    ("clothing", "Kann ich Artikel zurückschicken?", "returns"),
    ("clothing", "Quel est le délai de retour ?", "returns"),
    ("clothing", "is delivery carbon neutral", "shipping"),
    ("garden", "do you ship christmas trees", "shipping"),
    ("garden", "can you deliver to a parcel locker", "shipping"),
    ("pets", "can i return it if it doesn't fit under the seat", "returns"),
    ("pets", "can i pay when i collect", "payment"),
    # a strong passage of a page titled for another topic is not surely the answer (the returns page's
    # "Klarna invoices are adjusted" was, for an invoice payment)
    ("pets", "can I pay by invoice?", "payment"),
]


@pytest.mark.parametrize("shop_pages", ["clothing", "garden", "pets"], indirect=True)
async def test_a_question_naming_a_topic_gets_the_page_titled_for_it_first_though_not_as_the_answer(
    shop_pages, request
):
    trade = request.node.callspec.params["shop_pages"]
    async with Client(shop_pages.mcp_server) as client:
        for shop, question, page in ON_TOPIC:
            if shop == trade:
                found = (await client.call_tool(STORE_INFO_TOOL, {"query": question})).structured_content
                top = found["passages"][0]
                assert (top["page"], top["grade"], found["noStrongMatch"]) == (page, "partial", True), (question, found)


@pytest.fixture
async def shop_pages(settings, request):
    trade = request.param
    pages = SAMPLE_STORE_PAGES if trade == "clothing" else TESTS / "data" / trade / "store_pages"
    async with open_services(settings, INDEXER_ACTORS | {"mcp"}, embedder=MiniLMEmbedder()) as services:
        summary = await import_pages(services.store_pages, read_store_pages(pages))
        assert summary.rejected == []
        while events := await services.outbox.claim(64, 60, 5, "test"):
            await services.index_product.index(events)
        yield services


@pytest.mark.parametrize("shop_pages", ["clothing", "garden", "pets"], indirect=True)
async def test_another_shops_pages_answer_its_questions_from_the_right_page(shop_pages, request):
    trade = request.node.callspec.params["shop_pages"]
    async with Client(shop_pages.mcp_server) as client:
        for shop, question, page in OTHER_SHOPS:
            if shop == trade:
                found = (await client.call_tool(STORE_INFO_TOOL, {"query": question})).structured_content
                top = found["passages"][0]
                assert (top["page"], top["grade"]) == (page, "strong"), (question, found["passages"])
        for question in UNANSWERED:  # and what no page answers stays unanswered
            found = (await client.call_tool(STORE_INFO_TOOL, {"query": question})).structured_content
            assert found["noStrongMatch"] is True, (question, found["passages"])


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
