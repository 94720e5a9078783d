"""Measuring search (and the assistant) against a shop's own judged queries.

A case is a query with the slugs of the products that would be right answers (none: the
shop does not carry it). Search is scored per mode — vector leg only, lexical leg only and
the fused search — with hit@1, hit@5, MRR@10 over the answerable cases and, over the
others, how often the result says `noStrongMatch` (honesty) — and, for the answerable
ones, how often it says so wrongly (false alarms).

The assistant is scored on its final answers: hit@5 (an acceptable product's name appears),
grounding (every product name of the catalog and every price in the answer appears in
that turn's tool results) and, for cases with no right product, whether it named none.
"""

from __future__ import annotations

import contextlib
import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from shopagent.application.agent import AssistantAgent
from shopagent.application.search import CatalogSearch
from shopagent.domain.chat import FunctionResponse
from shopagent.domain.ranking import LEXICAL_ONLY, VECTOR_ONLY, FusionWeights
from shopagent.domain.search import SearchRequest

# An amount with cents, as an answer or a page may write it: "12.95", "59,90", "1,149.00", "1.149,00"
# (thousands grouped); not a measure ("1.55 kg", "12.50 cm")
_AMOUNT = re.compile(
    r"(?<![\d.,])(\d{1,3}(?:[.,\u00a0\u202f]\d{3})+|\d{1,7})[.,](\d{2})(?!\d)(?!\s*(?:kg|g|cm|mm|m|l|ml|cl|%)\b)"
)


def prices_in(text: str) -> set[str]:
    """The amounts with cents a text states, as the catalog writes prices ("1,149.00" -> "1149.00")."""
    return {f"{re.sub(r'[^0-9]', '', whole)}.{cents}" for whole, cents in _AMOUNT.findall(text)}


@dataclass(frozen=True)
class EvalCase:
    line: int
    request: SearchRequest  # the query and filters, validated, limit 10
    acceptable: tuple[str, ...]
    kind: str = ""
    split: str = ""  # tune | heldout | "" (not split)
    misspelt: bool = False  # the judge marked a misspelt word in it (typo queries always have one)

    @property
    def has_typos(self) -> bool:
        return self.kind == "typo" or self.misspelt

    @property
    def answerable(self) -> bool:
        return bool(self.acceptable)


@dataclass
class ModeScore:
    mode: str
    cases: int = 0
    answerable: int = 0
    hit1: float = 0.0
    hit5: float = 0.0
    mrr10: float = 0.0
    no_match_cases: int = 0
    honesty: float | None = None  # share of no-match cases flagged noStrongMatch
    false_alarms: float | None = None  # share of answerable cases flagged noStrongMatch
    misses: list[dict[str, Any]] = field(default_factory=list)  # answerable cases with no hit in the top 5
    by_kind: dict[str, dict[str, Any]] = field(default_factory=dict)  # kind -> cases, hit@5, honesty
    corrections: list[dict[str, Any]] = field(default_factory=list)  # typo corrections made, per query
    suspect_corrections: float | None = None  # share of queries not marked misspelt whose words were corrected


@dataclass
class AssistantScore:
    cases: int = 0
    hit5: float = 0.0
    grounding: float = 0.0
    honesty: float | None = None
    ungrounded: list[dict[str, Any]] = field(default_factory=list)


SEARCH_MODES: dict[str, FusionWeights | None] = {"vector": VECTOR_ONLY, "lexical": LEXICAL_ONLY, "fused": None}


async def evaluate_search(search: CatalogSearch, cases: Sequence[EvalCase], mode: str = "fused") -> ModeScore:
    weights = SEARCH_MODES[mode]
    score = ModeScore(mode=mode, cases=len(cases))
    hits1 = hits5 = reciprocal = honest = alarms = 0.0
    kinds: dict[str, list[float]] = {}  # kind -> [cases, answerable, hits@5, no-match, honest]
    suspects = 0
    vocabulary = await search.vocabulary()
    for case in cases:
        result = await search.search(case.request, weights)
        slugs = [p.slug for p in result.products]
        if fixes := vocabulary.terms(case.request.query).typo_fixes:
            score.corrections.append({"line": case.line, "kind": case.kind, "corrections": dict(fixes)})
            suspects += not case.has_typos
        tally = kinds.setdefault(case.kind or "-", [0, 0, 0, 0, 0])
        tally[0] += 1
        if not case.answerable:
            score.no_match_cases += 1
            honest += result.no_strong_match
            tally[3] += 1
            tally[4] += result.no_strong_match
            continue
        score.answerable += 1
        alarms += result.no_strong_match
        rank = next((n for n, slug in enumerate(slugs[:10], start=1) if slug in case.acceptable), None)
        hits1 += rank == 1
        hits5 += rank is not None and rank <= 5
        tally[1] += 1
        tally[2] += rank is not None and rank <= 5
        reciprocal += 1 / rank if rank else 0.0
        if rank is None or rank > 5:
            score.misses.append({"line": case.line, "query": case.request.query, "got": slugs[:5]})
    graded = weights is None or weights.vector > 0  # grades need the distances of the vector leg
    typo_cases = sum(case.has_typos for case in cases)
    if len(cases) > typo_cases:
        score.suspect_corrections = suspects / (len(cases) - typo_cases)
    if score.answerable:
        score.hit1, score.hit5, score.mrr10 = (x / score.answerable for x in (hits1, hits5, reciprocal))
        score.false_alarms = alarms / score.answerable if graded else None
    if score.no_match_cases and graded:
        score.honesty = honest / score.no_match_cases
    for kind, (n, answerable, found, no_match, flagged) in sorted(kinds.items()):
        score.by_kind[kind] = {
            "cases": n,
            "hit5": found / answerable if answerable else None,
            "honesty": flagged / no_match if no_match and graded else None,
        }
    return score


