"""The SQL of PostgresSearchIndex (adapters/postgres/search.py): the filter clause shared by
both legs, the lexical leg's statements, the evidence query and the typo vocabulary. Every
value reaches these statements as a parameter; only their shape varies with the filters given.
"""

from __future__ import annotations

import re

from shopagent.domain.search import LEAD_CHARS, SearchFilters

TEXT_CONFIG_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


FILTER_PARAMETERS = 8  # what `filter_args` gives: the number of parameters `filters_clause` takes

# A variation's options against `{options}` ({folded name: [folded values]}): each named option
# has one of the values (a variation without that option has none of them).
_OPTIONS = """NOT EXISTS (
    SELECT 1 FROM jsonb_each({options}::jsonb) f
    WHERE NOT coalesce(f.value ? ({v}.option_keys ->> f.key), false))"""
# Its specs (its own, else the product's) against `{specs}` ({name: {"min": n, "max": n} or {"eq": x}}):
# a number within the bounds, or equal (text compared in lower case); a spec it lacks fails.
_SPECS = """NOT EXISTS (
    SELECT 1 FROM jsonb_each({specs}::jsonb) f
    CROSS JOIN LATERAL (SELECT coalesce({v}.specs -> f.key, p.specs -> f.key) AS x) s
    WHERE NOT coalesce(CASE
        WHEN f.value ? 'eq' THEN lower(s.x #>> '{{}}') = lower(f.value ->> 'eq')
        WHEN jsonb_typeof(s.x) = 'number' THEN
            (NOT f.value ? 'min' OR (s.x #>> '{{}}')::numeric >= (f.value ->> 'min')::numeric)
            AND (NOT f.value ? 'max' OR (s.x #>> '{{}}')::numeric <= (f.value ->> 'max')::numeric)
    END, false))"""


def _parameters(first: int) -> tuple[str, ...]:
    """low, high, variation, colours, sizes, in stock, options, specs: the filters' parameters."""
    return tuple(f"${n}" for n in range(first, first + FILTER_PARAMETERS))


def variation_test(first: int, v: str = "v", shape: SearchFilters | None = None, *, stock: bool = True) -> str:
    """The test of one variation `v` (of product `p`) against the filters whose parameters are
    numbered from `first`: colours, sizes, stock, options, specs and its price, all on the same
    variation. Given the filters' `shape`, only the constraints that are set (an unused parameter
    still appears, as `IS NOT NULL`, so its type is known). Without `stock`, in stock or not."""
    low, high, _, colors, sizes, in_stock, options, specs = _parameters(first)
    tests = {
        "colors": (f"{v}.color = ANY({colors}::text[])", f"{colors}::text[] IS NOT NULL"),
        "sizes": (f"{v}.size = ANY({sizes}::text[])", f"{sizes}::text[] IS NOT NULL"),
        "in_stock": (f"{in_stock}::bool AND {v}.quantity > {v}.reserved", f"{in_stock}::bool IS NOT NULL"),
        "min_price": (f"{v}.paid_price >= {low}::numeric", f"({low}::numeric IS NULL OR true)"),
        "max_price": (f"{v}.paid_price <= {high}::numeric", f"({high}::numeric IS NULL OR true)"),
        "options": (_OPTIONS.format(options=options, v=v), f"{options}::jsonb IS NOT NULL"),
        "specs": (_SPECS.format(specs=specs, v=v), f"{specs}::jsonb IS NOT NULL"),
    }
    if shape is not None:
        return " AND ".join(used if _is_set(shape, name) else unused for name, (used, unused) in tests.items())
    return f"""(cardinality({colors}::text[]) = 0 OR {tests["colors"][0]})
          AND (cardinality({sizes}::text[]) = 0 OR {tests["sizes"][0]})
          AND {f"(NOT {in_stock}::bool OR {v}.quantity > {v}.reserved)" if stock else tests["in_stock"][1]}
          AND ({low}::numeric IS NULL OR {tests["min_price"][0]})
          AND ({high}::numeric IS NULL OR {tests["max_price"][0]})
          AND ({options}::jsonb = '{{}}'::jsonb OR {tests["options"][0]})
          AND ({specs}::jsonb = '{{}}'::jsonb OR {tests["specs"][0]})"""


def _is_set(shape: SearchFilters, name: str) -> bool:
    value = getattr(shape, name)
    return value is not None and value is not False and value != ()


