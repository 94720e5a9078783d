"""Search use cases: hybrid product search (vector + full text, fused) and product details."""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal

import anyio
import numpy as np

from shopagent.application.ports import (
    CandidateRow,
    CatalogRepository,
    EmbeddingModel,
    SearchCandidates,
    SearchIndex,
)
from shopagent.application.vocabulary import CatalogVocabulary
from shopagent.domain import query_words
from shopagent.domain.catalog import CatalogRules, Product, Variation
from shopagent.domain.colour_words import builtin_colour
from shopagent.domain.errors import NotFound
from shopagent.domain.grade_model import GRADE_MODEL
from shopagent.domain.needs import NO_NEEDS, Needs
from shopagent.domain.options import StoreLinks, fold, spec_label
from shopagent.domain.price_words import price_ceiling, price_phrase_words
from shopagent.domain.quantities import a_unit, amounts, other_amount, weight_ceiling
from shopagent.domain.query_words import head_word, modifiers, sizes_named
from shopagent.domain.ranking import Evidence, FusionWeights, GradeModel, Match, fuse, rank
from shopagent.domain.search import (
    DEFAULT_LIMIT,
    ProductDetails,
    ProductHit,
    SearchRequest,
    SearchResult,
    VariationDetails,
    validate_search,
)
from shopagent.domain.text import QueryTerms, descriptive, words
from shopagent.domain.tools import SEARCH_TOOL
from shopagent.domain.vocabulary import NO_SYNONYMS, Synonyms, Vocabulary


@dataclass(frozen=True)
class SearchPolicy:
    weights: FusionWeights = field(default_factory=FusionWeights)
    grades: GradeModel = GRADE_MODEL
    depth: int = 10  # candidates taken from each leg (at least the limit)
    vocabulary_refresh_seconds: float = 60.0  # how stale the typo-correction vocabulary may get
    real_words: Container[str] = frozenset()  # words of the shop's languages: never "corrected"
    synonyms: Synonyms = NO_SYNONYMS  # shoppers' words -> the catalog's
    needs: Needs = NO_NEEDS  # shoppers' troubles -> the words of what answers them
    lexical_match_products: int = 2_000  # the full-text leg matches on the rarest words up to this many products


