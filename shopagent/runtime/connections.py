"""Bounded connections for the embedded uvicorn servers.

uvicorn bounds an idle keep-alive connection (`timeout_keep_alive`) but not a connection that
never finishes its request line and headers, nor a request body that trickles in, and its
`limit_concurrency` answers 503 only once a request's headers are complete (a socket that
sends nothing is never refused). So each server gets this subclass of uvicorn's httptools
protocol, passed as `Config(http=...)` (uvicorn's extension point for the protocol class). It
overrides only asyncio's protocol methods and httptools' parser callbacks, and adds:

- a header timeout: from the connection (or a request's first byte) to the end of its headers;
  past it a silent connection is closed, a started request gets 408;
- a body timeout: from the end of the headers to the end of the body (the whole body, so a
  body sent a byte at a time is bounded too); past it 408, and the app reads a disconnect;
- a cap on the connections of the server. At the cap a new connection takes the place of the
  oldest one that is not being answered (waiting for a request, or for its body), so idle and
  slow sockets cannot lock out a client that sends its request at once (sockets that have never
  had an answer go first, then connections idle between requests); when every connection is
  being answered, the new one gets a fast 503 and is closed.

Each connection closed by these rules is counted by reason (`observe`).
"""

from __future__ import annotations

import asyncio
import logging
import resource
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

log = logging.getLogger("shopagent.asgi")

# Connections refused at the cap wait this long for their request before the 503 is written,
# so that closing them does not reset the connection before the client has read the answer.
REFUSE_LINGER_SECONDS = 0.5
# At most this many refused connections linger at once; past it they are closed at once.
MAX_LINGERING = 16
# File descriptors left for everything else (database pool, log files, the other servers' caps).
RESERVED_FILES = 200


def _closing_answer(status: bytes, code: str, message: str, extra: bytes = b"") -> bytes:
    body = b'{"error": {"code": "%s", "message": "%s"}}' % (code.encode(), message.encode())
    head = b"HTTP/1.1 %s\r\ncontent-type: application/json\r\nconnection: close\r\n%scontent-length: %d\r\n\r\n"
    return head % (status, extra, len(body)) + body


_TIMEOUT = _closing_answer(b"408 Request Timeout", "request_timeout", "the request was not received in time")
_BUSY = _closing_answer(
    b"503 Service Unavailable", "over_capacity", "the server is at its connection limit; try again",
    b"retry-after: 1\r\n",
)  # fmt: skip


