"""The MCP tool surface (official `mcp` SDK)."""
