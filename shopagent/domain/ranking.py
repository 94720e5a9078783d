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
  A sold-out product that has every descriptive word of the query is still never left out
  for one with fewer of them: a query that names it finds it.
"""

from __future__ import annotations

import enum
import math
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
class Evidence:
    """What both legs know about one candidate product of one query."""

    product_id: int
    distance: float | None  # closest chunk; None when the product has no chunks of the model yet
    title_coverage: float  # share of the query's descriptive words in name/category/brand/material
    available: int  # units of the asked variation (of any variation when none was asked)
    body_coverage: float = 0.0  # share of the query's descriptive words anywhere in its text
    category_match: bool = False  # a query word is a head word of its category ("food" of "Dog food")
    category_closeness: float = 0.0  # query-to-category-name cosine, minus the best candidate category's
    vector_rank: int | None = None  # its place in the vector leg (1 = nearest)
    lexical_rank: int | None = None  # its place in the full-text leg
    gap: float = 0.0  # its distance minus the best candidate's
    modifier_missing: bool = False  # it is of the kind named, but the word before that name is not in its text
    head_in_text: bool = False  # the query's head word (the thing asked for) is in its text
    head_in_category: bool = False  # ... in its category
    head_unknown: bool = False  # no product's text uses the query's head word
    last_missing: bool = False  # the query is a bare name whose last word no product of its kind has, nor it
    head_missing: bool = False  # its text lacks the query's head word, which other products' texts use
    head_in_title: bool = False  # ... in its name, category, brand or material
    other_amount: bool = False  # its name states another amount of a unit the query asks an amount of
    other_color: bool = False  # the query's words name colours and it comes in none of them
    other_size: bool = False  # the query's words name sizes ("size 38") and it comes in none of them
    head_named_elsewhere: bool = False  # the query's head word is not in its name, but in another candidate's
    # ... where the query tells of a situation and that word is what other candidates are ("zieht an der Leine …
    # Geschirr?": a harness, though leads come closer to the story)
    kind_named_elsewhere: bool = False
    other_material: bool = False  # the query names what it is made of, and its material, name and category do not
    other_audience: bool = False  # its name or category is for others than the query names ("Women's" for "mens")
    over_weight: bool = False  # the query's words state a weight it may not pass ("under 1.5 kg") and it weighs more
    feature_missing: bool = False  # its text has none of what the thing is asked to come with ("gears")
    asked_audience: bool = False  # its name or category names one the query names ("Kids'" for "my 7 year old")
    for_another: bool = False  # its name names what the thing asked for goes with ("Watch" for "watch strap")
    situation: bool = False  # the query tells of the shopper's situation: its head word is seldom the thing
    opposite: bool = False  # its name has the opposite of a query word ("Short-Sleeve" for "long sleeve")
    other_kind: bool = False  # its text lacks the thing asked for, which other candidates' category is ("Tea")
    over_budget: bool = False  # the query's words state a price ceiling ("under 60") and it costs more
    other_age: bool = False  # the query tells a child's age and its specs say it is for none ("from 6 years" for 5)


def features(e: Evidence) -> tuple[float, ...]:
    """The numbers the grade model weighs, in `GradeModel.weights` order."""
    distance = min(e.distance, 1.0) if e.distance is not None else 1.0
    vector = 1.0 / e.vector_rank if e.vector_rank else 0.0
    lexical = 1.0 / e.lexical_rank if e.lexical_rank else 0.0
    return (
        distance,
        min(e.gap, 1.0) if e.distance is not None else 1.0,
        vector,
        lexical,
        e.title_coverage,
        e.body_coverage,
        1.0 if e.category_match else 0.0,
        e.category_closeness,
        1.0 if e.modifier_missing else 0.0,
        1.0 if e.head_in_text else 0.0,
        1.0 if e.head_in_category else 0.0,
        1.0 if e.head_unknown else 0.0,
    )


FEATURE_NAMES = (
    "distance", "gap", "vector_rr", "lexical_rr", "title_coverage", "body_coverage", "category_match",
    "category_closeness", "modifier_missing", "head_in_text", "head_in_category",
    "head_unknown",
)  # fmt: skip


@dataclass(frozen=True)
class GradeModel:
    """A logistic model of "a judge would accept this product for this query", fitted on the
    `tune` halves of the judged query sets (scripts/fit_grades.py), and the probabilities at
    which a hit is graded strong or partial."""

    weights: tuple[float, ...]
    bias: float
    strong_at: float
    partial_at: float
    # Closer than these (cosine distance), a product may be strong although the query's head
    # word is only in its description, or is a word no product uses (see `grade`).
    description_only_distance: float = 0.35
    unknown_head_distance: float = 0.5
    # Farther than this, a product without the head word in its name is not strong while another
    # candidate has it there ("Cat Tree" for "cat carrier" beside a "Pet Carrier").
    named_elsewhere_distance: float = 0.5
    # From this relevance, the rules on the head word do not hold where the query tells of the
    # shopper's situation: its last noun is seldom the thing wanted ("slugs ate all my lettuce again,
    # every single night"). Set on the tune halves: the lowest that made no query the shop cannot
    # serve strong there (0.27, the strong threshold, made one: "the cat next door uses my raised bed
    # as a toilet" and the raised bed).
    situation_strong_at: float = 0.35

    def relevance(self, e: Evidence) -> float:
        z = self.bias + sum(w * x for w, x in zip(self.weights, features(e), strict=True))
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def fuse(vector_ranked: Sequence[int], lexical_ranked: Sequence[int], weights: FusionWeights) -> dict[int, float]:
    """Weighted reciprocal rank fusion of two ranked lists of product ids."""
    scores: dict[int, float] = {}
    for leg_weight, ranked in ((weights.vector, vector_ranked), (weights.lexical, lexical_ranked)):
        for rank, product_id in enumerate(ranked, start=1):
            scores[product_id] = scores.get(product_id, 0.0) + leg_weight / (weights.k + rank)
    return scores


def grade(relevance: float, evidence: Evidence, model: GradeModel) -> Match:
    """Strong and partial by the fitted relevance, with fifteen rules the data must never
    overrule. At most partial is a product
    - of the kind asked for (by its category, or by its name in a short request) whose text
      lacks the word that qualifies that kind in the query (a bicycle helmet for "motorbike
      helmet", a kids' bike for "gravel bike", a "Dutch Oven" for "microwave oven");
    - whose text has the thing asked for (the query's head word) only in its description, not
      in its name, category, brand or material ("tents" in a wellington's "festival tents"; a
      part the material field names, as a sandal's "ankle ties", is not its material), unless it
      is very close in meaning, or the query tells of the shopper's situation and its relevance
      is high (`situation_strong_at`; this rule and the two others on the head word: "slugs ate
      all my lettuce again, every single night" asks for nothing called a night);
    - for a thing no product's text names at all ("swimming goggles" in a shoe shop), or whose
      own text does not name it ("hot tub" for a watering can of hot-dip galvanised steel,
      "chopping board" for a knife "for chopping"), unless it is close in meaning;
    - for a thing named by a request that is only its name, whose last word no product of the kind
      named before it has ("lawn mower blades" where no mower's text says blades);
    - whose name states another amount than the query asks for ("Hard Drive 4TB" for "2tb
      hard drive", a 24 cm pan for "20cm pan"), or whose sizes and options are all other amounts,
      none within a tenth of it (compost in 40 l and 70 l bags for "50 litre compost");
    - that comes in colours, none of them one the query's words name ("red harness" for a
      harness made in black and blue; a colour filter instead lets no such product through), or
      in sizes, none of them one the query names after a word for size ("sandals size 38");
    - whose stated material, name and category lack the material the query names ("leather
      belt" for a belt of cotton canvas);
    - whose name, category or description's opening is for others than the query names ("Women's
      Rain Jacket" for "mens rain jacket"; jeans described "Women's high-waisted jeans" for "jeans
      for men");
    - whose name has the opposite of a word of the query ("Short-Sleeve Camp Shirt" for "long
      sleeve shirts", a "Wired Mouse" for "wireless mouse");
    - whose text lacks the thing asked for where other candidates' category is that thing (a decaf coffee
      for "decaf tea" beside the category "Tea"), however close in meaning;
    - that costs more than a price the query's words allow ("black chefs knife under 60" and a knife
      at 64.90: a price filter instead lets no such product through);
    - whose name lacks the thing asked for while another candidate's name has it ("Cat Tree
      Tower" or a "Training Lead" in a category of harnesses, for "cat carrier" or "xs harness",
      beside a "Pet Carrier" and a "Y-Harness"), unless it is very close in meaning;
    - whose name names what the thing asked for goes with, while other candidates' names name
      the thing ("Dress Shirt" for "shirt dress", a tablet for "tablet case"), unless its
      category names the thing asked for;
    - whose specs say it is for other ages than the children's the query tells ("from 6 years" for
      "a puzzle for a 5 year old").
    A product not yet embedded is never strong."""
    if relevance >= model.strong_at and evidence.distance is not None and not _capped(evidence, model, relevance):
        return Match.STRONG
    if relevance >= model.partial_at:
        return Match.PARTIAL
    return Match.WEAK


def _capped(e: Evidence, model: GradeModel, relevance: float) -> bool:
    distance = e.distance if e.distance is not None else 2.0
    if e.modifier_missing or e.other_amount or e.other_color or e.other_size or e.other_material or e.other_audience:
        return True
    if e.opposite or e.over_budget or e.over_weight or e.other_kind or e.other_age:
        return True
    if e.for_another or e.last_missing:
        return True
    if e.situation and relevance >= model.situation_strong_at:  # "my dog pulls like mad on walks": no head word
        return False
    if e.head_in_text and not e.head_in_title and distance > model.description_only_distance:
        return True
    if e.head_named_elsewhere and distance > model.named_elsewhere_distance:
        return True
    return (e.head_unknown or e.head_missing) and distance > model.unknown_head_distance


@dataclass(frozen=True)
class Ranked:
    product_id: int
    match: Match
    score: float


def rank(scores: dict[int, float], evidence: dict[int, Evidence], model: GradeModel, limit: int) -> list[Ranked]:
    """The best `limit` products: by grade, then (within one) those not named for what the thing
    asked for goes with, then, of a situation told, those that are the thing it names, then those
    not named for others nor with the opposite of a query word, then
    those within a price the query's words allow, then those for the children's ages asked, then
    available first, then relevance."""
    ranked = []
    for pid in scores:
        if pid in evidence:
            relevance = model.relevance(evidence[pid])
            ranked.append(Ranked(pid, grade(relevance, evidence[pid], model), relevance))
    # Within a grade, what the thing asked for goes with (a knife for "knife sharpener"), and what is for
    # others than those asked for (a "Cat Collar" for "dog collar"), come after the rest.
    ranked.sort(key=lambda r: (_GRADE_ORDER[r.match], evidence[r.product_id].for_another,
                               evidence[r.product_id].kind_named_elsewhere,
                               evidence[r.product_id].feature_missing,
                               evidence[r.product_id].other_audience, evidence[r.product_id].opposite,
                               evidence[r.product_id].over_budget, evidence[r.product_id].over_weight,
                               evidence[r.product_id].other_age,
                               not evidence[r.product_id].asked_audience,
                               evidence[r.product_id].available == 0,
                               -r.score, r.product_id))  # fmt: skip
    return _keep_named_sold_out(ranked, evidence, limit)


def _keep_named_sold_out(ranked: list[Ranked], evidence: dict[int, Evidence], limit: int) -> list[Ranked]:
    """The first `limit`, except that a sold-out product with every descriptive word of the
    query in its text is not left out for one of its grade or worse with fewer of them: it
    takes the place of the last such one. Sold out, it ranks after the available ones that are
    like it, but a query naming it finds it."""
    top, rest = ranked[:limit], ranked[limit:]
    for named in rest:
        if evidence[named.product_id].available > 0 or evidence[named.product_id].body_coverage < 1.0:
            continue
        weaker = [
            i for i, r in enumerate(top)
            if evidence[r.product_id].body_coverage < 1.0 and _GRADE_ORDER[r.match] >= _GRADE_ORDER[named.match]
        ]  # fmt: skip
        if not weaker:
            break
        top[weaker[-1]] = named
    top.sort(key=lambda r: _GRADE_ORDER[r.match])  # stable: only a better grade moves up
    return top
