"""The Gemini embedding adapter with the real google-genai SDK against a local fake server."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import AsyncIterator

import anyio
import numpy as np
import pytest

from shopagent.adapters.gemini.embeddings import GeminiEmbedder
from shopagent.domain.errors import ConfigError, EmbeddingError
from tests.fake_gemini import FakeGemini, error, running_fake_gemini

pytestmark = pytest.mark.anyio


@contextlib.asynccontextmanager
async def gemini(**options) -> AsyncIterator[tuple[FakeGemini, GeminiEmbedder]]:
    async with running_fake_gemini() as fake:
        model = GeminiEmbedder("test-key", dimensions=8, base_url=fake.base_url, **options)
        try:
            yield fake, model
        finally:
            await model.aclose()


async def test_documents_are_embedded_in_batches_under_the_api_limit_and_normalised():
    async with gemini() as (fake, model):
        vectors = await model.embed_documents([f"text {n}" for n in range(150)])
    assert vectors.shape == (150, 8)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert [len(body["requests"]) for _, body in fake.requests] == [100, 50]
    path, body = fake.requests[0]
    assert path.endswith("/models/gemini-embedding-001:batchEmbedContents")
    first = body["requests"][0]
    assert first["taskType"] == "RETRIEVAL_DOCUMENT"
    assert first["outputDimensionality"] == 8
    assert first["content"]["parts"][0]["text"] == "text 0"


async def test_a_query_uses_the_query_task_type():
    async with gemini() as (fake, model):
        vector = await model.embed_query("winter boots")
    assert vector.shape == (8,)
    assert fake.requests[0][1]["requests"][0]["taskType"] == "RETRIEVAL_QUERY"


async def test_rate_limiting_is_retried_then_succeeds():
    async with gemini() as (fake, model):
        fake.script = [error(429, "Resource has been exhausted", "RESOURCE_EXHAUSTED")] * 2
        vectors = await model.embed_documents(["a", "b"])
    assert vectors.shape == (2, 8)
    assert len(fake.requests) == 3


async def test_the_servers_retry_delay_is_honoured_over_the_backoff(retry_waits: list[float]):
    hint = [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1.5s"}]
    async with gemini(backoff_seconds=30, backoff_max_seconds=30) as (fake, model):
        fake.script = [error(429, "Quota exceeded.", "RESOURCE_EXHAUSTED", hint)]
        await model.embed_query("winter boots")
    assert retry_waits == [1.5]


async def test_a_retry_delay_above_the_maximum_backoff_is_capped(retry_waits: list[float]):
    hint = [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "3600s"}]
    async with gemini(backoff_max_seconds=7) as (fake, model):
        fake.script = [error(429, "Quota exceeded.", "RESOURCE_EXHAUSTED", hint)]
        await model.embed_query("winter boots")
    assert retry_waits == [7]


async def test_a_persistent_server_error_becomes_an_embedding_error_after_the_attempts():
    async with gemini(max_attempts=3) as (fake, model):
        fake.script = [error(503, "The model is overloaded", "UNAVAILABLE")] * 10
        with pytest.raises(EmbeddingError, match="503 UNAVAILABLE: The model is overloaded"):
            await model.embed_documents(["a"])
    assert len(fake.requests) == 3


async def test_a_rejected_key_is_a_configuration_error_and_is_not_retried():
    async with gemini() as (fake, model):
        fake.script = [error(400, "API key not valid. Please pass a valid API key.", "INVALID_ARGUMENT")]
        with pytest.raises(ConfigError, match="GEMINI_API_KEY"):
            await model.embed_documents(["a"])
    assert len(fake.requests) == 1


async def test_a_server_that_does_not_answer_in_time_is_retried_then_an_embedding_error():
    async with gemini(max_attempts=2, timeout_seconds=0.2) as (fake, model):
        fake.delay = 5
        with anyio.fail_after(10), pytest.raises(EmbeddingError, match=r"could not be reached: .*Timeout"):
            await model.embed_query("winter boots")
    assert len(fake.requests) == 2


async def test_an_unreachable_server_is_an_embedding_error_not_a_transport_exception():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there any more
    model = GeminiEmbedder("test-key", dimensions=8, base_url=f"http://127.0.0.1:{port}/", max_attempts=2)
    try:
        with anyio.fail_after(10), pytest.raises(EmbeddingError, match="could not be reached: ConnectError"):
            await model.embed_query("winter boots")
    finally:
        await model.aclose()
