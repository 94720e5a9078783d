"""The judged conversation set (tests/data/conversations.jsonl) and its per-turn checks.

The conversations were written by someone who never saw a catalog and judged against the
catalogs only (tests/data/conversations_judgement_notes.md). Each turn is checked from the
outside, the way a shop would audit an assistant: from the answer text and that turn's tool
calls and results, never from the assistant's internals. So the same checks score any
model, and the code before this set existed.

What a turn must do (expect.reply):
- smalltalk: no tool call and no product in the answer.
- products: the first product listed fits (an acceptable slug that meets the turn's
  size/colour/price/stock and "cheaper"/"pricier" conditions in the catalog), at least half
  of those listed are acceptable, and a sold-out one is not first while a listed one is
  available. When no acceptable product meets the conditions, listing none (or only
  acceptable ones) passes: the honest "we have nothing like that".
- nomatch: at most two products listed, none of them graded a strong match by the search.
- details / compare: the product(s) at the given positions of the last list were looked up
  and named; when that list is too short, no product was looked up.
And always: the answer is in the shop's language or in the shopper's (that of their message where its
small words tell one), every product name and price in it comes
from that turn's tool results (or the customer's own words); an answer listing products refers
to the request in words the customer wrote together or quotes them, never in stop-word residue
("gilet walking dog" for "gilet for walking the dog", see `residue`).
"""

from __future__ import annotations

import itertools
import json
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from shopagent.application.evaluation import tool_facts
from shopagent.domain.chat import ChatMessage, FunctionCall, FunctionResponse, TextPart

try:
    from shopagent.application.evaluation import tool_passages
except ImportError:  # an older tree measured by bench/assistant_quality.py --before: no store page names products

    def tool_passages(messages: Any) -> list[str]:
        return []


try:
    from shopagent.application.evaluation import worked_out
except ImportError:  # an older tree measured beside this one (bench --before) works out no prices

    def worked_out(prices: set[str]) -> set[str]:
        return set()


try:
    from shopagent.application.evaluation import prices_in
except ImportError:  # an older tree measured beside this one (bench --before): amounts read as this one does
    _AMOUNT = re.compile(
        r"(?<![\d.,])(\d{1,3}(?:[.,\u00a0\u202f]\d{3})+|\d{1,7})[.,](\d{2})(?!\d)(?!\s*(?:kg|g|cm|mm|m|l|ml|cl|%)\b)"
    )

    def prices_in(text: str) -> set[str]:
        return {f"{re.sub(r'[^0-9]', '', whole)}.{cents}" for whole, cents in _AMOUNT.findall(text)}


DATA = Path(__file__).parent / "data"
CONVERSATIONS = DATA / "conversations.jsonl"
SHOP_LANGUAGE = {
    "clothing": "en",
    "kitchen": "en",
    "kitchen-de": "de",
    "kitchen-fr": "fr",
    "electronics": "en",
    "pets": "en",
    "garden": "en",
    "toys": "en",
    "bikes": "en",
}
ELECTRONICS_CONVERSATIONS = DATA / "electronics" / "conversations.jsonl"
# An answer that says the shop does not have the thing asked for (in any of its languages).
NOT_CARRIED = re.compile(
    r"doesn't seem to (?:carry|have)|don't seem to (?:carry|have)|does not seem to (?:carry|have)|"
    r"scheint .{0,60}nicht im Sortiment|führen wir (?:leider )?nicht|haben wir (?:leider )?nicht|"
    r"ne semble pas (?:proposer|avoir)|nous n'avons pas",
    re.IGNORECASE,
)
# An answer that says the product's data does not tell (for a fact the catalog lacks).
NOT_TOLD = re.compile(
    r"doesn't say|does not say|don't say|do not say|doesn't tell|does not tell|no information|not mentioned|"
    r"doesn't mention|does not mention|sagt nicht|nicht (?:genau )?angegeben|keine angabe|"
    r"ne (?:le |la |les )?(?:précisent?|disent?|dit|mentionnent?) pas",
    re.IGNORECASE,
)
SEARCH = "product-semantic-search"
DETAILS = "get-product-full-details"
_LANGUAGE_WORDS = {
    "en": set(
        [
            "the",
            "and",
            "for",
            "of",
            "is",
            "you",
            "i",
            "here",
            "found",
            "what",
            "or",
            "to",
            "are",
            "it",
            "this",
            "any",
            "in",
            "with",
            "me",
        ]
    ),
    "de": set(
        [
            "der",
            "die",
            "das",
            "und",
            "ich",
            "sie",
            "für",
            "nicht",
            "ist",
            "mit",
            "habe",
            "gefunden",
            "oder",
            "auf",
            "ihnen",
            "ein",
            "eine",
            "zu",
        ]
    ),
    "fr": set(
        [
            "le",
            "la",
            "les",
            "et",
            "je",
            "vous",
            "pour",
            "pas",
            "est",
            "avec",
            "des",
            "ou",
            "ce",
            "que",
            "une",
            "un",
            "trouvé",
            "du",
        ]
    ),
}

