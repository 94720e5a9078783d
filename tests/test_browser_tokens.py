"""The chat page and the widget, in real headless Chromium, recover from a token the API refuses
(it ended, or the shop changed its secret): a new one where the page can get one, the message
sent again once; otherwise words saying what to do, and the ended token no longer kept."""

from __future__ import annotations

import contextlib
from functools import partial

import anyio
import msgspec
import pytest
from starlette.applications import Starlette
from starlette.responses import HTMLResponse, JSONResponse
from starlette.routing import Route

from shopagent.actors.http import run_http
from shopagent.domain.tokens import issue_token
from shopagent.settings import HttpSettings
from shopagent.wiring.policies import listening
from tests import test_browser
from tests.helpers import free_port
from tests.test_browser import (
    CHROMIUM,
    QUERY,
    SECRET,
    ask,
    chat_page,
    embed,
    expect,
    expect_answer_with_cards,
    shop_front,
    shop_server,
    user,
)

pytestmark = [
    pytest.mark.process,
    pytest.mark.anyio,
    pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (apt-get install chromium; .ci/run does)"),
]
browser, page = test_browser.browser, test_browser.page  # its fixtures, for these tests too
FORGED = "another-secret-the-shop-no-longer-uses-32b"
LINK_ENDED = "This chat link has expired or is no longer valid. Please open a new one"


def kept_token(page, url: str):
    return page.evaluate("key => (JSON.parse(localStorage.getItem(key)) || {}).token || null", f"shopagent:{url}")


def chat_posts(page) -> list[str]:
    """The chat requests the page sends, each with the token it sent."""
    sent: list[str] = []
    page.on(
        "request",
        lambda r: (
            sent.append(r.headers.get("authorization", ""))
            if r.url.endswith("/api/assistant-agent/chat") and r.method == "POST"
            else None
        ),
    )
    return sent


@pytest.mark.parametrize(
    "refused",
    [
        pytest.param(lambda name: issue_token(SECRET, name, ttl_seconds=-10), id="expired-before-the-visit"),
        pytest.param(lambda name: issue_token(FORGED, name), id="refused-when-sent"),
    ],
)
async def test_a_refused_link_token_becomes_a_visitor_token_where_the_shop_allows_visitors(sample_shop, page, refused):
    async with shop_server(sample_shop, http={"anonymous_chat": True}) as url:
        sent = chat_posts(page)
        old = refused(user())
        await page.goto(chat_page(url, old))
        await ask(page, QUERY)
        await expect_answer_with_cards(page)
        await expect(page.get_by_role("alert")).to_have_count(0)
        assert sent[-1] != f"Bearer {old}"
        new = await kept_token(page, url)
        assert new not in (None, old) and f"Bearer {new}" == sent[-1]
        assert page.problems == [] or all("401" in problem for problem in page.problems)  # the refused send


async def test_a_message_sent_while_the_page_still_fetches_its_visitor_token_waits_for_that_token(sample_shop, page):
    """The page asks for a visitor token as it opens; a message typed before that answer arrives is sent with
    the same token, not a second one (two visitors: the kept one would not own the conversation)."""
    async with shop_server(sample_shop, http={"anonymous_chat": True}) as url:
        sent = chat_posts(page)
        asked: list[str] = []
        first_asked, typed = anyio.Event(), anyio.Event()

        async def hold_the_first(route):
            asked.append(route.request.method)
            if len(asked) == 1:
                first_asked.set()
                with anyio.fail_after(30):
                    await typed.wait()
            await route.continue_()

        await page.route("**/api/assistant-agent/visitor-token", hold_the_first)
        await page.goto(url)
        with anyio.fail_after(30):
            await first_asked.wait()
        await ask(page, QUERY)
        await expect(page.locator(".msg.user")).to_have_text(QUERY)  # its send has asked for its token by now
        typed.set()
        await expect_answer_with_cards(page)
        assert asked == ["POST"]
        assert f"Bearer {await kept_token(page, url)}" == sent[-1]
        await page.reload()  # the kept token owns the conversation: it comes back
        await expect(page.locator(".msg.user")).to_have_text(QUERY)
        assert page.problems == []


async def test_an_ended_link_token_without_visitors_says_to_open_a_new_link_and_is_forgotten(sample_shop, page):
    async with shop_server(sample_shop) as url:
        await page.goto(chat_page(url, issue_token(SECRET, user(), ttl_seconds=-10)))
        await expect(page.get_by_role("alert")).to_contain_text(LINK_ENDED)  # before anything is typed
        assert await kept_token(page, url) is None
        await page.reload()  # the ended token is not kept: a reload no longer repeats it
        await expect(page.get_by_role("alert")).to_contain_text("needs a chat token in its address")


