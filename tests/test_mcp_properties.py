"""Property test: any arguments to either MCP tool, over every transport, give a tool result
(`isError` with a specific message when they are bad), never a protocol failure, a
traceback or an "internal error". Hypothesis draws the arguments; the server is real (the
in-memory transport, Streamable HTTP and stdio, against the real PostgreSQL)."""

from __future__ import annotations

import contextlib
import os
import sys
from functools import partial

import anyio
import httpx2
import msgspec
import pytest
from anyio.from_thread import start_blocking_portal
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from shopagent.actors.mcp import run_mcp
from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.settings import McpSettings, Secret
from shopagent.wiring.policies import mcp_serving
from shopagent.wiring.services import open_services
from shopagent.wiring.startup import INDEXER_ACTORS
from tests.conftest import _create_database, settings_for
from tests.factories import product_input
from tests.helpers import free_port

KEY = "mcp-key-of-16-bytes-or-more"
SEARCH = "product-semantic-search"
DETAILS = "get-product-full-details"

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
text = st.text(max_size=80)  # any code points: NUL, lone surrogates, emoji, right-to-left
search_arguments = st.fixed_dictionaries(
    {},
    optional={
        "query": text | json_values,
        "limit": st.integers(-5, 40) | json_values,
        "filters": st.fixed_dictionaries(
            {},
            optional={
                "colors": st.lists(text, max_size=3) | json_values,
                "sizes": st.lists(text, max_size=3) | json_values,
                "minPrice": st.floats(-1e9, 1e12) | st.integers(-10, 10**20) | json_values,
                "maxPrice": st.floats(-1e9, 1e12) | st.integers(-10, 10**20) | json_values,
                "inStock": st.booleans() | json_values,
            },
        )
        | json_values,
    },
) | st.dictionaries(st.text(max_size=10), json_values, max_size=3)
details_arguments = st.fixed_dictionaries({}, optional={"productId": st.integers(-(2**70), 2**70) | json_values})
# Arguments a client would plausibly send, so that the valid paths are exercised as well.
plausible_search = st.fixed_dictionaries(
    {"query": st.sampled_from(["boots", "winter boot", "warme Stiefel", "bottes", "x"]) | text.filter(str.strip)},
    optional={
        "limit": st.integers(1, 20),
        "filters": st.fixed_dictionaries({}, optional={
            "colors": st.lists(st.sampled_from(["black", "red", "navy", "Gray"]), max_size=2),
            "sizes": st.lists(st.sampled_from(["42", "M", "one size"]), max_size=2),
            "maxPrice": st.floats(0, 9_999_999), "inStock": st.booleans()}),
    },
)  # fmt: skip
plausible_details = st.fixed_dictionaries({"productId": st.integers(1, 3)})
calls = (
    st.tuples(st.just(SEARCH), plausible_search)
    | st.tuples(st.just(DETAILS), plausible_details)
    | st.tuples(st.just(SEARCH), search_arguments)
    | st.tuples(st.just(DETAILS), details_arguments)
)


@contextlib.asynccontextmanager
async def mcp_client(embedded_pg, template_db, transport: str):
    async for dsn in _create_database(embedded_pg, template_db):
        settings = settings_for(dsn)
        secrets = msgspec.structs.replace(settings.secrets, mcp_api_key=Secret(KEY))
        settings = msgspec.structs.replace(settings, secrets=secrets, mcp=McpSettings(port=free_port()))
        async with open_services(settings, INDEXER_ACTORS | {"mcp"}, embedder=HashEmbedder()) as services:
            await services.catalog.create_product(product_input("alpine-boot"))
            while events := await services.outbox.claim(10, 60, 5, "t"):
                await services.index_product.index(events)
            if transport == "memory":
                async with Client(services.mcp_server) as client:
                    yield client
            elif transport == "http":
                async with anyio.create_task_group() as tg:
                    await tg.start(partial(run_mcp, mcp_serving(settings), services.mcp_server))
                    url = f"http://127.0.0.1:{settings.mcp.port}/mcp"
                    async with (
                        httpx2.AsyncClient(headers={"Authorization": f"Bearer {KEY}"}) as http,
                        Client(streamable_http_client(url, http_client=http)) as client,
                    ):
                        yield client
                    tg.cancel_scope.cancel()
            else:
                env = {k: v for k, v in os.environ.items() if not k.startswith("SHOPAGENT_")}
                env |= {"SHOPAGENT_DATABASE_URL": dsn, "SHOPAGENT_EMBEDDING__MODEL": "hash"}
                parameters = StdioServerParameters(command=sys.executable, args=["-m", "shopagent", "mcp", "stdio"],
                                                   env=env)  # fmt: skip
                async with Client(parameters) as client:
                    yield client


@pytest.mark.parametrize("transport", ["memory", "http", "stdio"])
def test_any_arguments_give_a_tool_result_never_a_failure(embedded_pg, template_db, transport):
    outcomes = {"ok": 0, "error": 0}
    with (
        start_blocking_portal(backend="asyncio") as portal,
        portal.wrap_async_context_manager(mcp_client(embedded_pg, template_db, transport)) as client,
    ):

        @settings(
            max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), database=None, derandomize=True
        )  # the same cases on every run: a failure can be replayed
        @given(call=calls)
        def check(call):
            name, arguments = call
            result = portal.call(partial(client.call_tool, name, arguments))
            if result.is_error:
                message = result.content[0].text
                assert "internal error" not in message and "Traceback" not in message, message
                assert message.strip()
            else:
                assert result.structured_content is not None
            outcomes["error" if result.is_error else "ok"] += 1

        check()
    print(f"{transport}: {outcomes['ok']} results, {outcomes['error']} tool errors")
    assert outcomes["ok"] and outcomes["error"]
