"""The widget's details, in real headless Chromium against the real server (the sample shop, the
offline assistant): prices as the store writes them, the same in the answer and on its cards; a
failed message sent again from its error, never glued to what the shopper types next; plain
words when the server cannot be reached; the question kept in view above its answer; a
placeholder that fits a phone's text box."""

from __future__ import annotations

import re

import httpx
import pytest

from shopagent.domain.tokens import issue_token
from tests import test_browser
from tests.test_browser import (
    CHROMIUM,
    PHONE,
    QUERY,
    SECRET,
    WAIT_MS,
    ask,
    chat_page,
    expect,
    expect_answer_with_cards,
    shop_server,
    user,
)

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (apt-get install chromium; .ci/run does)"),
]
browser, page = test_browser.browser, test_browser.page  # its fixtures, for these tests too

GERMAN_PRICE = re.compile(r"^\d{1,3}(\.\d{3})*,\d\d\u00a0€$")  # 189,00 €
ENGLISH_PRICE = re.compile(r"^€\d{1,3}(,\d{3})*\.\d\d$")  # €189.00


async def stored_answer(url: str, token: str) -> str:
    """The text of the latest answer of the token's user, as the chat API stored it."""
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=30) as client:
        (latest, *_) = (await client.get("/api/conversations", params={"limit": 1})).json()["conversations"]
        messages = (await client.get(f"/api/conversations/{latest['id']}")).json()["messages"]
    return [m["text"] for m in messages if m["role"] != "user" and m["text"]][-1]


async def card_prices(page) -> list[str]:
    """Each card's price as shown: the discounted one where there is one."""
    prices = []
    for card in await page.locator(".card").all():
        now = card.locator(".price .now")
        prices.append(await (now if await now.count() else card.locator(".price")).text_content())
    return prices


@pytest.mark.parametrize(
    ("store", "written"),
    [({"language": "de", "country": "DE"}, GERMAN_PRICE), ({"language": "en", "country": "DE"}, ENGLISH_PRICE)],
    ids=["german-shop", "english-shop"],
)
async def test_card_prices_are_written_as_the_answer_writes_them_in_the_stores_locale(
    sample_shop, page, store, written
):
    async with shop_server(sample_shop, store=store) as url:
        token = issue_token(SECRET, user())
        await page.goto(chat_page(url, token))
        await ask(page, QUERY)
        await expect_answer_with_cards(page)
        text = await stored_answer(url, token)  # the whole answer, as clients without cards get it
        prices = await card_prices(page)
        assert prices and all(written.match(price) for price in prices), prices
        assert all(price in text for price in prices), (prices, text)  # the same words in the text and on the cards
        assert " EUR" not in text
        # On the page the numbered lines the cards repeat are left out: a sentence around the cards.
        shown = await page.locator(".msg.assistant").last.text_content()
        assert not any(price in shown for price in prices) and not re.search(r"^\s*1\. ", shown, re.M), shown

        await page.reload()  # the stored conversation: the server's cards again, the same prices
        await expect(page.locator(".card")).to_have_count(len(prices))
        assert await card_prices(page) == prices
        assert page.problems == []


async def test_a_failed_message_is_sent_again_from_its_error_and_new_typing_starts_afresh(sample_shop, page):
    async with shop_server(sample_shop) as url:
        refused = []

        async def busy_once(route):
            if refused:
                await route.continue_()
            else:
                refused.append(route.request.url)
                await route.fulfill(
                    status=503, json={"error": {"code": "database_unavailable", "message": "unavailable"}}
                )

        await page.route(f"{url}/api/assistant-agent/chat", busy_once)
        await page.goto(chat_page(url, issue_token(SECRET, user())))
        await ask(page, QUERY)
        alert = page.get_by_role("alert")
        await expect(alert).to_contain_text("busy right now")
        box = page.get_by_label("Your message")
        await expect(box).to_be_focused()
        await expect(box).to_have_value("")  # the box is the shopper's: nothing put back into it
        await box.press_sequentially("cheaper ones?")
        await expect(box).to_have_value("cheaper ones?")
        await box.fill("")

        await alert.get_by_role("button", name="Send again").click()
        await expect_answer_with_cards(page)
        await expect(page.locator(".msg.user")).to_have_text([QUERY])  # sent once more, shown once
        await expect(alert).to_have_count(0)
        assert len(refused) == 1


async def test_a_server_that_cannot_be_reached_is_explained_to_shoppers_and_to_the_sites_developers(sample_shop, page):
    async with shop_server(sample_shop) as url:
        warnings: list[str] = []
        page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
        await page.goto(chat_page(url, issue_token(SECRET, user())))
        await expect(page.get_by_role("log")).to_contain_text("Tell me what you are looking for")
        await page.route(f"{url}/api/assistant-agent/chat", lambda route: route.abort("connectionrefused"))
        await ask(page, QUERY)
        alert = page.get_by_role("alert")
        await expect(alert).to_contain_text(
            "The assistant cannot be reached right now. Please check your connection and try again."
        )
        assert "allowed" not in await alert.text_content()  # nothing a shopper cannot act on
        await expect(alert.get_by_role("button", name="Send again")).to_be_visible()
        assert any("http.cors_origins" in w for w in warnings), warnings


@pytest.mark.parametrize("size", [PHONE, {"width": 1280, "height": 640}], ids=["phone", "desktop"])
async def test_after_an_answer_the_shoppers_question_stays_in_view_above_it(sample_shop, page, size):
    await page.set_viewport_size(size)
    async with shop_server(sample_shop) as url:
        await page.goto(chat_page(url, issue_token(SECRET, user())))
        await ask(page, "hello")
        await expect(page.locator(".msg.assistant")).to_have_count(1, timeout=WAIT_MS)
        await ask(page, QUERY)
        await expect(page.locator(".msg.assistant")).to_have_count(2, timeout=WAIT_MS)
        await expect_answer_with_cards(page)
        log = page.get_by_role("log")
        assert await log.evaluate("node => node.scrollHeight > node.clientHeight")  # there is something to scroll
        view = await log.bounding_box()
        question = await page.locator(".msg.user").last.bounding_box()
        reply = await page.locator(".msg.assistant").last.bounding_box()
        assert view and question and reply
        assert view["y"] <= question["y"], (view, question)  # not under the header
        assert question["y"] + question["height"] <= reply["y"] < view["y"] + view["height"]


PLACEHOLDER_ROOM = """box => {
    const style = getComputedStyle(box);
    const context = document.createElement("canvas").getContext("2d");
    context.font = style.font;
    const room = box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    return [context.measureText(box.placeholder).width, room];
}"""


@pytest.mark.parametrize("width", [390, 360, 320])
async def test_the_placeholder_fits_the_text_box_on_a_phone(sample_shop, page, width):
    await page.set_viewport_size({"width": width, "height": 740})
    async with shop_server(sample_shop) as url:
        await page.goto(chat_page(url, issue_token(SECRET, user())))
        box = page.get_by_label("Your message")
        await expect(box).to_have_attribute("placeholder", re.compile(r"\w"))
        needed, room = await box.evaluate(PLACEHOLDER_ROOM)
        assert needed <= room, f"the placeholder needs {needed:.0f}px of the box's {room:.0f}px"
