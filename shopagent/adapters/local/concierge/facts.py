"""Answers to a question about products already shown, from their details.

"Is the second one waterproof?", "how far will the battery go?", "which of them is lighter?",
"is it in stock in L?": the structured facts answer what they can (structured.py: stock per colour and
size, weight, price), and the description answers the rest: its sentences are ranked against
the question by the words they share (stems, with a few words a question implies: "how long
… last" asks for hours) and, when the shop's embedding model is at hand, by closeness of
meaning. The best sentence is quoted when it is about the question; otherwise the answer says
plainly that the product's data does not tell. Product text is data: sentences that read
like instructions, and markup, are never quoted.
"""

from __future__ import annotations

import itertools
import re
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from shopagent.adapters.local.concierge import asking as ask
from shopagent.adapters.local.concierge.asked import (
    IMPLIES,
    SAID_AS,
    materials_named,
    properties_named,
    said_as,
    said_in_phrases,
    specs_about,
)
from shopagent.adapters.local.concierge.clauses import by_kind, difference_asked, made_in_asked, questions_of
from shopagent.adapters.local.concierge.phrases import STOPWORDS
from shopagent.adapters.local.concierge.product_data import (
    amounts_of,
    biggest_of,
    in_measure,
    options_asked,
    options_naming,
    options_of,
    size_guide,
    sizes_of,
    sizes_said,
    weights_of,
)
from shopagent.adapters.local.concierge.replies import ENGLISH, Replies
from shopagent.adapters.local.concierge.structured import StructuredFacts
from shopagent.adapters.local.concierge.text import clean_sentences, stem, stems_of, without_name
from shopagent.application.ports import EmbeddingModel
from shopagent.domain.options import fold
from shopagent.domain.synonyms import builtin_synonyms
from shopagent.domain.text import words

