"""Search quality with the real local model, on judged queries written as customers write
(before the catalog was looked at; judged against it afterwards by someone else, never
against results), on the **held-out half** of each set: the grade model was fitted, and
the search tuned, on the `tune` half only (scripts/fit_grades.py).

- the sample clothing shop: shopagent/sample_data/eval_queries.jsonl (136 queries);
- a kitchenware shop: tests/data/kitchen (78 queries);
- a consumer-electronics shop whose catalog and queries were written by two people who never
  saw each other's work: tests/data/electronics (90 queries);
- a pet-supplies shop made the same way, and judged by a third person: tests/data/pets (113
  queries, none with explicit filters);
- a garden shop made as the pet shop was: tests/data/garden (110 queries, none with explicit
  filters), whose first measurement was taken before any change was made for it;
- a toy shop made the same way: tests/data/toys (90 queries, none with explicit filters), measured
  first with the search of the session it was written in, before and after that session's changes;
- a bike and outdoor shop made the same way: tests/data/bikes (87 queries, none with explicit filters),
  measured first before any change was made for it;
- German and French shoppers of the garden, pet, toy, bike, kitchen and electronics shops:
  tests/data/<shop>/queries_de_fr.jsonl
  (24 each, written blind from the shops' briefs and judged after; alternate lines in the tune and held-out
  halves), measured by bench/search_quality.py.

Each set has vague intents, synonyms, misspellings, colours/sizes/prices in the text,
explicit filters, things the shop does not sell, German and French. The floors sit a little
below what `bench/search_quality.py` measured on these halves (bench/README.md has the
figures, before and after); the search before this model measured below some of them.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from shopagent.application.evaluation import SEARCH_MODES, evaluate_search, product_names
from shopagent.domain.colour_words import builtin_colour
from shopagent.domain.price_words import price_ceiling, price_phrase_words
from shopagent.domain.quantities import amounts
from shopagent.domain.query_words import (
    a_childs_age,
    age_range,
    asked_after_a_cue,
    audiences_named,
    childs_ages,
    for_a_gift,
    for_other_ages,
    for_others,
    head_word,
    modifiers,
)
from shopagent.entrypoints.eval_files import read_eval_file
from shopagent.sample_data import __file__ as sample_data

pytestmark = pytest.mark.anyio

DATA = Path(__file__).parent / "data"
QUERIES = {
    "sample_shop": Path(sample_data).parent / "eval_queries.jsonl",
    "kitchen_shop": DATA / "kitchen" / "queries.jsonl",
    "electronics_shop": DATA / "electronics" / "queries.jsonl",
    "pets_shop": DATA / "pets" / "queries.jsonl",
    "garden_shop": DATA / "garden" / "queries.jsonl",
    "toys_shop": DATA / "toys" / "queries.jsonl",
    "bikes_shop": DATA / "bikes" / "queries.jsonl",
}
KINDS = {"intent", "synonym", "typo", "inline", "filters", "nomatch", "german", "french"}
# shop: hit@1, hit@5, at most this share of answerable queries flagged noStrongMatch,
# at least this share of the queries it cannot serve flagged.
FLOORS = {
    "sample_shop": (0.55, 0.75, 0.42, 0.40),  # measured 0.63, 0.87, 0.40, 0.54 (2026-12-04)
    "kitchen_shop": (0.52, 0.80, 0.33, 0.40),
    "electronics_shop": (0.65, 0.80, 0.42, 0.60),
    "pets_shop": (0.45, 0.70, 0.45, 0.45),  # measured 0.52, 0.76, 0.36, 0.55 (0.42, 0.67, 0.52, 0.60 before)
    "garden_shop": (0.55, 0.75, 0.50, 0.55),  # measured 0.64, 0.85, 0.42, 0.65 (0.61, 0.85, 0.48, 0.65 untuned)
    # measured 0.54, 0.88, 0.50, 0.65 (0.54, 0.88, 0.54, 0.53 at its first measurement, 2026-12-06)
    "toys_shop": (0.45, 0.80, 0.58, 0.55),
    # measured 0.64, 0.84, 0.44, 0.75 at its first measurement (2026-12-06), before any change for it
    "bikes_shop": (0.55, 0.75, 0.52, 0.65),
}

# Wrong corrections on a held-out half (none since "gardena", a brand the garden shop does not sell,
# is no longer read as "garden": a catalog word and one letter more is another word).
WRONG_CORRECTIONS: dict[str, int] = {}


async def held_out_scores(shop, path: Path):
    cases = read_eval_file(path, shop.search, set(await product_names(shop.catalog)))
    assert {c.split for c in cases} == {"tune", "heldout"}
    unfiltered = path.parent.name in ("pets", "garden", "toys", "bikes")  # (sets with no explicit filters)
    assert {c.kind for c in cases} >= KINDS - ({"filters"} if unfiltered else set())
    held_out = [c for c in cases if c.split == "heldout"]
    assert len(held_out) >= 35
    scores = {mode: await evaluate_search(shop.search, held_out, mode) for mode in SEARCH_MODES}
    for s in scores.values():
        print(f"{path.parent.name} held-out {s.mode:8} hit@1 {s.hit1:.2f} hit@5 {s.hit5:.2f} "
              f"false alarms {s.false_alarms} honesty {s.honesty}")  # fmt: skip
    return scores


async def test_the_clothing_shops_held_out_half_meets_its_floors(sample_shop):
    await meets_its_floors(sample_shop, "sample_shop")


async def test_the_kitchen_shops_held_out_half_meets_its_floors(kitchen_shop):
    await meets_its_floors(kitchen_shop, "kitchen_shop")


async def test_the_electronics_shops_held_out_half_meets_its_floors(electronics_shop):
    await meets_its_floors(electronics_shop, "electronics_shop")


async def test_the_pet_shops_held_out_half_meets_its_floors(pets_shop):
    await meets_its_floors(pets_shop, "pets_shop")


async def test_the_garden_shops_held_out_half_meets_its_floors(garden_shop):
    await meets_its_floors(garden_shop, "garden_shop")


async def test_the_toy_shops_held_out_half_meets_its_floors(toys_shop):
    await meets_its_floors(toys_shop, "toys_shop")


async def test_the_bike_shops_held_out_half_meets_its_floors(bikes_shop):
    await meets_its_floors(bikes_shop, "bikes_shop")


async def meets_its_floors(shop, shop_name: str, floors=FLOORS) -> None:
    scores = await held_out_scores(shop, QUERIES[shop_name])
    hit1, hit5, false_alarms, honesty = floors[shop_name]
    fused = scores["fused"]
    assert fused.hit1 >= hit1, fused.misses
    assert fused.hit5 >= hit5, fused.misses
    assert fused.false_alarms is not None and fused.false_alarms <= false_alarms
    assert fused.honesty is not None and fused.honesty >= honesty
    # Fusion is never much worse than the better leg alone. The pet shop is the exception this
    # is written against: there the vector leg alone finds more (hit@5 0.82 against 0.76 fused;
    # bench/README.md), an open problem of the grade model, held here so it gets no worse.
    slack = 0.10 if shop_name == "pets_shop" else 0.05
    assert fused.hit5 >= max(scores["vector"].hit5, scores["lexical"].hit5) - slack
    # No query outside the ones marked as misspelt had a word corrected, but for the known ones.
    assert fused.suspect_corrections <= WRONG_CORRECTIONS.get(shop_name, 0), fused.corrections


@pytest.mark.parametrize("trade", ["kitchen", "electronics"])
async def test_what_goes_with_a_thing_is_not_answered_with_the_thing(trade, kitchen_shop, electronics_shop):
    """The validation set written blind for the "goes with" grade rule (bench/README.md): the
    shop does not sell most spare parts and other brands' accessories asked for, and then says
    so instead of grading the thing they go with strong (honesty 0.43 and 0.46 before the rule)."""
    shop = {"kitchen": kitchen_shop, "electronics": electronics_shop}[trade]
    path = DATA / trade / "queries_goes_with.jsonl"
    cases = read_eval_file(path, shop.search, set(await product_names(shop.catalog)))
    scores = await evaluate_search(shop.search, cases, "fused")
    assert scores.honesty is not None and scores.honesty >= 0.52, scores
    assert scores.hit5 >= 0.85 and scores.false_alarms is not None and scores.false_alarms <= 0.2, scores


async def test_filters_narrow_results_to_matching_in_stock_variations(sample_shop):
    request = sample_shop.search.request("sneakers", 10, colors=["red"], sizes=["39"], in_stock=True)
    hits = (await sample_shop.search.search(request)).products
    assert hits
    for hit in hits:
        details = await sample_shop.search.details(hit.product_id)
        assert any(v.color == "red" and v.size == "39" and v.available > 0 for v in details.variations)
        assert hit.in_stock and hit.available_quantity > 0


async def test_a_possessive_says_which_kind_of_the_thing(kitchen_shop):
    """ "chef's knife": "chef" says which knife, over the possessive's "s", so the bread knife is at most partial."""
    search = kitchen_shop.search
    found = {p.slug: p.match for p in (await search.search(search.request("chef's knife", 5))).products}
    assert found["stahlberg-classic-chefs-knife-20"] == "strong", found
    assert found["kochwerk-serrated-bread-knife-23"] != "strong", found
    assert modifiers(("chef", "s", "knife"), [0, 2]) == {2: 0}
    assert modifiers(("kids", "s", "bike"), [0, 2]) == {}  # whom it is for, as without the "s"


