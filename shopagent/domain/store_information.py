"""How sure a store-page passage answers a question: its grade, and the result of the
`search-store-information` tool.

Passages are ranked like products (`ranking.fuse`: weighted reciprocal rank fusion of the
vector and full-text legs), and graded by a rule on two pieces of evidence, calibrated on the
demo shop's pages with questions written before reading them (tests/test_store_information.py):

- `coverage`: the share of the question's words (those the page language does not drop as stop
  words, stemmed in the page language) that the passage, its heading or its page title has;
- `distance`: the cosine distance of the passage to the question (the catalog's embedding model).

**strong** — the passage is very likely the answer: it has most of the question's words and is
close in meaning, or is very close in meaning alone, or has every word and is not far in meaning,
or it is one of the three passages nearest in meaning, all of one page, the nearest fairly close
(the question is that page's topic though it shares few words with it);
**partial** — on the topic (some of the words, or fairly close, or the nearest passage of the page
whose title names the question's topic: "Shipping and delivery" for "how quick can you deliver to
Leuven", `TOPICS`; those come first of the partial ones): it may hold the answer, read it before
relying on it; **weak** — only loosely related: do not present it as the answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import msgspec

from shopagent.domain.ranking import FusionWeights, Match, fuse
from shopagent.domain.text import words

_ORDER = {Match.STRONG: 0, Match.PARTIAL: 1, Match.WEAK: 2}

# The topics a shop's pages are titled for, by the words that name them in a question (read in
# the pages' words first: "Rücksendung" is "return") and in a page's title ("Shipping and
# delivery", "Returns & refunds", "Payment methods", "How to measure your pet"). Only words that
# name nothing else in a shop: "arrive", "order" or "pet" would tie any question to any page.
TOPICS: dict[str, frozenset[str]] = {
    "delivery": frozenset({
        "ship", "ships", "shipping", "shipped", "shipment", "deliver", "delivers", "delivering", "delivery",
        "deliveries", "delivered", "postage", "dispatch", "dispatched", "courier", "carrier", "carriers",
    }),
    "returns": frozenset({
        "return", "returns", "returning", "returned", "refund", "refunds", "refunded", "exchange", "exchanges",
        "exchanging", "withdrawal",
    }),
    "payment": frozenset({"pay", "paying", "payment", "payments", "paid", "invoice", "instalments", "checkout"}),
    "sizes": frozenset({"size", "sizes", "sizing", "measure", "measuring", "measurements"}),
    "contact": frozenset({"contact", "contacting"}),
    "privacy": frozenset({"privacy", "cookies", "gdpr"}),
    "warranty": frozenset({"warranty", "guarantee", "repair", "repairs", "workshop", "servicing"}),
}  # fmt: skip


@dataclass(frozen=True)
class PassageGrading:
    """The grade rule's thresholds (cosine distances and word shares)."""

    strong_distance: float = 0.35  # this close, strong whatever its words
    strong_coverage: float = 0.5  # ... this share of the words and
    strong_coverage_distance: float = 0.6  # ... this close
    full_coverage_distance: float = 0.75  # every word and this close: strong
    partial_distance: float = 0.6  # this close, partial
    partial_coverage: float = 0.25  # ... or this share of the words
    agreeing: int = 3  # the nearest passages this many, all of one page, and
    agreeing_distance: float = 0.55  # ... the nearest this close: the question is that page's topic
    topic_distance: float = 0.75  # the nearest passage of the page titled for the question's topic, this close

    def grade(self, e: PassageEvidence) -> Match:
        if e.distance <= self.strong_distance:
            return Match.STRONG
        if e.coverage >= self.strong_coverage and e.distance <= self.strong_coverage_distance:
            return Match.STRONG
        if e.coverage >= 1.0 and e.distance <= self.full_coverage_distance:
            return Match.STRONG
        if e.distance <= self.partial_distance or e.coverage >= self.partial_coverage:
            return Match.PARTIAL
        return Match.WEAK


@dataclass(frozen=True)
class PassageEvidence:
    """What both legs know about one candidate passage of one query."""

    page: str  # the page's slug
    title: str
    url: str | None
    text: str
    distance: float
    vector_rank: int | None
    lexical_rank: int | None
    coverage: float


class PassageHit(msgspec.Struct, frozen=True):
    page: str
    title: str
    url: str | None
    text: str
    grade: Match


class StoreInformation(msgspec.Struct, frozen=True, rename="camel"):
    passages: list[PassageHit]
    no_strong_match: bool


