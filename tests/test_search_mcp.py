"""Search and the MCP tools through the real MCP client: in memory and over HTTP."""

from __future__ import annotations

import contextlib
from decimal import Decimal
from functools import partial

import anyio
import asyncpg
import httpx
import httpx2
import msgspec
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from shopagent.actors.mcp import build_mcp_app, run_mcp
from shopagent.adapters.postgres.vector_index import vector_index_name
from shopagent.domain.catalog import VariationInput
from shopagent.domain.errors import ConfigError
from shopagent.settings import McpSettings, SearchSettings, Secret, Settings
from shopagent.wiring.policies import mcp_serving
from tests.conftest import settings_for
from tests.factories import product_input
from tests.helpers import eventually, free_port

pytestmark = pytest.mark.anyio


def v(color: str, size: str, quantity: int = 5, reserved: int = 0) -> VariationInput:
    return VariationInput(color=color, size=size, quantity=quantity, reserved=reserved)


CATALOG = [
    product_input("red-medium-tee", name="Cotton Tee", category="Shirts & tops", price=Decimal("25.00"),
                  description="A soft cotton tee.", variations=[v("red", "M"), v("blue", "S")]),
    product_input("split-tee", name="Cotton Tee Split", category="Shirts & tops", price=Decimal("25.00"),
                  description="A soft cotton tee.", variations=[v("red", "S"), v("blue", "M")]),
    product_input("sold-out-tee", name="Cotton Tee Sold Out", category="Shirts & tops", price=Decimal("25.00"),
                  description="A soft cotton tee.", variations=[v("red", "M", 2, 2)]),
    product_input("sale-boot", name="Leather Winter Boot", price=Decimal("200.00"), discount_price=Decimal("120.00"),
                  variations=[v("black", "42")]),
    product_input("full-price-boot", name="Leather Winter Boot Classic", price=Decimal("150.00"),
                  variations=[v("black", "42")]),
]  # fmt: skip


async def index_everything(services) -> None:
    while events := await services.outbox.claim(100, 60, 5, "test"):
        await services.index_product.index(events)
    await services.index_keeper.prepare()
    await services.index_keeper.settle()
    assert (await services.vector_index.state("hash-384")).ready


@pytest.fixture(params=["exact", "hnsw"])
async def shop(request, database):
    """Services over an indexed test catalog; "hnsw" forces the index path even for filters,
    and walks the HNSW index even though a table this small would be scanned otherwise."""
    from shopagent.adapters.local.hash_embedder import HashEmbedder
    from shopagent.wiring.services import open_services
    from shopagent.wiring.startup import INDEXER_ACTORS

    threshold = 0 if request.param == "hnsw" else 2000
    if request.param == "hnsw":
        conn = await asyncpg.connect(database)
        try:
            await conn.execute(
                f'ALTER DATABASE "{await conn.fetchval("SELECT current_database()")}" SET enable_seqscan = off'
            )
        finally:
            await conn.close()
    settings = settings_for(database, search=SearchSettings(exact_below_products=threshold))
    async with open_services(settings, INDEXER_ACTORS | {"mcp"}, embedder=HashEmbedder()) as services:
        services.products = {}
        for item in CATALOG:
            product = await services.catalog.create_product(item)
            services.products[product.slug] = product.id
        await index_everything(services)
        yield services


async def search(client: Client, **arguments):
    result = await client.call_tool("product-semantic-search", arguments)
    assert not result.is_error, result.content
    return [p["slug"] for p in result.structured_content["products"]]


async def vector_index_scans(services) -> int:
    async with services.pool.acquire() as conn:
        return await conn.fetchval(
            "SELECT idx_scan FROM pg_stat_user_indexes WHERE indexrelname = $1", vector_index_name("hash-384")
        )


async def test_without_the_vector_index_a_search_scans_the_chunks_and_finds_the_same(shop):
    scans = await vector_index_scans(shop)
    async with Client(shop.mcp_server) as client:
        before = await search(client, query="warm lined winter boots", limit=5)
        if shop.settings.search.exact_below_products == 0:  # the HNSW plan: it used the index
            await eventually(lambda: _more_scans_than(shop, scans), timeout=20)
        assert await shop.vector_index.drop("hash-384")
        after = await search(client, query="warm lined winter boots", limit=5)
    assert before and after == before


