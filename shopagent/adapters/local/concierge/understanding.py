"""Reading one customer message: filters, follow-up cues, small talk and the words left over.

`Lexicon` holds what depends on the shop (its colours and sizes with their names in each
language); `Lexicon.read(text)` gives a `Reading`. Patterns run over the folded text; every
span a pattern takes is cut out, and what remains of the original text is what the customer
is looking for.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from itertools import pairwise

from shopagent.adapters.local.concierge import phrases as ph
from shopagent.adapters.local.concierge.text import TOKEN, WORD, describing, span_of
from shopagent.adapters.local.wordlists import word_list
from shopagent.domain import price_words as pw
from shopagent.domain.catalog import MAX_PRICE, CatalogRules
from shopagent.domain.colour_words import COLOUR_ENDINGS
from shopagent.domain.options import fold
from shopagent.domain.query_words import MINE, situation_told_by
from shopagent.domain.text import words as words_of

_CENT = Decimal("0.01")


@dataclass(frozen=True)
class LanguageNames:
    """Words of one language for the catalog's colours and sizes (word -> colour / size)."""

    colors: Mapping[str, str] = field(default_factory=dict)
    sizes: Mapping[str, str] = field(default_factory=dict)


# Before a measure that is of another thing than the one asked for ("for a 55 inch tv", "für
# meinen 27 Zoll Monitor"), and the noun after it.
_FOR_ANOTHER = re.compile(
    r"\b(?:for|fits?|fitting|f(?:u|ue)r|passend zu|pour)\s+(?:(?:a|an|the|my|your|our|his|her|einen?|meinen?|"
    r"den|die|das|un|une|mon|ma|le|la)\s+)?$"
)
_NOUN_AFTER = re.compile(r"\s+[^\W\d_]{2,}")
# "raised beds 2m x 1m, 40cm deep": a measure of something else, not a size the shop sells.
_DIMENSION = re.compile(
    r"\s*(?:x\b|\u00d7|deep|long|wide|high|tall|thick|tief|lang|breit|hoch|dick|de (?:profondeur|long|large|haut))"
)
_TIMES_BEFORE = re.compile(r"(?:\bx|\u00d7)\s*$")  # "1m x 40cm": the second measure of two


_COLOUR_POINTER_BEFORE = re.compile(r"\b(?:the|die|das|der|den|dem|le|la|les|l')\s*$")
_COLOUR_POINTER_AFTER = re.compile(r"(?:e[nrsm]?|s|es)?\s*(?:one\b|pair\b|[,?!.]|$|(?:is|ist|est|has|hat)\b)")