Say = Callable[[Any, str], Awaitable[tuple[Any, str, list[ChatMessage]]]]


def load_conversations(path: Path = CONVERSATIONS) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@dataclass
class TurnOutcome:
    conversation: str
    turn: int
    say: str
    reply: str
    passed: bool
    problems: list[str]
    answer: str
    grounded: bool
    facts_ok: bool | None = None  # an info turn with judged facts: were they stated (or "not told")?
    earlier_ok: bool | None = None  # a turn about a shown product: was the right one looked up?
    wrong_not_carried: bool = False  # said "we don't carry it" though an acceptable product fits
    residue: list[str] = field(default_factory=list)  # the shopper's words said back with words between dropped
    # an info turn with judged facts: was any product its facts are judged on looked up (None: no facts judged)?
    judged_looked_up: bool | None = None


@dataclass
class Report:
    outcomes: list[TurnOutcome] = field(default_factory=list)

    @property
    def passed(self) -> int:
        return sum(o.passed for o in self.outcomes)

    def by(self, key: Callable[[TurnOutcome], str]) -> dict[str, tuple[int, int]]:
        table: dict[str, tuple[int, int]] = {}
        for o in self.outcomes:
            done, total = table.get(key(o), (0, 0))
            table[key(o)] = (done + o.passed, total + 1)
        return dict(sorted(table.items()))

    def table(self, shops: dict[str, str]) -> str:
        lines = [f"{self.passed} of {len(self.outcomes)} turns pass"]
        for title, key in (("by reply", lambda o: o.reply), ("by shop", lambda o: shops[o.conversation])):
            lines.append(f"{title}:")
            lines += [f"  {name:<12} {done:>3} / {total}" for name, (done, total) in self.by(key).items()]
        ungrounded = [o for o in self.outcomes if not o.grounded]
        lines.append(f"ungrounded answers: {len(ungrounded)}")
        return "\n".join(lines)


class Catalog:
    """A shop's products by slug and name, for judging listed products."""

    def __init__(self, products: Sequence[Any]) -> None:
        self.by_slug = {p.slug: p for p in products}
        self.by_name = {p.name: p for p in products}
        self.names = sorted(self.by_name, key=len, reverse=True)

    def fits(
        self, slug: str, filters: dict[str, Any], price_below: Decimal | None, price_above: Decimal | None
    ) -> bool:
        product = self.by_slug.get(slug)
        if product is None:
            return False
        price = product.effective_price
        if "maxPrice" in filters and price > Decimal(str(filters["maxPrice"])):
            return False
        if "minPrice" in filters and price < Decimal(str(filters["minPrice"])):
            return False
        if price_below is not None and price >= price_below:
            return False
        if price_above is not None and price <= price_above:
            return False
        return any(_variation_fits(v, filters) for v in product.variations)

    def available(self, name: str, filters: dict[str, Any]) -> bool:
        product = self.by_name[name]
        return any(_variation_fits(v, {**filters, "inStock": True}) for v in product.variations)