def filters_clause(first: int, shape: SearchFilters | None = None) -> str:
    """The filter predicate on `product p`, its parameters numbered from `first`.

    A NULL bound, an empty list or object means "no constraint". The product's cheapest and
    dearest variation prices (`price_low`, `price_high`) rule a product out by price without
    looking at its variations; a product whose variations all sell at one price needs no more.
    Otherwise one variation must pass every variation filter and the price bounds at once. Given
    the filters' `shape`, the variation test names only the constraints that are set, as a plain
    EXISTS: the planner then drives it from the variation index, whatever plan it caches (a test
    such as `cardinality($4) = 0 OR color = ANY($4)` cannot use an index in a generic plan).
    """
    low, high, variation, *_ = _parameters(first)
    prices = f"""
    ({low}::numeric IS NULL OR p.price_high >= {low}) AND ({high}::numeric IS NULL OR p.price_low <= {high})"""
    if shape is None:
        return f"""{prices}
    AND (CASE WHEN {variation}::bool OR (p.price_low <> p.price_high
                                         AND ({low}::numeric IS NOT NULL OR {high}::numeric IS NOT NULL))
         THEN EXISTS (SELECT 1 FROM product_variation v WHERE v.product_id = p.id AND {variation_test(first)})
         ELSE true END)
    """
    test = variation_test(first, shape=shape)
    exists = f"EXISTS (SELECT 1 FROM product_variation v WHERE v.product_id = p.id AND {test})"
    if shape.on_variation:
        return f"{prices}\n    AND {variation}::bool AND {exists}\n    "
    if shape.min_price is not None or shape.max_price is not None:
        return f"{prices} AND NOT {variation}::bool AND (p.price_low = p.price_high OR {exists})"
    unused = variation_test(first, shape=SearchFilters())  # no constraint: only the parameters' types
    return f"{prices} AND NOT {variation}::bool AND {unused}"


def product_free(filters: SearchFilters) -> bool:
    """Whether `filters` ask only of a product's variations (colours, sizes, stock, options; no
    price bound, no spec, which read the product's row): then the products they let through are
    found from the variations alone. At a million products, reading the product rows of the
    ~10,000 that "red, M, in stock" lets through took 35 ms of the exact plan's 165."""
    return filters.on_variation and not filters.specs and filters.min_price is None and filters.max_price is None


def variation_products(first: int, shape: SearchFilters) -> str:
    """The ids of the products of which a variation passes `shape`'s filters (their parameters
    numbered from `first`, as `filters_clause` takes them), for filters `product_free` accepts; an
    id may come more than once (a product in red M and red L)."""
    variation = _parameters(first)[2]
    return (
        f"(SELECT v.product_id FROM product_variation v WHERE {variation}::bool AND "
        f"{variation_test(first, shape=shape)})"
    )


def chunk_filter(first: int, filters: SearchFilters) -> str | None:
    """The filters as a test of a chunk `c` that reads no product row, its parameters numbered from
    `first`: none set (only the parameters' types), or those `product_free` accepts (one of the product's
    variations passes them); None where the product's row is needed (a price bound, a spec)."""
    variation = _parameters(first)[2]
    if not filters.any:
        return f"{variation}::bool IS NOT NULL AND {variation_test(first, shape=SearchFilters())}"
    if not product_free(filters):
        return None
    test = variation_test(first, shape=filters)
    return (
        f"{variation}::bool AND EXISTS (SELECT 1 FROM product_variation v WHERE v.product_id = c.product_id AND {test})"
    )


def approximate_sql(model: str, dimension: int, filters: SearchFilters) -> str:
    """The vector leg's index walk ($1 the query vector, $2... the filters, $10 the chunks wanted, $11
    the limit): the chunks the model's HNSW index finds nearest that pass the filters, the closest
    chunk's distance a product. `model` must be a checked model id: the expression and the model
    literal must match the partial index exactly for the planner to use it (a parameter would not
    prove the index predicate). The index holds half-precision copies: it orders the candidates,
    their full-precision distances rank them. With no filter, or only the variations' own, each
    chunk the walk meets is tested without reading its product's row (a key probe a candidate)."""
    approximate = f"c.embedding::halfvec({int(dimension)}) <=> $1::vector::halfvec({int(dimension)})"
    by_chunk = chunk_filter(2, filters)
    source = "product_chunk c" if by_chunk else "product_chunk c JOIN product p ON p.id = c.product_id"
    return f"""
    WITH nearest AS MATERIALIZED (
        SELECT c.product_id, c.embedding <=> $1::vector AS distance
        FROM {source}
        WHERE c.model = '{model}' AND {by_chunk or filters_clause(2)}
        ORDER BY {approximate}
        LIMIT $10
    )
    SELECT product_id, min(distance) AS distance FROM nearest
    GROUP BY product_id ORDER BY distance, product_id LIMIT $11
    """