@dataclass
class Reading:
    """What one message says. Prices are Decimals; colours and sizes are the catalog's own."""

    colors: list[str] = field(default_factory=list)
    sizes: list[str] = field(default_factory=list)
    unknown_sizes: list[str] = field(default_factory=list)  # "size 47" where the shop has no 47
    # words, query, said and said_whole without those sizes: what a new search looks for ("sneakers")
    unsized: tuple[list[str], str, str, bool] | None = None
    # The message's parts between "and"s ("a knife and a cutting board"): the describing words
    # of each, and whether it begins with an article or a quantity ("and a sleeping bag") -- when
    # it asks for several things, one search each (planning)
    pieces: list[tuple[list[str], bool, str]] = field(default_factory=list)  # (words, begins, folded text)
    min_price: Decimal | None = None
    max_price: Decimal | None = None
    soft_floor: bool = False  # min_price is the tolerance below "around 100", not a bound said
    in_stock: bool = False
    cheaper: bool = False
    price_compared: bool = False  # "which is cheaper?": a question of those shown, by their prices
    priced_ref: str | None = None  # "the cheaper one" (cheapest), "the dearer one" (dearest): one shown, by price
    priced_said: str = ""  # those words as written
    priced_kind: str = ""  # the thing so called, where named: "knife" of "the cheaper knife, what steel is it?"
    colour_ref: str | None = None  # "the blue one": a product shown, by a colour it comes in
    size_ref: str | None = None  # "the bigger one" (big), "a smaller one" (small): a size of the one talked about
    size_most: bool = False  # ... the biggest or smallest there is ("the biggest", "la plus petite")
    size_long: bool = False  # ... by its length ("the longer one", "die kürzere")
    pricier: bool = False
    similar: bool = False
    more: bool = False
    details: bool = False
    about: bool = False  # "what about ...", which may point at a shown product or start a new search
    compare: bool = False
    refs: list[int] = field(default_factory=list)  # positions in the last list (1-based, -1 = last)
    ordinals: list[int] = field(default_factory=list)  # positions named, pointing or not ("ist die erste aus …")
    greeting: bool = False
    thanks: bool = False
    bye: bool = False
    identity: bool = False
    off_topic: bool = False
    attribute: bool = False  # the words left add a detail to the last request ("in leather?")
    describes: bool = False  # says who or what it is for ("she's a small dog"), a request's details
    request: bool = False  # worded as a request ("I'm looking for", "ich suche", "je cherche")
    buy: bool = False  # wants to buy what was shown ("I'll take it", "add it to my basket")
    question: bool = False  # worded as a question ("is …", "does …", "kann man …", "est-ce que …")
    points_at_one: bool = False  # "it", "that one", "den", "celui-ci"
    points_at_all: bool = False  # "they", "which of them", "welche davon", "lesquels"
    asks_about: bool = False  # names something a product's data tells (battery, weight, waterproof…)
    store_question: bool = False  # about the shop: shipping, returns, payment, opening hours…
    stock_asked: bool = False  # a question only by "in stock?" ("okay in stock?"; "any cans in stock?" asks for cans)
    broad: bool = False  # a need rather than a thing ("what do I need for …")
    words: list[str] = field(default_factory=list)  # the folded words that describe the item
    query: str = ""  # the same words as the customer wrote them
    said: str = ""  # the customer's words from the first describing word to the last, as written
    said_whole: bool = False  # ... and nothing between was read out (a colour, a price, a negation)
    # the word telling the shopper's own situation beside the request, where it says whose ("my" of "my bike got
    # stolen"; not "je" of "je cherche une cafetière", a request), for the search to hear it too
    told_by: str | None = None
    said_kept: str = ""  # ... with what was read out left out ("compost for sowing seeds" of "what compost do you
    # have for sowing seeds")
    negated: list[str] = field(default_factory=list)  # the folded words said not to be wanted ("no capsules")
    negated_said: str = ""  # ... as the customer wrote them, with the word saying no
    colors_not: list[str] = field(default_factory=list)  # colours said not to be wanted ("anything but black")
    price_order: str | None = None  # "cheapest" ("cheapest jacket you have") or "dearest": the kind by price
    budget: bool = False  # "cheap tshirts", "günstiger Wasserkocher": of those that fit, the cheaper first
    recall: bool = False  # only which product that was: "what was the first one you showed me again?"

    @property
    def has_filters(self) -> bool:
        return bool(self.colors or self.sizes or self.in_stock or self.min_price or self.max_price)

    @property
    def follow_up(self) -> bool:
        """Whether it asks to change the last results rather than describing something new."""
        return self.cheaper or self.pricier or self.similar or self.more or self.has_filters

    @property
    def small_talk(self) -> bool:
        return self.greeting or self.thanks or self.bye or self.identity


# What joins the things of a request for several ("a knife and a board", "Mütze und Schal"), and
# what begins one of them ("and a sleeping bag", "und einen Schal", "et des gants").
_JOINED = re.compile(r"\s*(?:\band\b|\bund\b|\bet\b|\bas well as\b|&|\+)\s*")
_SENTENCE_END = re.compile(r"[.!?]+(?=\s|$)")
# A part of a list that only says more of the thing before it ("a gas stove, preferably with two burners, and …")
_QUALIFIES = re.compile(
    r"\s*(?:preferably|ideally|if possible|maybe with|with|without|not too|around|about|under|max|"
    r"vorzugsweise|am liebsten|idealerweise|mit|ohne|nicht zu|de pr(?:e|é)f(?:e|é)rence|id(?:e|é)alement|avec|sans)\b"
)
_AN_ITEM = re.compile(
    r"\s*(?:(?:also|maybe|perhaps|then|need|want|get|buy|auch|noch|vielleicht|brauche|aussi|peut-etre|"
    r"peut-être)\s+)*"
    r"(?:a|an|some|any|one|two|2|a couple of|a pair of|ein|eine|einen|einem|zwei|un|une|des|deux|du)\b"
)
_SIZE_SYSTEM_BEFORE = re.compile(r"\b(?:uk|us|usa|eu|fr|it|jp|cn)\s*$")
# Words after a number that make it an amount of something else, not a size ("size 8 months").
_NOT_A_SIZE_AFTER = (
    r"months?|monate?n?|mois|years?|yrs?|jahre?n?|ans?|st(?:u|ue)ck|stk|teile?|pieces?|pcs|pack|personen|"
    r"personnes|people|persons?|cm|mm|m|kg|g|l|ml|cl|inch(?:es)?|zoll|pouces|uk|us|eu|fr|de|it"
)


