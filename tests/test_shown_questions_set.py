"""tests/data/shown_questions, shown_questions_2 and _3: three batches of 96 questions, each written by
someone who saw only the lists shown (names, prices, options), judged by another from the catalogs
(judging_notes.md). Each batch must stay consistent with the catalogs, the writer's text and its
split rule, decided before judging."""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
BATCHES = [DATA / "shown_questions", DATA / "shown_questions_2", DATA / "shown_questions_3"]
CATALOGS = {
    "clothing": Path(__file__).parent.parent / "shopagent" / "sample_data" / "catalog.json",
    **{shop: DATA / shop / "catalog.json" for shop in ("kitchen", "electronics", "pets")},
}
ITEMS = [
    {**json.loads(line), "batch": batch.name}
    for batch in BATCHES
    for line in (batch / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    if line
]


def _slugs(shop: str) -> set[str]:
    data = json.loads(CATALOGS[shop].read_text(encoding="utf-8"))
    return {p["slug"] for p in (data["products"] if isinstance(data, dict) else data)}


@pytest.mark.parametrize("item", ITEMS, ids=[f"{i['batch']}-{i['id']}" for i in ITEMS])
def test_every_judged_product_is_in_its_list_and_its_catalog(item):
    assert set(item["shown"]) <= _slugs(item["shop"])
    assert item["refers"] and set(item["refers"]) <= set(item["shown"])
    assert set(item["facts"]) == set(item["refers"])
    for phrases in item["facts"].values():
        assert phrases is None or (phrases and all(p == p.lower() for p in phrases)), phrases


def test_the_split_is_the_hash_rule_half_and_half_per_shop_and_batch():
    by_shop = defaultdict(list)
    for item in ITEMS:
        by_shop[item["batch"], item["shop"]].append(item)
    for items in by_shop.values():
        ordered = sorted(items, key=lambda i: hashlib.sha256(i["id"].encode()).hexdigest())
        half = len(ordered) // 2
        assert [i["split"] for i in ordered] == ["tune"] * half + ["heldout"] * (len(ordered) - half)


@pytest.mark.parametrize("batch", BATCHES, ids=[b.name for b in BATCHES])
def test_every_message_is_the_writers_verbatim(batch):
    raw, block = {}, ""
    for line in (batch / "questions_raw.md").read_text(encoding="utf-8").splitlines():
        if heading := re.match(r"^### (\S+)\s*$", line):
            block = heading.group(1)
        elif numbered := re.match(r"^(\d+)\. (.+)$", line):
            raw[f"{block}-{numbered.group(1)}"] = numbered.group(2)
    assert raw == {i["id"]: i["say"] for i in ITEMS if i["batch"] == batch.name}


def test_the_batches_ask_about_different_lists():
    ids = [i["id"] for i in ITEMS]
    assert len(ids) == len(set(ids)) == 288
