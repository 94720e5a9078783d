"""The chat page and the widget in a real headless Chromium (Debian's `chromium`, driven by
Playwright), against the real server: the sample catalog indexed with the local model, the
offline concierge (or the OpenAI-compatible adapter on its fake server, for a streamed
answer), the MCP tools in process, PostgreSQL.

Set WIDGET_SCREENSHOTS=DIR (or run scripts/screenshots) to keep PNGs of the page and the
widget at desktop and phone sizes for a reviewer.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import os
import re
import shutil
import uuid
from functools import partial
from pathlib import Path

import anyio
import httpx
import msgspec
import pytest
from starlette.applications import Starlette
from starlette.responses import HTMLResponse
from starlette.routing import Route

from shopagent.actors.http import run_http
from shopagent.bootstrap import build_public_app
from shopagent.domain.tokens import issue_token
from shopagent.settings import HttpSettings
from shopagent.wiring.policies import listening
from tests import fake_openai
from tests.helpers import free_port
from tests.test_chat_api import SEARCH

CHROMIUM = shutil.which("chromium")
pytestmark = [
    pytest.mark.process,
    pytest.mark.anyio,
    pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (apt-get install chromium; .ci/run does)"),
]
playwright_api = pytest.importorskip("playwright.async_api")
expect = playwright_api.expect

SECRET = "test-auth-secret-of-32-bytes-or-more"
QUERY = "warm winter boots under 200 euros"
WAIT_MS = 30_000  # an answer runs the real search on two shared cores
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
# The sample catalog's pictures live on images.example.com, which does not exist: the browser gets this one.
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mO8sOZ/PQAGiQKNmZsvZwAAAABJRU5ErkJggg=="
)


def user() -> str:
    return f"browser-{uuid.uuid4().hex[:10]}"  # rate limits live in the shared database: fresh users


@pytest.fixture(scope="module")
async def browser():
    async with playwright_api.async_playwright() as p:
        launched = await p.chromium.launch(executable_path=CHROMIUM)
        yield launched
        await launched.close()


@pytest.fixture
async def page(browser):
    context = await browser.new_context(viewport=DESKTOP)
    await context.route("https://images.example.com/**", lambda r: r.fulfill(body=PIXEL, content_type="image/png"))
    opened = await context.new_page()
    opened.problems = []
    opened.on("console", lambda m: opened.problems.append(m.text) if m.type == "error" else None)
    opened.on("pageerror", lambda e: opened.problems.append(str(e)))
    yield opened
    await context.close()


@contextlib.asynccontextmanager
async def shop_server(services, *, http: dict | None = None, chat: dict | None = None, store: dict | None = None):
    """The public app over the sample shop on a free port; its URL."""
    port = free_port()
    settings = msgspec.structs.replace(
        services.settings,
        http=HttpSettings(port=port, **(http or {})),
        chat=msgspec.structs.replace(services.settings.chat, **(chat or {})),
        store=msgspec.structs.replace(services.settings.store, **(store or {})),
    )
    services = dataclasses.replace(services, settings=settings)
    async with anyio.create_task_group() as tg:
        await tg.start(partial(run_http, listening(settings, "http"), partial(build_public_app, services)))
        yield f"http://127.0.0.1:{port}"
        tg.cancel_scope.cancel()


@contextlib.asynccontextmanager
async def shop_front(services, html: str, port: int | None = None):
    """Another origin (its own port): a shop's page with `html` in its body."""
    port = port or free_port()
    settings = msgspec.structs.replace(services.settings, http=HttpSettings(port=port))

    async def home(request):
        return HTMLResponse(f'<!doctype html><html lang="en"><head><link rel="icon" href="data:,"><title>Shop</title>'
                            f"</head><body><h1>Our shop</h1>{html}</body></html>")  # fmt: skip

    async with anyio.create_task_group() as tg:
        await tg.start(partial(run_http, listening(settings, "http"), lambda: Starlette(routes=[Route("/", home)])))
        yield f"http://127.0.0.1:{port}"
        tg.cancel_scope.cancel()


def chat_page(url: str, token: str) -> str:
    return f"{url}/#token={token}"


