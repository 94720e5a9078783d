"""Builds the MCP server object. A fresh one per actor start: its session manager runs once."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

from shopagent import __version__


def build_mcp_server(store_name: str) -> MCPServer:
    return MCPServer(
        name="shopagent",
        title=f"{store_name} catalog",
        version=__version__,
        instructions=f"Catalog tools of {store_name}.",
    )