# A sentence is about the question when it shares a word with it, or, with no shared word,
# when its meaning is this close (cosine of the local model's unit vectors).
MEANING_ALONE = 0.55
MEANING_NEAR = 0.3  # this close, a sentence not about the question is still quoted as nearest to it
SHARED_ENOUGH = 0.5  # the weight of shared words that makes a sentence about the question
# Verbs any question has ("does it come with…", "will it work…"): they count a quarter.
_WEAK = {
    stem(w)
    for w in [
        "come",
        "comes",
        "came",
        "work",
        "works",
        "use",
        "used",
        "get",
        "got",
        "go",
        "goes",
        "make",
        "need",
        "have",
        "has",
        "take",
    ]
}
_WEAK_WEIGHT = 0.25
# "Does it come with a nozzle?", "is it supplied with…": the sentences that say what is included.
COMES_WITH = re.compile(
    # not "the strap it comes with looks plain": what comes with it, said of the thing, asks nothing of the box
    r"\b(?:comes?|came|coming|supplied|delivered|shipped) with\b(?!\s+(?:looks?|is|was|seems?|feels?)\b)"
    r"|\bin the box\b|\binclud(?:ed?|es|ing)\b"
    # German: "was ist alles dabei?", "im Lieferumfang", "ist ein Netzteil enthalten / mitgeliefert?"
    r"|\bdabei\b|\blieferumfang|\benthalten\b|\bmitgeliefert|\bliegt\b.{0,40}\bbei\b|\binklusive\b"
    # French: "c'est fourni avec ?", "le chargeur est inclus ?", "livré avec", "dans la boîte"
    r"|\bfournie?s?\b|\binclus(?:e|es)?\b|\blivr[ée]e?s? avec\b|\bdans la bo[iî]te\b"
)
# what a question asks to come with it follows these ("does the set come with cushions"; not "what's in the box with
# the speaker")
_WITH = re.compile(
    r"\b(?:comes?|came|coming|supplied|delivered|shipped) with\b|"
    r"\b(?:livr|fourni)\w* avec\b|\b(?:kommt|geliefert) mit\b"
)
_INCLUDED = {
    stem(w)
    for w in ("included", "includes", "including", "supplied", "comes", "fittings", "sold", "separately", "everything")
}
QUOTED_CHARS = 260
# A figure asked for in a unit ("how many litres", "in litres", "wie viele Liter", "combien de watts"),
# and how the unit is written beside a number.
_UNITS = {
    "litres": r"l|litres?|liters?|litern?", "ml": r"ml|millilit(?:re|er)s?", "kg": r"kg|kilos?|kilograms?",
    "g": r"g|grams?|gramm", "cm": r"cm|centimet(?:re|er)s?|zentimetern?", "mm": r"mm|millimet(?:re|er)s?|millimetern?",
    "inches": r"inch(?:es)?|zoll|pouces?", "watts": r"w|watts?", "mah": r"mah",
}  # fmt: skip
# Units of one measure, and the factor from each to the other ("how many litres?" of 500 ml: 0.5)
_SAME_MEASURE = {
    "litres": {"ml": 0.001}, "ml": {"litres": 1000.0}, "kg": {"g": 0.001}, "g": {"kg": 1000.0},
    "cm": {"mm": 0.1}, "mm": {"cm": 10.0},
}  # fmt: skip
_SHORT = {"litres": "l", "ml": "ml", "kg": "kg", "g": "g", "cm": "cm", "mm": "mm"}
# (the units' long names only: "in L?" asks for size L, "en S" for size S)
_UNIT_ASKED = re.compile(
    r"\b(?:in|how many|wie viele?|combien de|en)\s+("
    r"litres?|liters?|litern?|ml|millilit(?:re|er)s?|kg|kilos?|kilograms?|grams?|gramm|cm|centimet(?:re|er)s?|"
    r"zentimetern?|mm|millimet(?:re|er)s?|millimetern?|inch(?:es)?|zoll|pouces?|watts?|mah)\b"
)
_KEPT_PRODUCTS = 256  # descriptions whose sentence vectors are kept
# A figure a question asks for, and how the product's text writes it: its power in watts, what a battery
# or a container holds, a camera's resolution, how long a battery lasts (or what it holds)
_NUMBER = r"\d(?:[\d,.]*\d)?\s*-?\s*"
_FIGURES_ASKED = [
    (
        re.compile(r"\b(?:watts?|wattage|leistung\w*|puissance|how powerful|wie stark)\b"),
        re.compile(_NUMBER + r"k?w(?![^\W\d_])"),
    ),
    (
        # ("how many litres?" of a "Tofu Cat Litter, 6 l": the name's 6 l, not "doesn't say exactly")
        re.compile(
            r"\b(?:capacity|kapazit(?:a|ae)t|capacite|mah|wh|volume|contenance|fassungsverm(?:o|oe)gen|"
            r"how many (?:litres?|liters?)|wie viele? liter|combien de litres?)\b"
        ),
        re.compile(_NUMBER + r"(?:mah|wh|l|litres?|liters?|ml|cups?)(?![^\W\d_])"),
    ),
    (
        re.compile(r"\b(?:resolution|aufl(?:o|oe)sung|megapixels?|mp|pixels?)\b"),
        re.compile(
            _NUMBER + r"(?:mp|megapixels?)(?![^\W\d_])|\b\d{3,4}p\b|\b[2-8]k\b|\b\d{3,4}\s*x\s*\d{3,4}\b|"
            r"\b(?:full hd|uhd|qhd)\b"
        ),
    ),
    (  # "oven safe up to what temp?", "jusqu'à quelle température ?": a temperature in degrees
        re.compile(r"\b(?:temperature|temp|temperatur|degrees?|degres?|grad|celsius)\b"),
        re.compile(_NUMBER + r"(?:°\s*[cf]?|degrees?|degres?|grad)(?![^\W\d_])"),
    ),
    (  # a screen's refresh rate, "how many hz?"
        re.compile(r"\b(?:refresh rate|hz|hertz|bildwiederhol\w*|taux de rafraichissement|frequence)\b"),
        re.compile(_NUMBER + r"hz(?![^\W\d_])"),
    ),
    (  # what a pump or filter moves: "how many litres per hour?", "Durchfluss?", "débit ?"
        re.compile(r"\b(?:per hour|an hour|l/h|flow rate|flow|durchfluss\w*|pro stunde|debit|par heure)\b"),
        re.compile(_NUMBER + r"(?:l/h|lph|l per hour|litres? (?:per|an) hour|liters? (?:per|an) hour)(?![^\W\d_])"),
    ),
    (  # "how often do I use it?", "wie oft?", "tous les combien ?": once a week, every 2 weeks, daily
        re.compile(
            r"\b(?:how often|how frequently|how many times|wie oft|wie h(?:a|ae)ufig|tous les combien|"
            r"a quelle frequence|combien de fois)\b"
        ),
        re.compile(
            r"\b(?:once|twice|(?:\d+|two|three|four) times|one time)\s+(?:a|an|per|each|every)\s+[^\W\d_]+|"
            r"\bevery\s+(?:\d+(?:\s*-\s*\d+)?\s+|other\s+|few\s+|two\s+|three\s+|four\s+|six\s+)?"
            r"(?:days?|nights?|weeks?|months?|years?|seasons?|spring|summer|autumn|winter|morning|evening|use|wash)\b|"
            r"\b(?:daily|weekly|monthly|yearly|annually|fortnightly|nightly|each (?:day|week|month|year))\b|"
            r"\b(?:einmal|zweimal|dreimal|\d+\s*mal)\s+(?:pro|im|in der|am|die|jede[nrs]?)\b|"
            r"\b(?:t(?:a|ae)glich|w(?:o|oe)chentlich|monatlich|j(?:a|ae)hrlich)\b|\balle \d+(?:\s*-\s*\d+)? \w+|"
            r"\b(?:une|deux|trois|\d+) fois par\b|\btous les (?:jours|soirs|matins|\d+|deux|trois|mois|ans)\b|"
            r"\bchaque (?:jour|semaine|mois|annee|printemps|saison)\b"
        ),
    ),
    (
        re.compile(
            r"\b(?:battery life|akkulaufzeit|autonomie|how long (?:does|will|do) (?:the |its |a )?(?:battery|charge)|"
            r"wie lange (?:h(?:a|ae)lt|reicht) (?:der |die |eine? )?(?:akku|batterie|ladung))\b"
        ),
        re.compile(_NUMBER + r"(?:hours?|hrs?|h|days?|minutes?|mins?|stunden|tage|heures|jours|mah|wh)(?![^\W\d_])"),
    ),
]
_WEIGHED_AT_MOST = 3  # products whose texts are said, none answering which is better: more is too long to read
# "which is better for a beginner?", "which one should I get?", "welche ist besser für …", "lequel est le mieux"
_BETTER = re.compile(
    r"\b(?:which|what)(?: one| of (?:them|these|those|the two))? (?:is|would be|'s|will be) (?:the )?"
    r"(?:better|best|more suitable|most suitable|ideal)|\bwhich(?: one)? (?:should|would|could) (?:i|we|you) "
    r"(?:get|take|choose|pick|buy|recommend)|\bwelche[rsn]?(?: davon)? (?:ist|ware|waere) (?:besser|am besten|"
    r"geeigneter)|\b(?:lequel|laquelle)(?: des deux)? (?:est|serait) (?:le |la )?(?:mieux|meilleure?|plus adaptee?)"
)
# A question answered yes or no, by the first words of one of its clauses ("is it waterproof?", "the
# second one, does it have a hood?", "hat sie eine Kapuze?", "est-ce qu'elle est doublée ?")
_YES_OR_NO = re.compile(
    r"(?:(?:^|[,;:.!?\u2013\u2014]|\s-\s)\W*(?:(?:ok(?:ay)?|and|also|so|but|und|et|alors|mais)\W+)*"
    r"(?:is|are|does|do|did|has|have|can|could|will|would|ist|sind|hat|haben|kann|k(?:o|oe)nnen|passt|geht|"
    r"taugt|eignet|funktioniert|est-ce qu(?:e|')|est-(?:il|elle)|a-t-(?:il|elle)|peut-on|c'est|ca (?:va|marche)|"
    r"(?:il|elle|ils|elles) (?:est|sont|convien\w*|va|vont|marche\w*|fonctionne\w*))"
    # a French question turned round after what it asks of: "le câble est-il tressé ?"
    r"|\b(?:est|sont|vont)-(?:il|elle|ils|elles)|\b(?:a|va)-t-(?:il|elle))\b"
    # ("is there", "what is", and "il est en quoi ?", "elle est de quelle taille ?", which ask what, not whether;
    # "elle est faite en coton ?" asks whether)
    r"(?!\s+(?:there|es|on|what|which|en quoi|faite? (?:en|de) quoi|de quoi|combien|quel\w*|comment)\b)"
)
# Words of a yes-or-no question that name nothing asked of the product ("is it ok for…", "does it really…")
_GENUINE = re.compile(r"\b(?:real|genuine|authentic|echt\w*|vrai\w*|veritable)\b")
_NOT_ASKED = {
    stem(w)
    for w in re.findall(
        r"\S+",
        "ok okay good fine suitable really actually also too still enough well any one ones first second third "
        "last other another thing something product item model version geeignet gut bien vraiment aussi "
        "auch wirklich noch bon bonne geht taugt eignet passt funktioniert convient conviennent adapte adaptee "
        "adaptes adaptees marche va fonctionne "
        # "is it real leather?", "echtes Leder?", "du vrai cuir ?": whether it is leather
        "real genuine proper true authentic echt echte echtes echter echten vrai vraie veritable",
    )
}
# A word said not to be so: "no", "not", "without" before it (three words at most), "… not included" after
_NEGATION_BEFORE = re.compile(
    r"\b(?:no|not|never|without|isn't|aren't|doesn't|don't|nicht|kein\w*|ohne|pas d(?:e|')|sans|aucune?|"
    r"rather than|instead of|anstatt|statt|plutot que|au lieu d(?:e|')|free (?:of|from))\b"
    r"(?:\W+[^\W\d_]+){0,3}\W*$"
)
# A word said in passing, not of the thing: "sensitive to chicken", "for dogs that react to wheat"
_ONLY_MENTIONED = re.compile(
    r"\b(?:sensitive|sensitivity|react(?:s|ing)?|allerg(?:ic|y|ies)|intoleran(?:t|ce)|empfindlich|"
    r"allergi\w*|sensibles?)\s+(?:to|on|auf|gegen|a|au|aux)\s+(?:\w+\W+){0,2}$"
)
# One clause of a sentence: what one verdict may rest on ("dishwasher safe; wipe the lid by hand" is two)
_CLAUSE_BREAK = re.compile(
    r"[;:,]|\s[-\u2013\u2014]\s|\b(?:but|while|whereas|although|though|except|aber|jedoch|mais|sauf)\b"
)
# Parts of a thing: said of one of them, a property is not said of the whole ("the detachable parts are
# dishwasher safe", "wash the lids by hand"), unless the question names that part
PARTS = frozenset(
    re.findall(
        r"\S+",
        "part parts lid lids cover covers liner insert inserts basket bowl jug glass jar jars core handle handles "
        "strap straps sole soles lining shell pocket pockets case attachment attachments accessories blade blades "
        "deckel griff einsatz bezug korb schussel teile zubehor klinge sohle futter tasche gurt "
        "couvercle poignee housse pieces piece panier bol accessoires lame semelle doublure poche sangle bac",
    )
)
_IMITATION = re.compile(
    r"\b(?:faux|fake|imitation|vegan|artificial|synthetic|pu|kunst\w*|simili|synthetique)\b|"
    r"\b(?:alternative|look|effect|style|optik)\b"
)
_CONDITION = re.compile(
    r"\b(?:if|unless|provided|only with|adapter|adaptor|check|requires?|wenn|sofern|falls|adapteur|sauf si)\b"
)
_NEGATION_AFTER = re.compile(
    r"^\W*(?:[^\W\d_]+\W+)?(?:not included|sold separately|excluded|"
    r"nicht (?:enthalten|dabei)|non (?:inclus|fourni)\w*|vendu\w* s(?:e|é)par(?:e|é)ment)"
)


# The sentence embeddings of the products last asked about, by product and sentences (least recently used first).
SentenceVectors = OrderedDict[tuple[Any, int], np.ndarray]