def _variation_fits(v: Any, filters: dict[str, Any]) -> bool:
    if filters.get("sizes") and v.size not in filters["sizes"]:
        return False
    if filters.get("colors") and v.color not in filters["colors"]:
        return False
    return not (filters.get("inStock") and v.available <= 0)


def listed_names(answer: str, messages: Sequence[ChatMessage], catalog: Catalog) -> list[str]:
    """The catalog products named in an answer, in the order they appear."""
    folded = answer.casefold()
    found: list[tuple[int, str]] = []
    taken: list[tuple[int, int]] = []
    for name in catalog.names:  # longest first, so a name inside a longer one is not counted twice
        start = folded.find(name.casefold())
        while start != -1:
            end = start + len(name)
            if not any(s < end and start < e for s, e in taken):
                found.append((start, name))
                taken.append((start, end))
                break
            start = folded.find(name.casefold(), end)
    return [name for _, name in sorted(found)]


def tool_parts(messages: Sequence[ChatMessage]) -> tuple[list[FunctionCall], list[FunctionResponse]]:
    calls = [p for m in messages for p in m.parts if isinstance(p, FunctionCall)]
    responses = [p for m in messages for p in m.parts if isinstance(p, FunctionResponse)]
    return calls, responses


def named_by_a_page(name: str, responses: Sequence[FunctionResponse]) -> bool:
    """Whether a store page quoted in the turn's tool results states this product name (a page on gift wrapping
    naming the wrapping sold)."""
    pages = tool_passages([ChatMessage(role="user", parts=list(responses))])
    return any(name.casefold() in page.casefold() for page in pages)


def grounded(answer: str, user_text: str, responses: Sequence[FunctionResponse], catalog: Catalog) -> list[str]:
    """Names and prices in the answer that no tool result of the turn gave, nor the customer (`user_text`: what
    they wrote so far, whose amounts an answer may say back)."""
    turn = [ChatMessage(role="user", parts=list(responses))]
    names, prices = tool_facts(turn)
    prices |= worked_out(prices)  # ("costs €130.00 more than", "together they cost": from prices given)
    problems = [
        f"name not in tool results: {n}"
        for n in listed_names(answer, [], catalog)
        if n not in names and not named_by_a_page(n, responses)
    ]
    said = prices_in(user_text)
    for price in sorted(prices_in(answer)):
        if price not in prices and price not in said:
            problems.append(f"price not in tool results: {price}")
    return problems


def language_of(text: str, catalog: Catalog) -> str:
    for name in catalog.names:
        text = text.replace(name, " ")
    words = re.findall(r"[^\W\d_]+", text.casefold())
    scores = {lang: sum(w in vocabulary for w in words) for lang, vocabulary in _LANGUAGE_WORDS.items()}
    return max(scores, key=lambda lang: scores[lang])


# Words a shopper's message is told by, beside the small words of _LANGUAGE_WORDS (greetings, thanks, particles).
_SAID_WORDS = {
    "en": {"hi", "hello", "thanks", "please", "cheaper", "do", "does", "have", "need", "want", "my", "how"},
    "de": {"hallo", "danke", "bitte", "tschüss", "habt", "ihr", "auch", "unter", "suche", "einen", "dann", "halt",
           "gibt", "noch", "mal", "welche", "wie", "haben", "grösse", "groesse", "zum", "zur", "gut", "den", "dem",
           "dazu", "damen", "herren"},
    "fr": {"bonjour", "merci", "svp", "taille", "en", "moins", "cher", "avez", "cherche", "quel", "quelle",
           "combien", "aussi", "il", "elle", "c'est", "plus"},
}  # fmt: skip
_SHARED = {"in"}  # a word of English and German alike


