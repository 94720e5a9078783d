"""Scale: a generated catalog of N products through the whole pipeline, as a growing shop runs it.

    python bench/scale.py [--products 100000] [--queries 50] [--build-memory-mb 512] [--shared-buffers-mb 0]
                          [--explain] [--quick] [--keep DIR]

Everything lives in one temporary folder (TMPDIR honoured) removed on exit; with `--keep DIR`, in DIR,
kept: a later run with the same DIR and `--products` skips the catalog, the import, the drain and the
build and only searches (a million products take most of an hour to build). It writes a `.json`
catalog of `--products` products (texts drawn from bench/search.py's shop vocabulary; ~10 % come
in red, ~1 % in red M in stock, ~0.1 % in purple), starts an embedded PostgreSQL (with
`--shared-buffers-mb` as `database.embedded_shared_buffers_mb`: 0 is PostgreSQL's 128 MB), and reports:

- the import: `shopagent catalog import FILE` as its own process, its wall time and peak RSS;
- the drain: the indexer (hash embeddings, `indexer.*` settings as configured) run here until
  every import event is done, its rate; then the HNSW build, its time, with the
  `maintenance_work_mem` it took and PostgreSQL's `max_parallel_maintenance_workers`;
- the database's size (chunks, the HNSW index);
- per filter selectivity, over `--queries` queries: the vector leg's recall@10 against exact
  distances with the same filters, its p50/p95 and the plan it chose, the lexical leg's p50
  (the search with that leg alone) and the fused search's p50/p95. Query embedding is the hash
  embedder's (microseconds). `--explain`: EXPLAIN ANALYZE of the lexical leg's statement for one
  query a filter.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parents[1])  # the checkout, not bench/ (see bench/search.py)

import argparse
import logging
import os
import subprocess
import time
from decimal import Decimal

import anyio
import msgspec
import numpy as np

from bench.common import Provenance, grid, scratch
from bench.search import COLORS, KINDS, MATERIALS, QUALITIES, SENTENCES, SIZES, USES, percentile
from shopagent import bootstrap
from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.adapters.postgres.database import ensure_database
from shopagent.adapters.postgres.embedded import EmbeddedPostgres
from shopagent.adapters.postgres.search_plan import Plan
from shopagent.adapters.postgres.search_sql import LEXICAL_ANY, filter_args, lexical_sql
from shopagent.adapters.postgres.vector_index import vector_index_name
from shopagent.domain.ranking import LEXICAL_ONLY, VECTOR_ONLY
from shopagent.settings import (
    DatabaseSettings,
    EmbeddingSettings,
    IndexerSettings,
    SearchSettings,
    Secret,
    Secrets,
    Settings,
)
from shopagent.wiring.database import embedded_options
from shopagent.wiring.services import open_core, open_indexer, open_search
from shopagent.wiring.startup import INDEXER_ACTORS

FILTERS = [
    ("~50 %", {"max_price": Decimal("205.00")}),
    ("~10 %", {"colors": ["red"]}),
    ("~1 %", {"colors": ["red"], "sizes": ["M"], "in_stock": True}),
    ("~0.1 %", {"colors": ["purple"]}),
    ("none", {}),
]


def product(n: int, rng: np.random.Generator) -> dict:
    category = list(KINDS)[int(rng.integers(len(KINDS)))]
    kind = KINDS[category][int(rng.integers(len(KINDS[category])))]
    material, quality = MATERIALS[int(rng.integers(len(MATERIALS)))], QUALITIES[int(rng.integers(len(QUALITIES)))]
    use = USES[int(rng.integers(len(USES)))]
    sentences = [SENTENCES[int(rng.integers(len(SENTENCES)))].format(q=quality, u=use, m=material) for _ in range(3)]
    roll, colour = rng.random(), COLORS[n % len(COLORS)]
    variations = [{"color": colour, "size": str(size), "quantity": int(rng.integers(0, 6)), "reserved": 0}
                  for size in rng.choice(SIZES, size=2, replace=False)]  # fmt: skip
    if roll < 0.001:
        variations.append({"color": "purple", "size": "M", "quantity": 3, "reserved": 0})
    elif roll < 0.011:
        variations.append({"color": "red", "size": "M", "quantity": 3, "reserved": 0})
    elif roll < 0.10:
        variations.append({"color": "red", "size": "L", "quantity": 3, "reserved": 0})
    return {
        "slug": f"p-{n}",
        "name": f"{quality.title()} {material.title()} {kind.title()} {n}",
        "category": category,
        "description": f"A {quality} {kind} for {use}. " + " ".join(sentences),
        "material": material,
        "price": f"{rng.uniform(10, 400):.2f}",
        "variations": variations,
    }


def write_catalog(path: Path, products: int) -> None:
    rng = np.random.default_rng(5)
    with path.open("wb") as out:
        out.write(b"[\n")
        for n in range(products):
            out.write((b",\n" if n else b"") + msgspec.json.encode(product(n, rng)))
        out.write(b"\n]\n")


def run_import(path: Path, dsn: str) -> tuple[float, float, str]:
    """`shopagent catalog import` as its own process: (seconds, peak RSS in MiB, its last output line)."""
    env = {**os.environ, "SHOPAGENT_DATABASE_URL": dsn, "SHOPAGENT_EMBEDDING__MODEL": "hash"}
    began = time.perf_counter()
    process = subprocess.Popen(  # noqa: S603 - this checkout's own command
        [sys.executable, "-m", "shopagent", "catalog", "import", str(path)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdout is not None
    output = process.stdout.read().decode()
    _, status, usage = os.wait4(process.pid, 0)  # this child's own peak, not every child's
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(f"the import failed ({process.returncode}): {output[-500:]}")
    return time.perf_counter() - began, usage.ru_maxrss / 1024, output.strip().splitlines()[-1]


class BuildLog(logging.Handler):
    """The indexer's messages about the vector index build (its memory, PostgreSQL's notices)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if "vector index" in message:
            self.lines.append(message)


