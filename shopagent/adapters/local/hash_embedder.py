"""A deterministic bag-of-words hash embedder: fast and dependency-free, with no notion of
meaning beyond shared words. For tests and benchmarks; it also works offline as a stub."""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence

import numpy as np

_WORD = re.compile(r"\w+")


class HashEmbedder:
    def __init__(self, dimension: int = 384) -> None:
        self.dimension = dimension
        self.model_id = f"hash-{dimension}"
        self.calls = 0  # embedding calls made (tests count them)
        self.texts_embedded = 0

    def vector(self, text: str) -> np.ndarray:
        hashes = np.fromiter((zlib.crc32(word.encode()) for word in _WORD.findall(text.casefold())), dtype=np.int64)
        vector = np.zeros(self.dimension, dtype=np.float32)
        if hashes.size == 0:
            vector[0] = 1.0
            return vector
        signs = np.where(hashes & 1, 1.0, -1.0).astype(np.float32)
        np.add.at(vector, (hashes >> 1) % self.dimension, signs)
        norm = np.linalg.norm(vector)
        if norm == 0:  # the words cancelled out
            vector[0] = 1.0
            return vector
        return vector / norm

    async def aclose(self) -> None:
        """Nothing to release; here for the EmbeddingModel port."""

    async def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        self.texts_embedded += len(texts)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([self.vector(t) for t in texts])

    async def embed_query(self, text: str) -> np.ndarray:
        return self.vector(text)