async def _more_scans_than(services, scans: int) -> bool:
    return await vector_index_scans(services) > scans


async def test_tools_are_listed_with_input_and_output_schemas(shop):
    async with Client(shop.mcp_server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == {"product-semantic-search", "get-product-full-details", "search-store-information"}
    search_tool = tools["product-semantic-search"]
    assert search_tool.input_schema["required"] == ["query"]
    assert "red" in search_tool.input_schema["properties"]["filters"]["properties"]["colors"]["items"]["enum"]
    assert search_tool.output_schema["properties"]["products"]["items"]["required"][0] == "productId"
    assert "effective" in search_tool.description and "EUR" in search_tool.description
    assert "Do not call get-product-full-details for every hit" in search_tool.description
    assert {"variations", "specs", "url"} <= set(tools["get-product-full-details"].output_schema["required"])
    # The bounds the server checks are declared, so a client can respect them up front.
    filters = search_tool.input_schema["properties"]["filters"]["properties"]
    assert filters["maxPrice"]["exclusiveMaximum"] == 10_000_000 and filters["maxPrice"]["minimum"] == 0
    product_id = tools["get-product-full-details"].input_schema["properties"]["productId"]
    assert (product_id["minimum"], product_id["maximum"]) == (1, 2**63 - 1)


async def test_search_returns_the_closest_products_with_prices_and_availability(shop):
    async with Client(shop.mcp_server) as client:
        result = await client.call_tool("product-semantic-search", {"query": "leather winter boot", "limit": 2})
    products = result.structured_content["products"]
    assert [p["slug"] for p in products] == ["sale-boot", "full-price-boot"]
    sale = products[0]
    assert (sale["price"], sale["discountedPrice"], sale["effectivePrice"], sale["currency"]) == (
        "200.00", "120.00", "120.00", "EUR",
    )  # fmt: skip
    assert (sale["availableColors"], sale["availableSizes"]) == (["black"], ["42"])
    assert 0 <= sale["distance"] < products[1]["distance"] + 1e-9
    assert result.content[0].text.startswith('{"products":[{"productId":')


async def test_colour_and_size_must_hold_on_the_same_variation(shop):
    async with Client(shop.mcp_server) as client:
        red_m = await search(client, query="cotton tee", limit=10, filters={"colors": ["red"], "sizes": ["M"]})
        red_or_blue_m = await search(
            client, query="cotton tee", limit=10, filters={"colors": ["Red", "BLUE"], "sizes": ["m"]}
        )
        in_stock = await search(
            client, query="cotton tee", limit=10, filters={"colors": ["red"], "sizes": ["M"], "inStock": True}
        )
    assert sorted(red_m) == ["red-medium-tee", "sold-out-tee"]  # not split-tee: red S + blue M
    assert sorted(red_or_blue_m) == ["red-medium-tee", "sold-out-tee", "split-tee"]
    assert in_stock == ["red-medium-tee"]


async def test_price_bounds_apply_to_the_effective_price(shop):
    async with Client(shop.mcp_server) as client:
        under_130 = await search(client, query="boot", limit=10, filters={"maxPrice": 130})
        from_140 = await search(client, query="boot", limit=10, filters={"minPrice": 140, "maxPrice": 160})
        both = await search(
            client, query="boot", limit=10, filters={"minPrice": 100, "colors": ["black"], "inStock": True}
        )
    assert set(under_130) == {"sale-boot", "red-medium-tee", "split-tee", "sold-out-tee"}  # sale: 120, tees: 25
    assert from_140 == ["full-price-boot"]  # its list price 150; the sale boot's 200 is not what one pays
    assert sorted(both) == ["full-price-boot", "sale-boot"]


async def test_details_describe_one_product_with_available_quantities(shop):
    async with Client(shop.mcp_server) as client:
        result = await client.call_tool("get-product-full-details", {"productId": shop.products["sold-out-tee"]})
        missing = await client.call_tool("get-product-full-details", {"productId": 999_999})
    details = result.structured_content
    assert (details["slug"], details["inStock"], details["effectivePrice"]) == ("sold-out-tee", False, "25.00")
    assert details["variations"] == [{
        "color": "red", "size": "M", "options": {}, "available": 0, "weightGrams": None, "price": "25.00",
        "discountedPrice": None, "effectivePrice": "25.00", "sku": None, "specs": {}, "url": None,
    }]  # fmt: skip
    assert missing.is_error
    assert "product 999999 does not exist" in missing.content[0].text


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"query": "tee", "limit": "five"}, "invalid argument `limit`: Expected `int`, got `str`"),
        ({"query": "tee", "limit": 0}, "limit 0 is out of range; use 1 to 20"),
        ({"query": "tee", "limit": 21}, "limit 21 is out of range"),
        ({"query": "tee", "filters": {"colors": ["chartreuse"]}}, "unknown colour 'chartreuse'; use one of: black"),
        ({"query": "tee", "filters": {"sizes": ["XXXXL"]}}, "unknown size 'XXXXL'"),
        ({"query": "tee", "filters": {"minPrice": -5}}, "minPrice -5 must be from 0 to below 10000000"),
        ({"query": "tee", "filters": {"maxPrice": 10000000}}, "maxPrice 10000000 must be from 0 to below 10000000"),
        ({"query": "tee", "filters": {"minPrice": 90, "maxPrice": 10}}, "minPrice 90 is greater than maxPrice 10"),
        ({"query": "   "}, "query is empty"),
        ({"query": "boots " * 400}, "query is 2399 characters; keep it under 2000"),
        ({"query": "tee", "colour": "red"}, "Object contains unknown field `colour`"),
        ({}, "Object missing required field `query`"),
        ({"query": "tee", "filters": {"inStock": "yes"}}, "invalid argument `filters.inStock`: Expected `bool`"),
        ({"query": "tee", "filters": {"specs": {"lumens": {"min": 9, "max": 1}}}}, "min 9 is greater than max 1"),
        ({"query": "tee", "filters": {"specs": {"lumens": {"above": 9}}}}, "Object contains unknown field `above`"),
        ({"query": "tee", "filters": {"specs": {"lumens": {}}}}, "give min and/or max, or equals"),
        ({"query": "tee", "filters": {"options": {"Valve": "Presta"}}}, "`filters.options[...]`: Expected `array`"),
    ],
)
async def test_bad_arguments_come_back_as_tool_errors_the_model_can_act_on(shop, arguments, message):
    async with Client(shop.mcp_server) as client:
        result = await client.call_tool("product-semantic-search", arguments)
    assert result.is_error
    text = result.content[0].text
    assert message in text
    assert "Traceback" not in text and "SELECT" not in text and "postgresql://" not in text


