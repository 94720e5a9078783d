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
    boot, washable ~ washes ~ washed ~ wash, folding ~ fold, dusty ~ dust, batteries ~ battery."""
    for ending in ("able", "ible", "ies", "ing", "ed", "es", "en", "er", "s", "e", "n", "x", "y"):
        if len(word) > len(ending) + 3 and word.endswith(ending):
            return word[: -len(ending)]
    return word


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
