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


@pytest.mark.parametrize("text", ["looking for a good knife, around 100 euros", "a santoku knife for about 90 euro"])
async def test_around_a_price_sets_no_floor_when_nothing_fits_near_it(kitchen_shop, text):
    """ "Around 100" is a budget: when no knife costs 80-120, the knives below it are what the
    shopper wants, not the pressure cooker that happens to cost 109."""
    async with chat_with(kitchen_shop) as shopper:
        customer = shopper()
        turn = await customer.say(text)
        assert turn.listed, turn.answer
        first = customer.catalog.by_name[turn.listed[0]]
        assert first.category == "Knives", turn.answer
        assert turn.price(turn.listed[0]) <= 120, turn.answer
