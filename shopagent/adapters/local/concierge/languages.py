"""Which of the concierge's languages a shopper writes in, so the reply is in it.

A German shopper in an English shop is answered in German (the catalog's names and sentences stay
as the catalog has them). Messages are short, so this counts the small words each language cannot
do without ("ich", "ist", "und"; "je", "est", "pour"; "the", "is", "for") and a language's letters
("ß", "é"). A message that tells nothing ("42?", "garantie ?", "Tofu Cat Litter") is in the
language of the shopper's last message that did, else the shop's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from shopagent.adapters.local.wordlists import WordList, word_list
from shopagent.domain.options import fold

# Words of one language only, among these three (not "in", "im", "will", "so", "also", "was", "fur", "grand", "a"),
# spelt as shoppers type them (umlauts written out too).
_WORDS = {
    "en": frozenset({
        "the", "a", "is", "are", "do", "does", "did", "have", "has", "you", "your", "i", "i'm", "my", "it",
        "its", "it's", "for", "with", "and", "or", "what", "whats", "which", "how", "this", "that", "these",
        "those", "any", "some", "need", "want", "looking", "of", "to", "on", "can", "not", "please", "hi", "hello",
        "thanks", "thank", "one", "ones", "too", "much", "many", "there", "about", "from", "cheap", "under", "good",
        "best", "would", "should", "me", "we", "get", "got", "be", "isn't", "doesn't", "don't", "dont",
        "where", "when", "who", "them", "they", "their", "if", "but", "just"
    }),
    "de": frozenset({
        "ich", "ist", "sind", "die", "der", "das", "den", "dem", "ein", "eine", "einen", "einem", "einer", "und",
        "oder", "mit", "für", "fuer", "nicht", "kein", "keine", "keinen", "haben", "habt", "hast", "gibt", "es",
        "auch", "noch", "von", "vom", "zum", "zur", "wie", "welche", "welcher", "welches", "welchen", "wo", "nein",
        "bitte", "danke", "suche", "brauche", "möchte", "moechte", "mochte", "gut", "gute", "guten", "groß",
        "gross", "grosse", "große", "klein", "kleine", "zu", "auf", "aus", "bei", "nach", "über", "ueber", "unter",
        "sie", "wir", "ihr", "mein", "meine", "meinen", "meinem", "dazu", "hallo", "kann", "können", "koennen",
        "soll", "viel", "viele", "teuer", "günstig", "guenstig", "billig", "etwas", "ob", "dass", "wieviel", "wäre",
        "sein", "seine", "euch", "ihnen", "schon", "gern", "gerne", "vorhin", "diese", "dieser", "dieses", "diesen",
        "hätte", "haette", "würde", "wuerde", "lieber", "mehr", "jetzt", "dann", "halt", "mal", "doch", "aber",
        "nur", "wenn", "weil", "ja", "eher", "vielleicht", "sehr", "ganz", "bis", "denn", "nee", "tschüss",
        "tschuess", "moin", "servus", "damen", "herren", "gr"
    }),
    "fr": frozenset({
        "je", "tu", "il", "elle", "ils", "elles", "est", "sont", "le", "la", "les", "un", "une", "des", "du", "de",
        "et", "ou", "en", "avec", "pour", "pas", "ne", "vous", "nous", "avez", "ai", "cest", "que", "qui", "quel",
        "quelle", "quels", "quelles", "combien", "mon", "ma", "mes", "bonjour", "merci", "cherche", "voudrais",
        "besoin", "aussi", "trop", "moins", "dans", "sur", "chez", "au", "aux", "ce", "cette", "ces", "taille",
        "sa", "ses", "celui", "celle", "lequel", "laquelle", "faut", "fait", "peut", "pouvez", "avez-vous",
        "est-ce", "s'il", "plait", "bien", "très", "tres", "cher", "chère", "chere", "svp", "stp", "bcp", "salut",
        "oui", "mais", "si", "ça", "ca", "voilà", "voila", "alors"
    }),
}  # fmt: skip
_LETTERS = {"de": re.compile(r"[ßäöü]"), "fr": re.compile(r"[éèêàâçîôûëïœ]")}
_ELIDED = re.compile(r"(?:c|d|j|l|m|n|qu|s|t)'[^\W\d_]")
_NO = re.compile(r"\bnon\b(?![ -][^\W\d_])")
_WORD = re.compile(r"[^\W\d_]+(?:['\u2019-][^\W\d_]+)*")


def language_of(text: str) -> str | None:
    """The language ("en", "de" or "fr") a message is written in, or None when it does not tell."""
    said = [w.replace("\u2019", "'") for w in _WORD.findall(text.casefold())]
    # ("c'est", "qu'il", "l'heure": French by their elision; their parts are words too)
    parts = [p for w in said for p in w.split("'") if len(p) >= 2]
    scores = {lang: sum(w in vocabulary for w in {*said, *parts}) for lang, vocabulary in _WORDS.items()}
    scores["fr"] += sum(bool(_ELIDED.match(w)) for w in said)
    # "non" alone is French ("non merci", "non, le noir"); before a word it is English too ("non stick pan")
    scores["fr"] += min(1, len(_NO.findall(text.casefold())))
    for lang, letters in _LETTERS.items():
        scores[lang] += min(1, len(letters.findall(text.casefold())))
    best = max(scores, key=lambda lang: scores[lang])
    if scores[best] == 0 or sum(score == scores[best] for score in scores.values()) > 1:
        return _by_dictionary(said) if not any(scores.values()) else None
    return best


_SHORTEST = 7  # shorter words are too often words of several languages, or missing from one ("gilet")
_COMPOUND_PART = 4  # the shortest part of a German compound read as two words ("Blumen|erde")


def _by_dictionary(said: list[str]) -> str | None:
    """The language every word of a message with none of the small words belongs to, of the three
    word lists: "Handtasche", "Gartenschere", "Blumenerde" (a compound of two German words) are
    German; None when a word is in several lists or none ("Tofu Cat Litter" is English too)."""
    found: set[str] = set()
    for word in {fold(w) for w in said if len(w) >= _SHORTEST}:
        langs = {lang for lang in _WORDS if (words := word_list(lang)) is not None and word in words}
        if not langs and (german := word_list("de")) is not None and _compound(word, german):
            langs = {"de"}
        if len(langs) != 1:
            return None
        found |= langs
    return found.pop() if len(found) == 1 else None


def _compound(word: str, words: WordList) -> bool:
    """Whether a word is two words of the list written as one ("rasen" + "sprenger")."""
    ends = range(_COMPOUND_PART, len(word) - _COMPOUND_PART + 1)
    return any(word[:n] in words and word[n:] in words for n in ends)


def shopper_language(messages: Sequence[str], default: str) -> str:
    """The language to answer in: that of the latest of the shopper's `messages` (oldest first) that
    tells one, else `default` (the shop's)."""
    return next((lang for text in reversed(messages) if (lang := language_of(text)) is not None), default)
