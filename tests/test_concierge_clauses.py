"""A message asking several things at once is answered for each: its questions are found (with
the words around them that ask nothing), gathered by what answers them, and each kind answered
from its own source (the offline assistant's FactFinder)."""

from __future__ import annotations

import pytest

from shopagent.adapters.local.concierge.clauses import by_kind, kind_of, questions_of
from shopagent.adapters.local.concierge.facts import FactFinder
from shopagent.adapters.local.concierge.replies import ENGLISH
from shopagent.domain.options import fold

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("message", "questions"),
    [("what film does it use and how much is a pack of it? is it easy enough for my 10 year old",
      ["what film does it use", "how much is a pack of it?", "is it easy enough for my 10 year old"]),
     ("is the peeler ok for lefties? my wife is a lefty. and do the tongs have silicone tips",
      ["is the peeler ok for lefties? my wife is a lefty.", "and do the tongs have silicone tips"]),
     ("I'm quite short. whats the inside leg length?", ["I'm quite short. whats the inside leg length?"]),
     ("elle gratte ? et elle est doublée ou pas ?", ["elle gratte ?", "et elle est doublée ou pas ?"]),
     ("black and white?", ["black and white?"])],
)  # fmt: skip
def test_a_message_is_parted_into_its_questions(message, questions):
    assert questions_of(message) == questions


@pytest.mark.parametrize(
    ("question", "kind"),
    [("how much weight does it take max", "text"), ("how heavy is it", "weight"), ("wie viel wiegt er?", "weight"),
     ("is the peeler ok for left handed people", "text"), ("any left in M?", "stock"),
     ("how many are left", "stock"), ("how much is a pack", "price"), ("is it on sale", "discount"),
     ("ist das echte seide fur den preis", "text"), ("is it real silk for the price", "text"),
     ("that kettle you mentioned, how much was it?", "price"), ("how much?", "price"),
     ("the second one - how much?", "price"), ("how much does it hold?", "text")],
)  # fmt: skip
def test_what_a_question_asks_for(question, kind):
    assert kind_of(question) == kind


def test_questions_of_one_kind_stay_one_message():
    assert by_kind("is it warm? is it waterproof?") == {"text": "is it warm? is it waterproof?"}
    assert by_kind("how much is it? and is it waterproof?") == {
        "price": "how much is it?",
        "text": "and is it waterproof?",
    }


CAMERA = {
    "name": "Snap Instant Camera",
    "description": "Prints 5 x 7.6 cm photos on sticky-backed zinc paper, with no ink or film to buy. "
    "One big button and no settings: simple enough for children from 6.",
    "variations": [],
    "effectivePrice": "64.90",
    "price": "64.90",
    "currency": "EUR",
}


async def test_a_price_asked_beside_other_things_does_not_stop_them_being_answered():
    lines = await FactFinder(ENGLISH).answer(
        "what paper does it use and how much is it? is it easy enough for my 10 year old", [CAMERA], {}, str,
        lambda _: "",
    )  # fmt: skip
    answer = "\n".join(lines)
    assert "zinc paper" in answer and "€64.90" in answer and "simple enough for children" in answer, answer


def test_the_words_around_a_question_do_not_decide_what_it_asks():
    said = "the oxford and the loafer are the same price, which one is more comfortable for standing all day?"
    assert list(by_kind(said)) == ["text"]


KIBBLE = {
    "name": "Adult Dog Food, Salmon",
    "description": "A grain-free dry food for adult dogs, with 32% fresh salmon. A 12 kg bag lasts a 20 kg dog "
    "about seven weeks.",
    "specText": ["fat 15 %", "protein 28 %"],
    "variations": [],
}
SENIOR = {
    "name": "Senior Dog Food, Turkey",
    "description": "For dogs from about 7 years and for dogs that need to lose a little weight. Turkey is the main "
    "protein.",
    "specText": ["fat 9 %"],
    "variations": [],
}


async def test_what_sets_products_apart_is_what_each_is_and_its_specs():
    lines = await FactFinder(ENGLISH).answer(
        "whats the difference between the two? my dog is 8 and a bit chubby", [KIBBLE, SENIOR], {}, str, lambda _: ""
    )
    assert lines[0].startswith("Adult Dog Food, Salmon: A grain-free dry food for adult dogs, with 32% fresh"), lines
    assert "Specs: fat 15 %, protein 28 %." in lines[0] and "lose a little weight" in lines[1], lines
    # a difference asked on something is answered on it
    lines = await FactFinder(ENGLISH).answer(
        "how long a bag lasts, difference between them?", [KIBBLE, SENIOR], {}, str, lambda _: ""
    )
    assert "seven weeks" in lines[0] and "Specs" not in lines[0], lines
    # the price they were shown at is no difference asked on
    lines = await FactFinder(ENGLISH).answer("whats the difference between the two at 89?", [KIBBLE, SENIOR], {}, str,
                                             lambda _: "")  # fmt: skip
    assert "Specs: fat 15 %" in lines[0], lines