async def test_the_thing_asked_for_is_what_follows_the_words_asking_for_it(bikes_shop):
    """A trip told first, then the thing: the thing after "need a" is what is asked for (not "camino", the word
    before the first "for"); "3 weeks" says how long, not which kind of backpack; and a "Backpacking Tent" is
    a tent, named for the activity, where backpacks are sold."""
    search = bikes_shop.search
    found = (await search.search(search.request("backpack", 10))).products
    backpacks = {p.slug for p in found if p.category == found[0].category and "Tent" not in p.name}
    result = await search.search(search.request("walking the camino for 3 weeks in may, need a backpack", 5))
    assert result.products[0].slug in backpacks and not result.no_strong_match, result.products
    result = await search.search(search.request("pars chemin de Compostelle mai environ 3 semaines sac à dos", 5))
    assert result.products[0].slug in backpacks, result.products
    tents = [p for p in result.products if "Tent" in p.name]
    assert all(p.match != "strong" for p in tents), tents
    terms = ("walking", "the", "camino", "for", "3", "weeks", "need", "a", "backpack")
    assert head_word(terms, [0, 2, 4, 5, 8]) == 8
    assert head_word(("camino", "for", "3", "weeks"), [0, 2, 3]) == 0  # no words asking: as before
    assert modifiers(("3", "weeks", "backpack"), [0, 1, 2]) == {1: 0}  # "3 weeks": no kind of backpack
    assert modifiers(("weekend", "bag"), [0, 1]) == {1: 0}  # a weekend bag is one


