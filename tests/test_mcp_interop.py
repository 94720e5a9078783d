"""A client not written here: the TypeScript SDK's MCP client (tests/interop, installed with npm
on first use) against the MCP app with its fast path, the bearer key and the sample's tools.

With its default handshake (2025-11-25) the SDK's own path answers; negotiating 2026-07-28, the
fast path answers every ordinary call. Either way the client checks each structured result
against the tool's outputSchema with its own validator before handing it over."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
from decimal import Decimal
from functools import partial
from pathlib import Path

import anyio
import pytest

from shopagent.actors.mcp import transport_security
from shopagent.domain.catalog import VariationInput
from shopagent.entrypoints.mcp.auth import BearerKey
from shopagent.entrypoints.mcp.fast_path import FastToolCalls
from shopagent.runtime.asgi import bind_tcp, serve_asgi
from shopagent.settings import McpSettings
from tests.factories import product_input

pytestmark = pytest.mark.anyio

INTEROP = Path(__file__).parent / "interop"
KEY = "interop-key-0123456789"


@pytest.fixture(scope="session")
def node() -> str:
    """Node.js with the client installed from tests/interop/package-lock.json."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("needs Node.js and npm (the TypeScript MCP client)")
    # One install at a time: the suite's workers (pytest -n) share this checkout.
    with (INTEROP / "package-lock.json").open("rb") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (INTEROP / "node_modules" / "@modelcontextprotocol" / "client").is_dir():
            subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=INTEROP, check=True, timeout=300)
    return node


@pytest.fixture
async def server(services):
    """The MCP app behind the fast path and the bearer key, over two boots; (URL, boot id, fast path)."""
    variations = [VariationInput(color="black", size="42", quantity=4, reserved=0)]
    boot = await services.catalog.create_product(
        product_input("black-boot", name="Black Winter Boot", price=Decimal("120.00"), variations=variations)
    )
    await services.catalog.create_product(product_input("brown-boot", name="Brown Winter Boot"))
    while events := await services.outbox.claim(10, 60, 5, "test"):
        await services.index_product.index(events)
    mcp = services.mcp_server
    security = transport_security(McpSettings())
    sdk_app = mcp.streamable_http_app(stateless_http=True, json_response=True, host="127.0.0.1",
                                      transport_security=security)  # fmt: skip
    fast = FastToolCalls(sdk_app, mcp, security, max_body=1 << 20)
    sock = bind_tcp("127.0.0.1", 0)
    async with anyio.create_task_group() as tg:
        await tg.start(partial(serve_asgi, BearerKey(fast, KEY), sock, name="mcp", grace_seconds=1))
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/mcp", boot.id, fast
        tg.cancel_scope.cancel()


@pytest.mark.process
@pytest.mark.parametrize(("mode", "protocol"), [("legacy", "2025-11-25"), ("auto", "2026-07-28")])
async def test_the_typescript_sdk_client_lists_and_calls_the_tools(node, server, mode, protocol):
    url, boot_id, fast = server
    with anyio.fail_after(60):
        done = await anyio.run_process(
            [node, str(INTEROP / "mcp_client.mjs"), url, KEY, mode],
            check=False,
            env={**os.environ, "PRODUCT_ID": str(boot_id)},
        )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    got = json.loads(done.stdout)
    assert got["protocol"] == protocol
    assert sorted(got["tools"]) == ["get-product-full-details", "product-semantic-search", "search-store-information"]
    details = got["details"]
    assert not details["isError"] and details["structured"]["name"] == "Black Winter Boot"
    assert json.loads(details["text"]) == details["structured"]
    assert details["structured"]["price"] == "120.00" and details["structured"]["variations"][0]["color"] == "black"
    search = got["search"]
    assert not search["isError"] and search["structured"]["products"][0]["slug"] == "black-boot"
    assert got["bad"]["isError"] and "productId" in got["bad"]["text"]
    assert "unknown tool 'no-such-tool'" in got["unknown"]
    # The modern protocol's three ordinary calls were the fast path's; the legacy ones the SDK's.
    assert fast.statistics() == {"answered": 3 if mode == "auto" else 0}
