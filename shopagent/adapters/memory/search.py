"""MemorySearchIndex: the `SearchIndex` port over the memory catalog and chunk store, for tests
of the search's ranking, the agent and the assistant that are not about SQL.

The vector leg is exact cosine distance over every stored chunk of the model; the lexical leg is
word overlap (folded, crudely stemmed: `words`), name/category/brand/material weighted above the
rest. Both honour the filters as PostgreSQL does: colours, sizes, stock, options, specs and the
price are judged on one variation, the price bounds against the product's cheapest and dearest
variation. The evidence (title/body/category terms, the asked variation's units and price) is
computed from the same rules. Ranking within a leg may differ from PostgreSQL's (no snowball, no
ts_rank); the contract suite (tests/test_search_index_contract.py) asserts what both must do."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from decimal import Decimal

import msgspec
import numpy as np

from shopagent.adapters.memory.catalog import MemoryCatalog
from shopagent.adapters.memory.chunk_store import MemoryChunkStore, StoredSet
from shopagent.adapters.memory.words import stem, term_stem, words_of
from shopagent.application.ports import CandidateRow, SearchCandidates
from shopagent.domain.catalog import Product, Variation
from shopagent.domain.options import option_folded
from shopagent.domain.query_words import kind_words, name_kind
from shopagent.domain.search import LEAD_CHARS, SearchFilters, SpecFilter
from shopagent.domain.text import CatalogWords, lexical_fields, with_compounds, words

_TITLE_WEIGHT = 10  # a word in the name, category, brand or material counts this much more than elsewhere


class MemorySearchIndex:
    def __init__(self, catalog: MemoryCatalog, chunks: MemoryChunkStore) -> None:
        self._catalog = catalog
        self._chunks = chunks

    async def candidates(
        self,
        vector: np.ndarray | None,
        model: str,
        dimension: int,
        terms: Sequence[str],
        filters: SearchFilters,
        depth: int,
        need: int = 1,
        *,
        lexical: bool = True,
        match_terms: Sequence[str] | None = None,
        match_first: str | None = None,
        match_limit: int | None = None,
    ) -> SearchCandidates:
        stems = [term_stem(t) for t in terms]
        groups = [
            {term_stem(w) for w in words(t)} - {None} for t in (match_terms if match_terms is not None else terms)
        ]
        matching = [g for g in groups if g]
        stored = self._chunks.stored()
        passing = [p for p in self._catalog.products.values() if passes(p, filters)]
        nearest: list[int] = []
        if vector is not None:
            distances = {p.id: _distance(stored[p.id], vector) for p in passing if _of(stored, p.id, model)}
            nearest = sorted(distances, key=lambda i: (distances[i], i))[:depth]
        matches: list[int] = []
        if terms and lexical and matching:
            # (those having all of `match_first` first, alone where they are `depth`; at most `match_limit`)
            every = [{term_stem(w) for w in words(match_first)} - {None}] if match_first else []
            first = [p for p in passing if every and every[0] and _has(stored.get(p.id), every)]
            taken = {p.id for p in first}
            others = [p for p in passing if p.id not in taken and _has(stored.get(p.id), matching)]
            found = first if len(first) >= depth else first + others
            scores = {p.id: _score(stored[p.id], stems) for p in found[:match_limit]}
            matches = sorted(scores, key=lambda i: (-scores[i], i))[:depth]
        ids = list(dict.fromkeys([*nearest, *matches]))
        rows = {i: self._row(self._catalog.products[i], stored, vector, model, stems, filters) for i in ids}
        content = frozenset(n for n, s in enumerate(stems) if s is not None) if rows else frozenset()
        return SearchCandidates(vector=nearest, lexical=matches, content_terms=content, rows=rows)

    async def vocabulary(self, phrases: Sequence[str] = ()) -> CatalogWords:
        """Every word of the indexed products with its product count, those of their titles,
        and which of `phrases` a name or category has word after word (crudely stemmed)."""
        known: Counter[str] = Counter()
        titles: Counter[str] = Counter()
        wanted = {p: " ".join(stem(w) for w in p.split()) for p in phrases}
        named: set[str] = set()
        name_kinds: Counter[str] = Counter()
        categories: set[str] = set()
        for product_id in self._chunks.stored():
            product = self._catalog.products[product_id]
            categories.add(product.category)
            if (kind := name_kind(product.name)) is not None:
                name_kinds[kind] += 1
            fields = lexical_fields(product)
            title = set(words(f"{fields.primary} {fields.secondary}"))
            titles.update(title)
            known.update(title | set(words(fields.body)))
            primary = f" {' '.join(stem(w) for w in words(fields.primary))} "
            named.update(p for p, stems in wanted.items() if f" {stems} " in primary)
        kinds, category_words = kind_words(name_kinds, categories, titles)
        count = len(self._chunks.stored())
        return CatalogWords(dict(known), dict(titles), count, frozenset(named), kinds, category_words)

    async def refresh(self, *, paced: bool = False) -> None:
        """Nothing is kept between searches."""

    def _row(
        self,
        product: Product,
        stored: dict[int, StoredSet],
        vector: np.ndarray | None,
        model: str,
        stems: list[str | None],
        filters: SearchFilters,
    ) -> CandidateRow:
        chunk_set = stored.get(product.id)
        indexed = chunk_set.words if chunk_set is not None and chunk_set.words is not None else None
        category = words_of(with_compounds(product.category)).title

        def positions(found: frozenset[str] | None) -> frozenset[int]:
            return frozenset(n for n, s in enumerate(stems) if s is not None and found is not None and s in found)

        asked = [v for v in product.variations if variation_passes(product, v, filters, stock=False)]
        in_stock = [v for v in product.variations if v.available > 0]
        price, discount = _offer(product, asked)
        return CandidateRow(
            product_id=product.id, name=product.name, slug=product.slug, category=product.category,
            price=price, discount_price=discount, currency=product.currency, rating=product.rating,
            main_image=product.main_image,
            distance=_distance(chunk_set, vector) if chunk_set and vector is not None and chunk_set.model == model
            else None,
            title_terms=positions(indexed.title if indexed else None),
            body_terms=positions(indexed.body if indexed else None),
            category_terms=positions(category if indexed else None),
            name_terms=positions(words_of(with_compounds(product.name)).title if indexed else None),
            material=product.material,
            lead=product.description[:LEAD_CHARS], specs=dict(product.specs),
            available=sum(v.quantity - v.reserved for v in asked),
            colors=sorted({v.color for v in in_stock if v.color}),
            made_in=frozenset(v.color for v in product.variations if v.color),
            sized_in=frozenset(v.size for v in product.variations if v.size),
            lightest_grams=min((v.weight_grams for v in product.variations if v.weight_grams), default=None),
            sizes=sorted({v.size for v in in_stock if v.size}),
            options=[v.options for v in sorted(in_stock, key=lambda v: v.key) if v.options],
            prices_vary=product.prices_vary, url=product.url, external_id=product.external_id,
        )  # fmt: skip


def passes(product: Product, filters: SearchFilters) -> bool:
    """Whether the product is within the filters: its price range meets the bounds, and (for
    variation filters, or bounds on a product whose variations' prices differ) one variation
    passes them all."""
    paid = [product.paid_price(v) for v in product.variations]
    if filters.min_price is not None and max(paid) < filters.min_price:
        return False
    if filters.max_price is not None and min(paid) > filters.max_price:
        return False
    bounded = filters.min_price is not None or filters.max_price is not None
    if filters.on_variation or (bounded and product.prices_vary):
        return any(variation_passes(product, v, filters) for v in product.variations)
    return True


def variation_passes(product: Product, v: Variation, filters: SearchFilters, *, stock: bool = True) -> bool:
    """One variation against every variation filter and the price bounds (stock only with `stock`)."""
    paid = product.paid_price(v)
    keys = {option_folded(name): option_folded(value) for name, value in v.options.items()}
    return (
        (not filters.colors or v.color in filters.colors)
        and (not filters.sizes or v.size in filters.sizes)
        and (not (stock and filters.in_stock) or v.quantity > v.reserved)
        and (filters.min_price is None or paid >= filters.min_price)
        and (filters.max_price is None or paid <= filters.max_price)
        and all(keys.get(name) in values for name, values in filters.options)
        and all(_spec_passes(product.variation_specs(v).get(s.name), s) for s in filters.specs)
    )


def _spec_passes(value: object, spec: SpecFilter) -> bool:
    if value is None:
        return False
    if spec.equals is not None:
        return _text(value).lower() == _text(spec.equals).lower()
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return (spec.low is None or value >= spec.low) and (spec.high is None or value <= spec.high)


def _text(value: object) -> str:
    """A JSON value as PostgreSQL's `#>> '{}'` gives it: strings unquoted, the rest as JSON."""
    return value if isinstance(value, str) else msgspec.json.encode(value).decode()


def _offer(product: Product, asked: list[Variation]) -> tuple[Decimal, Decimal | None]:
    """The price of the asked variation that can be bought, cheapest first (of all asked when
    none can); the product's own when its variations all sell at its price."""
    own = product.discount_price if product.discount_price is not None else product.price
    if not asked or (not product.prices_vary and all(product.paid_price(v) == own for v in asked)):
        return product.price, product.discount_price
    best = min(asked, key=lambda v: (v.quantity <= v.reserved, product.paid_price(v), v.key))
    regular, paid = product.regular_price(best), product.paid_price(best)
    return regular, paid if paid < regular else None


def _of(stored: dict[int, StoredSet], product_id: int, model: str) -> bool:
    return product_id in stored and stored[product_id].model == model


def _distance(chunk_set: StoredSet, vector: np.ndarray) -> float:
    rows = chunk_set.vectors
    cosine = rows @ vector / (np.linalg.norm(rows, axis=1) * np.linalg.norm(vector))
    return float(1 - cosine.max())


def _has(chunk_set: StoredSet | None, groups: list[set[str | None]]) -> bool:
    """Whether the product has every word of one of the groups."""
    return chunk_set is not None and chunk_set.words is not None and any(g <= chunk_set.words.body for g in groups)


def _score(chunk_set: StoredSet, stems: list[str | None]) -> int:
    found = chunk_set.words
    assert found is not None
    return sum(_TITLE_WEIGHT * (s in found.title) + (s in found.body) for s in stems if s is not None)
