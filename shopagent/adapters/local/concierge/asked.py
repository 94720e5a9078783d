"""What a question asks of a product: the properties it names ("is the filter loud?" -> loud,
and the words that say it: db, noise, quiet) and the specs whose names answer it ("how bright is
it?" -> lumens)."""

from __future__ import annotations

from typing import Any

from shopagent.adapters.local.concierge.phrases import PROPERTIES, QUESTION_IMPLIES, STOPWORDS
from shopagent.adapters.local.concierge.text import stem
from shopagent.domain.options import fold
from shopagent.domain.text import words

IMPLIES = {stem(fold(k)): {stem(w) for w in words(v)} for k, v in QUESTION_IMPLIES.items()}
_PROPERTIES = {stem(w) for w in PROPERTIES.split()}
_HOW_LONG = {stem(w) for w in ("last", "lasts", "halt", "reicht", "dure", "tient")}


def properties_named(asked: set[str]) -> set[str]:
    """The properties a question (its stems) asks of a product ("is the filter loud?" -> loud)
    and the words that name them (loud -> db, noise, quiet, watts); empty when it asks none."""
    properties = asked & _PROPERTIES
    return properties | {x for w in properties for x in IMPLIES.get(w, set())}


def specs_about(question: str, d: dict[str, Any]) -> list[str]:
    """The product's specs (as read: "capacity 1000 ml") whose names the question's words or the
    words it implies name ("how bright is it?" -> lumens)."""
    asked = {stem(w) for w in words(question) if w not in STOPWORDS}
    # "is the filter loud?": a spec must name loudness, not the filter
    asked = properties_named(asked) or asked | {x for w in asked for x in IMPLIES.get(w, set())}
    if asked & _HOW_LONG:  # "how long does one last?" asks for a time, not a length
        asked -= {stem("length")}
    texts = d.get("specText") or []
    # a spec named by a word any such name has ("safe", "free") alone is not the one asked: "is it safe
    # for puppies?" is not "dishwasher safe", "is it kink-free?" not "phthalate free"
    return [
        text for name, text in zip(d.get("specs", {}), texts, strict=False)
        if {stem(w) for w in name.split("_") if len(w) > 2} & asked - _SPEC_QUALIFIERS
    ]  # fmt: skip


_SPEC_QUALIFIERS = {stem(w) for w in ("safe", "free", "proof", "friendly", "resistant", "included", "max", "min")}