class _Text:
    """A message in folded form, with the original characters behind every folded one."""

    def __init__(self, text: str) -> None:
        self.original = text.replace("\u2019", "'").replace("\u2018", "'")
        chars: list[str] = []
        self._origin: list[int] = []
        for i, ch in enumerate(self.original):
            folded = fold(ch)
            chars.append(folded)
            self._origin.extend([i] * len(folded))
        self._live = list("".join(chars))
        self._kept = [True] * len(self.original)

    @property
    def rest(self) -> str:
        return "".join(self._live)

    def cut(self, start: int, end: int) -> None:
        for j in range(start, end):
            self._live[j] = " "
            self._kept[self._origin[j]] = False

    def take_prices(self, pattern: re.Pattern[str]) -> list[re.Match[str]]:
        """Every match of a price pattern in what is left that is no age ("for kids under 5"), cut out."""
        found = pw.prices_in(pattern, self.rest)
        for match in found:
            self.cut(*match.span())
        return found

    def take(self, pattern: re.Pattern[str]) -> list[re.Match[str]]:
        """Every match of the pattern in what is left, cut out."""
        found = list(pattern.finditer(self.rest))
        for match in found:
            self.cut(*match.span())
        return found

    def original_start(self, start: int) -> int:
        """Where a position of what is left starts in the message as written."""
        return self._origin[start] if start < len(self._origin) else len(self.original)

    def original_of(self, start: int, end: int) -> str:
        if start >= end:
            return ""
        return self.original[self._origin[start] : self._origin[end - 1] + 1]

    def remaining_original(self) -> str:
        return "".join(ch if kept else " " for ch, kept in zip(self.original, self._kept, strict=True))


