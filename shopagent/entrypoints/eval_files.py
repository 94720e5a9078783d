"""`shopagent eval FILE`: judged queries (JSONL) in, a table of search quality out.

Each line: `{"query": "...", "acceptable": ["slug", ...], "filters": {...}?, "kind": "..."?,
"split": "tune" | "heldout"?, "why": "..."?, "misspelt": true?}`; `acceptable: []` marks a query the shop has no
right product for. `split` keeps a held-out half apart: tune the search on `tune`, report `heldout`. `filters` takes the
search tool's shape: colors, sizes, minPrice, maxPrice, inStock. Every line is checked
before anything runs; a bad line (or a slug the catalog does not have) is an error that
names it, and nothing is skipped.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from decimal import Decimal
from pathlib import Path
from typing import Literal, TextIO

import msgspec

from shopagent.application.evaluation import AssistantScore, EvalCase, ModeScore
from shopagent.application.search import CatalogSearch
from shopagent.domain.errors import ShopagentError, ValidationError
from shopagent.domain.inputs import explain


class EvalFileError(ShopagentError):
    """The query file cannot be used as it is; the message names every bad line."""


class _Filters(msgspec.Struct, forbid_unknown_fields=True, rename="camel", kw_only=True):
    colors: list[str] = msgspec.field(default_factory=list)
    sizes: list[str] = msgspec.field(default_factory=list)
    min_price: Decimal | None = None
    max_price: Decimal | None = None
    in_stock: bool = False


class _Line(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    query: str
    acceptable: list[str]
    filters: _Filters | None = None
    kind: str = ""
    split: Literal["tune", "heldout"] | None = None
    why: str = ""  # the judge's reason, for readers of the file
    misspelt: bool = False  # the text has a misspelt word, whatever its kind (a German query's "Turnschue")


def read_eval_file(path: Path, search: CatalogSearch, slugs: set[str]) -> list[EvalCase]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise EvalFileError(f"cannot read {path}: {exc}") from None
    cases, problems = [], []
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            cases.append(_case(number, text, search, slugs))
        except msgspec.ValidationError as exc:
            problems.append(f"{path}:{number}: {explain(exc)}")
        except (msgspec.DecodeError, ValidationError) as exc:
            problems.append(f"{path}:{number}: {exc}")
    if problems:
        raise EvalFileError(
            "; ".join(problems[:20]) + (f" (and {len(problems) - 20} more)" if len(problems) > 20 else "")
        )
    if not cases:
        raise EvalFileError(f"{path} has no queries")
    return cases


def _case(number: int, text: str, search: CatalogSearch, slugs: set[str]) -> EvalCase:
    line = msgspec.json.decode(text, type=_Line)
    f = line.filters or _Filters()
    request = search.request(
        line.query,
        10,
        colors=f.colors,
        sizes=f.sizes,
        min_price=f.min_price,
        max_price=f.max_price,
        in_stock=f.in_stock,
    )
    unknown = [s for s in line.acceptable if s not in slugs]
    if unknown:
        raise ValidationError(f"acceptable slug(s) not in the catalog: {', '.join(unknown)}")
    return EvalCase(
        line=number,
        request=request,
        acceptable=tuple(line.acceptable),
        kind=line.kind,
        split=line.split or "",
        misspelt=line.misspelt,
    )


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def print_report(scores: Sequence[ModeScore], assistant: AssistantScore | None, out: TextIO) -> None:
    first = scores[0]
    print(
        f"{first.cases} queries: {first.answerable} with a right product, {first.no_match_cases} without",
        file=out,
    )
    print(
        f"{'mode':<10} {'hit@1':>6} {'hit@5':>6} {'MRR@10':>7} {'no-match honesty':>17} {'false alarms':>13}", file=out
    )
    for s in scores:
        print(
            f"{s.mode:<10} {s.hit1:>6.2f} {s.hit5:>6.2f} {s.mrr10:>7.2f} {_pct(s.honesty):>17} "
            f"{_pct(s.false_alarms):>13}",
            file=out,
        )
    if assistant is not None:
        print(
            f"assistant  hit@5 {assistant.hit5:.2f}, grounding {assistant.grounding:.2f}, "
            f"no-match honesty {_pct(assistant.honesty)}",
            file=out,
        )
        for item in assistant.ungrounded:
            print(f"  ungrounded answer, line {item['line']}: {item}", file=out)
    fused = scores[-1]
    if len(fused.by_kind) > 1:
        print(f"by kind ({fused.mode}):", file=out)
        for kind, k in fused.by_kind.items():
            print(f"  {kind:<12} {k['cases']:>4} queries  hit@5 {_pct(k['hit5']):>5}  no-match honesty "
                  f"{_pct(k['honesty']):>5}", file=out)  # fmt: skip
    if fused.suspect_corrections is not None:
        print(
            f"typo corrections: {len(fused.corrections)} queries; outside the queries marked typo: "
            f"{fused.suspect_corrections:.2f} of them (check each below: a real word corrected is a bug)",
            file=out,
        )
    for fixed in fused.corrections:
        print(f"  corrected ({fixed['kind'] or '-'}), line {fixed['line']}: {fixed['corrections']}", file=out)
    for miss in fused.misses:
        print(f"  miss ({fused.mode}), line {miss['line']}: {miss['query']!r} -> {', '.join(miss['got'])}", file=out)


def write_json(scores: Sequence[ModeScore], assistant: AssistantScore | None, out: TextIO) -> None:
    report = {"search": {s.mode: asdict(s) for s in scores}, "assistant": asdict(assistant) if assistant else None}
    json.dump(report, out, indent=2)
    out.write("\n")