def answer_languages(said: str, shop: str, before: set[str]) -> set[str]:
    """The languages an answer to a message may be in: the shop's, and the shopper's where the message's
    words tell it (a German shopper in an English shop may be answered in German), else those the
    message before could be answered in ("in weiss?" after a German message)."""
    words = re.findall(r"[^\W\d_]+(?:'[^\W\d_]+)?", said.casefold())  # (casefolded: "Größe" is "grösse")
    words = [w for w in words if w not in _SHARED]
    scores = {lang: sum(w in _LANGUAGE_WORDS[lang] | extra for w in words) for lang, extra in _SAID_WORDS.items()}
    best = max(scores, key=lambda lang: scores[lang])
    if scores[best] > 0 and sorted(scores.values())[-2] < scores[best]:
        return {shop, best}
    return before | {shop}


_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")
_LISTED_LINE = re.compile(r"\s*\d+\.\s")
_QUOTED = re.compile(r"[“„«\"][^”“»\"]*[”“»\"]")
_FUNCTION_WORDS = set().union(*_LANGUAGE_WORDS.values())
_GAP = 5  # words apart in the message: further apart, two words are not one phrase broken up


def residue(answer: str, said: str) -> list[str]:
    """Stop-word residue in an answer that lists products: two words side by side in its prose
    (not its numbered lines, not in quotes) that the customer wrote in that order with other
    words between, and nowhere side by side ("shirt work" for "shirt for work", "gilet walking
    dog" for "gilet for walking the dog"). The pairs, as "first second"."""
    message = [w.casefold() for w in _WORD.findall(said)]
    at: dict[str, list[int]] = {}
    for n, word in enumerate(message):
        at.setdefault(word, []).append(n)
    found = []
    for line in answer.splitlines():
        if _LISTED_LINE.match(line):
            continue
        for phrase in re.split(r"[,:;.!?()\[\]]", _QUOTED.sub(" | ", line)):
            written = [w.casefold() for w in _WORD.findall(phrase)]
            for first, second in itertools.pairwise(written):
                if {first, second} & _FUNCTION_WORDS or min(len(first), len(second)) < 3:  # "for", "what", "en"
                    continue
                gaps = [b - a for a in at.get(first, []) for b in at.get(second, [])]
                if gaps and 1 not in gaps and any(1 < g <= _GAP for g in gaps):
                    found.append(f"{first} {second}")
    return found


async def run_conversation(conversation: dict[str, Any], say: Say, catalog: Catalog) -> list[TurnOutcome]:
    outcomes = []
    conversation_id = None
    previous: list[str] = []  # the names of the last list shown (a search that lists nothing keeps it)
    language = SHOP_LANGUAGE[conversation["shop"]]
    allowed = {language}
    said_so_far: list[str] = []
    ever_listed: set[str] = set()  # every product any earlier answer listed
    for number, turn in enumerate(conversation["turns"], start=1):
        conversation_id, answer, messages = await say(conversation_id, turn["say"])
        expect = turn["expect"]
        calls, responses = tool_parts(messages)
        listed = listed_names(answer, messages, catalog)
        problems = judge(expect, answer, calls, responses, listed, previous, catalog)
        problems = [_where_named(p, expect, ever_listed, catalog) for p in problems]
        allowed = answer_languages(turn["say"], language, allowed)
        if (answered_in := language_of(answer, catalog)) not in allowed:
            problems.append(f"answer not in {' or '.join(sorted(allowed))} but in {answered_in}")
        said_so_far.append(turn["say"])  # (an amount the shopper wrote may be said back, in any later turn)
        ungrounded = grounded(answer, "\n".join(said_so_far), responses, catalog)
        problems += ungrounded
        facts_ok = _facts_stated(expect, answer, responses, catalog)
        if facts_ok is False:
            problems.append("the asked fact was not stated")
        wrong = bool(NOT_CARRIED.search(answer)) and bool(_achievable(expect, previous, catalog))
        if wrong:
            problems.append("said the shop does not carry what it carries")
        broken = residue(answer, turn["say"]) if expect["reply"] in ("products", "nomatch") else []
        if broken:
            problems.append(f"said the request back as residue: {broken}")
        outcome = TurnOutcome(conversation["id"], number, turn["say"], expect["reply"], not problems, problems, answer,
                              not ungrounded, facts_ok, _earlier_ok(expect, problems), wrong, broken,
                              _judged_looked_up(expect, responses, catalog))  # fmt: skip
        outcomes.append(outcome)
        if listed and expect["reply"] not in ("details", "compare"):
            previous = listed
        ever_listed.update(listed)
    return outcomes