async def drain(settings: Settings, embedder: HashEmbedder) -> tuple[float, float, int]:
    """Run the indexer here until the import's events are done and the vector index is built:
    (drain seconds, build seconds, events)."""
    async with (
        open_core(settings, INDEXER_ACTORS) as core,
        open_search(core, embedder=embedder) as searching,
        open_indexer(searching) as indexing,
    ):
        async with core.pool.acquire() as conn:
            row = await conn.fetchrow(
                "SELECT count(*) AS n, min(id) AS first FROM outbox_event WHERE status = 'pending'"
            )
        marks: dict[str, float] = {"start": time.perf_counter()}

        def progress(done: int, total: int) -> None:
            if done >= total and "drained" not in marks:
                marks["drained"] = time.perf_counter()

        await bootstrap.drain_index(indexing, row["first"], row["n"], progress)
        ended = time.perf_counter()
    drained = marks.get("drained", ended)
    return drained - marks["start"], ended - drained, row["n"]


async def database_size(settings: Settings, model: str) -> str:
    async with open_core(settings, frozenset()) as core, core.pool.acquire() as conn:
        row = await conn.fetchrow(
            "SELECT pg_database_size(current_database()) AS db, pg_total_relation_size('product_chunk') AS chunks,"
            " pg_relation_size(to_regclass($1)) AS hnsw, (SELECT count(*) FROM product_chunk) AS n,"
            " (SELECT count(*) FROM product) AS products,"
            " current_setting('max_parallel_maintenance_workers') AS workers",
            vector_index_name(model),
        )
    mib = 2**20
    return (
        f"{row['db'] / mib:,.0f} MiB in all; chunks {row['chunks'] / mib:,.0f} MiB ({row['n']:,} chunks, "
        f"{row['n'] / max(1, row['products']):.1f} per product); HNSW {(row['hnsw'] or 0) / mib:,.0f} MiB; "
        f"max_parallel_maintenance_workers {row['workers']}"
    )


async def explain_lexical(searching, text: str, filters: dict, plan: Plan) -> str:
    """EXPLAIN ANALYZE of the lexical leg's statement for `text` under `filters`, as the search runs it."""
    search, index = searching.search, searching.search.index
    request = search.request(text, 10, **filters)
    vocabulary = await search.vocabulary()
    terms = vocabulary.terms(request.query).terms
    budget = search.policy.lexical_match_products
    matching = vocabulary.match_on(terms, budget)
    depth = max(search.policy.depth, request.limit)
    config = index._config  # the configuration the search uses
    if request.filters.any:
        sql = lexical_sql(request.filters, filter_first=plan is Plan.EXACT)
        args = (
            config,
            list(terms),
            depth,
            *filter_args(request.filters),
            list(matching),
            vocabulary.match_first(terms, budget),
            budget,
        )
    else:
        sql, args = (
            LEXICAL_ANY,
            (config, list(terms), depth, list(matching), vocabulary.match_first(terms, budget), budget),
        )
    async with searching.pool.acquire() as conn, conn.transaction(readonly=True):
        await conn.execute("SET LOCAL plan_cache_mode = force_custom_plan")
        lines = await conn.fetch("EXPLAIN (ANALYZE, BUFFERS) " + sql, *args)
    return f"{text!r} {filters or 'no filter'} (matched on {list(matching)}):\n" + "\n".join(
        "    " + r[0] for r in lines
    )


