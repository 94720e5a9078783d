"""The real words of a language, for telling a misspelling from a word the catalog does not use.

Each list (`words/<language>.txt.gz`, made by scripts/build_wordlists.py from pyspellchecker's
lists; see NOTICE) holds folded words, one per line, sorted by their UTF-8 bytes. A list is
kept as that one block of bytes plus the offset of each line, and looked up by bisection:
a few MiB per language and a few milliseconds to load, where a set of Python strings would
take tens of MiB and a second.
"""

from __future__ import annotations

import gzip
import logging
from bisect import bisect_left
from collections.abc import Iterable
from functools import cache
from importlib import resources

import numpy as np

log = logging.getLogger(__name__)

# The shop's customers may write in any of these whatever the store language (the offline
# assistant reads English, German and French).
CUSTOMER_LANGUAGES = ("en", "de", "fr")
_FEMININE_FROM = 5  # letters: "canin" ~ "canine"; not "sho", which "shoe" would make a word


class WordList:
    """One language's words: `word in words` for a folded word."""

    def __init__(self, body: bytes) -> None:
        self._body = body
        ends = np.flatnonzero(np.frombuffer(body, dtype=np.uint8) == ord("\n"))
        # Line n is body[starts[n] : starts[n + 1] - 1] (the last one ends with a newline too).
        self._offsets = np.concatenate(([0], ends + 1)).astype(np.int32)
        self._count = len(ends)

    def __len__(self) -> int:
        return self._count

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str) or not word:
            return False
        key = word.encode()
        at = bisect_left(range(self._count), key, key=self._line)
        return at < self._count and self._line(at) == key

    def _line(self, n: int) -> bytes:
        return self._body[self._offsets[n] : self._offsets[n + 1] - 1]


class KnownWords:
    """The words of several languages at once. French's list has feminine adjectives its masculine ones
    lack ("canine", not "canin"): with French among them, a word of five letters or more whose feminine
    (the word and an "e") French has is a word too, so "royal canin" is never "corrected" to "cabin"."""

    def __init__(self, lists: Iterable[WordList], *, french: WordList | None = None) -> None:
        self._lists = tuple(lists)
        self._french = french

    def __contains__(self, word: object) -> bool:
        if any(word in words for words in self._lists):
            return True
        return (
            self._french is not None
            and isinstance(word, str)
            and len(word) >= _FEMININE_FROM
            and not word.endswith("e")
            and f"{word}e" in self._french
        )

    def __len__(self) -> int:
        return sum(len(words) for words in self._lists)


@cache
def word_list(language: str) -> WordList | None:
    """The shipped list of a language (a BCP 47 tag's primary subtag), None when there is none.
    Loaded once per process: the lists never change while it runs."""
    name = f"{language.split('-')[0].casefold()}.txt.gz"
    path = resources.files(__package__) / "words" / name
    if not path.is_file():
        return None
    return WordList(gzip.decompress(path.read_bytes()))


def known_words(store_language: str) -> KnownWords:
    """The words of the store's language and of the customers' languages (English, German,
    French). A store language without a shipped list is logged once and left out."""
    languages = dict.fromkeys((store_language.split("-")[0].casefold(), *CUSTOMER_LANGUAGES))
    lists = []
    for language in languages:
        found = word_list(language)
        if found is None:
            log.info("no word list for the store language %r: typo correction knows only en, de and fr words", language)
        else:
            lists.append(found)
    return KnownWords(lists, french=word_list("fr"))
