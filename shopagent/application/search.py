"""Search use cases: hybrid product search (vector + full text, fused) and product details."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal

import anyio

from shopagent.application.ports import CandidateRow, CatalogRepository, EmbeddingModel, SearchIndex
from shopagent.domain.catalog import CatalogRules, Product
from shopagent.domain.errors import NotFound
from shopagent.domain.ranking import Evidence, FusionWeights, GradeThresholds, Match, fuse, rank
from shopagent.domain.search import (
    DEFAULT_LIMIT,
    ProductDetails,
    ProductHit,
    SearchRequest,
    SearchResult,
    VariationDetails,
    validate_search,
)
from shopagent.domain.text import EMPTY_VOCABULARY, Vocabulary, descriptive, fold
from shopagent.domain.tools import SEARCH_TOOL


class CatalogVocabulary:
    """The catalog's words (`Vocabulary`), read from the index and re-read when older than
    `refresh_seconds`; a failed read leaves the old copy and is tried again next time.
    `keep_search_fresh` re-reads it in the background before then, so no search waits for it."""

    def __init__(self, index: SearchIndex, refresh_seconds: float) -> None:
        self._index = index
        self._refresh = refresh_seconds
        self._vocabulary = EMPTY_VOCABULARY
        self._read_at: float | None = None

    async def __call__(self) -> Vocabulary:
        now = time.monotonic()
        if self._read_at is None or now - self._read_at >= self._refresh:
            previous, self._read_at = self._read_at, now  # others meanwhile use the copy they have
            try:
                known, targets = await self._index.vocabulary()
            except BaseException:
                self._read_at = previous
                raise
            self._vocabulary = Vocabulary(known, targets)
        return self._vocabulary

    async def refresh(self) -> None:
        """Read the words again now."""
        known, targets = await self._index.vocabulary()
        self._vocabulary, self._read_at = Vocabulary(known, targets), time.monotonic()


@dataclass(frozen=True)
class SearchPolicy:
    weights: FusionWeights = field(default_factory=FusionWeights)
    grades: GradeThresholds = field(default_factory=GradeThresholds)
    depth: int = 10  # candidates taken from each leg (at least the limit)
    vocabulary_refresh_seconds: float = 60.0  # how stale the typo-correction vocabulary may get


class CatalogSearch:
    def __init__(
        self,
        embedder: EmbeddingModel,
        index: SearchIndex,
        catalog: CatalogRepository,
        rules: CatalogRules,
        policy: SearchPolicy | None = None,
    ) -> None:
        self._embedder = embedder
        self._index = index
        self._catalog = catalog
        self.rules = rules
        self.policy = policy or SearchPolicy()
        self._vocabulary = CatalogVocabulary(index, self.policy.vocabulary_refresh_seconds)
        self._filter_words = frozenset(fold(w) for w in (*rules.colors, *rules.color_aliases, *rules.sizes))

    def request(
        self,
        query: str,
        limit: int = DEFAULT_LIMIT,
        *,
        colors: list[str] | None = None,
        sizes: list[str] | None = None,
        min_price: Decimal | None = None,
        max_price: Decimal | None = None,
        in_stock: bool = False,
    ) -> SearchRequest:
        """Validate raw arguments (raises ValidationError with an actionable message)."""
        return validate_search(query, limit, colors or [], sizes or [], min_price, max_price, in_stock, self.rules)

    async def search(self, request: SearchRequest, weights: FusionWeights | None = None) -> SearchResult:
        """The products that best match the query within the filters, best first, graded.

        `weights` overrides the configured fusion (`VECTOR_ONLY` / `LEXICAL_ONLY` run one leg).
        """
        weights = weights or self.policy.weights
        use_vector, use_lexical = weights.legs
        terms = (await self.vocabulary()).terms(request.query)
        vector = None
        if use_vector:
            vector = await self._embedder.embed_query(terms.corrected_text(request.query))
        found = await self._index.candidates(
            vector,
            self._embedder.model_id,
            self._embedder.dimension,
            terms.terms,
            request.filters,
            max(self.policy.depth, request.limit),
            request.limit,
            lexical=use_lexical,
        )
        scores = fuse(found.vector, found.lexical, weights)
        # The words that describe the item: numbers, colours and sizes are filters' business.
        wanted = {n for n in found.content_terms if descriptive(terms.terms[n], self._filter_words)}
        evidence = {pid: _evidence(row, wanted) for pid, row in found.rows.items()}
        ranked = rank(scores, evidence, self.policy.grades, request.limit)
        products = [_hit(found.rows[r.product_id], r.match) for r in ranked]
        return SearchResult(
            products=products,
            best_match=products[0].match if products else None,
            no_strong_match=not any(p.match == Match.STRONG for p in products),
            corrections=dict(terms.corrections),
        )

    async def vocabulary(self) -> Vocabulary:
        """The catalog's words for typo correction, re-read when older than the policy allows."""
        return await self._vocabulary()

    async def refresh(self) -> None:
        """Re-read what searches keep between them (the typo vocabulary, the index's plan
        statistics), so that no search has to when they get old."""
        await self._vocabulary.refresh()
        await self._index.refresh()

    @property
    def index(self) -> SearchIndex:
        return self._index

    @property
    def refresh_seconds(self) -> float:
        """How old the kept data may get before a search re-reads it itself."""
        return self.policy.vocabulary_refresh_seconds

    async def details(self, product_id: int) -> ProductDetails:
        product = await self._catalog.get(product_id)
        if product is None:
            raise NotFound(f"product {product_id} does not exist; use a productId from {SEARCH_TOOL} results")
        return product_details(product)


