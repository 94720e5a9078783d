"""The one-process shop with its embedded PostgreSQL on a small disk. When the disk fills up,
writes are answered 503 storage_full with Retry-After, reads go on, /readyz says degraded with
the reason, the indexer pauses (no actor restarts, no exit), the log says it once, and
everything resumes when space returns. Then its PostgreSQL is killed (`kill -9` of the
postmaster): the process starts it again and serves on. One process for both: they share
the costly part, a shop on a disk of its own."""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import httpx
import pytest

from tests.faults.harness import (
    ADMIN_HEADERS,
    alive,
    copy_cluster,
    dependency,
    http_url,
    now,
    poll,
    product_body,
    readyz,
    restarts,
    run_role,
)
from tests.faults.test_embedded_database import embedded_env, postmaster_pid, serves_writes, stopped_at_the_end

pytestmark = pytest.mark.anyio

HEADROOM_MB = 24  # room on the small disk beyond the copied cluster, before the filler takes it
DISK_FULL_LOG = "the database's disk is full"


def _mount_small_disk(path: Path, template: Path) -> None:
    used = subprocess.run(["du", "-sk", str(template)], capture_output=True, check=True, text=True).stdout
    path.mkdir()
    size = f"{int(used.split()[0]) // 1024 + HEADROOM_MB}m"
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(path)], check=True)


@contextlib.asynccontextmanager
async def small_disk(path: Path, template: Path) -> AsyncIterator[Path]:
    """A tmpfs just larger than the cluster `template`, mounted at `path` (unmounted at the end)."""
    await anyio.to_thread.run_sync(_mount_small_disk, path, template)
    try:
        yield path
    finally:
        await anyio.run_process(["umount", "-l", str(path)], check=False)


def fill(disk: Path) -> Path:
    """Take every free byte of `disk` with one file."""
    filler = disk / "filler"
    block = b"\0" * (1 << 20)
    with filler.open("wb", buffering=0) as out:
        try:
            while True:
                out.write(block)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC, exc
        with contextlib.suppress(OSError):
            while True:
                out.write(b"\0" * 4096)
    return filler


async def _post(client: httpx.AsyncClient, n: int) -> httpx.Response:
    return await client.post("/api/admin/products", json=product_body(n), headers=ADMIN_HEADERS)


async def _storage_state(proc) -> tuple[int | None, dict] | None:
    status, body = await readyz(proc)
    storage = dependency(body, "storage") if status is not None else None
    return (status, body) if storage is not None else None


async def test_a_full_disk_refuses_writes_with_503_and_a_killed_database_is_started_again(migrated_cluster, tmp_path):
    async with small_disk(tmp_path / "disk", migrated_cluster) as disk:
        await anyio.to_thread.run_sync(copy_cluster, migrated_cluster, disk)
        async with (
            stopped_at_the_end(disk),
            run_role("all", embedded_env(disk)) as shop,
            httpx.AsyncClient(base_url=http_url(shop), timeout=10) as client,
        ):
            first = await _post(client, 0)
            assert first.status_code == 201, first.text
            product_id = first.json()["id"]
            filler = await anyio.to_thread.run_sync(fill, disk)

            # Writes until one meets the full disk (the first may still fit in free page space).
            answers = []
            for n in range(1, 400):
                answers.append(await _post(client, n))
                if answers[-1].status_code != 201:
                    break
            refused = answers[-1] if answers[-1].status_code != 201 else None
            assert refused is not None, "harness: every write fitted on the full disk"
            await shop.wait_for_log(DISK_FULL_LOG, timeout=10)
            full = await poll(lambda: _storage_state_is(shop, "full"), timeout=10)
            listed = await client.get("/api/admin/products", headers=ADMIN_HEADERS)
            one = await client.get(f"/api/admin/products/{product_id}", headers=ADMIN_HEADERS)
            again = await _post(client, 1000)  # still full: refused the same way

            filler.unlink()
            freed = now()
            written = await poll(lambda: _written(client), timeout=15, interval=0.2)
            write_back_in = now() - freed
            drained = await poll(lambda: _drained(client), timeout=20, interval=0.2)
            ready = await poll(lambda: _storage_state_is(shop, "up"), timeout=15)
            recovered_in, pids = await _kill_the_database(disk, shop)
            running = alive(shop)
            said = [e["message"] for e in shop.logs if DISK_FULL_LOG in e.get("message", "")]
            restarted = [e["message"] for e in shop.logs if "stopped unexpectedly" in e.get("message", "")]
            errors = [m for m in shop.errors() if DISK_FULL_LOG not in m and "stopped unexpectedly" not in m]
            shop.signal(signal.SIGTERM)
            code = await shop.wait_exit(timeout=20)

    print(f"{len(answers)} write(s) to the first refusal; written again {write_back_in:.1f}s after space returned")
    statuses = {r.status_code for r in answers}
    assert statuses <= {201, 503}, statuses  # never a 500
    assert refused.status_code == 503 and refused.json()["error"]["code"] == "storage_full", refused.text
    assert int(refused.headers["retry-after"]) >= 1
    assert again.status_code == 503 and again.json()["error"]["code"] == "storage_full", again.text
    assert listed.status_code == 200 and one.status_code == 200, (listed.text, one.text)  # reads go on
    status, body = full
    assert status == 200 and body["status"] == "degraded", body
    assert "disk full" in dependency(body, "storage")["detail"], body
    assert all(n == 0 for n in restarts(body).values()), body
    assert written and drained, (written, drained)
    assert ready is not None and ready[1]["status"] == "ready", ready
    # The killed database: started again by the process, which served on.
    print(f"serving again {recovered_in:.1f}s after kill -9 of the postmaster")
    assert recovered_in is not None, "not serving 20s after the database was killed"
    assert pids[1] is not None and pids[1] != pids[0], pids
    assert len(restarted) == 1, restarted  # said once
    assert running and code == 0
    assert len(said) == 1, said  # said once
    assert errors == [], errors


async def _kill_the_database(disk: Path, shop) -> tuple[float | None, tuple[int | None, int | None]]:
    """kill -9 of the embedded postmaster; how long until the shop serves writes again (None:
    not within 20 s), and the postmaster's pid before and after."""
    first = postmaster_pid(disk)
    assert first is not None
    os.kill(first, signal.SIGKILL)
    killed = now()
    back = await poll(lambda: serves_writes(shop), timeout=20, interval=0.1)
    return (now() - killed if back else None), (first, postmaster_pid(disk))


async def _storage_state_is(proc, state: str):
    found = await _storage_state(proc)
    return found if found is not None and dependency(found[1], "storage")["state"] == state else None


async def _written(client: httpx.AsyncClient) -> bool:
    return (await _post(client, 2000)).status_code == 201


async def _drained(client: httpx.AsyncClient) -> dict | None:
    status = (await client.get("/api/admin/index/status", headers=ADMIN_HEADERS)).json()
    done = status["pending"] + status["inFlight"] == 0 and status["productsIndexed"] == status["productsTotal"]
    return status if done else None