async def test_an_unknown_tool_is_a_protocol_error_and_a_bad_product_id_a_tool_error(shop):
    async with Client(shop.mcp_server) as client:
        with pytest.raises(MCPError) as unknown:
            await client.call_tool("buy-everything", {})
        bad_id = await client.call_tool("get-product-full-details", {"productId": "12"})
    assert unknown.value.code == -32602  # invalid params, as the MCP specification says for an unknown tool
    assert "the tools are product-semantic-search" in unknown.value.message
    assert bad_id.is_error and "invalid argument `productId`" in bad_id.content[0].text


async def test_a_deleted_product_never_appears_even_before_reindexing(shop):
    await shop.catalog.delete_product(shop.products["sale-boot"])
    async with Client(shop.mcp_server) as client:
        found = await search(client, query="leather winter boot", limit=10)
    assert "sale-boot" not in found
    assert "full-price-boot" in found


@contextlib.asynccontextmanager
async def serving(shop, key: str | None = "mcp-test-key", limit=None):
    port = free_port()
    secrets = msgspec.structs.replace(shop.settings.secrets, mcp_api_key=Secret(key) if key else None)
    settings = msgspec.structs.replace(shop.settings, secrets=secrets, mcp=McpSettings(port=port))
    async with anyio.create_task_group() as tg:
        await tg.start(partial(run_mcp, mcp_serving(settings), shop.mcp_server, limit=limit))
        yield f"http://127.0.0.1:{port}/mcp"
        tg.cancel_scope.cancel()


