"""A message asking several things at once ("what film does it use and how much is a pack? is it
easy enough for my 10 year old"): its questions, each with the words around it that are not a
question themselves ("my wife is a lefty" goes with the question before it), so that each is
answered from what answers it (the prices, the stock, the weights or the text)."""

from __future__ import annotations

import re

from shopagent.adapters.local.concierge import asking as ask
from shopagent.adapters.local.concierge.phrases import BUY, QUESTION
from shopagent.domain.options import fold

# Where one sentence ends and another begins; and a second question joined to the first by "and"
# ("what film does it use and how much is a pack?").
_SENTENCE_END = re.compile(r"(?<=[?!.])\s+")
_JOINED = re.compile(
    r"(?:,\s*|\s[-\u2013\u2014]\s*|,?\s+(?:and|und|et|also|plus)\s+)(?=(?:how|what|which|is|are|does|do|can|will|wie|was|welche\w*|ist|"
    r"sind|kann|hat|gibt|wieviel\w*|est-ce|quel\w*|lequel|laquelle|combien|comment|y a-t-il|il y a)\b)"
)
_LOAD = re.compile(  # what a thing carries, not what it weighs: "how much weight does it take?"
    r"\b(?:how much weight|max(?:imum)? (?:weight|load)|weight (?:limit|capacity)|(?:take|hold|carry|support|bear)s? "
    r"(?:up to )?\d+(?:[.,]\d+)? ?kg|belastbar\w*|tragkraft|traglast|charge max\w*|poids max\w*"
    # "will it hold a big heavy tomcat?", "strong enough for a heavy dog?", "hält der auch schwere Katzen?"
    r"|(?:take|hold|carry|support|bear|strong enough|sturdy enough|stable enough|halt|haelt|tragt|traegt|"
    r"stabil genug|supporte|tient|assez solide)\w*\b[^?.!]{0,30}\b(?:heavy|heavier|schwer\w*|lourd\w*))"
)


# A product pointed at by its price: "is [the cheaper] watch waterproof?", "[die günstigere] Uhr", "la bouilloire [la
# moins chère]": which one, not what is asked of it
_POINTED_BY_PRICE = re.compile(
    r"\b(?:the|that|this|die|der|das|den|dem|le|la|les|l')\s+(?:cheaper|cheapest|dearer|dearest|pricier|priciest|"
    r"more expensive|most expensive|g(?:u|ue)nstiger\w*|g(?:u|ue)nstigst\w*|billiger\w*|billigst\w*|teurer\w*|"
    r"teuerst\w*|(?:moins|plus) cher\w*)\b"
)


# ... but which one is the cheapest is its price: "whats the cheapest option of the sets", "which of the toys is
# the cheapest", "welche ist die billigste?"
_WHICH_BY_PRICE = re.compile(
    r"^\W*(?:(?:and|ok|so|und|et)\W+)?(?:what|whats|what's|which|welche\w*|quel\w*|lequel|laquelle)(?:\W+\w+)?\W+"
    + _POINTED_BY_PRICE.pattern
)
_BY_PRICE_LAST = re.compile(_POINTED_BY_PRICE.pattern + r"(?:\W+(?:one|ones|of them|then|please))*\W*$")
# Words that ask nothing of their own beside such a pointer ("and the cheaper one?", "what about the cheapest?")
_ASKED_ALONE = re.compile(
    r"\b(?:and|what|about|then|one|ones|please|pls|is|it|which|one|und|was|ist|mit|welche\w*|et|quoi|celle|celui|"
    r"alors|ok|so|est|lequel|laquelle|lesquel\w*|quel\w*)\b"
)


