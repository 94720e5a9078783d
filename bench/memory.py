"""Memory (RSS) of the real processes: idle, after indexing a catalog and over chat turns, for
the all-in-one process and each role of a split deployment; and where one process's memory
goes.

    python bench/memory.py [--products 200] [--turns 1000] [--concurrency 4] [--before DIR] [--no-roles]
    python bench/memory.py --products 10000      # a synthetic catalog of 10,000 products
    python bench/memory.py --breakdown [--before DIR]
    python bench/memory.py --quick               # tiny sizes, hash embedder: a smoke run, not figures

Each scenario gets a fresh embedded PostgreSQL (measured apart: the sum of its processes' PSS,
which counts its shared buffers once) and real `python -m shopagent` processes over its URL,
with the local embedding model and the offline assistant. `--products` up to 200 takes that
many products of the sample catalog; more is a synthetic catalog (`bench/indexing.py`'s, a few
sentences each, about 3.3 chunks per product).

- all-in-one: `shopagent run` with every role in one process (what `shopagent demo` runs),
  started on an empty migrated database and measured once ready (idle); then the catalog is
  imported with `shopagent catalog import`, measured once nothing waits to be indexed, and
  after every quarter of --turns chat turns over HTTP (five-turn conversations of varied
  shopper messages, --concurrency customers at a time).
- roles: `run --role indexer`, `--role mcp`, `--role chat` (its tools over MCP,
  `chat.mcp_url`) and `--role reaper` started on the empty database (idle), then the same
  import, indexing and turns, each process measured at each point.

--before DIR runs the same against another source tree (e.g. `git worktree add /tmp/base
REV`), with this virtualenv, so that the table has a before column from the same run.
--breakdown instead imports the parts one by one in a fresh interpreter, loads the model,
embeds the sample's chunk texts and returns freed memory, printing the RSS after each step.
Waits are bounded by progress (a stall limit that restarts whenever indexing advances),
never by a fixed sleep. Everything is written under one temporary folder, removed at the end.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as `python bench/NAME.py`: the checkout goes first on the path instead of bench/, so that
# bench/mcp.py cannot shadow the mcp package; the shared helpers are bench.common.
sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import anyio
import asyncpg
import httpx
import msgspec
import psutil

from bench.common import Provenance, free_port, grid, postgres_pss, scratch
from shopagent.adapters.postgres.database import ensure_database
from shopagent.adapters.postgres.embedded import EmbeddedPostgres
from shopagent.domain.tokens import issue_token

REPO = Path(__file__).resolve().parent.parent
AUTH_SECRET = "bench-auth-secret-of-32-bytes-or-more"  # noqa: S105 - a throwaway key of the bench
MCP_KEY = "bench-mcp-key-0123"
ADMIN_KEY = "bench-admin-key-0123"
STALL_SECONDS = 120  # no indexing progress for this long: give up
MiB = 2**20
IDLE = "idle (ready, no products)"


@dataclass
class Sample:
    rss: int
    uss: int
    peak: int  # VmHWM: the highest RSS so far
    threads: int


def sample(pid: int) -> Sample:
    proc = psutil.Process(pid)
    info = proc.memory_full_info()
    peak = 0
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                peak = int(line.split()[1]) * 1024
    return Sample(info.rss, info.uss, peak, proc.num_threads())


class Shopagent:
    """`python -m shopagent ARGS` from `tree`, in its own session, logging to a file."""

    def __init__(self, tree: Path, args: list[str], env: dict[str, str], log: Path) -> None:
        self.log = log
        self.ops_port = int(env["SHOPAGENT_OPS__PORT"])
        with log.open("wb") as out:
            self.proc = subprocess.Popen(  # noqa: S603 - our own entry point
                [sys.executable, "-m", "shopagent", *args],
                env=env,
                cwd=tree,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def check_alive(self) -> None:
        if self.proc.poll() is not None:
            tail = self.log.read_text(errors="replace")[-2000:]
            raise SystemExit(f"shopagent exited with {self.proc.returncode}; the end of {self.log}:\n{tail}")

    async def health(self, client: httpx.AsyncClient) -> dict | None:
        with contextlib.suppress(httpx.HTTPError, ValueError):
            response = await client.get(f"http://127.0.0.1:{self.ops_port}/readyz")
            if response.status_code == 200:
                return response.json()
        return None

    async def wait_ready(self, client: httpx.AsyncClient, timeout: float = 120) -> None:
        with anyio.fail_after(timeout):
            while await self.health(client) is None:
                self.check_alive()
                await anyio.sleep(0.05)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=30)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()


async def wait_indexed(poll: Callable[[], object], check_alive: Callable[[], None]) -> None:
    """Until `poll()` (awaitable of events left, or None while unknown) says 0; fails after
    STALL_SECONDS without a change, however long the whole takes."""
    last, changed_at = None, time.monotonic()
    while True:
        check_alive()
        left = await poll()
        if left == 0:
            return
        if left != last:
            last, changed_at = left, time.monotonic()
        if time.monotonic() - changed_at > STALL_SECONDS:
            raise SystemExit(f"indexing made no progress for {STALL_SECONDS} s ({last} events left)")
        await anyio.sleep(0.1)


def child_env(tree: Path, data_dir: Path, dsn: str, model: str = "local") -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("SHOPAGENT_") and k != "GEMINI_API_KEY"}
    return base | {
        "SHOPAGENT_EMBEDDING__MODEL": model,
        "PYTHONPATH": str(tree),
        "SHOPAGENT_DATABASE_URL": dsn,
        "SHOPAGENT_DATA_DIR": str(data_dir),
        "SHOPAGENT_LOGGING__LEVEL": "warning",
        "SHOPAGENT_AUTH_SECRET": AUTH_SECRET,
        "SHOPAGENT_MCP_API_KEY": MCP_KEY,
        "SHOPAGENT_ADMIN_API_KEY": ADMIN_KEY,
        # 1,000 turns from a few customers: the per-user budget is not what is measured here.
        "SHOPAGENT_CHAT__RATE_PER_MINUTE": "1000000",
        "SHOPAGENT_CHAT__RATE_BURST": "1000000",
        "SHOPAGENT_HTTP__PORT": str(free_port()),
        "SHOPAGENT_MCP__PORT": str(free_port()),
        "SHOPAGENT_OPS__PORT": str(free_port()),
    }


def conversations(count: int, seed: int = 11) -> list[list[str]]:
    """Five-turn shopper conversations: an opening request built from the sample catalog's
    categories, colours, sizes and prices (or one of a few in German and French), then
    follow-ups."""
    catalog = json.loads((REPO / "shopagent" / "sample_data" / "catalog.json").read_text(encoding="utf-8"))
    rng = random.Random(seed)  # noqa: S311 - made-up conversations, not cryptography
    openers = [
        "{category} under {price} euros",
        "warm {category} for winter",
        "{color} {category} in size {size}",
        "something like the {name}",
        "I need {category} for a hiking trip",
        "a present for my dad, he likes {category}",
        "do you have {brand}?",
        "cheap {color} {category}",
        "schwarze {category} unter {price} Euro",
        "des {category} en {color} taille {size}",
    ]
    follow_ups = [
        "in size {size}?",
        "cheaper ones?",
        "in {color}?",
        "tell me more about the second one",
        "compare the first two",
        "is the first one in stock?",
        "anything else?",
        "what is it made of?",
    ]
    endings = ["thanks!", "danke", "merci", "ok, thank you", "great"]
    result = []
    for _ in range(count):
        p = rng.choice(catalog)
        v = rng.choice(p["variations"])
        words = {
            "category": p["category"].lower(),
            "price": rng.choice([30, 50, 80, 100, 150, 200]),
            "color": v.get("color") or "black",
            "size": v.get("size") or "M",
            "name": p["name"],
            "brand": p.get("brand") or p["name"],
        }
        turns = [rng.choice(openers), *rng.sample(follow_ups, 3), rng.choice(endings)]
        result.append([t.format(**words) for t in turns])
    return result


async def chat_turns(
    http_port: int, turns: int, concurrency: int, checkpoints: dict[int, Callable[[], None]]
) -> tuple[float, list[float]]:
    """`turns` chat turns, `concurrency` customers at a time; calls `checkpoints[n]` once n
    turns are answered. Returns (seconds, turn times in ms)."""
    url = f"http://127.0.0.1:{http_port}/api/assistant-agent/chat"
    scripts = iter(conversations((turns + 4) // 5 + concurrency))
    done, times = 0, []
    lock = anyio.Lock()

    async def customer(n: int, client: httpx.AsyncClient) -> None:
        nonlocal done
        headers = {"Authorization": f"Bearer {issue_token(AUTH_SECRET, f'bench-customer-{n}')}"}
        while done < turns:
            conversation_id = None
            for text in next(scripts):
                async with lock:
                    if done >= turns:
                        return
                    done += 1
                    number = done
                body = {"query": text, **({"conversationId": conversation_id} if conversation_id else {})}
                began = time.perf_counter()
                response = await client.post(url, json=body, headers=headers)
                times.append((time.perf_counter() - began) * 1000)
                if response.status_code != 200:
                    raise SystemExit(f"chat answered {response.status_code}: {response.text[:300]}")
                conversation_id = response.json()["conversationId"]
                if number in checkpoints:
                    checkpoints.pop(number)()

    began = time.perf_counter()
    async with httpx.AsyncClient(timeout=60) as client, anyio.create_task_group() as tg:
        for n in range(concurrency):
            tg.start_soon(customer, n, client)
    return time.perf_counter() - began, times


@dataclass
class Figures:
    rows: dict[str, str] = field(default_factory=dict)  # measure -> value
    numbers: dict[str, float] = field(default_factory=dict)  # measure -> MiB or seconds, for ratios
    rss: dict[str, dict[str, float]] = field(default_factory=dict)  # process -> stage -> RSS in MiB

    def summary(self) -> list[list[str]]:
        """RSS per process (rows) and stage (columns): idle, indexed, after each quarter of turns, peak."""
        stages = list(dict.fromkeys(stage for stages in self.rss.values() for stage in stages))
        rows = [["RSS, MiB", *stages]]
        for who, values in self.rss.items():
            rows.append([who, *(f"{values[stage]:.0f}" if stage in values else "-" for stage in stages)])
        return rows

    def mib(self, name: str, value: int) -> None:
        self.rows[name] = f"{value / MiB:.0f} MiB"
        self.numbers[name] = value / MiB

    def seconds(self, name: str, value: float) -> None:
        self.rows[name] = f"{value:.1f} s"
        self.numbers[name] = value

    def text(self, name: str, value: str) -> None:
        self.rows[name] = value

    def process(self, who: str, stage: str, pid: int, *, peak: bool = False) -> None:
        """RSS and USS (memory only this process has) of `pid`; with `peak`, also its highest
        RSS so far and its thread count."""
        s = sample(pid)
        label = f"{who}, {stage}"
        self.rss.setdefault(who, {})[stage] = s.rss / MiB
        if peak:
            self.rss[who]["peak"] = s.peak / MiB
        self.mib(f"{label}: RSS", s.rss)
        self.mib(f"{label}: USS", s.uss)
        if peak:
            self.mib(f"{label}: peak RSS since the start", s.peak)
            self.text(f"{label}: threads", str(s.threads))

    def postgres(self, label: str, data_dir: Path) -> None:
        pss, count = postgres_pss(data_dir)
        self.mib(f"{label}: PostgreSQL, PSS of all its processes", pss)
        self.rows[f"{label}: PostgreSQL, PSS of all its processes"] += f" ({count} processes)"


async def indexing_seconds(dsn: str) -> float:
    conn = await asyncpg.connect(dsn)
    try:
        return await conn.fetchval(
            "SELECT extract(epoch FROM max(done_at) - min(created_at))::float8 FROM outbox_event WHERE status = 'done'"
        )
    finally:
        await conn.close()


async def fresh_postgres(work: Path) -> tuple[EmbeddedPostgres, str]:
    server = EmbeddedPostgres(work)
    await anyio.to_thread.run_sync(server.start)
    await ensure_database(server.dsn("postgres"), "shopagent")
    return server, server.dsn("shopagent")


def write_catalog(products: int, path: Path) -> Path:
    """A catalog file of `products` products: the sample's first ones, or a synthetic one."""
    sample = json.loads((REPO / "shopagent" / "sample_data" / "catalog.json").read_text(encoding="utf-8"))
    if products <= len(sample):
        path.write_text(json.dumps(sample[:products]), encoding="utf-8")
    else:
        from bench.indexing import synthetic_catalog  # bench/indexing.py: the catalog its figures use

        path.write_bytes(msgspec.json.encode(synthetic_catalog(products)))
    return path