async def test_a_thing_for_the_shopper_is_none_made_for_animals(pets_shop):
    """ "a shampoo for myself": the pet shop's dog shampoo is not it (the words after "for myself" are no thing
    asked for either); "a jacket for myself" still asks for anyone's jacket, the men's ones too."""
    search = pets_shop.search
    result = await search.search(search.request("looking for a shampoo for myself, anti dandruff", 5))
    assert result.no_strong_match, result.products
    assert "Shampoo" in result.products[0].name, result.products
    myself = audiences_named(["myself"])
    assert for_others(myself, "Oatmeal Dog Shampoo") and not for_others(myself, "Men's Down Jacket")
    assert not for_others(audiences_named(["dog"]), "Two-Person Tent for people and their dogs")


async def test_a_verb_told_before_the_thing_does_not_say_which_kind_it_is(pets_shop):
    """ "my cat keeps scratching the sofa": "keeps" is no kind of scratching post, so the scratchers are not capped
    for lacking it (all of them were partial, "nothing fits"); "motorbike helmet" still asks for a kind."""
    search = pets_shop.search
    result = await search.search(search.request("my cat keeps scratching the sofa and it's driving me crazy", 5))
    assert "Scratch" in result.products[0].name and result.products[0].match == "strong", result.products
    assert 2 not in modifiers(("cat", "keeps", "scratching", "sofa"), [0, 1, 2, 3])
    assert modifiers(("motorbike", "helmet"), [0, 1]) == {1: 0}


@pytest.mark.parametrize(
    ("shop", "message", "first"),
    [
        ("pets", "Birthday present for my dog, he turns 5 on sunday", ("Treat", "Chew", "Toy", "Ball", "Stick")),
        ("pets", "we're driving from utrecht to the south of france with our cat in july, 11 hours", ("Roamr",)),
        ("garden", "Gift for my dad who just retired and wants to start gardening", ("Beginner",)),
        ("garden", "We just moved into a house with a north facing garden that is mostly shade. What will actually "
         "grow there?", ("Geranium",)),
        ("pets", "puppy 10 weeks chewing everything incl the chair legs help", ("Tug", "Ball")),
        ("toys", "My granddaughter has just started crawling and puts everything in her mouth. What would be safe "
         "for her?", ("Teether", "Rattle")),
    ],
)  # fmt: skip
async def test_a_situation_told_finds_what_answers_it(pets_shop, garden_shop, toys_shop, shop, message, first):
    """A present for a dog is a toy or a treat (dog foods came first), a long drive with a cat asks for travel
    things (cat foods came first), a beginner gardener a beginner's set (gloves, a bench and lawn seed), a shady
    garden a plant for shade (a bench and a grow light), a puppy chewing everything a toy to chew (a horn chew,
    not for puppies), a baby putting everything in her mouth a teether or a rattle (an activity book)."""
    search = {"pets": pets_shop, "garden": garden_shop, "toys": toys_shop}[shop].search
    result = await search.search(search.request(message, 5))
    assert any(word in result.products[0].name for word in first), result.products