def _where_named(problem: str, expect: dict[str, Any], ever_listed: set[str], catalog: Catalog) -> str:
    """A product the shopper named that was not looked up: whether any earlier answer had listed it (the
    pointing missed it) or none had (an earlier search did not find it)."""
    if not problem.startswith("did not look up one of"):
        return problem
    named = {catalog.by_slug[s].name for s in expect.get("products", []) if s in catalog.by_slug}
    return problem + (" (listed earlier)" if named & ever_listed else " (never listed)")


def _achievable(expect: dict[str, Any], previous: list[str], catalog: Catalog) -> set[str]:
    """The acceptable products that meet a product turn's conditions (empty for other turns)."""
    if expect["reply"] != "products":
        return set()
    filters = expect.get("filters", {})
    previous_prices = [catalog.by_name[n].effective_price for n in previous if n in catalog.by_name]
    below = max(previous_prices) if expect.get("cheaper") and previous_prices else None
    above = min(previous_prices) if expect.get("pricier") and previous_prices else None
    return {catalog.by_slug[s].name for s in expect.get("acceptable", []) if catalog.fits(s, filters, below, above)}


def _facts_stated(
    expect: dict[str, Any], answer: str, responses: list[FunctionResponse], catalog: Catalog
) -> bool | None:
    """For an info turn with judged facts: whether the answer states the fact of each product it
    looked up (any one of the judged phrasings), or says the data does not tell where it does not."""
    facts = expect.get("facts")
    if expect["reply"] not in ("details", "compare") or not facts:
        return None
    looked_up = _looked_up(responses, catalog)
    judged = [slug for slug in looked_up if slug in facts]
    if not judged:
        return False if looked_up or any(facts.values()) else None
    folded = " ".join(answer.casefold().split())
    for slug in judged:
        wanted = facts[slug]
        if wanted is None:
            if not NOT_TOLD.search(answer):
                return False
        elif not any(" ".join(w.casefold().split()) in folded for w in _in_any_language(wanted)):
            return False
    return True


# A judged phrasing's words in German and French, for an answer given in the shopper's language ("9 left": "9
# verfügbar", "9 en stock"); the phrasings that name a product's own data (its sentences, specs) stay as written.
_SAID_ALSO = [
    (re.compile(r"^(\d+) (?:left|in stock|available)$"), [r"\1 verfügbar", r"\1 en stock"]),
    (re.compile(r"^(?:sold out|out of stock)$"), ["ausverkauft", "épuisé"]),
    (re.compile(r"^(?:not in stock|not available|isn't available|unavailable|no stock)$"),
     ["nicht verfügbar", "pas disponible"]),
    (re.compile(r"^(\w+) is (?:in stock|available)$"), [r"verfügbar: \1", r"disponible en \1"]),
    (re.compile(r"^yes$"), ["ja", "oui"]),
    (re.compile(r"^no$"), ["nein", "non"]),
]  # fmt: skip


