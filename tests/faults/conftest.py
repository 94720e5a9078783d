"""Fixtures of the fault suite: a migrated cluster built once per session (copied by the tests
that need a data directory of their own), one PostgreSQL on a copy of it for the session, and
a database of its own on that server for every test, which the test may stop and start."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.conftest import _in_thread, scratch_dir
from tests.faults.harness import OwnedPostgres, build_migrated_cluster, copy_cluster, database_copy, embedded_server


@pytest.fixture(scope="session")
def migrated_cluster() -> Iterator[Path]:
    """The data directory of a stopped cluster whose `shopagent` database is migrated (by the
    real `shopagent migrate`)."""
    data_dir = scratch_dir("sa-faults-template-")
    try:
        _in_thread(build_migrated_cluster, data_dir)
        yield data_dir
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_server(migrated_cluster: Path) -> Iterator[OwnedPostgres]:
    """The suite's PostgreSQL (on a copy of the migrated cluster), running; its migrated
    `shopagent` database is the template of the tests' own databases, never used itself."""
    data_dir = scratch_dir("sa-faults-pg-")
    copy_cluster(migrated_cluster, data_dir)
    server = embedded_server(data_dir)
    server.start()
    try:
        yield OwnedPostgres(server)
    finally:
        if server.alive():
            server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture
async def pg(pg_server: OwnedPostgres) -> AsyncIterator[OwnedPostgres]:
    """A migrated database of this test's own on the suite's PostgreSQL, which the test may
    stop and start (it is running again, and the database dropped, at the end)."""
    async with database_copy(pg_server) as database:
        yield database
