"""Tool results -> a grounded answer in the store language.

Answers are honest: strong matches are listed (available ones first), then at most two partial
ones named like them (beside a list narrowed to one, the closest one of its category), labelled as not
exactly what was asked; with no strong match the partial
ones are offered as coming close, and only when nothing is even partial does the concierge say
the shop does not seem to carry it. Lists are never padded with weak matches. A question about
shown products is answered from their details (facts.py); a question about the shop from its
store pages. Product text is data: only names, prices, colours, sizes and sentences of the
description are shown, never ones that read like instructions or markup (text.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from difflib import SequenceMatcher
from typing import Any

import msgspec

from shopagent.adapters.local.concierge.clauses import by_kind
from shopagent.adapters.local.concierge.facts import FactFinder, SentenceVectors
from shopagent.adapters.local.concierge.memory import (
    LIST_LENGTH,
    STORE_TOOL,
    decimal_or_none,
    details_call,
    say,
    search_call,
    store_call,
)
from shopagent.adapters.local.concierge.phrases import ASKING_NOTHING_SAID, STOPWORDS
from shopagent.adapters.local.concierge.pointing import having, mainly, words_of
from shopagent.adapters.local.concierge.product_data import (
    by_largest_amount,
    by_named_measure,
    in_measure,
    price_said,
    size_steps,
    sizes_of,
    variant_text,
    with_specs_said,
)
from shopagent.adapters.local.concierge.replies import Replies
from shopagent.adapters.local.concierge.store_text import store_answer
from shopagent.adapters.local.concierge.text import clean_sentences, instruction, stem, stems_of, summarise
from shopagent.adapters.local.concierge.understanding import LanguageNames, Lexicon
from shopagent.application.ports import EmbeddingModel
from shopagent.domain.catalog import CatalogRules
from shopagent.domain.chat import FunctionResponse, ModelReply, TextPart
from shopagent.domain.options import fold
from shopagent.domain.prices import price_text
from shopagent.domain.query_words import WHOM_FOR, name_head, names_a_thing
from shopagent.domain.text import words
from shopagent.domain.tools import DETAILS_TOOL
from shopagent.domain.vocabulary import word_forms

CLOSEST = 2  # partial matches offered as close alternatives
_DESCRIBED_ANSWERED = 2  # products answered about that a question calls by a word of their texts
_KIND_LETTERS = 4  # the shortest word that names a kind inside a compound ("Schälmesser": messer)
_CALLED_LOOKED_UP = 3  # found for "the leather ones": looked up to see which is leather
_TYPO_LIKENESS = 0.75  # spelling likeness of a word and its correction, for a misspelling


_SIZED_PRODUCTS = 3  # products answered with their larger sizes, of a list shown


class Answerer:
    """Writes the answer to the tool results of a plan, or the next search when a
    refinement found nothing and has a fallback."""

    def __init__(
        self,
        replies: Replies,
        store_name: str,
        rules: CatalogRules,
        lexicon: Lexicon,
        language: str,
        names: Mapping[str, LanguageNames],
        embedder: EmbeddingModel | None = None,
        contact: str = "",
        vectors: SentenceVectors | None = None,
        said_in: str | None = None,
    ) -> None:
        self._say_in = replies
        self._said_in = said_in or language  # the language its replies are in (`language`: the store's)
        self._store = store_name
        self._rules = rules
        self._lexicon = lexicon
        self._language = language
        self._names = names
        self._facts = FactFinder(replies, embedder, rules.locale, vectors)
        self._contact = contact

    async def answer(self, responses: list[FunctionResponse], plan: dict[str, Any]) -> ModelReply:
        """The answer to the tool results of `plan` (the list shown in `provider_state`)."""
        r = self._say_in
        # A product looked up beside a search only adds to its answer: its failure spoils nothing.
        failed = next((p for p in responses[: 1 if plan.get("said_of") else None] if p.result.get("isError")), None)
        if failed is not None:
            return say(r.error.format(error=failed.result.get("content") or "the catalog did not answer"))
        if responses[0].name == STORE_TOOL:
            data = responses[0].result.get("structuredContent") or {}
            return store_answer(data, plan, r, self._contact, self._language)
        if responses[0].name == DETAILS_TOOL:
            found = [with_specs_said(p.result.get("structuredContent") or {}, r) for p in responses]
            lead: list[str] = [plan["lead"]] if plan.get("lead") else []  # (said before the answer)
            if plan.get("ask_words"):  # "the leather ones": of those found, the one that is
                # (with nothing shown, "is the tuyau d'arrosage 25 m?" asks of the best found, called so or not)
                # ("how much is the stainless steel one?" after two kettles of it: those shown, not a rack so named)
                called_so = having(found, plan["ask_words"])
                among = plan.get("among") or []
                shown_so = [d for d in called_so if d.get("productId") in among and mainly(d, plan["ask_words"])]
                found = shown_so or (called_so or (found if plan.get("or_first") else []))[:1]
                if not found and (otherwise := plan.get("otherwise")):  # "the waterproof one": of those shown
                    return details_call(otherwise, question=plan["question"], also=plan.get("also"))
                if not found:
                    return say(r.no_list, kept=True)
            if plan.get("described"):  # "is the basil perennial?": the one whose text tells of basil
                wanted = set(plan["described"])
                told = [d for d in found if wanted <= stems_of(f"{d.get('name', '')} {d.get('description', '')}")]
                if not told and (others := plan.get("described_next")):  # not the one talked about: the rest
                    return details_call(others, question=plan["question"], asked=plan.get("asked"),
                                        also=plan.get("also"), described=plan["described"],
                                        otherwise=plan.get("otherwise"),
                                        described_search=plan.get("described_search", ""),
                                        told_elsewhere=plan.get("told_elsewhere", ""))  # fmt: skip
                if not told and (searched := plan.get("described_search")):
                    # "and the rosemary you showed, is it hardy?" where no product listed tells of rosemary: the
                    # shop's products that do (a herb set), searched (was the lavender talked about)
                    return search_call({"query": searched, "limit": LIST_LENGTH},
                                       {"subject": searched, "described_found": plan["described"],
                                        "question": plan["question"], "asked": plan.get("asked"),
                                        "also": plan.get("also"), "otherwise": plan.get("otherwise"),
                                        "told_elsewhere": plan.get("told_elsewhere") or searched})  # fmt: skip
                if not told and (otherwise := plan.get("otherwise")):
                    return details_call(otherwise, question=plan["question"], asked=plan.get("asked"),
                                        also=plan.get("also"))  # fmt: skip
                found = told[:_DESCRIBED_ANSWERED] or found[:1]
                if told and plan.get("told_elsewhere"):
                    lead = [r.told_elsewhere.format(thing=plan["told_elsewhere"])]
            if plan.get("sized"):  # "the bigger one": its larger size, or the larger of them
                lines, ids = self._sized(found, plan["sized"])
                return say("\n".join(lines), detailed=ids)
            if plan.get("question"):
                asked = _asked_so(plan.get("asked") or {}, found, plan["question"])
                lines = await self._facts.answer(plan["question"], found, asked, self._colour, self._variation_lead,
                                                 also=plan.get("also") or {})  # fmt: skip
                return say("\n".join([*lead, *lines]), detailed=[d.get("productId") for d in found])
            if len(found) >= 2:
                return say(self._comparison(found[0], found[1]), detailed=[d.get("productId") for d in found])
            return say(self._details(found[0]), detailed=[found[0].get("productId")])
        if plan.get("each"):
            return self._each(responses, plan)
        data = responses[0].result.get("structuredContent") or {}
        fitting = [p for p in _offered(data, plan) if p.get("match") in ("strong", "partial")]
        if plan.get("ask_found") and fitting:
            # "is the manure one smelly?": the question, asked of the one found that is called so
            among = plan.get("among") or []  # the products shown, looked up too: they may be what is called so
            ids = list(dict.fromkeys([*(p["productId"] for p in fitting[:_CALLED_LOOKED_UP]), *among]))
            if (priced := plan.get("priced")) and (called_so := having(fitting, plan["ask_words"])):
                # "the cheaper of the two propagators": of those found called so, the one by its price
                by_price = sorted(called_so, key=_price_of, reverse=priced == "dearest")
                ids = [by_price[0]["productId"]]
            return details_call(ids, question=plan["ask_found"], also=plan.get("also"), called=plan["ask_words"],
                                otherwise=plan.get("otherwise"), or_first=bool(plan.get("or_first")),
                                among=among)  # fmt: skip
        if plan.get("described_found"):  # (the products found for what a question calls a thing: above)
            ids = [p["productId"] for p in _offered(data, plan)[:_CALLED_LOOKED_UP]] or plan.get("otherwise") or []
            if not ids:
                return say(r.no_list, kept=True)
            return details_call(ids, question=plan["question"], asked=plan.get("asked"), also=plan.get("also"),
                                described=plan["described_found"], otherwise=plan.get("otherwise"),
                                told_elsewhere=plan.get("told_elsewhere") or plan["subject"])  # fmt: skip
        if colour := plan.get("colour_found"):
            # "das rote, hat das vorne einen Ring?" where nothing shown comes in red: the one of that kind that does
            kind = stem(str(plan.get("subject", "")))
            same = [p for p in fitting if (head := name_head(str(p.get("name", "")))) and stem(head) == kind]
            if not same:
                return say(r.no_such_colour.format(colour=colour), kept=True)
            said = r.in_colour_unshown.format(colour=colour, name=same[0].get("name", ""))
            return details_call([same[0]["productId"]], question=plan["question"], asked=plan.get("asked"), lead=said)
        if plan.get("ask_found") and plan.get("otherwise"):  # nothing found called so: of those shown
            return details_call(plan["otherwise"], question=plan["ask_found"], also=plan.get("also"))
        if "relaxed" in plan:  # this search is the one without the colour or size asked: its answer
            return self._in_other_variations(data, plan)
        fallback = plan.get("fallback")
        if fallback and not self._showable(data, plan):
            args = dict(plan.get("args", {}))
            filters = {**args.get("filters", {}), **{k: v for k, v in fallback.items() if k != "exclude"}}
            filters.pop("minPrice" if "maxPrice" in fallback else "maxPrice", None)
            wider = {**args, "filters": filters, "limit": LIST_LENGTH * 2}
            if wider != args:  # (one product shown: cheaper than all is cheaper than the dearest, searched)
                retry = {**plan, "exclude": fallback["exclude"], "than_dearest": "maxPrice" in fallback}
                retry.pop("fallback")
                return search_call(wider, retry)
        if plan.get("capped") and not self._showable(data, plan):
            # "chinos, max 50 euro" where none costs so little: the chinos there are, at their prices (was other
            # kinds of thing within the price, "close"); searched again without the price's ceiling
            args = dict(plan.get("args", {}))
            uncapped = {k: v for k, v in args.get("filters", {}).items() if k not in ("maxPrice", "minPrice")}
            retry = {k: v for k, v in plan.items() if k != "capped"}
            return search_call(
                {**_with_filters(args, uncapped), "limit": LIST_LENGTH * 2},
                {**retry, "over_cap": args, "capped_found": data},
            )
        if (capped := plan.get("over_cap")) is not None:
            if (over := self._over_cap(data, plan, capped)) is not None:
                return over
            # none of the kind at any price: the search within the price is answered as it would have been
            data = plan["capped_found"]
            plan = {**{k: v for k, v in plan.items() if k not in ("over_cap", "capped_found")}, "args": capped}
        if plan.get("uncoloured") and not self._showable(data, plan):
            # Nothing in the colour asked: products sold in no colours at all may be of it (their
            # text says), searched without the colour and offered so labelled.
            args = dict(plan.get("args", {}))
            filters = dict(args.get("filters", {}))
            colours = filters.pop("colors", [])
            args = _with_filters(args, filters)
            retry = {k: v for k, v in plan.items() if k != "uncoloured"} | {"colours_unlisted": colours}
            return search_call(args, retry | {"close_asked": _close(data, plan)})
        if plan.get("colours_unlisted") and not any(
            p.get("match") in ("strong", "partial") for p in _offered(data, plan)
        ):
            # None sold in no colours fits either: the thing asked for in the colours (and sizes) it comes
            # in, from this search without the colour, or one without the size too (none repeated).
            first = {k: v for k, v in plan.items() if k not in ("colours_unlisted", "args")}
            args = dict(plan.get("args", {}))
            asked = {**args, "filters": {**args.get("filters", {}), "colors": plan["colours_unlisted"]}}
            if args.get("filters", {}).get("sizes") and not any(
                p.get("match") == "strong" for p in _offered(data, first)
            ):
                kept = {k: v for k, v in args["filters"].items() if k != "sizes"}
                return search_call(_with_filters(args, kept), {**first, "relaxed": asked})
            return self._in_other_variations(data, {**first, "args": args, "relaxed": asked})
        if (relaxed := self._relaxed(data, plan)) is not None:
            return relaxed
        if plan.get("broad") and (kinds := _one_of_each_kind(data, plan)):
            subject = plan.get("subject") or plan.get("args", {}).get("query", "")
            lines = [r.broad.format(subject=subject)]
            lines += [self._line(n, p, {}) for n, p in enumerate(kinds, start=1)]
            return say("\n".join(lines), shown=kinds, args=plan.get("args", {}), subject=subject)
        if plan.get("store_fallback") and not any(
            p.get("match") in ("strong", "partial") for p in data.get("products", [])
        ):
            # No product fits: perhaps the shop's own pages answer it ("can you post it to Galway?").
            # A question neither answers ("is there parking near your shop?") gets "I don't know";
            # a request gets the search's own answer ("we don't seem to carry …").
            fallback = None if plan.get("question") else self._results(data, plan).text
            return store_call(plan["store_fallback"], {"fallback": fallback})
        listed = self._with_said_of(self._results(data, plan), responses[1:], plan)
        if (
            plan.get("store_fallback")
            and plan.get("names_no_kind")
            and not any(p.get("match") == "strong" for p in data.get("products", []))
        ):
            # "are your prices including vat?", "is there a minimum order?": a question naming nothing the shop
            # sells, that no product surely answers: the shop's pages, if one of them surely does; else these.
            state = listed.message.provider_state or {}
            return store_call(plan["store_fallback"], {"fallback": listed.text, "fallback_state": state})
        return listed

    def _each(self, responses: list[FunctionResponse], plan: dict[str, Any]) -> ModelReply:
        """The answer to a request for several things ("a cage and bedding"): under each thing, its
        best matches (at most `_EACH`), else its closest one, labelled so, else that there is none;
        numbered on through all of them, so that "the third one" is the third listed."""
        r = self._say_in
        args = plan.get("args", {})
        filters = args.get("filters", {})
        lines = [r.found_each.format(filters=self._filters_text(filters, hide_price=bool(plan.get("hide_price"))))]
        listed: list[dict[str, Any]] = []
        found = [  # (a search that failed found nothing)
            (subject, response.result.get("structuredContent") or {}, {**plan, "args": {**args, "query": subject}})
            for subject, response in zip(plan["each"], responses, strict=False)
        ]
        # each thing's own matches; a product that fits one thing is never another's closest
        each = _EACH if len(found) <= _MANY_THINGS else 1
        matches = [self._showable(data, one) for _, data, one in found]
        fitting = {p.get("productId") for shown in matches for p in shown[:each]}
        for (subject, data, one), shown in zip(found, matches, strict=True):
            taken = {q.get("productId") for q in listed}  # listed for an earlier thing
            shown = [p for p in shown if p.get("productId") not in taken]
            close = [
                p for p in _offered(data, one)
                if p.get("match") == "partial" and p.get("productId") not in taken | fitting
            ][:1]  # fmt: skip
            if not shown and not close:
                lines.append(r.each_none.format(subject=subject))
                continue
            lines.append((r.each if shown else r.each_close).format(subject=subject))
            for p in shown[:each] or close:
                listed.append(p)
                lines.append(self._line(len(listed), p, filters))
        if not listed:
            return say("\n".join([*lines[1:], r.rephrase]), kept=True)
        lines.append(self._footer(listed))
        return say("\n".join(lines), shown=listed, args=args, subject=" / ".join(plan["each"]))

    def _with_said_of(self, reply: ModelReply, responses: list[FunctionResponse], plan: dict[str, Any]) -> ModelReply:
        """The answer to a request for something to go with the product talked about ("a bracket
        to put it on the wall"), led by that product's own sentence naming the thing, when it has
        one ("HDMI cable, optical cable and wall bracket included."), quoted as written."""
        looked_up = [
            with_specs_said(p.result.get("structuredContent") or {}, self._say_in)
            for p in responses
            if p.name == DETAILS_TOOL
        ]
        if plan.get("said_of") is None or not looked_up or responses[0].result.get("isError"):
            return reply
        product = looked_up[0]
        name = str(product.get("name", ""))
        own = {stem(w) for w in words(name)}
        wanted = [stem(w) for w in plan.get("said_words", []) if stem(w) not in own]
        if not wanted:
            return reply
        naming = [
            (not _in_order(wanted, stems), at, sentence)  # "HDMI cable … included" over "HDMI eARC … optical cable"
            for at, sentence in enumerate(clean_sentences(str(product.get("description", ""))))
            if set(wanted) <= set(stems := [stem(w) for w in words(sentence)])
        ]
        if not naming:
            return reply
        said = self._say_in.said_of.format(name=name, sentence=min(naming)[2])
        led = [TextPart(f"{said}\n\n{reply.text}")]
        return ModelReply(message=msgspec.structs.replace(reply.message, parts=led))

    def _relaxed(self, data: dict[str, Any], plan: dict[str, Any]) -> ModelReply | None:
        """With nothing to show in the colour or size asked ("dinner plates in blue, set of 6", "a light
        summer dress, in red?"), the search again without them: the thing asked for in the colours and
        sizes it comes in says more than other things that happen to be red. None when something fits."""
        args = plan.get("args", {})
        filters = args.get("filters", {})
        if not (filters.get("colors") or filters.get("sizes")) or plan.get("browse") or plan.get("said_of"):
            return None
        if plan.get("refinement") or plan.get("colours_unlisted"):  # "cheaper?" in red: none cheaper in red is
            return None  # its answer, said so; those sold in no colours are the answer after a colour
        if "relaxed" in plan or self._showable(data, plan):  # (searched without them already)
            return None
        kept = {k: v for k, v in filters.items() if k not in ("colors", "sizes")}
        return search_call(_with_filters(args, kept), {**plan, "relaxed": args, "close_asked": _close(data, plan)})

    def _in_other_variations(self, data: dict[str, Any], plan: dict[str, Any]) -> ModelReply:
        """The strong matches of the search without the colour or size asked, said to come in others;
        with none, the search as asked is answered as it would have been."""
        asked = plan["relaxed"]
        filters = asked.get("filters", {})
        close = plan.get("close_asked") or []  # the close matches in the colour and size asked, found first
        strong = [p for p in _offered(data, plan) if p.get("match") == "strong"]
        if not strong:
            # the answer to the search as asked, from those of these in the colour and size asked (not
            # that search again: a call repeated is no answer)
            closed = {p.get("productId") for p in close}
            fitting = [
                *close,
                *(p for p in data.get("products", []) if _comes_in(p, filters) and p.get("productId") not in closed),
            ]
            return self._results({**data, "products": fitting}, {**plan, "args": asked})
        r = self._say_in
        subject = plan.get("subject") or asked.get("query", "")
        hide_price = bool(plan.get("hide_price"))
        # of those, the ones of the kinds found ("red sneakers in 42" beside shoes; not red sneakers beside
        # summer dresses)
        close = [p for p in close if p.get("category") in {s.get("category") for s in strong}]
        closed = {p.get("productId") for p in close}
        # (available first, then those in more of what was asked: "black wellies in 38", none made so in stock:
        # the ones sold in black and in 38 before those in 38 only)
        shown = sorted([p for p in strong if p.get("productId") not in closed][: LIST_LENGTH - len(close)],
                       key=lambda p: (not p.get("inStock", True), -_asked_it_comes_in(p, filters)))  # fmt: skip
        searched = plan.get("args", {}).get("filters", {})  # what this search kept of the filters asked
        dropped = (bool(filters.get("colors")) and not searched.get("colors"),
                   bool(filters.get("sizes")) and not searched.get("sizes"))  # fmt: skip
        which = {(True, False): r.in_other_colours, (False, True): r.in_other_sizes}.get(dropped, r.in_other_variations)
        wording = self._filters_text(filters, hide_price=hide_price)
        # "red shoes in 42": the shoes in other colours (strong matches first), then the red ones in 42
        # that come close (partial ones after, labelled so)
        lines = [r.none_filtered.format(subject=subject, filters=wording), which]
        lines += [self._line(n, p, {}) for n, p in enumerate(shown, start=1)]
        if close:
            lines += [r.also_close, *[self._line(n, p, filters) for n, p in enumerate(close, start=len(shown) + 1)]]
        shown = [*shown, *close]
        lines.append(self._footer(shown))
        # the list is of those, whatever their colour or size: "cheaper ones?" next asks among them
        return say("\n".join(lines), shown=shown, args=plan["args"], subject=subject, hide_price=hide_price)

    def _over_cap(self, data: dict[str, Any], plan: dict[str, Any], capped: dict[str, Any]) -> ModelReply | None:
        """The answer to a request under a price none of its kind meets ("chinos, max 50 euro"), from the search
        without that price: that none costs so little, then those of the kind there are, best first; None where
        none fits at any price."""
        r = self._say_in
        first = {k: v for k, v in plan.items() if k not in ("over_cap", "capped_found")}
        fitting = [p for p in _offered(data, first) if p.get("match") == "strong"][:LIST_LENGTH]
        if not fitting:
            # none strong: those whose name says the thing asked for, in the catalog's words ("une tente 2 places
            # pour une rando de 4 jours, budget max 250€": the tents, dearer, not a daypack and boots within it)
            said = f"{capped.get('query', '')} {' '.join(map(str, (data.get('corrections') or {}).values()))}"
            asked = {stem(w) for w in words(fold(said)) if w not in STOPWORDS and not w.isdigit()}
            # (the closest two, as partial matches always are)
            thing = [p for p in _offered(data, first) if stem(fold(name_head(str(p.get("name", ""))) or "")) in asked]
            fitting = [p for p in thing if p.get("match") == "partial"][:CLOSEST]
        if not fitting:
            return None
        subject = plan.get("subject") or capped.get("query", "")
        lines = [r.none_filtered.format(subject=subject, filters=self._filters_text(capped.get("filters", {})))]
        lines.append(r.over_budget.format(subject=subject))
        lines += [self._line(n, p, {}) for n, p in enumerate(fitting, start=1)]
        lines.append(self._footer(fitting))
        return say("\n".join(lines), shown=fitting, args=plan.get("args", {}), subject=subject)

    def _showable(self, data: dict[str, Any], plan: dict[str, Any]) -> list[dict[str, Any]]:
        """What of a search result is worth showing as a match, available first: the strong
        ones; when refining a subject already shown ("cheaper ones?"), also partial ones whose
        name has a word of that subject ("Snow Boot" for "warm winter boots", never "Wok" for
        "cast iron pan"). Other partial matches are only offered as the closest, labelled so."""
        products = _offered(data, plan)
        if plan.get("browse"):
            return products[:LIST_LENGTH]
        subject = {stem(w) for w in words(str(plan.get("args", {}).get("query", ""))) if w not in STOPWORDS}
        # "something grain free" said of dog foods: a partial match named by the new words, not only the old
        qualifier = {stem(w) for w in words(str(plan.get("qualifier", ""))) if w not in STOPWORDS}

        # "gibt es eine günstigere?" after secateurs shown as coming close: cheaper ones of that kind, also close
        close_kinds = set(plan.get("close_kinds") or [])

        close_before = set(plan.get("close_before") or [])

        def fits(p: dict[str, Any]) -> bool:
            if p.get("productId") in close_before:
                return False  # (shown as only close before, and still)
            if p.get("match") == "strong":
                return True
            if close_kinds and p.get("match") == "partial":
                head = name_head(str(p.get("name", "")))
                return head is not None and names_a_thing(head, close_kinds)
            named = {stem(w) for w in words(str(p.get("name", "")))}
            return (
                bool(plan.get("refined"))
                and p.get("match") == "partial"
                and bool(subject & named)
                and not (qualifier and not qualifier & named)
            )

        if order := plan.get("price_order"):  # "cheapest jacket you have": of all found of the kind, by price
            priced = [p for p in products if fits(p) and p.get("effectivePrice") is not None and p.get("inStock", True)]
            by_price = sorted(priced, key=lambda p: Decimal(str(p["effectivePrice"])), reverse=order == "dearest")
            return by_price[:LIST_LENGTH]
        shown = [p for p in products if fits(p)][:LIST_LENGTH]
        if plan.get("budget"):  # "cheap tshirts": the strong matches by price, cheapest first, then the rest
            strong = sorted((p for p in shown if p.get("match") == "strong"), key=_price_of)
            shown = [*strong, *(p for p in shown if p.get("match") != "strong")]
        return sorted(shown, key=lambda p: not p.get("inStock", True))  # stable: available first

    def _results(self, data: dict[str, Any], plan: dict[str, Any]) -> ModelReply:
        r = self._say_in
        if close_before := set(plan.get("close_before") or []):
            # "max 250 euro" after kids' bikes, the trailer bike shown as only coming close: still only close, though
            # the search within the price grades it strong beside no better one
            data = {**data, "products": [
                {**p, "match": "partial"} if p.get("productId") in close_before and p.get("match") == "strong" else p
                for p in data.get("products", [])
            ]}  # fmt: skip
        call = plan.get("args", {})
        filters = call.get("filters", {})
        subject = plan.get("subject") or call.get("query", "")
        products = _offered(data, plan)
        if plan.get("catalog_empty") and not data.get("products"):
            return say(r.empty_catalog.format(store=self._store), kept=True)
        shown = self._showable(data, plan)
        hide_price = bool(plan.get("hide_price"))
        wording = self._filters_text(filters, hide_price=hide_price)
        refinement = plan.get("refinement")
        # Partial matches are offered as close alternatives, labelled so; not after "cheaper",
        # where they would be other, merely cheaper things rather than the subject.
        taken = {p.get("productId") for p in shown}
        partial = [p for p in products if p.get("match") == "partial" and p.get("productId") not in taken]
        if shown:  # beside strong matches, only partial ones named by the word that made those match
            # (not by whom it is for: a "Dog Food" is no close alternative to a "Dog Shampoo")
            asked = {stem(w) for w in words(str(call.get("query", ""))) if w not in STOPWORDS | WHOM_FOR}
            matched = asked & {stem(w) for p in shown for w in words(str(p.get("name", "")))}
            named = [p for p in partial if matched & {stem(w) for w in words(str(p.get("name", "")))}]
            # a list narrowed to one ("xl or xxl?" after gloves): the closest one of its category beside it,
            # so there is something to compare (not on a first request, where a category may hold what goes
            # with the thing rather than more of it: a TV beside "a soundbar")
            narrowed = len(shown) == 1 and not named and plan.get("refined")
            lone = {p.get("category") for p in shown} if narrowed else set()
            partial = named or [p for p in partial if p.get("category") in lone][:1]
            if qualifier := {stem(w) for w in words(str(plan.get("qualifier", ""))) if w not in STOPWORDS}:
                partial = [p for p in partial if qualifier & {stem(w) for w in words(str(p.get("name", "")))}]
        room = 0 if refinement == "cheaper" or plan.get("browse") else min(CLOSEST, LIST_LENGTH - len(shown))
        close = partial[:room] if shown else partial[: 0 if refinement == "cheaper" else CLOSEST]
        lines: list[str] = []
        if shown:
            header = {"cheaper": r.found_cheaper, "pricier": r.found_pricier, "more": r.found_more,
                      "similar": r.found_similar}.get(refinement or "", r.found)  # fmt: skip
            if refinement == "cheaper" and plan.get("than_it"):  # cheaper than the one talked about
                header = r.found_cheaper_than_it
            elif refinement == "cheaper" and plan.get("than_dearest"):  # none cheaper than all of them
                header = r.found_cheaper_than_dearest
            if plan.get("browse"):
                header = r.browse
            elif plan.get("quoted"):  # their own words are not repeated back over a list
                header = {"cheaper": r.cheaper_plain, "pricier": r.pricier_plain, "more": r.more_plain,
                          "similar": r.found_similar}.get(refinement or "", r.found_plain)  # fmt: skip
            lines += self._sizes_not_had(plan, [*shown, *close])
            lines.append(header.format(subject=subject, filters=wording))
            lines += self._colours_unlisted(plan)
            if (fixed := _misspelt(data)) and not plan.get("refined"):
                lines[0] += " " + r.corrected.format(words=", ".join(fixed))
            lines += [self._line(n, p, filters) for n, p in enumerate(shown, start=1)]
            # (not "all" where close ones below are available: "summer dress blue size S", the two dresses sold
            # out in blue S, then a shirt dress that has it; the line says what follows)
            close_instead = any(p.get("inStock", True) for p in close)
            if not any(p.get("inStock", True) for p in shown):
                sold_out = r.these_sold_out if close_instead else r.all_sold_out
                lines.append(sold_out.format(what=self._variation_text(filters, lead=" ")))
            else:
                close_instead = False
            if close:
                lines += [] if close_instead else [r.also_close]
                lines += [self._line(n, p, filters) for n, p in enumerate(close, start=len(shown) + 1)]
            listed = [*shown, *close]
            lines.append(self._footer(listed))
            return say("\n".join(lines), shown=listed, args=call, subject=subject, hide_price=hide_price,
                       without=plan.get("without") or [])  # fmt: skip
        if refinement in ("cheaper", "pricier", "more", "similar"):
            template = {"cheaper": r.none_cheaper, "pricier": r.none_pricier}.get(refinement, r.none_more)
            if refinement == "cheaper" and plan.get("than_it"):
                template = r.none_cheaper_than_it
            if plan.get("bound_said"):  # "any cheaper? not over 40": none under the amount said
                template = r.none_filtered
            lines.append(template.format(subject=subject, filters=wording))
            if close:  # "That is all I have for …": what follows is not more of it
                lines.append(r.also_close)
            # Which of those shown costs least, from this search (cheaper than the dearest shown).
            # (of those it was cheaper than: not a close one, nor one sold out)
            anchors = plan.get("anchors") or plan.get("exclude", [])
            again = [p for p in data.get("products", []) if p.get("productId") in anchors]
            least: dict[str, Any] = min(again, key=lambda p: float(p["effectivePrice"]), default={})
            if refinement == "cheaper" and least:
                price = price_text(least["effectivePrice"], least["currency"], self._rules.locale)
                price = r.from_price.format(price=price) if least.get("priceFrom") else price
                lines.append(r.cheapest_shown.format(name=least["name"], price=price))
                # The list shown stays ("the second one"), and the one named is what "that one" means next.
                return say("\n".join(lines), kept=True, detailed=[least["productId"]])
        elif close:
            lines += self._sizes_not_had(plan, close)
            lines.append(r.close.format(subject=subject, filters=wording))
            lines += self._colours_unlisted(plan)
        elif filters and any(p.get("match") == "strong" for p in data.get("products", [])):
            lines.append(r.none_filtered.format(subject=subject, filters=wording))
        elif _narrowing(filters):
            lines.append(r.none_filtered.format(subject=subject, filters=wording))
            lines.append(r.relax.format(hints=self._hints(filters)))
        else:
            lines.append(r.not_carried.format(store=self._store, subject=subject))
        if close:
            lines += [self._line(n, p, filters) for n, p in enumerate(close, start=1)]
            lines.append(self._footer(close))
            return say("\n".join(lines), shown=close, args=call, subject=subject, hide_price=hide_price,
                       without=plan.get("without") or [])  # fmt: skip
        if refinement is None and not _narrowing(filters):
            lines.append(r.rephrase)
        # Nothing to show: the list the customer saw before stays the one "the second one" means.
        return say("\n".join(lines), kept=True)

    def _footer(self, listed: list[dict[str, Any]]) -> str:
        """What the customer may ask next; another size or colour only where the products have them."""
        sized = any(p.get("availableColors") or p.get("availableSizes") for p in listed)
        return self._say_in.footer.format(others=self._say_in.other_variations if sized else "")

    def _line(self, number: int, p: dict[str, Any], filters: dict[str, Any]) -> str:
        r = self._say_in
        price = price_text(p["effectivePrice"], p["currency"], self._rules.locale)
        if p.get("discountedPrice"):
            price += r.was.format(price=price_text(p["price"], p["currency"], self._rules.locale))
        if p.get("priceFrom"):
            price = r.from_price.format(price=price)
        parts = [f"{number}. {p['name']} - {price}"]
        colours = [self._colour(c) for c in p.get("availableColors", [])]
        stock = r.colours.format(colours=", ".join(colours)) if colours else ""
        # (a product made in one size says nothing by "sizes ONE SIZE")
        if sizes := [s for s in p.get("availableSizes") or [] if str(s).upper() != "ONE SIZE"]:
            stock += r.sizes.format(sizes=", ".join(sizes))
        for name, values in (p.get("availableOptions") or {}).items():
            stock += f"; {name} {', '.join(values)}"
        if stock:
            parts.append(" - " + stock.lstrip("; "))
        if not p.get("inStock", True):
            what = self._variation_text(filters)
            parts.append(r.sold_out_in.format(what=what) if what else r.sold_out)
        return "".join(parts)

    def _details(self, d: dict[str, Any]) -> str:
        r = self._say_in
        price = price_text(d["effectivePrice"], d["currency"], self._rules.locale)
        if d.get("discountedPrice"):
            price += r.was.format(price=price_text(d["price"], d["currency"], self._rules.locale))
        if len({v.get("effectivePrice") for v in d.get("variations", [])}) > 1:
            price = r.from_price.format(price=price)
        brand = r.by.format(brand=d["brand"]) if d.get("brand") and not instruction(d["brand"]) else ""
        parts = [f"{d['name']}{brand} ({d['category']}) - {price}."]
        if summary := summarise(d.get("description", "")):
            parts.append(summary)
        if d.get("material") and not instruction(d["material"]):
            parts.append(r.material.format(material=d["material"]))
        if d.get("specText"):
            parts.append(r.spec_list.format(facts=", ".join(d["specText"][:8])))
        parts.append(self._availability(d))
        if d.get("url"):
            parts.append(r.see_here.format(name=d["name"], url=d["url"]))
        return " ".join(parts)

    def _availability(self, d: dict[str, Any]) -> str:
        r = self._say_in
        available = [v for v in d.get("variations", []) if v.get("available", 0) > 0]
        if not available:
            return r.detail_sold_out
        items = [" ".join(r.item.format(colour=variant_text(v, self._colour), size="", count=v["available"]).split())
                 for v in available[:8]]  # fmt: skip
        listed = ", ".join(items) + (r.more_items.format(count=len(available) - 8) if len(available) > 8 else "")
        return r.available.format(items=listed)

    def _comparison(self, a: dict[str, Any], b: dict[str, Any]) -> str:
        r = self._say_in
        lines = [r.compare_head.format(first=a["name"], second=b["name"])]
        differ = _specs_that_differ(a, b)
        for d in (a, b):
            price = price_text(d["effectivePrice"], d["currency"], self._rules.locale)
            if d.get("discountedPrice"):
                price += r.was.format(price=price_text(d["price"], d["currency"], self._rules.locale))
            material = f"; {d['material']}" if d.get("material") and not instruction(d["material"]) else ""
            rating = r.rating.format(rating=d["rating"]) if d.get("rating") is not None else ""
            # ("power 20 W, 1 ports" against "power 65 W, 3 ports": what tells them apart, where both say it)
            labels = dict(zip(d.get("specs") or {}, d.get("specText") or [], strict=False))
            said = [labels[k] for k in differ if k in labels]
            specs = f"; {', '.join(said)}" if said else ""
            lines.append(f"- {d['name']}: {price}{material}{rating}{specs}; {self._availability(d)}")
        pa, pb = decimal_or_none(a.get("effectivePrice")), decimal_or_none(b.get("effectivePrice"))
        if pa is not None and pb is not None and pa != pb:
            lines.append(r.cheaper_one.format(name=a["name"] if pa < pb else b["name"]))
        ra, rb = a.get("rating"), b.get("rating")
        if ra is not None and rb is not None and ra != rb:
            lines.append(r.better_rated.format(name=a["name"] if ra > rb else b["name"]))
        return "\n".join(lines)

    # -- words for filters ------------------------------------------------------------

    def _sized(self, found: list[dict[str, Any]], sized: dict[str, Any]) -> tuple[list[str], list[int]]:
        """ "the bigger one", "the smallest?": of products whose names give a measure, the bigger (its
        details); else each one's larger (smaller) size with its price and stock: the largest for "the
        biggest" or where it comes in two, the next above the size the list was for; where it does not
        tell which (three sizes or more, none chosen; "the longer one" of sizes that are no lengths), the
        sizes it comes in. A product that comes in one size says so."""
        r = self._say_in
        big, most, since = sized.get("ref") == "big", bool(sized.get("most")), sized.get("from") or []
        # (a hose's "13 mm" is its bore, not its length: sizes of its own come first)
        # ("a longer one?" of leads sized S and L by the dog, their names saying "2 m" and "5 m": by those)
        no_lengths = bool(sized.get("long")) and not any(
            in_measure([label for label, _ in steps], "length") for d in found if (steps := size_steps(d))
        )
        unsized = not any(size_steps(d) for d in found) or no_lengths
        if len(found) >= 2 and sized.get("between") and (ranked := by_largest_amount(found, big)):
            # "how much is the bigger one?" right after a drive made in one size: the biggest of the list
            d = ranked[-1] if big else ranked[0]
            return [self._details(d)], [d["productId"]]
        if len(found) >= 2 and unsized and (ranked := by_named_measure(found)):
            d = ranked[-1] if big else ranked[0]
            return [self._details(d)], [d["productId"]]
        lines, ids = [], []
        for d in found:
            steps = size_steps(d)
            if not steps:
                continue
            labels = [label for label, _ in steps]
            known = [labels.index(x) for x in since if x in labels]
            if (sized.get("long") and not in_measure(labels, "length")) or (len(steps) > 2 and not (most or known)):
                # "the longer one" of a lead sized by the dog's weight, "a bigger size" of shoes in 36 to 46 with
                # none of them chosen yet: the sizes it comes in, to choose from
                lines.append(r.comes_in.format(name=d["name"], sizes=", ".join(labels)))
                ids.append(d["productId"])
                if len(lines) == _SIZED_PRODUCTS:
                    break
                continue
            if known and not most:  # the size the list was for, and the next above (below) it
                at = max(known) if big else min(known)
                chosen = steps[at + 1 : at + 2] if big else steps[max(at - 1, 0) : at]
            elif most or len(steps) == 2:
                chosen = [steps[-1] if big else steps[0]]
                # the biggest sold out: the biggest to be had beside it
                had = [step for step in steps if any(v.get("available", 0) > 0 for v in step[1])]
                if had and had[-1 if big else 0] not in chosen:
                    chosen = sorted([*chosen, had[-1 if big else 0]], key=lambda step: labels.index(step[0]))
            if not chosen:  # the list was for its largest (smallest) already: what it comes in
                lines.append(r.comes_in.format(name=d["name"], sizes=", ".join(labels)))
            else:
                lines.append(" ".join(self._sized_line(d, label, of) for label, of in chosen[:4]))
            ids.append(d["productId"])
            if len(lines) == _SIZED_PRODUCTS:
                break
        if lines:
            return lines, ids
        if len(found) >= 2:  # "which of these is the biggest?" of products that give no size
            return [r.not_told.format(name=d["name"]) for d in found], [d["productId"] for d in found]
        d = found[0]
        own = sizes_of(d)
        said = r.comes_only_in.format(name=d["name"], sizes=own[0]) if own else r.one_size.format(name=d["name"])
        return [said], [d["productId"]]

    def _sized_line(self, d: dict[str, Any], label: str, variations: list[dict[str, Any]]) -> str:
        """One size of a product: its price and what is left of it (per colour where it has colours)."""
        r = self._say_in
        priced = [v for v in variations if v.get("effectivePrice") is not None]
        price = price_said(priced[0] if priced else d, r, self._rules.locale, d["currency"])
        available = [v for v in variations if v.get("available", 0) > 0]
        if not available:
            stock = r.size_sold_out
        elif any(v.get("color") for v in available) and len(available) > 1:
            stock = ", ".join(
                f"{self._colour(str(v['color']))} ({r.size_left.format(count=v['available'])})" for v in available[:6]
            )
        else:
            stock = r.size_left.format(count=sum(int(v["available"]) for v in available))
        return r.sized_line.format(name=d["name"], size=label, price=price, stock=stock)

    def _colour(self, colour: str) -> str:
        return self._lexicon.color_name(colour, self._said_in, self._names)

    def _sizes_not_had(self, plan: dict[str, Any], listed: list[dict[str, Any]]) -> list[str]:
        """The line saying the shop has nothing in a size it does not sell ("sneakers in size 47"),
        before what it has; none where a product listed is named or sized by that number ("a
        scratching post size 80": the "Scratching Post, 80 cm")."""
        said = [s for s in plan.get("unknown_sizes") or [] if not any(_has_size(p, s) for p in listed)]
        if not said:
            return []
        return [self._say_in.size_missing.format(sizes=f" {self._say_in.alternative} ".join(said))]

    def _colours_unlisted(self, plan: dict[str, Any]) -> list[str]:
        """The line saying that the products listed are sold in no colour, when a colour was asked."""
        if not (colours := plan.get("colours_unlisted")):
            return []
        return [self._say_in.colours_unlisted.format(colour=self._variation_text({"colors": colours}))]

    def _variation_text(self, filters: dict[str, Any], lead: str = "") -> str:
        r = self._say_in
        words = []
        if filters.get("sizes"):
            words.append(r.in_size.format(sizes=self._either(filters["sizes"])))
        if filters.get("colors"):
            words.append(r.in_colour.format(colours=self._either(list(map(self._colour, filters["colors"])))))
        text = ", ".join(words)
        return lead + text if text else ""

    def _either(self, items: list[str]) -> str:
        """ "white, pink or beige"."""
        if len(items) < 3:
            return f" {self._say_in.alternative} ".join(items)
        return f"{', '.join(items[:-1])} {self._say_in.alternative} {items[-1]}"

    def _variation_lead(self, filters: Mapping[str, Any]) -> str:
        return self._variation_text(dict(filters), lead=" ")

    def _filters_text(self, filters: dict[str, Any], *, hide_price: bool = False) -> str:
        r = self._say_in
        words = [self._variation_text(filters)] if filters.get("sizes") or filters.get("colors") else []
        low, high = filters.get("minPrice"), filters.get("maxPrice")
        currency, locale = self._rules.currency, self._rules.locale
        if not hide_price:
            if low is not None and high is not None:
                words.append(r.between.format(low=price_text(low, currency, locale, whole=True),
                                              high=price_text(high, currency, locale, whole=True)))  # fmt: skip
            elif high is not None:
                words.append(r.under.format(amount=price_text(high, currency, locale, whole=True)))
            elif low is not None:
                words.append(r.over.format(amount=price_text(low, currency, locale, whole=True)))
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


def _asked_so(asked: Mapping[str, Any], found: list[dict[str, Any]], question: str) -> dict[str, Any]:
    """The filters a question of products named, with "property" set where it names a colour or size and asks
    more than whether that is in stock: another word, none of the products' names, categories or options
    ("will it fit a medium frame, 54cm?" of a frame bag made in M asks its fit, not its stock in M; "the
    leather ones in 43?" asks the stock)."""
    said = asked.get("said") or []
    kept = {k: v for k, v in asked.items() if k != "said"}
    if not said or kept.get("property") or not (kept.get("colors") or kept.get("sizes")):
        return kept
    if set(by_kind(question)) != {"text"}:
        return kept  # ("any left in 43?", "is it in stock in M?": stock asked)
    more = {stem(w) for w in said if w.isalpha() and len(w) > 2 and w not in STOPWORDS} - words_of(found)
    more -= _ASKING_NOTHING
    if more:
        kept["property"] = True
    return kept


_ASKING_NOTHING = {stem(w) for w in ASKING_NOTHING_SAID.split()}


def _misspelt(data: dict[str, Any]) -> list[str]:
    """The corrections that fixed a misspelling ("waterprof" -> "waterproof"), not the
    synonyms the search applied ("damen" -> "women", "Winterjacke" -> "winter jacket"), which
    need no "did you mean": as the search says (`misspelt`), or, from a server that does not
    say, by the likeness of the two spellings."""
    corrections: dict[str, str] = data.get("corrections") or {}
    if isinstance(misspelt := data.get("misspelt"), list):
        return [corrections[word] for word in misspelt if word in corrections]
    return [new for old, new in corrections.items() if SequenceMatcher(None, old, new).ratio() >= _TYPO_LIKENESS]


_EACH = 2  # the products listed for each thing of a request for several …
_MANY_THINGS = 3  # … and one each for more things than this


def _one_of_each_kind(data: dict[str, Any], plan: dict[str, Any]) -> list[dict[str, Any]]:
    """The best strong or partial match of each category, in the search's order (at most
    LIST_LENGTH): the start for a broad need."""
    kinds: dict[str, dict[str, Any]] = {}
    for p in data.get("products", []):
        if p.get("match") in ("strong", "partial") and p.get("category") not in kinds:
            kinds[p.get("category", "")] = p
    return list(kinds.values())[:LIST_LENGTH] if len(kinds) >= 2 else []


def _has_size(p: dict[str, Any], size: str) -> bool:
    """Whether a product's name, sizes or options have this size as a word ("80" of "Post, 80 cm")."""
    said = [str(p.get("name", "")), *(p.get("availableSizes") or [])]
    said += [str(v) for values in (p.get("availableOptions") or {}).values() for v in values]
    return any(size.casefold() in words(text) for text in said)


def _with_filters(args: dict[str, Any], filters: dict[str, Any]) -> dict[str, Any]:
    """A search's arguments with these filters (none: without the key, as a search without any is made)."""
    return {**args, "filters": filters} if filters else {k: v for k, v in args.items() if k != "filters"}


def _close(data: dict[str, Any], plan: dict[str, Any]) -> list[dict[str, Any]]:
    """The partial matches of a search to be had, at most `CLOSEST`: kept while it is made again without
    its colour or size, to be offered beside what that one finds."""
    return [p for p in _offered(data, plan) if p.get("match") == "partial" and p.get("inStock", True)][:CLOSEST]


def _comes_in(p: dict[str, Any], filters: dict[str, Any]) -> bool:
    """Whether a search result comes in one of the colours and one of the sizes of `filters`, as its
    available colours and sizes say."""
    return _asked_it_comes_in(p, filters) == bool(filters.get("colors")) + bool(filters.get("sizes"))


def _asked_it_comes_in(p: dict[str, Any], filters: dict[str, Any]) -> int:
    """Of the colours and the sizes of `filters`, how many a search result comes in one of (0, 1 or 2), as its
    available colours and sizes say."""
    colours = {c.casefold() for c in p.get("availableColors") or []}
    sizes = {s.casefold() for s in p.get("availableSizes") or []}
    return int(any(c.casefold() in colours for c in filters.get("colors") or [])) + int(
        any(s.casefold() in sizes for s in filters.get("sizes") or [])
    )


def _narrowing(filters: dict[str, Any]) -> bool:
    return bool(filters.get("sizes") or filters.get("colors") or filters.get("inStock")
                or "maxPrice" in filters or "minPrice" in filters)  # fmt: skip


def _in_order(phrase: list[str], sentence: list[str]) -> bool:
    """Whether `sentence` has the words of `phrase` side by side, in that order."""
    size = len(phrase)
    return any(sentence[at : at + size] == phrase for at in range(len(sentence) - size + 1))


def _offered(data: dict[str, Any], plan: dict[str, Any]) -> list[dict[str, Any]]:
    """A search result's products that may be offered: not those excluded (shown already), and
    of the categories and kinds a refinement keeps to ("cheaper ones" of what was shown), and,
    after a colour no product fitted, only those sold in no colours and in stock."""
    exclude = set(plan.get("exclude", []))
    categories = set(plan.get("categories") or [])
    kinds = set(plan.get("kinds") or [])
    if plan.get("colours_unlisted"):  # only those sold in no colours: any other is not in the one asked
        products = data.get("products", [])
        exclude |= {p.get("productId") for p in products if p.get("availableColors") or not p.get("inStock", True)}

    if colours_not := set(plan.get("colours_not") or []):  # "not grey": none made only in grey
        exclude |= {
            p.get("productId") for p in data.get("products", [])
            if p.get("availableColors") and set(p["availableColors"]) <= colours_not
        }  # fmt: skip

    goes_with = set(plan.get("goes_with") or [])
    # "no capsules": none whose name says so ("Capsule Coffee Machine"); not by a category of more ("Kids' bikes &
    # balance bikes" holds the kids' bikes "she has a balance bike now" asks for)
    without = {form for w in plan.get("without") or [] for form in word_forms(w)}
    if without:
        exclude |= {
            p.get("productId") for p in data.get("products", []) if without & set(words(fold(str(p.get("name", "")))))
        }  # fmt: skip

    def of_kind(p: dict[str, Any]) -> bool:  # "cheaper" hoses are hoses, not the hose connector set
        head = name_head(str(p.get("name", "")))
        # a knife block for the knife shown: other knives are no close alternative to a block
        if goes_with and p.get("match") != "strong" and head is not None and names_a_thing(head, goes_with):
            return False
        if not kinds or (head is not None and names_a_thing(head, kinds)):
            return True
        # a strong match whose name or category names one of the kinds ("Cat Pâté" of "Cat food" for cat
        # foods, a "Schälmesser" in "Messer" for a "Kochmesser"); not one of another kind, graded so among
        # the cheaper ones alone (a cold brew jug for a moka pot, a fitness band for GPS watches)
        said = [w for w in words(f"{p.get('name', '')} {p.get('category', '')}") if len(w) >= _KIND_LETTERS]
        return p.get("match") == "strong" and any(
            names_a_thing(w, kinds) or any(k.endswith(w) for k in kinds) for w in said
        )

    return [
        p for p in data.get("products", [])
        if p.get("productId") not in exclude and (not categories or p.get("category") in categories) and of_kind(p)
    ]  # fmt: skip


def _price_of(p: dict[str, Any]) -> Decimal:
    """What a product found costs (the asked variation's), the unpriced last."""
    return Decimal(str(p["effectivePrice"])) if p.get("effectivePrice") is not None else Decimal("Infinity")


_DIFFERING_SPECS = 5  # at most, in a side-by-side


def _specs_that_differ(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """The specs both products give whose values differ ("power_w": 20 and 65), in the first one's order;
    at most `_DIFFERING_SPECS`."""
    specs_a, specs_b = a.get("specs") or {}, b.get("specs") or {}
    return [k for k in specs_a if k in specs_b and specs_a[k] != specs_b[k]][:_DIFFERING_SPECS]