def rank_passages(
    candidates: Sequence[PassageEvidence],
    grading: PassageGrading,
    weights: FusionWeights,
    limit: int,
    question: Sequence[str] = (),
) -> StoreInformation:
    """The best `limit` passages: by grade, then fused score; `noStrongMatch` when none is strong.
    `question` is the question's words (in the pages' words), for the topic its words name."""
    keys = {(c.page, c.text): c for c in candidates}
    by_vector = sorted((c for c in candidates if c.vector_rank), key=lambda c: c.vector_rank or 0)
    by_text = sorted((c for c in candidates if c.lexical_rank), key=lambda c: c.lexical_rank or 0)
    ids = {key: i for i, key in enumerate(keys)}
    scores = fuse([ids[(c.page, c.text)] for c in by_vector], [ids[(c.page, c.text)] for c in by_text], weights)
    agreed = _agreeing(list(keys.values()), grading)
    asked = topics_named(question)
    titled = {c.page: topics_named(words(c.title)) for c in keys.values()}  # the topics each page is titled for
    topical = _on_topic(list(keys.values()), asked, titled, grading)
    off_topic = _off_topic(asked, titled)
    graded = []
    for key, c in keys.items():
        grade = Match.STRONG if key in agreed else grading.grade(c)
        # "can I pay by invoice?" is not surely answered by the returns page's "Klarna invoices are adjusted"
        grade = Match.PARTIAL if grade is Match.STRONG and c.page in off_topic else grade
        # On the page titled for the question's topic, though maybe not about what is asked of it
        # ("do you ship christmas trees?"): partial, and first of those.
        grade = Match.PARTIAL if grade is Match.WEAK and key in topical else grade
        graded.append((grade, not (grade is Match.PARTIAL and key in topical), scores.get(ids[key], 0.0), c))
    graded.sort(key=lambda g: (_ORDER[g[0]], g[1], -g[2], g[3].page, g[3].text))
    hits = [PassageHit(c.page, c.title, c.url, c.text, grade) for grade, _, _, c in graded[:limit]]
    return StoreInformation(passages=hits, no_strong_match=not any(h.grade is Match.STRONG for h in hits))


def _agreeing(candidates: list[PassageEvidence], grading: PassageGrading) -> set[tuple[str, str]]:
    """The nearest passages, when they are all of one page and the nearest is close enough: "ok
    whats your return policy if i order the wrong thing" shares few words with any passage, but
    its three nearest are all on the returns page. Words that no page has ("pallets") then do not
    hide the page the question is about. Only among pages of more than one kind (a shop with one
    page agrees with itself on everything), and only those of the three close enough to be partial."""
    nearest = sorted(candidates, key=lambda c: (c.distance, c.page, c.text))[: grading.agreeing]
    if len(nearest) < grading.agreeing or nearest[0].distance > grading.agreeing_distance:
        return set()
    if len({c.page for c in nearest}) > 1 or len({c.page for c in candidates}) < 2:
        return set()  # a shop with one page agrees with itself on everything
    return {(c.page, c.text) for c in nearest if c.distance <= grading.partial_distance}


def _on_topic(
    candidates: list[PassageEvidence], asked: set[str], titled: dict[str, set[str]], grading: PassageGrading
) -> set[tuple[str, str]]:
    """For each topic the question's words name (`TOPICS`), the nearest passage of the pages whose
    titles name it, when close enough: "Kann ich Artikel zurückschicken?" ("return") is about the
    "Returns and refunds" page, though its passages are about what and how, each in other words.
    On a page titled for several topics ("Shipping and returns"), the nearest passage with a word of
    the topic asked, if one has. Not in a shop whose pages are all titled for one topic."""
    if not asked or len(titled) < 2:
        return set()
    chosen = set()
    for topic in asked:
        on_topic = [c for c in candidates if topic in titled[c.page]]
        if not on_topic or len({c.page for c in on_topic}) == len(titled):
            continue
        worded = [c for c in on_topic if TOPICS[topic].intersection(words(c.text))]
        nearest = min(worded or on_topic, key=lambda c: (c.distance, c.page, c.text))
        if nearest.distance <= grading.topic_distance:
            chosen.add((nearest.page, nearest.text))
    return chosen


def _off_topic(asked: set[str], titled: dict[str, set[str]]) -> set[str]:
    """The pages titled for other topics than all those the question names, where a page is titled for
    one it names ("Returns and refunds" for "can I pay by invoice?" beside a "Payment" page)."""
    if not asked or not any(asked & topics for topics in titled.values()):
        return set()
    return {page for page, topics in titled.items() if topics and not asked & topics}


def topics_named(said: Sequence[str]) -> set[str]:
    """The topics of `TOPICS` that some words (folded) name."""
    return {topic for topic, names in TOPICS.items() if names.intersection(said)}
