"""The input schemas the MCP server advertises are ones every model server can compile: an MCP
client hands them to its model, and llama.cpp-based servers turn them into a grammar that
cannot hold a repetition of 2000 or more. The limits left out of them still hold in the tools."""

from __future__ import annotations

import pytest
from mcp import Client

from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.wiring.services import open_services
from shopagent.wiring.startup import INDEXER_ACTORS
from tests.fake_openai import grammar_refusals

pytestmark = pytest.mark.anyio


async def test_every_advertised_input_schema_compiles_under_llama_cpps_grammar_limits(settings):
    async with (
        open_services(settings, INDEXER_ACTORS | {"mcp"}, embedder=HashEmbedder()) as services,
        Client(services.mcp_server) as client,
    ):
        tools = (await client.list_tools()).tools
        too_long = await client.call_tool("product-semantic-search", {"query": "boots " * 400})
    assert {tool.name: grammar_refusals(tool.input_schema) for tool in tools} == {tool.name: [] for tool in tools}
    query = next(t for t in tools if t.name == "product-semantic-search").input_schema["properties"]["query"]
    assert "at most 2000 characters" in query["description"]
    # The limit is the tool's own, said to the model as a tool error it can act on.
    assert too_long.is_error
    assert "keep it under 2000" in too_long.content[0].text