async def test_the_words_saying_a_price_are_no_thing_asked_for(sample_shop):
    """ "navy blazer L max 200€": "max" was taken for the thing asked for, so the blazer lacked it and a running
    shoe came first; the price is read as a ceiling all the same."""
    search = sample_shop.search
    result = await search.search(search.request("navy blazer L max 200€", 5))
    assert result.products[0].slug == "marlowe-linen-summer-blazer" and result.products[0].match == "strong", result
    assert price_phrase_words("navy blazer L max 200€") == {"max", "200"}
    assert price_phrase_words("Jacke unter 80 Euro, wasserdicht") == {"unter", "80", "euro"}
    assert price_phrase_words("zwischen 50 und 100 €") == {"zwischen", "50", "und", "100"}
    assert price_phrase_words("lampe pour enfants de 5 ans") == frozenset()


async def test_a_word_of_shape_or_size_after_the_thing_is_not_the_thing(kitchen_shop):
    """ "Kuchenform rund zum backen" (a cake tin, round, for baking): "round" after the tin is no thing asked
    for, so the springform cake tin is the strong match it is; "need" says no kind of the thing either."""
    search = kitchen_shop.search
    result = await search.search(search.request("Kuchenform rund zum backen", 5))
    assert result.products[0].slug == "brotzeit-leakproof-springform-cake-tin", result.products
    assert result.products[0].match == "strong", result.products
    assert head_word(("cake", "tin", "round", "zum", "backen"), [0, 1, 2, 4]) == 1
    assert head_word(("rucksack", "leicht"), [0, 1]) == 0 and head_word(("round",), [0]) == 0
    assert modifiers(("need", "wellies"), [0, 1]) == {}


async def test_filters_that_leave_no_thing_of_the_kind_asked_make_no_other_kind_strong(pets_shop):
    """ "harness dog" in size M under €30: the filters let no harness through, only leads and collars of the
    harnesses' category; the catalog names harnesses, so a lead is no strong match for one (without the filters,
    the harnesses among the hits said so)."""
    search = pets_shop.search
    result = await search.search(search.request("harness dog", 10, sizes=["M"], max_price=Decimal("30")))
    strong = [p.name for p in result.products if p.match == "strong"]
    assert all("Harness" in name or "Collar" in name for name in strong), strong
    assert not any("Lead" in name for name in strong), strong


async def test_a_goal_told_names_no_thing_and_the_thing_to_do_it_is_strong(electronics_shop, bikes_shop):
    """ "want to see who is at the front door when im at work" asks for no door: the video doorbell is a strong
    match. "need to carry 2 bikes" after "roof racks for the car" asks for roof racks, which the bike shop does not
    sell, so no bike is strong (the words after "need" had been taken for the thing)."""
    search = electronics_shop.search
    result = await search.search(search.request("want to see who is at the front door when im at work", 5))
    assert "Doorbell" in result.products[0].name and result.products[0].match == "strong", result.products
    search = bikes_shop.search
    result = await search.search(
        search.request("do you have roof racks for the car? need to carry 2 bikes to the alps", 5)
    )
    assert result.no_strong_match, result.products
    terms = ("do", "you", "have", "roof", "racks", "for", "the", "car", "need", "to", "carry", "2", "bikes")
    assert head_word(terms, [3, 4, 7, 10, 12]) == 4
    assert head_word(("need", "to", "buy", "a", "tent"), [2, 4]) == 4


async def test_gift_wrapping_is_no_gift(toys_shop):
    """ "un cadeau pour ma petite fille de 4 ans qui adore les licornes": the shop has no unicorns, and its "Gift
    Wrapping with Card" is for a gift, not one, so nothing is strong (the wrapping was, and listed as found)."""
    search = toys_shop.search
    query = "bonjour je cherche un cadeau pour ma petite fille de 4 ans qui adore les licornes"
    result = await search.search(search.request(query, 5))
    assert result.no_strong_match, result.products
    assert for_a_gift(("a", "gift", "for", "my", "niece"), 1, "Little Otter Gift Wrapping with Card")
    assert not for_a_gift(("a", "gift", "for", "my", "niece"), 1, "Gift Card")  # a card named as a gift is one
    assert not for_a_gift(("gift", "wrapping"), 1, "Gift Wrapping with Card")  # wrapping asked for


