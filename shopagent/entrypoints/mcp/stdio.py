"""`shopagent mcp stdio`: the MCP server over stdin/stdout, for clients that start it themselves.

Two things the SDK's stdio transport leaves to us:

- stdin is read by a daemon thread, so a stop (SIGTERM, SIGINT, or the end of input) never
  waits on a blocked read: the caller's cancellation ends serving at once, and the process
  can stop its embedded PostgreSQL and exit.
- a line that is not a JSON-RPC message gets a JSON-RPC parse error (-32700, id null) on
  stdout, as JSON-RPC 2.0 asks, and a warning on stderr; the SDK would drop it silently.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

import anyio
import mcp.types as types
from anyio.lowlevel import current_token
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

log = logging.getLogger("shopagent.mcp")


async def serve_stdio(server: Server[Any]) -> None:
    """Serve `server` on stdin/stdout until the input ends or the caller cancels."""
    async with stdio_server(stdin=_DaemonLines()) as (read, write), anyio.create_task_group() as tg:  # type: ignore[arg-type]
        send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)

        async def forward() -> None:
            async with send:
                async for item in read:
                    if isinstance(item, Exception):
                        log.warning("stdin: a line that is not a JSON-RPC message was answered with a parse error")
                        error = types.ErrorData(code=types.PARSE_ERROR, message="Parse error: not a JSON-RPC message")
                        await write.send(SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=None, error=error)))
                    else:
                        await send.send(item)

        tg.start_soon(forward)
        await server.run(receive, write, server.create_initialization_options())
        tg.cancel_scope.cancel()


class _DaemonLines:
    """The lines of stdin as an async iterator, read by a daemon thread (never joined)."""

    def __init__(self) -> None:
        self._send, self._receive = anyio.create_memory_object_stream[str | None](16)
        token = current_token()
        stream = open(os.dup(0), encoding="utf-8", errors="replace", closefd=True)  # noqa: SIM115 - the thread owns it

        def reader() -> None:
            try:
                with stream:
                    for line in stream:
                        anyio.from_thread.run(self._send.send, line, token=token)
                anyio.from_thread.run(self._send.send, None, token=token)
            except (RuntimeError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                return  # serving ended (the event loop is gone): nobody is reading any more

        threading.Thread(target=reader, name="mcp-stdin", daemon=True).start()

    def __aiter__(self) -> _DaemonLines:
        return self

    async def __anext__(self) -> str:
        line = await self._receive.receive()
        if line is None:
            raise StopAsyncIteration
        return line