def kind_of(text: str) -> str:
    """What a question (folded) asks for: "buy", "pick", "weight", "discount", "price", "stock" or "text"."""
    pointed = _POINTED_BY_PRICE.sub(" ", text)
    asked_which = _WHICH_BY_PRICE.search(text) or _BY_PRICE_LAST.search(text)
    if pointed != text and not asked_which and re.search(r"[^\W\d_]{3,}", _ASKED_ALONE.sub(" ", pointed)):
        text = pointed  # ("how much is the cheaper one?" still asks its price: nothing else is asked)
    if BUY.search(text):
        return "buy"
    if ask.PICK.search(text):
        return "pick"
    if ask.WEIGHT.search(text) and not _LOAD.search(text):
        return "weight"
    if ask.DISCOUNT.search(text):
        return "discount"
    if ask.PRICE.search(text) or ask.PRICE_TOTAL.search(text):
        return "price"
    if ask.STOCK.search(text) or ask.COLOURS_OFFERED.search(text):
        return "stock"
    return "text"


def made_in_asked(text: str) -> bool:
    """Whether a (folded) question asks which sizes a product is made in ("what sizes does it come
    in?"), not which are in stock: its only word of stock is "come in"."""
    said = [m.group(0) for m in ask.STOCK.finditer(text)]
    return bool(ask.WHICH_SIZES.search(text)) and all(_COMES_IN.fullmatch(s) for s in said)


_COMES_IN = re.compile(r"(?:come|comes|coming) in")


def questions_of(message: str) -> list[str]:
    """The message's questions, each with the sentences after it that ask nothing themselves."""
    return [" ".join(parts) for parts in _grouped(message)]


def _grouped(message: str) -> list[list[str]]:
    parts: list[str] = []
    for sentence in _SENTENCE_END.split(message.strip()):
        parts += [p for p in _JOINED.split(sentence) if p.strip()]
    grouped: list[list[str]] = []
    for part in parts:
        # A part asking nothing goes with the question before it; one after context ("i'm quite
        # short. whats the inside leg length?") takes that context with it.
        if grouped and not (_asks(part) and any(map(_asks, grouped[-1]))):
            grouped[-1].append(part)
        else:
            grouped.append([part])
    return grouped


def _asks(text: str) -> bool:
    return "?" in text or QUESTION.search(fold(text)) is not None


def by_kind(message: str) -> dict[str, str]:
    """The message's questions gathered by what answers them, in the order asked; one entry, the
    whole message, when they all ask for the same kind of thing."""
    kinds: dict[str, list[str]] = {}
    for parts in _grouped(message):
        # What is asked decides, not the words around it ("they are the same price, which one is
        # more comfortable?" asks no price).
        asking = [p for p in parts if _asks(p)] or parts
        kind = kind_of(fold(" ".join(asking)))
        if kind == "pick" and not ask.PICK.search(fold(" ".join(parts))):
            kind = "text"  # "P27Q vs G24 for office work, which would you take?": which fits that, by their text
        kinds.setdefault(kind, []).append(" ".join(parts))
    # "I'll take the second - is it in stock in M?": what is asked, and then the link to buy it
    buying = [" ".join(parts) for parts in _grouped(message) if BUY.search(fold(" ".join(parts)))]
    if "buy" not in kinds and buying and kinds:
        kinds["buy"] = buying
    if len(kinds) <= 1:
        return {next(iter(kinds), "text"): message}
    return {kind: " ".join(questions) for kind, questions in kinds.items()}


# "what's the difference between the two?", "quelle différence entre …", "Unterschied zwischen …"
# (and as typed in a hurry: "diffrence", "diference", "differance").
_DIFFERENCE = re.compile(
    r"\b(?:difference\w*|differ\w*|dif+e?r[ae]n\w*|unterschied\w*|unterscheide\w*)\b(?:\s+(?:between|zwischen|entre|of))?"
    r"(?:\s+(?:the|them|these|those|both|two|die|den|beiden|zwei|les|deux|la|le|ces))*"
)


def difference_asked(text: str) -> str | None:
    """For a question asking what sets products apart (folded), the words asking it on something
    ("battery life difference" -> "battery life"); None when it asks no difference."""
    for part in _grouped(text):
        for piece in part:
            if (found := _DIFFERENCE.search(piece)) is not None:
                return piece[: found.start()] + " " + piece[found.end() :]
    return None
