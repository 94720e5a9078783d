"""The offline assistant (the concierge) over the in-memory twins: the bundled sample shop
indexed with the hash embedder (in about a second), searched by the search twin, talked to through the agent
loop and the real in-process MCP gateway. A `unit` test: the conversation state, the filters it
carries from turn to turn and the honesty of its answers are not about SQL. The chat API's own
tests (tests/test_concierge_chat.py) run it end to end over PostgreSQL."""

from __future__ import annotations

from decimal import Decimal

import pytest
from mcp import Client

from shopagent.adapters.local.minilm import MiniLMEmbedder
from shopagent.adapters.mcp.gateway import open_in_process
from shopagent.application.agent import AssistantAgent
from shopagent.application.catalog import import_products
from shopagent.application.store_pages import import_pages
from shopagent.bootstrap import SAMPLE_CATALOG, SAMPLE_STORE_PAGES
from shopagent.domain.chat import ChatMessage, FunctionCall, FunctionResponse
from shopagent.domain.tools import STORE_INFO_TOOL
from shopagent.entrypoints.catalog_files import read_catalog_file
from shopagent.entrypoints.store_page_files import read_store_pages
from shopagent.wiring.providers import build_concierge
from tests.conversation_set import Catalog, grounded, listed_names
from tests.test_store_information import ANSWERED, UNANSWERED
from tests.twin_services import TwinServices, twin_services

pytestmark = pytest.mark.anyio
SEARCH = "product-semantic-search"
DETAILS = "get-product-full-details"


@pytest.fixture(scope="module")
async def sample_twins() -> TwinServices:
    """The bundled sample catalog in the twins, indexed with the hash embedder."""
    services = twin_services()
    summary = await import_products(services.catalog, read_catalog_file(SAMPLE_CATALOG))
    assert summary.rejected == []
    await services.index_everything()
    return services


class Turn:
    def __init__(self, said: str, answer: str, messages: list[ChatMessage], catalog: Catalog) -> None:
        self.said, self.answer = said, answer
        parts = [p for m in messages for p in m.parts]
        self.calls = [p for p in parts if isinstance(p, FunctionCall)]
        self.responses = [p for p in parts if isinstance(p, FunctionResponse)]
        self.listed = listed_names(answer, [], catalog)

    @property
    def search(self) -> dict:
        return [c.args for c in self.calls if c.name == SEARCH][-1]

    def product(self, name: str) -> dict:
        for r in self.responses:
            for p in (r.result.get("structuredContent") or {}).get("products", []):
                if p["name"] == name:
                    return p
        raise AssertionError(f"{name} is not in this turn's search results")

    def price(self, name: str) -> Decimal:
        return Decimal(self.product(name)["effectivePrice"])


class Shopper:
    """One customer talking to the concierge; the history is kept as the chat service keeps it."""

    def __init__(self, services: TwinServices, tools, catalog: Catalog) -> None:
        self.services, self.tools, self.catalog = services, tools, catalog
        self.history: list[ChatMessage] = []
        self.said: list[str] = []
        self.concierge = build_concierge(services.settings, services.search.vocabulary, services.embedder)

    async def say(self, text: str) -> Turn:
        agent = AssistantAgent(self.concierge, self.tools, "system")
        answer, new = await agent.run(self.history, text)
        self.history += [ChatMessage.user(text), *new]
        turn = Turn(text, answer, new, self.catalog)
        self.said.append(text)  # (an amount the shopper wrote may be said back later)
        assert not grounded(turn.answer, "\n".join(self.said), turn.responses, self.catalog), turn.answer
        return turn


@pytest.fixture
async def clothing(sample_twins):
    products = await sample_twins.catalog.list_products(limit=1000, after_id=0)
    async with open_in_process(sample_twins.mcp_server) as tools:
        yield lambda: Shopper(sample_twins, tools, Catalog(products))


@pytest.mark.parametrize("text", ["gumboots for the allotment", "warme Winterstiefel", "a weatherproof jacket"])
async def test_product_requests_are_searched_never_refused(clothing, text):
    turn = await clothing().say(text)
    assert [c.name for c in turn.calls] == [SEARCH]
    assert "I can only help" not in turn.answer