async def test_a_link_token_that_ends_while_the_page_is_open_is_explained_and_forgotten(sample_shop, page):
    async with shop_server(sample_shop) as url:
        sent = chat_posts(page)
        await page.goto(chat_page(url, issue_token(FORGED, user())))  # the shop changed its secret since
        await ask(page, QUERY)
        await expect(page.get_by_role("alert")).to_contain_text(LINK_ENDED)
        await expect(page.get_by_label("Your message")).to_have_value("")  # the shopper's box, left as it was
        await expect(page.get_by_role("button", name="Send again")).to_have_count(0)  # it would fail the same way
        assert await kept_token(page, url) is None
        assert len(sent) == 1


@contextlib.asynccontextmanager
async def shop_with_token_url(services, api: str, tokens: list[str], port: int):
    """Another origin: a shop's page with the widget and its token URL, which hands out `tokens` in
    turn (the last one again once they run out); yields (its URL, the tokens it handed out)."""
    handed: list[str] = []

    async def home(request):
        return HTMLResponse(
            f'<!doctype html><html lang="en"><head><link rel="icon" href="data:,"><title>Shop</title></head><body>'
            f'<h1>Our shop</h1><script src="{api}/widget.js" data-token-url="/chat-token" data-title="Ask us" defer>'
            "</script></body></html>"
        )

    async def chat_token(request):
        handed.append(tokens[min(len(handed), len(tokens) - 1)])
        return JSONResponse({"token": handed[-1]})

    settings = msgspec.structs.replace(services.settings, http=HttpSettings(port=port))
    routes = [Route("/", home), Route("/chat-token", chat_token)]
    async with anyio.create_task_group() as tg:
        await tg.start(partial(run_http, listening(settings, "http"), lambda: Starlette(routes=routes)))
        yield f"http://127.0.0.1:{port}", handed
        tg.cancel_scope.cancel()


async def test_the_widget_asks_its_token_url_again_and_sends_once_more(sample_shop, page):
    name = user()
    front_port = free_port()
    fresh = issue_token(SECRET, name)
    async with (
        shop_server(sample_shop, http={"cors_origins": [f"http://127.0.0.1:{front_port}"]}) as url,
        shop_with_token_url(sample_shop, url, [issue_token(SECRET, name, ttl_seconds=-10), fresh], front_port) as (
            front,
            handed,
        ),
    ):
        sent = chat_posts(page)
        await page.goto(front)
        await page.get_by_role("button", name="Ask us").click()
        await ask(page, QUERY)
        await expect_answer_with_cards(page)
        await expect(page.get_by_role("alert")).to_have_count(0)
        assert len(handed) == 2 and sent[-1] == f"Bearer {fresh}"


async def test_the_widget_resends_only_once_when_its_token_url_keeps_giving_a_refused_token(sample_shop, page):
    front_port = free_port()
    async with (
        shop_server(sample_shop, http={"cors_origins": [f"http://127.0.0.1:{front_port}"]}) as url,
        shop_with_token_url(sample_shop, url, [issue_token(FORGED, user())], front_port) as (front, handed),
    ):
        sent = chat_posts(page)
        await page.goto(front)
        await page.get_by_role("button", name="Ask us").click()
        await ask(page, QUERY)
        await expect(page.get_by_role("alert")).to_contain_text("Your chat session is not valid")
        assert (len(handed), len(sent)) == (2, 2)


async def test_a_token_the_shop_rendered_into_its_page_that_ended_asks_for_a_reload(sample_shop, page):
    front_port = free_port()
    async with (
        shop_server(sample_shop, http={"cors_origins": [f"http://127.0.0.1:{front_port}"]}) as url,
        shop_front(sample_shop, embed(url, issue_token(SECRET, user(), ttl_seconds=-10)), port=front_port) as front,
    ):
        sent = chat_posts(page)
        await page.goto(front)
        await page.get_by_role("button", name="Ask Nordic Outfitters").click()
        await ask(page, QUERY)
        await expect(page.get_by_role("alert")).to_have_text(
            "Your session has expired — please reload the page to continue."  # the shop renders a new one
        )
        await expect(page.get_by_label("Your message")).to_have_value("")  # the shopper's box, left as it was
        await expect(page.get_by_role("button", name="Send again")).to_have_count(0)  # it would fail the same way
        assert len(sent) == 1
