"""How the two search legs become one ranked list, and how sure each hit is.

- **Fusion**: weighted reciprocal rank fusion. A product's score is
  `vector_weight / (k + vector_rank) + lexical_weight / (k + lexical_rank)` (a leg that did
  not find it adds nothing). Ranks, not raw scores, so cosine distances and full-text ranks
  need no common scale.
- **Match grade** (`strong`, `partial`, `weak`), from the agreement of the legs: the share
  of the query's descriptive words (not numbers, colours or sizes) found in the product's
  name, category, brand or material, and the cosine distance of its closest chunk. Strong:
  very close in meaning, or the title words with a fair distance; partial: close, or one
  title word in common; weak: the rest.
- **Order**: by grade, then available before sold out (the asked colour/size, or any
  variation when none was asked), then fused score, so a sold-out product never hides an
  otherwise similar one that can be bought, and a weak match never outranks a strong one.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass


class Match(enum.StrEnum):
    STRONG = "strong"
    PARTIAL = "partial"
    WEAK = "weak"


_GRADE_ORDER = {Match.STRONG: 0, Match.PARTIAL: 1, Match.WEAK: 2}


@dataclass(frozen=True)
class FusionWeights:
    """Defaults measured on both bundled query sets (bench/README.md): a small k, so a leg's
    first few places count most, and full text a little above vectors."""

    vector: float = 1.0
    lexical: float = 1.5
    k: float = 2.0

    @property
    def legs(self) -> tuple[bool, bool]:
        """Which legs run: (vector, lexical)."""
        return self.vector > 0, self.lexical > 0


VECTOR_ONLY = FusionWeights(vector=1.0, lexical=0.0)
LEXICAL_ONLY = FusionWeights(vector=0.0, lexical=1.0)


@dataclass(frozen=True)
class GradeThresholds:
    """Cosine distances and title shares that grade a hit (measured on the local model: see
    bench/README.md; recalibrate with `shopagent eval` for another embedding model)."""

    strong_distance: float = 0.33  # this close in meaning is strong on its own
    title_distance: float = 0.6  # with the title words in common, this close is strong
    strong_coverage: float = 0.5  # the share of the descriptive query words its title must have for that
    partial_distance: float = 0.5  # this close, or a title word in common within title_distance: partial


@dataclass(frozen=True)
class Evidence:
    """What both legs know about one candidate product."""

    product_id: int
    distance: float | None  # closest chunk; None when the product has no chunks of the model yet
    title_coverage: float  # share of the query's descriptive words in name/category/brand/material
    available: int  # units of the asked variation (of any variation when none was asked)


def fuse(vector_ranked: Sequence[int], lexical_ranked: Sequence[int], weights: FusionWeights) -> dict[int, float]:
    """Weighted reciprocal rank fusion of two ranked lists of product ids."""
    scores: dict[int, float] = {}
    for leg_weight, ranked in ((weights.vector, vector_ranked), (weights.lexical, lexical_ranked)):
        for rank, product_id in enumerate(ranked, start=1):
            scores[product_id] = scores.get(product_id, 0.0) + leg_weight / (weights.k + rank)
    return scores


def grade(evidence: Evidence, thresholds: GradeThresholds) -> Match:
    distance = evidence.distance if evidence.distance is not None else 2.0
    titled = distance <= thresholds.title_distance
    if distance <= thresholds.strong_distance or (titled and evidence.title_coverage >= thresholds.strong_coverage):
        return Match.STRONG
    if distance <= thresholds.partial_distance or (titled and evidence.title_coverage > 0):
        return Match.PARTIAL
    return Match.WEAK


@dataclass(frozen=True)
class Ranked:
    product_id: int
    match: Match
    score: float


def rank(
    scores: dict[int, float], evidence: dict[int, Evidence], thresholds: GradeThresholds, limit: int
) -> list[Ranked]:
    """The best `limit` products: by grade, then available first, then fused score."""
    ranked = [Ranked(pid, grade(evidence[pid], thresholds), score) for pid, score in scores.items() if pid in evidence]
    ranked.sort(key=lambda r: (_GRADE_ORDER[r.match], evidence[r.product_id].available == 0, -r.score, r.product_id))
    return ranked[:limit]