class FactFinder:
    """Answers a question about one or more products from their details."""

    def __init__(
        self,
        replies: Replies,
        embedder: EmbeddingModel | None = None,
        locale: str = "en",
        vectors: SentenceVectors | None = None,
    ) -> None:
        """`vectors`: the products' sentence embeddings kept, shared by the finders of each reply language
        (the sentences are weighed in the catalog's words whatever the reply's language)."""
        self._say_in = replies
        self._structured = StructuredFacts(replies, locale)
        self._locale = locale
        self._embedder = embedder
        # every meaning of a word of several ("geschirr": "tableware|harness"): the product asked about tells
        self._nouns = {fold(k): " ".join(fold(v).split("|")) for k, v in builtin_synonyms(locale).items()}
        self._vectors: SentenceVectors = OrderedDict() if vectors is None else vectors

    async def answer(
        self,
        question: str,
        found: list[dict[str, Any]],
        asked: Mapping[str, Any],
        colour: Callable[[str], str],
        variation: Callable[[Mapping[str, Any]], str],
        also: Mapping[str, str] | Sequence[str] = (),
    ) -> list[str]:
        """The answer's lines: one per product, and a comparison line when one was asked for.
        `asked` holds the filters the question named (colors, sizes, inStock); `colour` and
        `variation` say a colour and those filters in the store language; `also` holds the
        question's words in the catalog's language. A message asking several kinds of things
        ("how much is a pack? is it easy for a 10 year old?") gets an answer to each."""
        parts = by_kind(question)
        lines: list[str] = []
        for kind, part in parts.items():
            text = " ".join([part, *_said_in(part, also)]) if kind == "text" or len(parts) == 1 else part
            # Asked beside other things, the colours and sizes named are the stock question's.
            own = asked if len(parts) == 1 or kind == "stock" else {**asked, "inStock": False, "property": True}
            asks = [" ".join([q, *_said_in(q, also)]) for q in questions_of(part)] if kind == "text" else []
            lines += await self._answer(kind, text, found, own, colour, variation, asks)
        return self._in_unit_asked(question, lines, found)

    def _in_unit_asked(self, question: str, lines: list[str], found: list[dict[str, Any]]) -> list[str]:
        """The answer's lines for a figure asked in a unit ("how many litres?"), when no line has one
        in it: the figures the data has in another unit of the same measure, said in that one too
        ("250 ml (0.25 l)", in place of lines saying the text does not tell); else a line saying the
        data gives none in it (a pot sold in 24 and 28 cm)."""
        asked = _UNIT_ASKED.search(fold(question))
        if asked is None:
            return lines
        r = self._say_in
        unit = _unit_of(asked.group(1))
        # a figure in that unit in the answer, or in a product's sizes, options or specs ("1.5 L")
        data = [str(v) for d in found for v in _figures_of(d)]
        if re.search(_figure_in(unit) + r"(?![^\W\d_])", " ".join([*lines, *data]).lower()):
            return lines
        untold = [r.not_told.split("{name}")[-1], r.not_told_but.split("{name}")[-1].split("{")[0], r.not_told_rest]
        # ("how many grams of protein?" asks what is in it, not what it weighs)
        after = fold(question)[asked.end() :]
        of_what = unit in ("g", "kg") and re.match(r"\s+(?:of|an|de|d'|du|des)\s*[^\W\d_]", after) is not None
        # ("how many grams a day?" asks how much to give)
        of_what = of_what or re.match(r"\s+(?:a|per|pro|par)\s+(?:day|tag|jour)\b", after) is not None
        weighed = [] if of_what or unit not in ("g", "kg") else [d for d in found if weights_of(d, [])]
        if weighed:  # "how many kg in the bag?" of litter sold in 10 l and 20 l bags: what each weighs
            named = tuple(str(d["name"]) for d in weighed)
            kept = [line for line in lines if not (any(u in line for u in untold) and line.startswith(named))]
            return kept + [self._structured.weight(d, []) for d in weighed]
        converted = {} if of_what else {
            d["name"]: figures for d in found if (figures := self._converted(_figures_of(d), unit))
        }  # fmt: skip
        if converted:
            said = [r.spec.format(name=name, facts=", ".join(figures)) for name, figures in converted.items()]
            kept = [
                line for line in lines if not (any(u in line for u in untold) and line.startswith(tuple(converted)))
            ]
            return kept + said
        if all(any(u in line for u in untold) for line in lines):
            return lines  # (each line says already that its data does not tell)
        return [*lines, r.unit_not_told.format(unit=asked.group(1))]

    def _converted(self, values: list[str], unit: str) -> list[str]:
        """Each figure of `values` in another unit of the same measure as `unit`, with the figure in
        `unit` beside it ("250 ml (0.25 l)"); none where no unit converts."""
        found = []
        for other, factor in _SAME_MEASURE.get(unit, {}).items():
            for value in values:
                for figure in re.finditer(rf"(\d+(?:[.,]\d+)?)\s*-?\s*(?:{_UNITS[other]})(?![^\W\d_])", value.lower()):
                    number = figure.group(1)  # "1,5" is 1.5; "2,500" is 2500
                    number = number.replace(",", "") if re.fullmatch(r"\d{1,3}(?:,\d{3})+", number) else number
                    amount = float(number.replace(",", ".")) * factor
                    written = f"{amount:.3f}".rstrip("0").rstrip(".")
                    if self._locale.split("-")[0] in ("de", "fr"):
                        written = written.replace(".", ",")
                    found.append(f"{figure.group(0)} ({written} {_SHORT[unit]})")
        return list(dict.fromkeys(found))

    async def _answer(
        self,
        kind: str,
        question: str,
        found: list[dict[str, Any]],
        asked: Mapping[str, Any],
        colour: Callable[[str], str],
        variation: Callable[[Mapping[str, Any]], str],
        asks: Sequence[str] = (),
    ) -> list[str]:
        r = self._say_in
        folded = fold(question)
        lines: list[str] = []
        sizes = [sizes_of(d) for d in found]
        if kind == "stock" and made_in_asked(folded) and not (asked.get("colors") or asked.get("sizes")):
            kind = "text"  # "what sizes does it come in?": the sizes it is made in (not "… in black?")
        elif kind == "text" and ask.WHICH_SIZES.search(folded) and asked.get("colors"):
            kind = "stock"  # "welche Größen gibt es in schwarz?", "quelles tailles en noir ?": those left in it
        if ask.OTHER_SIZE.search(folded) and all(sizes):  # "does it come smaller?"
            return [(r.comes_only_in if len(own) == 1 else r.comes_in).format(name=d["name"], sizes=", ".join(own))
                    for d, own in zip(found, sizes, strict=True)]  # fmt: skip
        big = ask.BIGGER.search(folded) is not None
        if (
            len(found) >= 2
            and kind != "weight"
            and (big or ask.SMALLER.search(folded))
            and any(amounts_of(d) for d in found)
        ):  # "which is bigger?": by the amounts they come in, where two or more are of one measure
            lines = [self._amounts(d) for d in found]
            most = biggest_of(found, big)
            return lines if most is None else [*lines, (r.biggest if big else r.smallest).format(name=most["name"])]
        structured = self._structured.answer(kind, folded, found, asked, colour, variation)
        if structured is not None:
            return structured
        if (len(found) >= 2 and _asks_what_differs(folded, found)) or ask.HOW_IT_WORKS.search(folded):
            # "what's the difference between them?", "how does the copper stuff work?": what each is
            return [await self._difference(question, d) for d in found]
        unit = _UNIT_ASKED.search(folded)  # "how many litres?" of a kettle sold in 1 L and 1.5 L: its sizes
        in_unit = _figure_in(_unit_of(unit.group(1))) + "$" if unit else None

        # "how long is it?", "how much does it hold?", "how many in a set?": sizes or options in that measure
        measures = tuple(m for m, asked_so in ask.MEASURES.items() if asked_so.search(folded))

        def sized_so(d: dict[str, Any]) -> bool:
            own = sizes_of(d)
            in_units = in_unit is not None and all(re.search(in_unit, s.lower()) for s in own)
            measured = any(in_measure(own, m) for m in measures)
            # ("dimensions?", "und die Maße?" of a saucepan sold in 16 and 20 cm: those sizes)
            dimensions = _DIMENSIONS_ASKED.search(folded) is not None and all(_MEASURE_SIZE.fullmatch(s) for s in own)
            # ("anything bigger?": the sizes it is made in, where it has several; else its options in amounts)
            bigger = ask.BIGGER_ASKED.fullmatch(folded) is not None and len(own) > 1
            return bool(own) and (bool(ask.SIZES.search(folded)) or in_units or measured or dimensions or bigger)

        sized = [d for d in found if sized_so(d)]
        specs = {d["name"]: facts for d in found if (facts := specs_about(question, d))}
        if "count" in measures or _HOW_MANY.search(folded):  # "how many in the pack?": its "treats_per_bag"
            for d in found:
                specs[d["name"]] = list(dict.fromkeys([*specs.get(d["name"], []), *_per_pack(d)]))
            specs = {name: facts for name, facts in specs.items() if facts}
        sizes_asked = bool(ask.SIZES.search(folded) or ask.BIGGER_ASKED.fullmatch(folded))
        # "what size is the bag?" of food sold in 400 g and 2 kg bags: its "Bag size", said beside the rest
        kept: dict[str, Any] = {"also": said_as(folded, phrases=True)}
        # "does it come with battery and charger?" of a tool sold bare and with both: its options say which
        included = _included_asked(folded) if COMES_WITH.search(folded) else set()
        optioned = {
            d["name"]: o
            for d in found
            if d not in sized
            and (
                o := options_asked(
                    folded, d, sizes_asked=sizes_asked, measures=measures, sold_out=r.size_sold_out,
                    also=kept["also"] | options_naming(d, included),
                )
            )
        }  # fmt: skip
        untold: list[tuple[int, dict[str, Any], list[str]]] = []
        for d in found:
            # The structured facts first (its sizes, the specs asked about), then the sentences
            # of its text about the question: "washable: yes. The cover washes at 30 °C."
            told = []
            facts = [*optioned.get(d["name"], []), *specs.get(d["name"], [])]
            if d in sized:
                told.append(r.comes_in.format(name=d["name"], sizes=", ".join(sizes_said(d, r.size_sold_out))))
            elif facts:
                told.append(r.spec.format(name=d["name"], facts=", ".join(facts)))
            sentences, nearest, partly = await self._relevant_each(asks or [question], d, alone=len(found) == 1)
            if d in sized:  # "which size for a labrador?": its text's size guide says which
                sentences = _within(list(dict.fromkeys([*size_guide(d)[:1], *sentences])))
            # "are they waterproof?" of a grow light rated IP20: no; of IPX4 earbuds splash-proof; IPX7 yes
            if not told and _WATER_ASKED.search(folded) and (rated := _ip_rating(d)):
                told.append(self._rated(d, rated))
            # "does it have a hood?" of a "Hooded Jacket", "is it dishwasher safe?" of one whose text says
            # "not dishwasher safe": yes or no, first, where its name or the sentences quoted say so
            verdict = None if told or len(asks) > 1 else self._verdict(question, d, sentences or nearest)
            if verdict is not None and not sentences:
                sentences = nearest  # (what is nearest says it after all)
            if verdict is None and not (told or sentences or nearest or len(asks) > 1):
                # none seemed near ("sweat proof?" of a text saying "sweatproof"): the sentence saying it, if one does
                saying = [
                    s for s in _within(clean_sentences(d.get("description", ""))) if self._verdict(question, d, [s])
                ]
                verdict = self._verdict(question, d, saying[:1]) if saying else None
                sentences = saying[:1]
            if verdict is not None and not sentences and (material := str(d.get("material") or "").strip()):
                sentences = [self._say_in.material.format(material=material)]  # "No. Material: viscose crepe."
            # "how long is it?", "elle fait quelle taille ?" of a "Bread Knife 23 cm" in one size: its name's measure
            if not told and d not in sized and _SIZE_OF_IT.search(folded) and (measure := _measure_in_name(d)):
                told.append(r.spec.format(name=d["name"], facts=measure))
            # "how many watts?" of a "20W Charger" whose text says nothing of it: its name's figure
            if not told and not sentences and (figure := _figure_in_name(folded, d)):
                told.append(r.spec.format(name=d["name"], facts=figure))
            # "how long does the battery last?", "is it cordless?" of a corded mower: no battery
            if not told and not verdict and _BATTERY_ASKED.search(folded) and _corded(d):
                told.append(r.corded.format(name=d["name"]))
                sentences = []
            # "how many slices does it do?" of a "2-Slice Toaster"; "how many pairs?" of "Two pairs of socks"
            if not told and (counted := _counted(folded, d)):
                said, in_text = counted
                if in_text:
                    sentences = [said]  # (not hedged: it says it)
                else:
                    told.append(r.spec.format(name=d["name"], facts=said))
                    sentences = []
            # "is it electric or manual?" of a "Manual Burr Coffee Grinder": the one of the two it says it is
            if not (told or sentences) and verdict is None and (either := _either_said(folded, d)) is not None:
                word, says_it = either
                told.append(r.spec.format(name=d["name"], facts=word))
                sentences = [says_it] if says_it else []
            if verdict is not None:
                sentences = [verdict, *sentences]
            if sentences:
                told.append(" ".join(sentences) if told else r.quote.format(name=d["name"], text=" ".join(sentences)))
                told += [r.not_told_rest] if partly and len(found) == 1 else []  # said of the one asked about
            if not told:
                untold.append((len(lines), d, nearest))
            lines.append(" ".join(told) if told else self._not_told(d, nearest if len(found) == 1 else None))
        # Set beside one whose text answers ("which is better for a dog that pulls?"), one whose text
        # does not is said with what it does say, so the two can be weighed; so too where none answers which
        # is better for something ("which one is better for him, for a travel of 3 hours?": what each is for);
        # else, when none answers, briefly.
        weighed = len(found) <= _WEIGHED_AT_MOST and bool(_BETTER.search(folded) or ask.PICK.search(folded))
        if len(untold) < len(found) or weighed:
            for at, d, nearest in untold:
                lines[at] = self._not_told(d, nearest)
        # "which is better for running?" where one product's text speaks to it and the others' do not: that
        # one, said first (which is better the shop's texts tell no further)
        if len(found) >= 2 and len(lines) == len(found):  # "which is the most waterproof?": highest first
            lines = _highest_first(folded, found, lines)
        answered = [d for d in found if all(d is not other for _, other, _ in untold)]
        if len(found) >= 2 and len(answered) == 1 and _BETTER.search(folded) and len(lines) == len(found):
            lines.insert(0, r.only_one_says.format(name=answered[0]["name"]))
        return lines

    def _amounts(self, d: dict[str, Any]) -> str:
        """The amounts it comes in ("40 l, 70 l"), else its options ("1 block, 5 blocks")."""
        own = [written for written, _ in amounts_of(d)] or options_of(d)
        return self._say_in.spec.format(name=d["name"], facts=", ".join(own)) if own else self._not_told(d, None)

    # -- the description ----------------------------------------------------------------

    async def _difference(self, question: str, d: dict[str, Any]) -> str:
        """What sets a product apart, for "what's the difference between them?": what it is (its
        text's first sentences), the sentences about what the shopper added ("for a chubby dog of
        8"), and its specs."""
        first = clean_sentences(d.get("description", ""))[:2]
        relevant, _ = await self._relevant(question, d, alone=False)
        said = _within(first + [t for t in relevant if t not in first])
        if d.get("specText"):
            said.append(self._say_in.spec_list.format(facts=", ".join(d["specText"][:4])))
        return (
            self._say_in.quote.format(name=d["name"], text=" ".join(said))
            if said
            else self._say_in.not_told.format(name=d["name"])
        )

    async def _relevant_each(
        self, questions: Sequence[str], d: dict[str, Any], *, alone: bool
    ) -> tuple[list[str], list[str], bool]:
        """The sentences about each of several questions ("works with Alexa? how many watts?"), one's not
        hiding another's; the nearest of the first; whether some of them, not all, found nothing."""
        found = [await self._relevant(q, d, alone=alone) for q in questions]
        sentences = list(dict.fromkeys(t for text, _ in found for t in text))
        unanswered = [not text for text, _ in found]
        return _within(sentences) or sentences[:1], found[0][1], any(unanswered) and not all(unanswered)

    async def _relevant(self, question: str, d: dict[str, Any], *, alone: bool = True) -> tuple[list[str], list[str]]:
        """The description sentences about the question, best first (at most two, short), and the
        ones nearest to it although not about it (in the text's order, short: what is quoted
        beside "doesn't say exactly"); the product's materials count as one more sentence ("is
        the strap silicone?")."""
        sentences = clean_sentences(d.get("description", ""))
        described = len(sentences)
        said = list(sentences)  # (as quoted: the material's in the reply's language, weighed in English's words)
        if material := " ".join(clean_sentences(str(d.get("material") or ""))):
            sentences.append(ENGLISH.material.format(material=material))
            said.append(self._say_in.material.format(material=material))
        if not sentences:
            return [], []
        # The question's own words count fully; the product's name words and the words a
        # question implies ("last" -> hours) count half.
        own = stems_of(d.get("name", ""))
        asked = {w for w in stems_of(question) if w not in STOPWORDS}
        implied = (
            {x for w in asked - _measured(question) for x in IMPLIES.get(w, set())} | self._translated(question)
        ) - asked
        comes_with = set()
        if COMES_WITH.search(question.casefold()):  # "does it come with a nozzle?": what is included
            implied |= _INCLUDED - asked
            # (a thing asked to come with it counts fully where its name has it: "does the soundbar come with a
            # subwoofer?" of a "Soundbar with Wireless Subwoofer" is its "with a wireless subwoofer")
            # (only what follows "come with": "does the set come with cushions" does not count "set" so)
            after = _WITH.split(fold(question), maxsplit=1)
            comes_with = {stem(w) for w in _included_asked(after[1])} if len(after) > 1 else set()
        weights = {**dict.fromkeys(implied, 0.5), **{w: 0.5 if w in own - comes_with else 1.0 for w in asked}}
        # A bare number ("for a 6 year old") is weak evidence: any sentence may have it ("6.35 mm").
        weights.update({w: _WEAK_WEIGHT for w in weights if w in _WEAK or w.isdigit()})
        # a word of the question in another form ("quick drying" ~ "dries quickly", "lined" ~ "lining"); not
        # the thing asked of where a sentence names another kind of it ("a luggage strap" for a shoulder strap)
        # (a word asked without an ending is that word or its "-ly": "slip" asked is not "slipping these on")
        roots = {_root(w): stem(w) for w in words(question) if stem(w) in asked}
        bare = {w for w in words(question) if _root(w) == w}
        everywhere = words(" ".join([fold(str(d.get("name", ""))), *map(fold, sentences)]))
        stems = [
            (found | {roots[x] for w in words(s) if (x := _root(w)) in roots and (x not in bare or w.endswith("ly"))})
            - _other_kind(question, s, everywhere)
            - _safe_for_another(question, s)
            for s, found in ((s, stems_of(s)) for s in sentences)
        ]
        shared = [sum(weights.get(w, 0.0) for w in found) for found in stems]
        # "do the EVA sandals run big?": a sentence with only the words that name the product
        # ("a moulded EVA sandal") is not about what is asked of it, when something else is asked.
        # Asked of several products, their names' words tell them apart ("the EVA ones or the leather
        # ones?"), so there they count.
        beyond_name = asked - (own - comes_with) - _WEAK
        if beyond_name and alone:
            shared = [x if found & (beyond_name | implied) else 0.0 for x, found in zip(shared, stems, strict=True)]
        meaning = await self._closeness(without_name(question, own), d, sentences)
        # A property asked of it ("is the filter loud?"): a sentence must name it (or a word it implies).
        named = properties_named(asked - own)  # not "oven" asked of a "Mini Oven": what it is

        def about_it(shared: list[float], also: set[int]) -> tuple[list[tuple[float, float, float, int]], list[int]]:
            scored = sorted(
                ((shared[i] + 2 * meaning[i], shared[i], meaning[i], i) for i in range(len(sentences))), reverse=True
            )
            return scored, [
                i for _, overlap, close, i in scored
                if close >= MEANING_ALONE or i in also
                or (overlap >= SHARED_ENOUGH and (not named or stems[i] & named))
            ]  # fmt: skip

        scored, about = about_it(shared, set())
        # a figure asked in its unit ("how many watts?", "capacity?"): the sentences with one say it, unless
        # one without is about the question, or it asks a property ("how loud is it at full power?": its noise)
        figures = _figures_asked(fold(question))
        figured = {i for i, s in enumerate(sentences) if any(f.search(fold(s)) for f in figures)}
        if figured and set(about) <= figured:
            shared = [x + 1.0 if i in figured else x for i, x in enumerate(shared)]
            scored, about = about_it(shared, figured)
        picked = about[:2]
        text: list[str] = []
        for i in sorted(picked[:1]) + [j for j in picked[1:] if shared[j] >= SHARED_ENOUGH]:
            if sum(len(t) for t in text) + len(said[i]) > QUOTED_CHARS and text:
                break
            text.append(said[i])
        # Nearest, though not about it: a sentence sharing a word that counts, or close in meaning;
        # else (a number or a verb in common only) the text's first sentences say more.
        near = [
            i
            for _, overlap, close, i in scored
            if (overlap >= SHARED_ENOUGH or close >= MEANING_NEAR) and i < described
        ]
        return text, _within([said[i] for i in sorted(near[:2])])

    def _verdict(self, question: str, d: dict[str, Any], sentences: list[str]) -> str | None:
        """ "Yes." or "No." for a yes-or-no question whose every word asking something ("hood",
        "dishwasher safe") the product's name or one clause of these sentences says, as it is (yes) or
        with a "no", "not", "without", "rather than" before it or "not included" after it (no). None
        when they do not say all of it in one clause, say it of a part not asked about ("the lid is
        hand wash only"), of an imitation ("faux leather"), on a condition ("with an adapter plate"),
        or the question is not one of yes or no."""
        # ("für" folds to "fur", a word of its own: "geht die auch für Hunde?" asks nothing of fur)
        folded = _joined_non(fold(re.sub(r"(?i)\bfür\b", "fuer", question)))
        # ("dishwasher safe?", "wasserdicht?", "non-slip?": a property alone, asked; not "material?")
        alone = re.fullmatch(r"\W*[^\W\d_][^\W\d_ -]*(?:[ -][^\W\d_]+){0,2}\s*\?\W*", folded) is not None
        alone = alone and _PROPERTY_WORD.search(folded) is not None
        if not (_YES_OR_NO.search(folded) or alone) or re.search(r"\b(?:or|oder|ou)\b", folded):
            return None  # ("is it leather or suede?" is answered by which)
        if _NEED.search(folded):
            return None  # ("does it need batteries?": "comes without battery" says no need of none)
        # "going back to the keyboard, the second one - is it wireless?": what it asks is in the clause that asks
        # (the words that point at the product are not asked of it), unless that clause names nothing
        part = folded[m.start() :] if (m := _YES_OR_NO.search(folded)) and _terms(folded[m.start() :]) else folded
        terms = _terms(part)
        if not terms:
            return None
        asked = [w for w in words(part) if w not in STOPWORDS and not w.isdigit()]
        numbers = [w for w in words(folded) if w.isdigit()]  # "does it fit a 17 inch laptop?": 17, said
        name = _joined_non(fold(str(d.get("name", ""))))  # ("Non-Slip Bowls" for "is it non slip?")
        if any(w in _YOUNG for w in words(folded)) and _for_grown_only(d, name):
            return self._say_in.no  # ("ok for puppies?" of a food for adult dogs)
        # each word as the catalog may say it: the shopper's ("hood"), or the catalog's for theirs
        # ("Kapuze", "klumpend" -> clumping); the same word but for a plural or "-ed" ("hood" ~ "hooded";
        # not "charger" ~ "charging")
        forms = [
            _plain(w).union(*(_plain(x) for x in [*self._noun(w).split(), *SAID_AS.get(w, "").split()]))
            for w in terms.values()
        ]
        # ("can you iron it?": ironing, not iron)
        made_of = None if _DONE_TO.search(part) else _made_of(d, name, terms.values(), forms)
        if made_of is not None:
            return self._say_in.yes if made_of else self._say_in.no
        named = [f for f in forms if any(f & _plain(w) for w in words(name))]
        if named and _IMITATION.search(name):
            # ("is it leather?" of a "Faux Leather Jacket"; "is it real leather?": no)
            return self._say_in.no if _GENUINE.search(folded) else None
        wanted = [f for f in forms if f not in named]
        if not wanted:
            return self._say_in.yes
        question_words = {x for w in asked for x in _plain(w)}
        for sentence in sentences:
            for clause in _CLAUSE_BREAK.split(_joined_non(fold(sentence))):
                if any(n not in words(clause) for n in numbers):
                    continue
                found = [
                    [m for m in re.finditer(r"[^\W\d_]+", clause) if f & _plain(m.group(0))] for f in wanted
                ]  # fmt: skip
                if not all(found):
                    continue
                parts = {w for w in words(clause) if w in PARTS and not _plain(w) & question_words}
                if parts or _IMITATION.search(clause) or _CONDITION.search(clause):
                    return None
                if any(_ONLY_MENTIONED.search(clause[: m.start()]) for matches in found for m in matches):
                    return None  # "suitable for dogs sensitive to chicken" says nothing of chicken in it
                free_asked = "free" in asked
                said_not = [_said_not(clause, m, free_asked) for matches in found for m in matches]
                if all(said_not):
                    return self._say_in.no
                return None if any(said_not) else self._say_in.yes
        return None

    def _rated(self, d: dict[str, Any], code: str) -> str:
        """What an IP code says of water ("IP20": none; "IPX4": splashes; "IP67", "IPX8": going under)."""
        r = self._say_in
        water = int(code[-1])
        said = r.ip_no if water <= 3 else r.ip_splash if water <= 6 else r.ip_yes
        return r.spec.format(name=d["name"], facts=said.format(code=code))

    def _not_told(self, d: dict[str, Any], nearest: list[str] | None) -> str:
        """No sentence is about the question: say so, and (unless asked of several products none of
        which answers: then the answer stays short) what the product's text does say, the sentences
        nearest to the question or else its first ones, so that the shopper can judge."""
        if nearest is None:
            return self._say_in.not_told.format(name=d["name"])
        text = nearest or _within(clean_sentences(d.get("description", "")))
        if not text:
            return self._say_in.not_told.format(name=d["name"])
        return self._say_in.not_told_but.format(name=d["name"], text=" ".join(text))

    def _translated(self, question: str) -> set[str]:
        """The catalog's words for the shopper's nouns the built-in list knows (German and French
        for an English catalog: "Deckel" -> lid, "semelle" -> sole), and for words it says otherwise
        ("Flugzeug" -> airline), stemmed; and its material, for materials alone ("wood or plastic?")."""
        said = {stem(x) for w in words(question) for x in [*self._noun(w).split(), *SAID_AS.get(fold(w), "").split()]}
        said |= {stem(x) for x in said_in_phrases(fold(question))}  # ("elle est en quoi ?": material)
        # ("aus Holz oder Plastik?": materials alone, with the word saying "made of")
        asked = [w for w in words(fold(question)) if w not in STOPWORDS and w not in _MADE_OF]
        return said | ({stem("material")} if asked and all(materials_named(w) for w in asked) else set())

    def _noun(self, word: str) -> str:
        """The built-in list's word for `word`, or for it without a plural ending ("Steckdosen")."""
        found = self._nouns.get(word, "")
        for end in ("en", "n", "e", "s", "er", "x"):
            if found or not word.endswith(end) or len(word) - len(end) < 4:
                continue
            found = self._nouns.get(word[: -len(end)], "")
        return found

    async def _closeness(self, question: str, d: dict[str, Any], sentences: list[str]) -> list[float]:
        if self._embedder is None:
            return [0.0] * len(sentences)
        key = (d.get("productId"), hash(tuple(sentences)))
        vectors = self._vectors.get(key)
        if vectors is None:
            vectors = await self._embedder.embed_documents(sentences)
            self._vectors[key] = vectors
            if len(self._vectors) > _KEPT_PRODUCTS:
                self._vectors.popitem(last=False)
        else:
            self._vectors.move_to_end(key)
        query = await self._embedder.embed_query(question)
        return [float(x) for x in np.asarray(vectors) @ np.asarray(query)]