@pytest.mark.parametrize(
    ("text", "reply"),
    [
        ("hello", "What are you looking for today?"),
        ("can you write me a python script", "I can only help with shopping"),
    ],
)
async def test_small_talk_and_off_topic_get_a_short_reply_without_a_search(clothing, text, reply):
    turn = await clothing().say(text)
    assert turn.calls == []
    assert reply in turn.answer


async def test_cheaper_ones_are_cheaper_products_of_the_same_kind(clothing):
    shopper = clothing()
    first = await shopper.say("warm winter boots")
    assert first.listed and all("Boot" in n for n in first.listed)
    cheaper = await shopper.say("cheaper ones?")
    assert cheaper.search["query"] == first.search["query"]
    assert cheaper.listed, cheaper.answer
    assert all("Boot" in n for n in cheaper.listed)
    assert max(cheaper.price(n) for n in cheaper.listed) < max(first.price(n) for n in first.listed)


async def test_in_size_42_keeps_the_subject(clothing):
    shopper = clothing()
    first = await shopper.say("warm winter boots")
    sized = await shopper.say("in size 42?")
    assert sized.search["query"] == first.search["query"]
    assert sized.search["filters"]["sizes"] == ["42"]
    assert sized.listed and all("Boot" in n for n in sized.listed)
    assert all("42" in sized.product(n)["availableSizes"] or not sized.product(n)["inStock"] for n in sized.listed)
    coloured = await shopper.say("und in schwarz?")
    assert coloured.search["filters"] == {"sizes": ["42"], "colors": ["black"]}


async def test_the_second_one_and_compare_the_first_two(clothing):
    shopper = clothing()
    first = await shopper.say("chelsea boots")
    assert len(first.listed) >= 2
    second = await shopper.say("tell me more about the second one")
    assert [c.name for c in second.calls] == [DETAILS]
    assert second.answer.startswith(first.listed[1])
    both = await shopper.say("compare the first two")
    assert [c.name for c in both.calls] == [DETAILS, DETAILS]
    assert first.listed[0] in both.answer and first.listed[1] in both.answer


async def test_anything_else_shows_other_products_and_similar_keeps_the_filters(clothing):
    shopper = clothing()
    first = await shopper.say("sneakers under 120")
    others = await shopper.say("anything else?")
    assert others.search["query"] == first.search["query"]
    assert others.search["filters"]["maxPrice"] == 120
    assert not set(others.listed) & set(first.listed)


async def test_only_in_stock_refines_and_a_new_subject_starts_afresh(clothing):
    shopper = clothing()
    await shopper.say("rain jacket under 150")
    stocked = await shopper.say("only the ones u actually have in stock pls")
    assert stocked.search["filters"] == {"maxPrice": 150, "inStock": True}
    assert all(stocked.product(n)["inStock"] for n in stocked.listed)
    fresh = await shopper.say("and do you have scarves?")
    assert "scarves" in fresh.search["query"] and "filters" not in fresh.search


# -- store questions ------------------------------------------------------------------------


@pytest.fixture(scope="module")
async def demo_page_twins() -> TwinServices:
    """The sample store pages in the twins, indexed with the real local model (five pages: quick)."""
    services = twin_services(embedder=MiniLMEmbedder())
    summary = await import_pages(services.store_pages, read_store_pages(SAMPLE_STORE_PAGES))
    assert (summary.created, summary.rejected) == (5, [])
    await services.index_everything()
    return services


async def test_the_demo_pages_answer_store_questions_strongly_from_the_right_page(demo_page_twins):
    async with Client(demo_page_twins.mcp_server) as client:
        for question, page in ANSWERED:
            found = (await client.call_tool(STORE_INFO_TOOL, {"query": question})).structured_content
            top = found["passages"][0]
            assert (top["page"], top["grade"], found["noStrongMatch"]) == (page, "strong", False), question
        for question in UNANSWERED:
            found = (await client.call_tool(STORE_INFO_TOOL, {"query": question})).structured_content
            assert found["noStrongMatch"] is True, question


@pytest.mark.parametrize("text", ["anything under 30 euros?", "red boots under 50"])
async def test_an_empty_catalog_says_so_instead_of_suggesting_a_wider_price_range(text):
    services = twin_services()
    async with open_in_process(services.mcp_server) as tools:
        shopper = Shopper(services, tools, Catalog([]))
        turn = await shopper.say(text)
    assert turn.answer.startswith("There are no products in the"), turn.answer
    assert "price range" not in turn.answer