class CatalogSearch:
    def __init__(
        self,
        embedder: EmbeddingModel,
        index: SearchIndex,
        catalog: CatalogRepository,
        rules: CatalogRules,
        policy: SearchPolicy | None = None,
        links: StoreLinks | None = None,
    ) -> None:
        self.links = links or StoreLinks()
        self._embedder = embedder
        self._index = index
        self._catalog = catalog
        self.rules = rules
        self.policy = policy or SearchPolicy()
        self._vocabulary = CatalogVocabulary(
            index,
            self.policy.vocabulary_refresh_seconds,
            self.policy.real_words,
            self.policy.synonyms,
            self.policy.needs,
        )
        # Colours and sizes are filters' business; the small words of en/de/fr say nothing of the thing.
        filter_words = frozenset(fold(w) for w in (*rules.colors, *rules.color_aliases, *rules.sizes))
        self._not_descriptive = filter_words | query_words.FUNCTION_WORDS
        self._category_vectors: dict[str, np.ndarray] = {}  # category name -> its embedding

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
        options: Mapping[str, list[str]] | None = None,
        specs: Mapping[str, object] | None = None,
    ) -> SearchRequest:
        """Validate raw arguments (raises ValidationError with an actionable message)."""
        return validate_search(
            query, limit, colors or [], sizes or [], min_price, max_price, in_stock, self.rules, options, specs
        )

    async def search(self, request: SearchRequest, weights: FusionWeights | None = None) -> SearchResult:
        """The products that best match the query within the filters, best first, graded.

        `weights` overrides the configured fusion (`VECTOR_ONLY` / `LEXICAL_ONLY` run one leg).
        """
        weights = weights or self.policy.weights
        found, terms, evidence = await self.gather(request, weights)
        ranked = rank(fuse(found.vector, found.lexical, weights), evidence, self.policy.grades, request.limit)
        products = [_hit(found.rows[r.product_id], r.match, self.links) for r in ranked]
        return SearchResult(
            products=products,
            best_match=products[0].match if products else None,
            no_strong_match=not any(p.match == Match.STRONG for p in products),
            corrections=dict(terms.corrections),
            misspelt=[word for word in terms.corrections if word in terms.typo_fixes],
        )

    async def gather(
        self, request: SearchRequest, weights: FusionWeights
    ) -> tuple[SearchCandidates, QueryTerms, dict[int, Evidence]]:
        """Both legs' candidates for `request` and the evidence on each (what `search` ranks
        and grades; scripts/fit_grades.py fits the grades on it)."""
        use_vector, use_lexical = weights.legs
        vocabulary = await self.vocabulary()
        # What answers a trouble told ("my dog sheds everywhere") is searched too; what answers a situation only
        # where no thing is asked for by its name ("regenjacke wasserdicht zum wandern" asks for no hiking boots)
        # ("my bike got stolen outside the station, I need a lock that actually works" asks for a lock by its name:
        # not the station commuter's panniers and lights)
        written = words(request.query)
        situation = query_words.tells_a_situation(written)
        asked = any(vocabulary.names_a_kind(thing) for _, thing in query_words.asked_after_a_cue(written))
        terms = vocabulary.terms(
            request.query,
            troubles=True,
            thing_named=lambda found: (asked or not situation) and any(map(vocabulary.names_a_kind, found)),
        )
        vector = None
        if use_vector:
            vector = await self._embedder.embed_query(terms.corrected_text(request.query))
        depth, budget = max(self.policy.depth, request.limit), self.policy.lexical_match_products
        found = await self._index.candidates(
            vector,
            self._embedder.model_id,
            self._embedder.dimension,
            terms.terms,
            request.filters,
            depth,
            request.limit,
            lexical=use_lexical,
            match_terms=vocabulary.match_on(terms.terms, budget),
            match_first=vocabulary.match_first(terms.terms, budget),
            match_limit=max(budget, depth),  # (fewer than the leg returns would rank too few)
        )
        # The words that describe the item: not numbers, colours, sizes nor small words.
        # (nor the words saying a price: "max" of "navy blazer L max 200€" is no thing asked for)
        priced = price_phrase_words(request.query)
        # (nor a colour, also one said in German or French, "rote Mütze", "sac à main noir", where no product's text
        # has the word: a colour the query names, like "red")
        coloured = {n: c for n in found.content_terms if (c := self._colour_of(terms.terms[n], vocabulary))}
        wanted = sorted(
            n
            for n in found.content_terms
            if descriptive(terms.terms[n], self._not_descriptive) and terms.terms[n] not in priced and n not in coloured
        )
        found = _by_rarity(found, {n: vocabulary.rarity(terms.terms[n]) for n in wanted})
        # The thing asked for, what qualifies it and of what it is made are read from the shopper's words, not
        # from those added for a trouble told ("deshedding undercoat" for "my dog sheds"): those rank and grade
        said = [n for n in wanted if terms.terms[n] not in terms.added]
        categories = {n for row in found.rows.values() for n in row.category_terms}
        heads = frozenset(h for row in found.rows.values() if (h := query_words.name_head(row.name)))
        # (the unit of an amount is not the thing: "Puzzle 1000 Teile" asks for a puzzle)
        unmeasured = [n for n in said if not (n > 0 and terms.terms[n - 1].isdigit() and a_unit(terms.terms[n]))]
        # (the words searched for the shopper's own in another language: "holz" -> "wood")
        translated = {
            w for said_as, to in terms.corrections.items() if said_as not in terms.typo_fixes for w in words(to)
        }
        head = query_words.before_its_material(terms.terms, said, head_word(terms.terms, unmeasured), heads, translated)
        head = last = query_words.named_first(terms.terms, said, head, heads)
        if head is None or not query_words.names_a_thing(terms.terms[head], heads):  # "bird feeder": a feeder
            head = query_words.kind_head(terms.terms, said, head, categories, vocabulary.uses)
        kinds = modifiers(terms.terms, said)
        query = _QueryFacts(
            wanted=frozenset(wanted),
            head=head,
            head_unknown=head is not None and not vocabulary.uses(terms.terms[head]),
            modifiers=kinds,
            vector_ranks={pid: n for n, pid in enumerate(found.vector, start=1)},
            lexical_ranks={pid: n for n, pid in enumerate(found.lexical, start=1)},
            closeness=await self._category_closeness(vector, {row.category for row in found.rows.values()}),
            amounts=amounts(request.query),
            colors=frozenset() if request.filters.colors else self._colors_named(terms.terms) | set(coloured.values()),
            sizes=frozenset() if request.filters.sizes else sizes_named(terms.terms, self.rules.size),
            # (only words some text has: "with timmer" rules out nothing where no text says it)
            features=frozenset(
                n for n in query_words.features_asked(terms.terms, said, head) if vocabulary.uses(terms.terms[n])
            ),
            # (with filters, of the catalog's kinds: "harness dog" in size M under €30, where no harness is, lets
            # only leads and collars through, and a lead is no harness however close its category)
            head_named=head is not None
            and (
                any(head in row.name_terms for row in found.rows.values())
                or (request.filters.any and vocabulary.names_a_kind(terms.terms[head]))
            ),
            materials=(materials := query_words.materials_named(terms.terms, said, vocabulary.uses)),
            material_words=frozenset(terms.terms[n] for n in materials),
            audiences=query_words.with_a_childs_age(query_words.audiences_named(terms.terms), request.query),
            short_kind=len(said) <= _SHORT_REQUEST and head in kinds,
            terms=terms.terms,
            said=terms.said,
            heads=heads,
            situation=query_words.tells_a_situation(words(request.query)),
            # (the thing a situation ends on, where products are that thing, and not whom it is for: "… Geschirr?"
            # is a harness; "the cat hates the car" names no thing, "my bike got stolen … never again" a bike had)
            kind_told=head is not None
            and head == said[-1]
            and query_words.tells_a_situation(words(request.query))
            and terms.terms[head] not in query_words.WHOM_FOR
            and query_words.names_a_thing(terms.terms[head], heads)
            and any(head in row.name_terms for row in found.rows.values()),
            thing_not_sold=_thing_not_sold(terms.terms, said, head, last, found.rows.values()),
            head_in_texts=head is not None and any(head in row.body_terms for row in found.rows.values()),
            head_a_category=head is not None and any(head in row.category_terms for row in found.rows.values()),
            ceiling=price_ceiling(request.query) if request.filters.max_price is None else None,
            heaviest=weight_ceiling(fold(request.query)),
            ages=query_words.childs_ages(request.query, query_words.audiences_named(terms.terms)),
            spec_units=self.rules.spec_units,
        )
        best = min((row.distance for row in found.rows.values() if row.distance is not None), default=None)
        return found, terms, {pid: _evidence(row, query, best) for pid, row in found.rows.items()}

    def _colour_of(self, word: str, vocabulary: Vocabulary) -> str | None:
        """The catalog's colour a word names: one of its colours or their aliases; else, where no product's text
        uses the word ("rose" in a garden shop is a rose), a word of another language for one of them, the
        shop's or a built-in German or French one ("schwarze" -> black)."""
        own = self.rules.color(word)
        if own is not None and word in self._not_descriptive:  # (its colours and their aliases, as configured)
            return own
        builtin = builtin_colour(word)
        colour = own if own is not None else self.rules.color(builtin) if builtin is not None else None
        return colour if colour is not None and not vocabulary.uses(word) else None

    def _colors_named(self, words: tuple[str, ...]) -> frozenset[str]:
        return frozenset(color for word in words if (color := self.rules.color(word)) is not None)

    async def _category_closeness(self, vector: np.ndarray | None, categories: set[str]) -> dict[str, float]:
        """Each category's cosine to the query, minus the best one's (0 for the closest)."""
        if vector is None or not categories:
            return {}
        missing = [c for c in categories if c not in self._category_vectors]
        if missing:
            if len(self._category_vectors) > _MAX_KEPT_CATEGORIES:
                self._category_vectors.clear()
            rows = await self._embedder.embed_documents(missing)
            self._category_vectors.update(zip(missing, rows, strict=True))
        cosine = {c: float(np.dot(self._category_vectors[c], vector)) for c in categories}
        top = max(cosine.values())
        return {c: value - top for c, value in cosine.items()}

    async def vocabulary(self) -> Vocabulary:
        """The catalog's words for typo correction, re-read when older than the policy allows."""
        return await self._vocabulary()

    def changed(self) -> None:
        """Products were indexed in this process: the catalog's words are re-read soon (see
        `CatalogVocabulary`), not only when they get old."""
        self._vocabulary.changed()

    async def refresh(self, *, paced: bool = False) -> None:
        """Re-read what searches keep between them (the typo vocabulary, the index's plan
        statistics), so that no search has to when they get old; `paced`: each only when old enough
        for the pace of its reads (domain.pacing)."""
        await self._vocabulary.refresh(paced=paced)
        await self._index.refresh(paced=paced)

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
        return product_details(product, self.links, self.rules.spec_units)


