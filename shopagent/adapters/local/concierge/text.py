"""Product text as the concierge may show it: sentences, never instructions or markup.

Descriptions are data written by whoever fills the catalog. A sentence that reads like an
instruction to an assistant (in English, German or French), and markup that poses as a role
("<system>…</system>", "[INST]"), is left out wherever product text is quoted.
"""

from __future__ import annotations

import re

from shopagent.adapters.local.concierge.phrases import STOPWORDS
from shopagent.domain.options import fold
from shopagent.domain.text import words

SUMMARY_CHARS = 180

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


# Markup in product text: a role-like element is dropped with its content ("<system>…</system>",
# "[INST]…[/INST]"), a sentence with an unpaired role marker ("<|im_start|>assistant …") is
# dropped whole, and any other tag is dropped with its text kept ("<b>Water-repellent</b>").
_ROLE_ELEMENT = re.compile(
    r"<\s*(system|assistant|user|developer|instructions?|prompt|tool)\b[^>]*>.*?<\s*/\s*\1\s*>"
    r"|\[(INST|SYS|SYSTEM)\].*?\[/\2\]|<<\s*SYS\s*>>.*?<<\s*/SYS\s*>>",
    re.IGNORECASE | re.DOTALL,
)
_ROLE_MARKER = re.compile(
    r"<\|[a-z_]+\|>|\[/?(?:INST|SYS|SYSTEM)\]|<<\s*/?SYS\s*>>"
    r"|<\s*/?\s*(?:system|assistant|user|developer|instructions?|prompt|tool)\b",
    re.IGNORECASE,
)
_TAG = re.compile(r"<\s*/?\s*[A-Za-z_][^<>]{0,60}>")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def clean_sentences(description: str) -> list[str]:
    """The description's sentences that describe the product, markup removed."""
    sentences = _SENTENCE_END.split(" ".join(_ROLE_ELEMENT.sub(" ", description).split()))
    kept = [" ".join(_TAG.sub(" ", s).split()) for s in sentences if not _ROLE_MARKER.search(s)]
    return [s for s in kept if s and not instruction(s)]


def summarise(description: str) -> str:
    """A short summary of product text for the customer: the first sentences that describe
    the product (never ones that read like instructions), capped at SUMMARY_CHARS."""
    kept = clean_sentences(description)
    if not kept:
        return ""
    summary = kept[0]
    if len(summary) > SUMMARY_CHARS:
        cut = summary[:SUMMARY_CHARS].rsplit(" ", 1)[0].rstrip(",;:-")
        summary = cut + "…"
    return summary


def stem(word: str) -> str:
    """A word without a plural or inflection ending, for comparing names and questions: boots ~
    boot, washable ~ washes ~ washed ~ wash, folding ~ fold, dusty ~ dust, batteries ~ battery;
    and a long noun without its "-ment" or "-ness": replaceable ~ replacement ~ replace,
    thickness ~ thick."""
    for ending in ("ments", "ment", "nesses", "ness"):  # "attachments" ~ "attachment" ~ "attach"
        if len(word) > len(ending) + 4 and word.endswith(ending):
            word = word[: -len(ending)]
            break
    # a short word's "-ing" too, where a vowel is left: "hiking" ~ "hike", "boxing" ~ "box" (not "string")
    if len(word) == 6 and word.endswith("ing") and _VOWEL.search(word[:3]):
        return word[:3] + "e" if _SILENT_E_BEFORE.fullmatch(word[:3]) else word[:3]
    if len(word) == 4 and word.endswith("ss"):  # "moss" ~ "mosses", as "dress" ~ "dresses" below
        return word[:-1]
    # a short plural: "dogs" ~ "dog", "toys" ~ "toy" (not "glas", "plus", "does")
    if len(word) == 4 and word.endswith("s") and word[-2] not in "aeiousx" and word not in _NO_PLURALS:
        return word[:-1]
    for ending in ("able", "ible", "ies", "ing", "ed", "es", "en", "er", "s", "e", "n", "x", "y"):
        if len(word) > len(ending) + 3 and word.endswith(ending):
            word = word[: -len(ending)]
            # "replaceable" -> "replace" -> "replac", as "replace" itself
            if ending in ("able", "ible") and len(word) > 4 and word.endswith("e"):
                return word[:-1]
            return word[:-1] if word.endswith("ss") else word  # "dresses" ~ "dressed" ~ "dress", "glasses" ~ "glas"
    return word


_VOWEL = re.compile(r"[aeiouy]")
_NO_PLURALS = frozenset({"hers", "dans", "sans", "aufs", "lots", "news", "lens"})
_SILENT_E_BEFORE = re.compile(r"[^aeiou][aeiou][b-df-hj-np-tvz]")  # "hik(e)", "rid(e)", "cod(e)"; not "box"


def instruction(text: str) -> bool:
    return bool(_INSTRUCTION.search(fold(text)))


