"""The offline embedding models: the bundled MiniLM and the hash embedder."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.adapters.local.minilm import RUN_TOKENS, MiniLMEmbedder, _check, runs
from shopagent.domain.errors import EmbeddingError

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


async def test_minilm_gives_unit_vectors_that_put_related_texts_closer(minilm):
    texts = ["warm lined boots for snow and ice", "winter footwear that keeps feet warm", "a light summer dress"]
    vectors = await minilm.embed_documents(texts)
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    similarity = vectors @ vectors.T
    assert similarity[0, 1] > similarity[0, 2] + 0.2


async def test_minilm_query_and_document_embeddings_agree(minilm):
    query = await minilm.embed_query("rain jacket")
    (document,) = await minilm.embed_documents(["rain jacket"])
    assert np.allclose(query, document, atol=1e-5)


async def test_a_long_text_is_truncated_not_refused(minilm):
    (vector,) = await minilm.embed_documents(["boots " * 2000])
    assert vector.shape == (384,)
    assert minilm.count_tokens("boots " * 2000) == 256


async def test_a_batch_of_mixed_lengths_gives_each_text_its_own_vector(minilm):
    # Run in groups of similar length, each padded to its own longest: the same vectors as
    # each text embedded alone, in the order given.
    texts = ["boots", "a " * 200 + "dress", "warm lined winter boots", "boots " * 2000, "a light summer dress " * 5]
    together = await minilm.embed_documents(texts)
    alone = np.stack([await minilm.embed_query(text) for text in texts])
    assert np.allclose(together, alone, atol=1e-5)


def test_model_runs_take_every_text_once_within_the_token_budget():
    lengths = np.array([12, 200, 7, 256, 30, 31, 9, 90, 12, 64] * 4)
    groups = runs(lengths)
    assert sorted(i for group in groups for i in group) == list(range(len(lengths)))
    for group in groups:
        assert len(group) == 1 or len(group) * lengths[group].max() <= RUN_TOKENS


def test_a_model_file_with_the_wrong_checksum_is_refused(tmp_path: Path):
    path = tmp_path / "model.onnx"
    path.write_bytes(b"not the model")
    with pytest.raises(EmbeddingError, match="reinstall the package"):
        _check(path, "0" * 64)


async def test_the_hash_embedder_is_deterministic_and_word_based():
    one, two = HashEmbedder(64), HashEmbedder(64)
    a = await one.embed_query("Red Leather Boots")
    assert np.array_equal(a, await two.embed_query("red leather boots"))
    assert float(a @ await one.embed_query("red leather jacket")) > float(a @ await one.embed_query("blue silk scarf"))
    assert np.isclose(np.linalg.norm(await one.embed_query("")), 1.0)
