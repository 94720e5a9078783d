"""The catalog's words as the search reads them, kept fresh."""

from __future__ import annotations

import time
from collections.abc import Container

from shopagent.application.ports import SearchIndex
from shopagent.domain.needs import NO_NEEDS, Needs
from shopagent.domain.pacing import ReadPace
from shopagent.domain.text import CatalogWords
from shopagent.domain.vocabulary import EMPTY_VOCABULARY, NO_SYNONYMS, Synonyms, Vocabulary

_LEAST_GAP = 0.5  # seconds


class CatalogVocabulary:
    """The catalog's words (`Vocabulary`), read from the index and re-read when older than
    `refresh_seconds` (or than forty times as long as its last read took: `ReadPace`); a failed read
    leaves the old copy and is tried again next time. `keep_search_fresh` re-reads it in the background
    before then, so no search waits for it.
    Products indexed in this process (`changed`) make it re-read sooner: by the next search at
    least ten times as long after the last read as that read took (half a second at least), so a
    catalog just imported is searched with its own words, and a busy large one (a read of about a
    second) is not re-read more than a tenth of the time."""

    def __init__(
        self,
        index: SearchIndex,
        refresh_seconds: float,
        real_words: Container[str] = frozenset(),
        synonyms: Synonyms = NO_SYNONYMS,
        needs: Needs = NO_NEEDS,
    ) -> None:
        self._index = index
        self._needs = needs
        self._pace = ReadPace(refresh_seconds)
        self._real_words = real_words
        self._synonyms = synonyms
        self._vocabulary = EMPTY_VOCABULARY
        self._read_at: float | None = None
        self._changed = False
        self._gap = _LEAST_GAP  # how long after a read a change may make the next search read again

    def changed(self) -> None:
        """Products were indexed: the words may be others now."""
        self._changed = True

    async def __call__(self) -> Vocabulary:
        now = time.monotonic()
        age = None if self._read_at is None else now - self._read_at
        if age is None or self._pace.stale(age) or (self._changed and age >= self._gap):
            previous, self._read_at = self._read_at, now  # others meanwhile use the copy they have
            changed, self._changed = self._changed, False
            try:
                words = await self._index.vocabulary(self._synonyms.phrases())
            except BaseException:
                self._read_at, self._changed = previous, changed or self._changed
                raise
            self._vocabulary = self._of(words)
            self._read(time.monotonic() - now)
        return self._vocabulary

    async def refresh(self, *, paced: bool = False) -> None:
        """Read the words again now; `paced`: only if the last read is old enough for its pace (the
        background refresh's way, `ReadPace.due`)."""
        started = time.monotonic()
        if paced and self._read_at is not None and not self._pace.due(started - self._read_at):
            return
        self._changed = False
        self._vocabulary = self._of(await self._index.vocabulary(self._synonyms.phrases()))
        self._read_at = time.monotonic()
        self._read(self._read_at - started)

    def _read(self, took: float) -> None:
        self._pace.took = took
        self._gap = max(_LEAST_GAP, 10 * took)

    def _of(self, words: CatalogWords) -> Vocabulary:
        return Vocabulary(
            words.known,
            words.titles,
            self._real_words,
            self._synonyms,
            products=words.products,
            phrases=words.phrases,
            kinds=words.kinds,
            category_words=words.category_words,
            needs=self._needs,
        )
