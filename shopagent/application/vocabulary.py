"""The catalog's words as the search reads them, kept fresh."""

from __future__ import annotations

import time
from collections.abc import Container

from shopagent.application.ports import SearchIndex
from shopagent.domain.text import CatalogWords
from shopagent.domain.vocabulary import EMPTY_VOCABULARY, NO_SYNONYMS, Synonyms, Vocabulary


class CatalogVocabulary:
    """The catalog's words (`Vocabulary`), read from the index and re-read when older than
    `refresh_seconds`; a failed read leaves the old copy and is tried again next time.
    `keep_search_fresh` re-reads it in the background before then, so no search waits for it."""

    def __init__(
        self,
        index: SearchIndex,
        refresh_seconds: float,
        real_words: Container[str] = frozenset(),
        synonyms: Synonyms = NO_SYNONYMS,
    ) -> None:
        self._index = index
        self._refresh = refresh_seconds
        self._real_words = real_words
        self._synonyms = synonyms
        self._vocabulary = EMPTY_VOCABULARY
        self._read_at: float | None = None

    async def __call__(self) -> Vocabulary:
        now = time.monotonic()
        if self._read_at is None or now - self._read_at >= self._refresh:
            previous, self._read_at = self._read_at, now  # others meanwhile use the copy they have
            try:
                words = await self._index.vocabulary(self._synonyms.phrases())
            except BaseException:
                self._read_at = previous
                raise
            self._vocabulary = self._of(words)
        return self._vocabulary

    async def refresh(self) -> None:
        """Read the words again now."""
        self._vocabulary = self._of(await self._index.vocabulary(self._synonyms.phrases()))
        self._read_at = time.monotonic()

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
        )
