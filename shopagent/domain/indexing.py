"""Indexing rules: outbox events and how a product becomes chunks.

Only text that describes the product is embedded: name and category, brand and material,
the description. Price and stock never are: they change often and are filters read fresh
at query time, so editing them costs no embedding work.
"""

from __future__ import annotations

import enum
import hashlib
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import msgspec

from shopagent.domain.catalog import ProductDraft, variation_facts


class EventKind(enum.StrEnum):
    UPSERTED = "product.upserted"
    DELETED = "product.deleted"
    PAGE_UPSERTED = "store_page.upserted"
    PAGE_DELETED = "store_page.deleted"

    @property
    def aggregate(self) -> str:
        """What the event's id names: "product" or "store_page"."""
        return self.value.partition(".")[0]


class OutboxEvent(msgspec.Struct, frozen=True):
    """A claimed outbox event; `attempts` counts its earlier failed attempts. `product_id` is
    the id of the aggregate the kind names: a product's, or a store page's."""

    id: int
    kind: EventKind
    product_id: int
    attempts: int


class Chunk(msgspec.Struct, frozen=True):
    ordinal: int
    kind: str  # "title" | "details" | "description"
    content: str
    content_hash: bytes


# The embedding model ids accepted. An id names its own vector index and reaches SQL as a
# literal in that index's WHERE clause, so only these characters may appear in it.
MODEL_ID = re.compile(r"^[A-Za-z0-9@._:/-]{1,100}$")

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_TOKEN = re.compile(r"\w+|[^\w\s]")


def estimate_wordpiece_tokens(text: str) -> int:
    """The embedding model's tokens in `text`, estimated as its WordPiece tokenizer splits:
    words and punctuation, plus a margin for sub-words. Chunks are cut by it, so it errs high.

    Not `estimate_context_tokens` (domain/conversation.py): that one sizes JSON for a chat
    model's context, where punctuation is cheap and this count would be about twice too high."""
    return math.ceil(len(_TOKEN.findall(text)) * 1.25)


def chunk_product(product: ProductDraft, token_budget: int) -> list[Chunk]:
    """The texts to embed for a product, each within `token_budget` estimated tokens.

    Every chunk starts with the product name, so a description sentence such as "Ideal
    for snowy commutes." still says what it is about when it is matched on its own.
    """
    texts: list[tuple[str, str]] = [("title", f"{product.name}. {product.category}")]
    details = ", ".join(part for part in (product.brand, product.material) if part)
    if details:
        texts.append(("details", f"{product.name}: {details}"))
    if facts := variation_facts(product):
        texts.append(("facts", f"{product.name}: {facts}"))
    prefix = f"{product.name}: "
    for piece in split_sentences(product.description, token_budget - estimate_wordpiece_tokens(prefix)):
        texts.append(("description", prefix + piece))
    return [
        Chunk(ordinal=i, kind=kind, content=content, content_hash=content_hash(kind, content))
        for i, (kind, content) in enumerate(texts)
    ]


def split_sentences(text: str, budget: int) -> list[str]:
    """Group whole sentences into pieces of at most `budget` estimated tokens.

    A single sentence longer than the budget is cut between words.
    """
    budget = max(budget, 8)
    pieces: list[str] = []
    current: list[str] = []
    used = 0
    for sentence in (s.strip() for s in _SENTENCE_END.split(text.strip())):
        if not sentence:
            continue
        for part in _cut_long(sentence, budget):
            cost = estimate_wordpiece_tokens(part)
            if current and used + cost > budget:
                pieces.append(" ".join(current))
                current, used = [], 0
            current.append(part)
            used += cost
    if current:
        pieces.append(" ".join(current))
    return pieces


def _cut_long(sentence: str, budget: int) -> list[str]:
    if estimate_wordpiece_tokens(sentence) <= budget:
        return [sentence]
    parts: list[str] = []
    words: list[str] = []
    for word in sentence.split():
        if words and estimate_wordpiece_tokens(" ".join([*words, word])) > budget:
            parts.append(" ".join(words))
            words = []
        words.append(word)
    if words:
        parts.append(" ".join(words))
    return parts


def content_hash(kind: str, content: str) -> bytes:
    return hashlib.sha256(f"{kind}\n{content}".encode()).digest()


def chunk_set_hash(model: str, chunks: Sequence[Chunk]) -> bytes:
    """Identifies a product's whole chunk set for one model: equal hash, nothing to write."""
    digest = hashlib.sha256(model.encode())
    for chunk in chunks:
        digest.update(chunk.content_hash)
    return digest.digest()


# -- what the indexing ports report (application/ports.py) --------------------------------


class IndexBacklog(msgspec.Struct, frozen=True, rename="camel"):
    pending: int  # waiting to be claimed (due, or backing off after a failure)
    in_flight: int  # claimed by an indexer, not finished
    dead: int  # dead-lettered: `shopagent index status`, `index retry-failed`
    oldest_due_seconds: float = 0.0  # how long the oldest due event (claimable or in flight) has waited


class SaveOutcome(enum.Enum):
    WRITTEN = "written"  # the chunk set was replaced
    UNCHANGED = "unchanged"  # the stored chunk set was already this one
    STALE = "stale"  # the product changed since it was read; its newer event will index it
    GONE = "gone"  # the product no longer exists (its chunks went with it)
    BUSY = "busy"  # another transaction held the product's row: the event was handed back for later


@dataclass(frozen=True)
class IndexCoverage:
    products_indexed: int  # products whose chunks come from the model
    products_total: int
    text_search_config: str  # the configuration full-text documents are written in
    text_documents: dict[str, int]  # products by the configuration of their full-text document


@dataclass(frozen=True)
class VectorIndexSpec:
    """How a model's vector index (HNSW, cosine) is built."""

    m: int = 16
    ef_construction: int = 64
    build_memory_mb: int = 512

    def describe(self) -> str:
        return f"m={self.m}, ef_construction={self.ef_construction}"


@dataclass(frozen=True)
class VectorIndexState:
    ready: bool  # the model's vector index exists and is valid
    settings: str | None  # as VectorIndexSpec.describe() puts it, when ready
    building: str | None = None  # how far a build in progress is, when one is ("loading tuples: 1200 chunks")


class IndexBuild(enum.Enum):
    BUILT = "built"
    EXISTED = "existed"
    BUSY = "busy"  # another process is building it