async def searches(
    settings: Settings, embedder: HashEmbedder, queries: int, explain: bool, explained: list[str]
) -> list[list[str]]:
    rng = np.random.default_rng(9)
    kinds = [kind for group in KINDS.values() for kind in group]
    texts = [
        f"{QUALITIES[int(rng.integers(len(QUALITIES)))]} {kinds[int(rng.integers(len(kinds)))]} "
        f"for {USES[int(rng.integers(len(USES)))]}"
        for _ in range(queries)
    ]
    rows = [["filter", "plan", "recall@10", "vector p50 / p95", "exact plan p50", "lexical p50", "fused p50 / p95",
             "fused / vector p50", "lexical statement p50: rarest word / groups"]]  # fmt: skip
    async with open_core(settings, frozenset()) as core, open_search(core, embedder=embedder) as searching:
        search, index = searching.search, searching.search.index
        vocabulary = await search.vocabulary()
        for label, filters in FILTERS:
            vector_ms, lexical_ms, fused_ms, recalls, exact_ms = [], [], [], [], []
            statement_ms: dict[str, list[float]] = {"rarest": [], "groups": []}
            request = search.request(texts[0], 10, **filters)
            plan = await index.chosen_plan(request.filters, search.policy.depth)
            # The references first: with no or a broad filter the exact scan reads every chunk (seconds
            # at a million products), and no timed search should follow one.
            truths = []
            for text in texts:
                request = search.request(text, 10, **filters)
                began = time.perf_counter()  # the reference is the exact plan's statement: its time too
                truths.append(set(await index.exact_nearest(await embedder.embed_query(text), embedder.model_id,
                                                            request.filters, 10)))  # fmt: skip
                exact_ms.append((time.perf_counter() - began) * 1000)
            for text, truth in zip(texts, truths, strict=True):
                request = search.request(text, 10, **filters)
                began = time.perf_counter()
                found = await search.search(request, VECTOR_ONLY)
                vector_ms.append((time.perf_counter() - began) * 1000)
                began = time.perf_counter()
                await search.search(request, LEXICAL_ONLY)
                lexical_ms.append((time.perf_counter() - began) * 1000)
                began = time.perf_counter()
                await search.search(request)
                fused_ms.append((time.perf_counter() - began) * 1000)
                hits = {h.product_id for h in found.products}
                recalls.append(len(truth & hits) / len(truth) if truth else 1.0)
                # The lexical leg's statement alone, matched as before (on the rarest word alone
                # when it is in more products than the budget) and as now (on groups of words).
                terms = vocabulary.terms(request.query).terms
                budget = search.policy.lexical_match_products
                for way, matching in (("rarest", vocabulary.rarest(terms, budget)),
                                      ("groups", vocabulary.match_on(terms, budget))):  # fmt: skip
                    began = time.perf_counter()
                    await index.candidates(None, embedder.model_id, embedder.dimension, terms, request.filters,
                                           search.policy.depth, match_terms=matching, match_limit=budget,
                                           match_first=vocabulary.match_first(terms, budget))  # fmt: skip
                    statement_ms[way].append((time.perf_counter() - began) * 1000)
            v50, f50 = percentile(vector_ms, 50), percentile(fused_ms, 50)
            if explain:
                explained.append(await explain_lexical(searching, texts[0], filters, plan))
            rows.append([
                label, str(plan), f"{np.mean(recalls):.3f}", f"{v50:.1f} / {percentile(vector_ms, 95):.1f} ms",
                f"{percentile(exact_ms, 50):.1f} ms",
                f"{percentile(lexical_ms, 50):.1f} ms", f"{f50:.1f} / {percentile(fused_ms, 95):.1f} ms",
                f"{f50 / v50:.2f}",
                f"{percentile(statement_ms['rarest'], 50):.1f} / {percentile(statement_ms['groups'], 50):.1f} ms",
            ])  # fmt: skip
    return rows


def say(line: str) -> None:
    """One phase's figures, printed as it ends (a later failure at a million products keeps them)."""
    print(line, flush=True)


