"""Tool gateways over MCP (the official client), in process or over Streamable HTTP."""