def product_details(
    product: Product, links: StoreLinks | None = None, units: Mapping[str, str] | None = None
) -> ProductDetails:
    links = links or StoreLinks()
    variations = [_variation_details(product, v, links) for v in product.variations]
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
        options=list(product.option_names),
        specs=dict(product.specs),
        spec_text=[spec_label(name, value, units or {}) for name, value in product.specs.items()],
        url=links.product_url(product.url, product.slug, product.external_id),
    )


def _variation_details(product: Product, v: Variation, links: StoreLinks) -> VariationDetails:
    regular, paid = product.regular_price(v), product.paid_price(v)
    return VariationDetails(
        color=v.color,
        size=v.size,
        options=dict(v.options),
        available=v.available,
        weight_grams=v.weight_grams,
        price=regular,
        discounted_price=paid if paid < regular else None,
        effective_price=paid,
        sku=v.sku,
        specs=dict(v.specs),
        url=links.cart_url(v.url, product.slug, product.external_id, v.external_id, v.sku),
    )


_MAX_KEPT_CATEGORIES = 10_000
_SHORT_REQUEST = 4  # descriptive words at most


@dataclass(frozen=True)
class _QueryFacts:
    """What one query's evidence shares across its candidates."""

    wanted: frozenset[int]  # positions of the descriptive query terms
    head: int | None  # position of the head word: the thing asked for
    head_unknown: bool
    modifiers: dict[int, int]  # a descriptive term's position -> the descriptive term just before it
    vector_ranks: dict[int, int]
    lexical_ranks: dict[int, int]
    closeness: dict[str, float]
    amounts: dict[str, frozenset[float]]  # the amounts with a unit the query asks for ("2tb"), by unit
    colors: frozenset[str]  # the catalog's colours its words name ("red harness"), when no colour filter does
    sizes: frozenset[str] = frozenset()  # the catalog's sizes its words name ("size 38"), when no size filter does
    heaviest: float | None = None  # the most it may weigh, in grams ("a tent under 1.5 kg")
    ages: frozenset[float] = frozenset()  # the children's ages the query tells ("for my 5 year old"), in years
    spec_units: Mapping[str, str] = field(default_factory=dict)  # the shop's units of its specs
    features: frozenset[int] = frozenset()  # positions of what the thing is asked to come with ("bike with gears")
    head_named: bool = False  # some candidate has the head word in its name
    materials: frozenset[int] = frozenset()  # positions of the words naming what it is made of ("leather")
    material_words: frozenset[str] = frozenset()  # ... and those words
    audiences: frozenset[int] = frozenset()  # for whom (men, women, children: query_words.AUDIENCES)
    short_kind: bool = False  # a short request whose head word is qualified by a kind, not an audience
    terms: tuple[str, ...] = ()  # the query's words
    said: int | None = None  # how many of `terms` the shopper said (the rest answer a trouble told)
    heads: frozenset[str] = frozenset()  # the words the candidates' names name their things with
    situation: bool = False  # the query tells of the shopper's situation ("my dog pulls on the lead")
    thing_not_sold: int | None = None  # the last word of a bare name no product of the kind it names has
    kind_told: bool = False  # a situation told ends on its head word, a thing some candidates are by their names
    head_in_texts: bool = False  # some candidate has the head word in its text (by its stem: "sharpening")
    head_a_category: bool = False  # some candidate's category names the head word ("tea" of the category "Tea")
    ceiling: Decimal | None = None  # the highest price the query's words allow ("under 60"), when no filter says one