async def ask(page, text: str) -> None:
    # The page takes a message once the answer before it is done (its bubble shows while it streams).
    await expect(page.get_by_role("button", name="Send")).to_be_enabled(timeout=WAIT_MS)
    box = page.get_by_label("Your message")
    await box.fill(text)
    await box.press("Enter")


async def expect_answer_with_cards(page) -> None:
    await expect(page.locator(".msg.assistant").last).to_contain_text(re.compile(r"\w"), timeout=WAIT_MS)
    cards = page.locator(".card")
    await expect(cards.first).to_be_visible(timeout=WAIT_MS)
    first = cards.first
    await expect(first.locator(".name")).not_to_be_empty()
    await expect(first.locator(".price")).to_contain_text("€")
    await expect(first.locator(".stock")).to_have_text(re.compile(r"^(In stock|Out of stock)"))


async def test_the_chat_page_loads_without_console_errors_and_answers_with_product_cards(sample_shop, page):
    async with shop_server(sample_shop) as url:
        await page.goto(chat_page(url, issue_token(SECRET, user())))
        await expect(page.get_by_role("log")).to_contain_text("Tell me what you are looking for")
        assert "#token" not in page.url  # taken out of the address once kept
        await ask(page, QUERY)
        await expect(page.locator(".msg.user")).to_have_text(QUERY)
        await expect_answer_with_cards(page)
        assert page.problems == []


async def test_a_reload_shows_the_conversation_again(sample_shop, page):
    async with shop_server(sample_shop) as url:
        await page.goto(chat_page(url, issue_token(SECRET, user())))
        await ask(page, QUERY)
        await expect_answer_with_cards(page)
        answer = await page.locator(".msg.assistant").last.text_content()
        cards = await page.locator(".card").count()
        await page.reload()
        await expect(page.locator(".msg.user")).to_have_text(QUERY)
        await expect(page.locator(".msg.assistant")).to_have_text(answer)
        await expect(page.locator(".card")).to_have_count(cards)
        assert page.problems == []


async def test_a_rate_limited_message_is_explained_in_words(sample_shop, page):
    async with shop_server(sample_shop, chat={"rate_burst": 1, "rate_per_minute": 0.5}) as url:
        await page.goto(chat_page(url, issue_token(SECRET, user())))
        await ask(page, "hello")
        await expect(page.locator(".msg.assistant")).to_have_count(1, timeout=WAIT_MS)
        await ask(page, QUERY)
        await expect(page.get_by_role("alert")).to_contain_text("The assistant is busy right now", timeout=WAIT_MS)


async def test_a_forged_token_is_explained_in_words(sample_shop, page):
    async with shop_server(sample_shop) as url:
        await page.goto(chat_page(url, issue_token("not-the-shops-secret-but-long-enough", user())))
        await ask(page, QUERY)
        await expect(page.get_by_role("alert")).to_contain_text("This chat link has expired or is no longer valid")


async def test_the_anonymous_mode_gives_a_visitor_a_token_and_keeps_the_conversation(sample_shop, page):
    async with shop_server(sample_shop, http={"anonymous_chat": True}) as url:
        await page.goto(url)
        await ask(page, QUERY)
        await expect_answer_with_cards(page)
        await page.reload()
        await expect(page.locator(".msg.user")).to_have_text(QUERY)
        assert page.problems == []


async def test_without_a_token_or_the_anonymous_mode_the_page_says_what_it_needs(sample_shop, page):
    async with shop_server(sample_shop) as url:
        await page.goto(url)
        await expect(page.get_by_role("alert")).to_contain_text("needs a chat token in its address")


def embed(url: str, token: str) -> str:
    return (f'<script src="{url}/widget.js" data-token="{token}" data-title="Ask Nordic Outfitters" '
            'data-accent="#0b6e4f" defer></script>')  # fmt: skip


