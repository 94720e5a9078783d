"""Idle and slow connections against a running shopagent while a client keeps chatting.

    python bench/connections.py [--connections 2000] [--seconds 60] [--open-files 1024] [--quick]

Starts a PostgreSQL of its own (the embedded build, in a temporary directory) and one
`shopagent run` process (every role, hash embedder, offline assistant) against it over its URL,
under `prlimit --nofile=N` (the open-file limit of a small container). Then, for each kind of
hostile client, holds `--connections` sockets against the chat server for `--seconds` while one
client sends a chat message and asks `/readyz` back to back, and reports the latencies of both,
the answers that were not 200, and the log lines the process wrote meanwhile:

- idle: connects and sends nothing;
- slow headers: half a request line, then a byte every second;
- slow body: a whole request declaring 1000 bytes of body, then 12 of them;
- reconnecting: half a request line, and a new connection at once for each one closed.

The hostile clients run in a process of their own. The baseline in the same run: the same
client with no hostile connections. Everything lives in
one temporary folder, removed at the end; `--quick` is 50 connections for 0.5 s (a smoke run).
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as `python bench/NAME.py`: the checkout goes first on the path (see bench/outage.py).
sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import signal
import statistics
import subprocess
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from functools import partial

import anyio
import httpx

from bench.common import Provenance, grid, scratch
from bench.outage import env_for, until
from shopagent.adapters.postgres.database import ensure_database
from shopagent.adapters.postgres.embedded import EmbeddedPostgres
from shopagent.domain.tokens import issue_token
from tests.helpers import AUTH_SECRET
from tests.hostile_clients import KINDS, running


async def chat_while(api: httpx.AsyncClient, ops: httpx.AsyncClient, seconds: float) -> dict:
    """Chat and /readyz back to back for `seconds`: latencies and the statuses that were not 200."""
    headers = {"Authorization": f"Bearer {issue_token(AUTH_SECRET, 'soak')}"}
    chats: list[float] = []
    readies: list[float] = []
    failures: Counter[str] = Counter()
    began = time.monotonic()
    while time.monotonic() - began < seconds:
        for kind, call, into in (
            ("chat", lambda: api.post("/api/assistant-agent/chat", json={"query": "boots"}, headers=headers), chats),
            ("readyz", lambda: ops.get("/readyz"), readies),
        ):
            t = time.monotonic()
            try:
                status = str((await call()).status_code)
            except httpx.HTTPError as exc:
                status = type(exc).__name__
            into.append(time.monotonic() - t)
            if status != "200":
                failures[f"{kind} {status}"] += 1
    return {"chat": chats, "readyz": readies, "failures": failures}


async def attacked(port: int, kind: str, count: int, run: Callable[[], Awaitable[dict]]) -> tuple[dict, int]:
    """`run()` while a separate process holds `count` connections of `kind`."""
    async with running(port, count, kind) as clients:
        result = await run()
    return result, clients.opened


def figures(name: str, count: int, result: dict, opened: int, log_lines: int) -> list[str]:
    def ms(values: list[float]) -> str:
        return f"{statistics.median(values) * 1000:.0f} / {max(values) * 1000:.0f}"

    failures = ", ".join(f"{n} x {what}" for what, n in result["failures"].items()) or "none"
    return [name, str(count), str(opened), str(len(result["chat"])), ms(result["chat"]), ms(result["readyz"]),
            failures, str(log_lines)]  # fmt: skip


async def main(args: argparse.Namespace) -> None:
    provenance = Provenance()
    with scratch("shopagent-bench-connections-") as directory:
        server = EmbeddedPostgres(directory)
        await anyio.to_thread.run_sync(server.start)
        process = None
        try:
            await ensure_database(server.dsn("postgres"), "shopagent")
            env = {**env_for(server.dsn("shopagent"), directory / "data"), "SHOPAGENT_CHAT__PROVIDER": "offline",
                   "SHOPAGENT_CHAT__RATE_PER_MINUTE": "100000", "SHOPAGENT_CHAT__RATE_BURST": "1000",
                   "SHOPAGENT_LOGGING__LEVEL": "info"}  # fmt: skip
            subprocess.run([sys.executable, "-m", "shopagent", "migrate"], env=env, check=True, capture_output=True)  # noqa: ASYNC221
            log_path = directory / "shopagent.log"
            with log_path.open("wb") as log_file:
                command = ["prlimit", f"--nofile={args.open_files}:{args.open_files}", sys.executable, "-m",
                           "shopagent", "run"]  # fmt: skip
                process = subprocess.Popen(command, env=env, stderr=log_file, stdout=log_file)  # noqa: ASYNC220, S603
            port = int(env["SHOPAGENT_HTTP__PORT"])
            api = httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30)
            ops = httpx.AsyncClient(base_url=f"http://127.0.0.1:{env['SHOPAGENT_OPS__PORT']}", timeout=30)

            async def ready() -> bool:
                try:
                    return (await ops.get("/readyz")).status_code == 200
                except httpx.HTTPError:
                    return False

            await until(ready, 120, 0.1)
            rows = [["hostile clients", "sockets", "opened", "chat turns", "chat p50 / max ms",
                     "/readyz p50 / max ms", "not 200", "log lines"]]  # fmt: skip
            lines = len(log_path.read_bytes().splitlines())
            rows.append(figures("none (baseline)", 0, await chat_while(api, ops, args.seconds), 0, 0))
            for name in KINDS:
                print(f"{name} …", file=sys.stderr, flush=True)
                lines = len(log_path.read_bytes().splitlines())
                result, opened = await attacked(port, name, args.connections,
                                                partial(chat_while, api, ops, args.seconds))  # fmt: skip
                written = len(log_path.read_bytes().splitlines()) - lines
                rows.append(figures(name, args.connections, result, opened, written))
            print()
            grid(rows)
            print(f"\nopen-file limit of the process: {args.open_files}")
            print(f"\n{provenance.line()}")
            await api.aclose()
            await ops.aclose()
        finally:
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(15)
                except subprocess.TimeoutExpired:
                    process.kill()
            await anyio.to_thread.run_sync(server.stop)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--connections", type=int, default=2000, help="hostile sockets held at once")
    parser.add_argument("--seconds", type=float, default=60, help="how long each kind of client is held")
    parser.add_argument("--open-files", type=int, default=1024, help="the process's open-file limit")
    parser.add_argument("--quick", action="store_true", help="50 connections for 0.5 s: a smoke run, not figures")
    arguments = parser.parse_args()
    if arguments.quick:
        arguments.connections, arguments.seconds = 50, 0.5
    anyio.run(main, arguments)