async def test_over_http_the_tools_work_with_the_key(shop):
    async with (
        serving(shop) as url,
        httpx2.AsyncClient(headers={"Authorization": "Bearer mcp-test-key"}) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        assert await search(client, query="winter boot", limit=1) == ["sale-boot"]
        bad = await client.call_tool("product-semantic-search", {"query": ""})
    assert bad.is_error


async def test_over_http_a_missing_or_wrong_key_is_a_401(shop):
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"Accept": "application/json, text/event-stream"}
    async with serving(shop) as url, httpx.AsyncClient() as http:
        missing = await http.post(url, json=request, headers=headers)
        wrong = await http.post(url, json=request, headers={**headers, "Authorization": "Bearer nope"})
    for response in (missing, wrong):
        assert response.status_code == 401
        assert response.headers["www-authenticate"] == 'Bearer realm="shopagent-mcp"'


async def test_each_key_has_a_rate_limit_shared_through_the_database(shop):
    from shopagent.adapters.postgres.rate_limits import PostgresRateLimits
    from shopagent.application.limits import RateLimit

    limit = RateLimit(PostgresRateLimits(shop.pool), per_minute=1, burst=2)
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"Accept": "application/json, text/event-stream", "Authorization": "Bearer mcp-test-key"}
    async with serving(shop, limit=limit) as url, httpx.AsyncClient() as http:
        codes = [(await http.post(url, json=request, headers=headers)).status_code for _ in range(3)]
        limited = await http.post(url, json=request, headers=headers)
        stranger = await http.post(url, json=request, headers={**headers, "Authorization": "Bearer wrong"})
    assert codes == [200, 200, 429]
    assert limited.json()["error"]["code"] == "rate_limited" and int(limited.headers["retry-after"]) >= 1
    assert stranger.status_code == 401  # the key is checked first: a stranger cannot spend the budget


@pytest.mark.parametrize("method", ["GET", "DELETE", "PUT"])
async def test_methods_other_than_post_are_405_with_allow(shop, method):
    headers = {"Accept": "text/event-stream", "Authorization": "Bearer mcp-test-key"}
    async with serving(shop) as url, httpx.AsyncClient() as http:
        with anyio.fail_after(5):  # a GET once opened a stream that never ended
            response = await http.request(method, url, headers=headers)
    assert response.status_code == 405
    assert response.headers["allow"] == "POST"
    assert response.json()["error"]["code"] == "method_not_allowed"


async def test_a_foreign_host_header_is_refused_on_loopback(shop):
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"Accept": "application/json, text/event-stream", "Authorization": "Bearer mcp-test-key"}
    async with serving(shop) as url, httpx.AsyncClient() as http:
        rebound = await http.post(url, json=request, headers={**headers, "Host": "evil.example:8000"})
    assert rebound.status_code in (403, 421)


def test_without_a_key_the_mcp_server_refuses_a_public_host():
    public = Settings(mcp=McpSettings(host="0.0.0.0"))  # noqa: S104 - what is refused
    with pytest.raises(ConfigError, match=r"refusing to serve MCP on 0\.0\.0\.0 without a key"):
        build_mcp_app(object(), mcp_serving(public))  # type: ignore[arg-type]


async def test_mcp_stdio_serves_the_same_tools_to_a_real_stdio_client(shop):
    import os
    import sys

    from mcp import StdioServerParameters

    env = {k: val for k, val in os.environ.items() if not k.startswith("SHOPAGENT_")}
    env |= {"SHOPAGENT_DATABASE_URL": shop.dsn, "SHOPAGENT_EMBEDDING__MODEL": "hash"}
    parameters = StdioServerParameters(command=sys.executable, args=["-m", "shopagent", "mcp", "stdio"], env=env)
    with anyio.fail_after(60):
        async with Client(parameters) as client:
            tools = [t.name for t in (await client.list_tools()).tools]
            found = await search(client, query="leather winter boot", limit=2)
    assert tools == ["product-semantic-search", "get-product-full-details", "search-store-information"]
    assert found == ["sale-boot", "full-price-boot"]


async def test_an_oversized_request_body_is_refused(shop):
    headers = {"Accept": "application/json, text/event-stream", "Authorization": "Bearer mcp-test-key",
               "Content-Type": "application/json"}  # fmt: skip
    async with serving(shop) as url, httpx.AsyncClient() as http:
        response = await http.post(url, content=b"{" + b" " * 2_000_000 + b"}", headers=headers)
    assert response.status_code == 413
