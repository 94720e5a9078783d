"""McpToolGateway: the agent's tools, served by an MCP server, through the official client.

In process (`Client(server)`: the same server object, no socket) for role `all`, or over
Streamable HTTP with the bearer key when the chat role talks to a separate mcp instance.
`open()` lists the tools at once, so a wrong URL or key fails at start-up, not on the first
customer message. `safe_call` never raises: an unknown tool, arguments that are not an
object, a transport failure or a tool error all become results the model can read.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import mcp.types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.lowlevel import Server

from shopagent.domain.chat import ToolResult, ToolSpec
from shopagent.domain.errors import ConfigError

log = logging.getLogger("shopagent.tools")


class McpToolGateway:
    def __init__(self, client: Client, *, where: str) -> None:
        self._client = client
        self._where = where
        self._tools: list[ToolSpec] | None = None

    async def list_tools(self) -> list[ToolSpec]:
        if self._tools is None:
            listed = await self._client.list_tools()
            self._tools = [
                ToolSpec(name=t.name, description=t.description or "", parameters=dict(t.input_schema))
                for t in listed.tools
            ]
        return self._tools

    async def safe_call(self, name: str, args: Any) -> ToolResult:
        if not isinstance(args, dict):
            return ToolResult(
                is_error=True, text=f"arguments of {name} must be a JSON object, got {type(args).__name__}"
            )
        known = [t.name for t in await self.list_tools()]
        if name not in known:
            return ToolResult(is_error=True, text=f"there is no tool {name!r}; the tools are {', '.join(known)}")
        try:
            result = await self._client.call_tool(name, args)
        except Exception as exc:  # transport or protocol failure: the model can still answer
            log.warning("tool %s at %s failed: %s", name, self._where, exc)
            return ToolResult(is_error=True, text=f"the tool {name} could not be reached; try again later")
        text = "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))
        structured = result.structured_content if not result.is_error else None
        return ToolResult(is_error=bool(result.is_error), text=text, structured=structured)

    async def close(self) -> None:
        """The client is closed by the context manager that opened the gateway."""


@contextlib.asynccontextmanager
async def open_in_process(server: Server[Any]) -> AsyncIterator[McpToolGateway]:
    async with Client(server) as client:
        gateway = McpToolGateway(client, where="in process")
        await gateway.list_tools()
        yield gateway


@contextlib.asynccontextmanager
async def open_over_http(url: str, key: str | None, *, timeout: float = 30.0) -> AsyncIterator[McpToolGateway]:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    async with contextlib.AsyncExitStack() as stack:
        http = await stack.enter_async_context(httpx2.AsyncClient(headers=headers, timeout=timeout))
        try:
            client = await stack.enter_async_context(Client(streamable_http_client(url, http_client=http)))
            gateway = McpToolGateway(client, where=url)
            await gateway.list_tools()
        except Exception as exc:
            raise ConfigError(
                f"cannot use the MCP server at {url}: {_reason(exc)} (check chat.mcp_url and SHOPAGENT_MCP_API_KEY)"
            ) from None
        yield gateway


def _reason(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
