"""The HTTP fast path answers exactly as the SDK's Streamable HTTP entry does.

Two real servers over the same tools: the SDK's app alone, and the same app behind
`FastToolCalls`. Every request below goes to both as raw HTTP, and the answers must be the
same: status, content type and body (JSON compared parsed). The ordinary tool calls must be
answered by the fast path itself; everything else (errors of the protocol, other methods,
legacy versions, bad headers and bodies) by the SDK behind it.
"""

from __future__ import annotations

import json
from decimal import Decimal
from functools import partial
from typing import Any

import anyio
import httpx
import pytest

from shopagent.actors.mcp import transport_security
from shopagent.domain.catalog import VariationInput
from shopagent.entrypoints.mcp.fast_path import FastToolCalls
from shopagent.entrypoints.mcp.server import DETAILS_TOOL, SEARCH_TOOL
from shopagent.runtime.asgi import bind_tcp, serve_asgi
from shopagent.settings import McpSettings
from shopagent.wiring.policies import mcp_serving
from tests.factories import product_input

pytestmark = pytest.mark.anyio

VERSION = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": VERSION,
    "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1.0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
MAX_BODY = 4096


def call(name: str, arguments: Any = None, *, request_id: Any = 1, meta: Any = META, **extra: Any) -> dict:
    params: dict[str, Any] = {"name": name, "_meta": meta}
    if arguments is not None:
        params["arguments"] = arguments
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params, **extra}


def headers_for(body: Any, **changes: str | None) -> dict[str, str]:
    """The headers the SDK's own client sends with `body`, with `changes` (None removes one)."""
    headers = {
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
        "mcp-protocol-version": VERSION,
    }
    if isinstance(body, dict):
        headers["mcp-method"] = body.get("method", "")
        name = (body.get("params") or {}).get("name")
        if isinstance(name, str):
            headers["mcp-name"] = name
    for key, value in changes.items():
        key = key.replace("_", "-")
        if value is None:
            headers.pop(key, None)
        else:
            headers[key] = value
    return headers


# fmt: off
def ordinary_calls(ids: dict[str, int]) -> list[tuple[str, Any, dict[str, str | None]]]:
    boot, tee = ids["sale-boot"], ids["red-tee"]
    return [
        ("details", call(DETAILS_TOOL, {"productId": boot}), {}),
        ("details, no sale price, string id", call(DETAILS_TOOL, {"productId": tee}, request_id="r-7"), {}),
        ("search", call(SEARCH_TOOL, {"query": "winter boots", "limit": 2}), {}),
        ("search with every filter", call(SEARCH_TOOL, {"query": "tee", "filters": {
            "colors": ["red"], "sizes": ["M"], "inStock": True, "minPrice": 1, "maxPrice": 99.5}}), {}),
        ("search, nothing matches the filters", call(SEARCH_TOOL, {"query": "tee", "filters": {"maxPrice": 1}}), {}),
        ("arguments missing: a tool error", call(DETAILS_TOOL), {}),
        ("product id 0: a tool error", call(DETAILS_TOOL, {"productId": 0}), {}),
        ("unknown product: a tool error", call(DETAILS_TOOL, {"productId": 987654321}), {}),
        ("unknown argument: a tool error", call(SEARCH_TOOL, {"query": "tee", "colour": "red"}), {}),
        ("empty query: a tool error", call(SEARCH_TOOL, {"query": ""}), {}),
        ("wrong argument type: a tool error", call(DETAILS_TOOL, {"productId": "seven"}), {}),
        ("accepts anything", call(DETAILS_TOOL, {"productId": boot}), {"accept": "*/*"}),
        ("a progress token", call(DETAILS_TOOL, {"productId": boot}, meta={**META, "progressToken": "p1"}), {}),
    ]


