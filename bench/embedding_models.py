"""What each local embedding model costs: load time, memory, indexing and per-query time.

    python bench/embedding_models.py [--models local,multilingual] [--rounds 3] [--queries 200] [--quick]

Each model is measured in fresh interpreters (one per round, models alternated so both see the
same machine load): the time to import its package and load it (sha256 checks included), the
RSS after loading, the wall and CPU time to embed the sample catalog's chunk texts in the
indexer's batches of 32, then --queries single-text embeddings of shopper queries (median and
95th percentile), and the peak RSS of the process (VmHWM). The best round of each figure is
printed: the machine is shared, and the best round is the one least disturbed. `--quick`:
one round, 64 texts and 10 queries (a check that it runs, not figures).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import json
import os
import subprocess
import textwrap

from bench.common import Provenance, grid, scratch

ROOT = Path(__file__).resolve().parents[1]
PROBE = textwrap.dedent(
    """
    import json, statistics, sys, time
    from types import SimpleNamespace

    def status(key):
        with open("/proc/self/status") as f:
            return next(int(l.split()[1]) / 1024 for l in f if l.startswith(key + ":"))

    model, count, most = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    began = time.perf_counter()
    if model == "multilingual":
        from shopagent.adapters.local.multilingual import MultilingualEmbedder as Embedder
    else:
        from shopagent.adapters.local.minilm import MiniLMEmbedder as Embedder
    embedder = Embedder()
    load = time.perf_counter() - began
    loaded_rss = status("VmRSS")
    from shopagent.domain.indexing import chunk_product
    texts = []
    for p in json.load(open("shopagent/sample_data/catalog.json")):
        product = SimpleNamespace(**{k: p.get(k) for k in ("name", "category", "brand", "material", "description")},
                              option_names=(), variations=(), specs={})
        texts += [c.content for c in chunk_product(product, 96)]
    texts = texts[:most]
    wall, cpu = time.perf_counter(), time.process_time()
    for start in range(0, len(texts), 32):
        embedder.embed_sync(texts[start : start + 32])
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    queries = [json.loads(line)["query"] for name in ("eval_queries.jsonl", "eval_queries_de.jsonl")
               for line in open("shopagent/sample_data/" + name)]
    times = []
    for n in range(count):
        began = time.perf_counter()
        embedder.embed_sync([queries[n % len(queries)]])
        times.append(time.perf_counter() - began)
    times.sort()
    print(json.dumps({
        "load": load, "loaded_rss": loaded_rss, "texts": len(texts), "index_wall": wall, "index_cpu": cpu,
        "query_median": statistics.median(times), "query_p95": times[int(len(times) * 0.95)],
        "peak_rss": status("VmHWM"),
    }))
    """
)


def probe(model: str, queries: int, texts: int, folder: Path) -> dict[str, float]:
    # TMPDIR: onnxruntime leaves a session file there.
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(folder)}
    done = subprocess.run(  # noqa: S603 - this interpreter, our own probe
        [sys.executable, "-c", PROBE, model, str(queries), str(texts)],
        cwd=ROOT, env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="local,multilingual")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--quick", action="store_true", help="one round, 64 texts, 10 queries: a check that it runs")
    args = parser.parse_args()
    texts = 64 if args.quick else 1_000_000
    if args.quick:
        args.rounds, args.queries = 1, 10
    provenance = Provenance()
    models = args.models.split(",")
    runs: dict[str, list[dict[str, float]]] = {m: [] for m in models}
    with scratch("embedding-models") as folder:
        for _ in range(args.rounds):
            for model in models:
                runs[model].append(probe(model, args.queries, texts, folder))
    rows = [("", *models)]
    figures = (
        ("import and load", "load", lambda v: f"{v:.2f} s"),
        ("RSS once loaded", "loaded_rss", lambda v: f"{v:.0f} MiB"),
        ("embed the sample's chunk texts, batches of 32 (wall)", "index_wall", lambda v: f"{v:.1f} s"),
        ("... CPU time", "index_cpu", lambda v: f"{v:.1f} s"),
        ("one query, median", "query_median", lambda v: f"{v * 1000:.1f} ms"),
        ("one query, 95th percentile", "query_p95", lambda v: f"{v * 1000:.1f} ms"),
        ("peak RSS", "peak_rss", lambda v: f"{v:.0f} MiB"),
    )
    for label, key, show in figures:
        rows.append((label, *(show(min(r[key] for r in runs[m])) for m in models)))
    grid(rows)
    print(f"{runs[models[0]][0]['texts']:.0f} chunk texts; best of {args.rounds} rounds; {provenance.line()}")


if __name__ == "__main__":
    main()