def test_couteaux_is_no_price_and_wieviel_asks():
    assert kind_of("il tient combien de couteaux ?") == "text" and kind_of("ca coute combien ?") == "price"
    assert questions_of("geht das mit alexa? und wieviel watt hält die aus") == [
        "geht das mit alexa?",
        "und wieviel watt hält die aus",
    ]


async def test_each_of_several_questions_finds_its_own_sentence():
    plug = {
        "name": "Mini Plug",
        "description": "A compact plug for UK sockets that works with Alexa and Google Home. The relay inside is "
        "quiet.",
        "variations": [],
    }
    other = {"name": "Wall Switch", "description": "A switch for the wall.", "variations": []}
    lines = await FactFinder(ENGLISH).answer(
        "does it work with alexa? and is it loud?", [plug, other], {}, str, lambda _: ""
    )
    assert "works with Alexa" in lines[0] and "quiet" in lines[0], lines


async def test_a_question_the_text_does_not_answer_beside_one_it_does_is_said_to_be_untold():
    kitten = {"name": "Kitten Food", "description": "Dry food for kittens from 8 weeks to 12 months.", "variations": []}
    lines = await FactFinder(ENGLISH).answer(
        "is it ok for a kitten of 4 months? how many grams a day?", [kitten], {}, str, lambda _: ""
    )
    assert lines == [
        "Kitten Food: Dry food for kittens from 8 weeks to 12 months. The product information doesn't say anything "
        "about the rest of your question."
    ]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("est-ce qu'il a la réduction de bruit ?", "text"),  # noise cancelling, not a price cut
        ("does it have reduced noise?", "text"),
        ("is there a reduction?", "discount"),
        ("is it reduced?", "discount"),
    ],
)
def test_noise_reduction_is_not_a_discount(text, kind):
    from shopagent.domain.options import fold

    assert kind_of(fold(text)) == kind


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("is it safe for puppies?", []),  # "safe" alone names no spec: not "dishwasher safe"
        ("is it kink-free?", []),
        ("is it dishwasher safe?", ["dishwasher safe: yes"]),
        ("grain free?", ["grain free: yes"]),
    ],
)
def test_a_spec_is_asked_by_its_own_word_not_by_safe_or_free_alone(question, said):
    from shopagent.adapters.local.concierge.asked import specs_about

    product = {
        "specs": {"dishwasher_safe": True, "phthalate_free": True, "grain_free": True},
        "specText": ["dishwasher safe: yes", "phthalate free: yes", "grain free: yes"],
    }
    assert specs_about(question, product) == said


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("colours?", "stock"),  # the colours it comes in
        ("which colours does it come in", "stock"),
        ("welche Farben gibt es?", "stock"),
        ("do the colours fade in the dishwasher?", "text"),  # asked of its text, not its stock
        ("which colour is the lid?", "text"),
        ("which colour temperature is it?", "text"),
        ("how many colours can it show?", "text"),
        ("does the noise reduction work?", "text"),
        ("how much does the large bowl hold?", "text"),  # what it holds, not its price
        ("how much is the large bowl?", "price"),
    ],
)
def test_what_it_comes_in_holds_or_costs_is_told_from_what_its_text_says(text, kind):
    from shopagent.domain.options import fold

    assert kind_of(fold(text)) == kind


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("is the cheaper watch waterproof", "text"),
        ("whats the capacity of the cheaper kettle", "text"),
        ("ist die günstigere uhr wasserdicht", "text"),
        ("how much is the cheaper one", "price"),
        ("and the cheaper one?", "price"),
        ("whats the cheapest option of the sets", "price"),
        ("which of the toys is the cheapest", "price"),
        ("welche ist die billigste?", "price"),
        ("le moins cher, c'est lequel ?", "price"),
    ],
)
def test_a_product_pointed_at_by_its_price_is_not_its_price_asked(question: str, kind: str):
    """ "is the cheaper watch waterproof" asks whether it is waterproof (was its price); which one is the
    cheapest, or the cheaper one alone, still asks the price."""
    assert kind_of(fold(question)) == kind