async def test_the_widget_on_another_origin_works_when_the_origin_is_allowed(sample_shop, page):
    front_port = free_port()
    # The shop's page is on another port of this host: another origin, allowed by the CORS setting.
    async with contextlib.AsyncExitStack() as stack:
        url = await stack.enter_async_context(
            shop_server(sample_shop, http={"cors_origins": [f"http://127.0.0.1:{front_port}"]})
        )
        front = await stack.enter_async_context(
            shop_front(sample_shop, embed(url, issue_token(SECRET, user())), port=front_port)
        )
        await page.goto(front)
        launcher = page.get_by_role("button", name="Ask Nordic Outfitters")
        await expect(launcher).to_have_attribute("aria-expanded", "false")
        await launcher.click()
        await expect(launcher).to_have_attribute("aria-expanded", "true")
        await expect(page.get_by_role("dialog", name="Ask Nordic Outfitters")).to_be_visible()
        await expect(page.get_by_label("Your message")).to_be_focused()
        await ask(page, QUERY)
        await expect_answer_with_cards(page)
        await page.keyboard.press("Escape")
        await expect(page.get_by_role("dialog")).to_be_hidden()
        await expect(launcher).to_be_focused()
        assert page.problems == []


async def test_the_widget_on_another_origin_is_refused_when_the_origin_is_not_allowed(sample_shop, page):
    async with (
        shop_server(sample_shop) as url,
        shop_front(sample_shop, embed(url, issue_token(SECRET, user()))) as front,
    ):
        await page.goto(front)
        await page.get_by_role("button", name="Ask Nordic Outfitters").click()
        await ask(page, QUERY)
        await expect(page.get_by_role("alert")).to_contain_text("The assistant cannot be reached right now")
        assert any("CORS" in problem for problem in page.problems)  # the browser refused, not the server


# -- a streamed answer ------------------------------------------------------------------------

PIECES = ["The Kiruna boot ", "is warm, ", "and on sale."]
BOOT_SEARCH = {"query": "padded apres-ski snow boot", "limit": 2, "filters": {"sizes": ["40"], "colors": ["black"]}}


def held_after_first_piece(*pieces: str) -> fake_openai.Streamed:
    answer = fake_openai.streamed(*pieces)
    answer.hold_after = 2  # chunks: the role, the first piece, then the rest
    return answer


def openai_chat(fake: fake_openai.FakeOpenAI) -> dict:
    """Chat settings for the OpenAI-compatible provider on the fake server."""
    return {"provider": "openai", "openai_base_url": fake.base_url, "openai_model": "fake-model"}


async def test_a_streamed_answer_is_shown_as_it_comes_then_with_its_product_cards(sample_shop, page):
    name = user()
    async with (
        fake_openai.running_fake_openai() as fake,
        shop_server(sample_shop, chat=openai_chat(fake)) as url,
    ):
        answer = held_after_first_piece(*PIECES)
        fake.script = [fake_openai.streamed(tool_calls=[fake_openai.tool_call("call-1", SEARCH, BOOT_SEARCH)]), answer]
        await page.goto(chat_page(url, issue_token(SECRET, name)))
        await ask(page, QUERY)
        with anyio.fail_after(WAIT_MS / 1000):
            await answer.held.wait()  # the real search has run; the answer's first piece is out
        reply = page.locator(".msg.assistant")
        await expect(reply).to_have_text(PIECES[0])
        await expect(reply).to_have_attribute("aria-busy", "true")
        answer.resume.set()
        await expect(reply).to_have_text("".join(PIECES))
        await expect(reply).not_to_have_attribute("aria-busy", "true")

        cards = page.locator(".card")  # the search found two; the answer presents only the Kiruna boot
        await expect(cards).to_have_count(1)
        kiruna = cards.filter(has_text="Kiruna Padded Apres-Ski Boot")
        await expect(kiruna.locator(".price s")).to_have_text("€129.00")
        await expect(kiruna.locator(".price")).to_have_text("Was €129.00, now €109.00")
        await expect(kiruna.locator(".stock")).to_have_text("In stock in 40, black")
        for card in await cards.all():
            await expect(card.get_by_role("img", name=await card.locator(".name").text_content())).to_be_visible()
        assert page.problems == []
        kept = await page.evaluate("key => JSON.parse(localStorage.getItem(key)).conversationId", f"shopagent:{url}")

        headers = {"Authorization": f"Bearer {issue_token(SECRET, name)}"}
        async with httpx.AsyncClient(base_url=url, headers=headers, timeout=10) as api:
            (listed,) = (await api.get("/api/conversations")).json()["conversations"]
            detail = (await api.get(f"/api/conversations/{listed['id']}")).json()
    assert listed["id"] == kept  # the one conversation, the one the page keeps
    assert [(m["role"], m["text"]) for m in detail["messages"]] == [
        ("user", QUERY), ("model", ""), ("user", ""), ("model", "".join(PIECES)),
    ]  # fmt: skip
    assert [r.body.get("stream") for r in fake.requests] == [True, True]


