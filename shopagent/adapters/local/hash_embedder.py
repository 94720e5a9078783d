"""A deterministic bag-of-words hash embedder: fast and dependency-free, with no notion of
meaning beyond shared words. For tests and benchmarks; it also works offline as a stub."""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence

import numpy as np

_WORD = re.compile(r"\w+")
_MAX_CACHED_WORDS = 100_000


class HashEmbedder:
    def __init__(self, dimension: int = 384) -> None:
        self.dimension = dimension
        self.model_id = f"hash-{dimension}"
        self.calls = 0  # embedding calls made (tests count them)
        self.texts_embedded = 0
        self._slots: dict[str, tuple[int, float]] = {}  # word -> (position, sign)

    def vector(self, text: str) -> np.ndarray:
        return self.vectors([text])[0]

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        """One unit row per text: each word adds ±1 at a position its CRC-32 picks."""
        rows, cols, signs = [], [], []
        slots = self._slots
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.casefold()):
                if (slot := slots.get(word)) is None:
                    if len(slots) >= _MAX_CACHED_WORDS:
                        slots.clear()
                    digest = zlib.crc32(word.encode())
                    slot = slots[word] = ((digest >> 1) % self.dimension, 1.0 if digest & 1 else -1.0)
                rows.append(row)
                cols.append(slot[0])
                signs.append(slot[1])
        matrix = np.zeros((len(texts), self.dimension), dtype=np.float32)
        np.add.at(matrix, (np.asarray(rows, dtype=np.intp), np.asarray(cols, dtype=np.intp)), signs)
        norms = np.linalg.norm(matrix, axis=1)
        empty = norms == 0  # no words, or they cancelled out
        matrix[empty, 0], norms[empty] = 1.0, 1.0
        return matrix / norms[:, None]

    async def aclose(self) -> None:
        """Nothing to release; here for the EmbeddingModel port."""

    async def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        self.texts_embedded += len(texts)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return self.vectors(texts)

    async def embed_query(self, text: str) -> np.ndarray:
        return self.vector(text)
