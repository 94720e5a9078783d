"""Fixtures of the fault suite: a migrated cluster built once per session, copied for every
test into a PostgreSQL of its own that the test may stop and start."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.conftest import _in_thread
from tests.faults.harness import OwnedPostgres, build_migrated_cluster, owned_postgres


@pytest.fixture(scope="session")
def migrated_cluster() -> Iterator[Path]:
    """The data directory of a stopped cluster whose `shopagent` database is migrated (by the
    real `shopagent migrate`)."""
    data_dir = Path(tempfile.mkdtemp(prefix="sa-faults-template-"))
    try:
        _in_thread(build_migrated_cluster, data_dir)
        yield data_dir
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture
async def pg(migrated_cluster: Path, tmp_path: Path) -> AsyncIterator[OwnedPostgres]:
    """A running PostgreSQL owned by this test (its own copy of the migrated cluster, in
    `tmp_path / "pg"`), stopped at the end if the test left it running."""
    async with owned_postgres(migrated_cluster, tmp_path / "pg") as server:
        yield server
