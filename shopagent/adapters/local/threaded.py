"""What the local models' embedders share: a batch is embedded in a worker thread, one batch at
a time per model (the models are not made for concurrent calls), off the event loop."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

import anyio
import numpy as np


class ThreadedEmbedder(ABC):
    """The async side of the EmbeddingModel port over a model's synchronous `embed_sync`."""

    def __init__(self, dimension: int) -> None:
        self.dimension = dimension
        self._limiter = anyio.CapacityLimiter(1)

    @abstractmethod
    def embed_sync(self, texts: list[str]) -> np.ndarray:
        """One L2-normalised row per text (runs in a worker thread)."""

    async def aclose(self) -> None:  # noqa: B027 - the port asks for it; a local model holds nothing to close
        """Nothing to release; here for the EmbeddingModel port."""

    async def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        # Abandoned on cancellation: a stop need not wait for the batch (it ends on its own,
        # its result unused; the work is redone from the outbox).
        return await anyio.to_thread.run_sync(
            self.embed_sync, list(texts), limiter=self._limiter, abandon_on_cancel=True
        )

    async def embed_query(self, text: str) -> np.ndarray:
        return (await self.embed_documents([text]))[0]
