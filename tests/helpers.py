"""Test helpers: free ports, and the real `shopagent` process driven from a test."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path

import anyio
import httpx
from anyio.abc import Process

REPO = Path(__file__).resolve().parent.parent


def example_env_file() -> dict[str, str]:
    """The variables of deploy/shopagent.env.example, as written there (placeholders included)."""
    lines = (REPO / "deploy" / "shopagent.env.example").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if line.strip() and not line.startswith("#"))


_HANDED_OUT: set[int] = set()
_BAND = 1500  # ports of each test worker's own band


def free_port() -> int:
    """A port nothing listens on, never one this process handed out before, from a band of its own
    below the kernel's ephemeral range: a port the kernel hands to a bind on port 0 is also one it
    may give an outgoing connection (to PostgreSQL, an HTTP client) of another test worker before
    the server started with it binds, and the server then fails with "address already in use"."""
    low = _ephemeral_low()
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    # (from 20000: below, browsers refuse some ports, such as 10080)
    start = 20000 + (int(worker) if worker.isdigit() else 0) % 8 * _BAND
    if start + _BAND > low:  # (a kernel whose ephemeral range starts low: the port it picks)
        return _kernel_port()
    for port in range(start, start + _BAND):
        if port in _HANDED_OUT:
            continue
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
        _HANDED_OUT.add(port)
        return port
    return _kernel_port()


def _kernel_port() -> int:
    while True:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        if port not in _HANDED_OUT:
            _HANDED_OUT.add(port)
            return port


def _ephemeral_low() -> int:
    """The first port of the kernel's range for outgoing connections (Linux; 32768 elsewhere)."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def port_env() -> dict[str, str]:
    """Environment giving the three servers free ports of their own."""
    return {
        "SHOPAGENT_HTTP__PORT": str(free_port()),
        "SHOPAGENT_MCP__PORT": str(free_port()),
        "SHOPAGENT_OPS__PORT": str(free_port()),
    }


class ShopagentProcess:
    """The real `python -m shopagent` process; its JSON log lines are collected as they come."""

    def __init__(self, process: Process, env: Mapping[str, str]) -> None:
        self.process = process
        self.env = env
        self.logs: list[dict] = []
        self.stdout = ""
        self._changed = anyio.Event()
        self.stderr_closed = False

    @property
    def ops_url(self) -> str:
        return f"http://127.0.0.1:{self.env['SHOPAGENT_OPS__PORT']}"

    async def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        buffer = b""
        async for chunk in self.process.stderr:
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                try:
                    self.logs.append(json.loads(line))
                except ValueError:
                    self.logs.append({"message": line.decode(errors="replace"), "level": "raw"})
            self._changed.set()
            self._changed = anyio.Event()
        self.stderr_closed = True
        self._changed.set()

    async def _read_stdout(self) -> None:
        assert self.process.stdout is not None
        async for chunk in self.process.stdout:
            self.stdout += chunk.decode(errors="replace")
            self._changed.set()
            self._changed = anyio.Event()

    async def wait_for_output(self, fragment: str, timeout: float = 30) -> str:
        """Wait until standard output contains `fragment`; fail if the process ends first."""
        with anyio.fail_after(timeout):
            while fragment not in self.stdout:
                if self.stderr_closed and self.process.returncode is not None:
                    raise AssertionError(f"shopagent ended before printing {fragment!r}: {self.stdout}")
                await self._changed.wait()
        return self.stdout

    async def wait_for_output_while_progressing(self, fragment: str, stall: float = 60) -> str:
        """Wait until standard output contains `fragment`, as long as the output keeps growing
        (progress lines): fail after `stall` seconds without new output, or if the process
        ends first. For work whose length depends on the machine's load, such as indexing."""
        while fragment not in self.stdout:
            seen = len(self.stdout)
            with anyio.fail_after(stall):
                while len(self.stdout) == seen:
                    if self.stderr_closed and self.process.returncode is not None:
                        raise AssertionError(f"shopagent ended before printing {fragment!r}: {self.stdout}")
                    await self._changed.wait()
        return self.stdout

    async def wait_for_log(self, fragment: str, timeout: float = 30) -> dict:
        """Wait until a log line's message contains `fragment`; fail if the process ends first."""
        with anyio.fail_after(timeout):
            while True:
                for entry in self.logs:
                    if fragment in entry.get("message", ""):
                        return entry
                if self.stderr_closed:
                    raise AssertionError(f"shopagent ended before logging {fragment!r}: {self.logs}")
                await self._changed.wait()

    async def wait_exit(self, timeout: float = 30) -> int:
        with anyio.fail_after(timeout):
            return await self.process.wait()

    def signal(self, signum: int = signal.SIGTERM) -> None:
        self.process.send_signal(signum)

    async def readyz(self) -> httpx.Response:
        async with httpx.AsyncClient() as client:
            return await client.get(f"{self.ops_url}/readyz")

    def errors(self) -> list[str]:
        return [e["message"] for e in self.logs if e.get("level") in ("error", "critical", "raw")]


AUTH_SECRET = "test-auth-secret-of-32-bytes-or-more"


@contextlib.asynccontextmanager
async def shopagent(
    *args: str, env: Mapping[str, str], launcher: Sequence[str] = ()
) -> AsyncIterator[ShopagentProcess]:
    """Start `python -m shopagent ARGS` with `env` added to a clean environment (through `launcher`, a
    command that runs the rest of its command line, if given)."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("SHOPAGENT_") and k != "GEMINI_API_KEY"}
    full_env = {**base, "SHOPAGENT_LOGGING__FORMAT": "json", "SHOPAGENT_AUTH_SECRET": AUTH_SECRET,
                **port_env(), **env}  # fmt: skip
    process = await anyio.open_process(
        [*launcher, sys.executable, "-m", "shopagent", *args],
        env=full_env,
        cwd=REPO,
        stdin=subprocess.DEVNULL,
    )
    wrapper = ShopagentProcess(process, full_env)
    async with process, anyio.create_task_group() as tg:
        tg.start_soon(wrapper._read_stderr)
        tg.start_soon(wrapper._read_stdout)
        try:
            yield wrapper
        finally:
            if process.returncode is None:
                process.kill()
            with anyio.CancelScope(shield=True), anyio.move_on_after(10):
                await process.wait()


async def eventually(check, timeout: float = 5, interval: float = 0.01):
    """Poll an async `check()` until it returns a truthy value (bounded by `timeout`).

    For conditions no event announces (a port closing, an external process's state).
    """
    with anyio.fail_after(timeout):
        while not (result := await check()):  # noqa: ASYNC110 - nothing announces these conditions
            await anyio.sleep(interval)
        return result


async def wait_until(predicate, timeout: float = 10, interval: float = 0.01) -> None:
    """Poll a plain `predicate()` (state the test's own tasks change) until it holds, bounded by `timeout`."""

    async def check() -> bool:
        return predicate()

    await eventually(check, timeout, interval)
