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
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[1]


@contextlib.contextmanager
def scratch(prefix: str) -> Iterator[Path]:
    """A fresh folder under TMPDIR for everything the run writes; removed on the way out.

    SIGTERM is turned into SystemExit while it is open, so `finally` blocks (stopping
    PostgreSQL, killing child processes) run before the folder goes."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    previous = signal.getsignal(signal.SIGTERM)

    def on_term(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, on_term)
    try:
        yield path
    finally:
        signal.signal(signal.SIGTERM, previous)
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


class Provenance:
    """Date, commit, machine and load of a run: created at the start, printed at the end."""

    def __init__(self) -> None:
        self.started = datetime.datetime.now(datetime.UTC)
        self.load_at_start = os.getloadavg()[0]

    def line(self) -> str:
        return (
            f"taken {self.started:%Y-%m-%d %H:%M} UTC at commit {commit()}; "
            f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}; "
            f"load average {self.load_at_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the end"
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