def exact_sql(filters: SearchFilters) -> str:
    """The vector leg's exact plan ($1 the query vector, $2 the model, $3... the filters, $11 the
    limit): every chunk of the products the filters let through, the closest chunk's distance a
    product. The distances are taken first (MATERIALIZED), so that grouping sorts or hashes
    numbers, not the chunks' vectors (at 30,000 chunks those spilled 45 MB to a temporary file).
    `embedding <=> $1`, not the index's expression: no index scan can serve an order by the
    aggregate anyway."""
    if product_free(filters):
        # (the ids as one sorted array: the index is searched in key order, reading neighbouring chunks'
        # pages together; at a million products, ~10,000 of them: 104 ms against 118 joined one by one)
        ids = f"ARRAY(SELECT DISTINCT u.product_id FROM {variation_products(3, filters)} u ORDER BY 1)"
        chunks = f"product_chunk c WHERE c.model = $2 AND c.product_id = ANY ({ids})"
    else:
        chunks = (
            f"product p JOIN product_chunk c ON c.product_id = p.id WHERE c.model = $2 AND {filters_clause(3, filters)}"
        )
    return f"""
    WITH chunk AS MATERIALIZED (
        SELECT c.product_id, c.embedding <=> $1 AS distance FROM {chunks}
    )
    SELECT product_id, min(distance) AS distance FROM chunk
    GROUP BY product_id
    ORDER BY distance, product_id
    LIMIT $11
    """


# $1 config, $2 words, $3 vector (NULL: no distance), $4 model, $5 product ids, $6... the filters.
# `available` counts the units of the variations the filters ask for (stock aside); `offer` is the
# cheapest of them that can be bought (the cheapest of all when none can).
_EVIDENCE = """
WITH term AS MATERIALIZED (
    SELECT n::int AS n, q FROM unnest($2::text[]) WITH ORDINALITY AS u(w, n),
         LATERAL plainto_tsquery($1::regconfig, w) AS q
    WHERE numnode(q) > 0
)
SELECT p.id, p.name, p.slug, p.category, p.currency, p.rating, p.main_image, p.url, p.external_id,
       p.price_low <> p.price_high AS prices_vary,
       coalesce(o.regular, p.price) AS price,
       CASE WHEN o.paid IS NULL THEN p.discount_price WHEN o.paid < o.regular THEN o.paid END AS discount_price,
       (SELECT min(c.embedding <=> $3::vector) FROM product_chunk c
        WHERE c.product_id = p.id AND c.model = $4) AS distance,
       array(SELECT t.n FROM term t WHERE ts_filter(i.document, '{a,b}') @@ t.q) AS title_terms,
       array(SELECT t.n FROM term t WHERE i.document @@ t.q) AS body_terms,
       array(SELECT t.n FROM term t WHERE c.words @@ t.q) AS category_terms,
       array(SELECT t.n FROM term t WHERE c.name_words @@ t.q) AS name_terms,
       p.material, left(p.description, {LEAD_CHARS}) AS lead, p.specs,
       array(SELECT t.n FROM term t) AS content_terms,
       v.available, coalesce(v.colors, '{}') AS colors, coalesce(v.made_in, '{}') AS made_in,
       coalesce(v.sized_in, '{}') AS sized_in,
       coalesce(v.sizes, '{}') AS sizes,
       coalesce(v.options, '{}') AS options, v.lightest
FROM product p
LEFT JOIN product_index i ON i.product_id = p.id
CROSS JOIN LATERAL (  -- once per product, not per word
    SELECT to_tsvector($1::regconfig, p.category || ' ' || regexp_replace(p.category, {_COMPOUNDS})) AS words,
           to_tsvector($1::regconfig, p.name || ' ' || regexp_replace(p.name, {_COMPOUNDS})) AS name_words
) c
CROSS JOIN LATERAL (
    SELECT coalesce(sum(v.quantity - v.reserved) FILTER (WHERE {asked_v}), 0) AS available,
           array_agg(DISTINCT v.color ORDER BY v.color) FILTER (WHERE v.quantity > v.reserved AND v.color <> '')
               AS colors,
           array_agg(DISTINCT v.color ORDER BY v.color) FILTER (WHERE v.color <> '') AS made_in,
           array_agg(DISTINCT v.size ORDER BY v.size) FILTER (WHERE v.size <> '') AS sized_in,
           array_agg(DISTINCT v.size ORDER BY v.size) FILTER (WHERE v.quantity > v.reserved AND v.size <> '')
               AS sizes,
           array_agg(v.options ORDER BY v.variant_key) FILTER (WHERE v.quantity > v.reserved AND v.options <> '{}')
               AS options,
           min(v.weight_grams) AS lightest
    FROM product_variation v WHERE v.product_id = p.id
) v
LEFT JOIN LATERAL (  -- only where the variations' prices differ, from each other or from the product's own
    SELECT coalesce(w.price, p.price) AS regular, w.paid_price AS paid
    FROM product_variation w
    WHERE (p.price_low <> p.price_high OR p.price_low <> coalesce(p.discount_price, p.price))
      AND w.product_id = p.id AND {asked_w}
    ORDER BY w.quantity > w.reserved DESC, w.paid_price, w.variant_key LIMIT 1
) o ON true
WHERE p.id = ANY($5::bigint[]) AND $8::bool IS NOT NULL
"""