async def test_an_answer_from_a_store_page_cites_its_title_as_a_link(sample_shop, page):
    from shopagent.domain.store_pages import StorePageInput

    text = "## Austria\n\nWe ship to Austria in 3-5 working days for 9.90 EUR; free from 100 EUR."
    await sample_shop.store_pages.create(
        StorePageInput(
            slug="shipping-test", title="Shipping and delivery", text=text, url="https://shop.example/shipping"
        )
    )
    try:
        while events := await sample_shop.outbox.claim(64, 60, 5, "test"):
            await sample_shop.index_product.index(events)
        async with shop_server(sample_shop) as url:
            await page.goto(chat_page(url, issue_token(SECRET, user())))
            await ask(page, "do you ship to Austria?")
            reply = page.locator(".msg.assistant").last
            await expect(reply).to_contain_text("We ship to Austria in 3-5 working days", timeout=WAIT_MS)
            link = reply.locator(".sources a")
            await expect(link).to_have_text("Shipping and delivery")
            await expect(link).to_have_attribute("href", "https://shop.example/shipping")
            await expect(page.locator(".card")).to_have_count(0)  # a store answer shows no product cards
            assert page.problems == []
    finally:
        await sample_shop.store_pages.delete("shipping-test")
        while events := await sample_shop.outbox.claim(64, 60, 5, "test"):
            await sample_shop.index_product.index(events)


# -- screenshots -----------------------------------------------------------------------------


async def test_the_page_fills_a_phone_screen_and_the_widget_floats_on_a_desktop(sample_shop, page):
    """Also writes the screenshots when WIDGET_SCREENSHOTS names a folder."""
    folder = Path(os.environ["WIDGET_SCREENSHOTS"]) if os.environ.get("WIDGET_SCREENSHOTS") else None
    if folder:
        folder.mkdir(parents=True, exist_ok=True)

    async def shot(name: str) -> None:
        if folder:
            await page.screenshot(path=folder / f"{name}.png")

    front_port = free_port()
    async with contextlib.AsyncExitStack() as stack:
        url = await stack.enter_async_context(
            shop_server(sample_shop, http={"cors_origins": [f"http://127.0.0.1:{front_port}"]})
        )
        token = issue_token(SECRET, user())
        await page.goto(chat_page(url, token))
        await shot("page-desktop-empty")
        await ask(page, QUERY)
        await expect_answer_with_cards(page)
        await shot("page-desktop-answer")
        await page.set_viewport_size(PHONE)
        panel = await page.locator(".panel").bounding_box()
        assert panel is not None and panel["width"] == PHONE["width"]
        await shot("page-phone-answer")

        front = await stack.enter_async_context(shop_front(sample_shop, embed(url, token), port=front_port))
        await page.set_viewport_size(DESKTOP)
        await page.goto(front)
        await shot("widget-desktop-closed")
        await page.get_by_role("button", name="Ask Nordic Outfitters").click()
        await ask(page, "a rain jacket in size M")
        await expect(page.locator(".msg.assistant")).to_have_count(
            1, timeout=WAIT_MS
        )  # its own origin, its own storage
        await expect(page.locator(".card").first).to_be_visible()
        panel = await page.get_by_role("dialog").bounding_box()
        assert panel is not None and panel["width"] < DESKTOP["width"] / 2  # floats beside the shop's page
        await shot("widget-desktop-open")
        await page.set_viewport_size(PHONE)
        panel = await page.get_by_role("dialog").bounding_box()
        assert panel is not None and (panel["x"], panel["width"]) == (0, PHONE["width"])
        await shot("widget-phone-open")
        assert page.problems == []
        await page.get_by_label("Your message").fill(QUERY)
        await page.route(
            f"{url}/api/assistant-agent/chat",
            lambda r: r.fulfill(
                status=503, json={"error": {"code": "database_unavailable", "message": "the database is unavailable"}}
            ),
        )
        await page.get_by_label("Your message").press("Enter")
        await expect(page.get_by_role("alert")).to_contain_text("busy right now")
        await shot("widget-phone-error")
