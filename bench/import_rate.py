"""Import rate and memory: `shopagent catalog import` of N generated products, per file format.

    python bench/import_rate.py [--products 10000] [--formats json,jsonl,csv] [--tree DIR] [--again] [--quick]

Everything lives in one temporary folder (TMPDIR honoured) removed on exit. It writes the
catalog (bench/scale.py's generated products) as a .json array, as JSON Lines and as our CSV
(one row per variation), starts an embedded PostgreSQL and, per format, into a database of its
own (migrated before the clock starts), runs `shopagent catalog import FILE` as its own
process: its wall time, products per second and peak RSS (`wait4`). `--again` imports the same
file a second time (everything found unchanged). `--tree DIR` runs the command from another
checkout of shopagent (PYTHONPATH), so the code before a change can be measured beside the code
after it in one sitting; the generated files and the database are the same.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parents[1])  # the checkout, not bench/ (see bench/search.py)

import argparse
import csv
import os
import subprocess
import time

import anyio
import msgspec
import numpy as np

from bench.common import Provenance, grid, scratch
from bench.scale import product
from shopagent.adapters.postgres.database import ensure_database
from shopagent.adapters.postgres.embedded import EmbeddedPostgres
from shopagent.settings import EmbeddingSettings, Secret, Secrets, Settings
from shopagent.wiring.services import open_core

CSV_COLUMNS = ["slug", "name", "category", "description", "material", "price", "color", "size", "quantity", "reserved"]


def write_files(work: Path, products: int, formats: list[str]) -> dict[str, Path]:
    """The same products in each format, written a product at a time."""
    paths = {f: work / f"catalog.{f}" for f in formats}
    rng = np.random.default_rng(5)
    files = {f: p.open("w", newline="") for f, p in paths.items()}
    writer = csv.writer(files["csv"]) if "csv" in files else None
    try:
        if writer is not None:
            writer.writerow(CSV_COLUMNS)
        for n in range(products):
            item = product(n, rng)
            text = msgspec.json.encode(item).decode()
            if "json" in files:
                files["json"].write(("[\n" if n == 0 else ",\n") + text)
            if "jsonl" in files:
                files["jsonl"].write(text + "\n")
            if writer is not None:
                for variation in item["variations"]:
                    writer.writerow([{**item, **variation}.get(c, "") for c in CSV_COLUMNS])
        if "json" in files:
            files["json"].write("\n]\n" if products else "[]\n")
    finally:
        for file in files.values():
            file.close()
    return paths


def run_import(path: Path, dsn: str, tree: Path | None) -> tuple[float, float, str]:
    """`shopagent catalog import` as its own process: (seconds, peak RSS in MiB, its summary line)."""
    env = {**os.environ, "SHOPAGENT_DATABASE_URL": dsn, "SHOPAGENT_EMBEDDING__MODEL": "hash"}
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    # `-m` looks in the working folder first: the checkout whose code is measured.
    here = tree or Path(__file__).resolve().parents[1]
    began = time.perf_counter()
    process = subprocess.Popen(  # noqa: S603 - shopagent's own command
        [sys.executable, "-m", "shopagent", "catalog", "import", str(path)],
        env=env,
        cwd=here,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdout is not None
    output = process.stdout.read().decode()
    _, status, usage = os.wait4(process.pid, 0)  # this child's own peak, not every child's
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"the import failed ({status}): {output[-500:]}")
    said = next(line for line in output.splitlines() if " created, " in line)
    return time.perf_counter() - began, usage.ru_maxrss / 1024, said


def _code(tree: Path | None) -> str:
    if tree is None:
        return "this checkout (the commit below)"
    done = subprocess.run(  # noqa: S603 - git on the checkout named
        ["git", "-C", str(tree), "rev-parse", "--short", "HEAD"],  # noqa: S607 - git from PATH
        capture_output=True,
        text=True,
        check=False,
    )
    return f"{tree} at commit {done.stdout.strip() or '(not a git checkout)'}"


async def main(args: argparse.Namespace, work: Path, provenance: Provenance) -> None:
    formats = args.formats.split(",")
    began = time.perf_counter()
    paths = write_files(work, args.products, formats)
    print(f"catalog    {args.products:,} products written in {time.perf_counter() - began:.0f} s")
    server = EmbeddedPostgres(work / "data")
    await anyio.to_thread.run_sync(server.start)
    rows = [["format", "file", "run", "seconds", "products/s", "peak RSS", "summary"]]
    try:
        for number, (kind, path) in enumerate(paths.items()):
            await ensure_database(server.dsn("postgres"), f"bench_import_{number}")
            dsn = server.dsn(f"bench_import_{number}")
            settings = Settings(secrets=Secrets(database_url=Secret(dsn)), embedding=EmbeddingSettings(model="hash"))
            async with open_core(settings, frozenset()):
                pass  # migrated before the import's clock starts
            for run in ("first", "again")[: 2 if args.again else 1]:
                seconds, rss, said = await anyio.to_thread.run_sync(run_import, path, dsn, args.tree)
                size = f"{path.stat().st_size / 2**20:,.1f} MiB"
                rate = f"{args.products / seconds:,.0f}"
                rows.append([kind, size, run, f"{seconds:,.1f}", rate, f"{rss:,.0f} MiB", said.split(": ", 1)[1]])
    finally:
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(server.stop)
    print(f"code       {_code(args.tree)}")
    grid(rows)
    print(provenance.line())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--products", type=int, default=10_000)
    parser.add_argument("--formats", default="json,jsonl,csv")
    parser.add_argument("--tree", type=Path, help="run the import command from this checkout instead")
    parser.add_argument("--again", action="store_true", help="import each file a second time (all unchanged)")
    parser.add_argument("--quick", action="store_true", help="300 products, each format once")
    arguments = parser.parse_args()
    if arguments.quick:
        arguments.products = 300
    provenance = Provenance()
    with scratch("shopagent-bench-import-") as folder:
        anyio.run(main, arguments, folder, provenance)
