"""The SQL of PostgresSearchIndex (adapters/postgres/search.py): the filter clause shared by
both legs, the lexical leg's statements, the evidence query and the typo vocabulary. Every
value reaches these statements as a parameter; only their shape varies with the filters given.
"""

from __future__ import annotations

import re

from shopagent.domain.search import SearchFilters

TEXT_CONFIG_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


def filters_clause(first: int, shape: SearchFilters | None = None) -> str:
    """The filter predicate on `product p`, its six parameters numbered from `first`.

    A NULL bound or an empty list means "no constraint". Given the filters' `shape`, the
    variation test names only the constraints that are set, as a plain EXISTS: the planner
    then drives it from the variation index, whatever plan it caches (a test such as
    `cardinality($4) = 0 OR color = ANY($4)` cannot use an index in a generic plan).
    """
    low, high, variation, colors, sizes, in_stock = (f"${n}" for n in range(first, first + 6))
    prices = f"""
    ({low}::numeric IS NULL OR coalesce(p.discount_price, p.price) >= {low})
    AND ({high}::numeric IS NULL OR coalesce(p.discount_price, p.price) <= {high})"""
    if shape is None:
        return f"""{prices}
    AND (NOT {variation}::bool OR EXISTS (
        SELECT 1 FROM product_variation v
        WHERE v.product_id = p.id
          AND (cardinality({colors}::text[]) = 0 OR v.color = ANY({colors}::text[]))
          AND (cardinality({sizes}::text[]) = 0 OR v.size = ANY({sizes}::text[]))
          AND (NOT {in_stock}::bool OR v.quantity > v.reserved)))
    """
    if not shape.on_variation:
        return (
            f"{prices} AND NOT {variation}::bool AND {colors}::text[] IS NOT NULL AND {sizes}::text[] IS NOT NULL "
            f"AND {in_stock}::bool IS NOT NULL"
        )
    tests = [
        f"v.color = ANY({colors}::text[])" if shape.colors else f"{colors}::text[] IS NOT NULL",
        f"v.size = ANY({sizes}::text[])" if shape.sizes else f"{sizes}::text[] IS NOT NULL",
        f"{in_stock}::bool AND v.quantity > v.reserved" if shape.in_stock else f"{in_stock}::bool IS NOT NULL",
    ]
    return f"""{prices}
    AND {variation}::bool AND EXISTS (
        SELECT 1 FROM product_variation v WHERE v.product_id = p.id AND {" AND ".join(tests)})
    """


# $1 config, $2 words, $3 vector (NULL: no distance), $4 model, $5 product ids, $6 colours, $7 sizes
EVIDENCE = """
WITH term AS MATERIALIZED (
    SELECT n::int AS n, q FROM unnest($2::text[]) WITH ORDINALITY AS u(w, n),
         LATERAL plainto_tsquery($1::regconfig, w) AS q
    WHERE numnode(q) > 0
)
SELECT p.id, p.name, p.slug, p.category, p.price, p.discount_price, p.currency, p.rating, p.main_image,
       (SELECT min(c.embedding <=> $3::vector) FROM product_chunk c
        WHERE c.product_id = p.id AND c.model = $4) AS distance,
       array(SELECT t.n FROM term t WHERE ts_filter(i.document, '{a,b}') @@ t.q) AS title_terms,
       array(SELECT t.n FROM term t WHERE i.document @@ t.q) AS body_terms,
       array(SELECT t.n FROM term t WHERE c.words @@ t.q) AS category_terms,
       array(SELECT t.n FROM term t) AS content_terms,
       v.available, coalesce(v.colors, '{}') AS colors, coalesce(v.sizes, '{}') AS sizes
FROM product p
LEFT JOIN product_index i ON i.product_id = p.id
CROSS JOIN LATERAL (SELECT to_tsvector($1::regconfig, p.category) AS words) c  -- once per product, not per word
CROSS JOIN LATERAL (
    SELECT coalesce(sum(v.quantity - v.reserved) FILTER (
               WHERE (cardinality($6::text[]) = 0 OR v.color = ANY($6::text[]))
                 AND (cardinality($7::text[]) = 0 OR v.size = ANY($7::text[]))), 0) AS available,
           array_agg(DISTINCT v.color ORDER BY v.color) FILTER (WHERE v.quantity > v.reserved) AS colors,
           array_agg(DISTINCT v.size ORDER BY v.size) FILTER (WHERE v.quantity > v.reserved) AS sizes
    FROM product_variation v WHERE v.product_id = p.id
) v
WHERE p.id = ANY($5::bigint[])
"""

