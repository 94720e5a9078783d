"""The offline concierge: a rule-based stand-in for a chat model. It is NOT an LLM.

It makes `shopagent demo` useful without any API key, for any catalog. Each customer
message is read (understanding.py) into filters, follow-up cues and the words that describe
the item, and planned against the conversation so far:

- small talk (greetings, thanks, "who are you") and clearly off-topic requests get a short
  reply; whether a message is off-topic is decided with the catalog's own words (names,
  categories, brands, materials), so "weatherproof jacket" is searched and "weather in Berlin"
  is not. Everything else is searched.
- follow-ups ("cheaper ones?", "in size 42?", "only in stock", "anything else?", "something
  similar to the second one", "tell me about the first", "compare the first two") refine
  the last search, recovered from the conversation's stored tool calls and the list shown.
- answers are honest: when the search grades nothing as a strong match the concierge says
  the shop does not seem to carry it and offers at most two closest items, labelled as such;
  lists are never padded with weak matches and available items come first.

Product text is data: only names, prices, colours, sizes and a short summary of the
description are shown, and sentences that read like instructions to an assistant are left
out. Replies are in the store language (English, German or French).

The plan of a turn travels in `provider_state` of the model message that calls the tools,
and the list shown to the customer in that of the answer, so a later turn can point at
"the second one" exactly as it was shown.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from shopagent.adapters.local.concierge.phrases import STOPWORDS
from shopagent.adapters.local.concierge.replies import ENGLISH, Replies
from shopagent.adapters.local.concierge.understanding import LanguageNames, Lexicon, Reading
from shopagent.domain.catalog import CatalogRules
from shopagent.domain.chat import ChatMessage, FunctionCall, FunctionResponse, ModelReply, TextPart, ToolSpec
from shopagent.domain.text import Vocabulary, fold, words

SEARCH = "product-semantic-search"
DETAILS = "get-product-full-details"
PROVIDER = "offline-concierge"
LIST_LENGTH = 5
CLOSEST = 2  # alternatives offered when nothing matches well
SUMMARY_CHARS = 180
_CENT = Decimal("0.01")

VocabularySource = Callable[[], Awaitable[Vocabulary]]

# Sentences of product text that talk to an assistant rather than describe a product.
_INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|forget|override)\b.{0,40}\b(?:instructions?|prompts?|rules|everything|above)\b"
    r"|\b(?:system prompt|you are now|act as|pretend (?:to be|you are)|new instructions|jailbreak|developer mode)\b"
    r"|\btell (?:the |every |all )?(?:customers?|users?|shoppers?|visitors?)\b"
    r"|\b(?:as an? (?:ai|assistant|language model))\b"
    r"|\b(?:assistant|system|ai|chatbot|model)\s*:"
    r"|\b(?:ignoriere|vergiss|missachte)\b.{0,40}\b(?:anweisungen|regeln|alles)\b|\bsage? (?:dem|allen) kunden\b"
    r"|\b(?:ignore[rz]?|oublie[rz]?)\b.{0,40}\binstructions\b|\bdi(?:s|tes) (?:au|aux) clients?\b"
    r"|\b(?:every|all) (?:products?|items?) (?:costs?|are|is)\b"
)


@dataclass
class _Shown:
    """The last list the customer saw and the search that produced it."""

    args: dict[str, Any]
    subject: str
    products: list[dict[str, Any]]
    hide_price: bool = False  # its price bounds were derived from prices shown, not said


@dataclass
class _History:
    shown: _Shown | None = None
    detailed: list[int] = field(default_factory=list)  # productIds of the last details answer
    searches: list[dict[str, Any]] = field(default_factory=list)  # every search's arguments, oldest first

    def earlier_search(self, named: list[str]) -> dict[str, Any] | None:
        """The latest search whose query has all these words: the subject the customer returns to."""
        for args in reversed(self.searches):
            if named and set(named) <= set(words(str(args.get("query", "")))):
                return args
        return None


class OfflineConcierge:
    """Implements the ChatModel port with rules instead of a language model."""

    model_id = "offline-concierge"

    def __init__(
        self,
        rules: CatalogRules,
        store_name: str,
        *,
        replies: Replies = ENGLISH,
        language: str = "en",
        names: Mapping[str, LanguageNames] | None = None,
        vocabulary: VocabularySource | None = None,
    ) -> None:
        self._rules = rules
        self._store = store_name
        self._say_in = replies
        self._language = language
        self._names = dict(names or {})
        self._lexicon = Lexicon(rules, self._names)
        self._vocabulary = vocabulary

    @property
    def replies(self) -> Replies:
        """The templates it answers with (those of the store language)."""
        return self._say_in

    async def aclose(self) -> None:
        """Nothing to release."""

    def read(self, text: str) -> Reading:
        """What a message says (filters, cues, the words describing the item)."""
        return self._lexicon.read(text)

    async def generate(
        self,
        system: str,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec],
        temperature: float | None = None,
        *,
        on_text: Callable[[str], None] | None = None,
    ) -> ModelReply:
        """The next reply. It is composed whole, so `on_text` gets its text once, in one piece."""
        last = messages[-1]
        responses = [p for p in last.parts if isinstance(p, FunctionResponse)]
        if responses:
            plan = _state(messages[-2]).get("plan", {}) if len(messages) > 1 else {}
            reply = self._answer(responses, plan)
        else:
            reply = await self._act_on(last.text, _history(messages[:-1]))
        if on_text is not None and reply.text:
            on_text(reply.text)
        return reply

    # -- the customer's words -> a plan: a reply, or tool calls --------------------------

    async def _act_on(self, text: str, history: _History) -> ModelReply:
        r = self._say_in
        reading = self._lexicon.read(text)
        shown = history.shown
        # The words the catalog uses for its products; the rest ("pls", "lol", "for my dad") only
        # colour a message, and alone they do not make it a new request.
        named = await self._catalog_words(reading.words)
        cued = reading.follow_up or reading.refs or reading.compare or reading.details
        # "merci bcp", "thanks, that's helpful": small talk with a word or two the catalog never uses.
        chatter = reading.small_talk and not (named or cued or reading.request) and len(reading.words) <= 2
        nothing_asked = not (reading.words or cued) or chatter
        if nothing_asked:
            if reading.identity:
                return _say(r.identity.format(store=self._store))
            if reading.thanks:
                return _say(r.thanks.format(store=self._store))
            if reading.bye:
                return _say(r.bye.format(store=self._store))
            if reading.greeting:
                return _say(r.greet.format(store=self._store))
            return _say(r.off_topic.format(store=self._store) if reading.off_topic else r.unclear)
        if reading.compare or reading.refs or reading.details or reading.about:
            pointed = self._pointed_at(reading, history)
            if pointed is not None:
                return pointed
        if reading.off_topic and not named:
            return _say(r.off_topic.format(store=self._store))
        if shown is not None and (reading.follow_up or reading.attribute):
            earlier = set(words(str(shown.args.get("query", ""))))
            same_subject = not named or set(named) <= earlier  # "cheaper ones pls", "the knives in black?"
            if reading.attribute or same_subject:
                return self._refine(reading, shown, attribute=reading.attribute and not set(named) <= earlier)
        if (earlier := history.earlier_search(named)) is not None and shown is not None:
            # "and the knives in black?" two turns after "knives under 30": that search, refined.
            subject = str(earlier.get("query", ""))
            return self._refine(reading, _Shown(earlier, subject, []), attribute=False)
        if reading.words:
            filters = _filters_of(reading)
            args: dict[str, Any] = {"query": reading.query, "limit": LIST_LENGTH}
            if filters:
                args["filters"] = filters
            return _search(args, {"subject": reading.query})
        if reading.has_filters:  # "anything under 30 euros?" with nothing before it
            args = {"query": " ".join(_filter_words(reading)) or "products", "limit": LIST_LENGTH,
                    "filters": _filters_of(reading)}  # fmt: skip
            return _search(args, {"subject": "", "browse": True})
        return _say(r.no_list if reading.refs or reading.details else r.unclear)

    def _pointed_at(self, reading: Reading, history: _History) -> ModelReply | None:
        """Details or a comparison of shown products, or None when the message is not about them."""
        r = self._say_in
        shown = history.shown.products if history.shown else []
        if reading.compare:
            positions = reading.refs or [1, 2]
            if len(shown) < 2:
                return _say(r.no_list)
            picked = [_at(shown, p) for p in positions[:2]]
            if any(p is None for p in picked):
                return _say(r.out_of_range.format(count=len(shown)))
            ids = [p["productId"] for p in picked if p is not None]
            if len(ids) == 1:  # "compare it with the first": the one detailed last and that one
                ids = [*history.detailed[:1], *ids] if history.detailed else [*ids, shown[0]["productId"]]
            return _details_call(list(dict.fromkeys(ids))[:2], compare=True)
        if reading.refs and not reading.similar:
            if not shown:
                return _say(r.no_list)
            product = _at(shown, reading.refs[0])
            if product is None:
                return _say(r.out_of_range.format(count=len(shown)))
            return _details_call([product["productId"]])
        if reading.similar and reading.refs:
            return None  # a search for similar products (planned by _refine)
        named = _named(reading.words, shown)
        if named is not None:
            return _details_call([named["productId"]])
        if reading.details and not reading.words:
            if history.detailed:
                return _details_call(history.detailed[:1])
            if len(shown) == 1:
                return _details_call([shown[0]["productId"]])
            return _say(r.which if shown else r.no_list)
        return None

    def _refine(self, reading: Reading, shown: _Shown, *, attribute: bool) -> ModelReply:
        args = {"query": shown.args.get("query", shown.subject), "limit": LIST_LENGTH}
        filters = dict(shown.args.get("filters") or {})
        # A price bound derived from shown prices ("cheaper") is not said back: the customer never said it.
        hide = shown.hide_price and reading.max_price is None and reading.min_price is None
        plan: dict[str, Any] = {"subject": shown.subject, "refined": True, "hide_price": hide}
        prices = [_decimal(p.get("effectivePrice")) for p in shown.products]
        prices = [p for p in prices if p is not None]
        if reading.colors:
            filters["colors"] = reading.colors
        if reading.sizes:
            filters["sizes"] = reading.sizes
        if reading.in_stock:
            filters["inStock"] = True
        if reading.max_price is not None:
            filters["maxPrice"] = float(reading.max_price)
        if reading.min_price is not None:
            filters["minPrice"] = float(reading.min_price)
        shown_ids = [p["productId"] for p in shown.products]
        if reading.cheaper and prices:
            # Cheaper than all of them; failing that, than the dearest one, among the others.
            filters["maxPrice"] = float(min(prices) - _CENT)
            filters.pop("minPrice", None)
            plan.update(refinement="cheaper", hide_price=True,
                        fallback={"maxPrice": float(max(prices) - _CENT), "exclude": shown_ids})  # fmt: skip
        elif reading.pricier and prices:
            filters["minPrice"] = float(max(prices) + _CENT)
            filters.pop("maxPrice", None)
            plan.update(refinement="pricier", hide_price=True,
                        fallback={"minPrice": float(min(prices) + _CENT), "exclude": shown_ids})  # fmt: skip
        if reading.similar and reading.refs and (product := _at(shown.products, reading.refs[0])) is not None:
            args["query"] = product["name"]
            plan.update(refinement="similar", exclude=[product["productId"]])
            args["limit"] = LIST_LENGTH * 2
        elif reading.more or reading.similar:
            plan.update(refinement="more", exclude=[p["productId"] for p in shown.products])
            args["limit"] = LIST_LENGTH * 2
        if attribute:
            args["query"] = f"{args['query']} {reading.query}"
            plan["subject"] = f"{shown.subject} {reading.query}".strip()
        if "maxPrice" in filters and "minPrice" in filters and filters["minPrice"] > filters["maxPrice"]:
            filters.pop("minPrice")
        if filters:
            args["filters"] = filters
        return _search(args, plan)

    async def _catalog_words(self, found: list[str]) -> list[str]:
        """Those of the words the catalog uses for its products (all of them while the catalog
        has no words yet: then nothing can be told apart, and everything is searched)."""
        if not found or self._vocabulary is None:
            return found
        vocabulary = await self._vocabulary()
        if not len(vocabulary):
            return found
        return [w for w in found if vocabulary.names_products(w)]

    # -- tool results -> a grounded answer -----------------------------------------------

    def _answer(self, responses: list[FunctionResponse], plan: dict[str, Any]) -> ModelReply:
        r = self._say_in
        failed = next((p for p in responses if p.result.get("isError")), None)
        if failed is not None:
            return _say(r.error.format(error=failed.result.get("content") or "the catalog did not answer"))
        if responses[0].name == DETAILS:
            found = [p.result.get("structuredContent") or {} for p in responses]
            if len(found) >= 2:
                return _say(self._comparison(found[0], found[1]), detailed=[d.get("productId") for d in found])
            return _say(self._details(found[0]), detailed=[found[0].get("productId")])
        data = responses[0].result.get("structuredContent") or {}
        fallback = plan.get("fallback")
        if fallback and not self._showable(data, plan):
            args = dict(plan.get("args", {}))
            filters = {**args.get("filters", {}), **{k: v for k, v in fallback.items() if k != "exclude"}}
            filters.pop("minPrice" if "maxPrice" in fallback else "maxPrice", None)
            args.update(filters=filters, limit=LIST_LENGTH * 2)
            retry = {**plan, "exclude": fallback["exclude"]}
            retry.pop("fallback")
            return _search(args, retry)
        return self._results(data, plan)

    def _showable(self, data: dict[str, Any], plan: dict[str, Any]) -> list[dict[str, Any]]:
        """What of a search result is worth showing as a match, available first: the strong
        ones; when refining a subject already shown ("cheaper ones?"), also partial ones whose
        name has a word of that subject ("Snow Boot" for "warm winter boots", never "Wok" for
        "cast iron pan"). Other partial matches are only offered as the closest, labelled so."""
        exclude = set(plan.get("exclude", []))
        products = [p for p in data.get("products", []) if p.get("productId") not in exclude]
        if plan.get("browse"):
            return products[:LIST_LENGTH]
        subject = {_stem(w) for w in words(str(plan.get("args", {}).get("query", ""))) if w not in STOPWORDS}

        def fits(p: dict[str, Any]) -> bool:
            if p.get("match") == "strong":
                return True
            named = {_stem(w) for w in words(str(p.get("name", "")))}
            return bool(plan.get("refined")) and p.get("match") == "partial" and bool(subject & named)

        shown = [p for p in products if fits(p)][:LIST_LENGTH]
        return sorted(shown, key=lambda p: not p.get("inStock", True))  # stable: available first

    def _results(self, data: dict[str, Any], plan: dict[str, Any]) -> ModelReply:
        r = self._say_in
        call = plan.get("args", {})
        filters = call.get("filters", {})
        subject = plan.get("subject") or call.get("query", "")
        exclude = set(plan.get("exclude", []))
        products = [p for p in data.get("products", []) if p.get("productId") not in exclude]
        partial = [p for p in products if p.get("match") == "partial"]
        shown = self._showable(data, plan)
        hide_price = bool(plan.get("hide_price"))
        wording = self._filters_text(filters, hide_price=hide_price)
        lines: list[str] = []
        if shown:
            header = {"cheaper": r.found_cheaper, "pricier": r.found_pricier, "more": r.found_more,
                      "similar": r.found_similar}.get(plan.get("refinement", ""), r.found)  # fmt: skip
            if plan.get("browse"):
                header = r.browse
            lines.append(header.format(subject=subject, filters=wording))
            if corrections := data.get("corrections"):
                lines[0] += " " + r.corrected.format(words=", ".join(corrections.values()))
            lines += [self._line(n, p, filters) for n, p in enumerate(shown, start=1)]
            if not any(p.get("inStock", True) for p in shown):
                lines.append(r.all_sold_out.format(what=self._variation_text(filters, lead=" ")))
            lines.append(r.footer)
            return _say("\n".join(lines), shown=shown, args=call, subject=subject, hide_price=hide_price)
        refinement = plan.get("refinement")
        if refinement in ("cheaper", "pricier", "more", "similar"):
            template = {"cheaper": r.none_cheaper, "pricier": r.none_pricier}.get(refinement, r.none_more)
            lines.append(template.format(subject=subject, filters=wording))
        elif filters and any(p.get("match") == "strong" for p in data.get("products", [])):
            lines.append(r.none_filtered.format(subject=subject, filters=wording))
        elif _narrowing(filters):
            lines.append(r.none_filtered.format(subject=subject, filters=wording))
            lines.append(r.relax.format(hints=self._hints(filters)))
        else:
            lines.append(r.not_carried.format(store=self._store, subject=subject))
        # The closest partial matches, labelled so; not after "cheaper", where they would be
        # other, merely cheaper things rather than the subject.
        closest = [p for p in partial if p.get("productId") not in exclude][:CLOSEST]
        if refinement == "cheaper":
            closest = []
        if closest:
            lines.append(r.closest)
            lines += [self._line(n, p, filters) for n, p in enumerate(closest, start=1)]
        elif refinement is None and not _narrowing(filters):
            lines.append(r.rephrase)
        return _say("\n".join(lines), shown=closest, args=call, subject=subject, hide_price=hide_price)

    def _line(self, number: int, p: dict[str, Any], filters: dict[str, Any]) -> str:
        r = self._say_in
        price = f"{p['effectivePrice']} {p['currency']}"
        if p.get("discountedPrice"):
            price += r.was.format(price=p["price"])
        parts = [f"{number}. {p['name']} - {price}"]
        colours = [self._colour(c) for c in p.get("availableColors", [])]
        stock = r.colours.format(colours=", ".join(colours)) if colours else ""
        if p.get("availableSizes"):
            stock += r.sizes.format(sizes=", ".join(p["availableSizes"]))
        if stock:
            parts.append(" - " + stock.lstrip("; "))
        if not p.get("inStock", True):
            what = self._variation_text(filters)
            parts.append(r.sold_out_in.format(what=what) if what else r.sold_out)
        return "".join(parts)

    def _details(self, d: dict[str, Any]) -> str:
        r = self._say_in
        price = f"{d['effectivePrice']} {d['currency']}"
        if d.get("discountedPrice"):
            price += r.was.format(price=d["price"])
        brand = r.by.format(brand=d["brand"]) if d.get("brand") and not _instruction(d["brand"]) else ""
        parts = [f"{d['name']}{brand} ({d['category']}) - {price}."]
        if summary := summarise(d.get("description", "")):
            parts.append(summary)
        if d.get("material") and not _instruction(d["material"]):
            parts.append(r.material.format(material=d["material"]))
        parts.append(self._availability(d))
        return " ".join(parts)

    def _availability(self, d: dict[str, Any]) -> str:
        r = self._say_in
        available = [v for v in d.get("variations", []) if v.get("available", 0) > 0]
        if not available:
            return r.detail_sold_out
        items = [r.item.format(colour=self._colour(v["color"]), size=v["size"], count=v["available"])
                 for v in available[:8]]  # fmt: skip
        listed = ", ".join(items) + (r.more_items.format(count=len(available) - 8) if len(available) > 8 else "")
        return r.available.format(items=listed)

    def _comparison(self, a: dict[str, Any], b: dict[str, Any]) -> str:
        r = self._say_in
        lines = [r.compare_head.format(first=a["name"], second=b["name"])]
        for d in (a, b):
            price = f"{d['effectivePrice']} {d['currency']}"
            if d.get("discountedPrice"):
                price += r.was.format(price=d["price"])
            material = f"; {d['material']}" if d.get("material") and not _instruction(d["material"]) else ""
            rating = r.rating.format(rating=d["rating"]) if d.get("rating") is not None else ""
            lines.append(f"- {d['name']}: {price}{material}{rating}; {self._availability(d)}")
        pa, pb = _decimal(a.get("effectivePrice")), _decimal(b.get("effectivePrice"))
        if pa is not None and pb is not None and pa != pb:
            lines.append(r.cheaper_one.format(name=a["name"] if pa < pb else b["name"]))
        ra, rb = a.get("rating"), b.get("rating")
        if ra is not None and rb is not None and ra != rb:
            lines.append(r.better_rated.format(name=a["name"] if ra > rb else b["name"]))
        return "\n".join(lines)

    # -- words for filters ------------------------------------------------------------

    def _colour(self, colour: str) -> str:
        return self._lexicon.color_name(colour, self._language, self._names)

    def _variation_text(self, filters: dict[str, Any], lead: str = "") -> str:
        r = self._say_in
        words = []
        if filters.get("sizes"):
            words.append(r.in_size.format(sizes=f" {r.alternative} ".join(filters["sizes"])))
        if filters.get("colors"):
            words.append(r.in_colour.format(colours=f" {r.alternative} ".join(map(self._colour, filters["colors"]))))
        text = ", ".join(words)
        return lead + text if text else ""

    def _filters_text(self, filters: dict[str, Any], *, hide_price: bool = False) -> str:
        r = self._say_in
        words = [self._variation_text(filters)] if filters.get("sizes") or filters.get("colors") else []
        low, high = filters.get("minPrice"), filters.get("maxPrice")
        currency = self._rules.currency
        if not hide_price:
            if low is not None and high is not None:
                words.append(r.between.format(low=f"{_amount(low)} {currency}", high=f"{_amount(high)} {currency}"))
            elif high is not None:
                words.append(r.under.format(amount=f"{_amount(high)} {currency}"))
            elif low is not None:
                words.append(r.over.format(amount=f"{_amount(low)} {currency}"))
        if filters.get("inStock"):
            words.append(r.in_stock)
        return f" ({', '.join(words)})" if words else ""

    def _hints(self, filters: dict[str, Any]) -> str:
        r = self._say_in
        hints = []
        if filters.get("sizes"):
            hints.append(r.another_size)
        if filters.get("colors"):
            hints.append(r.another_colour)
        if "maxPrice" in filters or "minPrice" in filters:
            hints.append(r.wider_price)
        if filters.get("inStock"):
            hints.append(r.sold_out_too)
        return f" {r.alternative} ".join(hints)


def summarise(description: str) -> str:
    """A short summary of product text for the customer: the first sentences that describe
    the product (never ones that read like instructions), capped at SUMMARY_CHARS."""
    sentences = re.split(r"(?<=[.!?])\s+", " ".join(description.split()))
    kept = [s for s in sentences if s and not _instruction(s)]
    if not kept:
        return ""
    summary = kept[0]
    if len(summary) > SUMMARY_CHARS:
        cut = summary[:SUMMARY_CHARS].rsplit(" ", 1)[0].rstrip(",;:-")
        summary = cut + "…"
    return summary


def _stem(word: str) -> str:
    """A word without a plural or inflection ending, for comparing names: boots ~ boot."""
    for ending in ("es", "en", "er", "s", "e", "n", "x"):
        if len(word) > len(ending) + 3 and word.endswith(ending):
            return word[: -len(ending)]
    return word


def _instruction(text: str) -> bool:
    return bool(_INSTRUCTION.search(fold(text)))


def _history(messages: Sequence[ChatMessage]) -> _History:
    """What the conversation has shown so far, from its stored tool calls and answers."""
    history = _History()
    args: dict[str, Any] = {}
    result: dict[str, Any] = {}
    for message in messages:
        for part in message.parts:
            if isinstance(part, FunctionCall) and part.name == SEARCH:
                args = part.args
                history.searches.append(args)
            elif isinstance(part, FunctionResponse) and part.name == SEARCH and not part.result.get("isError"):
                result = part.result.get("structuredContent") or {}
        if message.role != "model" or not message.text:
            continue
        state = _state(message)
        if "shown" in state:
            by_id = {p.get("productId"): p for p in result.get("products", [])}
            products = [by_id[i] for i in state["shown"] if i in by_id]
            subject = state.get("subject", args.get("query", ""))
            history.shown = _Shown(state.get("args", args), subject, products, bool(state.get("hide_price")))
            history.detailed = []
        elif "detailed" in state:
            history.detailed = [i for i in state["detailed"] if isinstance(i, int)]
        elif result and args:  # another model answered from a search: take its results as shown
            history.shown = _Shown(args, str(args.get("query", "")), list(result.get("products", []))[:LIST_LENGTH])
    return history


def _state(message: ChatMessage) -> dict[str, Any]:
    state = message.provider_state or {}
    return state if state.get("provider") == PROVIDER else {}


def _named(words: list[str], shown: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The shown product whose name the words point at ("the chelsea boots"), if one stands out."""
    if not words or not shown:
        return None
    wanted = set(words)
    scored = [(len(wanted & set(re.findall(r"[^\W_]+", fold(p.get("name", ""))))), p) for p in shown]
    best = max(score for score, _ in scored)
    leaders = [p for score, p in scored if score == best]
    # Most of the words must be in the name, and the name must be the only one that has them.
    if best == 0 or best * 2 < len(wanted) or len(leaders) > 1:
        return None
    return leaders[0]


