"""Prices, ranges and sizes as shoppers write them, in English, German and French: every
phrase of the table is read into the filters it means (the offline assistant's reading)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from shopagent.domain.options import fold
from shopagent.domain.price_words import price_ceiling
from shopagent.settings import CatalogSettings, LanguageAliases, Settings
from shopagent.wiring.providers import build_concierge

# A shop with letter and number sizes, and one range the shop names by a letter.
SHOP = build_concierge(
    Settings(
        catalog=CatalogSettings(
            sizes=["XS", "S", "M", "L", "XL", "XXL", *map(str, range(36, 48))],
            language_aliases={"en": LanguageAliases(sizes={"43-46": "L", "39-42": "M"})},
        )
    )
)

# (message, minimum price, maximum price); "around" widens a price by 20 % (a range by 10 %); a budget for
# everything together sets no minimum.
PRICES = [
    ("budget 2000-2500", 2000, 2500),
    ("road bike, budget 2000 - 2500", 2000, 2500),
    ("between 50 and 100", 50, 100),
    ("between 50 and 100 euros", 50, 100),
    ("something around 60-80", 54, 88),
    ("around 100", 80, 120),
    ("about 50 euro", 40, 60),
    ("is there a bundle? budget maybe 50 euros", 40, 60),
    ("budget vielleicht 50 euro", 40, 60),
    ("500 max", None, 500),
    ("like 500 max", None, 500),
    ("under 30 for the pair", None, 30),
    ("no more than 45€", None, 45),
    ("€20 to €40", 20, 40),
    ("20-40 eur", 20, 40),
    ("bis 80 €", None, 80),
    ("zwischen 50 und 100 Euro", 50, 100),
    ("so um die 70 euro", 56, 84),
    ("ca. 40 €", 32, 48),
    ("höchstens 120", None, 120),
    ("moins de 25 €", None, 25),
    ("entre 30 et 60 euros", 30, 60),
    ("environ 90 €", 72, 108),
    ("pas plus de 200", None, 200),
    ("a partir de 15 euros", 15, None),
    # "cheaper than" an amount is a ceiling, not a request for cheaper ones than those shown
    ("vous avez quelque chose de moins cher que 150 € ?", None, 150),
    ("gibt es was günstigeres als 80 euro", None, 80),
    ("anything cheaper than 40?", None, 40),
    # not spending more than an amount is a ceiling too ("more than 40" alone is a floor)
    ("anything cheaper? dont wanna spend more than 40 or so", None, 40),
    ("i don't want to spend more than 40", None, 40),
    ("any cheaper? dont really want to go over 150", None, 150),
    ("dont want to pay over 50", None, 50),
    ("nothing over 60 please", None, 60),
    ("je ne veux pas dépasser 80 €", None, 80),
    ("more than 40 euros", 40, None),
    ("it shouldnt cost more than 50", None, 50),
    ("dont want it to cost more than 50", None, 50),
    ("nothing that costs more than 50", None, 50),
    ("don't want to spend anything over 40", None, 40),
    ("je ne veux pas payer plus de 40", None, 40),
    ("over 50 is too much", None, 50),
    # no limit said: a floor, as "more than 40" alone ("doesn't matter" and "don't mind" are no ceiling)
    ("i don't mind spending more than 50 if it lasts", 50, None),
    ("never mind going over 100", 100, None),
    ("not a problem to spend more than 100", 100, None),
    ("nothing under 20", 20, None),
    ("I don't usually spend more than 40", None, 40),
    ("we don't ever spend over 60", None, 60),
    ("secateurs, happy to pay up to 30", None, 30),
    # a most said with "about" is that most (it was read as between 120 and 180)
    ("Preis bis etwa 150 Euro für das Paar", None, 150),
    ("up to about 80", None, 80),
    ("jusqu'à environ 100 €", None, 100),
    ("bis etwa 25", None, 25),
    # A number with a unit after it is no price: a time, a weight, a length, an age, a count.
    ("chews that last more than 2 minutes", None, None),
    ("over 10 years old", None, None),
    ("for a 10kg dog, under 30", None, 30),
    ("lead at least 2 m long", None, None),
    # an area is no price either: the amount said in money is ("für ca 200qm", "for about 200 m2")
    ("Rasenmäher für ca 200qm, so um die 300 euro", 240, 360),
    ("lawn mower for about 200 m2, around 300 euros", 240, 360),
    ("tondeuse pour environ 300 m², budget 250 €", None, 250),
    ("bis 28 cm", None, None),
    ("plus de 3 mois", None, None),
    ("for my 3 dogs, max 40", None, 40),
    ("a kettle that doesn't go over 80 degrees", None, None),
    ("a puppy that wont go over 20 kilos", None, None),
    ("i run more than 10 km a week", None, None),
    ("for over 20°C", None, None),
    ("under 12.50", None, Decimal("12.50")),
    # a budget for everything together: no floor under one thing of it
    ("Budget insgesamt ca. 200 €", None, 240),
    ("about 150 in total for the lot", None, 180),
    ("between 100 and 150 euros for everything", None, 150),
    ("environ 100 € au total", None, 120),
]


@pytest.mark.parametrize(("text", "low", "high"), PRICES)
def test_prices_and_ranges(text, low, high):
    reading = SHOP.read(text)
    assert (reading.min_price, reading.max_price) == (
        Decimal(low) if low is not None else None,
        Decimal(high) if high is not None else None,
    ), text


# (message, sizes) — size words, ranges a shop names by a letter, ranges of number sizes.
SIZES = [
    ("hoodie in medium", ["M"]),
    ("a medium t-shirt", ["M"]),
    ("size large", ["L"]),
    ("extra large jacket", ["XL"]),
    ("taille 43-46", ["L"]),
    ("socks size 43-46", ["L"]),
    ("Größe 39-42", ["M"]),
    ("shoes size 41-43", ["41", "42", "43"]),
    ("size 42", ["42"]),
    ("xl or xxl", ["XL", "XXL"]),  # letter sizes that are no words, as typed
    ("gloves in xs", ["XS"]),
    ("a jacket in size 2XL", ["XXL"]),  # a number and letters: "2xl", "3xl"
    ("2xl hoodie", ["XXL"]),
]


@pytest.mark.parametrize(("text", "sizes"), SIZES)
def test_size_words_and_ranges(text, sizes):
    reading = SHOP.read(text)
    assert reading.sizes == sizes, text
    assert reading.min_price is None and reading.max_price is None, text


@pytest.mark.parametrize(
    "text",
    [
        "a small speaker for the kitchen",
        "large print kindle",
        "un grand écran",
        "ein kleiner Lautsprecher",
        "what sizes does it come in",  # "size" + "s" is no size S
        "which sizes do you have",
    ],
)
def test_words_that_are_not_sizes(text):
    assert SHOP.read(text).sizes == [], text


@pytest.mark.parametrize(
    ("text", "unknown", "searched"),
    [
        ("sneakers in size 48", ["48"], ["sneakers"]),  # the shop's number sizes are 36 to 47
        ("size 48 sneakers please", ["48"], ["sneakers"]),
        ("Turnschuhe Größe 49 in schwarz", ["49"], ["turnschuhe"]),
        ("gloves for roses, size 8", ["8"], ["gloves", "roses"]),
        ("une robe taille XXXS", ["XXXS"], ["robe"]),
        ("boots size 48/49", ["48", "49"], ["boots"]),
        ("jeans in size 3XL", ["3XL"], ["jeans"]),  # the shop's largest is XXL
        # the shop's own sizes, amounts of something else, and the German "große" (big) are none
        ("sneakers in size 42", [], None),
        ("a size 40 € gift card", [], None),
        ("onesie size 8 months", [], None),
        ("Puzzle Größe 2 Stück", [], None),
        ("robe taille 2 ans", [], None),
        ("shoes size 10 UK", [], None),
        ("size 48 (UK 13)", [], None),
        ("UK size 8 dress", [], None),  # another system's size
        ("große 4-Personen Auflaufform", [], None),
        ("what sizes do you have", [], None),
    ],
)
def test_a_size_the_shop_does_not_have_is_kept_apart_from_what_is_searched(text, unknown, searched):
    reading = SHOP.read(text)
    assert reading.unknown_sizes == unknown, text
    assert (reading.unsized[0] if reading.unsized else None) == searched, text
    assert not (unknown and reading.sizes), text


def test_a_size_that_begins_one_of_the_shops_is_left_to_the_search():
    assert MEASURED.read("frying pan size 24").unknown_sizes == []  # the shop has "24 CM"
    assert (
        build_concierge(Settings(catalog=CatalogSettings(sizes=["1.5 L"]))).read("Schüssel Größe 1,5").unknown_sizes
        == []
    )


# A shop whose sizes are measures ("55 INCH", "24 CM").
MEASURED = build_concierge(Settings(catalog=CatalogSettings(sizes=["27 INCH", "55 INCH", "24 CM", "ONE SIZE"])))


@pytest.mark.parametrize(
    ("text", "sizes"),
    [
        ("55 inch tv", ["55 INCH"]),
        ("a tv in 55 inch", ["55 INCH"]),
        ("frying pan 24cm", ["24 CM"]),
        # the measure of the thing it is for, not of the thing asked for
        ("wall mount bracket for a 55 inch tv", []),
        ("monitor arm for my 27 inch screen", []),
        ("a lid for a 24 cm pan", []),
        ("a bracket for 55 inch", ["55 INCH"]),  # nothing after it: the bracket's own size
        # a measure of something else the shopper has ("beds 2m x 1m, 40cm deep", "a 24 cm x 24 cm hole")
        ("raised beds 2m x 1m each, 24cm deep. what should I fill them with", []),
        ("a hole 24 cm x 24 cm", []),
        ("a pot 24 cm across", ["24 CM"]),
    ],
)
def test_a_measure_of_what_the_thing_is_for_is_no_size_of_it(text, sizes):
    assert MEASURED.read(text).sizes == sizes, text


# (message, a question?, pointing at one shown product, by position or a pronoun?)
QUESTIONS = [
    ("is the second one waterproof?", True, True),
    ("how far will the battery go on one charge", True, False),
    ("battery life?", True, False),
    ("ok and the third one, is it any cheaper", True, True),
    ("ist der wasserdicht?", True, True),
    ("kann man den mit dem handy steuern?", True, True),
    ("est-ce qu'elle est étanche ?", True, True),
    ("ok the first one — how long does a bag last for a 10kg dog", True, True),
    ("the second one - is it waterproof", True, True),
    ("a t-shirt is what I need", False, False),
    ("in size 42?", False, False),
    ("cheaper ones?", False, False),
    ("warm winter boots", False, False),
]


@pytest.mark.parametrize(("text", "question", "one"), QUESTIONS)
def test_questions_about_what_was_shown(text, question, one):
    reading = SHOP.read(text)
    assert (reading.question, reading.points_at_one or bool(reading.refs)) == (question, one), text


@pytest.mark.parametrize(
    ("text", "all_of_them"),
    [("which one would you say is easier for a beginner", True), ("which is better for a small kitchen?", True),
     ("welcher ist leichter?", True), ("welche würden Sie empfehlen?", True), ("lequel est le plus léger ?", True),
     ("which sizes does it come in?", False), ("welche Farben gibt es?", False)],
)  # fmt: skip
def test_which_one_asks_about_every_product_shown(text, all_of_them):
    """ "Which one would you say is easier?" is asked of the whole list, not of the one detailed last."""
    assert SHOP.read(text).points_at_all is all_of_them, text


@pytest.mark.parametrize(
    ("text", "more"),
    [("Le bac couvert en blanc, il est encore en stock ?", False), ("la robe existe encore en rose ?", False),
     ("encore des modèles ?", True), ("vous en avez encore ?", True)],
)  # fmt: skip
def test_encore_is_still_after_a_verb_and_more_otherwise(text, more):
    assert SHOP.read(text).more is more, text


@pytest.mark.parametrize(
    ("text", "about_the_shop"),
    [("il est livré avec quels accessoires ?", False), ("elle est livrée avec une housse ?", False),
     ("vous livrez en Suisse ?", True), ("la livraison prend combien de temps ?", True)],
)  # fmt: skip
def test_livre_avec_is_what_comes_in_the_box_not_a_delivery_question(text, about_the_shop):
    assert SHOP.read(text).store_question is about_the_shop, text


# Questions about the shop itself, written as customers ask them (en, de, fr): never a product search.
ABOUT_THE_SHOP = [
    "can i collect from your shop",
    "do you have a physical store i can visit",
    "where are you based",
    "where is your warehouse",
    "can i order by phone",
    "is there a number I can call?",
    "what is your email",
    "do I have to pay upfront?",
    "can I pay over the phone?",
    "i got the wrong item",
    "is there a discount code",
    "do you have gift cards",
    "do you sell gift vouchers",
    "how do i use my voucher code",
    "do you do gift wrapping",
    "can i call you",
    "how can i reach customer service",
    "is there a student discount",
    "do you price match",
    "my package never came",
    "what's your cancellation policy",
    "can you gift wrap it",
    "can i pick up in store",
    "kann ich die Bestellung im Laden abholen?",
    "Gibt es Gutscheine?",
    "Kann ich meine Bestellung stornieren?",
    "Habt ihr einen Laden?",
    "Quels sont les frais de port ?",
    "Puis-je annuler ma commande ?",
    "Avez-vous un code promo ?",
    "Vendez-vous des cartes cadeaux ?",
    "Avez-vous une boutique physique ?",
]
# ... and products or questions about them that share a word with those
ABOUT_PRODUCTS = [
    "headphones with active noise cancellation",
    "noise cancelling earbuds",
    "a gift for my dad",
    "kann man das laden ohne kabel",
    "charging case for earbuds",
    "a card holder wallet",
    "any discount on it?",
    "laces that never come undone?",
    "gift wrapping paper",
    "any gift card holder?",
    "coupon organizer wallet",
    "voucher binder",
    "in-store display stand",
    "does it charge your phone?",
    # a budget, though it says "pay"
    "a spade, I don't want to pay more than 40",
    "secateurs, happy to pay up to 30",
]


@pytest.mark.parametrize("text", ABOUT_THE_SHOP + ABOUT_PRODUCTS)
def test_questions_about_the_shop_itself_are_told_from_product_requests(text):
    assert SHOP.read(text).store_question is (text in ABOUT_THE_SHOP), text


@pytest.mark.parametrize(
    ("text", "refs"),
    [("les deuxièmes existent en marron ?", [2]), ("les premiers sont en cuir ?", [1]), ("le deuxième ?", [2]),
     ("mon premier appartement", []), ("chaussures pour les premiers pas", [])],
)  # fmt: skip
def test_french_plural_ordinals_point_at_a_position(text, refs):
    assert SHOP.read(text).refs == refs, text


@pytest.mark.parametrize(
    ("text", "about"),
    [("et la deuxième ?", True), ("et pour la noire, il y a du 42 ?", True), ("what about the second one", True),
     ("la jupe en laine, elle gratte ? et elle est doublée ou pas ?", False),
     ("la pierre est facile à utiliser ? et ça marche pour le nakiri ?", False)],
)  # fmt: skip
def test_et_is_what_about_only_where_it_opens_the_message(text, about):
    """ "Et la deuxième ?" turns to another product; an "et" joining two questions about one does not."""
    assert SHOP.read(text).about is about, text


@pytest.mark.parametrize(
    ("text", "wants"),
    [("Wie viel Wasseraufbereiter brauche ich bei 15 Litern?", False), ("how many do I need for a 60 l tank?", False),
     ("combien il m'en faut pour 15 l ?", False), ("ich brauche einen Wasseraufbereiter", True),
     ("i need a water conditioner", True)],
)  # fmt: skip
def test_a_need_asked_about_is_not_a_request(text, wants):
    assert SHOP.read(text).request is wants, text


@pytest.mark.parametrize(
    ("text", "ordinals", "about_the_shop"),
    [("do i need to soak it first?", [], False), ("the first one, is it sharp?", [1], False),
     ("lequel tient la pluie ? je veux pas un truc qui m'arrive aux chevilles", [], False),
     ("when will it arrive?", [], True)],
)  # fmt: skip
def test_first_after_it_and_arriver_a_are_not_what_they_seem(text, ordinals, about_the_shop):
    reading = SHOP.read(text)
    assert (reading.ordinals, reading.store_question) == (ordinals, about_the_shop), text


@pytest.mark.parametrize(
    ("text", "measure"),
    [
        ("Bikepacking Zelt für 1 Person unter 1,5 kg", "1,5 kg"),
        ("a tent under 1.5 kg", "1.5 kg"),
        ("moins de 0,8 kg", "0,8 kg"),
    ],
)
def test_a_measure_with_decimals_is_searched_as_one_number_and_is_no_price(text, measure):
    """ "unter 1,5 kg" searched as "unter 1 5 kg" read "unter 1" as a price of €1."""
    reading = SHOP.read(text)
    assert measure in reading.query and reading.max_price is None, reading.query
    assert price_ceiling(reading.query) is None, reading.query


@pytest.mark.parametrize(
    ("text", "colors"),
    [
        ("eine Pumpe, aber welches Ventil mein Rad hat, weiß ich nicht", []),  # German's "know"
        ("ich weiss nicht welche Größe", []),
        ("eine weiße Jacke", ["white"]),
        ("Hemd in weiss", ["white"]),
    ],
)
def test_weiss_of_knowing_is_no_colour(text, colors):
    reading = SHOP.read(text)
    assert reading.colors == colors and "weiss" not in fold(reading.query), (reading.colors, reading.query)


@pytest.mark.parametrize(
    "text",
    [
        "wooden toys, budget insgesamt ca. 200 €",
        "wooden toys, my budget is about 200",
        "wooden toys, about 200 in total",
    ],
)
def test_the_words_of_a_budget_are_not_searched(text):
    # (were: "wooden toys budget insgesamt", "wooden toys total": the last word taken for the thing asked for)
    assert SHOP.read(text).words == ["wooden", "toys"], SHOP.read(text).words