_BARE_NAME = 4  # words of a request that is only the name of a thing ("lawn mower blades")


def _thing_not_sold(
    terms: tuple[str, ...], wanted: list[int], head: int | None, last: int | None, rows: Iterable[CandidateRow]
) -> int | None:
    """The last word of a request that is only a name ("lawn mower blades", "greenhouse heater": at most
    `_BARE_NAME` words, none small), where the thing asked for was taken from a word before it (the one
    the candidates' categories name) and no candidate of that kind has the last word in its text: the
    shop sells none of that thing, and what the name ends on says what it is. None otherwise (a litter
    tray with a lid among litter trays for "litter tray lid": the lid is one's part)."""
    if head is None or last is None or last == head or len(terms) > _BARE_NAME or len(wanted) != len(terms):
        return None
    if any(head in row.title_terms and last in row.body_terms for row in rows):
        return None
    return last


_BODY_ONLY = 0.4  # a word in the description only, against one in the name, category, brand or material


def _by_rarity(found: SearchCandidates, rarity: dict[int, float]) -> SearchCandidates:
    """The full-text leg's products ordered by the query's descriptive words they have, each
    weighed by its rarity in the catalog (`rarity`, by position; a word in the name, category,
    brand or material counting fully, one only in the description `_BODY_ONLY`), times the share
    of the words they have; ties in the leg's own order. PostgreSQL's ts_rank weighs every word
    alike: "hands" in a "Hand Trowel" of the category "Hand tools" outranked "secateurs" in the
    name and "arthritis" in the description of the product asked for. The share keeps one rare
    word from outranking two ("dad" of a "Dad Sneaker" against "jumper" and "warm" for "a warm
    jumper for my dad"). Measured on the judged query sets in bench/README.md."""
    if not rarity:
        return found

    def weight(pid: int) -> float:
        row = found.rows.get(pid)
        if row is None:
            return 0.0
        had = [r if n in row.title_terms else r * _BODY_ONLY for n, r in rarity.items() if n in row.body_terms]
        return sum(had) * len(had) / len(rarity)

    order = {pid: n for n, pid in enumerate(found.lexical)}
    lexical = sorted(found.lexical, key=lambda pid: (-weight(pid), order[pid]))
    return SearchCandidates(found.vector, lexical, found.content_terms, found.rows)