def catalog_label(products: int) -> str:
    return f"{products} sample products" if products <= 200 else f"{products:,} synthetic products"


async def index_catalog(tree: Path, env: dict[str, str], catalog: Path, indexer: Shopagent) -> float:
    """Import `catalog` with the CLI, then wait until `indexer` reports nothing left to index.
    Returns the seconds from the import's start."""
    began = time.perf_counter()
    await anyio.to_thread.run_sync(partial(run_cli, tree, env, "catalog", "import", str(catalog)))
    async with httpx.AsyncClient(timeout=5) as client:

        async def events_left() -> int | None:
            indexing = ((await indexer.health(client)) or {}).get("indexing")
            return None if indexing is None else indexing["pending"] + indexing["inFlight"]

        await wait_indexed(events_left, indexer.check_alive)
    return time.perf_counter() - began


async def all_in_one(tree: Path, work: Path, args: argparse.Namespace, figures: Figures) -> None:
    server, dsn = await fresh_postgres(work)
    env = child_env(tree, work, dsn, args.model)
    label = catalog_label(args.products)
    process = None
    try:
        run_cli(tree, env, "migrate")
        began = time.perf_counter()
        process = Shopagent(tree, ["run"], env, work / "run.log")
        async with httpx.AsyncClient(timeout=5) as client:
            await process.wait_ready(client)
        figures.seconds("all-in-one: spawn to ready", time.perf_counter() - began)
        figures.process("all-in-one", IDLE, process.proc.pid)
        catalog = write_catalog(args.products, work / "catalog.json")
        seconds = await index_catalog(tree, env, catalog, process)
        figures.seconds(f"all-in-one: import and index {label}", seconds)
        figures.seconds("all-in-one: indexing, first event to last", await indexing_seconds(dsn))
        figures.process("all-in-one", f"{label} indexed", process.proc.pid)
        figures.postgres(f"all-in-one, {label} indexed", work)
        quarter = max(1, args.turns // 4)
        marks = {
            n: partial(figures.process, "all-in-one", f"after {n} turns", process.proc.pid)
            for n in range(quarter, args.turns + 1, quarter)
        }
        http_port = int(env["SHOPAGENT_HTTP__PORT"])
        seconds, times = await chat_turns(http_port, args.turns, args.concurrency, marks)
        figures.process("all-in-one", f"after {args.turns} turns", process.proc.pid, peak=True)
        figures.postgres(f"all-in-one, after {args.turns} turns", work)
        times.sort()
        figures.text(
            f"all-in-one: {args.turns} turns",
            f"{seconds:.1f} s, p50 {times[len(times) // 2]:.0f} ms, p95 {times[int(len(times) * 0.95)]:.0f} ms",
        )
    finally:
        if process is not None:
            process.stop()
        await anyio.to_thread.run_sync(server.stop)


def run_cli(tree: Path, env: dict[str, str], *args: str) -> None:
    done = subprocess.run(  # noqa: S603 - our own entry point
        [sys.executable, "-m", "shopagent", *args], env=env, cwd=tree, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"shopagent {' '.join(args)} failed ({done.returncode}):\n{done.stderr[-3000:]}")


async def roles(tree: Path, work: Path, args: argparse.Namespace, figures: Figures) -> None:
    server, dsn = await fresh_postgres(work)
    env = child_env(tree, work, dsn, args.model)
    label = catalog_label(args.products)
    started: dict[str, Shopagent] = {}

    def spawn(role: str, **extra: str) -> Shopagent:
        own = env | {"SHOPAGENT_OPS__PORT": str(free_port())} | extra
        started[role] = Shopagent(tree, ["run", "--role", role], own, work / f"{role}.log")
        return started[role]

    try:
        run_cli(tree, env, "migrate")
        async with httpx.AsyncClient(timeout=5) as client:
            indexer = spawn("indexer")
            mcp = spawn("mcp")
            await mcp.wait_ready(client)
            mcp_url = f"http://127.0.0.1:{env['SHOPAGENT_MCP__PORT']}/mcp"
            spawn("chat", SHOPAGENT_CHAT__MCP_URL=mcp_url)
            spawn("reaper")
            for proc in started.values():
                await proc.wait_ready(client)
        for role, proc in started.items():
            figures.process(f"{role} role", IDLE, proc.proc.pid)
        figures.postgres("roles, idle", work)
        catalog = write_catalog(args.products, work / "catalog.json")
        figures.seconds(f"roles: import and index {label}", await index_catalog(tree, env, catalog, indexer))
        for role, proc in started.items():
            figures.process(f"{role} role", f"{label} indexed", proc.proc.pid)
        figures.postgres(f"roles, {label} indexed", work)
        await chat_turns(int(env["SHOPAGENT_HTTP__PORT"]), args.turns, args.concurrency, {})
        for role, proc in started.items():
            figures.process(f"{role} role", f"after {args.turns} turns", proc.proc.pid, peak=True)
        total = sum(sample(p.proc.pid).rss for p in started.values())
        figures.mib(f"roles: RSS of the four processes together, after {args.turns} turns", total)
        figures.postgres(f"roles, after {args.turns} turns", work)
    finally:
        for proc in started.values():
            proc.stop()
        await anyio.to_thread.run_sync(server.stop)


BREAKDOWN = textwrap.dedent(
    """
    import ctypes, json, sys, time
    from types import SimpleNamespace

    def rss():
        with open("/proc/self/status") as f:
            return next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmRSS:"))

    def step(name, seconds=None):
        print(json.dumps([name, rss(), seconds]), flush=True)

    step("interpreter")
    import numpy; step("import numpy")
    import anyio, asyncpg, msgspec, httpx; step("import anyio, asyncpg, msgspec, httpx")
    import starlette.applications, uvicorn; step("import starlette, uvicorn")
    import shopagent.bootstrap; step("import shopagent.bootstrap (the composition root)")
    import shopagent.entrypoints.mcp.server; step("import the MCP server stack (mcp roles)")
    import shopagent.adapters.local.concierge; step("import the offline concierge (chat role)")
    import onnxruntime; step("import onnxruntime")
    import tokenizers; step("import tokenizers")
    from shopagent.adapters.local.minilm import MiniLMEmbedder
    from shopagent.domain.indexing import chunk_product
    embedder = MiniLMEmbedder(); step("MiniLMEmbedder(): model session and tokenizer")
    texts = []
    for p in json.load(open("shopagent/sample_data/catalog.json")):
        product = SimpleNamespace(**{k: p.get(k) for k in ("name", "category", "brand", "material", "description")})
        texts += [c.content for c in chunk_product(product, 96)]
    began = time.perf_counter()
    for start in range(0, len(texts), 32):
        embedder.embed_sync(texts[start : start + 32])
    step(f"embed the sample's {len(texts)} chunk texts, batches of 32", time.perf_counter() - began)
    for text in texts[:200]:
        embedder.embed_sync([text])
    step("embed 200 single texts (queries)")
    ctypes.CDLL("libc.so.6").malloc_trim(0); step("malloc_trim(0): freed heap returned")
    """
)


def breakdown(tree: Path) -> list[tuple[str, int, float | None]]:
    done = subprocess.run(  # noqa: S603 - this interpreter
        [sys.executable, "-c", BREAKDOWN],
        env={**os.environ, "PYTHONPATH": str(tree)},
        cwd=tree,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"the breakdown failed:\n{done.stderr[-3000:]}")
    return [tuple(json.loads(line)) for line in done.stdout.splitlines() if line.startswith("[")]


def print_breakdown(trees: dict[str, Path]) -> None:
    steps = {label: breakdown(tree) for label, tree in trees.items()}
    names = [name for name, _ in steps["now"]]
    labels = list(trees)
    header = ["step", *(f"{label}: RSS (+delta)" for label in labels)]
    rows = [header]
    for i, name in enumerate(names):
        cells = [name]
        for label in labels:
            values = steps[label]
            if i < len(values):
                _, rss, seconds = values[i]
                before = values[i - 1][1] if i else 0
                took = "" if seconds is None else f", {seconds:.1f} s"
                cells.append(f"{rss / MiB:.0f} MiB ({(rss - before) / MiB:+.0f}{took})")
            else:
                cells.append("-")
        rows.append(cells)
    grid(rows)


async def measure(tree: Path, work: Path, args: argparse.Namespace) -> Figures:
    figures = Figures()
    (work / "all-in-one").mkdir()
    await all_in_one(tree, work / "all-in-one", args, figures)
    if not args.no_roles:
        (work / "roles").mkdir()
        await roles(tree, work / "roles", args, figures)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--products", type=int, default=200, help="up to 200: the sample's; more: synthetic")
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--before", type=Path, help="another source tree to measure first, for a before column")
    parser.add_argument("--no-roles", action="store_true", help="only the all-in-one process")
    parser.add_argument("--breakdown", action="store_true", help="where one process's memory goes, step by step")
    parser.add_argument("--quick", action="store_true", help="tiny sizes and the hash embedder: a smoke run")
    args = parser.parse_args()
    args.model = "local"
    if args.quick:
        args.products, args.turns, args.concurrency, args.model = 5, 8, 2, "hash"
    trees = {"before": args.before.resolve(), "now": REPO} if args.before else {"now": REPO}
    provenance = Provenance()
    if args.breakdown:
        print_breakdown(trees)
    else:
        results = {}
        for label, tree in trees.items():
            with scratch(f"shopagent-bench-memory-{label}-") as work:
                results[label] = anyio.run(measure, tree, work, args, backend="asyncio")
        names = list(results["now"].rows)
        if "before" in results:
            rows = [["measure", "before", "now", "now / before"]]
            for name in names:
                old, new = results["before"], results["now"]
                ratio = ""
                if name in old.numbers and name in new.numbers and old.numbers[name]:
                    ratio = f"{new.numbers[name] / old.numbers[name]:.2f}"
                rows.append([name, old.rows.get(name, "-"), new.rows[name], ratio])
        else:
            rows = [["measure", "value"], *([name, results["now"].rows[name]] for name in names)]
        grid(rows)
        for label, figures in results.items():
            print(f"\n{label}:" if len(results) > 1 else "")
            grid(figures.summary())
    print(f"\n{provenance.line()}")


if __name__ == "__main__":
    main()