# A lone letter and a word joined ("T-Shirt" -> "TShirt", after a space so that "Tops/T-Shirts"
# is no file path to the parser): the name's and category's words as the indexed documents have
# them (domain.text.letter_compounds).
_COMPOUNDS = r"'(^|[^[:alnum:]])([[:alpha:]])-([[:alpha:]]{2,})(?![[:alnum:]])', ' \2\3', 'g'"

EVIDENCE = (
    _EVIDENCE.replace("{asked_v}", variation_test(6, "v", stock=False))
    .replace("{asked_w}", variation_test(6, "w", stock=False))
    .replace("{_COMPOUNDS}", _COMPOUNDS)
    .replace("{LEAD_CHARS}", str(LEAD_CHARS))
)


# The OR of the words' tsqueries is computed once (an InitPlan), then the GIN index finds the
# matching documents; the filters are checked per match, best first, through the product's
# primary key (a subquery the planner cannot turn into a join that would scan every product:
# 4 ms against 17-30 ms on 50,000 products), until the limit is reached.
# Products are matched on the query's rarest words only ({match}: the words whose products add up
# to a few thousand at most, chosen by the search from the catalog's word counts) and ranked on
# all of them: at 50,000 products a word such as "warm" or "home" matches a third of the
# catalog, and ranking every match cost 40 ms where the vector leg takes 10. Where even the
# rarest word is in more products than that (a million products), an entry of {match} is a group
# of words ("sun hat"), which plainto_tsquery joins with AND: a product must have all of one.
# Where {first} is given (all the narrowing words, where {match} groups them), the products having
# all of them are taken first, and where at least the limit of them pass the filters ({gate}),
# alone: at a million products the index finds the 69 products having all of "quick drying wool
# coat yoga" in 6 ms, the 3,300 of its groups in 17 more. At most {most} matches are ranked: words
# that go together more often than chance ("sun" and "hat") match more products than the groups
# were chosen for, and each match is a heap page read (55,000 for one query at a million
# products, 370 ms).
LEXICAL = """
WITH q AS MATERIALIZED (
    SELECT (SELECT shopagent_tsquery_any(plainto_tsquery($1::regconfig, w)) FROM unnest($2::text[]) AS w) AS q,
           (SELECT shopagent_tsquery_any(plainto_tsquery($1::regconfig, w)) FROM unnest({match}::text[]) AS w) AS qm,
           plainto_tsquery($1::regconfig, {first}::text) AS qf
),
first AS MATERIALIZED (
    SELECT i.product_id, i.document FROM q, product_index i WHERE i.document @@ q.qf LIMIT {most}
),
matched AS MATERIALIZED (
    SELECT f.product_id, f.document FROM first f
    UNION ALL (
        SELECT i.product_id, i.document FROM q, product_index i
        WHERE i.document @@ q.qm AND coalesce(NOT i.document @@ q.qf, true) AND {gate}
        LIMIT {most}
    )
    LIMIT {most}
)
SELECT m.product_id
FROM {source}
LIMIT $3
"""
RANK = "ts_rank('{0.1, 0.2, 0.4, 1.0}', m.document, (SELECT q FROM q))"
LEXICAL_ANY = LEXICAL.format(
    match="$4",
    first="$5",
    most="$6",
    gate="(SELECT count(*) FROM first) < $3",
    source=f"matched m ORDER BY {RANK} DESC, m.product_id",
)
# With filters, the matches are ranked, then checked against the filters best first until the limit
# is reached: price filters let most matches through, and where a colour lets one in ten through,
# ~100 checks find ten (checking every match first cost 25 ms for 2,000 matches at a million products).
_PASSES = f"(SELECT true FROM product p WHERE p.id = @id AND {filters_clause(4)})"  # a match, checked by its key
LEXICAL_RANK_FIRST = LEXICAL.format(
    match="$12",
    first="$13",
    most="$14",
    gate=f"(SELECT count(*) FROM (SELECT FROM first f WHERE {_PASSES.replace('@id', 'f.product_id')} LIMIT $3) f) < $3",
    source=f"(SELECT m.product_id, {RANK} AS score FROM matched m ORDER BY score DESC, m.product_id OFFSET 0) m"
    f" WHERE {_PASSES.replace('@id', 'm.product_id')}",
)