@pytest.mark.parametrize(
    ("text", "ages"),
    [
        ("looking for a first proper bike for my son, he's 6 and about 118cm", {6.0}),
        ("my daughter is 7, she loves drawing", {7.0}),
        ("my grandson turns 2 next month", {2.0}),
        ("my nephew, hes 5 and loves trains", {5.0}),
        ("toys for 18 month old", {1.5}),
        ("a present for my 9-month-old niece", {0.75}),
        ("mein Sohn ist 6", {6.0}),
        ("meine Tochter wird 5", {5.0}),
        ("mein 18 Monate alter Sohn", {1.5}),
        ("pour mon fils, il a 6 ans", {6.0}),
        ("ma fille va avoir 3 ans", {3.0}),
        # by "he" or "she" only where a child is named: a dog's age is none
        ("Hi! Looking for a bed for my old Labrador, he's 11 and his hips are getting stiff", set()),
        ("he's 6 foot tall", set()),
        ("she is 35", set()),
        ("my daughter is 5.5 kg", set()),
        ("er ist 1,80 m", set()),
        ("he is 12 stone", set()),
        ("the bike is 6 kg", set()),
        ("kids 6 pack", set()),
        # the ages of children told as a range after them, both ends
        ("Spielzeug für unsere Krippengruppe (Kinder von 1 bis 3 Jahren)", {1.0, 3.0}),
        ("toys for kids from 2 to 4 years", {2.0, 4.0}),
        ("something for children aged 3-5 years", {3.0, 5.0}),
        ("des jeux pour enfants de 2 à 4 ans", {2.0, 4.0}),
        ("warranty 2 to 3 years", set()),
    ],
)
def test_a_childs_age_told_of_the_child_is_read(text, ages):
    """ "my son, he's 6", "she turns 2", "er ist 6", "il a 6 ans", "my 18 month old": a child's age told of the
    child, or in months, was no age (only "6 year old" and "fille de 6 ans" were), so a bike for 3½-5 year olds
    came first for a 6 year old; a height, a weight, a number of a product or a dog's age is none."""
    assert childs_ages(text) == ages
    assert a_childs_age(text) is bool(ages)


async def test_a_child_told_of_finds_the_bike_of_its_age_first(bikes_shop):
    """ "he's 6": the 14-inch bike for 3½ to 5 year olds was first and strong; a bike for 6 year olds (the 16-inch
    for 4 to 6, the 20-inch trail bike for 6 to 9) comes first."""
    search = bikes_shop.search
    result = await search.search(
        search.request(
            "looking for a first proper bike for my son, he's 6 and about 118cm, done with the balance bike", 5
        )
    )
    fits = ("kleinwald-16-kids-bike", "kleinwald-trail-kids-mountain-bike")
    assert result.products[0].slug in fits, [(p.slug, p.match) for p in result.products]
    assert all(p.match != "strong" for p in result.products if "14" in p.name), result.products


async def test_a_childs_age_rules_out_toys_for_other_ages(toys_shop):
    """ "puzzle 100 pieces for a 5 year old": the world map puzzle comes in 100 pieces but is for 6 years and up,
    the peg puzzle is 8 pieces and the floor puzzle 48 (its name says so), so none is strong; "bicycle with gears
    for a 10 year old" finds no balance bike for 2-5 year olds strong either."""
    search = toys_shop.search
    result = await search.search(search.request("puzzle 100 pieces for a 5 year old, animals if possible", 10))
    assert result.no_strong_match, [(p.name, p.match) for p in result.products]
    result = await search.search(search.request("bicycle with gears for a 10 year old", 10))
    assert result.no_strong_match, [(p.name, p.match) for p in result.products]
    result = await search.search(search.request("jigsaw puzzle for a 6 year old", 5))
    assert result.products[0].match == "strong", result.products  # of its ages: strong as before
    assert childs_ages("my 3 and 5 year olds") == {3.0, 5.0} and childs_ages("mon bébé de 6 mois") == {0.5}
    assert childs_ages("my 10 year old dog", audiences_named(["my", "10", "year", "old", "dog"])) == frozenset()
    assert childs_ages("2 years warranty") == frozenset()
    units = {"age_min_years": "years"}
    assert age_range({"age_min_years": 6, "length_cm": 49}, units) == (6, None)
    assert age_range({"age_max_months": 36}, {}) == (None, 3.0)
    assert for_other_ages(frozenset({5.0}), {"age_min_years": 6}, units)
    assert not for_other_ages(frozenset({5.0, 7.0}), {"age_min_years": 6}, units)  # for one of them
    assert not for_other_ages(frozenset({5.0}), {"length_cm": 49}, units)  # no age given: not held to it
    assert amounts("Floor Puzzle, 48 pieces") == {"pcs": frozenset({48.0})}
    assert amounts("1000-piece jigsaw") == amounts("Puzzle 1000 Teile") == {"pcs": frozenset({1000.0})}