async def evaluate_assistant(
    agent: AssistantAgent, cases: Sequence[EvalCase], names_by_slug: dict[str, str]
) -> AssistantScore:
    """Each case as a fresh one-message conversation (the query text only, no filters)."""
    score = AssistantScore(cases=len(cases))
    hits = grounded = honest = 0
    answerable = 0
    catalog_names = sorted(set(names_by_slug.values()), key=len, reverse=True)
    for case in cases:
        answer, messages = await agent.run([], case.request.query)
        named = _names_in(answer, catalog_names)
        unknown_names, unknown_prices = ungrounded(answer, messages, catalog_names)
        if unknown_names or unknown_prices:
            score.ungrounded.append(
                {"line": case.line, "names": sorted(unknown_names), "prices": sorted(unknown_prices)}
            )
        else:
            grounded += 1
        if case.answerable:
            answerable += 1
            hits += any(names_by_slug.get(slug) in named for slug in case.acceptable)
        else:
            honest += not named
    score.grounding = grounded / len(cases) if cases else 0.0
    score.hit5 = hits / answerable if answerable else 0.0
    no_match = len(cases) - answerable
    score.honesty = honest / no_match if no_match else None
    return score


def ungrounded(answer: str, messages: Iterable[Any], catalog_names: Sequence[str]) -> tuple[set[str], set[str]]:
    """The catalog's product names and the prices in `answer` that the turn's tool results
    (`messages`) do not hold: (names, prices). Both empty: the answer is grounded."""
    messages = list(messages)
    tool_names, tool_prices = tool_facts(messages)
    named, prices = quoted(answer, catalog_names)
    pages = [text.casefold() for text in tool_passages(messages)]
    named = {n for n in named - tool_names if not any(n.casefold() in page for page in pages)}
    return named, prices - tool_prices - worked_out(tool_prices)


def quoted(answer: str, catalog_names: Sequence[str]) -> tuple[set[str], set[str]]:
    """The catalog's product names and the prices (as "12.34") that `answer` mentions."""
    return _names_in(answer, catalog_names), prices_in(answer)


def tool_facts(messages: Iterable[Any]) -> tuple[set[str], set[str]]:
    """Product names and prices in a turn's tool results: what its answer may quote (the amounts
    a store page's passage states count as its prices)."""
    names: set[str] = set()
    prices: set[str] = set()
    for message in messages:
        for part in message.parts:
            if isinstance(part, FunctionResponse):
                _collect(part.result, names, prices)
    return names, prices


def tool_passages(messages: Iterable[Any]) -> list[str]:
    """The text of the shop's pages in a turn's tool results: a product name their text states (a page on gift
    wrapping naming the gift-wrapping product) is one an answer quoting the page may say."""
    texts: list[str] = []
    for message in messages:
        for part in message.parts:
            if isinstance(part, FunctionResponse):
                _collect(part.result, set(), set(), texts)
    return texts


def worked_out(prices: set[str]) -> set[str]:
    """What an answer may state worked out from these prices of the tool results: how much more one
    costs than another ("costs €12.50 more than"), and what two or three cost together ("Together they
    cost €23.90")."""
    amounts = set()
    for price in prices:
        try:
            amounts.add(Decimal(price))
        except InvalidOperation:
            continue
    ordered = sorted(amounts)
    found = {a - b for a in ordered for b in ordered if a > b}
    found |= {sum(group, Decimal(0)) for size in (2, 3) for group in itertools.combinations(ordered, size)}
    return {f"{amount:.2f}" for amount in found}


def _collect(value: Any, names: set[str], prices: set[str], texts: list[str] | None = None) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "name" and isinstance(item, str):
                names.add(item)
            elif key in ("price", "discountedPrice", "effectivePrice") and item is not None:
                prices.add(str(item))
                with contextlib.suppress(InvalidOperation):  # (as an answer writes it: 1149 -> "1149.00")
                    prices.add(f"{Decimal(str(item)):.2f}")
            elif key == "passages" and isinstance(item, list):
                # The shop's own pages (search-store-information): the amounts their text states.
                for passage in item:
                    text = passage.get("text") if isinstance(passage, dict) else None
                    if isinstance(text, str):
                        prices.update(prices_in(text))
                        if texts is not None:
                            texts.append(text)
            else:
                _collect(item, names, prices, texts)
    elif isinstance(value, list):
        for item in value:
            _collect(item, names, prices, texts)


def _names_in(text: str, catalog_names: Sequence[str]) -> set[str]:
    folded = text.casefold()
    return {name for name in catalog_names if name.casefold() in folded}


async def product_names(catalog: Any, page: int = 500) -> dict[str, str]:
    """Every product's name by slug (a `CatalogService`), to check files and answers against."""
    names: dict[str, str] = {}
    after = 0
    while batch := await catalog.list_products(limit=page, after_id=after):
        names.update((p.slug, p.name) for p in batch)
        after = batch[-1].id
    return names
