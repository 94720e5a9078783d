"""The demo's product pictures, served by shopagent itself, in real headless Chromium: the sample
catalog as `shopagent demo` imports it shows a picture on every card without a console error,
and a picture that cannot be loaded gives way to a plain tile."""

from __future__ import annotations

import contextlib
import re
from functools import partial

import anyio
import httpx
import msgspec
import pytest

from shopagent.actors.http import run_http
from shopagent.application.catalog import import_products
from shopagent.bootstrap import build_public_app
from shopagent.commands import sample_catalog
from shopagent.domain.catalog import ProductInput
from shopagent.domain.tokens import issue_token
from shopagent.settings import HttpSettings
from shopagent.wiring.policies import listening
from tests import test_browser
from tests.helpers import free_port
from tests.test_browser import CHROMIUM, QUERY, SECRET, WAIT_MS, ask, chat_page, expect, shop_server, user

pytestmark = [
    pytest.mark.process,
    pytest.mark.anyio,
    pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (apt-get install chromium; .ci/run does)"),
]
browser, page = test_browser.browser, test_browser.page  # its fixtures, for these tests too


@contextlib.asynccontextmanager
async def demo_shop(services):
    """The public app on a free port over the sample catalog as the demo imports it (indexed); its URL."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    summary = await import_products(services.catalog, sample_catalog(url))
    assert summary.rejected == []
    while events := await services.outbox.claim(64, 60, 5, "pictures"):
        await services.index_product.index(events)
    settings = msgspec.structs.replace(services.settings, http=HttpSettings(port=port))
    async with anyio.create_task_group() as tg:
        await tg.start(partial(run_http, listening(settings, "http"), partial(build_public_app, services)))
        yield url
        tg.cancel_scope.cancel()


async def test_every_sample_product_is_pictured_by_an_svg_this_server_answers(services):
    async with demo_shop(services) as url, httpx.AsyncClient(timeout=10) as client:
        products = [item for _, item in sample_catalog(url) if isinstance(item, ProductInput)]
        boot = next(p for p in products if p.slug == "nordkap-lined-leather-winter-boot")
        assert boot.main_image == f"{url}/sample-pictures/boots-{boot.variations[0].color}.svg"
        pictures = {p.main_image for p in products}
        assert len({p.category for p in products}) == 11 and len(pictures) > 11  # each category, in colours
        for picture in pictures:
            assert picture is not None and picture.startswith(f"{url}/sample-pictures/")
            response = await client.get(picture)
            assert response.status_code == 200, picture
            assert response.headers["content-type"] == "image/svg+xml"
            assert response.headers["cross-origin-resource-policy"] == "cross-origin"  # cards on a shop's page
            assert response.content.startswith(b"<svg") and len(response.content) < 2000
        assert (await client.get(f"{url}/sample-pictures/product.svg")).status_code == 200  # a shop's own category
        assert (await client.get(f"{url}/sample-pictures/nothing.svg")).status_code == 404


async def test_the_demo_shows_a_picture_on_every_card_without_console_errors(services, page):
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url) if r.resource_type == "image" else None)
    async with demo_shop(services) as url:
        await page.goto(chat_page(url, issue_token(SECRET, user())))
        await ask(page, QUERY)
        cards = page.locator(".card")
        await expect(cards.first).to_be_visible(timeout=WAIT_MS)
        for card in await cards.all():
            picture = card.locator("img")
            await expect(picture).to_have_js_property("complete", True)
            assert await picture.evaluate("img => img.naturalWidth") == 400
        assert requested and all(re.match(rf"{url}/sample-pictures/[a-z-]+\.svg$", r) for r in requested), requested
        assert page.problems == []


async def test_a_picture_that_cannot_be_loaded_gives_way_to_a_plain_tile(sample_shop, page):
    await page.route("https://images.example.com/**", lambda r: r.fulfill(status=404))  # before the fixture's
    async with shop_server(sample_shop) as url:
        await page.goto(chat_page(url, issue_token(SECRET, user())))
        await ask(page, QUERY)
        cards = page.locator(".card")
        await expect(cards.first).to_be_visible(timeout=WAIT_MS)
        count = await cards.count()
        await expect(page.locator(".card .noimg")).to_have_count(count)
        await expect(page.locator(".card img")).to_have_count(0)
        # The browser notes each failed load itself; the widget adds nothing of its own.
        assert all("Failed to load resource" in problem for problem in page.problems), page.problems
