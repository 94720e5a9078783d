"""Search quality with embedding.model = "multilingual" (the real multilingual encoder), on
German and French shoppers' queries against the English sample catalog: written as shoppers
write them before the catalog was read (only its category names), judged against the catalog
afterwards, never against results; the grade model was fitted on the `tune` half only
(scripts/fit_grades.py --model multilingual), these tests read the **held-out half**.

- shopagent/sample_data/eval_queries_de.jsonl (34 queries, 16 held out)
- shopagent/sample_data/eval_queries_fr.jsonl (28 queries, 14 held out)

The floors are the issue's targets (hit@5 0.85 German, 0.70 French; measured 0.87 and 1.00,
bench/README.md), and the English set must stay within 0.05 of what MiniLM's floors ask.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from shopagent.application.evaluation import evaluate_search, product_names
from shopagent.entrypoints.eval_files import read_eval_file
from shopagent.sample_data import __file__ as sample_data
from tests.test_search_quality import FLOORS, meets_its_floors

pytestmark = pytest.mark.anyio

SAMPLE = Path(sample_data).parent
# language: hit@1, hit@5, at most this share of answerable queries flagged noStrongMatch.
# French false alarms: 0.20 until a product's name counted for the kind a short request asks for
# (a "Dutch Oven" is no "microwave oven"), which took the strong grade from one more of the 13.
CROSS_LANGUAGE_FLOORS = {"de": (0.75, 0.85, 0.30), "fr": (0.80, 0.85, 0.25)}


async def held_out(shop, language: str):
    names = set(await product_names(shop.catalog))
    cases = read_eval_file(SAMPLE / f"eval_queries_{language}.jsonl", shop.search, names)
    assert {c.split for c in cases} == {"tune", "heldout"}
    return [c for c in cases if c.split == "heldout"]


@pytest.mark.parametrize("language", ["de", "fr"])
async def test_german_and_french_shoppers_find_english_products_on_the_held_out_half(
    multilingual_sample_shop, language
):
    hit1, hit5, false_alarms = CROSS_LANGUAGE_FLOORS[language]
    fused = await evaluate_search(multilingual_sample_shop.search, await held_out(multilingual_sample_shop, language))
    print(f"{language} held-out hit@1 {fused.hit1:.2f} hit@5 {fused.hit5:.2f} false alarms {fused.false_alarms}")
    assert fused.hit1 >= hit1, fused.misses
    assert fused.hit5 >= hit5, fused.misses
    assert fused.false_alarms is not None and fused.false_alarms <= false_alarms
    assert fused.honesty in (None, 1.0)  # the things the shop does not sell are flagged


@pytest.mark.parametrize("language", ["de", "fr"])
async def test_without_the_synonym_list_its_vectors_still_cross_languages_and_minilms_do_not(
    multilingual_sample_shop, sample_shop, language
):
    # The built-in starter list turns common German and French shopping words into English
    # before embedding, which is how MiniLM serves these queries today; words outside it (or a
    # catalog language without one) reach the model as typed.
    cases = await held_out(multilingual_sample_shop, language)
    multilingual = await evaluate_search(without_synonyms(multilingual_sample_shop), cases, "vector")
    minilm = await evaluate_search(without_synonyms(sample_shop), cases, "vector")
    print(f"{language} held-out, no synonyms, vector leg hit@5: multilingual {multilingual.hit5:.2f}, "
          f"MiniLM {minilm.hit5:.2f}")  # fmt: skip
    assert multilingual.hit5 >= 0.80, multilingual.misses
    assert multilingual.hit5 >= minilm.hit5 + 0.3


async def test_the_english_held_out_half_meets_minilms_floors_less_at_most_005(multilingual_sample_shop):
    hit1, hit5, false_alarms, honesty = FLOORS["sample_shop"]
    loosened = {"sample_shop": (hit1 - 0.05, hit5 - 0.05, false_alarms + 0.05, honesty - 0.05)}
    await meets_its_floors(multilingual_sample_shop, "sample_shop", loosened)


def without_synonyms(shop):
    """The shop's search with no synonym list: shoppers' words reach the model as typed."""
    import dataclasses

    from shopagent.adapters.postgres.search import PostgresSearchIndex
    from shopagent.application.search import CatalogSearch
    from shopagent.domain.vocabulary import NO_SYNONYMS
    from shopagent.wiring.policies import search_tuning, text_search_config

    s = shop.settings
    index = PostgresSearchIndex(shop.pool, text_search_config(s), search_tuning(s))
    policy = dataclasses.replace(shop.search.policy, synonyms=NO_SYNONYMS)
    return CatalogSearch(shop.embedder, index, shop.catalog.repository, shop.catalog.rules, policy)


# Store questions against the demo's pages: the English ones of tests/test_store_information.py
# and German and French ones. The multilingual model's page thresholds (wiring/policies.py) were
# chosen on the latter and on UNANSWERABLE_STORE_QUESTIONS; the English ones were only checked.
FOREIGN_STORE_QUESTIONS = [
    ("versendet ihr nach Österreich?", "shipping"),
    ("wie lange dauert die Lieferung", "shipping"),
    ("kann ich per Rechnung bezahlen", "payment"),
    ("Rückgabe möglich?", "returns"),
    ("livrez-vous en Suisse ?", "shipping"),
    ("puis-je payer par PayPal", "payment"),
    ("comment retourner un article", "returns"),
    ("gibt es Gutscheine", "faq"),
    ("quelle taille choisir", "size-guide"),
]
UNANSWERABLE_STORE_QUESTIONS = ["habt ihr einen Laden in Berlin", "quel temps fait-il à Paris", "do you sell cars"]


@pytest.fixture
async def multilingual_demo_pages(settings, multilingual_embedder):
    from shopagent.application.store_pages import import_pages
    from shopagent.bootstrap import SAMPLE_STORE_PAGES
    from shopagent.entrypoints.store_page_files import read_store_pages
    from shopagent.wiring.services import open_services
    from shopagent.wiring.startup import INDEXER_ACTORS

    async with open_services(settings, INDEXER_ACTORS | {"mcp"}, embedder=multilingual_embedder) as services:
        await import_pages(services.store_pages, read_store_pages(SAMPLE_STORE_PAGES))
        while events := await services.outbox.claim(64, 60, 5, "test"):
            await services.index_product.index(events)
        yield services


async def test_store_questions_in_three_languages_are_answered_from_the_right_page(multilingual_demo_pages):
    from tests.test_store_information import ANSWERED, UNANSWERED

    search = multilingual_demo_pages.store_information
    for question, page in ANSWERED:
        top = (await search.search(question)).passages[0]
        assert (top.page, top.grade) == (page, "strong"), question
    strong = 0
    for question, page in FOREIGN_STORE_QUESTIONS:
        top = (await search.search(question)).passages[0]
        assert top.page == page, question  # the right page first, whatever its grade
        strong += top.grade == "strong"
    assert strong >= 4  # with MiniLM's thresholds none of them is strong
    for question in [*UNANSWERED, *UNANSWERABLE_STORE_QUESTIONS]:
        assert (await search.search(question)).no_strong_match, question