# Unless the vector leg chose its exact plan for these filters (they are estimated to let few
# products through; search_plan): then the statement starts from those products and checks only
# their documents (few: neither the words matched first, $13, nor the most ranked, $14, are
# needed). At 50,000 products the matches-first form takes 6 ms for red M in stock (1 %) against 3
# (the same results on every query of bench/search.py's set).
LEXICAL_FILTERED = """
WITH q AS MATERIALIZED (
    SELECT (SELECT shopagent_tsquery_any(plainto_tsquery($1::regconfig, w)) FROM unnest($2::text[]) AS w) AS q,
           (SELECT shopagent_tsquery_any(plainto_tsquery($1::regconfig, w)) FROM unnest($12::text[]) AS w) AS qm
)
SELECT m.product_id FROM (
    SELECT i.product_id, i.document FROM {source}
    WHERE i.document @@ q.qm AND ($13::text IS NULL OR true) AND ($14::int IS NULL OR true)
) m
ORDER BY {rank} DESC, m.product_id
LIMIT $3
"""


def lexical_sql(filters: SearchFilters, *, filter_first: bool = False) -> str:
    """The lexical leg under `filters` (their parameters from $4, the matching words $12, the words
    matched first $13, the most matches ranked $14)."""
    if filter_first:
        if product_free(filters):
            chosen = f"(SELECT DISTINCT u.product_id AS id FROM {variation_products(4, filters)} u) f"
        else:
            chosen = f"(SELECT p.id FROM product p WHERE {filters_clause(4, filters)} OFFSET 0) f"
        source = f"{chosen} JOIN product_index i ON i.product_id = f.id, q"
        return LEXICAL_FILTERED.format(source=source, rank=RANK)
    return LEXICAL_RANK_FIRST


# Which phrases a name or category has word after word ($3: "memory:A <-> stick:A"; the GIN index of
# the documents finds them, their positions tell the order).
TITLE_PHRASES = """
SELECT u.phrase FROM unnest($2::text[], $3::text[]) AS u(phrase, q)
WHERE EXISTS (SELECT 1 FROM product_index i WHERE i.document @@ to_tsquery($1::regconfig, u.q))
"""

# The words the indexed products' names call their kinds of thing by (`product_index.kind`, written
# by the indexer), and the categories: a few thousand rows at most, from which `catalog_kinds` takes
# the kind words.
KINDS = """
SELECT kind AS title, count(*) AS n, false AS category FROM product_index
WHERE words IS NOT NULL AND kind IS NOT NULL GROUP BY kind
UNION ALL
SELECT DISTINCT p.category, 0, true FROM product p JOIN product_index i ON i.product_id = p.id WHERE i.words IS NOT NULL
"""


VOCABULARY = """
SELECT word, ndoc FROM ts_stat('SELECT words FROM product_index WHERE words IS NOT NULL'{weights})
"""


def filter_args(f: SearchFilters) -> tuple[object, ...]:
    options = {name: list(values) for name, values in f.options}
    specs = {s.name: s.bounds() for s in f.specs}
    return (f.min_price, f.max_price, f.on_variation, list(f.colors), list(f.sizes), f.in_stock, options, specs)
