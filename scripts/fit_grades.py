#!/usr/bin/env python3
"""Fit the search's grade model on the `tune` halves of the judged query sets.

    python scripts/fit_grades.py [--model local|multilingual] [--data-dir DIR] [--write]

Each embedding model has its own grade model (its distances have their own scale):
`--model local` (MiniLM, the default) writes shopagent/domain/grade_model.py, `--model
multilingual` writes shopagent/domain/grade_model_multilingual.py and also reads the German and
French queries against the English sample catalog (eval_queries_de/fr.jsonl), which are what
that model is for.

Each trade's catalog (the clothing sample, tests/data/kitchen, tests/data/electronics) is
imported into an embedded PostgreSQL and indexed with the chosen model; every `tune` query is
searched and each candidate of either leg becomes one example: its evidence
(shopagent.domain.ranking.features) and whether the judge accepted it. A logistic model is
fitted on them (L2-regularised, Newton's method), then two thresholds on its probability:
`strong_at`, among those flagging at most 30 % of the answerable queries `noStrongMatch`, the
one with the fewest false alarms plus missed "cannot serve" (both as shares), and
`partial_at`, the lowest at which at least one in four candidates graded partial or better
was accepted by the judge.

Only `tune` lines are read: the `heldout` halves are for reporting (`shopagent eval --split
heldout`). `--write` replaces the model's grade file. `--data-dir` keeps the indexed
databases for the next run (the first run takes a few minutes on two cores).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import asyncpg  # noqa: E402
import msgspec  # noqa: E402

from shopagent.adapters.local.minilm import MiniLMEmbedder  # noqa: E402
from shopagent.adapters.local.multilingual import MultilingualEmbedder  # noqa: E402
from shopagent.adapters.postgres.embedded import EmbeddedPostgres  # noqa: E402
from shopagent.application.catalog import import_products  # noqa: E402
from shopagent.application.evaluation import EvalCase, product_names  # noqa: E402
from shopagent.application.ports import EmbeddingModel  # noqa: E402
from shopagent.bootstrap import SAMPLE_CATALOG  # noqa: E402
from shopagent.domain.ranking import FEATURE_NAMES, GradeModel, Match, features, fuse, rank  # noqa: E402
from shopagent.entrypoints.catalog_files import read_catalog_file  # noqa: E402
from shopagent.entrypoints.eval_files import read_eval_file  # noqa: E402
from shopagent.settings import EmbeddingSettings, Secret, Secrets, Settings, load_settings  # noqa: E402
from shopagent.wiring.database import prepare_schema  # noqa: E402
from shopagent.wiring.services import open_services  # noqa: E402
from shopagent.wiring.startup import INDEXER_ACTORS  # noqa: E402

DATA = ROOT / "tests" / "data"
TRADES = {
    "clothing": (SAMPLE_CATALOG, None, SAMPLE_CATALOG.parent / "eval_queries.jsonl"),
    **{
        trade: (DATA / trade / "catalog.json", DATA / trade / "config.toml", DATA / trade / "queries.jsonl")
        for trade in ("kitchen", "electronics", "pets", "garden", "toys", "bikes")
        if (DATA / trade / "queries.jsonl").is_file()
    },
}
# Query sets in other languages than their catalog's, read for the multilingual model only.
CROSS_LANGUAGE = {
    "clothing": [SAMPLE_CATALOG.parent / "eval_queries_de.jsonl", SAMPLE_CATALOG.parent / "eval_queries_fr.jsonl"]
}
PARTIAL_PRECISION = 0.25
# The grades trade false alarms against missed "cannot serve" almost one for one on the tune
# halves (their sum stays within 0.75-0.82 from strong_at 0.08 to 0.60); of the thresholds that
# flag at most this share of answerable queries, the one with the smallest sum is taken.
MAX_FALSE_ALARMS = 0.30
GRADE_MODEL_FILES = {
    "local": ROOT / "shopagent" / "domain" / "grade_model.py",
    "multilingual": ROOT / "shopagent" / "domain" / "grade_model_multilingual.py",
}
# The grade rules' distances (shopagent.domain.ranking.GradeModel) that differ from the defaults,
# by model, chosen on the tune halves: the multilingual model's distances run higher (0.6 for a
# hit not named for the thing asked: hit@1 0.74 -> 0.76, false alarms 0.32 -> 0.29 against 0.5).
RULE_DISTANCES: dict[str, dict[str, float]] = {"local": {}, "multilingual": {"named_elsewhere_distance": 0.6}}
EMBEDDERS: dict[str, type[MiniLMEmbedder] | type[MultilingualEmbedder]] = {
    "local": MiniLMEmbedder,
    "multilingual": MultilingualEmbedder,
}


@dataclass
class Query:
    trade: str
    case: EvalCase
    x: np.ndarray  # one row of features per candidate
    y: np.ndarray  # 1 where the judge accepted the candidate
    ids: list[int]
    slugs: list[str]
    fused: dict[int, float]
    evidence: dict


def settings_for(dsn: str, config: Path | None, model: str = "local") -> Settings:
    embedding = EmbeddingSettings(model=model)  # type: ignore[arg-type]
    settings = Settings(secrets=Secrets(database_url=Secret(dsn)), embedding=embedding)
    if config is not None:
        shop = load_settings(config, environ={})
        settings = msgspec.structs.replace(settings, catalog=shop.catalog, store=shop.store)
    return settings


@contextlib.asynccontextmanager
async def indexed_shop(server: EmbeddedPostgres, trade: str, embedder: EmbeddingModel) -> AsyncIterator[object]:
    catalog, config, _ = TRADES[trade]
    digest = hashlib.sha256(catalog.read_bytes() + (config.read_bytes() if config else b"")).hexdigest()[:10]
    model = next(name for name, kind in EMBEDDERS.items() if isinstance(embedder, kind))
    name = f"fit_{trade}_{digest}" + ("" if model == "local" else f"_{model}")
    admin = await asyncpg.connect(server.dsn("postgres"))
    try:
        fresh = not await admin.fetchval("SELECT true FROM pg_database WHERE datname = $1", name)
        if fresh:
            await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    settings = settings_for(server.dsn(name), config, model)
    if fresh:
        await prepare_schema(server.dsn(name), settings)
    async with open_services(settings, INDEXER_ACTORS | {"mcp"}, embedder=embedder) as services:
        if fresh:
            summary = await import_products(services.catalog, read_catalog_file(catalog))
            assert not summary.rejected, summary.rejected
            while events := await services.outbox.claim(64, 60, 5, "fit"):
                await services.index_product.index(events)
        yield services


async def collect(server: EmbeddedPostgres, split: str, model: str) -> list[Query]:
    embedder = EMBEDDERS[model]()
    queries = []
    for trade, (_, _, query_file) in TRADES.items():
        files = [query_file, *(CROSS_LANGUAGE.get(trade, []) if model == "multilingual" else [])]
        for missing in [f for f in files if not f.is_file()]:
            print(f"{trade}: no {missing.relative_to(ROOT)}, left out", file=sys.stderr)
        files = [f for f in files if f.is_file()]
        if not files:
            continue
        async with indexed_shop(server, trade, embedder) as shop:
            names = await product_names(shop.catalog)
            by_id = {}
            cases = [c for f in files for c in read_eval_file(f, shop.search, set(names)) if c.split == split]
            for case in cases:
                weights = shop.search.policy.weights
                found, _, evidence = await shop.search.gather(case.request, weights)
                ids = list(evidence)
                by_id.update({pid: row.slug for pid, row in found.rows.items()})
                queries.append(
                    Query(
                        trade=trade,
                        case=case,
                        x=np.array([features(evidence[pid]) for pid in ids], dtype=float).reshape(len(ids), -1),
                        y=np.array([by_id[pid] in case.acceptable for pid in ids], dtype=float),
                        ids=ids,
                        slugs=[by_id[pid] for pid in ids],
                        fused=fuse(found.vector, found.lexical, weights),
                        evidence=evidence,
                    )
                )
            print(f"{trade}: {len(cases)} {split} queries", file=sys.stderr)
    return queries


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 50) -> tuple[np.ndarray, float]:
    """Weights and bias maximising the L2-penalised log-likelihood (Newton's method)."""
    a = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(a.shape[1])
    penalty = np.full(a.shape[1], l2)
    penalty[-1] = 0.0  # the bias is not shrunk
    for _ in range(steps):
        p = 1 / (1 + np.exp(-np.clip(a @ w, -50, 50)))
        gradient = a.T @ (p - y) + penalty * w
        hessian = (a * (p * (1 - p))[:, None]).T @ a + np.diag(penalty) + 1e-9 * np.eye(a.shape[1])
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w[:-1], float(w[-1])


@dataclass
class Outcome:
    hit1: float
    hit5: float
    false_alarms: float
    honesty: float


def measure(queries: list[Query], model: GradeModel) -> Outcome:
    hit1 = hit5 = alarms = honest = answerable = unanswerable = 0
    for q in queries:
        ranked = rank(q.fused, q.evidence, model, q.case.request.limit)[:5]
        strong = any(r.match == Match.STRONG for r in ranked)
        accepted = [q.y[q.ids.index(r.product_id)] == 1 for r in ranked]
        if q.case.answerable:
            answerable += 1
            hit1 += bool(accepted and accepted[0])
            hit5 += any(accepted)
            alarms += not strong
        else:
            unanswerable += 1
            honest += not strong
    return Outcome(hit1 / answerable, hit5 / answerable, alarms / answerable, honest / max(unanswerable, 1))


def choose(queries: list[Query], weights: np.ndarray, bias: float, rules: dict[str, float]) -> GradeModel:
    probabilities = np.concatenate([1 / (1 + np.exp(-(q.x @ weights + bias))) for q in queries])
    labels = np.concatenate([q.y for q in queries])
    # Partial: at least one in PARTIAL_PRECISION of the candidates graded so is one a judge accepted.
    partial_at = 0.5
    for threshold in np.linspace(0.01, 0.5, 50):
        graded = probabilities >= threshold
        if graded.any() and labels[graded].mean() >= PARTIAL_PRECISION:
            partial_at = float(threshold)
            break
    best, best_cost = None, None
    for strong_at in np.linspace(max(partial_at, 0.05), 0.95, 91):
        model = GradeModel(tuple(weights), bias, float(strong_at), partial_at, **rules)
        outcome = measure(queries, model)
        if outcome.false_alarms > MAX_FALSE_ALARMS:
            continue
        cost = outcome.false_alarms + (1 - outcome.honesty)
        if best_cost is None or cost < best_cost - 1e-9:
            best, best_cost = model, cost
    assert best is not None
    return best


def write_model(path: Path, model: GradeModel, summary: str, rules: dict[str, float]) -> None:
    weights = ", ".join(f"{w:.4f}" for w in model.weights)
    distances = "".join(f"    {name}={value:.4f},\n" for name, value in rules.items())
    names = "\n".join(f"#   {n}: {w:+.3f}" for n, w in zip(FEATURE_NAMES, model.weights, strict=True))
    path.write_text(
        '"""The fitted grade model (written by scripts/fit_grades.py from the `tune` halves of the judged\n'
        'query sets; do not edit by hand, run the script again)."""\n\n'
        "from shopagent.domain.ranking import GradeModel\n\n"
        f"# {summary}\n# Weights per feature (shopagent.domain.ranking.features):\n{names}\n"
        f"GRADE_MODEL = GradeModel(\n    weights=({weights}),\n    bias={model.bias:.4f},\n"
        f"    strong_at={model.strong_at:.4f},\n    partial_at={model.partial_at:.4f},\n{distances})\n"
    )


async def main(args: argparse.Namespace) -> None:
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="shopagent-fit-"))
    server = EmbeddedPostgres(data_dir)
    await asyncio.to_thread(server.start)
    try:
        queries = await collect(server, "tune", args.model)
    finally:
        await asyncio.to_thread(server.stop)
        if args.data_dir is None:
            shutil.rmtree(data_dir, ignore_errors=True)
    x = np.vstack([q.x for q in queries])
    y = np.concatenate([q.y for q in queries])
    weights, bias = fit_logistic(x, y, args.l2)
    model = choose(queries, weights, bias, RULE_DISTANCES[args.model])
    for name, w in zip(FEATURE_NAMES, weights, strict=True):
        print(f"  {name:<28} {w:+.3f}")
    print(f"  bias {bias:+.3f}, strong at {model.strong_at:.3f}, partial at {model.partial_at:.3f}")
    print(f"{len(queries)} tune queries, {len(y)} candidates ({int(y.sum())} accepted)")
    for trade in [*TRADES, "german", "french", "all"]:
        chosen = [q for q in queries if trade in ("all", q.trade, q.case.kind)]
        if not chosen:
            continue
        o = measure(chosen, model)
        print(f"  tune {trade:<12} hit@1 {o.hit1:.2f} hit@5 {o.hit5:.2f} false alarms {o.false_alarms:.2f} "
              f"honesty {o.honesty:.2f}")  # fmt: skip
    if args.write:
        o = measure(queries, model)
        path = GRADE_MODEL_FILES[args.model]
        write_model(path, model, f"{EMBEDDERS[args.model].model_id}: {len(queries)} tune queries of "
                    f"{len(TRADES)} trades: hit@1 {o.hit1:.2f}, false alarms {o.false_alarms:.2f}, "
                    f"honesty {o.honesty:.2f}", RULE_DISTANCES[args.model])  # fmt: skip
        print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, help="keep the indexed shops here for the next run")
    parser.add_argument("--model", choices=sorted(EMBEDDERS), default="local", help="the embedding model to fit for")
    parser.add_argument("--write", action="store_true", help="write the model's grade file in shopagent/domain/")
    parser.add_argument("--l2", type=float, default=1.0, help="L2 penalty of the logistic fit")
    asyncio.run(main(parser.parse_args()))
