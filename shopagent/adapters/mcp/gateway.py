"""McpToolGateway: the agent's tools, served by an MCP server, through the official client.

In process (`Client(server)`: the same server object, no socket) for role `all`, or over
Streamable HTTP with the bearer key when the chat role talks to a separate mcp instance.
Opening lists the tools at once, so a wrong URL or key fails at start-up, not on the first
customer message. `safe_call` never raises: an unknown tool, arguments that are not an
object, a transport failure or a tool error all become results the model can read; over
HTTP one session serves every call and is replaced after a transport failure, so the server
may restart at any time. A call the server turns away (429, 5xx) leaves the session alone:
the calls in flight on it go on. A 429 is waited out (its Retry-After) below the session, so
the turn's own deadline is what bounds it.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import math
import sys
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import httpx2
import mcp.types as types
from anyio.abc import TaskStatus
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from shopagent.application.limits import OWN_CHAT_CLIENT, OWN_CHAT_HEADER
from shopagent.domain.chat import ToolResult, ToolSpec
from shopagent.domain.errors import ConfigError
from shopagent.runtime.retry import Backoff, Retryable, retrying

log = logging.getLogger("shopagent.tools")


class HttpSessions:
    """One MCP client session over HTTP for every call, opened and closed by a task of its own
    (an anyio scope must be left by the task that entered it: not a chat turn's), and replaced
    once a call meets a transport failure.

    The server is stateless, so a session holds only what the client learnt: the discovery,
    the tool list and the compiled validators of the output schemas. A session per call paid
    all three again on every call: 14-16 ms against 2.3-2.8 ms for a details call on loopback."""

    def __init__(self, connect: Callable[[], Any], open_timeout: float) -> None:
        self._connect = connect
        self._open_timeout = open_timeout
        self._client: Client | None = None
        self._discarded = anyio.Event()
        self._lock = anyio.Lock()
        self._asks, self._asked = anyio.create_memory_object_stream[_Opening](0)

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Open a session when one is asked for and hold it until it is discarded or breaks."""
        task_status.started()
        async with self._asks, self._asked:
            async for opening in self._asked:
                try:
                    async with Client(self._connect()) as client:
                        self._client = client
                        opening.done(client)
                        await self._discarded.wait()
                except Exception as exc:  # it could not be opened, or it broke while held
                    opening.done(exc)
                finally:
                    self._client, self._discarded = None, anyio.Event()

    async def client(self) -> Client:
        """The session, opened first if there is none (raises what opening it raised)."""
        if (client := self._client) is not None:
            return client
        async with self._lock:
            if (client := self._client) is not None:
                return client
            opening = _Opening()
            with anyio.fail_after(self._open_timeout):
                await self._asks.send(opening)
                await opening.finished.wait()
            if isinstance(opening.outcome, Exception):
                raise opening.outcome
            assert opening.outcome is not None
            return opening.outcome

    def discard(self, client: Client) -> None:
        """`client` met a transport failure: the next call opens a new session."""
        if client is self._client:
            self._client = None
            self._discarded.set()


class _Opening:
    def __init__(self) -> None:
        self.finished = anyio.Event()
        self.outcome: Client | Exception | None = None

    def done(self, outcome: Client | Exception) -> None:
        if not self.finished.is_set():
            self.outcome = outcome
            self.finished.set()


class PatientTransport(httpx2.AsyncBaseTransport):
    """Sends a request turned away with 429 again after its Retry-After (at most `max_wait`
    seconds each time), for as long as the caller waits: a chat turn has its own deadline. Below
    the MCP session, so a throttled call is just a slower one."""

    def __init__(self, inner: httpx2.AsyncBaseTransport, *, max_wait: float = 10.0) -> None:
        self._inner = inner
        # No budget of attempts: the caller's deadline ends the waiting (see above).
        self._patience = Backoff(base=max_wait, cap=max_wait, jitter=0, attempts=sys.maxsize)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        return await retrying(self._patience, functools.partial(self._attempt, request), on_retry=_log_throttled)

    async def _attempt(self, request: httpx2.Request) -> httpx2.Response:
        response = await self._inner.handle_async_request(request)
        if response.status_code != 429:
            return response
        await response.aclose()
        raise Retryable("429", hint=_retry_after(response.headers.get("retry-after")))

    async def aclose(self) -> None:
        await self._inner.aclose()


def _log_throttled(failure: Retryable, delay: float) -> None:
    log.debug("the MCP server asked to wait %.1fs (429); waiting", delay)


def _retry_after(header: str | None) -> float:
    """The server's Retry-After in seconds: a second without one, at least 0.05 (no busy loop)."""
    try:
        seconds = float(header) if header else 1.0
    except ValueError:
        seconds = 1.0
    return max(seconds, 0.05) if math.isfinite(seconds) else 1.0


class McpToolGateway:
    """The tools of one MCP server, through one client session (in process, or over HTTP held by
    `HttpSessions`): a server that goes away and comes back costs the calls made meanwhile,
    never the gateway, since a session that met a transport failure is replaced. Failed calls
    are retried with a bounded backoff; the tool list is read again after a failure, and the
    last good one is used while the server is away."""

    def __init__(
        self,
        *,
        where: str,
        client: Client | None = None,
        sessions: HttpSessions | None = None,
        attempts: int = 3,
        backoff_seconds: float = 0.25,
        backoff_max_seconds: float = 2.0,
    ) -> None:
        assert (client is None) != (sessions is None), "a session or a way to open one"
        self._client = client
        self._sessions = sessions
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
        """The session for one request; discarded if the request fails but for a protocol error."""
        if self._client is not None:
            yield self._client
            return
        assert self._sessions is not None
        client = await self._sessions.client()
        try:
            yield client
        except Exception as exc:
            if _broken(exc):  # not for an answer that refused one call: others are in flight on it
                self._sessions.discard(client)
            raise

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
        try:
            result = await retrying(self._retry, functools.partial(self._call, name, args))
        except MCPError as exc:  # the server answered, with a protocol error: no retry helps
            return ToolResult(is_error=True, text=f"the tool {name} refused the call: {exc.message}")
        except Retryable as failure:
            log.warning("tool %s at %s failed %d time(s): %s", name, self._where, self._attempts, failure.problem)
            return ToolResult(is_error=True, text=f"the tool {name} could not be reached; try again later")
        self.last_error = None
        text = "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))
        structured = result.structured_content if not result.is_error else None
        return ToolResult(is_error=bool(result.is_error), text=text, structured=structured)

    async def _call(self, name: str, args: dict[str, Any]) -> types.CallToolResult:
        """One call; `Retryable` for a transport failure (the server is away?). The tool list
        stays: listing it again would spend the same budget (readiness checks do)."""
        try:
            async with self._session() as client:
                return await client.call_tool(name, args)
        except Exception as exc:
            if _refused(exc):
                raise
            self.last_error = _reason(exc)
            raise Retryable(self.last_error) from exc


@contextlib.asynccontextmanager
async def open_in_process(server: Server[Any]) -> AsyncIterator[McpToolGateway]:
    async with Client(server) as client:
        gateway = McpToolGateway(client=client, where="in process")
        await gateway.list_tools()
        yield gateway


@contextlib.asynccontextmanager
async def open_over_http(url: str, key: str | None, *, timeout: float = 30.0) -> AsyncIterator[McpToolGateway]:
    headers = {OWN_CHAT_HEADER: OWN_CHAT_CLIENT} | ({"Authorization": f"Bearer {key}"} if key else {})
    transport = PatientTransport(httpx2.AsyncHTTPTransport())
    try:
        async with (
            httpx2.AsyncClient(headers=headers, timeout=timeout, transport=transport) as http,
            anyio.create_task_group() as tg,
        ):
            sessions = HttpSessions(lambda: streamable_http_client(url, http_client=http), open_timeout=timeout)
            await tg.start(sessions.run)
            gateway = McpToolGateway(sessions=sessions, where=url)
            try:
                await gateway.list_tools()
            except Exception as exc:
                raise ConfigError(
                    f"cannot use the MCP server at {url}: {_reason(exc)} (check chat.mcp_url and SHOPAGENT_MCP_API_KEY)"
                ) from None
            yield gateway
            tg.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        # The session task reports its failures to the callers and never raises, so a group
        # holds the error of the code using the gateway: raise it as it was raised.
        if len(group.exceptions) == 1:
            raise group.exceptions[0] from None
        raise


# What the client reports as a protocol error when the exchange itself failed: the
# connection closed, an HTTP error status without a JSON-RPC body, no answer in time.
_TRANSPORT_CODES = frozenset({types.CONNECTION_CLOSED, types.INTERNAL_ERROR, types.REQUEST_TIMEOUT})


def _broken(exc: Exception) -> bool:
    """The session itself failed (its connection closed, or something below the protocol), as
    opposed to one request answered with an error status or not answered in time."""
    return not isinstance(exc, MCPError) or exc.error.code == types.CONNECTION_CLOSED


def _refused(exc: Exception) -> bool:
    """The server answered the request with a protocol error (the exchange itself worked)."""
    return isinstance(exc, MCPError) and exc.error.code not in _TRANSPORT_CODES


def _reason(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