# "which is the most waterproof?", "the most powerful", "lequel est le plus étanche ?"
_MOST = re.compile(r"\b(?:most|highest|greatest|le plus|la plus|les plus)\s+([^\W\d_]+)")


# "can it measure blood oxygen?", "does it measure energy use": what it measures, not a size of it
_MEASURES_A_THING = re.compile(r"\bmeasures?\s+(?!up\b|it\b|them\b|its\b|their\b|the (?:size|length)\b)[^\W\d_]{3,}")


def _measured(question: str) -> set[str]:
    """The word "measure" where a question asks whether it measures a thing: it implies no size then."""
    return {stem("measure")} if _MEASURES_A_THING.search(fold(question)) else set()


def _included_asked(folded: str) -> set[str]:
    """The things a question asks to come with a product ("does it come with battery and charger?":
    battery, charger), folded words."""
    return {w for w in words(folded) if w not in STOPWORDS and w not in _NOT_A_THING and not w.isdigit() and len(w) > 2}


_NOT_A_THING = {
    "included", "include", "includes", "come", "comes", "came", "box", "also", "too", "any", "separately", "supplied",
    "delivered", "shipped", "dabei", "enthalten", "mitgeliefert", "inklusive", "lieferumfang", "inclus", "incluse",
    "fourni", "fournie", "fournis", "livre", "livree", "boite",
}  # fmt: skip


