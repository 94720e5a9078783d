"""Bounded connections: real sockets against serve_asgi (the server every role runs)."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
from collections import Counter
from collections.abc import AsyncIterator
from functools import partial

import anyio
import httpx
import pytest
from anyio.abc import SocketStream
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from shopagent.runtime.asgi import bind_tcp, serve_asgi
from shopagent.runtime.connections import AcceptErrorLog, ConnectionLimits, default_max_connections
from tests.helpers import wait_until

pytestmark = pytest.mark.anyio

LIMITS = ConnectionLimits(max_connections=4, header_timeout_seconds=0.5, body_timeout_seconds=0.5,
                          keep_alive_seconds=5)  # fmt: skip


class Served:
    def __init__(self, port: int) -> None:
        self.port = port
        self.closed: Counter[str] = Counter()
        self.release = anyio.Event()
        self.entered = 0
        self.bodies: list[str] = []
        self.streams: list[SocketStream] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def connect(self) -> SocketStream:
        stream = await anyio.connect_tcp("127.0.0.1", self.port)
        self.streams.append(stream)  # closed with the server
        return stream


@contextlib.asynccontextmanager
async def served(limits: ConnectionLimits = LIMITS) -> AsyncIterator[Served]:
    sock = bind_tcp("127.0.0.1", 0)
    state = Served(sock.getsockname()[1])

    async def fast(request: Request) -> PlainTextResponse:
        return PlainTextResponse("hello")

    async def slow(request: Request) -> PlainTextResponse:
        state.entered += 1
        await state.release.wait()
        return PlainTextResponse("finished")

    async def echo(request: Request) -> PlainTextResponse:
        body = await request.body()
        state.bodies.append(body.decode())
        return PlainTextResponse(body.decode())

    app = Starlette(routes=[Route("/fast", fast), Route("/slow", slow), Route("/echo", echo, methods=["POST"])])
    async with anyio.create_task_group() as tg:
        await tg.start(partial(serve_asgi, app, sock, name="test", grace_seconds=1, limits=limits,
                               on_closed=lambda reason: state.closed.update([reason])))  # fmt: skip
        try:
            yield state
        finally:
            state.release.set()
            for stream in state.streams:
                await stream.aclose()
            tg.cancel_scope.cancel()


async def read_all(stream: SocketStream) -> bytes:
    """Everything the server sends until it closes the connection."""
    received = b""
    with contextlib.suppress(anyio.EndOfStream, anyio.BrokenResourceError, ConnectionResetError):
        while True:
            received += await stream.receive()
    return received


async def test_a_connection_that_sends_nothing_is_closed_after_the_header_timeout():
    async with served() as server:
        stream = await server.connect()
        with anyio.fail_after(3):
            assert await read_all(stream) == b""  # closed, silently
        assert server.closed == {"header_timeout": 1}


async def test_headers_sent_a_byte_at_a_time_get_408_within_the_header_timeout():
    async with served() as server:
        stream = await server.connect()
        began = anyio.current_time()

        async def trickle() -> None:
            with contextlib.suppress(anyio.BrokenResourceError, OSError):
                for byte in b"GET /fast HTTP/1.1\r\nHost: a\r\nX-Slow: " + b"a" * 1000:
                    await stream.send(bytes([byte]))
                    await anyio.sleep(0.05)  # the slow client itself, not a synchronisation

        async with anyio.create_task_group() as tg:
            tg.start_soon(trickle)
            with anyio.fail_after(3):
                answer = await read_all(stream)
            tg.cancel_scope.cancel()
        assert answer.startswith(b"HTTP/1.1 408 ")
        assert b'"request_timeout"' in answer
        assert anyio.current_time() - began < 2


async def test_a_body_cut_short_gets_408_after_the_body_timeout_and_the_app_reads_no_body():
    async with served() as server:
        stream = await server.connect()
        await stream.send(b"POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 1000\r\n\r\n" + b"x" * 12)
        with anyio.fail_after(3):
            answer = await read_all(stream)
        assert answer.startswith(b"HTTP/1.1 408 ")
        assert server.closed == {"body_timeout": 1}
        assert server.bodies == []


async def test_an_idle_keep_alive_connection_is_closed():
    limits = ConnectionLimits(max_connections=4, header_timeout_seconds=5, keep_alive_seconds=0.3)
    async with served(limits) as server:
        stream = await server.connect()
        await stream.send(b"GET /fast HTTP/1.1\r\nHost: a\r\n\r\n")
        with anyio.fail_after(3):
            answer = await read_all(stream)
        assert answer.startswith(b"HTTP/1.1 200 ") and answer.endswith(b"hello")


async def test_at_the_cap_a_new_client_takes_the_place_of_the_oldest_idle_connection():
    async with served() as server:
        idle = [await server.connect() for _ in range(LIMITS.max_connections)]
        await idle[-1].send(b"GET /fast HTTP/1.1\r\n")  # started a request, no end of headers yet
        async with httpx.AsyncClient(timeout=5) as client:
            for _ in range(3):
                assert (await client.get(f"{server.url}/fast")).text == "hello"
        with anyio.fail_after(3):
            assert await read_all(idle[0]) == b""  # the oldest made room, silently
        assert server.closed["evicted"] >= 1


async def test_a_client_answered_before_keeps_its_connection_longer_than_sockets_that_sent_nothing():
    async with served() as server, httpx.AsyncClient(timeout=5) as client:
        assert (await client.get(f"{server.url}/fast")).text == "hello"  # its connection is kept alive
        for _ in range(LIMITS.max_connections + 2):
            await server.connect()
        await wait_until(lambda: server.closed["evicted"] >= 3, timeout=5)
        again = await client.get(f"{server.url}/fast")
    assert again.text == "hello"
    assert server.closed["evicted"] == 3  # three silent sockets made room; the client's stayed


async def test_past_the_cap_of_connections_being_answered_a_client_gets_a_fast_503():
    async with served() as server, httpx.AsyncClient(timeout=10) as client, anyio.create_task_group() as tg:
        for _ in range(LIMITS.max_connections):
            tg.start_soon(client.get, f"{server.url}/slow")
        await wait_until(lambda: server.entered == LIMITS.max_connections, timeout=5)
        with anyio.fail_after(5):
            began = anyio.current_time()
            async with httpx.AsyncClient(timeout=5) as other:
                refused = await other.get(f"{server.url}/fast")
        assert refused.status_code == 503
        assert refused.headers["retry-after"] == "1"
        assert refused.json()["error"]["code"] == "over_capacity"
        assert anyio.current_time() - began < 1.5
        assert server.closed["over_capacity"] == 1
        server.release.set()


async def test_failed_accepts_are_logged_once_per_interval_with_their_count(caplog):
    loop = asyncio.get_running_loop()
    handler = AcceptErrorLog(None, interval=60)
    error = OSError(24, "Too many open files")
    for _ in range(500):
        handler(loop, {"message": "socket.accept() out of system resource", "exception": error})
    lines = [r for r in caplog.records if r.name == "shopagent.asgi"]
    assert len(lines) == 1
    assert "Too many open files" in lines[0].getMessage()


def test_the_default_cap_leaves_room_for_the_other_servers_and_the_database():
    assert default_max_connections(1024) == 329  # http + mcp at their caps + ops: 722 of 1024
    assert default_max_connections(256) == 32
    assert default_max_connections(1_048_576) == 10_000


@pytest.mark.process
def test_the_process_raises_its_open_file_limit_to_the_hard_one():
    code = "from shopagent.runtime.connections import raise_open_file_limit as r; print(r())"
    done = subprocess.run(["prlimit", "--nofile=256:2048", sys.executable, "-c", code],
                          capture_output=True, text=True, check=True, timeout=60)  # fmt: skip
    assert done.stdout.strip() == "2048"
