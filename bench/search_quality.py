#!/usr/bin/env python3
"""Search quality per trade, split and kind of query, for this tree and (optionally) another.

    python bench/search_quality.py [--split heldout] [--model local|multilingual] [--before DIR] [--quick]

Each trade's catalog (the clothing sample, tests/data/kitchen, electronics, pets, garden, toys and bikes) is
imported into an embedded PostgreSQL in a scratch folder and indexed with the chosen embedding
model (`local`, MiniLM, by default); the clothing shop is also asked the German and French
shoppers' queries of eval_queries_de/fr.jsonl (rows `clothing-de`, `clothing-fr`), the other trades their
German and French sets (`<trade>-de-fr`) and, where there is one, a second batch of English messages
written blind later (tests/data/<trade>/queries_2.jsonl, rows `<trade>-2`). Every
judged query of the split is searched (limit 10, the line's filters) through the
public search use case. Printed per trade and kind: hit@1 and hit@5 over the answerable
queries, false alarms (answerable, yet `noStrongMatch`), honesty (not answerable and
`noStrongMatch`), and the queries whose words were corrected although the judge did not mark
them as misspelt (each listed, to be read: a real word corrected is a bug; synonyms applied
are not counted).

`--before DIR` runs the same queries against another source tree (e.g. a `git worktree` of an
older commit) in a subprocess and prints its table first, so before and after come from one
run on one machine. Only the search's public calls are used, so older trees work too.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

TREE = Path(os.environ.get("SHOPAGENT_TREE", Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(TREE))
HERE = Path(__file__).resolve().parent.parent  # the query sets always come from this checkout
sys.path.insert(1, str(HERE))

import msgspec

from bench.common import Provenance, grid, scratch

DATA = HERE / "tests" / "data"
SAMPLE = HERE / "shopagent" / "sample_data"
TRADES = {
    "clothing": (SAMPLE / "catalog.json", None, SAMPLE / "eval_queries.jsonl"),
    **{
        trade: (DATA / trade / "catalog.json", DATA / trade / "config.toml", DATA / trade / "queries.jsonl")
        for trade in ("kitchen", "electronics", "pets", "garden", "toys", "bikes")
        if (DATA / trade / "queries.jsonl").is_file()
    },
}


def chosen_trades(quick: bool = False) -> list[str]:
    """The trades to measure: all, or those of --trades (kept in the environment, so that the
    --before subprocess measures the same ones); with --quick and none chosen, the smallest
    catalog only (a check that the script runs)."""
    wanted = [t for t in os.environ.get("SHOPAGENT_BENCH_TRADES", "").split(",") if t]
    unknown = set(wanted) - set(TRADES)
    if unknown:
        raise SystemExit(f"unknown trade(s) {sorted(unknown)}; choose from {sorted(TRADES)}")
    return wanted or (["kitchen"] if quick else list(TRADES))


# More sets of a trade, reported as their own rows: queries in another language than the trade's catalog,
# and later batches.
MORE_SETS = {
    "clothing": {"clothing-de": SAMPLE / "eval_queries_de.jsonl", "clothing-fr": SAMPLE / "eval_queries_fr.jsonl"},
    # Written blind and judged after the grade rule for what a thing goes with was made, to check it
    # (in neither half: `--split validation` measures them alone).
    "kitchen": {"kitchen-goes-with": DATA / "kitchen" / "queries_goes_with.jsonl"},
    "electronics": {"electronics-goes-with": DATA / "electronics" / "queries_goes_with.jsonl"},
    # German and French shoppers' messages, written blind and judged after (README_writer_de_fr.md), in halves
    **{
        trade: {f"{trade}-de-fr": DATA / trade / "queries_de_fr.jsonl"} for trade in ("garden", "pets", "toys", "bikes")
    },
}
for _trade in ("kitchen", "electronics"):
    MORE_SETS[_trade][f"{_trade}-de-fr"] = DATA / _trade / "queries_de_fr.jsonl"
# A second batch of English messages, written blind later (messages_raw_2.md) and judged after, in halves
for _trade in ("garden", "pets", "toys", "bikes"):
    MORE_SETS[_trade][f"{_trade}-2"] = DATA / _trade / "queries_2.jsonl"


def load_embedder(model: str):
    if model == "multilingual":
        from shopagent.adapters.local.multilingual import MultilingualEmbedder

        return MultilingualEmbedder()
    from shopagent.adapters.local.minilm import MiniLMEmbedder

    return MiniLMEmbedder()


async def measure_trade(server, trade: str, split: str, quick: bool, model: str = "local") -> list[dict]:
    import asyncpg

    from shopagent.application.catalog import import_products
    from shopagent.entrypoints.catalog_files import read_catalog_file
    from shopagent.settings import EmbeddingSettings, Secret, Secrets, Settings, load_settings
    from shopagent.wiring.database import prepare_schema
    from shopagent.wiring.services import open_services
    from shopagent.wiring.startup import INDEXER_ACTORS

    catalog, config, queries = TRADES[trade]
    admin = await asyncpg.connect(server.dsn("postgres"))
    await admin.execute(f'CREATE DATABASE "q_{trade}"')
    await admin.close()
    dsn = server.dsn(f"q_{trade}")
    settings = Settings(secrets=Secrets(database_url=Secret(dsn)), embedding=EmbeddingSettings(model=model))
    if config is not None:
        shop = load_settings(config, environ={})
        settings = msgspec.structs.replace(settings, catalog=shop.catalog, store=shop.store)
    await prepare_schema(dsn, settings)
    lines = []
    for label, path in {trade: queries, **MORE_SETS.get(trade, {})}.items():
        if not path.is_file():
            continue  # an older checkout's query sets
        chosen = [json.loads(t) for t in path.read_text().splitlines() if t.strip()]
        # A line of no half (a set written to check a change) is `validation`.
        chosen = [line for line in chosen if split in ("all", line.get("split", "validation"))][: 6 if quick else None]
        lines += [{**line, "set": label} for line in chosen]
    rows = []
    async with open_services(settings, INDEXER_ACTORS | {"mcp"}, embedder=load_embedder(model)) as s:
        await import_products(s.catalog, read_catalog_file(catalog))
        if (pages := DATA / trade / "store_pages").is_dir():  # the shop's own pages, where it has them
            from shopagent.application.store_pages import import_pages
            from shopagent.entrypoints.store_page_files import read_store_pages

            await import_pages(s.store_pages, read_store_pages(pages))
        while events := await s.outbox.claim(64, 60, 5, "bench"):
            await s.index_product.index(events)
        await s.search.refresh()  # its words read from the finished index, whatever the load
        for line in lines:
            f = line.get("filters") or {}
            request = s.search.request(
                line["query"],
                10,
                colors=f.get("colors"),
                sizes=f.get("sizes"),
                min_price=Decimal(str(f["minPrice"])) if "minPrice" in f else None,
                max_price=Decimal(str(f["maxPrice"])) if "maxPrice" in f else None,
                in_stock=f.get("inStock", False),
            )
            result = await s.search.search(request)
            slugs = [p.slug for p in result.products]
            # Corrections of misspellings only (synonyms are reported beside them by newer trees).
            terms = (await s.search.vocabulary()).terms(line["query"])
            typo_fixes = dict(getattr(terms, "typo_fixes", result.corrections))
            rank = next((n for n, slug in enumerate(slugs, 1) if slug in line["acceptable"]), None)
            rows.append({
                "trade": line["set"], "kind": line.get("kind", "-"), "answerable": bool(line["acceptable"]),
                "rank": rank, "no_strong": result.no_strong_match, "corrections": typo_fixes,
                "query": line["query"], "misspelt": line.get("misspelt", False),
                "grades": [(p.match, p.slug in line["acceptable"]) for p in result.products[:5]],
            })  # fmt: skip
    return rows


def misspelt(row: dict) -> bool:
    """Whether the judge marked the query as misspelt (its kind, or a misspelt word in another kind)."""
    return row["kind"] == "typo" or row.get("misspelt", False)


def grade_table(rows: list[dict]) -> list[tuple[str, ...]]:
    """How often a hit of each grade (in the top 5) was one the judge accepted."""
    out = [("grade", "hits in the top 5", "accepted by the judge")]
    for grade in ("strong", "partial", "weak"):
        marks = [accepted for row in rows for match, accepted in row["grades"] if match == grade]
        out.append((grade, str(len(marks)), f"{sum(marks) / len(marks):.2f}" if marks else "-"))
    return out


def table(rows: list[dict]) -> list[tuple[str, ...]]:
    out = [("trade", "kind", "queries", "hit@1", "hit@5", "false alarms", "honesty",
            "typo fixes outside misspelt queries")]  # fmt: skip
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for row in rows:
        groups[(row["trade"], row["kind"])].append(row)
        groups[(row["trade"], "all")].append(row)
        groups[("all", "all")].append(row)

    def order(key: tuple[str, str]) -> tuple[bool, str, bool, str]:
        return key[0] == "all", key[0], key[1] == "all", key[1]

    for (trade, kind), items in sorted(groups.items(), key=lambda kv: order(kv[0])):
        answerable = [r for r in items if r["answerable"]]
        others = [r for r in items if not r["answerable"]]
        share = lambda xs, test: f"{sum(map(test, xs)) / len(xs):.2f}" if xs else "-"  # noqa: E731
        out.append((
            trade, kind, str(len(items)),
            share(answerable, lambda r: r["rank"] == 1),
            share(answerable, lambda r: r["rank"] is not None and r["rank"] <= 5),
            share(answerable, lambda r: r["no_strong"]),
            share(others, lambda r: r["no_strong"]),
            str(sum(bool(r["corrections"]) and not misspelt(r) for r in items)),
        ))  # fmt: skip
    return out


async def run(split: str, quick: bool, folder: Path, model: str = "local") -> list[dict]:
    from shopagent.adapters.postgres.embedded import EmbeddedPostgres

    server = EmbeddedPostgres(folder / "pg")
    await asyncio.to_thread(server.start)
    try:
        rows = []
        for trade in chosen_trades(quick):
            rows += await measure_trade(server, trade, split, quick, model)
        return rows
    finally:
        await asyncio.to_thread(server.stop)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("tune", "heldout", "validation", "all"), default="heldout")
    parser.add_argument("--trades", default="", help="comma-separated trades to measure (default: all)")
    parser.add_argument("--model", choices=("local", "multilingual"), default="local", help="the embedding model")
    parser.add_argument("--before", type=Path, help="another source tree to measure first, in a subprocess")
    parser.add_argument("--quick", action="store_true", help="6 queries of one trade: a check that it runs")
    parser.add_argument("--rows-json", action="store_true", help=argparse.SUPPRESS)  # the --before subprocess
    args = parser.parse_args()
    if args.trades:
        os.environ["SHOPAGENT_BENCH_TRADES"] = args.trades
    chosen_trades()
    provenance = Provenance()
    with scratch("search-quality") as folder:
        if args.rows_json:
            print(json.dumps(asyncio.run(run(args.split, args.quick, folder, args.model))))
            return
        if args.before is not None:
            command = [sys.executable, __file__, "--split", args.split, "--rows-json"]
            command += ["--model", args.model] if args.model != "local" else []  # older trees know only local
            command += ["--quick"] if args.quick else []
            env = {**os.environ, "SHOPAGENT_TREE": str(args.before.resolve())}
            # This interpreter runs this script on another tree of the same project.
            done = subprocess.run(command, env=env, check=True, capture_output=True, text=True)  # noqa: S603
            before = json.loads(done.stdout)
            print(f"before ({args.before}), {args.split}:")
            grid(table(before))
            grid(grade_table(before))
        rows = asyncio.run(run(args.split, args.quick, folder, args.model))
    print(f"this tree, {args.split}, embedding model {args.model}:")
    grid(table(rows))
    grid(grade_table(rows))
    for row in rows:
        if row["corrections"] and not misspelt(row):
            print(f"  corrected outside a misspelt query [{row['trade']} {row['kind']}]: {row['corrections']}")
    print(provenance.line())


if __name__ == "__main__":
    main()
