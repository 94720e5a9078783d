"""Accessibility: axe-core (installed with npm from tests/a11y/package-lock.json) run inside
real headless Chromium on the chat page and on the widget embedded in a shop's page on another
origin, at desktop and phone sizes, before and after an answer with product cards and with an
error shown: no serious or critical finding."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
from pathlib import Path

import pytest

from shopagent.domain.tokens import issue_token
from tests import test_browser
from tests.helpers import free_port
from tests.test_browser import (
    CHROMIUM,
    DESKTOP,
    PHONE,
    PIXEL,
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
    pytest.mark.anyio,
    pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (apt-get install chromium; .ci/run does)"),
]
browser = test_browser.browser  # its fixture, for these tests too
A11Y = Path(__file__).parent / "a11y"
SEVERE = ("serious", "critical")


@pytest.fixture(scope="session")
def axe() -> Path:
    """axe-core's script, installed from tests/a11y/package-lock.json on first use."""
    script = A11Y / "node_modules" / "axe-core" / "axe.min.js"
    if not script.is_file():
        npm = shutil.which("npm")
        if npm is None:
            pytest.skip("needs npm (axe-core)")
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=A11Y, check=True, timeout=300)
    return script


@pytest.fixture(params=[DESKTOP, PHONE], ids=["desktop", "phone"])
async def page(browser, request):
    # The chat page's Content-Security-Policy allows only its own scripts: axe is let in past it.
    context = await browser.new_context(viewport=request.param, bypass_csp=True)
    await context.route("https://images.example.com/**", lambda r: r.fulfill(body=PIXEL, content_type="image/png"))
    opened = await context.new_page()
    yield opened
    await context.close()


async def severe_findings(page, axe: Path) -> list[str]:
    """axe's serious and critical violations on the page as it is now (the widget's shadow root included)."""
    if not await page.evaluate("() => typeof window.axe === 'object'"):
        await page.add_script_tag(path=axe)
    found = await page.evaluate("() => axe.run(document, { resultTypes: ['violations'] })")
    return [
        f"{v['impact']} {v['id']}: {v['help']} at {[n['target'] for n in v['nodes']]}"
        for v in found["violations"]
        if v["impact"] in SEVERE
    ]


async def test_the_chat_page_has_no_serious_accessibility_findings(sample_shop, page, axe):
    async with shop_server(sample_shop) as url:
        await page.goto(chat_page(url, issue_token(SECRET, user())))
        await expect(page.get_by_role("log")).to_contain_text("Tell me what you are looking for")
        assert await severe_findings(page, axe) == []
        await ask(page, QUERY)
        await expect_answer_with_cards(page)
        assert await severe_findings(page, axe) == []
        await page.route(
            f"{url}/api/assistant-agent/chat",
            lambda r: r.fulfill(status=503, json={"error": {"code": "database_unavailable", "message": "down"}}),
        )
        await ask(page, "and in red?")
        await expect(page.get_by_role("alert").get_by_role("button", name="Send again")).to_be_visible()
        assert await severe_findings(page, axe) == []


async def test_the_widget_on_another_origin_has_no_serious_accessibility_findings(sample_shop, page, axe):
    front_port = free_port()
    async with contextlib.AsyncExitStack() as stack:
        url = await stack.enter_async_context(
            shop_server(sample_shop, http={"cors_origins": [f"http://127.0.0.1:{front_port}"]})
        )
        front = await stack.enter_async_context(
            shop_front(sample_shop, embed(url, issue_token(SECRET, user())), port=front_port)
        )
        await page.goto(front)
        launcher = page.get_by_role("button", name="Ask Nordic Outfitters")
        await expect(launcher).to_be_visible()
        assert await severe_findings(page, axe) == []
        await launcher.click()
        await expect(page.get_by_role("dialog", name="Ask Nordic Outfitters")).to_be_visible()
        assert await severe_findings(page, axe) == []
        await ask(page, QUERY)
        await expect_answer_with_cards(page)
        assert await severe_findings(page, axe) == []


async def test_axe_finds_the_faults_it_is_there_to_find(browser, axe):
    """A page with known serious faults gets findings: a clean run above means something."""
    context = await browser.new_context(viewport=DESKTOP)
    try:
        faulty = await context.new_page()
        await faulty.set_content(
            '<html lang="en"><title>x</title><body><main><img src="data:,"><button></button></main></body></html>'
        )
        found = await severe_findings(faulty, axe)
    finally:
        await context.close()
    assert any("image-alt" in f for f in found) and any("button-name" in f for f in found), found