class Lexicon:
    def __init__(self, rules: CatalogRules, names: Mapping[str, LanguageNames], language: str = "en") -> None:
        self.rules = rules
        self.colors: dict[str, str] = {fold(c): c for c in rules.colors}
        for alias, target in rules.color_aliases.items():
            self.colors[fold(alias)] = target
        self.sizes: dict[str, str] = {_squeeze(fold(s)): s for s in rules.sizes}
        # A colour word of another language that is also a word of the shop's ("roses", "rot",
        # "marine", "rouge"): not a colour in a message written in the shop's language ("secateurs
        # for roses", "root rot on my tomatoes"); a colour in any other ("les roses", "rote Jacke",
        # "T-Shirt rosa", "pull marine", "in rot?").
        own = word_list(language)
        self._mine = ph.LANGUAGE_CUES.get(language)
        self._foreign: dict[str, re.Pattern[str]] = {}
        for language_of, words in names.items():
            endings = COLOUR_ENDINGS.get(language_of, ("",))
            for word, target in words.colors.items():
                if (colour := rules.color(target)) is not None:
                    for ending in endings:
                        written = fold(word) + ending
                        if written in self.colors:
                            continue
                        self.colors[written] = colour
                        cue = ph.LANGUAGE_CUES.get(language_of)
                        if cue is not None and language_of != language and own is not None and written in own:
                            self._foreign[written] = cue
            for word, target in words.sizes.items():
                if (size := rules.size(target)) is not None:
                    self.sizes.setdefault(_squeeze(fold(word)), size)
        for key, size in list(self.sizes.items()):  # "2 Meter", "2 metres", "1,5 litres": the shop's "2 m", "1.5 l"
            if (unit := re.fullmatch(r"([\d.]+) ([a-z]+)", key)) and unit.group(2) in _UNIT_WORDS:
                for word in _UNIT_WORDS[unit.group(2)]:
                    self.sizes.setdefault(f"{unit.group(1)} {word}", size)
        self._color_pattern = _alternation(self.colors)
        letters = {k: v for k, v in self.sizes.items() if re.fullmatch(r"[a-z]{1,4}", k)}
        numbers = {k: v for k, v in self.sizes.items() if k.isdigit()}
        shaped = {k: v for k, v in self.sizes.items() if k not in letters and k not in numbers}
        any_size = _alternatives(self.sizes)
        self._size_lists = re.compile(
            rf"\b(?:{ph.SIZE_WORDS})(?![a-z])\s*[:.]?\s*((?:{any_size})(?:{ph.SIZE_LISTS}(?:{any_size}))*)\b"
        )
        self._shaped = _alternation(shaped) if shaped else None
        self._numbers = (
            re.compile(
                rf"\b(?:(?:{ph.SIZE_PREPOSITIONS})\s+({_alternatives(numbers)})\b(?!\s*(?:€|eur|euro|\$))"
                rf"|({_alternatives(numbers)})\s*eu\b)"
            )
            if numbers
            else None
        )
        self._bare_numbers = (
            re.compile(rf"(?<![\d.,])\b({_alternatives(numbers)})\b(?![.,]?\d)(?!\s*(?:€|eur|euro|\$|[a-z]))")
            if numbers
            else None
        )
        self._letters = (
            re.compile(rf"\b(?:(?:{ph.SIZE_PREPOSITIONS})\s+)?({_alternatives(letters)})\b") if letters else None
        )
        self._ranges = re.compile(rf"\b(?:{ph.SIZE_WORDS})\s*(\d{{1,3}})\s*[-\u2013]\s*(\d{{1,3}})\b(?![.,]?\d)")
        # "medium", "size large": words for the letter sizes the catalog has ("small" and
        # "large" only after a word for size, as they mostly describe the thing itself).
        alone = {w: size for w, size in ph.SIZE_NAMES_ALONE.items() if size in rules.sizes}
        cued = {**alone, **{w: size for w, size in ph.SIZE_NAMES_CUED.items() if size in rules.sizes}}
        self._size_names = {_squeeze(word): size for word, size in cued.items()}  # "2xl" is read "2 xl"
        self._named_alone = _alternation(alone) if alone else None
        self._named_cued = (
            re.compile(rf"\b(?:{ph.SIZE_WORDS}|in|en|im)\s*[:.]?\s*({_alternatives(cued)})\b") if cued else None
        )
        self._lone_size = re.compile(rf"^\W*(?:and|und|et|or|oder|ou)?\s*({any_size})\W*$")
        # "size 47", "Größe 8", "taille XXXS", "size 47/48" where the shop has no such size (what is left
        # after its own), not an amount of something else ("size 8 months", "Größe 2 Stück", "taille 2 ans")
        one = r"(?:\d{1,3}(?:[.,]5)?|x{0,4}[sl]|m|\d?x[sl])"
        self._unknown_size = re.compile(
            rf"\b({ph.SIZE_WORDS})(?![a-z])\s*[:.]?\s*({one}(?:\s*(?:,|/|or|oder|ou)\s*{one})*)\b"
            rf"(?![.,]?\d)(?!\s*(?:[€$%(/\u00d7-]|x\b|(?:{_NOT_A_SIZE_AFTER})\b))"
        )

    def _foreign_colour(self, written: str, said: str) -> bool:
        """Whether a colour word of another language, also a word of the shop's, is a colour in a
        message (`said`: in lower case, accents kept, so that "à" is no English "a"): unless the
        message has words of the shop's language and none of the colour word's."""
        return self._mine is None or not self._mine.search(said) or bool(self._foreign[written].search(said))

    def color_name(self, colour: str, language: str, names: Mapping[str, LanguageNames]) -> str:
        """How to write a catalog colour in a language: the first word the shop configured for it, else the
        built-in word for it as written ("weiß", "vert"), else as the catalog has it."""
        builtin = ph.BUILTIN_COLOR_NAMES.get(language, {})
        written = ph.BUILTIN_COLOR_WRITTEN.get(language, {})
        found = [word for word, target in names.get(language, LanguageNames()).colors.items()
                 if self.rules.color(target) == colour]  # fmt: skip
        own = [word for word in found if word not in builtin]
        if own:
            return own[0]
        canonical = next((fold(target) for word, target in builtin.items() if word in found), None)
        return written.get(canonical or "", found[0] if found else colour)

    def read(self, message: str) -> Reading:
        text = _Text(message)
        reading = Reading()
        whole = text.rest
        reading.points_at_one = bool(ph.POINTS_AT_ONE.search(whole))
        reading.points_at_all = bool(ph.POINTS_AT_ALL.search(whole))
        reading.asks_about = bool(ph.ASKS_ABOUT.search(whole))
        reading.question = bool(ph.QUESTION.search(whole))
        reading.buy = bool(ph.BUY.search(whole))
        reading.store_question = bool(ph.STORE_QUESTION.search(whole)) or bool(
            ph.SIZE_CHOICE.search(whole) and not ph.REQUEST_FILLERS.search(whole)
        )
        reading.broad = bool(ph.BROAD_NEED.search(whole))
        reading.describes = bool(ph.DESCRIBES.search(whole))
        # "whats the difference between 1 and 3", "2 vs 4?": two positions compared (no price range)
        paired = []
        if ph.COMPARE.search(whole):
            for match in text.take(ph.PAIR_NUMBERED):
                paired += [int(match.group(1)), int(match.group(2))]
        if found := text.take(ph.SIZED_ONE):  # before sizes: "la plus grande" is no size L
            big = found[0].group("big") or found[0].group("big_thing")
            said = big or found[0].group("small") or found[0].group("small_thing")
            reading.size_ref = "big" if big else "small"
            reading.size_most = bool(ph.SIZED_MOST.search(said))
            reading.size_most |= bool(re.search(r"\b(?:le|la|l') plus\b", found[0].group(0)))
            reading.size_long = bool(re.match(r"(?:long|short|lang|lae?ng|kurz|kue?rz|plus (?:long|court))", said))
        self._prices(text, reading)
        if text.take(ph.IN_STOCK):
            reading.in_stock = True
        not_had = self._sizes(text, reading)
        for match in list(self._color_pattern.finditer(text.rest)):
            written = _squeeze(match.group(1))
            if written in self._foreign and not self._foreign_colour(written, text.original.lower()):
                continue
            if written in ("weiss", "weiß") and (
                ph.KNOWN_NOT_WHITE.search(text.rest[: match.start()])
                or ph.KNOWN_NOT_WHITE.match(text.rest[match.end() :])
            ):
                continue  # "welches Ventil, weiß ich nicht": not a colour
            if ph.COLOUR_TURNED.search(text.rest[: match.start()]):
                continue  # "the tank keeps going green", "leaves turning yellow": what happens, no colour asked for
            if ph.COLOUR_OF_A_MARK.match(text.rest[match.end() :]) or ph.COLOUR_OF_A_MARK_BEFORE.search(
                text.rest[: match.start()]
            ):
                continue  # "leaves on my roses have black spots", "des taches noires": a trouble's colour
            text.cut(*match.span())
            colour = self.colors[written]
            # "not grey pls, he hates grey", "anything but black", "nicht in grau", "pas en gris": not wanted
            if no := ph.COLOUR_NOT_WANTED.search(text.rest[: match.start()]):
                text.cut(*no.span())
                if colour not in reading.colors_not:
                    reading.colors_not.append(colour)
                continue
            if colour not in reading.colors:
                reading.colors.append(colour)
            # "is the blue one midi length?", "the red one", "la bleue, elle est en coton ?": a product
            # shown, by its colour (a definite article before, "one" or nothing of the thing after)
            before, after = whole[: match.start()], whole[match.end() :]
            if _COLOUR_POINTER_BEFORE.search(before) and _COLOUR_POINTER_AFTER.match(after):
                reading.colour_ref = colour
        # A shade rather than a colour ("in a lighter colour", "was Helles"): the shop's colours of it
        for match in text.take(ph.COLOUR_SHADE):
            if not reading.colors and match.lastgroup:
                reading.colors += ph.colours_of_shade(ph.SHADE_OF_MATCH[match.lastgroup], self.rules.colors)
        # Follow-up cues and references.
        reading.compare = bool(text.take(ph.COMPARE)) or bool(paired)
        reading.details = bool(text.take(ph.DETAILS))
        if text.take(ph.RECALL):
            text.take(ph.AGAIN)
            reading.details = reading.recall = True
        reading.about = bool(text.take(ph.ABOUT))
        text.take(ph.SHOWN_SAID)
        reading.budget = ph.BUDGET.search(text.rest) is not None
        priced_one = ph.PRICED_ONE.search(text.rest)  # ("den billigsten bitte": the cheapest of those shown)
        if not (ph.PRICE_COMPARED.search(whole) or priced_one) and (ordered := ph.PRICE_ORDER.search(text.rest)):
            text.cut(*ordered.span())
            reading.price_order = "cheapest" if ordered.group("cheap") else "dearest"
        if not ph.PRICE_COMPARED.search(whole) and (found := text.take(ph.PRICED_ONE)):
            reading.priced_ref = "cheapest" if found[0].group("cheap") else "dearest"
            reading.priced_said = text.original_of(*found[0].span())
            reading.priced_kind = found[0].group("kind") or ""
        # "which is cheaper?", "welche ist günstiger?", "lequel est moins cher ?": a question of those
        # shown (or compared), answered by their prices; not a request for cheaper ones
        if ph.WHICH_PRICED.search(whole):
            text.take(ph.CHEAPER)
            text.take(ph.PRICIER)
            reading.price_compared = True
        reading.cheaper = bool(text.take(ph.CHEAPER))
        reading.pricier = bool(text.take(ph.PRICIER))
        reading.similar = bool(text.take(ph.SIMILAR))
        reading.more = bool(text.take(ph.MORE))
        refs, pointer = self._refs(text)
        refs = list(dict.fromkeys([*paired, *refs]))
        pointer = pointer or bool(paired)
        # Small talk and the words around a request.
        reading.identity = bool(text.take(ph.IDENTITY))
        reading.greeting = bool(text.take(ph.GREETING))
        reading.thanks = bool(text.take(ph.THANKS))
        reading.bye = bool(text.take(ph.BYE))
        reading.off_topic = bool(ph.OFF_TOPIC.search(text.rest))
        reading.request = bool(text.take(ph.REQUEST_FILLERS)) and not ph.HOW_MUCH.search(whole)
        text.take(ph.BROAD_NEED)  # "what do I need", "first time": the situation, not the thing
        text.take(ph.GOES_WITH_IT)  # "to go with it": what it is for
        for past in [p for p in ph.OUTGROWN.finditer(text.rest) if p.group("said") != p.group("last")]:
            reading.negated += [w for w in re.findall(r"[^\W\d_]+", past.group("said"))[:-1] if w not in ph.STOPWORDS]
            reading.negated_said = reading.negated_said or text.original_of(*past.span())
            text.cut(past.start(), past.start("last"))  # (the kind stays asked for)
        for negation in text.take(ph.NEGATED):
            reading.negated += [w for w in re.findall(r"[^\W\d_]+", negation.group(1)) if w not in ph.STOPWORDS]
            reading.negated_said = reading.negated_said or text.original_of(*negation.span())
        text.take(ph.MEASURE)
        if reading.small_talk or reading.follow_up:
            text.take(ph.COURTESY)
        lead = ph.ATTRIBUTE_LEAD.match(text.rest)
        # "battery life?", "the weight?", "la semelle est antidérapante ? il gèle souvent": a
        # question by its mark, about something a product tells (but "in size 42?" only narrows the list).
        if "?" in whole and not reading.question:
            pointing = reading.points_at_one or reading.points_at_all
            # "okay in stock?" after a list asks whether they can be had, as "is it in stock?" does.
            stock = reading.in_stock and not (reading.colors or reading.sizes or reading.max_price or reading.min_price)
            reading.question = pointing or stock or (reading.asks_about and not reading.has_filters)
            reading.stock_asked = stock and not (pointing or reading.asks_about)
        rest = text.remaining_original()
        told_by = situation_told_by(words_of(rest))
        reading.told_by = told_by if told_by in MINE else None
        stopwords = ph.stopwords_of(text.original)
        reading.words, reading.query = describing(TOKEN.findall(rest), stopwords)
        reading.said = span_of(rest, reading.query, text.original)
        reading.said_kept = span_of(rest, reading.query, rest)
        reading.said_whole = reading.said == reading.said_kept
        if joined := _JOINED.search(rest.lower()):
            # the parts of a list before its "and" too ("a hat, gloves and a scarf"), of its sentence ("… and some
            # cookware. Could you advise us?": the question after it names no thing), the one asking for things
            # where one does ("My wife and I travel … We are looking for a gas stove and some cookware.")
            low = rest.lower()
            ends = [0, *(m.end() for m in _SENTENCE_END.finditer(low)), len(low)]
            sentences = [(a, b) for a, b in pairwise(ends) if b > a]
            asking = [
                (a, b)
                for a, b in sentences
                if _JOINED.search(low[a:b]) and ph.REQUEST_FILLERS.search(whole[a:b].lower())
            ]  # (the words asking are cut from `rest`: read in the message whole)
            start, end = asking[0] if asking else next((a, b) for a, b in sentences if a <= joined.start() < b)
            joined = _JOINED.search(low, start, end) or joined
            parts = [
                part  # (a part saying more of the thing before it, "preferably with two burners", is no thing)
                for part in [*low[start : joined.start()].split(","), *_JOINED.split(low[joined.end() : end])]
                if part.strip() and not _QUALIFIES.match(part)
            ]
            reading.pieces = [
                (describing(TOKEN.findall(part), stopwords)[0], bool(_AN_ITEM.match(part)), fold(part))
                for part in parts
            ]
        if not_had:  # the words without the sizes the shop does not have: what a new search looks for
            for span in not_had:
                text.cut(*span)
            unsized = text.remaining_original()
            kept, query = describing(TOKEN.findall(unsized), stopwords)
            said = span_of(unsized, query, text.original)
            reading.unsized = (kept, query, said, said == span_of(unsized, query, unsized))
        # "she's a small dog, shih tzu": a detail of the last request, unless worded as a new one.
        described = reading.describes and not (reading.request or reading.question)
        reading.attribute = bool((lead or described) and reading.words)
        cued = reading.details or reading.compare or reading.similar or reading.about
        reading.ordinals = refs
        if refs and (cued or pointer or not reading.words):
            reading.refs = refs
            reading.details = reading.details or not (reading.compare or reading.similar)
        elif refs:
            # "my first flat": an ordinal that is part of the description, not a reference.
            reading.words, reading.query = _restore_refs(message, reading)
        return reading

    def _prices(self, text: _Text, reading: Reading) -> None:
        total = pw.TOTAL.search(fold(text.original)) is not None  # a budget for everything together: no floor
        self._price_bounds(text, reading, total)
        if total and (reading.max_price is not None or reading.min_price is not None):
            text.take(pw.TOTAL)  # ("in total", "insgesamt": words of the budget, not of the thing)

    def _price_bounds(self, text: _Text, reading: Reading, total: bool) -> None:
        if found := text.take_prices(pw.AROUND):
            amounts = sorted(a for a in (_money(g) for g in found[0].groups() if g) if a is not None)
            if amounts:
                low, high = amounts[0], amounts[-1]
                slack = pw.AROUND_TOLERANCE if low == high else pw.AROUND_RANGE_TOLERANCE
                reading.min_price, reading.soft_floor = _rounded(low * (1 - slack)), True
                reading.max_price = min(_rounded(high * (1 + slack)), MAX_PRICE - _CENT)
                if pw.ceiling_before(text.rest, found[0]):  # "bis etwa 150", "up to about 80": a most, as said
                    reading.min_price, reading.soft_floor, reading.max_price = None, False, min(high, MAX_PRICE - _CENT)
                if total:  # "Budget insgesamt ca. 200 €": up to it
                    reading.min_price, reading.soft_floor = None, False
                return
        if found := text.take_prices(pw.BETWEEN):
            amounts = sorted(a for a in (_money(g) for g in found[0].groups() if g) if a is not None)
            if len(amounts) == 2:
                reading.min_price, reading.max_price = amounts
                if total:  # "between 100 and 150 for everything": up to it
                    reading.min_price = None
            return
        if found := text.take_prices(pw.MAX_PRICE):
            reading.max_price = _money(next(g for g in found[0].groups() if g))
        if found := text.take_prices(pw.MIN_PRICE):
            reading.min_price = _money(next(g for g in found[0].groups() if g))
        if reading.min_price is not None and reading.max_price is not None and reading.min_price > reading.max_price:
            reading.min_price, reading.max_price = reading.max_price, reading.min_price

    def _sizes(self, text: _Text, reading: Reading) -> list[tuple[int, int]]:
        def put(size: str | None) -> None:
            if size is not None and size not in reading.sizes:
                reading.sizes.append(size)

        def add(raw: str) -> None:
            put(self.sizes.get(_squeeze(raw)))

        for match in text.take(self._ranges):  # "taille 43-46": the shop's name for it, or its sizes
            low, high = sorted(int(g) for g in match.groups())
            if (named := self.sizes.get(f"{low}-{high}")) is not None:
                put(named)
                continue
            for size in self.rules.sizes:
                if size.isdigit() and low <= int(size) <= high:
                    put(size)
        for pattern in (self._named_cued, self._named_alone):
            if pattern is not None:
                for match in text.take(pattern):
                    put(self._size_names[_squeeze(match.group(1))])
        for match in text.take(self._size_lists):
            for token in re.split(ph.SIZE_LISTS, match.group(1)):
                add(token)
        if self._shaped is not None:
            for match in list(self._shaped.finditer(text.rest)):
                # "a bracket for a 55 inch tv": the size of what it is for, not of the bracket.
                if _FOR_ANOTHER.search(text.rest[: match.start()]) and _NOUN_AFTER.match(text.rest[match.end() :]):
                    continue
                if _DIMENSION.match(text.rest[match.end() :]) or _TIMES_BEFORE.search(text.rest[: match.start()]):
                    continue
                add(match.group(1))
                text.cut(*match.span())
        if self._numbers is not None:
            for match in text.take(self._numbers):
                add(next(g for g in match.groups() if g))
        if self._bare_numbers is not None:  # "turnschuhe weiss 43": a number that is a size, not a price
            for match in text.take(self._bare_numbers):
                add(match.group(1))
        if self._letters is not None:
            for match in list(self._letters.finditer(text.rest)):
                # Letter sizes only as the customer capitalised them ("in M", "XL"), so the
                # words "in", "a", "m" are never taken for sizes.
                written = text.original_of(*match.span(1))
                prefixed = match.group(0) != match.group(1)
                # "xl", "xxs" are no words: in any case.
                if (written.isupper() or written.lower().startswith("x")) and (prefixed or len(written) > 1):
                    add(match.group(1))
                    text.cut(*match.span())
        if lone := self._lone_size.match(text.rest):  # "42?" or "und 43?" after a search
            add(lone.group(1))
            text.cut(*lone.span())
        return self._sizes_not_had(text, reading)

    def _sizes_not_had(self, text: _Text, reading: Reading) -> list[tuple[int, int]]:
        """The sizes said that the shop does not have ("sneakers in size 47"), into
        `reading.unknown_sizes`, and where they are in the text: none that begins one of the shop's
        sizes ("size 28" of a pan sold in "28 CM"), nor after the German "große" (big), which folds
        as "Größe" (size) does, nor a size of another system ("UK size 8")."""
        spans = []
        for match in self._unknown_size.finditer(text.rest):
            if re.fullmatch(r"gro(?:ss|ß)e?n?", text.original_of(*match.span(1)).lower()):
                continue
            if _SIZE_SYSTEM_BEFORE.search(text.rest, 0, match.start()):  # "UK size 8": another system's
                continue
            sizes = [t.upper().replace(",", ".") for t in re.split(r"\s*(?:,|/|or|oder|ou)\s*", match.group(2))]
            if not any(fold(known).upper().startswith(size) for size in sizes for known in self.rules.sizes):
                reading.unknown_sizes += [size for size in sizes if size not in reading.unknown_sizes]
                spans.append(match.span())
        # "gibt es die gelbe auch in XXL?" where the shop has no XXL: a letter size, with no word for size before it
        known = {fold(size).upper() for size in self.rules.sizes}
        for match in _LETTER_SIZE.finditer(text.rest):
            if (size := match.group(1).upper()) not in known and size not in reading.unknown_sizes:
                reading.unknown_sizes.append(size)
                spans.append(match.span(1))
        return spans

    def _refs(self, text: _Text) -> tuple[list[int], bool]:
        """The positions pointed at, and whether one is pointed at unmistakably ("the second
        one", "die zweite?", "number 3") rather than an ordinal that may describe ("my first flat")."""
        found: list[tuple[int, int]] = []
        pointer = False
        for match in list(ph.BOTH.finditer(text.rest)):
            text.cut(*match.span())
            if ph.PRICED_FOR_BOTH.search(text.original[: text.original_start(match.start())]):
                continue  # "max 40 euro both": the budget for the two, no pointer at the two shown
            found += [(match.start(), 1), (match.start() + 1, 2)]
            pointer = True
        for match in text.take(ph.NUMBERED):
            found.append((match.start(), int(match.group(1) or match.group(2))))
            pointer = True
        rest = text.rest
        for index, pattern in ph.ORDINALS:
            for match in list(pattern.finditer(rest)):
                before, after = rest[: match.start()], rest[match.end() :]
                pointing = bool(ph.POINTER_AFTER.match(after)) or (
                    bool(ph.POINTER_BEFORE.search(before))
                    and (
                        not re.match(r"\s*[^\W\d_]", after)
                        or ph.LEADING_ARTICLE.fullmatch(before) is not None
                        or ph.COURTESY_AFTER.match(after) is not None
                    )
                )
                if index == -1 and not pointing:
                    continue  # "how long does the battery last": a verb, not "the last one"
                found.append((match.start(), index))
                pointer = pointer or pointing
                text.cut(*match.span())
        return list(dict.fromkeys(index for _, index in sorted(found))), pointer