def _highest_first(folded: str, found: list[dict[str, Any]], lines: list[str]) -> list[str]:
    """The lines of products whose specs give a figure of the property asked at its most (a "waterproof_mm"
    for "the most waterproof"), highest first; as they were where fewer than two give one."""
    most = _MOST.search(folded)
    if most is None:
        return lines
    asked = {stem(most.group(1))} | said_as(most.group(1))
    figures: dict[int, float] = {}
    for i, d in enumerate(found):
        for key, value in (d.get("specs") or {}).items():
            if (
                isinstance(value, int | float)
                and not isinstance(value, bool)
                and {stem(w) for w in fold(key).split("_")} & asked
            ):
                figures[i] = float(value)
                break
    if len(figures) < 2:
        return lines
    order = sorted(figures, key=lambda i: -figures[i]) + [i for i in range(len(found)) if i not in figures]
    return [lines[i] for i in order]


def _figures_asked(folded: str) -> list[re.Pattern[str]]:
    """How a text writes the figures a (folded) question asks for ("how many watts?" -> "20 W"), where it asks
    no property ("how loud at full power?" asks for its noise)."""
    if properties_named({w for w in stems_of(folded) if w not in STOPWORDS}):
        return []
    return [said for asking, said in _FIGURES_ASKED if asking.search(folded)]


