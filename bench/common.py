"""What every benchmark here shares: a scratch folder it removes, `--quick`, and the line that
says when, where and at what load its figures were taken.

A benchmark keeps everything it writes (PostgreSQL data directories, logs, catalog files)
under one folder from `scratch()`, which honours TMPDIR and is removed when the script ends,
also on an exception, Ctrl-C or SIGTERM. `tests/test_bench.py` runs every script with
`--quick` and checks that the temporary folder is empty afterwards.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil

REPO = Path(__file__).resolve().parents[1]


@contextlib.contextmanager
def scratch(prefix: str) -> Iterator[Path]:
    """One folder under TMPDIR for everything the run writes, removed on the way out (also on
    an exception or Ctrl-C; SIGTERM becomes SystemExit, so `finally` blocks, which stop
    PostgreSQL and child processes, run first). It is TMPDIR meanwhile, for this process and
    the ones it starts, so whatever the libraries put in a temporary folder goes with it."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    previous = signal.getsignal(signal.SIGTERM)
    outer, tempfile.tempdir = os.environ.get("TMPDIR"), str(path)
    os.environ["TMPDIR"] = str(path)

    def on_term(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, on_term)
    try:
        yield path
    finally:
        signal.signal(signal.SIGTERM, previous)
        tempfile.tempdir = None
        if outer is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = outer
        shutil.rmtree(path, ignore_errors=True)


def git(*args: str) -> str:
    done = subprocess.run(  # noqa: S603 - git on this checkout
        ["git", "-C", str(REPO), *args],  # noqa: S607 - git from PATH, as a developer runs it
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def commit() -> str:
    """The checkout's commit, marked when it has uncommitted changes to tracked files."""
    try:
        rev = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.CalledProcessError):
        return "unknown commit (not a git checkout)"
    return f"{rev} with uncommitted changes" if dirty else rev


def loadavg() -> str:
    path = Path("/proc/loadavg")
    return " ".join(path.read_text().split()[:3]) if path.exists() else "?"


class Provenance:
    """Date, commit, machine and load of a run: taken at the start, printed at the end."""

    def __init__(self) -> None:
        self.started = datetime.datetime.now(datetime.UTC)
        self.load_at_start = loadavg()
        self.commit = commit()  # of the code this run imported, not of the checkout at its end

    def line(self) -> str:
        return (
            f"taken {self.started:%Y-%m-%d %H:%M} UTC at commit {self.commit}; "
            f"{os.cpu_count()} CPUs ({os.uname().machine}), Python {sys.version.split()[0]}; "
            f"load average (1/5/15 min) {self.load_at_start} at the start, {loadavg()} at the end"
        )


def grid(rows: list[list[str]] | list[tuple[str, ...]]) -> None:
    """Print rows as a plain-text table; the first row is the header."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for n, row in enumerate(rows):
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def postgres_pss(data_dir: Path) -> tuple[int, int]:
    """(sum of PSS, number of processes) of the PostgreSQL running on `data_dir`: its
    postmaster (the process with the data directory on its command line) and its children.
    PSS counts the shared buffers once, however many processes map them."""
    total, count = 0, 0
    for p in psutil.process_iter(["name", "cmdline"]):
        if p.info["name"] != "postgres" or not any(str(data_dir) in c for c in p.info["cmdline"] or []):
            continue
        for member in [p, *p.children()]:
            with contextlib.suppress(psutil.Error):
                total += member.memory_full_info().pss
                count += 1
    return total, count


def on_other_tree(script: str, tree: Path, args: list[str]) -> Any:
    """What `script --rows-json ARGS` prints (JSON, its last line) when it runs on another
    source tree of this project (e.g. a `git worktree` of an older commit), in a subprocess
    of this interpreter: the "before" of a before/after table taken in one run."""
    command = [sys.executable, script, *args, "--rows-json"]
    env = {**os.environ, "SHOPAGENT_TREE": str(tree.resolve())}
    done = subprocess.run(command, env=env, check=True, capture_output=True, text=True)  # noqa: S603
    return json.loads(done.stdout.strip().splitlines()[-1])
