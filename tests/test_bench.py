"""Every benchmark runs as written on a fresh checkout and leaves nothing behind.

Each script in bench/ is run with `--quick` (tiny sizes) with TMPDIR pointing at a folder of
its own; afterwards that folder must be empty, the checkout must have no new files, and the
output must end with the line saying when, at which commit and at what load it was taken.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
INTEROP_MODULES = "tests/interop/node_modules/"  # installed by tests/test_mcp_interop.py
pytestmark = pytest.mark.bench
BENCHES = sorted(p.name for p in (REPO / "bench").glob("*.py") if p.name != "common.py")


TOOL_CACHES = (".ruff_cache/", ".mypy_cache/", ".import_linter_cache/")


def untracked() -> set[str]:
    done = subprocess.run(
        ["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=all", "--ignored"],
        capture_output=True,
        text=True,
        check=True,
    )
    # New files only ("??" untracked, "!!" ignored): edits to tracked files are not a bench's doing,
    # nor is the TypeScript client another worker's interop test may be installing meanwhile, nor
    # the caches the lint tests of another worker write (ruff, mypy).
    lines = done.stdout.splitlines()
    return {
        line
        for line in lines
        if line.startswith(("??", "!!")) and not line.endswith((".pyc", "/"))
        and INTEROP_MODULES not in line and not any(cache in line for cache in TOOL_CACHES)
    }  # fmt: skip


def test_every_bench_is_covered() -> None:
    expected = {
        "startup.py",
        "memory.py",
        "chat.py",
        "outage.py",
        "search.py",
        "indexing.py",
        "connections.py",
        "scale.py",
        "import_rate.py",
    }
    assert expected <= set(BENCHES)


@pytest.mark.parametrize("script", BENCHES)
def test_bench_runs_quick_and_cleans_up(script: str, outside_tmp_path: Path) -> None:
    temp = outside_tmp_path / "tmp"
    temp.mkdir()
    before = untracked()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHOPAGENT_")} | {"TMPDIR": str(temp)}
    done = subprocess.run(
        [sys.executable, f"bench/{script}", "--quick"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, f"{script} --quick failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert "taken " in done.stdout.splitlines()[-1], f"{script} does not end with its provenance line"
    assert sorted(p.name for p in temp.iterdir()) == [], f"{script} left files in TMPDIR"
    assert untracked() - before == set(), f"{script} left files in the checkout"