_DIMENSIONS_ASKED = re.compile(r"\b(?:dimensions?|measurements?|abmessung(?:en)?|masse)\b")
_MEASURE_SIZE = re.compile(
    r"\d+(?:[.,]\d+)?(?:\s*[x\u00d7]\s*\d+(?:[.,]\d+)?)*\s*(?:cm|mm|m|in|inch(?:es)?|\")", re.IGNORECASE
)
_SIZE_OF_IT = re.compile(
    r"\b(?:what size|which size|how big|how large|how long is|how wide is|how tall is|dimensions?|measurements?|"
    r"welche gr(?:o|oe)ss?e|wie gr(?:o|oe)ss?|wie lang ist|wie breit|quelle taille|quelle longueur|"
    r"quelles dimensions|fait quelle taille|mesure combien|combien (?:il |elle )?mesure)\b"
)
_MEASURE_IN_NAME = re.compile(
    r"\d+(?:[.,]\d+)?(?:\s*[x\u00d7]\s*\d+(?:[.,]\d+)?)*\s*-?\s*(?:cm|mm|m|in(?:ch(?:es)?)?|\"|l|ml|litres?|liters?)"
    r"(?![^\W\d_]|-\w)",  # (not "2-in-1")
    re.IGNORECASE,
)


_WATER_ASKED = re.compile(
    r"\b(?:water ?proof|water[- ]resistant|splash ?proof|rain ?proof|rain|in the rain|outdoors?|outside|shower|"
    r"wasserdicht|wasserfest|regen|spritzwasser|etanche|pluie|resistant a l'eau)\b"
)
_IP_CODE = re.compile(r"\bIP(?:X|\d)\d\b", re.IGNORECASE)


def _ip_rating(d: dict[str, Any]) -> str | None:
    """The IP code a product's specs or text state ("IP20", "IPX4"), upper case; None where none."""
    for text in [*map(str, (d.get("specs") or {}).values()), str(d.get("description", ""))]:
        if found := _IP_CODE.search(text):
            return found.group(0).upper()
    return None


