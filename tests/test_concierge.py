"""The offline concierge over the sample catalog: our phrasings -> the right filters and a
grounded answer (every price in it comes from the tool result)."""

from __future__ import annotations

import json
import re

import pytest

from shopagent.adapters.local.concierge import OfflineConcierge
from shopagent.adapters.mcp.gateway import open_in_process
from shopagent.application.agent import AssistantAgent
from shopagent.bootstrap import catalog_rules
from shopagent.domain.chat import FunctionResponse
from shopagent.settings import Settings

pytestmark = pytest.mark.anyio

CONCIERGE = OfflineConcierge(catalog_rules(Settings()), "Test Shop")

PHRASINGS = [
    ("I'm looking for waterproof boots in size 42 under 150", "boots", {"sizes": ["42"], "maxPrice": 150.0}),
    ("red sneakers size 39 in stock", "sneakers", {"colors": ["red"], "sizes": ["39"], "inStock": True}),
    ("a warm coat between 100 and 250 euros", "coat", {"minPrice": 100.0, "maxPrice": 250.0}),
    ("show me black leather belts", "leather belts", {"colors": ["black"]}),
    ("do you have navy chinos in size M?", "chinos", {"colors": ["navy"], "sizes": ["M"]}),
    ("summer dresses under €80", "summer dresses", {"maxPrice": 80.0}),
    ("hiking boots at least 120", "hiking boots", {"minPrice": 120.0}),
    ("something for a beach holiday", "beach holiday", {}),
    ("grey hoodie in XL", "hoodie", {"colors": ["grey"], "sizes": ["XL"]}),
    ("gray sweater size L or XL", "sweater", {"colors": ["grey"], "sizes": ["L", "XL"]}),
    ("dark blue jeans", "jeans", {"colors": ["navy"]}),
    ("cheap sandals under 40 available now", "sandals", {"maxPrice": 40.0, "inStock": True}),
    ("running shoes EU 44", "running shoes", {"sizes": ["44"]}),
    ("white shirt for the office size S", "shirt for the office", {"colors": ["white"], "sizes": ["S"]}),
    ("a scarf from 20 to 60", "scarf", {"minPrice": 20.0, "maxPrice": 60.0}),
    ("waterproof jacket in stock", "waterproof jacket", {"inStock": True}),
    ("boots max 200", "boots", {"maxPrice": 200.0}),
    ("wool beanie, budget of 30", "wool beanie", {"maxPrice": 30.0}),
    ("loafers over 90 eur", "loafers", {"minPrice": 90.0}),
    ("pink or purple skirts", "skirts", {"colors": ["pink", "purple"]}),
    ("a gift for someone who is always cold", "gift for someone who is always cold", {}),
    ("Trainers in sizes 40, 41 and 42 below 100", "Trainers", {"sizes": ["40", "41", "42"], "maxPrice": 100.0}),
]


@pytest.mark.parametrize(("text", "intent", "filters"), PHRASINGS)
def test_phrasings_become_the_right_search(text, intent, filters):
    args = CONCIERGE.parse(text)
    assert args is not None
    assert intent in args["query"]
    assert args.get("filters", {}) == filters


@pytest.mark.parametrize("text", ["what's the weather tomorrow?", "tell me a joke", "who won the match"])
def test_off_topic_requests_are_not_searched(text):
    assert CONCIERGE.parse(text) is None


def prices_in(text: str) -> set[str]:
    return set(re.findall(r"\b\d+\.\d{2}\b", text))


async def ask(sample_shop, text: str, history=()):
    async with open_in_process(sample_shop.mcp_server) as tools:
        agent = AssistantAgent(CONCIERGE, tools, "system", max_steps=4)
        return await agent.run(list(history), text)


@pytest.mark.parametrize(("text", "intent", "filters"), PHRASINGS[:12])
async def test_answers_quote_only_what_the_tools_returned(sample_shop, text, intent, filters):
    answer, new = await ask(sample_shop, text)
    tool_results = [p.result for m in new for p in m.parts if isinstance(p, FunctionResponse)]
    assert len(tool_results) == 1
    returned = json.dumps(tool_results[0])
    assert prices_in(answer) <= prices_in(returned)
    products = tool_results[0]["structuredContent"]["products"]
    if products:
        assert products[0]["name"] in answer
        assert prices_in(answer)
    else:
        assert answer.startswith("I couldn't find")


async def test_nothing_found_says_which_filter_to_relax(sample_shop):
    answer, _ = await ask(sample_shop, "purple boots size 36 under 10 in stock")
    assert answer.startswith("I couldn't find")
    assert "another colour" in answer and "a wider price range" in answer


async def test_tell_me_more_about_the_second_one_fetches_its_details(sample_shop):
    _, first_turn = await ask(sample_shop, "winter boots")
    history = [first_turn[0].__class__.user("winter boots"), *first_turn]
    second = first_turn[1].parts[0].result["structuredContent"]["products"][1]
    answer, new = await ask(sample_shop, "tell me more about the second one", history)
    call = new[0].function_calls[0]
    assert (call.name, call.args) == ("get-product-full-details", {"productId": second["productId"]})
    assert answer.startswith(second["name"])
    assert second["effectivePrice"] in answer


async def test_a_product_can_be_named_instead_of_numbered(sample_shop):
    _, first_turn = await ask(sample_shop, "winter boots")
    history = [first_turn[0].__class__.user("winter boots"), *first_turn]
    third = first_turn[1].parts[0].result["structuredContent"]["products"][2]
    answer, _ = await ask(sample_shop, f"tell me more about the {third['name'].split()[0]}", history)
    assert answer.startswith(third["name"])


async def test_greetings_and_off_topic_get_a_reply_without_tools(sample_shop):
    hello, new = await ask(sample_shop, "Hello!")
    assert "What are you looking for" in hello
    assert len(new) == 1
    redirect, new = await ask(sample_shop, "what's the weather tomorrow?")
    assert "I can only help with finding products at Test Shop" in redirect
    assert len(new) == 1
