"""The demo's first indexing outlives a database restart, and helpers for the one-process shop
over its embedded PostgreSQL (`test_disk_full` kills that database too)."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import httpx
import pytest

from shopagent.adapters.postgres.embedded import EmbeddedPostgres
from tests.faults.harness import (
    ADMIN_HEADERS,
    ADMIN_KEY,
    MCP_KEY,
    alive,
    http_url,
    index_report,
    now,
    poll,
    readyz,
    service_env,
)
from tests.helpers import shopagent

pytestmark = pytest.mark.anyio


def embedded_env(data_dir: Path, **extra: str) -> dict[str, str]:
    """A process over the embedded PostgreSQL in `data_dir` (no database URL)."""
    return {
        "SHOPAGENT_DATA_DIR": str(data_dir),
        "SHOPAGENT_EMBEDDING__MODEL": "hash",
        "SHOPAGENT_MCP_API_KEY": MCP_KEY,
        "SHOPAGENT_ADMIN_API_KEY": ADMIN_KEY,
        "SHOPAGENT_CHAT__PROVIDER": "offline",
    } | extra


def postmaster_pid(data_dir: Path) -> int | None:
    try:
        return int((data_dir / "postgres" / "postmaster.pid").read_text().split("\n", 1)[0])
    except (OSError, ValueError):
        return None


@contextlib.asynccontextmanager
async def stopped_at_the_end(data_dir: Path) -> AsyncIterator[None]:
    """Whatever the test did, no embedded PostgreSQL of `data_dir` outlives it (a killed
    shopagent process leaves its server running for the next one, by design)."""
    try:
        yield
    finally:
        with anyio.CancelScope(shield=True):
            if postmaster_pid(data_dir) is not None:
                server = EmbeddedPostgres(data_dir)

                def stop() -> None:
                    with contextlib.suppress(Exception):
                        server.start()  # reuses the running one, as one more user ...
                    server.stop()  # ... and, the last, stops it

                await anyio.to_thread.run_sync(stop)


async def serves_writes(proc) -> bool:
    status, body = await readyz(proc, timeout=2)
    if status != 200 or body.get("status") != "ready":
        return False
    try:
        async with httpx.AsyncClient(base_url=http_url(proc), timeout=2) as client:
            listed = await client.get("/api/admin/products", headers=ADMIN_HEADERS)
    except httpx.TransportError:
        return False
    return listed.status_code == 200


# A few products at a time: the sample catalog (200 products) takes a second or two to index,
# so the database can be restarted in the middle of it.
FEW_AT_A_TIME = {
    "SHOPAGENT_INDEXER__WORKERS": "1",
    "SHOPAGENT_INDEXER__CLAIM_BATCH": "3",
    "SHOPAGENT_EMBEDDING__BATCH_SIZE": "3",
    "SHOPAGENT_RUNTIME__MAILBOX_CAPACITY": "3",
}


async def test_the_demo_waits_out_a_database_restart_during_its_first_indexing(pg, tmp_path):
    env = service_env(pg, SHOPAGENT_DATA_DIR=str(tmp_path / "data"), **FEW_AT_A_TIME)
    async with shopagent("demo", env=env) as demo:
        await demo.wait_for_output("indexing the catalog:", timeout=60)
        await pg.stop()
        # The wait behind the ready banner has met the outage (or the demo exits: it used to).
        await demo.wait_for_output("the database is unavailable; waiting for it", timeout=10)
        indexing_when_stopped = "shopagent is ready" not in demo.stdout
        await pg.start()
        restarted = now()
        ready = await poll(lambda: _said(demo, "shopagent is ready"), timeout=30, interval=0.1)
        ready_in = now() - restarted
        running = alive(demo)
        report = await index_report(pg)
        demo.signal(signal.SIGTERM)
        code = await demo.wait_exit(timeout=20)
    print(f"the demo was ready {ready_in:.1f}s after the database came back")
    assert indexing_when_stopped, "harness: the sample was indexed before the database stopped"
    assert running and ready, demo.stdout[-500:] + str(demo.errors())
    assert report["products"] == 200 and report["pending"] == 0 and report["stale"] == 0, report
    assert code == 0


async def _said(proc, fragment: str) -> bool:
    return fragment in proc.stdout
