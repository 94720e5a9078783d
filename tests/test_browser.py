"""The chat page and the widget in a real headless Chromium (Debian's `chromium`, driven by
Playwright), against the real server: the sample catalog indexed with the local model, the
offline concierge, PostgreSQL.

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
import msgspec
import pytest
from starlette.applications import Starlette
from starlette.responses import HTMLResponse
from starlette.routing import Route

from shopagent.actors.http import run_http
from shopagent.bootstrap import build_public_app
from shopagent.domain.tokens import issue_token
from shopagent.settings import HttpSettings
from tests.helpers import free_port

CHROMIUM = shutil.which("chromium")
pytestmark = [
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
async def shop_server(services, *, http: dict | None = None, chat: dict | None = None):
    """The public app over the sample shop on a free port; its URL."""
    port = free_port()
    settings = msgspec.structs.replace(
        services.settings,
        http=HttpSettings(port=port, **(http or {})),
        chat=msgspec.structs.replace(services.settings.chat, **(chat or {})),
    )
    services = dataclasses.replace(services, settings=settings)
    async with anyio.create_task_group() as tg:
        await tg.start(partial(run_http, settings, partial(build_public_app, services)))
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
        await tg.start(partial(run_http, settings, lambda: Starlette(routes=[Route("/", home)])))
        yield f"http://127.0.0.1:{port}"
        tg.cancel_scope.cancel()


def chat_page(url: str, token: str) -> str:
    return f"{url}/#token={token}"


async def ask(page, text: str) -> None:
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


async def test_an_expired_token_is_explained_in_words(sample_shop, page):
    async with shop_server(sample_shop) as url:
        await page.goto(chat_page(url, issue_token(SECRET, user(), ttl_seconds=-10)))  # expired ten seconds ago
        await ask(page, QUERY)
        await expect(page.get_by_role("alert")).to_have_text(
            "Your session has expired — please reload the page to continue."
        )
        await expect(page.get_by_label("Your message")).to_have_value(QUERY)  # kept, to send again


async def test_a_rate_limited_message_is_explained_in_words(sample_shop, page):
    async with shop_server(sample_shop, chat={"rate_burst": 1, "rate_per_minute": 0.5}) as url:
        await page.goto(chat_page(url, issue_token(SECRET, user())))
        await ask(page, "hello")
        await expect(page.locator(".msg.assistant")).to_have_count(1, timeout=WAIT_MS)
        await ask(page, QUERY)
        await expect(page.get_by_role("alert")).to_contain_text("The assistant is busy right now")


async def test_a_forged_token_is_explained_in_words(sample_shop, page):
    async with shop_server(sample_shop) as url:
        await page.goto(chat_page(url, issue_token("not-the-shops-secret-but-long-enough", user())))
        await ask(page, QUERY)
        await expect(page.get_by_role("alert")).to_contain_text("Your chat session is not valid")


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
        await expect(page.get_by_role("alert")).to_contain_text("The assistant cannot be reached from this page")
        assert any("CORS" in problem for problem in page.problems)  # the browser refused, not the server


# -- the streaming protocol -------------------------------------------------------------------
# The server's stream gains `delta` events and product cards on `tool` events; the widget reads
# them as specified. Until the server sends them this stand-in API does, from a script.

BOOTS = [
    {"id": 1, "slug": "kiruna-boot", "name": "Kiruna Padded Apres-Ski Boot", "price": "129.00",
     "discountPrice": "109.00", "currency": "EUR", "mainImage": "https://images.example.com/products/kiruna/main.jpg",
     "availableColors": ["black"], "availableSizes": ["42"], "inStock": True},
    {"id": 2, "slug": "lapland-boot", "name": "Lapland Faux-Fur Cuff Snow Boot", "price": "119.00",
     "discountPrice": None, "currency": "EUR", "mainImage": None, "availableColors": [], "availableSizes": [],
     "inStock": False},
]  # fmt: skip


@contextlib.asynccontextmanager
async def scripted_api(services, first_delta_seen: anyio.Event):
    """/widget.js and a chat endpoint streaming a scripted turn: step, tool with cards, two
    deltas (the second once the browser has shown the first), answer, done."""
    from starlette.responses import StreamingResponse

    from shopagent.entrypoints.http.web import web_routes

    def event(kind: str, data: dict) -> bytes:
        return f"event: {kind}\ndata: {msgspec.json.encode(data).decode()}\n\n".encode()

    async def chat(request):
        async def events():
            yield event("step", {"step": 1, "calls": ["product-semantic-search"]})
            arguments = {"query": "winter boots", "filters": {"sizes": ["42"], "colors": ["black"]}}
            yield event("tool", {"name": "product-semantic-search", "arguments": arguments, "ms": 12,
                                 "isError": False, "products": BOOTS})  # fmt: skip
            yield event("delta", {"text": "Two warm boots"})
            with anyio.fail_after(WAIT_MS / 1000):
                await first_delta_seen.wait()
            yield event("delta", {"text": " for you"})
            yield event("answer", {"text": "Two warm boots for you."})
            yield event("done", {"conversationId": str(uuid.uuid4())})

        return StreamingResponse(events(), media_type="text/event-stream")

    port = free_port()
    settings = msgspec.structs.replace(services.settings, http=HttpSettings(port=port))
    app = Starlette(routes=[*web_routes("Scripted"), Route("/api/assistant-agent/chat", chat, methods=["POST"])])
    async with anyio.create_task_group() as tg:
        await tg.start(partial(run_http, settings, lambda: app))
        yield f"http://127.0.0.1:{port}"
        tg.cancel_scope.cancel()


async def test_streamed_text_is_shown_as_it_comes_and_cards_from_the_stream_show_discount_and_stock(sample_shop, page):
    first_delta_seen = anyio.Event()
    async with scripted_api(sample_shop, first_delta_seen) as url:
        await page.goto(chat_page(url, "v2.scripted.token"))
        await ask(page, QUERY)
        reply = page.locator(".msg.assistant")
        await expect(reply).to_have_text("Two warm boots")
        first_delta_seen.set()
        await expect(reply).to_have_text("Two warm boots for you.")  # the answer replaces the streamed text
        kiruna, lapland = page.locator(".card").nth(0), page.locator(".card").nth(1)
        await expect(kiruna.get_by_role("img", name="Kiruna Padded Apres-Ski Boot")).to_be_visible()
        await expect(kiruna.locator(".price s")).to_have_text("€129.00")
        await expect(kiruna.locator(".price")).to_have_text("Was €129.00, now €109.00")
        await expect(kiruna.locator(".stock")).to_have_text("In stock in 42, black")
        await expect(lapland.locator(".price")).to_have_text("€119.00")
        await expect(lapland.locator(".stock")).to_have_text("Out of stock in 42, black")
        assert page.problems == []


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
