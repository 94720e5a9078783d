"""uvicorn embedded as an actor.

We own the process's signals, so uvicorn must not install handlers; we bind the socket
ourselves, so "port in use" is an ordinary `ListenError` and not uvicorn's `sys.exit`;
and on cancellation the server drains: it stops accepting, lets in-flight requests finish
within the grace period, runs the app's lifespan shutdown, and only then do we return.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import socket
import time
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import uvicorn
from anyio.abc import TaskStatus
from starlette.types import ASGIApp

from shopagent.runtime.connections import ConnectionLimits, guarded_protocol, quiet_accept_errors

log = logging.getLogger("shopagent.asgi")

# The kernel's queue of connections not yet accepted.
LISTEN_QUEUE = 2048
# Connections accepted in one turn of the event loop. asyncio accepts up to its `backlog` in a
# row before any of them reaches the protocol (where the connection cap acts), so a flood would
# open that many files at once; uvicorn passes `backlog` to both listen() and the accept loop,
# so the server is started with this one and the socket's queue set back to LISTEN_QUEUE.
# Small, so that a flood of connections is taken in turns with the requests being answered (with
# 16 a chat turn took up to 1.4 s under 2,000 new sockets, with 4 up to 0.3 s: bench/connections.py),
# and so that asyncio's retries after a failed accept (one per batch slot) stay few.
ACCEPT_BATCH = 4
_access = logging.getLogger("shopagent.access")


class ListenError(OSError):
    """The server could not bind its address (in use, not permitted, unknown host)."""


class ServerError(RuntimeError):
    """The server stopped on its own or its app failed to start."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_free(host: str, port: int, *, what: str = "server") -> None:
    """Raise ListenError now if host:port cannot be listened on (in use, unknown host), so
    that start-up fails before anything else is started; port 0 is always free."""
    if port:
        bind_tcp(host, port, what=what).close()


def bind_tcp(host: str, port: int, *, what: str = "server") -> socket.socket:
    """Bind and listen on host:port; port 0 picks a free port (see `sock.getsockname()`)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise ListenError(f"{what}: cannot resolve host {host!r}: {exc.strerror}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(LISTEN_QUEUE)
    except OSError as exc:
        sock.close()
        hint = " (another process is listening there; change the port)" if exc.errno == 98 else ""
        raise ListenError(f"{what}: cannot listen on {host}:{port}: {exc.strerror}{hint}") from None
    sock.setblocking(False)
    return sock


class _EmbeddedServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.changed = anyio.Event()  # set once started, or once serve() has ended
        self._exit_requested = anyio.Event()

    def request_exit(self) -> None:
        self.should_exit = True
        self._exit_requested.set()

    async def main_loop(self) -> None:
        # uvicorn's loop looks at should_exit every 0.1 s; here a stop request wakes it at once.
        counter = 0
        while not await self.on_tick(counter):
            counter = (counter + 1) % 864000
            with anyio.move_on_after(0.1):
                await self._exit_requested.wait()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        for sock in sockets or ():
            sock.listen(LISTEN_QUEUE)  # asyncio set it to ACCEPT_BATCH; see there
        self.changed.set()

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        # The process's signal handling belongs to shopagent, not to one of its servers.
        yield


class AccessLog:
    """One log line per request on `shopagent.access`: server, method, path, status, time."""

    def __init__(self, app: ASGIApp, server: str) -> None:
        self._app = app
        self._server = server

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        began = time.perf_counter()
        status = [499]  # nothing answered and nothing raised: the client went away (nginx's 499)

        async def sending(message: Any) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        try:
            await self._app(scope, receive, sending)
        except Exception:
            if status[0] == 499:
                status[0] = 500  # what the server answers for it
            raise
        finally:
            query = scope.get("query_string", b"").decode("latin-1")
            path = scope.get("path", "") + (f"?{query}" if query else "")
            client = scope.get("client") or ("-", 0)
            _access.info("%s %s %s %s %d %.1fms", self._server, client[0], scope["method"], path, status[0],
                         (time.perf_counter() - began) * 1000)  # fmt: skip


async def serve_asgi(
    app: ASGIApp,
    sock: socket.socket,
    *,
    name: str,
    grace_seconds: float,
    access_log: bool = False,
    limits: ConnectionLimits | None = None,
    on_closed: Callable[[str], None] | None = None,
    task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Serve `app` on an already bound socket until cancelled, then drain gracefully.

    Connections are bounded by `limits` (see runtime/connections.py; defaults when None), and
    each one those rules close is reported to `on_closed(reason)`.
    Reports ready once the app's lifespan startup has completed and the socket accepts.
    Raises ServerError if the app's startup fails or the server stops on its own.
    """
    limits = limits or ConnectionLimits(max_connections=0)
    quiet_accept_errors(asyncio.get_running_loop())
    # uvicorn's own access log is one logger for the whole process (and each Config resets it),
    # so requests are logged here, per server, by AccessLog.
    config = uvicorn.Config(
        AccessLog(app, name) if access_log else app,
        lifespan="auto",
        log_config=None,
        access_log=False,
        # uvicorn annotates this as int but uses it as an asyncio timeout: fractions work.
        timeout_graceful_shutdown=max(grace_seconds - 0.5, 0.1),  # type: ignore[arg-type]
        server_header=False,
        backlog=ACCEPT_BATCH,
        ws="none",  # no app here speaks WebSocket; an upgrade would leave the connection bounds
        http=guarded_protocol(limits, on_closed or (lambda reason: None)),
        timeout_keep_alive=limits.keep_alive_seconds,  # type: ignore[arg-type]  # a float works, as above
    )
    server = _EmbeddedServer(config)
    stopped = anyio.Event()
    failure: list[BaseException] = []
    host, port = sock.getsockname()[:2]

    async def serve() -> None:
        try:
            await server.serve(sockets=[sock])
        except SystemExit:
            # uvicorn exits the process when the app's lifespan startup fails.
            failure.append(ServerError(f"{name}: the application failed to start (see the log)"))
        except Exception as exc:
            failure.append(exc)
        finally:
            stopped.set()
            server.changed.set()

    async with anyio.create_task_group() as tg:
        # Shielded: the server is stopped by should_exit (a drain), never by cancellation.
        serve_scope = anyio.CancelScope(shield=True)

        async def run_shielded() -> None:
            with serve_scope:
                await serve()

        tg.start_soon(run_shielded)
        try:
            await server.changed.wait()
            if not stopped.is_set():
                log.info("%s listening on http://%s:%s", name, host, port)
                task_status.started()
                await stopped.wait()
        finally:
            with anyio.CancelScope(shield=True):
                server.request_exit()
                with anyio.move_on_after(grace_seconds):
                    await stopped.wait()
                if not stopped.is_set():
                    log.warning("%s: grace period of %.1fs over, closing connections", name, grace_seconds)
                    server.force_exit = True
                    serve_scope.cancel()
            sock.close()
            log.info("%s stopped", name)
    # Only reached when the server ended by itself, not when we were cancelled.
    if failure:
        raise failure[0]
    raise ServerError(f"{name}: server stopped {'unexpectedly' if server.started else 'during startup'}")
