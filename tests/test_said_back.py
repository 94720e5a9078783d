"""How the offline assistant says a request back: the shopper's words as they wrote them
("dress for a wedding"), never the words left once the small ones are dropped ("dress
wedding"); and the check that finds such stop-word residue in any assistant's answer."""

from __future__ import annotations

import pytest

from shopagent.adapters.local.concierge.text import said_for, span_of
from shopagent.adapters.local.concierge.understanding import Lexicon
from shopagent.settings import Settings
from shopagent.wiring.policies import catalog_rules
from tests.conversation_set import residue

RULES = catalog_rules(Settings())  # the sample shop's colours and sizes


@pytest.mark.parametrize(
    ("message", "said"),
    [
        ("gilet for walking the dog", "gilet for walking the dog"),
        ("red dress for a wedding under 80 euro", "dress for a wedding"),
        ("shirt for work", "shirt for work"),
        ("grey work pants men", "work pants men"),
        ("des baskets pour courir, pointure 42", "baskets pour courir"),
        ("et des sacs a main en cuir ?", "sacs a main en cuir"),
        ("coat", "coat"),
        # a phrase read out between the words (a negation here) is said back with them
        ("smart but not too formal for fridays at the office", "smart but not too formal for fridays at the office"),
        ("dress in red for a wedding", "dress in red for a wedding"),
        # without a word only adding it to what was asked before ("too", "as well", "auch")
        ("fish food too, for tropical fish", "fish food, for tropical fish"),
        ("a bed as well for my cat", "bed for my cat"),
        ("ein Halsband auch für den Hund", "Halsband für den Hund"),
        ("a jacket thats not too warm for spring", "jacket thats not too warm for spring"),
        # with a word standing for the thing after its last word
        ("do you sell socks as well, the invisible kind", "socks, the invisible kind"),
        ("a lamp, the clip-on type please", "lamp, the clip-on type"),
        ("I need a lock, a strong one", "lock, a strong one"),
        ("a cable too, a long one", "cable, a long one"),
    ],
)
def test_a_request_is_said_back_as_the_shopper_wrote_it(message: str, said: str) -> None:
    reading = Lexicon(RULES, {}).read(message)
    assert said_for(reading.said, reading.query) == said


def test_words_not_found_in_their_order_give_the_query_back() -> None:
    assert span_of("dress for a wedding", "wedding dress", "dress for a wedding") == "wedding dress"
    assert said_for("dress for a wedding", "dress first") == "dress first"  # "first" read out: not in what was said


@pytest.mark.parametrize(
    ("answer", "said", "found"),
    [
        ("These come close to gilet walking dog, though not exactly…", "gilet for walking the dog",
         ["gilet walking", "walking dog"]),
        ("Here is what I found for shirt work:\n1. Marlowe Shirt - €59.00", "shirt for work", ["shirt work"]),
        ("Here is what I found for shirt for work:\n1. Marlowe Shirt - €59.00", "shirt for work", []),
        ("These come close to “dress for a summer party”:", "dress for a summer party", []),  # quoted
        ("Here is what I found:\n1. Walking Dog Lead - €9.00", "a lead for walking the dog", []),  # a listed line
        ("Here is what I found for crate for a great dane:", "looking for a crate for a great dane", []),
        ("These come close to what you asked for:", "what starter kits do you have", []),  # small words
    ],
)  # fmt: skip
def test_residue_is_the_shoppers_words_with_the_ones_between_dropped(answer: str, said: str, found: list[str]) -> None:
    assert residue(answer, said) == found
