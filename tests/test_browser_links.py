"""Cards link to the shop, in real headless Chromium against the real server and the offline
assistant: "View" opens the product's page (the catalog's, or built from the store's template),
"Add to basket" puts the one variation meant in the basket, and a price that varies by
variation reads "from"."""

from __future__ import annotations

import msgspec
import pytest

from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.bootstrap import INDEXER_ACTORS, open_services
from shopagent.domain.tokens import issue_token
from tests import test_browser
from tests.test_browser import CHROMIUM, SECRET, WAIT_MS, ask, chat_page, expect, shop_server, user
from tests.test_catalog_model import gas, gear_settings, indexed, lamp

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (apt-get install chromium; .ci/run does)"),
]
browser, page = test_browser.browser, test_browser.page  # its fixtures, for these tests too


async def test_cards_link_to_the_product_page_and_the_basket_and_say_from_for_varying_prices(database, page):
    one_left = gas()
    one_left.variations[1] = msgspec.structs.replace(one_left.variations[1], quantity=0)  # only 230 g can be bought
    one_left.variations[0].url = "https://shop.example/cart/gas-230"
    settings = gear_settings(database)
    async with open_services(settings, INDEXER_ACTORS | {"mcp"}, embedder=HashEmbedder()) as services:
        await indexed(services, lamp(), one_left)
        async with shop_server(services) as url:
            await page.goto(chat_page(url, issue_token(SECRET, user())))
            await ask(page, "a head lamp")
            card = page.locator(".card").first
            await expect(card.locator(".name")).to_have_text("Trail Headlamp", timeout=WAIT_MS)
            # The catalog's own link; the price of its cheapest variation that can be bought, "from".
            view = card.get_by_role("link", name="View Trail Headlamp")
            await expect(view).to_have_attribute("href", "https://shop.example/products/trail-headlamp")
            await expect(card.locator(".price")).to_have_text("from €34.00")
            await expect(card.get_by_role("link", name="Add Trail Headlamp to the basket")).to_have_count(0)
            await ask(page, "camping gas")
            await expect(page.locator(".card").last.locator(".name")).to_have_text(
                "Camping Gas Cartridge", timeout=WAIT_MS
            )
            await ask(page, "tell me about the first one")
            details = page.locator(".card").last
            await expect(details.get_by_role("link", name="View Camping Gas Cartridge")).to_have_attribute(
                "href", "https://shop.example/p/camping-gas", timeout=WAIT_MS
            )  # built from the store's template
            basket = details.get_by_role("link", name="Add Camping Gas Cartridge to the basket")
            await expect(basket).to_have_attribute("href", "https://shop.example/cart/gas-230")
    assert page.problems == []