def _evidence(row: CandidateRow, query: _QueryFacts, best: float | None) -> Evidence:
    wanted = query.wanted
    # The category's word in the query, and the same word written again ("knife" beside "knives")
    named = query_words.said_again(query.terms, wanted, wanted & row.category_terms)
    # A category "names" the thing asked for by its own head words ("food" of "Dog food"), not by
    # the words saying for whom ("dog" of "Dog food" is no match for "something to keep my dog busy").
    heads = query_words.category_heads(row.category)
    kind_named = any(query_words.names_a_category(query.terms[n], heads) for n in named)
    # The thing asked for in its name says it is of that kind too ("Dutch Oven" for "microwave
    # oven"), in short requests: a sentence's head word is seldom the thing ("cake" in "baking a
    # birthday cake for my daughter").
    of_kind = named | (wanted & row.name_terms & {query.head} if query.short_kind else set())
    if query.head is not None:  # not the words about its use after the thing: "feeder for small birds"
        of_kind = frozenset(n for n in of_kind if n <= query.head)
    head_in_category = query.head in row.category_terms
    return Evidence(
        product_id=row.product_id,
        distance=row.distance,
        title_coverage=len(wanted & row.title_terms) / len(wanted) if wanted else 0.0,
        available=row.available,
        body_coverage=len(wanted & row.body_terms) / len(wanted) if wanted else 0.0,
        category_match=kind_named,
        category_closeness=query.closeness.get(row.category, -1.0),
        vector_rank=query.vector_ranks.get(row.product_id),
        lexical_rank=query.lexical_ranks.get(row.product_id),
        gap=row.distance - best if row.distance is not None and best is not None else 1.0,
        head_in_text=query.head in row.body_terms,
        head_in_category=head_in_category,
        head_in_title=query.head in row.title_terms
        and (
            query.head in row.name_terms | row.category_terms
            or not query_words.only_a_part(query.terms[query.head], row.material)
        ),
        head_unknown=query.head_unknown,
        last_missing=query.thing_not_sold is not None and query.thing_not_sold not in row.body_terms,
        head_missing=query.head is not None and not query.head_unknown and query.head not in row.body_terms,
        modifier_missing=_modifier_missing(of_kind, query.modifiers, query.terms, row.body_terms | row.category_terms),
        feature_missing=bool(query.features) and not query.features & (row.body_terms | row.category_terms),
        other_amount=bool(query.amounts) and _other_amount(query.amounts, row),
        other_color=bool(query.colors and row.made_in) and not query.colors & row.made_in,
        other_size=bool(query.sizes and row.sized_in) and not query.sizes & row.sized_in,
        head_named_elsewhere=query.head_named
        and query.head is not None
        and query.head not in row.name_terms
        and not _compound_of(query.terms[query.head], row.name),
        kind_named_elsewhere=query.kind_told
        and query.head is not None
        and query.head not in row.name_terms
        and not _compound_of(query.terms[query.head], row.name),
        other_material=bool(query.materials and row.material.strip())
        and not query.materials & (row.name_terms | row.category_terms)
        and not query_words.made_of(query.material_words, row.material),
        other_audience=query_words.for_others(
            query.audiences,
            f"{row.name} {row.category} {query_words.opening(row.lead)}",  # ("Women's high-waisted jeans …")
            {query_words.name_head(row.name) or "", *query_words.category_heads(row.category)},
        ),
        # (of the kind asked for: "casque vélo pour ma fille de 7 ans" lists the "Kids' Helmet" first)
        asked_audience=query.head in row.name_terms
        and query.terms[query.head] not in query_words.WHOM_FOR
        and query_words.for_a_child_asked(query.audiences, f"{row.name} {row.category}"),
        situation=query.situation,
        opposite=query_words.says_the_opposite(query.terms, row.name),
        # (a product named for a thing the query names is of a kind asked for: the mower of "cordless lawn mower
        # small garden", whatever "garden" names)
        other_kind=query.head_a_category
        and query.head is not None
        and query.head not in row.body_terms
        # (any thing may be a gift: "a gift for a newborn" asks for no product of "Party & small gifts" only)
        and query.terms[query.head] not in query_words.GIFTS
        and not any(query_words.names_a_thing(term, {query_words.name_head(row.name) or ""}) for term in query.terms),
        other_age=query_words.for_other_ages(query.ages, row.specs, query.spec_units),
        over_weight=query.heaviest is not None
        and row.lightest_grams is not None
        and row.lightest_grams > query.heaviest,
        over_budget=query.ceiling is not None
        and (row.discount_price if row.discount_price is not None else row.price) > query.ceiling,
        # its name names what the thing is for (a "Y-Harness" for "lead for harness", though its
        # category "Collars, leads & harnesses" names leads too: harnesses are one of its kinds);
        # other reasons only where its category does not name the thing
        for_another=query_words.set_of_other_things(query.terms, query.head, row.name, query.heads)
        or query_words.for_a_gift(query.terms, query.head, row.name)
        or (
            query_words.named_for_purpose(query.terms, query.head, row.name, query.said)
            and (not head_in_category or query_words.names_a_category(query_words.name_head(row.name) or "", heads))
        )
        or (
            not head_in_category
            and query_words.for_another(
                query.terms,
                sorted(wanted),
                query.head,
                row.name,
                query.heads,
                heads,
                # ("knife sharpener": a knife, beside a whetstone whose text says "sharpening", where no text
                # says "sharpener" as written)
                named_in_another_text=query.head_unknown and query.head_in_texts and query.head not in row.body_terms,
                said=query.said,
            )
        ),
    )