def product_details(product: Product) -> ProductDetails:
    variations = [
        VariationDetails(color=v.color, size=v.size, available=v.available, weight_grams=v.weight_grams)
        for v in product.variations
    ]
    return ProductDetails(
        product_id=product.id,
        name=product.name,
        slug=product.slug,
        category=product.category,
        description=product.description,
        brand=product.brand,
        material=product.material,
        price=product.price,
        discounted_price=product.discount_price,
        effective_price=product.effective_price,
        currency=product.currency,
        rating=product.rating,
        main_image=product.main_image,
        images=list(product.images),
        in_stock=any(v.available > 0 for v in variations),
        variations=variations,
    )


def _evidence(row: CandidateRow, wanted: set[int]) -> Evidence:
    return Evidence(
        product_id=row.product_id,
        distance=row.distance,
        title_coverage=len(wanted & row.title_terms) / len(wanted) if wanted else 0.0,
        available=row.available,
    )


def _hit(row: CandidateRow, match: Match) -> ProductHit:
    return ProductHit(
        product_id=row.product_id,
        name=row.name,
        slug=row.slug,
        category=row.category,
        price=row.price,
        discounted_price=row.discount_price,
        effective_price=row.discount_price if row.discount_price is not None else row.price,
        currency=row.currency,
        rating=row.rating,
        main_image=row.main_image,
        match=match.value,
        in_stock=row.available > 0,
        available_quantity=row.available,
        distance=round(row.distance, 4) if row.distance is not None else None,
        available_colors=row.colors,
        available_sizes=row.sizes,
    )


async def keep_search_fresh(
    search: CatalogSearch, on_failure: Callable[[Exception], None], every: float | None = None
) -> None:
    """Refresh `search` every `every` seconds (half its refresh interval by default), for ever:
    at 50,000 products a re-read takes about a second under load, which one search a minute
    would otherwise wait for. A failed refresh is reported and tried again next time; the
    searches meanwhile use what they have, or re-read it themselves once it is too old."""
    every = search.refresh_seconds / 2 if every is None else every
    if every <= 0:  # re-read by every search: nothing to keep fresh
        return
    while True:
        await anyio.sleep(every)
        try:
            await search.refresh()
        except Exception as exc:
            on_failure(exc)
