"""A follow-up that refines the list shown ("anything cheaper?") keeps to the kind of thing shown."""

from __future__ import annotations

import pytest

from tests.test_concierge_chat import chat_with

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("request_text", "follow_up"),
    [("need a cat litter that clumps", "anything cheaper thats still clumping?"),
     ("a clumping cat litter", "cheaper ones?")],
)  # fmt: skip
async def test_cheaper_ones_are_of_the_categories_shown_not_whatever_costs_less(pets_shop, request_text, follow_up):
    async with chat_with(pets_shop) as shopper:
        customer = shopper()
        first = await customer.say(request_text)
        assert first.listed, first.answer
        kinds = {customer.catalog.by_name[n].category for n in first.listed}
        cheaper = await customer.say(follow_up)
        offered = {customer.catalog.by_name[n].category for n in cheaper.listed}
        assert offered <= kinds, (kinds, cheaper.answer)