def _at(products: list[dict[str, Any]], position: int) -> dict[str, Any] | None:
    if position == -1:
        return products[-1] if products else None
    return products[position - 1] if 1 <= position <= len(products) else None


def _filters_of(reading: Reading) -> dict[str, Any]:
    filters: dict[str, Any] = {}
    if reading.colors:
        filters["colors"] = reading.colors
    if reading.sizes:
        filters["sizes"] = reading.sizes
    if reading.min_price is not None:
        filters["minPrice"] = float(reading.min_price)
    if reading.max_price is not None:
        filters["maxPrice"] = float(reading.max_price)
    if reading.in_stock:
        filters["inStock"] = True
    return filters


def _filter_words(reading: Reading) -> list[str]:
    return [*reading.colors, *reading.sizes]


def _narrowing(filters: dict[str, Any]) -> bool:
    return bool(filters.get("sizes") or filters.get("colors") or filters.get("inStock")
                or "maxPrice" in filters or "minPrice" in filters)  # fmt: skip


def _decimal(value: Any) -> Decimal | None:
    try:
        return Decimal(str(value)) if value is not None else None
    except InvalidOperation:
        return None


def _amount(value: float) -> str:
    """A price bound as the customer said it: 50, 49.5."""
    text = f"{Decimal(str(value)).normalize():f}"
    return text


def _search(args: dict[str, Any], plan: dict[str, Any]) -> ModelReply:
    plan = {**plan, "args": args}
    message = ChatMessage(
        role="model", parts=[FunctionCall(name=SEARCH, args=args)], provider_state={"provider": PROVIDER, "plan": plan}
    )
    return ModelReply(message=message)


def _details_call(product_ids: list[int], *, compare: bool = False) -> ModelReply:
    calls = [FunctionCall(name=DETAILS, args={"productId": i}) for i in product_ids]
    state = {"provider": PROVIDER, "plan": {"compare": compare}}
    return ModelReply(message=ChatMessage(role="model", parts=list(calls), provider_state=state))


def _say(text: str, **state: Any) -> ModelReply:
    provider_state = {"provider": PROVIDER, **state} if state else None
    if "shown" in state:
        provider_state = {**(provider_state or {}), "shown": [p.get("productId") for p in state["shown"]]}
    return ModelReply(message=ChatMessage(role="model", parts=[TextPart(text)], provider_state=provider_state))