def open_file_limit() -> int:
    """The process's soft limit on open files."""
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def raise_open_file_limit() -> int:
    """Raise the soft open-file limit to the hard one (what a server is allowed); the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (OSError, ValueError):
            return soft
        return hard
    return soft


def default_max_connections(files: int | None = None) -> int:
    """The cap of a public server when none is set: two fifths of the open files left after
    `RESERVED_FILES`, so the HTTP and MCP servers at their caps still leave room for the ops
    server and the database; at least 32, at most 10,000."""
    files = open_file_limit() if files is None else files
    return max(32, min(10_000, (files - RESERVED_FILES) * 2 // 5))


@dataclass(frozen=True, kw_only=True)
class ConnectionLimits:
    max_connections: int  # 0: default_max_connections()
    header_timeout_seconds: float = 5.0
    body_timeout_seconds: float = 10.0
    keep_alive_seconds: float = 5.0

    def cap(self) -> int:
        return self.max_connections or default_max_connections()


@dataclass
class _Registry:
    """The connections of one server, oldest first, and the refused ones lingering."""

    cap: int
    observe: Callable[[str], None]
    open: dict[GuardedProtocol, None] = field(default_factory=dict)
    lingering: int = 0

    def evictable(self) -> GuardedProtocol | None:
        """The oldest connection not being answered that has never had an answer, else the oldest
        idle one between requests: a client whose earlier request was answered keeps its
        connection longer than a socket that has not yet sent one."""
        between_requests = None
        for connection in self.open:
            if not connection.answering:
                if not connection.served:
                    return connection
                between_requests = between_requests or connection
        return between_requests


def guarded_protocol(limits: ConnectionLimits, observe: Callable[[str], None]) -> type[GuardedProtocol]:
    """The protocol class for `Config(http=...)`: one per server, its connections counted together.
    `observe(reason)` is called for each connection these rules close: "header_timeout",
    "body_timeout", "evicted" (its place taken at the cap), "over_capacity" (refused)."""
    registry = _Registry(limits.cap(), observe)

    class Protocol(GuardedProtocol):
        _limits = limits
        _registry = registry

    return Protocol


class GuardedProtocol(HttpToolsProtocol):
    _limits: ConnectionLimits
    _registry: _Registry

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.answering = False  # a request's body is complete and its response is not
        self.served = False  # a response has been completed on this connection
        self._refused = False
        self._started = False  # a byte of the current request has arrived
        self._timer: asyncio.TimerHandle | None = None

    # asyncio.Protocol

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        registry = self._registry
        if len(registry.open) >= registry.cap:
            oldest = registry.evictable()
            if oldest is None:
                self._refuse(transport)
                return
            oldest.close_for("evicted")
        registry.open[self] = None
        super().connection_made(transport)
        self._arm(self._limits.header_timeout_seconds, "header_timeout")

    def data_received(self, data: bytes) -> None:
        if self._refused:
            self._answer_busy()
            return
        super().data_received(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._refused:
            self._answer_busy()  # a no-op once written; frees the lingering slot
            return
        self._registry.open.pop(self, None)
        super().connection_lost(exc)

    # httptools' parser callbacks

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._started = True
        self._arm(self._limits.header_timeout_seconds, "header_timeout")

    def on_headers_complete(self) -> None:
        super().on_headers_complete()
        self._arm(self._limits.body_timeout_seconds, "body_timeout")

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._disarm()
        self.answering = True

    def on_response_complete(self) -> None:
        self.answering = False
        self.served = True
        self._started = False
        super().on_response_complete()  # arms uvicorn's keep-alive timeout

    # the rules

    def close_for(self, reason: str) -> None:
        """Close this connection (408 if a request had started and has no answer yet)."""
        self._disarm()
        self._registry.open.pop(self, None)  # its place is free now, not once the socket is gone
        if self.transport.is_closing():
            return
        self._registry.observe(reason)
        cycle = self.cycle
        unanswered = cycle is None or cycle.response_complete or not cycle.response_started
        if cycle is not None and not cycle.response_complete:
            cycle.disconnected = True  # the app reads a disconnect; what it sends is dropped
            cycle.message_event.set()
        if self._started and unanswered:
            self.transport.write(_TIMEOUT)
        self.transport.close()

    def _arm(self, seconds: float, reason: str) -> None:
        self._disarm()
        self._timer = self.loop.call_later(seconds, self.close_for, reason)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _refuse(self, transport: asyncio.Transport) -> None:
        self.transport = transport
        self._registry.observe("over_capacity")
        if self._registry.lingering >= MAX_LINGERING:
            transport.close()
            return
        self._refused = True
        self._registry.lingering += 1
        self._timer = self.loop.call_later(REFUSE_LINGER_SECONDS, self._answer_busy)

    def _answer_busy(self) -> None:
        if not self._refused:
            return
        self._refused = False  # once
        self._disarm()
        self._registry.lingering -= 1
        if not self.transport.is_closing():
            self.transport.write(_BUSY)
            self.transport.close()


class AcceptErrorLog:
    """The event loop's exception handler, quiet about failed accepts.

    When the process is out of file descriptors, asyncio logs every failed accept (with a
    traceback) and retries a second later, for each listening socket: a flood of log lines for
    one condition. This logs it once per `interval` seconds, with the count, and hands every
    other context to the handler it replaced.
    """

    def __init__(self, previous: Callable[[asyncio.AbstractEventLoop, dict[str, Any]], object] | None,
                 *, interval: float = 60.0) -> None:  # fmt: skip
        self._previous = previous
        self._interval = interval
        self._failures = 0
        self._next_line = 0.0

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if not str(context.get("message", "")).startswith("socket.accept() out of system resource"):
            if self._previous is None:
                loop.default_exception_handler(context)
            else:
                self._previous(loop, context)
            return
        self._failures += 1
        now = time.monotonic()
        if now >= self._next_line:
            log.error(
                "cannot accept connections: %s (%d failed accept(s) in the last %.0fs); raise the open-file "
                "limit or lower connections.max_per_server", context.get("exception"), self._failures,
                self._interval,
            )  # fmt: skip
            self._failures = 0
            self._next_line = now + self._interval


def quiet_accept_errors(loop: asyncio.AbstractEventLoop) -> None:
    """Install `AcceptErrorLog` on `loop` (once)."""
    current = loop.get_exception_handler()
    if not isinstance(current, AcceptErrorLog):
        loop.set_exception_handler(AcceptErrorLog(current))
