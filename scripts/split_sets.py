#!/usr/bin/env python3
"""Give every line of a judged query or conversation set a `split`: `tune` or `heldout`.

    python scripts/split_sets.py tests/data/pets/queries.jsonl tests/data/pets/conversations.jsonl

Lines that have a split keep it. The others are grouped (queries by `kind`, conversations all
together), ordered by the SHA-256 of their text (`query`, or the conversation's `id`) and
given `tune` and `heldout` in turn, so each kind is halved, the halves do not depend on the
order the lines were written in, and nobody chooses which message lands where. Run it once,
before anyone looks at a result: the held-out half is then measured, never tuned on.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections import defaultdict
from pathlib import Path

SPLITS = ("tune", "heldout")


def key_of(line: dict) -> str:
    return str(line["query"] if "query" in line else line["id"])


def split(lines: list[dict]) -> list[dict]:
    groups: dict[str, list[dict]] = defaultdict(list)
    for line in lines:
        if "split" not in line:
            groups[str(line.get("kind", "conversation"))].append(line)
    for members in groups.values():
        members.sort(key=lambda line: hashlib.sha256(key_of(line).encode()).hexdigest())
        for i, line in enumerate(members):
            line["split"] = SPLITS[i % 2]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    for path in parser.parse_args().files:
        lines = [json.loads(t) for t in path.read_text(encoding="utf-8").splitlines() if t.strip()]
        split(lines)
        path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
        counts = defaultdict(int)
        for line in lines:
            counts[line["split"]] += 1
        print(f"{path}: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))


if __name__ == "__main__":
    main()