def _judged_looked_up(expect: dict[str, Any], responses: list[FunctionResponse], catalog: Catalog) -> bool | None:
    """For an info turn with judged facts: whether any product they are judged on was looked up (where none was,
    the answer was about another product: the list shown or the pointing differed from the judge's)."""
    facts = expect.get("facts")
    if expect["reply"] not in ("details", "compare") or not facts:
        return None
    return bool(set(_looked_up(responses, catalog)) & set(facts))


def _looked_up(responses: list[FunctionResponse], catalog: Catalog) -> list[str]:
    """The slugs of the products a turn's details calls looked up, in their order."""
    return [catalog.by_name[n].slug for n in _detailed_names(responses) if n in catalog.by_name]


def _in_any_language(wanted: Sequence[str]) -> list[str]:
    found = list(wanted)
    for phrase in wanted:
        for pattern, others in _SAID_ALSO:
            if pattern.match(phrase.casefold()):
                found += [pattern.sub(other, phrase.casefold()) for other in others]
    return found


def _earlier_ok(expect: dict[str, Any], problems: list[str]) -> bool | None:
    if expect["reply"] not in ("details", "compare"):
        return None
    return not any(p.startswith(("did not look up", "looked up")) for p in problems)


def judge(
    expect: dict[str, Any],
    answer: str,
    calls: list[FunctionCall],
    responses: list[FunctionResponse],
    listed: list[str],
    previous: list[str],
    catalog: Catalog,
) -> list[str]:
    reply = expect["reply"]
    if reply == "store":
        searched = [c for c in calls if c.name in (SEARCH, DETAILS)]
        # (a product the quoted page names, as a page on gift wrapping names the wrapping sold, is no list)
        listed = [n for n in listed if not named_by_a_page(n, responses)]
        return (["searched the catalog for a store question"] if searched else []) + (
            [f"listed {listed}"] if listed else []
        )
    if reply == "advice":
        return []
    if reply == "smalltalk":
        return (["searched on small talk"] if calls else []) + ([f"listed {listed}"] if listed else [])
    if reply == "details" and "refers_to" not in expect and expect.get("products"):
        # The shopper named the product ("the headset one"): one of the judged candidates.
        named = {catalog.by_slug[s].name for s in expect["products"] if s in catalog.by_slug}
        looked_up = _detailed_names(responses)
        return [] if named & set(looked_up) else [f"did not look up one of {sorted(named)}"]
    if reply in ("details", "compare"):
        positions = [expect.get("refers_to", 1)] if reply == "details" else expect.get("compare", [1, 2])
        wanted = [_position(previous, p) for p in positions]
        looked_up = _detailed_names(responses)
        if any(w is None for w in wanted):
            # A place past the end of the list: nothing to look up, unless the judged answer tells of the one looked
            # up ("Not determinable: there is only one shampoo. It comes in 250 ml and 500 ml.")
            covered = {catalog.by_slug[s].name for s in expect.get("facts") or {} if s in catalog.by_slug}
            beyond = [n for n in looked_up if n not in covered]
            return [f"looked up {beyond} though the last list has {len(previous)}"] if beyond else []
        problems = [f"did not look up {w}" for w in wanted if w not in looked_up]
        problems += [f"did not name {w}" for w in wanted if w and w not in answer]
        return problems
    grades = _grades(responses)
    if reply == "nomatch":
        problems = [f"listed {len(listed)} products for something the shop does not carry"] if len(listed) > 2 else []
        problems += [f"presented {n} as a strong match" for n in listed if grades.get(n) == "strong"]
        return problems
    acceptable = set(expect.get("acceptable", []))
    acceptable_names = {catalog.by_slug[s].name for s in acceptable if s in catalog.by_slug}
    filters = expect.get("filters", {})
    previous_prices = [catalog.by_name[n].effective_price for n in previous if n in catalog.by_name]
    below = max(previous_prices) if expect.get("cheaper") and previous_prices else None
    above = min(previous_prices) if expect.get("pricier") and previous_prices else None
    achievable = {catalog.by_slug[s].name for s in acceptable if catalog.fits(s, filters, below, above)}
    if not achievable:
        off = [n for n in listed if n not in acceptable_names]
        return [f"nothing fits, but listed off-target {off}"] if off else []
    if not listed:
        return ["listed nothing though acceptable products fit"]
    problems = []
    if listed[0] not in achievable:
        problems.append(f"first listed {listed[0]!r} does not fit")
    if sum(n in acceptable_names for n in listed) * 2 < len(listed):
        problems.append(f"most of {listed} are off-target")
    if expect.get("similar") and previous and set(listed) <= set(previous):
        problems.append("showed the same products again")
    if not catalog.available(listed[0], filters) and any(catalog.available(n, filters) for n in listed[1:]):
        problems.append(f"sold-out {listed[0]!r} listed first")
    for name in listed:
        price = catalog.by_name[name].effective_price
        if ("maxPrice" in filters and price > Decimal(str(filters["maxPrice"]))) or (below and price >= below):
            problems.append(f"{name!r} costs {price}, over the limit")
    return problems