async def test_a_colour_said_in_german_or_french_is_a_colour(sample_shop, garden_shop):
    """ "sac à main noir", "schwarze Regenjacke": "noir" and "schwarze" name black, where the catalog speaks
    English; they were taken for the thing asked for (or a kind of it), so the black crossbody bag was no strong
    match, and rain jackets in no black were. A word the catalog's texts use ("rose" of roses in a garden shop)
    stays a word."""
    search = sample_shop.search
    result = await search.search(search.request("sac à main noir", 5))
    assert result.products[0].slug == "pelle-rossa-leather-crossbody-bag", result.products
    assert result.products[0].match == "strong", result.products
    found = {p.slug: p.match for p in (await search.search(search.request("schwarze regenjacke", 10))).products}
    assert found["brightwater-packable-rain-jacket"] == "strong", found
    assert found["fjellstad-lightweight-hiking-rain-jacket"] != "strong", found  # made in no black
    assert builtin_colour("schwarzen") == "black" and builtin_colour("noires") == "black"
    assert builtin_colour("grüne") == "green" and builtin_colour("hallo") is None
    search = garden_shop.search
    result = await search.search(search.request("rose feed", 5))
    assert result.products[0].match == "strong" and "Rose" in result.products[0].name, result.products


async def test_german_and_french_names_of_things_are_read_as_written(bikes_shop, toys_shop):
    """ "Fahrradschloss" is searched as "bike lock" where the shop's names say "Bike" (not "bicycle lock", whose
    "bicycle" no lock's text has); "réparation de vélo" asks for a repair, not a bike (French names the thing
    first, and what follows "de" says which kind: "déguisement de pirate" is no knight costume); "Puzzle 1000
    Teile" asks for a puzzle, "Teile" being the unit of its amount."""
    search = bikes_shop.search
    result = await search.search(search.request("Fahrradschloss", 5))
    assert result.corrections == {"fahrradschloss": "bike lock"}, result.corrections
    assert "Lock" in result.products[0].name and result.products[0].match == "strong", result.products
    result = await search.search(search.request("vous faites la reparation de velo ?", 5))
    assert result.no_strong_match, result.products
    result = await search.search(search.request("wir wollen mit den Kindern zum ersten Mal zelten gehen", 5))
    assert "wollen" not in result.corrections, result.corrections  # "want", no plural of "Wolle" (wool)
    search = toys_shop.search
    result = await search.search(search.request("déguisement de pirate", 5))
    assert result.no_strong_match, result.products
    result = await search.search(search.request("Puzzle 1000 Teile", 5))
    assert "1000 pieces" in result.products[0].name and result.products[0].match == "strong", result.products
    assert modifiers(("costume", "de", "pirate"), [0, 2]) == {0: 2}
    assert modifiers(("fille", "de", "7", "ans"), [0, 2, 3]) == {3: 2}  # an age, no kind of anything


async def test_a_foreign_word_is_read_as_its_replacement_would_be_and_a_word_of_two_meanings_as_the_shops(
    bikes_shop, toys_shop
):
    """ "ferngesteuertes Auto" is the toy shop's "rc car", as "remote control car" written in English is (it stayed
    "remote control car", words a category "Vehicles & remote control" has, so the die-cast cars were as strong as
    the RC car and came first); "matelas" is a sleeping mat in a shop that sells no mattress."""
    search = toys_shop.search
    result = await search.search(search.request("ferngesteuertes Auto", 5))
    assert result.corrections == {"ferngesteuertes auto": "rc car"}, result.corrections
    assert "RC" in result.products[0].name and result.products[0].match == "strong", result.products
    assert all(p.match != "strong" for p in result.products if "Die-Cast" in p.name), result.products
    search = bikes_shop.search
    result = await search.search(search.request("il nous faut aussi des matelas", 5))
    assert "Mat" in result.products[0].name and result.products[0].match == "strong", result.products


async def test_a_thing_asked_for_after_a_situation_adds_nothing_the_situation_would(bikes_shop):
    """ "my bike got stolen … outside the station, I need a lock that actually works": a lock, asked for by name after
    the words asking for it; what a commute past the station would want (panniers, lights, mudguards) is not
    searched too (a pannier came second). "looking for a gift for a newborn" asks for no thing by "gift"."""
    search = bikes_shop.search
    result = await search.search(
        search.request(
            "my bike got stolen for the second time this year outside the station, I need a lock that actually works", 5
        )
    )
    assert all("Lock" in p.name for p in result.products[:4]), result.products
    assert asked_after_a_cue(("i", "need", "a", "new", "lock")) == [("need", "lock")]
    assert asked_after_a_cue(("looking", "for", "a", "gift", "for", "a", "newborn")) == []
    assert asked_after_a_cue(("need", "to", "carry", "2", "bikes")) == []


