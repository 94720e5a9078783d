"""`shopagent mcp stdio`: the MCP server over stdin/stdout, for clients that start it themselves.

Two things the SDK's stdio transport leaves to us:

- stdin is read by a daemon thread, so a stop (SIGTERM, SIGINT, or the end of input) never
  waits on a blocked read: the caller's cancellation ends serving at once, and the process
  can stop its embedded PostgreSQL and exit.
- a line that is not a JSON-RPC message the SDK takes gets a JSON-RPC error on stdout, as
  JSON-RPC 2.0 asks, and a warning on stderr; the SDK would drop it silently, and a client would
  wait for its timeout. The error carries the request's id whenever the line gives it away
  (see stdio_errors.py): -32600 for JSON the SDK refuses (a lone surrogate escape), -32700 for
  a line that is not JSON (id null unless the id came before the break).
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

import anyio
import mcp.types as types
from anyio.lowlevel import current_token
from anyio.streams.memory import MemoryObjectSendStream
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from shopagent.entrypoints.mcp.stdio_errors import error_for_line

log = logging.getLogger("shopagent.mcp")


async def serve_stdio(server: Server[Any]) -> None:
    """Serve `server` on stdin/stdout until the input ends or the caller cancels."""
    refused_send, refused = anyio.create_memory_object_stream[types.JSONRPCError](16)
    lines = _DaemonLines(refused_send)
    async with stdio_server(stdin=lines) as (read, write), anyio.create_task_group() as tg:  # type: ignore[arg-type]
        send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)

        async def forward() -> None:
            async with send:
                async for item in read:
                    if isinstance(item, Exception):  # lines are checked before the SDK reads them
                        await write.send(SessionMessage(error_for_line("")))  # so only in case
                    else:
                        await send.send(item)

        async def answer_refused() -> None:
            async with refused:
                async for error in refused:
                    log.warning("stdin: a line that is not a JSON-RPC message was answered with error %d (id %s)",
                                error.error.code, error.id)  # fmt: skip
                    await write.send(SessionMessage(error))

        tg.start_soon(forward)
        tg.start_soon(answer_refused)
        await server.run(receive, write, server.create_initialization_options())
        tg.cancel_scope.cancel()


class _DaemonLines:
    """The lines of stdin as an async iterator, read by a daemon thread (never joined). A line
    that is not a message the SDK takes is not handed on: its error goes to `refused`."""

    def __init__(self, refused: MemoryObjectSendStream[types.JSONRPCError]) -> None:
        self._refused = refused
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
        while True:
            line = await self._receive.receive()
            if line is None:
                self._refused.close()
                raise StopAsyncIteration
            try:
                types.jsonrpc_message_adapter.validate_json(line, by_name=False)
            except ValueError:
                await self._refused.send(error_for_line(line))
                continue
            return line
