from __future__ import annotations

import shutil
import tempfile
from urllib.parse import unquote

import anyio
import asyncpg
import pytest

from shopagent.adapters.postgres.embedded import EmbeddedPostgres
from tests.conftest import FAST_OPTIONS, scratch_dir

pytestmark = [pytest.mark.anyio, pytest.mark.process]


@pytest.fixture
def data_dir():
    path = scratch_dir("sa-pg-")
    yield path
    shutil.rmtree(path, ignore_errors=True)


async def query(server: EmbeddedPostgres, sql: str):
    conn = await asyncpg.connect(server.dsn("postgres"))
    try:
        return await conn.fetchval(sql)
    finally:
        await conn.close()


async def test_the_cluster_is_reused_across_runs_and_shared_by_processes_until_the_last_leaves(data_dir):
    first = EmbeddedPostgres(data_dir, options=FAST_OPTIONS)
    await anyio.to_thread.run_sync(first.start)
    await query(first, "CREATE TABLE kept (id int)")
    initialised_at = (first.pgdata / "PG_VERSION").stat().st_mtime_ns

    # A second user of the same data directory attaches to the running server.
    second = EmbeddedPostgres(data_dir, options=FAST_OPTIONS)
    await anyio.to_thread.run_sync(second.start)
    assert second.dsn("postgres") == first.dsn("postgres")

    await anyio.to_thread.run_sync(first.stop)
    assert await query(second, "SELECT 1") == 1  # still up: second still uses it

    await anyio.to_thread.run_sync(second.stop)
    assert not (data_dir / "postgres" / "postmaster.pid").exists()  # the last one stopped it

    # The next run reuses the cluster: no new initdb, data still there.
    third = EmbeddedPostgres(data_dir, options=FAST_OPTIONS)
    await anyio.to_thread.run_sync(third.start)
    try:
        assert (third.pgdata / "PG_VERSION").stat().st_mtime_ns == initialised_at
        assert await query(third, "SELECT to_regclass('kept')::text") == "kept"
    finally:
        await anyio.to_thread.run_sync(third.stop)


async def test_a_data_directory_too_deep_for_a_unix_socket_still_works():
    base = scratch_dir("sa-pg-")
    deep = base / ("d" * 60) / ("e" * 60)
    server = EmbeddedPostgres(deep, options=FAST_OPTIONS)
    try:
        await anyio.to_thread.run_sync(server.start)
        assert await query(server, "SELECT 1") == 1
    finally:
        await anyio.to_thread.run_sync(server.stop)
        shutil.rmtree(base, ignore_errors=True)


async def test_a_temporary_directory_too_deep_for_the_socket_falls_back_to_tmp(monkeypatch):
    base = scratch_dir("sa-pg-")
    deep_tmp = base / ("t" * 60) / ("u" * 60)
    deep_tmp.mkdir(parents=True)
    monkeypatch.setattr(tempfile, "tempdir", str(deep_tmp))  # as TMPDIR=<deep_tmp> would
    server = EmbeddedPostgres(base / ("d" * 60) / ("e" * 60), options=FAST_OPTIONS)
    try:
        await anyio.to_thread.run_sync(server.start)
        assert await query(server, "SELECT 1") == 1
        assert unquote(server.dsn("postgres").split("host=")[1]).startswith("/tmp/shopagent-pg-")  # noqa: S108 - where it should be
        assert list(deep_tmp.iterdir()) == []
    finally:
        await anyio.to_thread.run_sync(server.stop)
        shutil.rmtree(base, ignore_errors=True)


@pytest.mark.parametrize(("megabytes", "expected"), [(0, "128MB"), (200, "200MB")])
async def test_the_embedded_server_takes_its_shared_buffers_from_the_settings(data_dir, megabytes, expected):
    from shopagent.settings import DatabaseSettings, RuntimeSettings, Settings
    from shopagent.wiring.database import open_database

    settings = Settings(
        database=DatabaseSettings(embedded_shared_buffers_mb=megabytes), runtime=RuntimeSettings(data_dir=str(data_dir))
    )
    async with open_database(settings) as dsn:
        connection = await asyncpg.connect(dsn)
        try:
            assert await connection.fetchval("SHOW shared_buffers") == expected
        finally:
            await connection.close()