# The OR of the words' tsqueries is computed once (an InitPlan), then the GIN index finds the
# matching documents; the filters are checked per match, best first, through the product's
# primary key (a subquery the planner cannot turn into a join that would scan every product:
# 4 ms against 17-30 ms on 50,000 products), until the limit is reached.
# Products are matched on the query's rarest words only ({match}: the words whose products add up
# to a few thousand at most, chosen by the search from the catalog's word counts) and ranked on
# all of them: at 50,000 products a word such as "warm" or "home" matches a third of the
# catalog, and ranking every match cost 40 ms where the vector leg takes 10.
LEXICAL = """
WITH q AS MATERIALIZED (
    SELECT (SELECT shopagent_tsquery_any(plainto_tsquery($1::regconfig, w)) FROM unnest($2::text[]) AS w) AS q,
           (SELECT shopagent_tsquery_any(plainto_tsquery($1::regconfig, w)) FROM unnest({match}::text[]) AS w) AS qm
),
matched AS MATERIALIZED (
    SELECT i.product_id, i.document FROM q, product_index i WHERE i.document @@ q.qm
)
SELECT m.product_id
FROM {source}
LIMIT $3
"""
RANK = "ts_rank('{0.1, 0.2, 0.4, 1.0}', m.document, (SELECT q FROM q))"
LEXICAL_ANY = LEXICAL.format(match="$4", source=f"matched m ORDER BY {RANK} DESC, m.product_id")
# Price filters let most matches through: rank them all, then check the filters best first
# until the limit is reached. Colours, sizes and stock let few through: check them first,
# then rank only the matches that passed.
LEXICAL_RANK_FIRST = LEXICAL.format(
    match="$10",
    source=f"(SELECT m.product_id, {RANK} AS score FROM matched m ORDER BY score DESC, m.product_id OFFSET 0) m"
    f" WHERE (SELECT true FROM product p WHERE p.id = m.product_id AND {filters_clause(4)})",
)


# With filters, the words' matches are collected first (the GIN index) and each is checked
# against the filters, unless the filters are estimated to let fewer products through than
# `search.exact_below_products` (the vector leg's exact plan has the same threshold): then the
# statement starts from those products and checks only their documents. At 50,000 products the
# matches-first form takes 6 ms for red (10 %) against 11 filters-first, and 6 ms for red M in
# stock (1 %) against 3 (the same results on every query of bench/search.py's set).
LEXICAL_FILTERED = """
WITH q AS MATERIALIZED (
    SELECT (SELECT shopagent_tsquery_any(plainto_tsquery($1::regconfig, w)) FROM unnest($2::text[]) AS w) AS q,
           (SELECT shopagent_tsquery_any(plainto_tsquery($1::regconfig, w)) FROM unnest($10::text[]) AS w) AS qm
)
SELECT m.product_id FROM (
    SELECT i.product_id, i.document FROM {source}
    WHERE i.document @@ q.qm{also}
) m
ORDER BY {rank} DESC, m.product_id
LIMIT $3
"""


def lexical_sql(filters: SearchFilters, *, filter_first: bool = False) -> str:
    """The lexical leg under `filters` (their parameters from $4, the matching words $10)."""
    if filter_first:
        chosen = f"(SELECT p.id FROM product p WHERE {filters_clause(4, filters)} OFFSET 0) f"
        source = f"{chosen} JOIN product_index i ON i.product_id = f.id, q"
        return LEXICAL_FILTERED.format(source=source, also="", rank=RANK)
    if not filters.on_variation:
        return LEXICAL_RANK_FIRST
    also = f" AND i.product_id IN (SELECT p.id FROM product p WHERE {filters_clause(4, filters)})"
    return LEXICAL_FILTERED.format(source="q, product_index i", also=also, rank=RANK)


VOCABULARY = """
SELECT word, ndoc FROM ts_stat('SELECT words FROM product_index WHERE words IS NOT NULL'{weights})
"""


def filter_args(f: SearchFilters) -> tuple[object, ...]:
    return (f.min_price, f.max_price, f.on_variation, list(f.colors), list(f.sizes), f.in_stock)
