"""How shoppers state a price in their words, in English, German and French: "under 60", "max
200€", "bis 20 €", "moins de 15 €", "between 50 and 100", "around 80".

The patterns work on folded text (`shopagent.domain.options.fold`: lower case, accents removed).
The offline assistant reads a message's prices with them into a search's price filters; the
search reads a ceiling stated in its query text (`price_ceiling`) so that a product dearer than
that is never graded a strong match.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from shopagent.domain.options import fold

_NUMBER = r"(\d{1,6}(?:[.,]\d{1,2})?)"
_CURRENCY = r"(?:€|\$|£|eur\b|euros?\b|bucks\b|dollars?\b|pounds?\b|quid\b|chf\b|usd\b|gbp\b)"
# Not a price when a unit follows: "bis 28 cm", "unter 2 l", "set of 4", "more than 2 minutes",
# "over 10 years", "for a 10kg dog", "at least 2 m long".
_UNITS = (
    r"cm|mm|ml|cl|m|l|liter|litre|liters|litres|kg|g|lbs?|er|%|x|personen|people|pers|"
    r"min|mins|minutes?|minuten|h|hrs?|hours?|stunden?|heures?|days?|tage?n?|jours?|weeks?|wochen|semaines?|"
    r"months?|monate?n?|mois|years?|yrs?|jahre?n?|ans?|"
    r"dogs?|cats?|hunde?|katzen?|chiens?|chats?|kids?|children|kinder|enfants|pieces?|pcs|stuck|"
    r"inch(?:es)?|zoll|gb|tb|mah|w|v|hz|lumens?|lm|kilos?|degrees?|grad|km|kms|kilometres?|kilometers?|"
    r"metres?|meters?|miles?|mph|kmh|c|f|"
    # an area: "for about 200 m2", "für ca 200qm", "pour environ 300 m²"
    r"m2|m\u00b2|qm|sqm|sq\s?m|sq\s?ft|ft2|square|quadratmeter|metres? carres?|metre carre"
)
_NOT_UNIT = rf"(?![\d]|[.,]\d)(?!\s*(?:(?:{_UNITS})\b|°))"  # the whole number, then no unit
AMOUNT = rf"(?:{_CURRENCY}\s*)?{_NUMBER}{_NOT_UNIT}\s*(?:{_CURRENCY})?"
# Not spending more than an amount is a ceiling: "dont wanna spend more than 40", "don't want to pay over
# 50", "it shouldn't cost more than 50", "nothing over 60", "je ne veux pas dépasser 80" (not "more than
# 40" alone, a floor; nor "don't mind paying more than 50", "doesn't matter if I go over 300": no limit).
_NOT_MORE = (
    r"(?:do not|don'?t|dont|doesn'?t|won'?t|wont|will not|not|never|can'?t|cant|cannot|rather not|"
    r"should ?n'?t|should not|must ?n'?t|must not)\s+"
    r"(?:(?:really|usually|normally|generally|typically|ever|even|want|wanna|wish|plan|intend|like|need|to|"
    r"going|gonna|able|be|would|prefer|it|them|that)\s+){0,3}"
    r"(?:spend|spending|pay|paying|go|going|cost|costs|costing)\s+(?:anything\s+|much\s+)?"
    r"(?:more than|over|above|beyond|past)|"
    r"nothing (?:that )?(?:costs? )?(?:over|above|more than|pricier than|dearer than)|"
    r"(?:(?:je )?(?:ne )?(?:veux|voudrais|souhaite) )?(?:pas|sans) (?:d(?:e|é)passer|payer plus de|mettre plus de)"
)
_MAX_WORDS = (
    rf"{_NOT_MORE}|(?:happy|willing|prepared|able|ready|glad) to (?:pay|spend) (?:up to|max(?:imum)?|at most)|"
    r"under|below|less than|cheaper than|up to|at most|no more than|not more than|not over|max(?:imum)?|"
    r"within|budget(?: of| is)?|for less than|beneath|"
    r"unter|unterhalb von|bis(?: zu)?|bis max(?:imal)?|maximal|hochstens|hoechstens|weniger als|"
    r"g(?:u|ue)nstigere?s? als|billigere?s? als|nicht mehr als|nicht uber|"
    r"moins de|moins que|moins chere?s? que|jusqu'a|au maximum|au max|maxi(?:mum)?|pas plus de|en dessous de|"
    r"en-dessous de|inferieur a|sous|a moins de|budget de|pour moins de"
)
_MIN_WORDS = (
    r"over|above|more than|at least|starting at|from|min(?:imum)?|upwards of|"
    r"uber|ueber|ab|mindestens|mehr als|"
    r"plus de|au moins|a partir de|superieur a|au-dessus de|au dessus de"
)
_TO = r"\s*(?:and|to|-|\u2013|\u2014|und|bis|et|a)\s*"
_DASH = r"\s*(?:-|\u2013|\u2014|to|bis|a)\s*"
# A range: "between 50 and 100", "€20 to €40", "20-40 eur", "budget 2000-2500" (a bare
# "2000-2500" with no word for money around it may be a model number, and is not read).
BETWEEN = re.compile(
    rf"\b(?:between|from|zwischen|von|entre|de)\s+{AMOUNT}{_TO}{AMOUNT}"
    rf"|{_CURRENCY}\s*{_NUMBER}{_DASH}{_CURRENCY}?\s*{_NUMBER}{_NOT_UNIT}"
    rf"|\b{_NUMBER}{_DASH}{_NUMBER}\s*{_CURRENCY}"
    rf"|\b(?:budget|price range|prices?|preis|preisrahmen|prix)\s*(?:of|is|:|von|de)?\s*"
    rf"{_NUMBER}{_DASH}{_NUMBER}{_NOT_UNIT}"
)
# "around 100", "so um die 70", "environ 90 €", "around 60-80", "budget maybe 50": a price with a tolerance
# (AROUND_TOLERANCE of one amount, AROUND_RANGE_TOLERANCE beyond the ends of a range).
AROUND = re.compile(
    r"\b(?:around|about|roughly|approximately|approx\.?|circa|ca\.?|something like|"
    r"budget(?: is| of)? (?:maybe|perhaps|probably)|budget (?:vielleicht|etwa)|budget (?:de )?peut-etre|"
    r"(?:so )?um die|ungef(?:a|ae)hr|etwa|rund|"
    r"environ|autour de|a peu pres|aux alentours de)\s*"
    rf"{AMOUNT}(?:{_DASH}{AMOUNT})?"
)
# A budget for everything together ("Budget insgesamt ca. 200 €", "about 150 in total", "max 50 euro for everything",
# "environ 100 € au total"): one thing of it may cost anything up to it, none has to cost near it.
TOTAL = re.compile(
    r"\b(?:in total|total budget|altogether|all together|all in|for everything|for all of it|for the lot|"
    r"insgesamt|alles zusammen|zusammen|fur alles|gesamtbudget|au total|en tout|pour le tout|pour tout)\b"
)
# A ceiling word before "around …" ("bis etwa 150 Euro", "up to about 80", "jusqu'à environ 100"): the amount is
# the most, as said (an amount worked out from it, "under €27.50" for "bis etwa 25", would be said back as the
# shopper's), and sets no floor.
_CEILING_BEFORE = re.compile(
    r"\b(?:up to|under|below|less than|no more than|not more than|max(?:imum)?|at most|"
    r"bis(?: zu)?|unter|maximal|hochstens|hoechstens|weniger als|nicht mehr als|"
    r"jusqu'a|moins de|au maximum|au max|pas plus de|en dessous de|a moins de)\s+$"
)


def ceiling_before(folded: str, found: re.Match[str]) -> bool:
    """Whether an "around …" price match is said as a most ("bis etwa 150"), not as a price to be near."""
    return _CEILING_BEFORE.search(folded, 0, found.start()) is not None


AROUND_TOLERANCE = Decimal("0.2")
AROUND_RANGE_TOLERANCE = Decimal("0.1")
_TOO_MUCH = r"\s+(?:is|'s|would be|seems)\s+(?:too much|too expensive|too pricey|too dear|a lot)"
MAX_PRICE = re.compile(
    # (not "44 max 120€": the size, then the price "max 120€")
    rf"(?<!nothing )\b(?:{_MAX_WORDS})\s+{AMOUNT}|{AMOUNT}\s*(?:max(?:imum)?|maxi|tops|hochstens)\b(?!\s*[€$£]?\s*\d)"
    rf"|<\s*{AMOUNT}"
    rf"|\b(?:over|above|more than)\s+{AMOUNT}(?={_TOO_MUCH})"  # "over 50 is too much"
)
MIN_PRICE = re.compile(
    rf"\b(?:{_MIN_WORDS}|nothing (?:under|below|less than|cheaper than))\s+{AMOUNT}"  # "nothing under 20"
    rf"|{AMOUNT}\s*(?:minimum|mini)\b|>\s*{AMOUNT}"
)


# Who a thing is for, said before an amount with no currency: an age, no price ("for children between 6 and 9",
# "toys for kids under 5", "Spiele für Kinder ab 8", "un cadeau pour un garçon de plus de 10", "younger siblings
# (around 2)").
_AGED = re.compile(
    r"(?:\b(?:children|childrens|child|kids?|toddlers?|boys?|girls?|babies|baby|ages?|aged|olds?|"
    r"kinder|kindern|kind|jungen?|madchen|maedchen|alter|enfants?|garcons?|filles?|bebes?)(?:\s+|\s*\()"
    # (kin in brackets: "younger siblings (around 2)"; not "a gift for my sister around 50", a budget)
    r"|\b(?:siblings?|brothers?|sisters?|grandchildren|grandkids|nieces?|nephews?|geschwister|freres?|soeurs?)\s*\()"
    r"(?:(?:aged|ages?|from|of|im alter von|de)\s+)?$"
)


def prices_in(pattern: re.Pattern[str], folded: str) -> list[re.Match[str]]:
    """The matches of a price pattern in (folded) words, without those that are an age: right after a word for
    a child or an age, with no currency said ("for children between 6 and 9")."""
    return [
        found
        for found in pattern.finditer(folded)
        if re.search(_CURRENCY, found.group(0)) or not _AGED.search(folded, 0, found.start())
    ]


def money(raw: str | None) -> Decimal | None:
    """An amount as written ("24,90", "60") as a Decimal; None for none."""
    if raw is None:
        return None
    try:
        return Decimal(raw.replace(",", "."))
    except InvalidOperation:  # the patterns admit digits only; a guard, not a path
        return None


def price_ceiling(text: str) -> Decimal | None:
    """The highest price a shopper's words allow ("under 60", "max 200€", "up to 25€", "bis 20 €",
    "moins de 15 €", "between 50 and 100": 100, "around 80": 80 and a fifth), or None where they
    state none. A number with a unit after it is no price ("under 2 kg", "set of 4")."""
    folded = fold(text.replace("\u2019", "'"))
    if found := next(iter(prices_in(AROUND, folded)), None):
        amounts = sorted(a for a in (money(g) for g in found.groups() if g) if a is not None)
        if amounts and ceiling_before(folded, found):  # "bis etwa 150": a most, as said
            return amounts[-1]
        if amounts:
            slack = AROUND_TOLERANCE if amounts[0] == amounts[-1] else AROUND_RANGE_TOLERANCE
            return amounts[-1] * (1 + slack)
    if found := next(iter(prices_in(BETWEEN, folded)), None):
        amounts = sorted(a for a in (money(g) for g in found.groups() if g) if a is not None)
        if len(amounts) == 2:
            return amounts[-1]
    if found := next(iter(prices_in(MAX_PRICE, folded)), None):
        return money(next(g for g in found.groups() if g))
    return None


def price_phrase_words(text: str) -> frozenset[str]:
    """The words of the phrases saying a price ("max", "200" and "eur" of "navy blazer L max 200 eur"; "unter"
    of "unter 30 €"): none of them says what the thing is."""
    folded = fold(text.replace("\u2019", "'"))
    patterns = (AROUND, BETWEEN, MAX_PRICE, MIN_PRICE)
    spans = [found.group(0) for pattern in patterns for found in prices_in(pattern, folded)]
    return frozenset(w for span in spans for w in re.findall(r"\w+", span))
