"""A message asking several things at once is answered for each: its questions are found (with
the words around them that ask nothing), gathered by what answers them, and each kind answered
from its own source (the offline assistant's FactFinder)."""

from __future__ import annotations

import pytest

from shopagent.adapters.local.concierge.clauses import by_kind, kind_of, questions_of
from shopagent.adapters.local.concierge.facts import FactFinder
from shopagent.adapters.local.concierge.replies import ENGLISH

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
     ("how many are left", "stock"), ("how much is a pack", "price"), ("is it on sale", "discount")],
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
