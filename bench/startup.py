"""Start-up, shutdown and idle memory of `shopagent run` on the embedded PostgreSQL.

    python bench/startup.py [--warm-runs 3]

Cold = a fresh data directory (initdb included); warm = the same directory again. Time is
measured from process spawn to the first 200 from /readyz. Prints a table.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import psutil


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start(data_dir: Path) -> tuple[subprocess.Popen[bytes], int, float]:
    ports = {"HTTP": free_port(), "MCP": free_port(), "OPS": free_port()}
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHOPAGENT_")}
    env |= {f"SHOPAGENT_{name}__PORT": str(port) for name, port in ports.items()}
    env |= {"SHOPAGENT_DATA_DIR": str(data_dir), "SHOPAGENT_LOGGING__LEVEL": "warning"}
    env |= {
        "SHOPAGENT_AUTH_SECRET": "bench-auth-secret-of-32-bytes-or-more",
        "SHOPAGENT_MCP_API_KEY": "bench-mcp-key-0123",
    }
    began = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "shopagent", "run"], env=env, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{ports['OPS']}/readyz"
    deadline = began + 120
    while time.perf_counter() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1) as response:
                if response.status == 200:
                    return proc, ports["OPS"], time.perf_counter() - began
        except (urllib.error.URLError, ConnectionError):
            pass
        if proc.poll() is not None:
            raise SystemExit(f"shopagent exited with {proc.returncode} before it was ready")
        time.sleep(0.02)
    raise SystemExit("not ready within 120 s")


def stop(proc: subprocess.Popen[bytes]) -> float:
    began = time.perf_counter()
    proc.send_signal(signal.SIGTERM)
    code = proc.wait(timeout=60)
    if code != 0:
        raise SystemExit(f"exit code {code} after SIGTERM")
    return time.perf_counter() - began


def postgres_rss(data_dir: Path) -> int:
    total = 0
    for p in psutil.process_iter(["name", "cmdline", "memory_info"]):
        if p.info["name"] == "postgres" and any(str(data_dir) in c for c in p.info["cmdline"] or []):
            total += p.info["memory_info"].rss
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--warm-runs", type=int, default=3)
    args = parser.parse_args()
    data_dir = Path(tempfile.mkdtemp(prefix="shopagent-bench-"))
    rows = []
    try:
        proc, _, cold = start(data_dir)
        rows.append(("cold start to /readyz 200 (initdb)", f"{cold:.2f} s"))
        time.sleep(5)  # let it settle into idle
        rss = psutil.Process(proc.pid).memory_info().rss
        rows.append(("idle RSS, shopagent process", f"{rss / 2**20:.0f} MiB"))
        rows.append(("idle RSS, embedded PostgreSQL (all its processes)", f"{postgres_rss(data_dir) / 2**20:.0f} MiB"))
        rows.append(("stop after SIGTERM (cold run)", f"{stop(proc):.2f} s"))
        warm, stops = [], []
        for _ in range(args.warm_runs):
            proc, _, seconds = start(data_dir)
            warm.append(seconds)
            stops.append(stop(proc))
        rows.append((f"warm start to /readyz 200 (median of {args.warm_runs})", f"{statistics.median(warm):.2f} s"))
        rows.append(("warm / cold ratio", f"{statistics.median(warm) / cold:.2f}"))
        rows.append((f"stop after SIGTERM (median of {args.warm_runs})", f"{statistics.median(stops):.2f} s"))
        leftovers = postgres_rss(data_dir)
        rows.append(("PostgreSQL processes left after the last stop", "none" if leftovers == 0 else "SOME"))
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    width = max(len(name) for name, _ in rows)
    print(f"{'measure'.ljust(width)}  value")
    print(f"{'-' * width}  -----")
    for name, value in rows:
        print(f"{name.ljust(width)}  {value}")
    print(f"\n{os.cpu_count()} CPUs, Python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
