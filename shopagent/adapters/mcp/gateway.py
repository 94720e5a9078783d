"""McpToolGateway: the agent's tools, served by an MCP server, through the official client.

In process (`Client(server)`: the same server object, no socket) for role `all`, or over
Streamable HTTP with the bearer key when the chat role talks to a separate mcp instance.
Opening lists the tools at once, so a wrong URL or key fails at start-up, not on the first
customer message. `safe_call` never raises: an unknown tool, arguments that are not an
object, a transport failure or a tool error all become results the model can read; over
HTTP each request has a session of its own, so the server may restart at any time.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import httpx2
import mcp.types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from shopagent.domain.chat import ToolResult, ToolSpec
from shopagent.domain.errors import ConfigError
from shopagent.runtime.retry import Backoff

log = logging.getLogger("shopagent.tools")


class McpToolGateway:
    """The tools of one MCP server. In process it keeps one session; over HTTP it opens a short
    session per request (the server is stateless), so a server that goes away and comes back
    costs the calls made meanwhile, never the gateway: nothing of a broken connection outlives
    the request that met it. Failed calls are retried with a bounded backoff; the tool list is
    read again after a failure, and the last good one is used while the server is away."""

    def __init__(
        self,
        *,
        where: str,
        client: Client | None = None,
        connect: Callable[[], Any] | None = None,
        attempts: int = 3,
        backoff_seconds: float = 0.25,
        backoff_max_seconds: float = 2.0,
    ) -> None:
        assert (client is None) != (connect is None), "a session or a way to open one"
        self._client = client
        self._connect = connect
        self._where = where
        self._attempts = attempts if client is None else 1
        self._retry = Backoff(base=backoff_seconds, cap=backoff_max_seconds, attempts=self._attempts)
        self._tools: list[ToolSpec] | None = None
        self._stale = True
        self.last_error: str | None = None  # why the server could not be reached, until it can
        self._checked_at = -1e9
        self._check_lock = anyio.Lock()

    @contextlib.asynccontextmanager
    async def _session(self) -> AsyncIterator[Client]:
        if self._client is not None:
            yield self._client
            return
        assert self._connect is not None
        async with Client(self._connect()) as client:
            yield client

    async def check(self, *, every_seconds: float = 1.0, timeout: float = 3.0) -> bool:
        """Whether the server answers (lists its tools): asked at most every `every_seconds`,
        the last answer given in between. For readiness reports."""
        async with self._check_lock:
            if anyio.current_time() - self._checked_at >= every_seconds:
                self._stale = True
                with anyio.move_on_after(timeout) as waiting, contextlib.suppress(Exception):
                    await self.list_tools()  # records the failure, if any, in last_error
                if waiting.cancelled_caught:
                    self.last_error = f"no answer within {timeout:g}s"
                self._checked_at = anyio.current_time()
            return self.last_error is None

    async def list_tools(self) -> list[ToolSpec]:
        if self._tools is not None and not self._stale:
            return self._tools
        try:
            async with self._session() as client:
                listed = await client.list_tools()
        except Exception as exc:
            self.last_error = _reason(exc)
            if self._tools is None:
                raise
            log.warning("the tools at %s could not be listed again; using the last list", self._where)
            return self._tools
        self.last_error = None
        self._tools = [
            ToolSpec(name=t.name, description=t.description or "", parameters=dict(t.input_schema))
            for t in listed.tools
        ]
        self._stale = False
        return self._tools

    async def safe_call(self, name: str, args: Any) -> ToolResult:
        if not isinstance(args, dict):
            return ToolResult(
                is_error=True, text=f"arguments of {name} must be a JSON object, got {type(args).__name__}"
            )
        known = [t.name for t in await self.list_tools()]
        if name not in known:
            return ToolResult(is_error=True, text=f"there is no tool {name!r}; the tools are {', '.join(known)}")
        for attempt in range(1, self._attempts + 1):
            try:
                async with self._session() as client:
                    result = await client.call_tool(name, args)
                break
            except MCPError as exc:  # the server answered, with a protocol error: no retry helps
                return ToolResult(is_error=True, text=f"the tool {name} refused the call: {exc.message}")
            except Exception as exc:  # transport failure (the server is away?): retry, then report
                self._stale = True  # list the tools again once it is back
                self.last_error = _reason(exc)
                if attempt == self._attempts:
                    log.warning("tool %s at %s failed %d time(s): %s", name, self._where, attempt, _reason(exc))
                    return ToolResult(is_error=True, text=f"the tool {name} could not be reached; try again later")
                await self._retry.wait(attempt)
        self.last_error = None
        text = "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))
        structured = result.structured_content if not result.is_error else None
        return ToolResult(is_error=bool(result.is_error), text=text, structured=structured)

    async def close(self) -> None:
        """The client is closed by the context manager that opened the gateway."""


@contextlib.asynccontextmanager
async def open_in_process(server: Server[Any]) -> AsyncIterator[McpToolGateway]:
    async with Client(server) as client:
        gateway = McpToolGateway(client=client, where="in process")
        await gateway.list_tools()
        yield gateway


@contextlib.asynccontextmanager
async def open_over_http(url: str, key: str | None, *, timeout: float = 30.0) -> AsyncIterator[McpToolGateway]:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    async with httpx2.AsyncClient(headers=headers, timeout=timeout) as http:
        gateway = McpToolGateway(connect=lambda: streamable_http_client(url, http_client=http), where=url)
        try:
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