@pytest.mark.parametrize("trade", ["garden", "pets", "toys", "bikes", "kitchen", "electronics"])
def test_the_german_and_french_sets_name_products_of_their_shop(trade):
    """Every judged line of a German and French set is in a half and names only products of its catalog."""
    import json

    catalog = json.loads((DATA / trade / "catalog.json").read_text())
    slugs = {p["slug"] for p in (catalog["products"] if isinstance(catalog, dict) else catalog)}
    lines = [json.loads(t) for t in (DATA / trade / "queries_de_fr.jsonl").read_text().splitlines() if t.strip()]
    assert len(lines) == 24 and {line["split"] for line in lines} == {"tune", "heldout"}
    assert {line["kind"] for line in lines} <= {"german", "french"}
    assert all(set(line["acceptable"]) <= slugs for line in lines), trade


@pytest.mark.parametrize("trade", ["garden", "pets", "toys", "bikes"])
def test_the_second_batch_names_products_of_its_shop(trade):
    """Every judged line of the second blind batch (queries_2.jsonl, and the conversations of conversations_2.jsonl
    where the shop has them) is in a half and names only products of its catalog."""
    import json

    catalog = json.loads((DATA / trade / "catalog.json").read_text())
    slugs = {p["slug"] for p in (catalog["products"] if isinstance(catalog, dict) else catalog)}
    lines = [json.loads(t) for t in (DATA / trade / "queries_2.jsonl").read_text().splitlines() if t.strip()]
    raw = (DATA / trade / "messages_raw_2.md").read_text().splitlines()
    assert [line["query"] for line in lines] == [t for t in raw if t.strip()]
    assert [line["split"] for line in lines] == ["tune", "heldout"] * (len(lines) // 2)
    assert all(set(line["acceptable"]) <= slugs for line in lines), trade
    assert all(line["kind"] == "nomatch" for line in lines if not line["acceptable"])
    if (path := DATA / trade / "conversations_2.jsonl").is_file():
        conversations = [json.loads(t) for t in path.read_text().splitlines() if t.strip()]
        assert [c["split"] for c in conversations] == ["tune", "heldout"] * (len(conversations) // 2)
        for turn in [t for c in conversations for t in c["turns"]]:
            named = set(turn["expect"].get("acceptable", [])) | set(turn["expect"].get("products", []))
            assert named | set(turn["expect"].get("facts") or {}) <= slugs, turn["say"]


@pytest.mark.parametrize("batch", [3, 4])
@pytest.mark.parametrize("trade", ["garden", "pets", "toys", "bikes"])
def test_the_later_conversation_batches_are_as_written_and_name_products_of_their_shop(trade, batch):
    """The third and fourth blind batches of conversations (conversations_3.jsonl, conversations_4.jsonl): every
    shopper turn as the raw file has it, in a half by position, naming only products of its catalog."""
    import json

    catalog = json.loads((DATA / trade / "catalog.json").read_text())
    slugs = {p["slug"] for p in (catalog["products"] if isinstance(catalog, dict) else catalog)}
    raw = (DATA / trade / f"conversations_raw_{batch}.md").read_text().splitlines()
    said = [line.split(". ", 1)[1] for line in raw if line[:1].isdigit()]
    path = DATA / trade / f"conversations_{batch}.jsonl"
    conversations = [json.loads(t) for t in path.read_text().splitlines() if t]
    assert [t["say"] for c in conversations for t in c["turns"]] == said
    assert [c["split"] for c in conversations] == ["tune", "heldout"] * 4
    for turn in [t for c in conversations for t in c["turns"]]:
        named = set(turn["expect"].get("acceptable", [])) | set(turn["expect"].get("products", []))
        assert named | set(turn["expect"].get("facts") or {}) <= slugs, turn["say"]


def test_a_size_before_max_and_a_price_is_no_price():
    """ "chaussures de rando homme 44 max 120€": "44" is the size and "max 120€" the price (it was read as at most
    €44, so the €99 hiking shoe was over budget); "1kg max" and "120 max" are as before."""
    assert price_ceiling("chaussures de rando homme 44 max 120€") == Decimal("120")
    assert price_ceiling("size 44, 120 max") == Decimal("120") and price_ceiling("1kg max") is None


async def test_what_a_thing_is_made_of_said_after_it_is_no_thing(kitchen_shop, sample_shop):
    """ "Schneidebrett Holz", "boîtes de conservation en verre", "pull chaud en laine": German and French shoppers
    name the thing and then its material. The material was taken for the thing asked for, so a beech rolling pin
    was a strong match for a wooden chopping board the shop does not sell and the glass spice jars came before the
    glass meal-prep containers. A material products are named by stays the thing ("wine glass"), and "clean suede"
    asks for nothing called clean."""
    search = kitchen_shop.search
    result = await search.search(search.request("schneidebrett holz", 5))
    assert result.no_strong_match, result.products
    result = await search.search(search.request("boites de conservation en verre pour le frigo", 5))
    assert result.products[0].slug == "glasklar-glass-meal-prep-containers", result.products
    assert result.products[0].match == "strong", result.products
    result = await search.search(search.request("wine glass", 5))
    assert result.products[0].slug == "glasklar-crystal-wine-glasses" and result.products[0].match == "strong"
    search = sample_shop.search
    result = await search.search(search.request("clean suede", 5))
    assert result.no_strong_match, result.products
    result = await search.search(search.request("pull chaud en laine", 5))
    assert result.products[0].match == "strong" and "Sweater" in result.products[0].name, result.products


async def test_courtesies_are_no_thing_and_a_singular_is_the_catalogs_plural(electronics_shop, kitchen_shop):
    """ "une batterie externe pas trop lourde svp": "svp" (please) was the last word, so the thing asked for,
    and no power bank was a strong match. "container" is a word of a catalog whose texts only say "containers"."""
    search = electronics_shop.search
    result = await search.search(
        search.request(
            "je pars en voyage et j'ai peur de plus avoir de batterie, une batterie externe pas trop lourde svp", 5
        )
    )
    assert "Power Bank" in result.products[0].name and result.products[0].match == "strong", result.products
    vocabulary = await kitchen_shop.search.vocabulary()
    assert vocabulary.uses("container") and vocabulary.uses("containers") and not vocabulary.uses("containe")


async def test_a_trouble_told_finds_what_answers_it_and_a_thing_named_is_searched_as_named(
    electronics_shop, sample_shop
):
    """ "something so i can turn the lights off from bed without getting up" found an e-reader first: nothing of
    the sentence names a smart bulb. The shipped list of troubles (words/needs_en.tsv) adds "smart bulb plug
    remote". A request naming the thing ("regenjacke wasserdicht zum wandern") gets nothing added: hiking boots
    would come before the rain jacket asked for."""
    search = electronics_shop.search
    result = await search.search(
        search.request("something so i can turn the lights off from bed without getting up", 5)
    )
    assert "Smart Bulb" in result.products[0].name and result.products[0].match == "strong", result.products
    search = sample_shop.search
    result = await search.search(search.request("regenjacke wasserdicht zum wandern", 5))
    assert "Rain Jacket" in result.products[0].name, result.products
    # the feet told of: boots or socks, not gloves for "freezing" (nor insoles for "on" and "feet" apart)
    for said in ("my feet are always freezing on my walk to work", "feet always freezing walk work"):
        result = await search.search(search.request(said, 5))
        assert any(word in result.products[0].name for word in ("Boot", "Socks")), (said, result.products)


async def test_any_thing_may_be_a_gift_whatever_category_is_called_gifts(toys_shop):
    """ "looking for a gift for a newborn": the toy shop's category "Party & small gifts" made "gift" a kind of
    thing, so the rattle the baby situation finds first (its text says no "gift") was no strong match."""
    search = toys_shop.search
    result = await search.search(search.request("looking for a gift for a newborn, nothing too big please", 5))
    assert result.products[0].match == "strong" and "Rattle" in result.products[0].name, result.products


async def test_what_a_thing_is_for_is_read_from_the_shoppers_words_not_those_added_for_a_trouble(electronics_shop):
    """ "need something for the laptop, my neck hurts": the trouble adds "stand monitor arm ergonomic", and those
    were read as part of what the thing is for, so the laptop stand (a "stand", said for) was taken for the thing
    the asked one goes with and was no strong match."""
    search = electronics_shop.search
    result = await search.search(search.request("need something for the laptop, my neck hurts", 5))
    assert "Laptop Stand" in result.products[0].name and result.products[0].match == "strong", result.products


async def test_rasensaat_is_the_lawn_seed_a_garden_shop_sells(garden_shop):
    """ "Rasensaat Schatten": lawn seed, as the garden shop calls it (read as grass seed, which its names never say,
    the wildflower mix came first)."""
    search = garden_shop.search
    result = await search.search(search.request("Rasensaat Schatten", 5))
    assert result.products[0].slug == "kiemkracht-hard-wearing-family-lawn-seed", result.products
