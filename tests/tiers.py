"""The test tiers, given to every test at collection (README, "Tests"):

- `bench`: runs a benchmark script (tests/test_bench.py);
- `process`: starts a process of its own (the `shopagent` binary, a PostgreSQL it stops, a
  browser, a helper script), marked where the test is written, or anything under tests/faults;
- `db`: opens the session's embedded PostgreSQL (any fixture that leads to `embedded_pg`, or
  a contract suite's `postgres` backend);
- `unit`: everything else; it runs in one process with no database, in seconds.

A test has exactly one tier; an explicit mark wins over what the fixtures say. A `unit` test
that starts a process anyway fails, naming the mark it lacks.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

TIERS = ("bench", "process", "db", "unit")
FAULTS = Path(__file__).parent / "faults"
# Fixtures that start a process of their own (the `shopagent` binary, a PostgreSQL to stop).
PROCESS_FIXTURES = {"after_a_turn_a_call_and_an_event", "migrated_cluster", "pg"}
# A contract suite's parameter naming the backend it runs on (tests/index_backends.py and the
# storage contract suites), alone or before a variant ("postgres-hnsw"): the PostgreSQL one
# opens its database only once the test runs.
DATABASE_BACKENDS = {"postgres"}
_PROCESS_EVENTS = {"subprocess.Popen", "os.posix_spawn", "os.exec", "os.fork"}
_guard = {"unit": False}


def tier_of(item: pytest.Item) -> str:
    marked = [name for name in TIERS if item.get_closest_marker(name) is not None]
    if len(marked) > 1:
        raise pytest.UsageError(f"{item.nodeid} is marked {' and '.join(marked)}; a test has one tier")
    if marked:
        return marked[0]
    fixtures = set(getattr(item, "fixturenames", ()))
    if FAULTS in Path(item.path).parents or fixtures & PROCESS_FIXTURES:
        return "process"
    callspec = getattr(item, "callspec", None)
    params = callspec.params.values() if callspec is not None else ()
    if "embedded_pg" in fixtures or any(isinstance(p, str) and p.split("-")[0] in DATABASE_BACKENDS for p in params):
        return "db"
    return "unit"


def mark_tiers(items: list[pytest.Item]) -> None:
    for item in items:
        tier = tier_of(item)
        if item.get_closest_marker(tier) is None:
            item.add_marker(tier)


def _refuse_processes_in_unit_tests(event: str, args: tuple[object, ...]) -> None:
    if _guard["unit"] and event in _PROCESS_EVENTS:
        raise RuntimeError(f"a `unit` test started a process ({event}); mark it @pytest.mark.process")


sys.addaudithook(_refuse_processes_in_unit_tests)


def guard_unit(item: pytest.Item) -> Iterator[None]:
    _guard["unit"] = item.get_closest_marker("unit") is not None
    try:
        yield
    finally:
        _guard["unit"] = False