def other_requests(ids: dict[str, int]) -> list[tuple[str, Any, dict[str, str | None]]]:
    boot = ids["sale-boot"]
    details = call(DETAILS_TOOL, {"productId": boot})
    big = call(SEARCH_TOOL, {"query": "x" * MAX_BODY})
    return [
        ("unknown tool", call("no-such-tool", {}), {}),
        ("tools/list", {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": META}}, {}),
        ("Mcp-Name disagrees with the body", details, {"mcp_name": SEARCH_TOOL}),
        ("no Mcp-Method header", details, {"mcp_method": None}),
        ("no Mcp-Name header", details, {"mcp_name": None}),
        ("an unsupported protocol version", details, {"mcp_protocol_version": "2099-01-01"}),
        ("header and envelope versions disagree", call(DETAILS_TOOL, {"productId": boot}, meta={
            **META, "io.modelcontextprotocol/protocolVersion": "2025-06-18"}), {}),
        ("a legacy protocol version", call(DETAILS_TOOL, {"productId": boot}), {"mcp_protocol_version": "2025-06-18"}),
        ("no _meta", call(DETAILS_TOOL, {"productId": boot}, meta=None), {}),
        ("no client capabilities", call(DETAILS_TOOL, {"productId": boot}, meta={
            "io.modelcontextprotocol/protocolVersion": VERSION}), {}),
        ("malformed client info", call(DETAILS_TOOL, {"productId": boot}, meta={
            **META, "io.modelcontextprotocol/clientInfo": {"name": 7}}), {}),
        ("arguments not an object", call(DETAILS_TOOL, [boot]), {}),
        ("a float id", call(DETAILS_TOOL, {"productId": boot}, request_id=1.5), {}),
        ("a boolean id", call(DETAILS_TOOL, {"productId": boot}, request_id=True), {}),
        ("a null id", call(DETAILS_TOOL, {"productId": boot}, request_id=None), {}),
        ("an extra envelope member", call(DETAILS_TOOL, {"productId": boot}, extra="x"), {}),
        ("jsonrpc 1.0", {**details, "jsonrpc": "1.0"}, {}),
        ("a notification", {k: v for k, v in details.items() if k != "id"}, {}),
        ("a batch", [details], {"mcp_method": "tools/call"}),
        ("not JSON", b'{"jsonrpc": "2.0", "id": 1,', {"mcp_method": "tools/call"}),
        ("NaN in the arguments", b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"%s",'
         b'"arguments":{"productId":NaN},"_meta":%s}}' % (DETAILS_TOOL.encode(), json.dumps(META).encode()),
         {"mcp_method": "tools/call", "mcp_name": DETAILS_TOOL}),
        ("text/plain", details, {"content_type": "text/plain"}),
        ("accepts only event streams", details, {"accept": "text/event-stream"}),
        ("a foreign Origin", details, {"origin": "http://evil.example"}),
        ("a foreign Host", details, {"host": "evil.example"}),
        ("an Mcp-Param header", details, {"mcp_param_product": "1"}),
        ("a body over the limit", big, {}),
    ]


# fmt: on


@pytest.fixture
async def servers(services):
    """(the SDK's app alone, the same behind the fast path): their URLs and the fast path."""
    ids = {}
    for slug, item in {
        "sale-boot": product_input(
            "sale-boot",
            name="Leather Winter Boot",
            price=Decimal("200.00"),
            discount_price=Decimal("120.00"),
            variations=[VariationInput(color="black", size="42", quantity=3, reserved=0)],
        ),
        "red-tee": product_input(
            "red-tee",
            name="Cotton Tee",
            category="Shirts & tops",
            price=Decimal("25.00"),
            variations=[VariationInput(color="red", size="M", quantity=5, reserved=1)],
        ),
    }.items():
        ids[slug] = (await services.catalog.create_product(item)).id
    while events := await services.outbox.claim(10, 60, 5, "test"):
        await services.index_product.index(events)
    server = services.mcp_server
    security = transport_security(McpSettings())

    def sdk_app() -> Any:
        return server.streamable_http_app(
            stateless_http=True,
            json_response=True,
            host="127.0.0.1",
            transport_security=security,
            max_request_body_size=MAX_BODY,
        )

    fast = FastToolCalls(sdk_app(), server, security, max_body=MAX_BODY)
    sockets = [bind_tcp("127.0.0.1", 0) for _ in range(2)]
    async with anyio.create_task_group() as tg:
        for name, app, sock in (("sdk", sdk_app(), sockets[0]), ("fast", fast, sockets[1])):
            await tg.start(partial(serve_asgi, app, sock, name=name, grace_seconds=1))
        urls = [f"http://127.0.0.1:{sock.getsockname()[1]}/mcp" for sock in sockets]
        yield ids, urls, fast
        tg.cancel_scope.cancel()


async def answer(http: httpx.AsyncClient, url: str, body: Any, headers: dict[str, str]) -> tuple[int, str, Any]:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    response = await http.post(url, content=content, headers=headers)
    kind = response.headers.get("content-type", "").split(";")[0]
    return response.status_code, kind, response.json() if kind == "application/json" else response.content


async def test_every_request_gets_the_sdks_answer_and_ordinary_calls_skip_the_sdk(servers):
    ids, (sdk_url, fast_url), fast = servers
    ordinary, others = ordinary_calls(ids), other_requests(ids)
    async with httpx.AsyncClient(timeout=30) as http:
        for what, body, changes in ordinary + others:
            headers = headers_for(body, **changes)
            expected = await answer(http, sdk_url, body, headers)
            assert await answer(http, fast_url, body, headers) == expected, what
            if (what, body, changes) in ordinary:
                status, kind, reply = expected
                assert (status, kind) == (200, "application/json") and "result" in reply, (what, expected)
    assert fast.statistics() == {"answered": len(ordinary)}


async def test_the_fast_answer_carries_the_result_twice_and_the_server_stamp(servers):
    ids, (_, fast_url), _ = servers
    body = call(DETAILS_TOOL, {"productId": ids["sale-boot"]})
    async with httpx.AsyncClient(timeout=30) as http:
        status, _, reply = await answer(http, fast_url, body, headers_for(body))
    result = reply["result"]
    assert status == 200 and result["isError"] is False and result["resultType"] == "complete"
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
    assert result["structuredContent"]["discountedPrice"] == "120.00"
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "shopagent"


@pytest.mark.parametrize("fast_path", [True, False])
async def test_the_fast_path_can_be_turned_off_and_then_every_call_is_the_sdks(services, caplog, fast_path: bool):
    """With `mcp.fast_path = false` the SDK answers every request (and says so at start-up)."""
    import logging

    import msgspec

    from shopagent.actors.mcp import build_mcp_app

    settings = msgspec.structs.replace(services.settings, mcp=McpSettings(port=0, fast_path=fast_path))
    with caplog.at_level(logging.INFO, logger="shopagent.mcp"):
        app = build_mcp_app(services.mcp_server, mcp_serving(settings))
    sock = bind_tcp("127.0.0.1", 0)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
    body = call(DETAILS_TOOL, {"productId": 424242})
    async with anyio.create_task_group() as tg, httpx.AsyncClient(timeout=30) as http:
        await tg.start(partial(serve_asgi, app, sock, name="mcp", grace_seconds=1))
        status, _, reply = await answer(http, url, body, headers_for(body))
        tg.cancel_scope.cancel()
    assert status == 200 and reply["result"]["isError"] is True
    assert ("the MCP fast path is off" in caplog.text) is not fast_path