def _measure_in_name(d: dict[str, Any]) -> str | None:
    """The measure a product's name states ("23 cm" of "Serrated Bread Knife 23 cm", "60 l"), if any."""
    found = _MEASURE_IN_NAME.search(str(d.get("name", "")))
    return found.group(0).strip() if found else None


_BATTERY_ASKED = re.compile(r"\b(?:battery|batteries|cordless|rechargeable|akku\w*|kabellos|batterie|sans fil)\b")


def _corded(d: dict[str, Any]) -> bool:
    """Whether a product runs on a cord, by its specs ("corded": true) or its name and text ("a corded mower")."""
    if (d.get("specs") or {}).get("corded") is True:
        return True
    text = fold(f"{d.get('name', '')} {d.get('description', '')}")
    return re.search(r"\bcorded\b|\bmains[- ]powered\b", text) is not None and "cordless" not in text


# "is it electric or manual?", "plants or seeds?", "a proofing basket or a baking tin?": two things it may be (the
# word before "or", and up to two after it, past an article; `_either_said` ends the second at a small word)
_EITHER = re.compile(
    r"\b([^\W\d_]{3,})\s+(?:or|oder|ou)\s+(?:(?:an?|the|ein|eine|einen|un|une|des|le|la|les)\s+)?"
    r"([^\W\d_]{3,}(?:\s+[^\W\d_]{3,})?)"
)
_IS_IT = re.compile(r"\b(?:is|are|ist|sind|est)\s+(?:it|they|that|this|these|those|the|es|sie|das|il|elle|ce)\b")
_BARE_EITHER_WORDS = 4


def _either_said(folded: str, d: dict[str, Any]) -> tuple[str, str | None] | None:
    """For a question of two things it may be ("electric or manual?"), the one its name, material,
    category or text says, and the sentence of its text saying it (None where its name alone does); None
    where it says both, or neither."""
    asked = _EITHER.search(folded)
    if asked is None or asked.group(1) in STOPWORDS:
        return None
    # the second thing: its words up to a small word ("rubber on the second one": rubber; "a baking tin": both)
    second = list(itertools.takewhile(lambda w: w not in STOPWORDS, words(asked.group(2))))
    if not second:
        return None
    # what it is ("is it electric or manual?", "wood or plastic?"), not what it has or comes with ("does it
    # come with a case or a bag?" of a "Camera Bag")
    if not (_IS_IT.search(folded[: asked.start()]) or len(words(folded)) <= _BARE_EITHER_WORDS):
        return None
    sentences = clean_sentences(d.get("description", ""))
    told = stems_of(fold(" ".join([str(d.get(f) or "") for f in ("name", "material", "category")] + sentences)))
    # (the second, every word of it: "a baking tin" is no "baking sheet")
    said = [a for a in (asked.group(1), " ".join(second)) if {stem(w) for w in words(a)} <= told]
    if len(said) != 1:
        return None
    return said[0], next((s for s in sentences if {stem(w) for w in words(said[0])} <= stems_of(fold(s))), None)


# "how many usb ports does it have?": the thing counted is the last word before the verb ("ports")
_HOW_MANY = re.compile(r"\bhow many ((?:[^\W\d_]+ ){0,2}?[^\W\d_]+)(?= (?:does|do|is|are|can|will|would|has|have|"
                       r"come|comes|fit|fits|go|in|on|for|per|with)\b|\W*$)|"
                       r"\b(?:combien d[e']|wie viele?) ?((?:[^\W\d_]+ )?[^\W\d_]+)"
                       r"(?= (?:dans|par|pour|in|pro|sind|hat)\b|\W*$)")  # fmt: skip
_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "twelve": 12, "single": 1, "double": 2, "twin": 2, "pair": 2,
}  # fmt: skip
_CONTAINER = r"(?:bag|pack|packet|box|tub|tin|roll|set|pouch|tube|jar|bottle|sack|carton|case)"
_PER_PACK = re.compile(rf"^(?P<things>[a-z]+)_per_(?P<pack>{_CONTAINER})$")


def _counted(folded: str, d: dict[str, Any]) -> tuple[str, bool] | None:
    """For "how many <things>?", the number its name or text puts before that word, up to two words
    before it ("2-Slice Toaster", "Two pairs of merino socks", "2 USB-A ports"): "2 slices" from its
    name, or the sentence of its text saying it; with whether it is that sentence. None where neither says it."""
    asked = _HOW_MANY.search(folded)
    thing = (asked.group(1) or asked.group(2)).split()[-1] if asked else ""
    if not thing or (thing in STOPWORDS and thing not in ("pair", "pairs")):
        return None
    one = thing.removesuffix("s")  # ("slices", "pairs"; "boxes" -> "boxe", "boxes")
    forms = "|".join(re.escape(f) for f in dict.fromkeys([thing, one, one + "s", one + "es"]))
    numbers = "|".join(["\\d+", *_NUMBER_WORDS])
    said = re.compile(rf"\b({numbers})[\s-]+(?:[^\W\d_]+[\s-]+){{0,2}}?(?:{forms})\b", re.IGNORECASE)
    if (found := said.search(fold(str(d.get("name", ""))))) is not None:
        number = found.group(1).casefold()
        return f"{_NUMBER_WORDS.get(number, number)} {thing}", False
    for sentence in clean_sentences(d.get("description", "")):
        if said.search(sentence):
            return sentence, True
    return None


def _per_pack(d: dict[str, Any]) -> list[str]:
    """ "How many are in the pack?" of treats whose specs say "treats_per_bag: 500": "500 treats per bag"."""
    told = []
    for key, value in (d.get("specs") or {}).items():
        if (per := _PER_PACK.match(key)) is not None and not isinstance(value, bool):
            told.append(f"{value} {per['things']} per {per['pack']}")
    return told


def _figure_in_name(folded: str, d: dict[str, Any]) -> str | None:
    """The figure a question asks for in its unit ("how many watts?") as the product's name gives it ("20W")."""
    figures = [re.compile(found.pattern, re.IGNORECASE) for found in _figures_asked(folded)]
    return next((m.group(0) for f in figures if (m := f.search(str(d.get("name", ""))))), None)


def _figures_of(d: dict[str, Any]) -> list[str]:
    """A product's sizes, specs and option values: where its figures in units are."""
    options = [str(v) for values in (d.get("availableOptions") or {}).values() for v in values]
    options += [str(v) for variation in d.get("variations") or [] for v in (variation.get("options") or {}).values()]
    return [*map(str, sizes_of(d)), *map(str, d.get("specText") or []), *options]


def _figure_in(unit: str) -> str:
    """A regex of a figure in a unit of `_UNITS` ("1.5 l", "27-inch", "5 litres")."""
    return rf"\d\s*-?\s*(?:{_UNITS[unit]})"


def _unit_of(said: str) -> str:
    """The unit (a key of `_UNITS`) a word asked in names ("litres", "Liter" -> litres)."""
    return next(u for u, pattern in _UNITS.items() if re.fullmatch(pattern, said))


def _asks_what_differs(folded: str, found: list[dict[str, Any]]) -> bool:
    """ "What's the difference between them?", asked on nothing but the products' names (not
    "battery life difference between them?", nor the price they were shown at: "the two at 89")."""
    asked_on = difference_asked(folded)
    if asked_on is None:
        return False
    names = {w for d in found for w in stems_of(d["name"])}
    said = {stem(w) for w in words(asked_on) if w not in STOPWORDS and not w.isdigit() and not _PLACE.fullmatch(w)}
    return not said - names


# the words of a place in a list ("entre les deux premières", "the first two", "den ersten beiden")
_PLACE = re.compile(
    r"first|second|third|last|premier|premiere|premiers|premieres|deuxiemes?|dernier|dernieres?|erste[nrsm]?|"
    r"zweite[nrsm]?|letzte[nrsm]?|two|deux|zwei|beiden?"
)


def _said_in(question: str, also: Mapping[str, str] | Sequence[str]) -> list[str]:
    """The catalog's words for the shopper's words of this question (all of them, from a plan
    kept before they were told apart)."""
    if not isinstance(also, Mapping):
        return list(also)
    said = set(words(question))
    return [meaning for word, meaning in also.items() if set(words(word)) <= said]