def stems_of(text: str) -> set[str]:
    """The stems of a text's words, a number glued to its unit parted ("7kg" -> 7, kg)."""
    found: set[str] = set()
    for word in words(text):
        glued = _GLUED.fullmatch(word)
        found.update(stem(part) for part in (glued.groups() if glued else (word,)))
    return found


_GLUED = re.compile(r"(\d+)([^\W\d_]+)")


def without_name(question: str, name: set[str]) -> str:
    """The question without the words naming the product ("is the linen sundress lined?" -> "is
    the lined?"): what it asks, for closeness of meaning, which the name's words would otherwise
    lend to any sentence naming the product; the whole question when little else is left."""
    kept = [w for w in words(question) if stem(w) not in name]
    return " ".join(kept) if len([w for w in kept if w not in STOPWORDS]) >= 2 else question


# a word of a message, "t-shirt" and "l'été" whole, and a number with its decimals ("1,5 kg")
TOKEN = re.compile(r"\d+(?:[.,]\d+)+(?![\w.,])|[^\W_]+(?:[-'][^\W_]+)*")
WORD = re.compile(r"[^\W_]+")  # a word within a token: "chef's" -> "chef", "s"


def span_of(rest: str, query: str, original: str) -> str:
    """The customer's words from the first word of `query` to its last, as they wrote them in
    `original` ("dress for a wedding" where the query is "dress wedding"), found in `rest` (the
    same message with what was read out of it blanked, so words read as a colour or a price do
    not count as the query's). The query itself when its words are not found in that order."""
    wanted = query.split()
    start = end = None
    for token in TOKEN.finditer(rest):
        if wanted and token.group() == wanted[0]:
            start = token.start() if start is None else start
            end = token.end()
            wanted.pop(0)
    if wanted or start is None or end is None:
        return query
    # (with a word standing for the thing after its last one: "socks, the invisible kind", not "… the invisible";
    # "lock, a strong one")
    if (after := _STANDS_FOR_IT.match(rest, end)) is not None:
        end = after.end()
    # (without a word adding it to what came before, said between its words: "fish food too, for tropical fish" is
    # said back "fish food, for tropical fish", "a bed as well for my cat" "bed for my cat")
    searched = set(query.split())
    return " ".join(_ADDING.sub(lambda m: "" if m.group(1).casefold() not in searched else m.group(0),
                                original[start:end]).split())  # fmt: skip


# ("I need a lock, a strong one" is said back "lock, a strong one", not "lock, a strong")
_STANDS_FOR_IT = re.compile(r"(?i)\s+(?:kind|kinds|type|types|sort|sorts|style|one|ones)\b")
# (ending a phrase: not "not too formal")
_ADDING = re.compile(
    r"(?i)\s+(too|as well|aussi|auch|également|egalement)\b"
    r"(?=\s*(?:[,.;:!?]|$)|\s+(?:for|pour|für|fur|with|avec|mit)\b)"
)


def said_for(said: str, query: str) -> str:
    """`said` (see `span_of`) where it has every word of `query`, else the query."""
    return said if set(query.split()) <= set(TOKEN.findall(said)) else query


def _describes(word: str, stopwords: frozenset[str] = STOPWORDS) -> bool:
    word = word.casefold()
    return (len(word) > 1 or word.isdigit()) and word not in stopwords


def _letter(token: str) -> bool:
    return len(token) == 1 and token.isalpha() and token.casefold() not in STOPWORDS


# "can" is the thing after a word describing it where no verb follows: "a watering can with a rose",
# "watering can please"; not "which jacket can be washed", "can i pay".
_AFTER_A_CAN = frozenset({"", "with", "for", "please", "pls", "and", "or", "that", "in", "under", "from"})


def _a_can(before: str, token: str, after: str) -> bool:
    return token.casefold() == "can" and _describes(before) and after.casefold() in _AFTER_A_CAN


_LINKING = frozenset({"à", "a", "de", "du", "au", "aux"})


def describing(tokens: list[str], stopwords: frozenset[str] = STOPWORDS) -> tuple[list[str], str]:
    """The folded words that describe the item, and the same tokens as the customer wrote them
    (`stopwords`: the message's small words, `phrases.stopwords_of`)."""
    # A lone letter before a word is part of it ("t shirt", "v neck", "e bike", "u lock").
    afters = [*tokens[1:], ""][: len(tokens)]
    befores = ["", *tokens][: len(tokens)]
    kept = [
        (t, _a_can(before, t, after))
        for before, t, after in zip(befores, tokens, afters, strict=True)
        if _describes(t, stopwords)
        or (_letter(t) and after.isalpha() and _describes(after, stopwords))
        or _a_can(before, t, after)
        # the small word inside a French name of a thing, said back and searched with it ("sac à dos",
        # "sac de couchage", "pompe à vélo": the catalog's words for them are of the whole), not a word of its own
        or (t.casefold() in _LINKING and _describes(before, stopwords) and _describes(after, stopwords))
    ]
    folded = [fold(w) for t, can in kept for w in WORD.findall(t) if can or _describes(w, stopwords)]
    return folded, " ".join(t for t, _ in kept)
