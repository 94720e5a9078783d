"""Hostile HTTP clients, in a process of their own so that they do not slow down the event loop
of whoever measures the server meanwhile (tests/test_hostile_connections.py, bench/connections.py).

    python -m tests.hostile_clients KIND PORT COUNT

holds COUNT connections of KIND against 127.0.0.1:PORT until terminated, printing how many it
has opened so far every half second. Kinds: idle (sends nothing), slow headers (half a request
line, then a byte a second), slow body (declares 1000 bytes of body, sends 12), reconnecting
(slow headers, and a new connection at once for each one the server closes).
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import anyio
from anyio.abc import Process, SocketStream

Attack = Callable[[SocketStream], Awaitable[None]]
CHECKOUT = Path(__file__).resolve().parents[1]


async def idle(stream: SocketStream) -> None:
    await stream.receive()


async def slow_headers(stream: SocketStream) -> None:
    await stream.send(b"GET /api HTTP/1.1\r\n")
    for byte in b"X-Slow: " + b"a" * 10_000:
        await stream.send(bytes([byte]))
        await anyio.sleep(1)  # the slow client itself


async def slow_body(stream: SocketStream) -> None:
    await stream.send(b"POST /api/assistant-agent/chat HTTP/1.1\r\nHost: a\r\nContent-Length: 1000\r\n\r\n" + b"x" * 12)
    await stream.receive()


KINDS: dict[str, tuple[Attack, bool]] = {  # name: (what each socket does, reconnect when closed)
    "idle": (idle, False),
    "slow headers": (slow_headers, False),
    "slow body": (slow_body, False),
    "reconnecting": (slow_headers, True),
}


async def hold(port: int, count: int, kind: str, opened: list[int]) -> None:
    """Hold `count` connections of `kind` until cancelled; `opened` gets one item per connection."""
    attack, reconnect = KINDS[kind]

    async def one() -> None:
        while True:
            try:
                stream = await anyio.connect_tcp("127.0.0.1", port)
            except OSError:
                await anyio.sleep(0.1)  # the listen queue is full: an attacker retries
                continue
            async with stream:
                opened.append(1)
                with contextlib.suppress(anyio.EndOfStream, anyio.BrokenResourceError, OSError):
                    await attack(stream)
                if not reconnect:
                    await anyio.sleep_forever()

    async with anyio.create_task_group() as tg:
        for _ in range(count):
            tg.start_soon(one)


class HostileClients:
    """The clients' process, as `running()` yields it: `opened` is how many they have opened."""

    def __init__(self, process: Process) -> None:
        self.process = process
        self.opened = 0
        self.changed = anyio.Event()

    async def _read(self) -> None:
        assert self.process.stdout is not None
        async for chunk in self.process.stdout:
            counts = chunk.split()
            if counts:
                self.opened = int(counts[-1])
                self.changed.set()
                self.changed = anyio.Event()

    async def wait_opened(self, count: int, timeout: float) -> None:
        with anyio.fail_after(timeout):
            while self.opened < count:
                await self.changed.wait()


@contextlib.asynccontextmanager
async def running(port: int, count: int, kind: str) -> AsyncIterator[HostileClients]:
    command = [sys.executable, "-m", "tests.hostile_clients", kind, str(port), str(count)]
    process = await anyio.open_process(command, cwd=CHECKOUT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    async with process:
        clients = HostileClients(process)
        async with anyio.create_task_group() as tg:
            tg.start_soon(clients._read)
            try:
                yield clients
            finally:
                process.terminate()
                with anyio.CancelScope(shield=True), anyio.move_on_after(10):
                    await process.wait()
                tg.cancel_scope.cancel()


async def _main(kind: str, port: int, count: int) -> None:
    opened: list[int] = []
    async with anyio.create_task_group() as tg:
        tg.start_soon(hold, port, count, kind, opened)
        while True:
            print(len(opened), flush=True)
            await anyio.sleep(0.5)


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        anyio.run(_main, sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
