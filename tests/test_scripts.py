"""The maintenance scripts in scripts/: they start, and the set splitter halves fairly."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.process
@pytest.mark.parametrize("script", ["fit_grades.py", "split_sets.py"])
def test_a_script_starts_and_explains_itself(script: str) -> None:
    # Its imports resolve against today's package (a moved name breaks it here, not in use).
    done = subprocess.run([sys.executable, str(SCRIPTS / script), "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "usage:" in done.stdout


def test_the_splitter_halves_each_kind_by_hash_and_keeps_given_splits() -> None:
    split = _load("split_sets").split
    lines = [{"query": f"q{i}", "kind": kind} for kind in ("intent", "typo", "nomatch") for i in range(7)]
    lines.append({"query": "already placed", "kind": "intent", "split": "heldout"})
    first = split([dict(line) for line in lines])
    again = split([dict(line) for line in reversed(lines)])
    assert {x["query"]: x["split"] for x in first} == {x["query"]: x["split"] for x in again}  # order-free
    assert next(x for x in first if x["query"] == "already placed")["split"] == "heldout"
    for kind in ("intent", "typo", "nomatch"):
        new = [x["split"] for x in first if x["kind"] == kind and x["query"] != "already placed"]
        assert sorted(new).count("tune") == 4 and new.count("heldout") == 3
    conversations = split([{"id": f"p{i:02}", "turns": []} for i in range(1, 15)])
    assert [c["split"] for c in conversations].count("heldout") == 7
