"""Which product shown a question is about, when it names it by a word of its name ("the nordkap
one", "P27Q vs G24", "la robe Solenne"), and the judged questions asked right after a list
(tests/data/shown_questions: written by someone who saw only the lists, judged from the catalogs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shopagent.adapters.local.concierge.pointing import named_products

pytestmark = pytest.mark.anyio


def _shown(*names: str) -> list[dict]:
    return [{"productId": n, "name": name} for n, name in enumerate(names, start=1)]


HARNESSES = _shown("Trailhound Adventure Padded Y-Harness", "Trailhound Easy-Walk No-Pull Harness")
MONITORS = _shown("Pixelmere G24 24-inch 180Hz Gaming Monitor", "Pixelmere Gas Spring Monitor Arm",
                  "Pixelmere P27Q 27-inch QHD IPS Monitor")  # fmt: skip
BANKS = _shown("Ampwell PowerCore 20000 65W Laptop Power Bank", "Inkleaf Paper 6 Folio Cover")

# (message, the list, a comparison?, the names it names)
CASES = [
    (
        "is the nordkap one warm enough for -15?",
        _shown("Moorland Country Wellie", "Nordkap Lined Leather Winter Boot"),
        False,
        ["Nordkap Lined Leather Winter Boot"],
    ),
    (
        "P27Q vs G24 for office work, which would you take?",
        MONITORS,
        True,
        ["Pixelmere G24 24-inch 180Hz Gaming Monitor", "Pixelmere P27Q 27-inch QHD IPS Monitor"],
    ),
    # the words all of them share name none of them
    ("is the harness padded?", HARNESSES, False, ["Trailhound Adventure Padded Y-Harness"]),
    ("does the trailhound harness fit a beagle?", HARNESSES, False, []),
    # set side by side with "or" ("oder", "ou", "vs"), both are named
    ("das Adventure oder das Easy-Walk?", HARNESSES, False, [h["name"] for h in HARNESSES]),
    # a long number names; a small one ("a 6 year old") does not
    ("can the 20000 one charge a laptop?", BANKS, False, ["Ampwell PowerCore 20000 65W Laptop Power Bank"]),
    ("good for a 6 year old?", BANKS, False, []),
    # a small number with its unit names ("the 20cm knife"); two products each named by a word of
    # their own are both named; a word ending a name's word names it ("the stone": the whetstone)
    (
        "can the monitor arm hold the 32 inch one?",
        [*MONITORS, *_shown("Pixelmere P32U 32-inch 4K Monitor")],
        False,
        ["Pixelmere Gas Spring Monitor Arm", "Pixelmere P32U 32-inch 4K Monitor"],
    ),
    (
        "can i use the stone on the 20cm knife?",
        _shown("Stahlberg Paring Knife 9 cm", "Stahlberg Combination Whetstone", "Stahlberg Chef's Knife 20 cm"),
        False,
        ["Stahlberg Combination Whetstone", "Stahlberg Chef's Knife 20 cm"],
    ),
    # a short plural's word and a short word's "-ing" name it: "the dog one" of "… for Dogs", "the hike socks"
    ("is the dog one washable?", _shown("Rope Tug for Dogs", "Feather Wand for Cats"), False, ["Rope Tug for Dogs"]),
    (
        "the cat one, how long is it",
        _shown("Rope Tug for Dogs", "Feather Wand for Cats"),
        False,
        ["Feather Wand for Cats"],
    ),
    (
        "the hike socks, are they warm?",
        _shown("Merino Hiking Socks", "Cotton Everyday Socks"),
        False,
        ["Merino Hiking Socks"],
    ),
    # a word ending in a double "s" is its plural's: "the dress one" of "… for Dresses", "the mosses" of "… Moss …"
    ("the dress one, how tall?", _shown("Rail for Dresses", "Shoe Rack"), False, ["Rail for Dresses"]),
    ("are the mosses hardy?", _shown("Moss Mix for Shade", "Lawn Seed"), False, ["Moss Mix for Shade"]),
]


@pytest.mark.parametrize(("text", "shown", "several", "named"), CASES, ids=[c[0] for c in CASES])
def test_a_product_is_named_by_a_word_of_its_name_the_others_do_not_share(text, shown, several, named):
    found, _ = named_products(text, shown, several=several)
    assert [p["name"] for p in found] == named


def test_the_shoppers_words_count_in_the_catalogs_language_too():
    shown = _shown("Stahlberg Garlic Press", "Kochwerk Salad Spinner")
    found, _ = named_products("Funktioniert die Knoblauchpresse?", shown, also=["garlic", "press"])
    assert [p["name"] for p in found] == ["Stahlberg Garlic Press"]


SHOWN_QUESTIONS = Path(__file__).parent / "data"
# Of each batch's 48 tune questions, the right product(s) looked up and the fact stated, less one
# (2026-12-03). The first batch: 45 and 43 (22 and 13 before questions named products by their
# names); the second, written after those changes: 43 and 37 at first, 46 and 40 once "et" joining
# two questions no longer turned the message to another product, 42 stated once each kind of question
# in a message was answered, 47 and 43 once "how much do I need?" was not a request; 44 and 45 of the
# two once "what is the difference?" was answered with what each product is and its specs.
# The third (38 English, 29 German, 29 French), written after all of those: 42 and 37 at first, 43 and
# 40 once "soak it first", "für den Preis" and German plurals were read right. Then, once two products
# each named by a word of their own were both meant ("can the monitor arm hold the 32 inch one?"): 47
# and 45, 48 and 45, 45 and 40; 45, 45 and 42 once each question of a message found its own sentences;
# 48 and 46 of the third with the words it taught (Aufschäumer, Schutzglas, vernis…).
TUNE_FLOORS = {"shown_questions": (46, 44), "shown_questions_2": (47, 46), "shown_questions_3": (47, 45)}


@pytest.mark.parametrize("batch", list(TUNE_FLOORS))
async def test_the_judged_questions_asked_right_after_a_list(
    sample_shop, kitchen_shop, electronics_shop, pets_shop, batch
):
    """The tune half (the held-out half is measured by bench/assistant_quality.py --split heldout)."""
    from shopagent.adapters.mcp.gateway import open_in_process
    from shopagent.application.agent import AssistantAgent
    from shopagent.wiring.assistant import vocabulary_source
    from shopagent.wiring.providers import build_concierge
    from tests.conversation_set import Catalog, ask_about_shown

    lines = (SHOWN_QUESTIONS / batch / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    items = [json.loads(line) for line in lines if line]
    shops = {"clothing": sample_shop, "kitchen": kitchen_shop, "electronics": electronics_shop, "pets": pets_shop}
    outcomes = []
    for shop, services in shops.items():
        catalog = Catalog(await services.catalog.list_products(limit=1000, after_id=0))
        concierge = build_concierge(services.settings, vocabulary_source(services), services.embedder)
        async with open_in_process(services.mcp_server) as tools:
            agent = AssistantAgent(concierge, tools, "system")
            for item in [i for i in items if i["shop"] == shop and i["split"] == "tune"]:
                outcomes.append(await ask_about_shown(item, agent, tools, catalog, []))
    assert all(o["grounded"] for o in outcomes), [o["answer"] for o in outcomes if not o["grounded"]]
    right = sum(o["right_products"] for o in outcomes)
    stated = sum(o["facts_ok"] is True for o in outcomes)
    floor_right, floor_stated = TUNE_FLOORS[batch]
    assert right >= floor_right and stated >= floor_stated, (right, stated)


@pytest.mark.parametrize(
    ("said", "searched"),
    [("and a case for the Paper 6?", True), ("is the Paper 6 waterproof?", False),
     ("the note 10, can you write on it with a pen?", False)],
)  # fmt: skip
async def test_a_question_mark_naming_a_product_shown_asks_about_it_unless_it_asks_for_another_thing(
    electronics_shop, said, searched
):
    from shopagent.adapters.mcp.gateway import open_in_process
    from shopagent.application.agent import AssistantAgent
    from shopagent.wiring.assistant import vocabulary_source
    from shopagent.wiring.providers import build_concierge
    from tests.conversation_set import Catalog, ask_about_shown

    catalog = Catalog(await electronics_shop.catalog.list_products(limit=1000, after_id=0))
    shown = ["inkleaf-paper-6-ereader", "inkleaf-note-10-e-ink-writing-tablet", "tabula-tab-11-android-tablet"]
    item = {"id": "x", "category": "E-readers & Tablets", "shown": shown, "say": said, "refers": [], "facts": {}}
    shop = electronics_shop
    concierge = build_concierge(shop.settings, vocabulary_source(shop), shop.embedder)
    async with open_in_process(electronics_shop.mcp_server) as tools:
        outcome = await ask_about_shown(item, AssistantAgent(concierge, tools, "system"), tools, catalog, [])
    assert (not outcome["looked_up"]) is searched, outcome["answer"]
    if searched:
        assert "Inkleaf Paper 6 Folio Cover" in outcome["answer"], outcome["answer"]


@pytest.mark.parametrize(
    ("shown", "said", "meant", "stated"),
    [
        # a thing of the shop the list does not have: found, then asked
        (["terravita-peat-free-seed-and-cutting-compost", "terravita-coir-compost-blocks"],
         "is the manure one smelly?", "terravita-pelleted-horse-manure", "don't smell"),
        # ... also where another word of the question is in the name of one shown ("stainless steel")
        (["hortwell-stainless-steel-hand-trowel-and-transplanter", "fieldmark-nitrile-coated-gardening-gloves"],
         "the spade, is it stainless steel?", "hortwell-stainless-steel-border-spade", "stainless"),
        # a material: the thing of the list's kind in it, told apart by its text ("goatskin and … leather")
        (["fieldmark-nitrile-coated-gardening-gloves", "hortwell-stainless-steel-hand-trowel-and-transplanter"],
         "the leather ones, can you wash them", "fieldmark-goatskin-rose-pruning-gauntlets", "Not washable"),
        # a position with a kind counts among the products of that kind: the second pot, not the compost
        (["terre-de-lys-glazed-stoneware-egg-pot", "terravita-peat-free-multi-purpose-compost",
          "terre-de-lys-frost-resistant-terracotta-pot"],
         "is the second pot frost proof?", "terre-de-lys-frost-resistant-terracotta-pot", "yes, frost resistant"),
        # a colour of a product shown is that product, not another thing ("the blue one")
        (["terre-de-lys-glazed-stoneware-egg-pot", "terre-de-lys-recycled-plastic-flowerpot"],
         "the blue one, is it frost proof?", "terre-de-lys-glazed-stoneware-egg-pot", "Terre de Lys Glazed"),
        (["terre-de-lys-recycled-plastic-flowerpot", "terre-de-lys-glazed-stoneware-egg-pot"],
         "is the green one frost proof?", "terre-de-lys-glazed-stoneware-egg-pot", "Terre de Lys Glazed"),
        # the cheaper (dearer) one is one of them by its price, not a request for cheaper ones
        (["terre-de-lys-glazed-stoneware-egg-pot", "terre-de-lys-recycled-plastic-flowerpot"],
         "does the cheaper one have holes?", "terre-de-lys-recycled-plastic-flowerpot", "Terre de Lys Recycled"),
        (["terre-de-lys-glazed-stoneware-egg-pot", "terre-de-lys-recycled-plastic-flowerpot"],
         "la moins chère, elle résiste au gel ?", "terre-de-lys-recycled-plastic-flowerpot", "Terre de Lys Recycled"),
        (["terre-de-lys-recycled-plastic-flowerpot", "terre-de-lys-glazed-stoneware-egg-pot"],
         "und der teurere, hat der ein Abzugsloch?", "terre-de-lys-glazed-stoneware-egg-pot", "Terre de Lys Glazed"),
    ],
)  # fmt: skip
async def test_a_question_calling_a_product_by_what_it_is_is_asked_of_that_product(
    garden_shop, shown, said, meant, stated
):
    from shopagent.adapters.mcp.gateway import open_in_process
    from shopagent.application.agent import AssistantAgent
    from shopagent.wiring.assistant import vocabulary_source
    from shopagent.wiring.providers import build_concierge
    from tests.conversation_set import Catalog, ask_about_shown

    catalog = Catalog(await garden_shop.catalog.list_products(limit=1000, after_id=0))
    item = {"id": "x", "category": "Garden", "shown": shown, "say": said, "refers": [meant], "facts": {}}
    concierge = build_concierge(garden_shop.settings, vocabulary_source(garden_shop), garden_shop.embedder)
    async with open_in_process(garden_shop.mcp_server) as tools:
        outcome = await ask_about_shown(item, AssistantAgent(concierge, tools, "system"), tools, catalog, [])
    name = catalog.by_slug[meant].name
    assert outcome["answer"].startswith(name) and stated in outcome["answer"], outcome
    assert outcome["grounded"], outcome


@pytest.mark.parametrize(
    "said",
    ["the chicken ones, any grain in them", "the chicken ones, are they grain free?"],
)
async def test_the_x_ones_of_a_kind_shown_is_that_kind_called_so_and_asked(pets_shop, said):
    """ "the chicken ones" after training treats are chicken treats of the shop, found and asked of
    (not dog food with chicken); "any grain in them" asks of them rather than for more."""
    from shopagent.adapters.mcp.gateway import open_in_process
    from shopagent.application.agent import AssistantAgent
    from shopagent.wiring.assistant import vocabulary_source
    from shopagent.wiring.providers import build_concierge
    from tests.conversation_set import Catalog, ask_about_shown

    catalog = Catalog(await pets_shop.catalog.list_products(limit=1000, after_id=0))
    meant = "meadowbite-freeze-dried-chicken-hearts-cats"
    item = {"id": "x", "category": "Treats & chews", "shown": ["meadowbite-salmon-training-treats"], "say": said,
            "refers": [meant], "facts": {}}  # fmt: skip
    concierge = build_concierge(pets_shop.settings, vocabulary_source(pets_shop), pets_shop.embedder)
    async with open_in_process(pets_shop.mcp_server) as tools:
        outcome = await ask_about_shown(item, AssistantAgent(concierge, tools, "system"), tools, catalog, [])
    assert outcome["answer"].startswith(catalog.by_slug[meant].name), outcome
    assert outcome["grounded"], outcome


GUINEA_PIGS = [
    {"productId": 1, "name": "Guinea Pig Nuggets, 2 kg", "category": "Small animal food"},
    {"productId": 2, "name": "Hamster Home, 80 cm", "category": "Small animal cages"},
    {"productId": 3, "name": "Wooden Hutch with Run", "category": "Small animal cages"},
    {"productId": 4, "name": "Timothy Hay, Second Cut", "category": "Small animal bedding"},
]


@pytest.mark.parametrize(
    ("text", "position", "meant"),
    [
        ("is the first cage big enough for 2 of them", 1, 2),  # the first of the cages, not the food
        ("and the second cage, does it have a water bottle?", 2, 3),
        ("ist der zweite Käfig groß genug?", 2, None),  # "Käfig" is no word of theirs: as positioned
        ("is the first one big enough", 1, None),  # no kind named
        ("the second pair please", 2, None),
    ],
)
def test_a_position_with_a_kind_is_counted_among_the_products_of_that_kind(text, position, meant):
    from shopagent.adapters.local.concierge.pointing import of_kind_at

    found = of_kind_at(text, GUINEA_PIGS, position)
    assert (found["productId"] if found else None) == meant


async def test_a_word_that_describes_rather_than_names_a_thing_stays_with_the_products_shown(garden_shop):
    """ "is the waterproof one ok in the rain?" after gloves: the shop's "Waterproof Garden Clogs" are
    found by the word, but "waterproof" is not what they are (clogs), so the question stays with
    the gloves shown."""
    from shopagent.adapters.mcp.gateway import open_in_process
    from shopagent.application.agent import AssistantAgent
    from shopagent.wiring.assistant import vocabulary_source
    from shopagent.wiring.providers import build_concierge
    from tests.conversation_set import Catalog, ask_about_shown

    catalog = Catalog(await garden_shop.catalog.list_products(limit=1000, after_id=0))
    shown = ["fieldmark-nitrile-coated-gardening-gloves", "fieldmark-goatskin-rose-pruning-gauntlets"]
    item = {"id": "x", "category": "Gloves", "shown": shown, "say": "is the waterproof one ok in the rain?",
            "refers": [], "facts": {}}  # fmt: skip
    concierge = build_concierge(garden_shop.settings, vocabulary_source(garden_shop), garden_shop.embedder)
    async with open_in_process(garden_shop.mcp_server) as tools:
        outcome = await ask_about_shown(item, AssistantAgent(concierge, tools, "system"), tools, catalog, [])
    names = [catalog.by_slug[s].name for s in shown]
    assert any(outcome["answer"].startswith(n) for n in names), outcome["answer"]
    assert "Clogs" not in outcome["answer"], outcome["answer"]


@pytest.mark.parametrize(
    ("text", "priced", "colour"),
    [
        ("does the cheaper one have hdmi", "cheapest", None),
        ("la moins chère, elle est longue comment ?", "cheapest", None),
        ("der günstigere, ist der wasserdicht?", "cheapest", None),
        ("is the more expensive one worth it?", "dearest", None),
        ("anything cheaper?", None, None),  # other products: cheaper ones
        ("do you have a cheaper one?", None, None),
        ("the cheaper ones please", None, None),
        ("tu en as une moins chère ?", None, None),
        ("show me the cheapest cat food", None, None),  # a noun after it: products asked for
        ("the cheaper options please", None, None),
        ("zeig mir die günstigeren", None, None),  # plural
        ("which is the cheapest?", None, None),  # compares them
        ("is the blue one midi length?", None, "blue"),
        ("die schwarze, ist die aus Baumwolle?", None, "black"),
        ("the red one", None, "red"),
        ("the white ones in M?", None, None),  # more of the list, in white
        ("the black boots in 42", None, None),
        ("any in blue?", None, None),
    ],
)
def test_a_product_shown_is_pointed_at_by_its_price_or_its_colour(text, priced, colour):
    from tests.test_concierge_facts import SHOP

    reading = SHOP.read(text)
    assert (reading.priced_ref, reading.colour_ref) == (priced, colour)


@pytest.mark.parametrize(
    ("text", "size_ref", "most"),
    [
        ("the bigger one", "big", False),
        ("a smaller one?", "small", False),
        ("the biggest one?", "big", True),
        ("the shorter one - how much?", "small", False),
        ("do you have it in a bigger size", "big", False),
        ("bigger?", "big", False),
        ("die größere", "big", False),
        ("die kleinste?", "small", True),
        ("gibt es den auch in einer längeren Variante?", "big", False),
        ("la plus grande", "big", True),
        ("une plus petite ?", "small", False),
        ("a bigger bag?", "big", False),  # what it comes in (the planner checks it is sold by the bag)
        ("die größere Packung", "big", False),
        ("bigger bags", None, False),  # a noun after it: things asked for
        ("my dog is bigger than that", None, False),  # told, not pointed at
        ("the longer lasting one", None, False),
        ("a larger dog bed", None, False),
    ],
)
def test_a_size_of_the_product_talked_about_is_pointed_at_by_how_big_it_is(text, size_ref, most):
    from tests.test_concierge_facts import SHOP

    reading = SHOP.read(text)
    assert (reading.size_ref, reading.size_most) == (size_ref, most)


@pytest.mark.parametrize(
    ("text", "refs"),
    [
        ("the first and the last please, do they come in large", [1, -1]),
        ("die letzte bitte", [-1]),
        ("how long does the battery last please", []),  # a verb
        ("does it last the whole day", []),
    ],
)
def test_the_last_with_a_courtesy_word_after_it_is_the_last_product_shown(text, refs):
    from tests.test_concierge_facts import SHOP

    assert SHOP.read(text).refs == refs


@pytest.mark.parametrize(
    ("text", "one", "all_"),
    [
        ("vous l'avez en noir ?", True, False),  # French object pronouns stand for the product
        ("tu la fais en 38 ?", True, False),
        ("est-ce qu'on peut la mettre au lave-vaisselle ?", True, False),
        ("vous les avez en noir ?", False, True),
        ("je cherche la robe rouge", False, False),  # an article before a noun
        ("je prends l'avion avec mon chat", False, False),
        ("vous avez des bottes ?", False, False),
    ],
)
def test_a_french_object_pronoun_points_at_what_was_shown(text, one, all_):
    from tests.test_concierge_facts import SHOP

    reading = SHOP.read(text)
    assert (reading.points_at_one, reading.points_at_all) == (one, all_)


def test_a_word_calls_a_product_by_a_whole_word_of_its_name_not_the_start_of_one():
    """ "the car one" is not a "Carrier" shown; "the enamel one" is an "Enamelled" pot shown."""
    from shopagent.adapters.local.concierge.pointing import called_not_shown

    carrier = [{"name": "Roamr Soft Pet Carrier", "productId": 1}]
    assert called_not_shown("the car one, does it fit a big dog?", ["car", "big", "dog"], carrier) == ["car"]
    pot = [{"name": "Ferro Enamelled Cast Iron Dutch Oven", "productId": 2}]
    assert called_not_shown("the enamel one, how big is it", ["enamel", "big"], pot) == []
