"""A multilingual third search leg beside MiniLM, or a plain switch of the embedding model?

    python bench/cross_language_legs.py [--split heldout] [--quick]

The clothing sample is indexed twice in an embedded PostgreSQL in a scratch folder, with MiniLM
and with the multilingual encoder. Every judged query of the split (eval_queries.jsonl and the
German and French sets) is gathered from both: MiniLM's vector leg, the multilingual vector leg
and the full-text leg (the same in both). Four rankings are scored by their fused order alone
(weighted reciprocal rank fusion with the configured weights; grades left out, so each variant
is judged by the same rule):

- `minilm`: MiniLM's vector leg + full text (today's default);
- `switch`: the multilingual vector leg + full text (embedding.model = "multilingual");
- `third leg, foreign only`: MiniLM + full text, plus the multilingual vector leg for the
  queries not in the catalog's language (as their set or kind says: a perfect language
  detector, so this is the best such a leg could do);
- `third leg, always`: all three legs for every query.

`--quick` indexes 30 products and asks 3 queries per set: a check that it runs, not figures.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import asyncio
import json
from collections import defaultdict

import asyncpg

from bench.common import Provenance, grid, scratch

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "shopagent" / "sample_data"
SETS = {"english": "eval_queries.jsonl", "de": "eval_queries_de.jsonl", "fr": "eval_queries_fr.jsonl"}


async def indexed(server, model: str, products: int | None):
    from shopagent.application.catalog import import_products
    from shopagent.bootstrap import SAMPLE_CATALOG
    from shopagent.entrypoints.catalog_files import read_catalog_file
    from shopagent.settings import EmbeddingSettings, Secret, Secrets, Settings
    from shopagent.wiring.database import prepare_schema
    from shopagent.wiring.services import open_services
    from shopagent.wiring.startup import INDEXER_ACTORS

    admin = await asyncpg.connect(server.dsn("postgres"))
    await admin.execute(f'CREATE DATABASE "legs_{model}"')
    await admin.close()
    dsn = server.dsn(f"legs_{model}")
    settings = Settings(secrets=Secrets(database_url=Secret(dsn)), embedding=EmbeddingSettings(model=model))  # type: ignore[arg-type]
    await prepare_schema(dsn, settings)
    if model == "multilingual":
        from shopagent.adapters.local.multilingual import MultilingualEmbedder as Embedder
    else:
        from shopagent.adapters.local.minilm import MiniLMEmbedder as Embedder  # type: ignore[assignment]
    services = open_services(settings, INDEXER_ACTORS | {"mcp"}, embedder=Embedder())
    s = await services.__aenter__()
    await import_products(s.catalog, read_catalog_file(SAMPLE_CATALOG)[:products])
    while events := await s.outbox.claim(64, 60, 5, "bench"):
        await s.index_product.index(events)
    await s.search.refresh()  # its words read from the finished index, whatever the load
    return services, s


async def legs(shop, query: str) -> tuple[list[str], list[str]]:
    """The vector and full-text legs' products (slugs, best first)."""
    request = shop.search.request(query, 10)
    found, _, _ = await shop.search.gather(request, shop.search.policy.weights)
    slug = {pid: row.slug for pid, row in found.rows.items()}
    return [slug[p] for p in found.vector if p in slug], [slug[p] for p in found.lexical if p in slug]


def fused(ranked_lists: list[tuple[float, list[str]]], k: float) -> list[str]:
    scores: dict[str, float] = defaultdict(float)
    for weight, ranked in ranked_lists:
        for rank, slug in enumerate(ranked, start=1):
            scores[slug] += weight / (k + rank)
    return sorted(scores, key=lambda s: (-scores[s], s))


async def run(split: str, folder: Path, quick: bool = False) -> list[dict]:
    from shopagent.adapters.postgres.embedded import EmbeddedPostgres

    server = EmbeddedPostgres(folder / "pg")
    await asyncio.to_thread(server.start)
    opened = []
    try:
        products, per_set = (30, 3) if quick else (None, None)
        minilm_ctx, minilm = await indexed(server, "local", products)
        opened.append(minilm_ctx)
        multi_ctx, multi = await indexed(server, "multilingual", products)
        opened.append(multi_ctx)
        w = minilm.search.policy.weights
        rows = []
        for name, file in SETS.items():
            for line in list(map(json.loads, (SAMPLE / file).read_text().splitlines()))[:per_set]:
                if (split != "all" and line.get("split") != split) or not line["acceptable"] or line.get("filters"):
                    continue
                language = name if name != "english" else {"german": "de", "french": "fr"}.get(line["kind"], "en")
                vec_l, lex = await legs(minilm, line["query"])
                vec_m, _ = await legs(multi, line["query"])
                variants = {
                    "minilm": fused([(w.vector, vec_l), (w.lexical, lex)], w.k),
                    "switch": fused([(w.vector, vec_m), (w.lexical, lex)], w.k),
                    "third leg, foreign only": fused(
                        [(w.vector, vec_l), (w.lexical, lex)] + ([(w.vector, vec_m)] if language != "en" else []), w.k
                    ),
                    "third leg, always": fused([(w.vector, vec_l), (w.lexical, lex), (w.vector, vec_m)], w.k),
                }
                for variant, order in variants.items():
                    rank = next((n for n, s in enumerate(order, 1) if s in line["acceptable"]), None)
                    rows.append({"variant": variant, "language": language, "rank": rank})
        return rows
    finally:
        for ctx in reversed(opened):
            await ctx.__aexit__(None, None, None)
        await asyncio.to_thread(server.stop)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("tune", "heldout", "all"), default="heldout")
    parser.add_argument("--quick", action="store_true", help="30 products, 3 queries per set: a check that it runs")
    args = parser.parse_args()
    provenance = Provenance()
    with scratch("cross-language-legs") as folder:
        rows = asyncio.run(run(args.split, folder, args.quick))
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for row in rows:
        groups[(row["variant"], row["language"])].append(row)
        groups[(row["variant"], "all")].append(row)
    table = [("variant", "language", "queries", "hit@1", "hit@5")]
    for (variant, language), items in groups.items():
        hit1 = sum(r["rank"] == 1 for r in items) / len(items)
        hit5 = sum(r["rank"] is not None and r["rank"] <= 5 for r in items) / len(items)
        table.append((variant, language, str(len(items)), f"{hit1:.2f}", f"{hit5:.2f}"))
    grid(table)
    print(f"answerable {args.split} queries without explicit filters; {provenance.line()}")


if __name__ == "__main__":
    main()