def _restore_refs(message: str, reading: Reading) -> tuple[list[str], str]:
    """The words and query of the message again, with the ordinals left in place."""
    text = _Text(message)
    for pattern in (ph.REQUEST_FILLERS, ph.GREETING, ph.THANKS):
        text.take(pattern)
    wanted = set(reading.words)
    # A token is kept by any of its words ("chef's" by "chef", as `describing` reads it).
    tokens = [
        t
        for t in TOKEN.findall(text.remaining_original())
        if wanted.intersection(map(fold, WORD.findall(t))) or any(o.fullmatch(fold(t)) for _, o in ph.ORDINALS)
    ]
    return describing(tokens)


def _alternation(words: Mapping[str, str]) -> re.Pattern[str]:
    """Any of the words, as a whole word, captured in group 1."""
    return re.compile(rf"(?<![^\W_])({_alternatives(words)})(?![^\W_])")


def _alternatives(words: Mapping[str, str]) -> str:
    """Any of the words as an ungrouped regex body, longest first so the longest match wins."""
    parts = sorted(words, key=len, reverse=True)
    return "|".join(re.escape(w).replace(r"\ ", r"\s*").replace(r"\.", r"[.,]") for w in parts)


# A unit's words in the customers' languages (folded), for sizes the shop writes with the unit's sign
_UNIT_WORDS = {
    "m": ("meter", "meters", "metre", "metres", "metros"),
    "cm": ("centimeter", "centimeters", "centimetre", "centimetres", "zentimeter"),
    "mm": ("millimeter", "millimeters", "millimetre", "millimetres"),
    "l": ("liter", "liters", "litre", "litres"),
    "ml": ("milliliter", "milliliters", "millilitre", "millilitres"),
    "kg": ("kilo", "kilos", "kilogram", "kilograms", "kilogramm", "kilogramme", "kilogrammes"),
    "g": ("gram", "grams", "gramm", "gramme", "grammes"),
}


def _squeeze(raw: str) -> str:
    """A matched colour or size as its key: single spaces, "24cm" -> "24 cm", "1,5 l" -> "1.5 l"."""
    text = re.sub(r"(\d)[,](\d)", r"\1.\2", raw.strip())
    text = re.sub(r"(\d)\s*([a-z])", r"\1 \2", text)
    return " ".join(text.split())


def _rounded(value: Decimal) -> Decimal:
    """A bound to the cent, without trailing zeros: 54, 49.5."""
    return value.quantize(_CENT)


# A clothing size of letters said after "in" ("in XXL", "en 3XL", "auch in XS"), whatever sizes the shop has
_LETTER_SIZE = re.compile(r"\b(?:in|en|auf)\s+((?:x{1,4}|[2-5]x)[sl])\b(?![\w-])")


def _money(raw: str | None) -> Decimal | None:
    value = pw.money(raw)
    return value if value is not None and 0 <= value < MAX_PRICE else None
