"""Word matching for the search twins: folded words with a crude English stem (plural and
common endings cut) and a short stop-word list. Not PostgreSQL's snowball stemmer, only
enough for a word and its plural to meet; the contract suites assert what both agree on."""

from __future__ import annotations

from dataclasses import dataclass

from shopagent.domain.text import words

_STOP = "a an and are as at be but by for from has have i in is it its me my of on or that the this to was were what"
STOP_WORDS = frozenset([*_STOP.split(), "which", "with", "you", "your"])
_ENDINGS = ("ings", "ing", "ies", "es", "s", "ed")


def stem(word: str) -> str:
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            return word[: -len(ending)]
    return word


@dataclass(frozen=True)
class Words:
    title: frozenset[str]  # stems of the weighted fields (a product's name, category, brand, material)
    body: frozenset[str]  # stems of all of its text, title included


def words_of(title: str, body: str = "") -> Words:
    heading = frozenset(stem(w) for w in words(title) if w not in STOP_WORDS)
    return Words(heading, heading | {stem(w) for w in words(body) if w not in STOP_WORDS})


def term_stem(term: str) -> str | None:
    """The stem a query term is matched on; None for a stop word (or no word at all)."""
    found = [w for w in words(term) if w not in STOP_WORDS]
    return stem(found[0]) if found else None
