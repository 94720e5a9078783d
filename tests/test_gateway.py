"""The MCP tool gateway: in process and over HTTP; failures become results, bad setup fails early."""

from __future__ import annotations

from functools import partial

import anyio
import msgspec
import pytest

from shopagent.actors.mcp import run_mcp
from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.adapters.mcp.gateway import open_in_process, open_over_http
from shopagent.bootstrap import INDEXER_ACTORS, open_services
from shopagent.domain.chat import (
    ChatMessage,
    FunctionCall,
    TextPart,
    ToolResult,
    Usage,
    message_encoder,
    messages_decoder,
)
from shopagent.domain.errors import ConfigError
from shopagent.settings import McpSettings, Secret
from tests.factories import product_input
from tests.helpers import free_port

pytestmark = pytest.mark.anyio


@pytest.fixture
async def services(settings):
    async with open_services(settings, INDEXER_ACTORS | {"mcp"}, embedder=HashEmbedder()) as services:
        await services.catalog.create_product(product_input("alpine-boot"))
        await services.index_product.index(await services.index_store.claim(10, 60, 5, "t"))
        yield services


async def test_tool_calls_that_cannot_work_become_results_the_model_can_read(services):
    async with open_in_process(services.mcp_server) as gateway:
        not_an_object = await gateway.safe_call("product-semantic-search", ["boots"])
        unknown = await gateway.safe_call("delete-everything", {})
        tool_error = await gateway.safe_call("get-product-full-details", {"productId": 424242})
        first, second = await gateway.list_tools(), await gateway.list_tools()
    assert not_an_object == ToolResult(
        is_error=True, text="arguments of product-semantic-search must be a JSON object, got list"
    )
    assert unknown.is_error and "there is no tool 'delete-everything'" in unknown.text
    assert tool_error.is_error and "product 424242 does not exist" in tool_error.text
    assert first is second  # listed once, then cached


async def test_over_http_the_gateway_uses_the_key_and_a_wrong_key_fails_at_open(services):
    port = free_port()
    secrets = msgspec.structs.replace(services.settings.secrets, mcp_api_key=Secret("gateway-key"))
    settings = msgspec.structs.replace(services.settings, secrets=secrets, mcp=McpSettings(port=port))
    url = f"http://127.0.0.1:{port}/mcp"
    async with anyio.create_task_group() as tg:
        await tg.start(partial(run_mcp, settings, services.mcp_server))
        async with open_over_http(url, "gateway-key") as gateway:
            result = await gateway.safe_call("product-semantic-search", {"query": "boot", "limit": 1})
        assert not result.is_error
        assert result.structured["products"][0]["slug"] == "alpine-boot"
        with pytest.raises(ConfigError, match=f"cannot use the MCP server at {url}"):
            async with open_over_http(url, "wrong-key"):
                pass
        tg.cancel_scope.cancel()


async def test_an_unreachable_mcp_server_fails_at_open():
    url = f"http://127.0.0.1:{free_port()}/mcp"
    with anyio.fail_after(30), pytest.raises(ConfigError, match="cannot use the MCP server"):
        async with open_over_http(url, "k", timeout=5):
            pass


def test_chat_messages_round_trip_through_json_losslessly():
    messages = [
        ChatMessage.user("red boots?"),
        ChatMessage(
            role="model",
            parts=[
                TextPart("Let me look."),
                FunctionCall("product-semantic-search", {"query": "boots", "filters": {"colors": ["red"]}}, id="c1"),
            ],
            provider_state={"provider": "gemini", "parts": [{"thought_signature": "c2lnbmF0dXJl"}]},
            usage=Usage(120, 8),
        ),
    ]
    assert messages_decoder.decode(message_encoder.encode(messages)) == messages
