"""Driving side: protocol <-> use case translation (HTTP, MCP, REPL)."""