def _position(names: list[str], position: int) -> str | None:
    if position == -1:
        return names[-1] if names else None
    return names[position - 1] if 1 <= position <= len(names) else None


def _detailed_names(responses: list[FunctionResponse]) -> list[str]:
    return [
        (r.result.get("structuredContent") or {}).get("name", "")
        for r in responses
        if r.name == DETAILS and not r.result.get("isError")
    ]


def _grades(responses: list[FunctionResponse]) -> dict[str, str]:
    grades = {}
    for r in responses:
        if r.name == SEARCH:
            for p in (r.result.get("structuredContent") or {}).get("products", []):
                grades[p.get("name")] = p.get("match", "")
    return grades


async def ask_about_shown(
    item: dict[str, Any], agent: Any, tools: Any, catalog: Catalog, say_times: list[float]
) -> dict[str, Any]:
    """Shows the item's list as a search's answer (as the assistant shows one), then asks its
    question; judged on the products looked up, the facts stated and grounding."""
    products = []
    for slug in item["shown"]:
        found = await tools.safe_call(DETAILS, {"productId": catalog.by_slug[slug].id})
        products.append({**(found.structured or {}), "match": "strong"})
    args = {"query": item["category"], "limit": 5}
    listing = "\n".join(f"{n}. {p['name']} - {p['effectivePrice']}" for n, p in enumerate(products, start=1))
    state = {"provider": "offline-concierge", "shown": [p["productId"] for p in products], "args": args,
             "subject": item["category"]}  # fmt: skip
    result = {"isError": False, "content": listing, "structuredContent": {"products": products}}
    history = [
        ChatMessage.user(item["category"]),
        ChatMessage(role="model", parts=[FunctionCall(name=SEARCH, args=args, id="s1")]),
        ChatMessage(role="user", parts=[FunctionResponse(name=SEARCH, result=result, id="s1")]),
        ChatMessage(role="model", parts=[TextPart(listing)], provider_state=state),
    ]
    began = time.perf_counter()
    answer, new = await agent.run(history, item["say"])
    say_times.append((time.perf_counter() - began) * 1000)
    _, responses = tool_parts(new)
    looked_up = set(_detailed_names(responses))
    meant = {catalog.by_slug[s].name for s in item["refers"]}
    facts = _facts_stated({"reply": "details", "facts": item["facts"]}, answer, responses, catalog)
    ungrounded = grounded(answer, item["say"], responses, catalog)
    return {"say": item["say"], "id": item["id"], "answer": answer, "facts_ok": facts, "grounded": not ungrounded,
            "right_products": bool(looked_up) and meant <= looked_up, "looked_up": sorted(looked_up),
            "meant": sorted(meant), "batch": item.get("batch")}  # fmt: skip
