"""Gemini embeddings (gemini-embedding-001) through the google-genai SDK.

Documents and queries use the matching task types. Requests stay under the API's batch
limit; 429 and 5xx answers, timeouts (each request has `timeout_seconds`) and transport
failures are retried with the service's backoff (`shopagent.runtime.retry`: exponential with
jitter, the server's suggested delay honoured up to the cap), then reported as EmbeddingError. Vectors of a
reduced dimensionality are not normalised by the API, so we normalise them.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Sequence

import numpy as np
from google import genai
from google.genai import errors, types

from shopagent.adapters.gemini.transport import TRANSPORT_ERRORS, suggested_delay
from shopagent.domain.errors import ConfigError, EmbeddingError
from shopagent.runtime.retry import Backoff, Retryable, retrying

log = logging.getLogger("shopagent.gemini")

BATCH_LIMIT = 100  # texts per batchEmbedContents request


class GeminiEmbedder:
    def __init__(
        self,
        api_key: str,
        *,
        model: str = "gemini-embedding-001",
        dimensions: int = 768,
        base_url: str | None = None,
        max_attempts: int = 5,
        backoff_seconds: float = 1.0,
        backoff_max_seconds: float = 30.0,
        timeout_seconds: float = 30.0,
    ) -> None:
        self._retry = Backoff(base=backoff_seconds, cap=backoff_max_seconds, attempts=max(1, max_attempts))
        options = types.HttpOptions(base_url=base_url, timeout=int(timeout_seconds * 1000))
        self._client = genai.Client(api_key=api_key, http_options=options)
        self._model = model
        self.dimension = dimensions
        self.model_id = f"{model}@{dimensions}"

    async def aclose(self) -> None:
        await self._client.aio.aclose()

    async def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        rows = [
            await self._embed(list(texts[start : start + BATCH_LIMIT]), "RETRIEVAL_DOCUMENT")
            for start in range(0, len(texts), BATCH_LIMIT)
        ]
        return np.concatenate(rows) if rows else np.zeros((0, self.dimension), dtype=np.float32)

    async def embed_query(self, text: str) -> np.ndarray:
        return (await self._embed([text], "RETRIEVAL_QUERY"))[0]

    async def _embed(self, texts: list[str], task: str) -> np.ndarray:
        config = types.EmbedContentConfig(task_type=task, output_dimensionality=self.dimension)
        try:
            response = await retrying(self._retry, functools.partial(self._attempt, texts, config), on_retry=_log_retry)
        except Retryable as failure:
            raise EmbeddingError(failure.problem) from None
        vectors = np.array([e.values for e in response.embeddings or []], dtype=np.float32)
        if vectors.shape != (len(texts), self.dimension):
            raise EmbeddingError(f"Gemini returned embeddings of shape {vectors.shape} for {len(texts)} texts")
        return vectors / np.clip(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12, None)

    async def _attempt(self, texts: list[str], config: types.EmbedContentConfig) -> types.EmbedContentResponse:
        """One request; `Retryable` for a 429, a 5xx, a timeout or a transport failure."""
        try:
            return await self._client.aio.models.embed_content(model=self._model, contents=texts, config=config)
        except errors.APIError as exc:
            if exc.code in (400, 401, 403) and _looks_like_auth(exc):
                raise ConfigError(f"Gemini rejected the API key (GEMINI_API_KEY): {exc.status}") from None
            problem = f"Gemini embeddings failed: {exc.code} {exc.status}: {exc.message}"
            if exc.code == 429 or (exc.code or 0) >= 500:
                raise Retryable(problem, hint=suggested_delay(exc)) from None
            raise EmbeddingError(problem) from None
        except TRANSPORT_ERRORS as exc:  # a timeout, a refused or broken connection
            raise Retryable(f"Gemini embeddings could not be reached: {type(exc).__name__}") from None


def _log_retry(failure: Retryable, delay: float) -> None:
    log.warning("%s; retrying in %.1fs", failure.problem, delay)


def _looks_like_auth(exc: errors.APIError) -> bool:
    text = f"{exc.status} {exc.message}".lower()
    return exc.code in (401, 403) or "api key" in text or "api_key" in text
