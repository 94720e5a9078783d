"""Database outages under a running shopagent: what clients see, and how soon it is back.

    python bench/outage.py [--outages 5,30,300] [--interval 0.1] [--quick]

Starts a PostgreSQL of its own (the embedded build, in a temporary directory) and one
`shopagent run` process (every role, hash embedder) against it over its URL. For each outage
length: stops PostgreSQL, calls the admin API and `/readyz` every `--interval` seconds while
it is away, starts it again, and measures how long after PostgreSQL accepts connections
again the API answers 200, `/readyz` answers 200, and a product edited then is indexed.
The baseline in the same run is the API's latency with the database up. Everything lives in
one temporary folder, removed at the end; `--quick` is one outage of 1 s (a smoke run).
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as `python bench/NAME.py`: the checkout goes first on the path instead of bench/, so that
# bench/mcp.py cannot shadow the mcp package; the shared helpers are bench.common.
sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import asyncio
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import anyio
import asyncpg
import httpx
import msgspec

from bench.common import Provenance, scratch
from shopagent.adapters.postgres.database import ensure_database
from shopagent.adapters.postgres.embedded import EmbeddedPostgres
from tests.factories import product_input
from tests.helpers import AUTH_SECRET, free_port

ADMIN_KEY = "admin-key-for-the-outage-bench"


def env_for(dsn: str, data_dir: Path) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("SHOPAGENT_")}
    return {
        **base,
        "SHOPAGENT_DATABASE_URL": dsn,
        "SHOPAGENT_DATA_DIR": str(data_dir),
        "SHOPAGENT_EMBEDDING__MODEL": "hash",
        "SHOPAGENT_ADMIN_API_KEY": ADMIN_KEY,
        "SHOPAGENT_MCP_API_KEY": "mcp-key-for-the-outage-bench",
        "SHOPAGENT_AUTH_SECRET": AUTH_SECRET,
        "SHOPAGENT_LOGGING__LEVEL": "warning",
        "SHOPAGENT_HTTP__PORT": str(free_port()),
        "SHOPAGENT_MCP__PORT": str(free_port()),
        "SHOPAGENT_OPS__PORT": str(free_port()),
    }


async def until(check, timeout: float, interval: float = 0.02) -> float:
    """Seconds until `check()` is truthy (polling: nothing announces these conditions)."""
    began = time.monotonic()
    with anyio.fail_after(timeout):
        while not await check():  # noqa: ASYNC110
            await anyio.sleep(interval)
    return time.monotonic() - began


async def one_outage(server, dsn, process, api, ops, seconds: float, interval: float, product_id: int) -> dict:
    headers = {"Authorization": f"Bearer {ADMIN_KEY}"}
    await anyio.to_thread.run_sync(server.stop)
    codes: dict[int, int] = {}
    latencies: list[float] = []
    ready_codes: dict[int, int] = {}
    began = time.monotonic()
    while time.monotonic() - began < seconds:
        t = time.monotonic()
        try:
            status = (await api.get("/api/admin/products?limit=1", headers=headers)).status_code
        except httpx.HTTPError:
            status = -1
        latencies.append(time.monotonic() - t)
        codes[status] = codes.get(status, 0) + 1
        ready = (await ops.get("/readyz")).status_code
        ready_codes[ready] = ready_codes.get(ready, 0) + 1
        await anyio.sleep(interval)
    alive = process.poll() is None
    await anyio.to_thread.run_sync(server.start)
    back = time.monotonic()

    api_after = ready_after = None
    with anyio.fail_after(60):
        while api_after is None or ready_after is None:
            if api_after is None and (await api.get("/api/admin/products?limit=1", headers=headers)).status_code == 200:
                api_after = time.monotonic() - back
            if ready_after is None and (await ops.get("/readyz")).status_code == 200:
                ready_after = time.monotonic() - back
            await anyio.sleep(0.02)
    name = f"after an outage of {seconds:g}s"
    edited = await api.put(f"/api/admin/products/{product_id}", json={"name": name}, headers=headers)
    assert edited.status_code == 200, edited.text
    conn = await asyncpg.connect(dsn)
    try:

        async def indexed() -> bool:
            return bool(
                await conn.fetchval(
                    "SELECT count(*) FROM product_chunk WHERE product_id = $1 AND content LIKE '%' || $2 || '%'",
                    product_id,
                    name,
                )
            )

        indexed_after = await until(indexed, 60)
        stale = await conn.fetchval("SELECT count(*) FROM outbox_event WHERE status = 'pending'")
    finally:
        await conn.close()
    return {
        "outage": seconds,
        "alive": alive and process.poll() is None,
        "codes": codes,
        "p50": statistics.median(latencies),
        "max": max(latencies),
        "ready_codes": ready_codes,
        "api_after": api_after,
        "ready_after": ready_after,
        "indexed_after": indexed_after,
        "pending": stale,
    }


async def main(args: argparse.Namespace) -> None:
    outages = [float(x) for x in args.outages.split(",")]
    provenance = Provenance()
    with scratch("shopagent-bench-outage-") as directory:
        server = EmbeddedPostgres(directory)
        await anyio.to_thread.run_sync(server.start)
        process = None
        try:
            await ensure_database(server.dsn("postgres"), "shopagent")
            dsn = server.dsn("shopagent")
            env = env_for(dsn, directory / "data")
            subprocess.run([sys.executable, "-m", "shopagent", "migrate"], env=env, check=True, capture_output=True)  # noqa: ASYNC221
            process = subprocess.Popen([sys.executable, "-m", "shopagent", "run"], env=env)  # noqa: ASYNC220
            api = httpx.AsyncClient(base_url=f"http://127.0.0.1:{env['SHOPAGENT_HTTP__PORT']}", timeout=30)
            ops = httpx.AsyncClient(base_url=f"http://127.0.0.1:{env['SHOPAGENT_OPS__PORT']}", timeout=30)

            async def ready() -> bool:
                try:
                    return (await ops.get("/readyz")).status_code == 200
                except httpx.HTTPError:
                    return False

            await until(ready, 120, 0.1)
            headers = {"Authorization": f"Bearer {ADMIN_KEY}"}
            created = await api.post(
                "/api/admin/products", json=msgspec.to_builtins(product_input("outage-boot")), headers=headers
            )
            product_id = created.json()["id"]
            baseline = []
            for _ in range(50):
                t = time.monotonic()
                assert (await api.get("/api/admin/products?limit=1", headers=headers)).status_code == 200
                baseline.append(time.monotonic() - t)
            rows = []
            for seconds in outages:
                print(f"outage of {seconds:g}s …", file=sys.stderr, flush=True)
                rows.append(await one_outage(server, dsn, process, api, ops, seconds, args.interval, product_id))
            print()
            print(f"API latency with the database up (baseline): p50 {statistics.median(baseline) * 1000:.1f} ms")
            print()
            header = (
                "outage s | process alive | API answers during | API p50 / max ms | /readyz during | "
                "API 200 after s | /readyz 200 after s | edit indexed after s | pending events"
            )
            print(header)
            print("|".join("---" for _ in header.split("|")))
            for r in rows:
                codes = ", ".join(f"{n} x {c}" for c, n in sorted(r["codes"].items()))
                ready_codes = ", ".join(f"{n} x {c}" for c, n in sorted(r["ready_codes"].items()))
                print(
                    f"{r['outage']:g} | {'yes' if r['alive'] else 'NO'} | {codes} | "
                    f"{r['p50'] * 1000:.1f} / {r['max'] * 1000:.1f} (x{r['p50'] / statistics.median(baseline):.1f}) | "
                    f"{ready_codes} | {r['api_after']:.2f} | {r['ready_after']:.2f} | {r['indexed_after']:.2f} | "
                    f"{r['pending']}"
                )
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
    parser.add_argument("--outages", default="5,30,300", help="outage lengths in seconds, comma-separated")
    parser.add_argument("--interval", type=float, default=0.1, help="seconds between calls during an outage")
    parser.add_argument("--quick", action="store_true", help="one outage of 1 s: a smoke run, not figures")
    arguments = parser.parse_args()
    if arguments.quick:
        arguments.outages = "1"
    asyncio.run(main(arguments))
