"""Draws the lists of a batch of shown questions (`python draw_lists.py [BATCH]`, 2 by default):
12 per shop, each 2-4 products of one category, products not shown in an earlier batch
(tests/data/shown_questions, shown_questions_2, …) preferred; a seeded generator (seed: the
shop's name, "/" and the batch), so the draw can be repeated. Writes lists.json and
lists_for_writer.md into the batch's folder (each list as a shopper sees it: numbered names,
prices, colours, sizes and options)."""

from __future__ import annotations

import json
import random
import sys
from decimal import Decimal
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE.parent.parent.parent
CATALOGS = {
    "clothing": ROOT / "shopagent" / "sample_data" / "catalog.json",
    **{shop: HERE.parent / shop / "catalog.json" for shop in ("kitchen", "electronics", "pets")},
}
PREFIX = {"clothing": "cl", "kitchen": "ki", "electronics": "el", "pets": "pe"}
LISTS_PER_SHOP = 12


def _folder(batch: int) -> Path:
    return HERE.parent / ("shown_questions" if batch == 1 else f"shown_questions_{batch}")


def _products(shop: str) -> list[dict]:
    data = json.loads(CATALOGS[shop].read_text(encoding="utf-8"))
    return data["products"] if isinstance(data, dict) else data


def _price(p: dict, v: dict) -> tuple[Decimal, Decimal]:
    price = Decimal(str(v.get("price") or p["price"]))
    sale = v.get("discountPrice") or (None if v.get("price") else p.get("discountPrice"))
    return (Decimal(str(sale)) if sale else price), price


def line(number: int, p: dict) -> str:
    variations = p.get("variations") or [{}]
    prices = [_price(p, v) for v in variations]
    low, was = min(prices)
    text = f"{number}. {p['name']} - " + ("from " if len({x for x, _ in prices}) > 1 else "") + f"€{low:.2f}"
    if low != was:
        text += f" (was €{was:.2f})"
    colours = sorted({v["color"] for v in variations if v.get("color")})
    sizes = list(dict.fromkeys(v["size"] for v in variations if v.get("size")))
    parts = [f"colours: {', '.join(colours)}"] if colours else []
    if sizes:
        parts.append(f"sizes {', '.join(sizes)}")
    for name in p.get("options") or []:
        values = dict.fromkeys(v["options"][name] for v in variations if name in v.get("options", {}))
        parts.append(f"{name} {', '.join(values)}")
    return text + (" - " + "; ".join(parts) if parts else "")


def draw(batch: int) -> list[dict]:
    earlier = [json.loads((_folder(n) / "lists.json").read_text()) for n in range(1, batch)]
    used = {s for lists in earlier for lst in lists for s in lst["shown"]}
    first = LISTS_PER_SHOP * (batch - 1) + 1  # the first batch has lists 01-12 of each shop
    lists = []
    for shop in CATALOGS:
        rng = random.Random(f"{shop}/{batch}")  # noqa: S311 - a repeatable draw, not a secret
        products = _products(shop)
        categories = sorted({p["category"] for p in products})
        rng.shuffle(categories)
        taken: set[str] = set()
        for n in range(LISTS_PER_SHOP):
            category = categories[n % len(categories)]
            pool = [p for p in products if p["category"] == category and p["slug"] not in taken]
            fresh = [p for p in pool if p["slug"] not in used]
            count = min(rng.randint(2, 4), len(pool))
            chosen = rng.sample(fresh, min(count, len(fresh)))
            chosen += rng.sample([p for p in pool if p not in chosen], count - len(chosen))
            rng.shuffle(chosen)
            taken |= {p["slug"] for p in chosen}
            lists.append({"list": f"{PREFIX[shop]}{first + n:02d}", "shop": shop, "category": category,
                          "shown": [p["slug"] for p in chosen]})  # fmt: skip
    return lists


def main(batch: int) -> None:
    folder = _folder(batch)
    folder.mkdir(exist_ok=True)
    lists = draw(batch)
    (folder / "lists.json").write_text(json.dumps(lists, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    by_slug = {p["slug"]: p for shop in CATALOGS for p in _products(shop)}
    blocks = []
    for lst in lists:
        head = f"### {lst['list']} ({lst['shop']} shop; the shopper had asked for something in: {lst['category']})"
        blocks.append("\n".join([head, *(line(i, by_slug[s]) for i, s in enumerate(lst["shown"], start=1))]))
    (folder / "lists_for_writer.md").write_text("\n\n".join(blocks) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
