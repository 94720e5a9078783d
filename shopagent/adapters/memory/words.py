"""Word matching for the search twins: folded words with a crude English stem (plural and
common endings cut) and PostgreSQL's English stop words. Not PostgreSQL's snowball stemmer, only
enough for a word and its plural to meet; the contract suites assert what both agree on."""

from __future__ import annotations

from dataclasses import dataclass

from shopagent.domain.text import words

# The English stop words of PostgreSQL's snowball configuration (english.stop).
_STOP = """i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her
hers herself it its itself they them their theirs themselves what which who whom this that these those am is are
was were be been being have has had having do does did doing a an the and but if or because as until while of at
by for with about against between into through during before after above below to from up down in out on off over
under again further then once here there when where why how all any both each few more most other some such no nor
not only own same so than too very s t can will just don should now"""
STOP_WORDS = frozenset(_STOP.split())
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