def _compound_of(head: str, name: str) -> bool:
    """Whether a word of a name ends with the head word, as a compound names its kind last ("Schälmesser" a
    "Messer", "Raincoat" a "coat")."""
    return len(head) >= 4 and any(w != head and w.endswith(head) for w in words(fold(name)))


def _modifier_missing(
    of_kind: frozenset[int], modifiers: dict[int, int], terms: tuple[str, ...], text: frozenset[int]
) -> bool:
    """Whether the word saying which kind of the thing it is ("motorbike" of "motorbike helmet") is
    missing from its text: the word before the last of the words naming the kind ("dog" in
    "sensitive stomach dog food" says which food, and "stomach" is no kind of dog); an amount before
    any of them says which one all the same ("20000mah power bank")."""
    return any(
        modifiers[n] not in text
        for n in of_kind
        if n in modifiers and (n + 1 not in of_kind or any(ch.isdigit() for ch in terms[modifiers[n]]))
    )


_NEAR_VARIANT = 0.10  # a 24 cm skillet for "26cm", not a 40 l bag for "50 litre"


def _other_amount(asked: dict[str, frozenset[float]], row: CandidateRow) -> bool:
    """Whether a product comes only in other amounts than the one asked: by its name ("Hard Drive
    4TB" for "2tb"), or by its sizes and options ("Bag size 40 l, 70 l" for "50 litre"), of which
    one within a tenth of the asked amount is near enough."""
    variants = amounts(" ".join([*row.sized_in, *(value for option in row.options for value in option.values())]))
    if any(unit in variants for unit in asked) and not other_amount(asked, variants, _NEAR_VARIANT):
        return False
    return other_amount(asked, amounts(row.name)) or other_amount(asked, variants, _NEAR_VARIANT)