def _within(sentences: list[str]) -> list[str]:
    """The first of `sentences` that fit in QUOTED_CHARS together."""
    text: list[str] = []
    for sentence in sentences:
        if sum(len(t) for t in text) + len(sentence) > QUOTED_CHARS:
            break
        text.append(sentence)
    return text


def _said_not(text: str, found: re.Match[str], free_asked: bool = False) -> bool:
    """Whether the word found in the (folded) text is said not to be so ("no hood", "not dishwasher safe",
    "cables not included", "chicken-free" unless "free" is what is asked: "is it grain free?")."""
    after = text[found.end() :]
    free = not free_asked and re.match(r"-?\s?free\b", after) is not None
    return bool(_NEGATION_BEFORE.search(text[: found.start()]) or _NEGATION_AFTER.match(after) or free)


def _root(word: str) -> str:
    """A (folded) word without an "-ly", "-ing", "-ed" or plural ending, nor a doubled consonant:
    "quickly" ~ "quick", "dries" ~ "drying" ~ "dry", "lined" ~ "lining", "padded" ~ "padding"; not
    "charger" ~ "charging", nor "lined" ~ "line"."""
    if len(word) >= 6 and word.endswith("ly"):
        word = word[:-2]
    for ending, instead in (("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(ending) and len(word) - len(ending) >= (2 if instead else 3) and not word.endswith("ss"):
            word = word[: -len(ending)] + instead
            break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]
    return word


# Before two words naming one thing ("a shoulder strap", "the filter lid")
_BEFORE_PAIR = frozenset(
    re.findall(r"\S+", "a an the any its their ein eine einen einer einem un une le la les des du")
)


def _other_kind(question: str, sentence: str, text: list[str]) -> set[str]:
    """The stems of things the question names with a word before them ("does it have a shoulder strap?")
    that the sentence names only with another word before them ("a luggage strap"), the product's text (its
    words) naming that kind nowhere: another kind of thing. Not where the two words are said of a third
    ("the cherry tomato seeds"), nor of a kind its text names ("the saw blade" of a saw: "a spare blade")."""
    asked, said = words(question), words(sentence)
    gone = set()
    for at_pair, (before, first, second) in enumerate(zip(asked, asked[1:], asked[2:], strict=False)):
        if before not in _BEFORE_PAIR or not (_content(first) and _content(second)):
            continue
        if at_pair + 3 < len(asked) and _content(asked[at_pair + 3]):
            continue
        kind, thing = stem(first), stem(second)
        at = [i for i, w in enumerate(said) if stem(w) == thing]
        if not at or any(stem(w) == kind or _root(w) == _root(first) for w in text):
            continue
        if all(i > 0 and _content(said[i - 1]) for i in at):
            gone.add(thing)
    return gone


# Safe in one appliance: "dishwasher safe" says nothing of "is it safe if he swallows bits?"
_SAFE_IN = re.compile(
    r"\b(dishwasher|microwave|oven|freezer|fridge|spulmaschine\w*|mikrowelle\w*|lave-vaisselle)[- ]?"
    r"(?:safe|fest|proof)"
)
_SAFE = stem("safe")


def _safe_for_another(question: str, sentence: str) -> set[str]:
    """ "safe" where the sentence says it only of an appliance the question does not name."""
    said = {m.group(1) for m in _SAFE_IN.finditer(fold(sentence))}
    return {_SAFE} if said and not said & set(words(fold(question))) else set()


# A material word said as what is done ("can you iron it?", "do I need to iron it", "easy to iron?")
_DONE_TO = re.compile(r"\b(?:you|i|we|to|can|could|should|must|need)\s+iron\b")


def _terms(folded: str) -> dict[str, str]:
    """The words of a yes-or-no question that ask something of the product, by their stems."""
    terms = {stem(w): w for w in words(folded) if w not in STOPWORDS and not w.isdigit()}  # (stems: fewer words)
    return {
        k: w for k, w in terms.items()
        if k not in _WEAK and k not in _NOT_ASKED and len(k) > 2 and not _ORDINAL.fullmatch(w)
    }  # fmt: skip


def _content(word: str) -> bool:
    """A word that names something: no number, short word or word any question has."""
    return word.isalpha() and len(word) > 2 and word not in STOPWORDS and stem(word) not in _WEAK


def _plain(word: str) -> frozenset[str]:
    """A (folded) word's forms without a plural or "-ed" ending: "cables" ~ "cable", "boxes" ~ "box",
    "hooded" ~ "hood", and without "-ing" or "-ly" ("lined" ~ "lining"); two words are the same where their
    forms meet."""
    forms = {word, _root(word)}
    for ending in ("ed", "es", "s"):
        if len(word) > len(ending) + 3 and word.endswith(ending):
            forms.add(word[: -len(ending)])
    return frozenset(forms)


# "1st", "2nd", "erste", "deuxième": which product, not what is asked of it
_ORDINAL = re.compile(
    r"\d+(?:st|nd|rd|th|e|er|re|eme|te|ten)|(?:erste|zweite|dritte|vierte|letzte)[nrs]?|premiere?|deuxieme|"
    r"troisieme|seconde?|derniere?"
)
_YOUNG = frozenset(re.findall(r"\S+", "puppy puppies kitten kittens welpe welpen chiot chiots chaton chatons"))


def _for_grown_only(d: dict[str, Any], name: str) -> bool:
    """Whether a product is for grown animals only: its life stage (a spec) or its name says adult or senior."""
    stage = fold(str((d.get("specs") or {}).get("life_stage", "")))
    if stage:
        return stage in ("adult", "senior", "mature")
    return re.search(r"\b(?:adult|senior)\b", name) is not None and re.search(r"puppy|kitten|junior", name) is None


# The words that ask what a thing is made of ("made of plastic?", "aus Glas?", "en verre ?")
_MADE_OF = frozenset(re.findall(r"\S+", "made make out from aus besteht bestehen gemacht fait faite faits faites en"))


def _made_of(d: dict[str, Any], name: str, asked: Any, forms: list[frozenset[str]]) -> bool | None:
    """For "is it glass?", "ist die erste aus Metall?", "is the grater plastic?": whether the materials its data
    gives (its material, else its name) are of the one asked (steel is a metal); None where no material is
    asked, it gives none, an imitation ("PU leather"), or the question asks anything but the material of what
    its name says ("is the lid glass?", "the suede one, is it waterproof?")."""
    asked = list(asked)
    wanted = [materials_named(w) for w in asked]
    if len({frozenset(kinds) for kinds in wanted if kinds}) != 1:  # ("Baumwolle" and its "cotton": one asked)
        return None
    material = fold(str(d.get("material") or ""))
    others = [f for w, f, kinds in zip(asked, forms, wanted, strict=True) if not kinds and w not in _MADE_OF]
    if not all(any(f & _plain(w) for w in words(name)) for f in others):
        return None
    has = materials_named(material) or materials_named(name)
    if _IMITATION.search(material) or _IMITATION.search(name):
        return None
    if not has:
        # "is it cotton?" of a jacket of "water-repellent nylon, 650-fill duck down": no (a plastic asked of
        # nylon or polyester, which the words do not place, stays untold)
        kinds = next(kinds for kinds in wanted if kinds)
        return False if material.strip() and "plastic" not in kinds else None
    return bool(has & next(kinds for kinds in wanted if kinds))


# A word of a property ("dishwasher safe", "waterproof", "washable", "grain free", "non-slip"): asked alone
# with a question mark it asks yes or no; a thing alone ("material?", "colour?") asks what
_PROPERTY_WORD = re.compile(
    r"(?:safe|proof|free|able|ible|dicht|fest|bar|lavable|resistant|less|\w{3}ed|non\w+)\W*$|^\W*non\w+"
)  # ("wireless?", "cordless?", "lined?", "padded?")
# "does it need batteries?", "braucht man Werkzeug?": what it takes, which "comes without" does not say
_NEED = re.compile(r"\b(?:need|needs|require|requires|brauch\w*|benotig\w*|besoin|faut-il|necessite)\b")


def _joined_non(text: str) -> str:
    """ "non-slip", "non slip" as one word ("nonslip"), so that its "non" is no "no" said of "slip";
    "sweat proof", "squirrel-proof" as one word too, as "waterproof" is written ("sweatproof")."""
    return re.sub(r"\b([^\W\d_]+)[- ]proof\b", r"\1proof", re.sub(r"\bnon[- ](?=[^\W\d_])", "non", text))
