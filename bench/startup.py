"""Start-up, shutdown and idle memory of `shopagent run` on the embedded PostgreSQL.

    python bench/startup.py [--warm-runs 3] [--quick]

Cold = a fresh data directory (initdb included); warm = the same directory again. Time is
measured from process spawn to the first 200 from /readyz. The same run measures its
baselines: a bare interpreter start, `shopagent --help`, and importing the composition root
in a fresh interpreter (what every start pays before it does anything). Everything lives in
one temporary folder, removed at the end. Prints a table.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as `python bench/NAME.py`: the checkout goes first on the path instead of bench/, so that
# bench/mcp.py cannot shadow the mcp package; the shared helpers are bench.common.
sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import os
import signal
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import psutil

from bench.common import REPO, Provenance, free_port, grid, postgres_pss, scratch

MiB = 2**20


def child_env(data_dir: Path) -> tuple[dict[str, str], int]:
    """The process's environment: none of the caller's SHOPAGENT_ settings, fresh ports, the
    secrets `run` needs (the chat role refuses to start without a token signing key)."""
    ops = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHOPAGENT_") and k != "GEMINI_API_KEY"}
    env |= {
        "PYTHONPATH": str(REPO),
        "SHOPAGENT_HTTP__PORT": str(free_port()),
        "SHOPAGENT_MCP__PORT": str(free_port()),
        "SHOPAGENT_OPS__PORT": str(ops),
        "SHOPAGENT_DATA_DIR": str(data_dir),
        "SHOPAGENT_LOGGING__LEVEL": "warning",
        "SHOPAGENT_AUTH_SECRET": "bench-auth-secret-of-32-bytes-or-more",
        "SHOPAGENT_MCP_API_KEY": "bench-mcp-key-0123",
        "SHOPAGENT_ADMIN_API_KEY": "bench-admin-key-0123",
    }
    return env, ops


def start(data_dir: Path, log: Path) -> tuple[subprocess.Popen[bytes], float]:
    env, ops = child_env(data_dir)
    began = time.perf_counter()
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "shopagent", "run"], env=env, cwd=REPO, stdout=out, stderr=subprocess.STDOUT
        )
    url = f"http://127.0.0.1:{ops}/readyz"
    deadline = began + 120
    while time.perf_counter() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1) as response:
                if response.status == 200:
                    return proc, time.perf_counter() - began
        except (urllib.error.URLError, ConnectionError):
            pass
        if proc.poll() is not None:
            tail = log.read_text(errors="replace")[-2000:]
            raise SystemExit(f"shopagent exited with {proc.returncode} before it was ready:\n{tail}")
        time.sleep(0.02)
    proc.kill()
    raise SystemExit("not ready within 120 s")


def stop(proc: subprocess.Popen[bytes]) -> float:
    began = time.perf_counter()
    proc.send_signal(signal.SIGTERM)
    code = proc.wait(timeout=60)
    if code != 0:
        raise SystemExit(f"exit code {code} after SIGTERM")
    return time.perf_counter() - began


def best_of(runs: int, argv: list[str]) -> float:
    """The fastest of `runs` runs of a short command (its floor on this machine)."""
    times = []
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for _ in range(runs):
        began = time.perf_counter()
        subprocess.run(argv, env=env, cwd=REPO, check=True, capture_output=True)  # noqa: S603 - this interpreter
        times.append(time.perf_counter() - began)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--warm-runs", type=int, default=3)
    parser.add_argument("--settle", type=float, default=5.0, help="idle seconds before memory is read")
    parser.add_argument("--quick", action="store_true", help="one warm run, no idle wait, one baseline run")
    args = parser.parse_args()
    if args.quick:
        args.warm_runs, args.settle = 1, 0.0
    provenance = Provenance()
    baseline_runs = 1 if args.quick else 5
    rows = [["measure", "value"]]
    with scratch("shopagent-bench-startup-") as work:
        data_dir = work / "data"
        bare = best_of(baseline_runs, [sys.executable, "-c", "pass"])
        rows.append(["baseline: bare interpreter start (best of runs)", f"{bare:.2f} s"])
        imports = best_of(baseline_runs, [sys.executable, "-c", "import shopagent.bootstrap"])
        rows.append(["baseline: import shopagent.bootstrap (best of runs)", f"{imports:.2f} s"])
        helps = best_of(baseline_runs, [sys.executable, "-m", "shopagent", "--help"])
        rows.append(["`shopagent --help` (best of runs)", f"{helps:.2f} s"])
        proc, cold = start(data_dir, work / "cold.log")
        rows.append(["cold start to /readyz 200 (initdb included)", f"{cold:.2f} s"])
        time.sleep(args.settle)  # idle on purpose: memory is read after it sits still
        rss = psutil.Process(proc.pid).memory_info().rss
        idle = f"idle RSS, shopagent process ({args.settle:.0f} s after ready, no products)"
        rows.append([idle, f"{rss / MiB:.0f} MiB"])
        pss, count = postgres_pss(data_dir)
        rows.append([f"idle PSS, embedded PostgreSQL (all its {count} processes)", f"{pss / MiB:.0f} MiB"])
        rows.append(["stop after SIGTERM (cold run)", f"{stop(proc):.2f} s"])
        warm, stops = [], []
        for n in range(args.warm_runs):
            proc, seconds = start(data_dir, work / f"warm-{n}.log")
            warm.append(seconds)
            stops.append(stop(proc))
        rows.append([f"warm start to /readyz 200 (median of {args.warm_runs})", f"{statistics.median(warm):.2f} s"])
        rows.append(["warm / cold ratio", f"{statistics.median(warm) / cold:.2f}"])
        rows.append(["warm start / import of the composition root", f"{statistics.median(warm) / imports:.1f}x"])
        rows.append([f"stop after SIGTERM (median of {args.warm_runs})", f"{statistics.median(stops):.2f} s"])
        _, leftovers = postgres_pss(data_dir)
        rows.append(["PostgreSQL processes left after the last stop", "none" if leftovers == 0 else str(leftovers)])
    grid(rows)
    print(f"\n{provenance.line()}")


if __name__ == "__main__":
    main()