def _hit(row: CandidateRow, match: Match, links: StoreLinks) -> ProductHit:
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
        available_options=_options_in_stock(row.options),
        price_from=row.prices_vary,
        url=links.product_url(row.url, row.slug, row.external_id),
    )


def _options_in_stock(variations: list[dict[str, str]]) -> dict[str, list[str]]:
    found: dict[str, dict[str, None]] = {}
    for options in variations:
        for name, value in options.items():
            found.setdefault(name, {})[value] = None
    return {name: list(values) for name, values in found.items()}


async def keep_search_fresh(
    search: CatalogSearch, on_failure: Callable[[Exception], None], every: float | None = None
) -> None:
    """Refresh `search` every `every` seconds (half its refresh interval by default), for ever:
    at 50,000 products a re-read takes about a second under load, which one search a minute
    would otherwise wait for. Each kept copy is re-read no sooner than twenty times as long as its
    last read took (domain.pacing: at a million products, every two minutes or so). A failed
    refresh is reported and tried again next time; the searches meanwhile use what they have, or
    re-read it themselves once it is too old."""
    every = search.refresh_seconds / 2 if every is None else every
    if every <= 0:  # re-read by every search: nothing to keep fresh
        return
    while True:
        await anyio.sleep(every)
        try:
            await search.refresh(paced=True)
        except Exception as exc:
            on_failure(exc)