async def show(dsn: str, name: str) -> str:
    import asyncpg

    connection = await asyncpg.connect(dsn)
    try:
        return str(await connection.fetchval(f"SHOW {name}"))
    finally:
        await connection.close()


async def main(args: argparse.Namespace, work: Path, provenance: Provenance) -> None:
    catalog = work / "catalog.json"
    built_mark = work / f"built-{args.products}"  # --keep: the database is complete for this many products
    reuse = built_mark.exists()
    if not reuse:
        began = time.perf_counter()
        write_catalog(catalog, args.products)
        written = time.perf_counter() - began
    database = DatabaseSettings(command_timeout_seconds=3600.0, embedded_shared_buffers_mb=args.shared_buffers_mb)
    server = EmbeddedPostgres(work / "data", options=embedded_options(database))
    await anyio.to_thread.run_sync(server.start)
    build_log = BuildLog()
    logging.getLogger("shopagent.indexing").addHandler(build_log)
    logging.getLogger("shopagent.indexing").setLevel(logging.INFO)
    try:
        await ensure_database(server.dsn("postgres"), "bench_scale")
        say(f"server     shared_buffers {await show(server.dsn('postgres'), 'shared_buffers')}")
        dsn = server.dsn("bench_scale")
        settings = Settings(
            secrets=Secrets(database_url=Secret(dsn)),
            embedding=EmbeddingSettings(model="hash"),
            search=SearchSettings(lexical_match_products=args.lexical_match_products),
            indexer=IndexerSettings(index_build_memory_mb=args.build_memory_mb),
            # The recall reference is a sequential scan over every chunk (minutes at a million).
            database=database,
        )
        async with open_core(settings, frozenset()):
            pass  # migrated before the import's clock starts
        if reuse:
            say(f"reused     the database of {args.products:,} products in {work}")
            await searched(settings, args, provenance)
            return
        megabytes = catalog.stat().st_size / 2**20
        say(f"catalog    {args.products:,} products, {megabytes:,.0f} MiB of JSON (written in {written:.0f} s)")
        seconds, rss, said = await anyio.to_thread.run_sync(run_import, catalog, dsn)
        say(f"import     {seconds:,.0f} s ({args.products / seconds:,.0f} products/s), peak RSS {rss:,.0f} MiB: {said}")
        embedder = HashEmbedder(settings.embedding.hash_dimensions)
        drained, built, events = await drain(settings, embedder)
        say(f"drain      {events:,} events in {drained:,.0f} s ({events / drained:,.0f}/s), one indexer process")
        say(f"HNSW build {built:,.1f} s; " + " | ".join(build_log.lines))
        if args.keep:
            catalog.unlink()
            built_mark.touch()
        await searched(settings, args, provenance)
    finally:
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(server.stop)


async def searched(settings: Settings, args: argparse.Namespace, provenance: Provenance) -> None:
    embedder = HashEmbedder(settings.embedding.hash_dimensions)
    say(f"database   {await database_size(settings, embedder.model_id)}")
    explained: list[str] = []
    grid(await searches(settings, embedder, args.queries, args.explain, explained))
    for text in explained:
        print(text)
    print(provenance.line())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--products", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--explain", action="store_true", help="EXPLAIN ANALYZE the lexical leg, one query a filter")
    parser.add_argument(
        "--build-memory-mb",
        type=int,
        default=IndexerSettings().index_build_memory_mb,
        help="indexer.index_build_memory_mb for the HNSW build (the setting's default unless given)",
    )
    parser.add_argument(
        "--shared-buffers-mb",
        type=int,
        default=0,
        help="database.embedded_shared_buffers_mb for the embedded PostgreSQL (0: its default, 128 MB)",
    )
    parser.add_argument(
        "--lexical-match-products",
        type=int,
        default=SearchSettings().lexical_match_products,
        help="search.lexical_match_products: the full-text leg's budget of matched products",
    )
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a check that the script runs")
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it; reuse its database if complete")
    arguments = parser.parse_args()
    if arguments.quick:
        arguments.products, arguments.queries, arguments.explain = 300, 6, True
    provenance = Provenance()
    if arguments.keep:
        arguments.keep.mkdir(parents=True, exist_ok=True)
        anyio.run(main, arguments, arguments.keep.resolve(), provenance, backend="asyncio")
    else:
        with scratch("shopagent-bench-scale-") as folder:
            anyio.run(main, arguments, folder, provenance, backend="asyncio")
