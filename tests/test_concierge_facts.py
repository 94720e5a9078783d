"""Questions about a product shown, answered from its details by the offline assistant's
FactFinder: which sentence, spec or structured fact answers which form of question, in English,
German and French (an English catalog). The products are made up here, so that no judged set's
wording is what makes these pass."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from shopagent.adapters.local.concierge.facts import FactFinder
from shopagent.adapters.local.concierge.product_data import spec_said
from shopagent.adapters.local.concierge.replies import ENGLISH, REPLIES
from tests.test_concierge_numbers import SHOP

pytestmark = pytest.mark.anyio

NOT_TOLD = "the product information doesn't say"

TANK = {
    "name": "Reef 40 Tank",
    "description": "A 40 l glass tank with a lid and an internal filter of 200 l/h. Let it run for two weeks first.",
    "specs": {"filter_flow_lph": 200},
    "specText": ["filter flow 200 l/h"],
    "variations": [{"weightGrams": 9000}],
}
READER = {
    "name": "Folio 7 E-reader",
    "description": "A 7-inch e-reader with an adjustable warm front light for reading at night. "
    "Borrows library e-books.",
    "variations": [{"weightGrams": 180, "color": "blue"}],
}
SANDAL = {
    "name": "Trail Strap Sandal",
    "description": "A walking sandal with a cushioned footbed. Deep lugs grip on wet rock.",
    "material": "nylon webbing, rubber outsole",
    "variations": [{"weightGrams": 480}],
}
LITTER = {
    "name": "Clay Cat Litter",
    "description": "A fine clay litter that forms hard clumps. Low-dust and unscented, for sensitive cats.",
    "variations": [],
}
MOKA = {
    "name": "Stovetop Moka Pot",
    "description": "An aluminium moka pot for the hob, in sizes for 3, 6 or 9 cups. Rinse with warm water only, "
    "never with detergent.",
    "variations": [],
    "effectivePrice": "29.90",
    "price": "29.90",
    "currency": "EUR",
}
BOX = {
    "name": "Pet Transport Box",
    "description": "A sturdy box with a steel door and a drip-free floor. S 48 x 32 x 30 cm, M 61 x 40 x 38 cm.",
    "variations": [],
}
BOOT = {
    "name": "Ankle Boot",
    "description": "A lined ankle boot. The rubber sole has a deep tread for grip on icy pavements.",
    "variations": [],
}

SLIDE = {
    "name": "Foam Pool Slide",
    "description": "A soft foam slide for the pool and the beach. The strap is padded.",
    "variations": [],
}
CRATE = {
    "name": "Wire Dog Crate",
    "description": "A folding wire crate with two doors. S for dogs up to 7 kg, M up to 15 kg, L up to 30 kg.",
    "variations": [],
}

LOAFER = {
    "name": "Suede Loafer",
    "description": "A slip-on loafer in soft suede with a leather sole. The cushioned footbed stays comfortable "
    "through long days.",
    "variations": [],
}
JUMPER = {
    "name": "Merino Jumper",
    "description": "A fine-knit crew neck in extra-fine merino. Soft next to the skin and never itchy.",
    "variations": [],
}

# (question, product, a phrase the answer must have, a phrase it must not have)
TRAIL_SANDAL = {
    "name": "Trail Sport Sandal",
    "description": "A rugged sport sandal for hiking trails in hot weather. Three adjustable webbing straps lock "
    "the foot down on uneven ground. Quick-drying enough for river crossings and canyon walks.",
    "variations": [],
}
STARTER_TANK = {
    "name": "60 l Aquarium Starter Set",
    "description": "A 60 litre glass tank with a lid and LED light. Comes with everything a first aquarium needs: "
    "a quiet filter, a heater and water conditioner.",
    "variations": [],
}
SPORT_WATCH = {
    "name": "Vela GPS Watch",
    "description": "A GPS watch with a bright screen and ten days of battery. The silicone band has quick-release "
    "pins, so it changes in seconds.",
    "variations": [],
}


FRYING_PAN = {
    "name": "Everyday Non-Stick Frying Pan",
    "description": "An aluminium frying pan with a three-layer non-stick coating, for every hob including "
    "induction. Dishwasher safe, although washing by hand extends the life of the coating.",
    "variations": [],
}
MINI_OVEN = {
    "name": "Lumio Mini Oven 25 l",
    "description": "A 25 l countertop oven with top and bottom heat, a fan and a 60-minute timer with a bell.",
    "variations": [],
}
OVEN_PAN = {
    "name": "Cast Iron Skillet",
    "description": "A pre-seasoned cast iron skillet that sears on any hob and is oven-safe to 260 °C.",
    "variations": [],
}

SPORT_WATCH_BOXED = {
    "name": "Vela GPS Smartwatch",
    "description": "A smartwatch with a bright screen and built-in GPS. Up to 10 days of battery. Magnetic charger "
    "included.",
    "material": "aluminium case, silicone strap",
    "variations": [],
}


CASES = [
    # what a device plugs into, a console's controller, whether it is safe for a pet: words a question implies
    (
        "does it work with my ps5?",
        {
            "name": "Arc Wired Headset",
            "description": "Closed-back cups with a boom mic. Plug into a controller or a "
            "laptop with the 3.5 mm cable.",
            "variations": [],
        },
        "Plug into a controller",
        NOT_TOLD,
    ),
    (
        "does it have usb-c?",
        {
            "name": "View 27 Monitor",
            "description": "A 27-inch IPS panel with a matte finish. Two HDMI ports and "
            "one DisplayPort. Tilts and swivels.",
            "variations": [],
        },
        "Two HDMI ports and one DisplayPort",
        "matte finish",
    ),
    (
        "is it safe for dogs?",
        {
            "name": "Family Lawn Seed",
            "description": "A hard-wearing mix of ryegrass and fescue. Untreated seed with no coating.",
            "variations": [],
        },
        "Untreated seed",
        "ryegrass",
    ),
    # a figure asked in a unit the data does not give it in: said so beside what it gives
    (
        "what size is it in litres?",
        {
            "name": "Iron Casserole",
            "description": "A heavy enamelled pot for stews.",
            "variations": [{"size": "24 CM"}, {"size": "28 CM"}],
        },
        "doesn't say it in litres",
        "1 l",
    ),
    (
        "how many litres?",
        {"name": "Steel Stock Pot", "description": "A tall pot that holds 8 l of stock.", "variations": []},
        "8 l",
        "doesn't say it in",
    ),
    (
        "how many inches is it?",
        {"name": "View 27 Monitor", "description": "A 27-inch IPS panel with a matte finish.", "variations": []},
        "27-inch",
        "doesn't say it in",
    ),
    (
        "how many litres does it hold?",  # its sizes, in the unit asked
        {
            "name": "Glass Kettle",
            "description": "A glass kettle with a blue light.",
            "variations": [{"size": "1.5 L"}, {"size": "1 L"}],
        },
        "comes in 1 L, 1.5 L",
        "doesn't say",
    ),
    (
        "what size is the screen in inches?",  # "2-in-1" says no inches
        {
            "name": "Flip 2-in-1 Laptop",
            "description": "A convertible laptop.",
            "variations": [{"size": "128 GB"}, {"size": "256 GB"}],
        },
        "doesn't say it in inches",
        "in 2",
    ),
    (
        "is it safe for kittens?",  # "non-edible" says nothing of safety
        {
            "name": "Clay Litter",
            "description": "A clumping clay litter. Compost the used litter for non-edible plants only.",
            "variations": [],
        },
        NOT_TOLD,
        "non-edible plants only. ",
    ),
    # German and French words of how a thing feels, in the catalog's English
    ("sind die bequem?", LOAFER, "stays comfortable", NOT_TOLD),
    ("il gratte ?", JUMPER, "never itchy", NOT_TOLD),
    # which size: the sizes it comes in and the sentence of its text that tells them apart
    (
        "which size for a labrador?",
        {
            "name": "Horn Chew",
            "description": "A hard, long-lasting chew for strong jaws. Take it away once it is small enough to "
            "swallow. S is for dogs up to 10 kg, M for 10-25 kg, L over 25 kg.",
            "variations": [{"size": "S"}, {"size": "M"}, {"size": "L"}],
        },
        "L over 25 kg",
        NOT_TOLD,
    ),
    # how long it lasts is a time, not a length
    (
        "how long does one last before it's shredded?",
        {
            "name": "Cardboard Lounger",
            "description": "A curved lounger of corrugated cardboard.",
            "specs": {"length_cm": 60},
            "specText": ["length 60 cm"],
            "variations": [],
        },
        NOT_TOLD,
        "length 60",
    ),
    # ... or stays on, or takes: "how long do they stay on?" of a light 60 cm long with a timer
    *[
        (
            question,
            {
                "name": "Full-Spectrum LED Grow Light",
                "description": "A slim LED bar for seedlings. A built-in timer switches it off after 12 or 16 hours.",
                "specs": {"length_cm": 60},
                "specText": ["length 60 cm"],
                "variations": [],
            },
            "12 or 16 hours",
            "length 60",
        )
        for question in ("how long do they stay on", "wie lange leuchtet sie?")
    ],
    # a German plural the list has in the singular ("Steckdosen")
    (
        "passen die in unsere steckdosen?",
        {
            "name": "Mini Plug",
            "description": "A plug for UK sockets, 13 A. Energy monitoring included.",
            "variations": [],
        },
        "UK sockets",
        NOT_TOLD,
    ),
    # the words that name the product are not what is asked of it
    ("do the foam slides run big?", SLIDE, NOT_TOLD, "Foam Pool Slide: A soft"),
    # a number glued to its unit ("7kg") is the number and the unit
    ("what size crate for a 7kg puppy?", CRATE, "up to 7 kg", NOT_TOLD),
    # a property asked of: a sentence or spec about the thing ("the filter") does not answer it
    ("is the filter loud?", TANK, NOT_TOLD, "filter flow 200"),
    ("is the filter loud? it's for a bedroom", TANK, NOT_TOLD, "filter flow"),
    # "light" is a weight only as an adjective
    ("does it have an adjustable warm light?", READER, "warm front light", "weighs"),
    ("is it light enough to hold in bed?", READER, "180 g", NOT_TOLD),
    # what it is made of: the materials
    ("what are the straps made of", SANDAL, "nylon webbing", NOT_TOLD),
    # another form of the word ("dusty" / "low-dust")
    ("is it dusty?", LITTER, "Low-dust", NOT_TOLD),
    # "oven safe" is not answered by "dishwasher safe": the word before "safe" is what is asked
    ("is the first one oven safe", FRYING_PAN, NOT_TOLD, "Pan: Dishwasher safe"),
    ("can it go in the oven?", OVEN_PAN, "oven-safe to 260", NOT_TOLD),
    ("kann die Pfanne in den Backofen?", OVEN_PAN, "oven-safe to 260", NOT_TOLD),  # the German word for it
    ("geht die Pfanne auf Induktion?", FRYING_PAN, "induction", NOT_TOLD),
    ("does the oven have a timer?", MINI_OVEN, "60-minute timer", NOT_TOLD),  # not "oven" asked of an oven
    # French: the dishwasher, a count of cups (not a price), the sole
    ("est-ce qu'on peut la mettre au lave-vaisselle ?", MOKA, "warm water", NOT_TOLD),
    ("elle fait combien de tasses ?", MOKA, "9 cups", "costs"),
    ("la semelle est antidérapante ?", BOOT, "grip on icy", NOT_TOLD),
    # German: how big, dishwasher
    ("wie groß ist die box genau?", BOX, "48 x 32 x 30", NOT_TOLD),
    ("ist die spülmaschinenfest?", MOKA, "warm water", NOT_TOLD),
    # words that say it without the question's word: getting wet, a first-timer, a strap to change
    ("are they ok to get wet? might wear them on the beach", TRAIL_SANDAL, "Quick-drying", NOT_TOLD),
    ("kann man die auch nass machen?", TRAIL_SANDAL, "Quick-drying", NOT_TOLD),
    ("is it ok for a beginner?", STARTER_TANK, "everything a first", NOT_TOLD),
    ("is the strap swappable?", SPORT_WATCH, "quick-release", NOT_TOLD),
    # "the one it comes with" says which strap; it does not ask what is in the box
    ("is the strap swappable, the one it comes with looks a bit plain", SPORT_WATCH_BOXED, "silicone strap", "charger"),
    # how it works: what it is and does, which its text says first
    (
        "wie funktioniert das?",
        {
            "name": "Copper Barrier Tape",
            "description": "A self-adhesive copper tape, 4 m long and 5 cm wide, to stick around pots, planters and "
            "raised beds; slugs and snails avoid crossing it. It suits pots and raised edges, not open ground. "
            "Stick it onto clean, dry surfaces at temperatures above 10 degrees; the copper darkens over time but "
            "keeps working.",
            "variations": [],
        },
        "avoid crossing",
        NOT_TOLD,
    ),
    # a noun and its plural still match ("attachments" / "attachment")
    (
        "what attachments come with it?",
        {
            "name": "Stand Mixer",
            "description": "A 5 l stand mixer with a 1000 W motor and a steel bowl. A whisk attachment and a dough "
            "hook are included. The bowl is dishwasher safe, the motor head wipes clean.",
            "variations": [],
        },
        "whisk attachment",
        "wipes clean",
    ),
    # a word and its noun: "replaceable" / "replacement", "thick" / "thickness"
    (
        "is the blade replaceable?",
        {
            "name": "Pocket Saw",
            "description": "A folding saw with a 15 cm blade. Replacement blades are sold separately. The blade "
            "locks open.",
            "variations": [],
        },
        "Replacement blades",
        "locks open",
    ),
    # loudness is said in watts ("5 W of full sound") or by the words "sound" and "loudest"
    (
        "which one is louder?",
        {
            "name": "Pebble Mini Speaker",
            "description": "A palm-sized speaker that goes to the beach. Rated IP67 waterproof, and it floats. "
            "5 W of surprisingly full sound and 12 hours of playback.",
            "variations": [],
        },
        "5 W",
        NOT_TOLD,
    ),
    # "come with" asks what is included: the sentence that says so, whatever the part is called
    (
        "does it come with a nozzle?",
        {
            "name": "Premium Garden Hose 19 mm",
            "description": "A heavy-duty hose with a wider 19 mm bore for more flow over long distances. It needs "
            "19 mm hose connectors, which are not included. 15-year guarantee against bursting.",
            "variations": [],
        },
        "not included",
        "guarantee",
    ),
    (
        "what do you get in the box?",
        {
            "name": "Anti-Kink Garden Hose",
            "description": "A flexible six-layer garden hose that resists kinking. Inside diameter 13 mm. "
            "Supplied as loose green hose with no fittings: add connectors. Drain it in winter.",
            "variations": [],
        },
        "no fittings",
        "Drain",
    ),
    # what is included, asked in other words and languages ("alles dabei", "livré avec", "enthalten")
    *[
        (
            question,
            {
                "name": "Mini Projector",
                "description": "A pocket projector with a 100-inch picture. Supplied with a remote, an HDMI cable "
                "and a tripod. Battery lasts 2 hours.",
                "variations": [],
            },
            "Supplied with a remote",
            NOT_TOLD,
        )
        for question in (
            "what's included?",
            "was ist alles dabei?",
            "was ist im lieferumfang?",
            "c'est livré avec quoi ?",
        )
    ],
    (
        "gibts da ein netzteil dabei?",
        {
            "name": "Band 5 Tracker",
            "description": "A slim activity tracker with an AMOLED screen and 14 days of battery. Only a magnetic "
            "USB cable is supplied. Water resistant to 5 ATM.",
            "variations": [],
        },
        "Only a magnetic USB cable",
        NOT_TOLD,
    ),
    (
        "are spare blades included?",
        {
            "name": "Pocket Saw",
            "description": "A folding saw with a 15 cm blade. Replacement blades are sold separately. The blade "
            "locks open.",
            "variations": [],
        },
        "sold separately",
        "locks open",
    ),
    (
        "how thick is the mat?",
        {
            "name": "Yoga Mat",
            "description": "A natural rubber mat with a grippy top. Thickness 6 mm, cushioning for knees.",
            "variations": [],
        },
        "6 mm",
        NOT_TOLD,
    ),
    # a property its name states, written joined or apart ("non slip" of "Non-Slip"), or its text in one word
    # ("sweat proof" of "sweatproof"): yes, not "doesn't say exactly"
    (
        "is it non slip?",
        {
            "name": "Enamel Pet Bowls Non-Slip, Set of 2",
            "description": "Two enamel bowls on a rubber ring so they stay put.",
            "variations": [],
        },
        "Yes",
        NOT_TOLD,
    ),
    # "how many <things>?": the number its name or text puts before them; "how many in the pack?": its specs'
    # things per pack
    (
        "how many usb ports does it have",
        {
            "name": "Globe Travel Adapter",
            "description": "Works in over 150 countries. Charges through 3 USB-A ports at once.",
            "variations": [],
        },
        "Charges through 3 USB-A ports at once.",
        NOT_TOLD,
    ),
    (
        "how many slices does it do",
        {"name": "Brightside 4-Slice Toaster", "description": "A toaster with wide slots.", "variations": []},
        "4 slices",
        NOT_TOLD,
    ),
    (
        "how many pairs in it?",
        {
            "name": "Trail Sock Bundle",
            "description": "Made for long walks. Three pairs of cushioned wool socks.",
            "variations": [],
        },
        "Three pairs of cushioned wool socks",
        NOT_TOLD,
    ),
    (
        "how many are in the pack?",
        {
            "name": "Crunchy Liver Bites",
            "description": "Small baked treats for dogs.",
            "specs": {"bites_per_bag": 300},
            "variations": [],
        },
        "300 bites per bag",
        NOT_TOLD,
    ),
    # the battery of a corded tool: none (was "doesn't say exactly", quoting "a corded trimmer")
    (
        "how long does the battery last?",
        {
            "name": "Edgeline 500W Hedge Trimmer",
            "description": "A light corded trimmer for small hedges, with a 45 cm blade.",
            "variations": [],
        },
        "is corded",
        NOT_TOLD,
    ),
    (
        "how much water does this one hold?",
        {"name": "Steel Kettle", "description": "A hob kettle that whistles.", "variations": [{"size": "2.5 L"}]},
        "2.5 L",
        NOT_TOLD,
    ),
    # assembly asked, "screws together" said: that sentence, not "doesn't say exactly"
    *[
        (
            question,
            {
                "name": "Sisal Post, 60 cm",
                "description": "A sturdy post wrapped in sisal rope, on a 35 x 35 cm base. Screws together in a "
                "few minutes; tools included.",
                "variations": [],
            },
            "Screws together",
            NOT_TOLD,
        )
        for question in ("does it need assembly?", "muss man den aufbauen?")
    ],
    (
        "are they sweat proof",
        {
            "name": "Dash Sport Earbuds",
            "description": "Earbuds with ear hooks for running. Rated IP55 and sweatproof. 8 hours per charge.",
            "variations": [],
        },
        "Yes",
        NOT_TOLD,
    ),
    # one of two it may be, the one its name or text says (was "doesn't say exactly" with its first sentence)
    (
        "is it electric or manual",
        {
            "name": "Kaffeholm Manual Burr Coffee Grinder",
            "description": "A hand grinder with stainless steel conical burrs and 30 click settings.",
            "variations": [],
        },
        "Kaffeholm Manual Burr Coffee Grinder: manual.",
        NOT_TOLD,
    ),
    (
        "is that a proofing basket or a baking tin",
        {
            "name": "Rattan Banneton",
            "description": "Gives your loaf its spiral pattern. A round proofing basket of natural rattan.",
            "variations": [],
        },
        "A round proofing basket",
        NOT_TOLD,
    ),
    # ... the second thing up to a small word after it
    (
        "is it gas or electric for the garden?",
        {"name": "Voltra Electric Lawn Mower", "description": "Cuts a 32 cm strip.", "variations": []},
        "Voltra Electric Lawn Mower: electric.",
        NOT_TOLD,
    ),
    # ... a thing named in two words by both: "a baking tin" is no "baking sheet"
    (
        "is that a proofing basket or a baking tin",
        {"name": "Perforated Baking Sheet", "description": "A rimmed baking sheet in aluminium.", "variations": []},
        "Perforated Baking Sheet",
        "Perforated Baking Sheet: baking.",
    ),
    # ... not where it says both, or neither
    (
        "is it gas or electric?",
        {"name": "Camp Stove", "description": "Runs on gas cartridges or an electric hob plate.", "variations": []},
        "Runs on gas cartridges or an electric hob plate.",
        "Camp Stove: gas.",
    ),
    # what it comes with is no question of what it is
    (
        "does it come with a strap or a case?",
        {"name": "Fennec Camera Case", "description": "A padded case with a belt loop.", "variations": []},
        "padded case",
        "Fennec Camera Case: case.",
    ),
    # the oven asked in German and French ("four" alone is a number)
    *[
        (
            question,
            {
                "name": "Tri-Ply Sauté Pan",
                "description": "A deep pan with straight sides. Oven safe up to 260 °C and dishwasher safe.",
                "variations": [],
            },
            "Oven safe up to 260",
            NOT_TOLD,
        )
        for question in ("elle va au four ?", "ist sie backofenfest?")
    ],
]


@pytest.mark.parametrize(("question", "product", "said", "unsaid"), CASES, ids=[c[0] for c in CASES])
async def test_a_question_about_a_shown_product_is_answered_by_what_says_it(question, product, said, unsaid):
    lines = await FactFinder(ENGLISH).answer(question, [product], {}, str, lambda _: "")
    answer = " ".join(lines)
    assert said in answer and unsaid not in answer, answer


@pytest.mark.parametrize(
    "text",
    ["la semelle est antidérapante ? il y a souvent du verglas chez moi", "aus welchem material ist die?",
     "is the filter loud? it'll be in her bedroom", "gibts die auch in klein?"],
)  # fmt: skip
def test_a_question_worded_without_a_question_word_first_is_read_as_one(text):
    assert SHOP.read(text).question, text


@pytest.mark.parametrize(
    ("text", "question"),
    [
        # German questions put the verb first, then whom or what they ask of
        ("die birnen, brauchen die eine bridge oder gehen die direkt übers wlan", True),
        ("muss man die gießen", True),
        ("hält der auch im winter", True),
        ("braucht man dafür eine app", True),
        ("und brauch ich noch nen adapter für den hahn oder ist alles dabei", True),  # "brauch ich": as said
        # a verb first with no one after it asks for a thing ("[ich] brauche was …")
        ("brauche was schickes fürs vorstellungsgespräch", False),
        ("brauche die schwarzen stiefel in 43", False),  # "[ich] brauche die …": a request
        ("ich brauche eine leine für meinen hund", False),
    ],
)
def test_a_german_question_with_its_verb_first_is_read_as_one(text, question):
    assert SHOP.read(text).question is question, text


# -- the judged questions about shown products (tests/data/questions), all four trades ------------

QUESTIONS_SET = Path(__file__).parent / "data" / "questions" / "conversations.jsonl"
TUNE_FACTS_FLOOR = 28  # of 50 tune info turns with judged facts: 30 measured 2026-12-03 (the bench, 34 of 49)


async def _tune_half(path: Path, shops: dict):
    """The judged conversations of `path`'s tune half, each through the chat API with the offline
    assistant, checked turn by turn (tests/conversation_set.py); their grounding and honesty asserted."""
    from tests.conversation_set import Report, load_conversations
    from tests.conversation_set import run_conversation as run_judged
    from tests.test_concierge_chat import _message, chat_with

    report = Report()
    for conversation in [c for c in load_conversations(path) if c["split"] == "tune"]:
        async with chat_with(shops[conversation["shop"]]) as shopper:
            customer = shopper()

            async def say(_, text, customer=customer):
                turn = await customer.say(text)
                return customer.conversation_id, turn.answer, [_message(m) for m in turn.messages]

            report.outcomes += await run_judged(conversation, say, customer.catalog)
    assert all(o.grounded for o in report.outcomes)
    assert not any(o.wrong_not_carried for o in report.outcomes)
    return report


async def test_the_judged_questions_about_shown_products(sample_shop, kitchen_shop, electronics_shop, pets_shop):
    """The tune half of 28 conversations about products shown, written by someone who saw only the
    shops' menus and judged against the catalogs (the held-out half, never looked at while tuning,
    is measured by bench/assistant_quality.py --split heldout)."""
    shops = {"clothing": sample_shop, "kitchen": kitchen_shop, "electronics": electronics_shop, "pets": pets_shop}
    report = await _tune_half(QUESTIONS_SET, shops)
    facts = [o.facts_ok for o in report.outcomes if o.facts_ok is not None]
    print(f"tune: {report.passed} of {len(report.outcomes)} turns pass; facts {sum(facts)}/{len(facts)}")
    assert sum(facts) >= TUNE_FACTS_FLOOR, sum(facts)


# The blind conversation sets in five trades (tests/data/questions_2, _3, _4: 40 conversations each,
# written from the shops' menus only and judged from the catalogs): of their tune halves, the turns
# passed and the right earlier items at least. questions_2: 61 of 105 and 42 of 58 measured 2026-12-04,
# 66 and 44 later. questions_3: 56 of 101 and 30 of 47 when the set came (before anything was changed
# for it), 64 and 37 after. questions_4: 61 of 104 and 33 of 50 when it came, 67 and 36 after.
BLIND_SET_FLOORS = {"questions_2": (62, 42), "questions_3": (62, 35), "questions_4": (64, 34)}


@pytest.mark.parametrize("batch", list(BLIND_SET_FLOORS))
async def test_the_blind_sets_of_conversations(
    sample_shop, kitchen_shop, electronics_shop, pets_shop, garden_shop, batch
):
    """The tune half (the held-out half is measured by bench/assistant_quality.py --split heldout)."""
    shops = {"clothing": sample_shop, "kitchen": kitchen_shop, "electronics": electronics_shop,
             "pets": pets_shop, "garden": garden_shop}  # fmt: skip
    report = await _tune_half(Path(__file__).parent / "data" / batch / "conversations.jsonl", shops)
    earlier = [o.earlier_ok for o in report.outcomes if o.earlier_ok is not None]
    print(
        f"tune: {report.passed} of {len(report.outcomes)} turns pass; right earlier item {sum(earlier)}/{len(earlier)}"
    )
    passed_floor, earlier_floor = BLIND_SET_FLOORS[batch]
    assert report.passed >= passed_floor and sum(earlier) >= earlier_floor, (report.passed, sum(earlier))


async def test_a_weight_is_the_one_of_the_size_the_list_was_for():
    weights = (("38", 450), ("40", 485), ("42", 520))
    sandal = {**SANDAL, "variations": [{"size": size, "weightGrams": grams} for size, grams in weights]}
    finder = FactFinder(ENGLISH)
    assert await finder.answer("how heavy is it", [sandal], {}, str, lambda _: "") == [
        "Trail Strap Sandal weighs 450 g\u2013520 g."
    ]
    lines = await finder.answer("how heavy is it", [sandal], {"listSizes": ["40"]}, str, lambda _: "")
    assert lines == ["Trail Strap Sandal weighs 485 g."]


@pytest.mark.parametrize(
    ("specs", "said"),
    [
        ({"weight_kg": 9}, "weighs 9 kg."),  # the shop's own figure over the packed weights
        ({"weight_g": 230}, "weighs 230 g."),
        ({"Weight": "1.6 kg"}, "weighs 1.6 kg."),
        ({"net_weight_kg": 2}, "weighs 2 kg."),
        # what it carries or a part of it weighs is no weight of it: the variations' weights
        ({"max_weight_kg": 7}, "weighs 450 g\u2013520 g."),
        ({"ball_weight_g": 90, "fabric_weight_gsm": 30}, "weighs 450 g\u2013520 g."),
    ],
)
async def test_a_weight_its_specs_state_is_what_it_weighs(specs, said):
    weights = (("38", 450), ("40", 485), ("42", 520))
    sandal = {**SANDAL, "specs": specs, "variations": [{"size": z, "weightGrams": g} for z, g in weights]}
    lines = await FactFinder(ENGLISH).answer("how heavy is it", [sandal], {}, str, lambda _: "")
    assert lines == [f"Trail Strap Sandal {said}"]


async def test_what_the_data_does_not_tell_is_said_with_what_the_product_text_does_say_nearest_to_it():
    lines = await FactFinder(ENGLISH).answer("is the filter loud?", [TANK], {}, str, lambda _: "")
    assert lines == [
        "Reef 40 Tank: the product information doesn't say exactly. What it says: A 40 l glass tank with a lid "
        "and an internal filter of 200 l/h."
    ]
    # the sentences nearest to the question, not the first ones
    long_tank = {**TANK, "description": "A tall glass tank for tropical fish, with rounded front corners and a "
                 "black back panel that makes the colours of the fish stand out. The lid carries a white and blue "
                 "LED light with a sunrise and sunset mode, and a feeding hatch. The internal filter moves 200 l/h "
                 "through sponge and ceramic media."}  # fmt: skip
    lines = await FactFinder(ENGLISH).answer("is the filter loud?", [long_tank], {}, str, lambda _: "")
    assert lines == [
        "Reef 40 Tank: the product information doesn't say exactly. What it says: The internal filter moves "
        "200 l/h through sponge and ceramic media."
    ]
    bare = {"name": "Plain Bowl", "description": "", "variations": []}
    assert await FactFinder(ENGLISH).answer("is it loud?", [bare], {}, str, lambda _: "") == [
        "Plain Bowl: the product information doesn't say."
    ]


@pytest.mark.parametrize(
    "text", ["ich suche einen Lautsprecher?", "und ein Ladekabel dazu?", "un chargeur ?", "vous avez des tasses ?"]
)
def test_a_thing_sold_on_its_own_asked_for_with_a_question_mark_is_a_request_not_a_question(text):
    assert not SHOP.read(text).question, text


async def test_asked_of_several_products_what_the_data_does_not_tell_is_said_briefly():
    lines = await FactFinder(ENGLISH).answer("which of them is loud?", [TANK, LITTER], {}, str, lambda _: "")
    assert lines == [
        "Reef 40 Tank: the product information doesn't say.",
        "Clay Cat Litter: the product information doesn't say.",
    ]


KETTLE = {
    "name": "Steel Kettle",
    "description": "A 1.7 l kettle with a limescale filter.",
    "variations": [],
    "effectivePrice": "39.90",
    "discountedPrice": "39.90",
    "price": "49.90",
    "currency": "EUR",
}
GRINDER = {
    "name": "Burr Grinder",
    "description": "A hand grinder with ceramic burrs.",
    "effectivePrice": "59.00",
    "price": "59.00",
    "currency": "EUR",
    "variations": [
        {"color": "black", "effectivePrice": "49.00", "discountedPrice": "49.00", "price": "59.00"},
        {"color": "white", "effectivePrice": "59.00", "price": "59.00"},
    ],
}


@pytest.mark.parametrize(
    ("question", "product", "said"),
    [("any discount on it at the moment?", MOKA, "not discounted at the moment: €29.90"),
     ("is it on sale?", KETTLE, "on sale: €39.90 (was €49.90)"),
     ("ist der im Angebot?", KETTLE, "on sale"),
     ("elle est en promo ?", MOKA, "not discounted"),
     ("any discount?", GRINDER, "on sale in black €49.00 (was €59.00); the others are at full price")],
)  # fmt: skip
async def test_a_question_about_a_discount_is_answered_from_the_prices(question, product, said):
    lines = await FactFinder(ENGLISH).answer(question, [product], {}, str, lambda _: "")
    assert said in " ".join(lines), lines


async def test_stock_of_a_product_told_apart_by_options_names_the_options():
    litter = {
        "name": "Tofu Litter",
        "description": "",
        "variations": [{"options": {"Bag": "6 l"}, "available": 40}, {"options": {"Bag": "12 l"}, "available": 0}],
    }
    lines = await FactFinder(ENGLISH).answer("in white?", [litter], {"colors": ["white"]}, str, lambda _: "")
    assert "Available now: 6 l (40 left)." in " ".join(lines), lines


async def test_set_beside_one_that_answers_one_that_does_not_is_said_with_what_it_says():
    lines = await FactFinder(ENGLISH).answer("which is better for a dusty room?", [LITTER, TANK], {}, str, lambda _: "")
    assert lines[0] == "Of these, only the description of the Clay Cat Litter speaks to that:", lines
    assert lines[1] == "Clay Cat Litter: Low-dust and unscented, for sensitive cats."
    assert lines[2].startswith("Reef 40 Tank: the product information doesn't say exactly. What it says: A 40 l"), lines


KIDS_HEADPHONES = {
    "name": "Mini Headphones",
    "description": "Wireless headphones sized for children aged 3 and up. A 6.35 mm adapter is in the box.",
    "variations": [],
}
STUDIO = {
    "name": "Studio Headphones",
    "description": "Closed-back monitor headphones for mixing, home recording and podcasts, with soft velour pads "
    "that stay comfortable through a long session. Comes with a coiled cable and a 6.35 mm screw-on adapter "
    "for amplifiers, mixing desks and audio interfaces, and a soft drawstring pouch to carry them in.",
    "variations": [],
}


async def test_a_bare_number_shared_is_not_what_answers_a_question():
    finder = FactFinder(ENGLISH)
    lines = await finder.answer("are they ok for a 6 year old?", [KIDS_HEADPHONES], {}, str, lambda _: "")
    assert lines == ["Mini Headphones: Wireless headphones sized for children aged 3 and up."]
    # with nothing about the question, the text's first sentence, not the one with the same number
    lines = await finder.answer("are they ok for a 6 year old?", [STUDIO], {}, str, lambda _: "")
    assert "What it says: Closed-back monitor headphones for mixing" in lines[0] and "6.35" not in lines[0], lines


async def test_the_words_naming_the_product_lend_no_closeness_of_meaning():
    from shopagent.adapters.local.minilm import MiniLMEmbedder

    dress = {
        "name": "Linen Sundress",
        "description": "An airy linen sundress with thin adjustable straps and a relaxed A-line skirt. "
        "Made in Portugal from European flax.",
        "variations": [],
    }
    lines = await FactFinder(ENGLISH, MiniLMEmbedder()).answer(
        "is the linen sundress lined or is it see-through in white", [dress], {}, str, lambda _: ""
    )
    assert NOT_TOLD in lines[0], lines


async def test_asked_what_it_weighs_after_a_list_for_one_size_the_answer_is_that_sizes_weight(sample_shop):
    from tests.test_concierge_chat import chat_with

    async with chat_with(sample_shop) as clothing:
        shopper = clothing()
        listed = await shopper.say("walking sandals in size 40")
        assert listed.listed, listed.answer
        asked = await shopper.say("how heavy is the first one?")
    (details,) = [r.result["structuredContent"] for r in asked.responses]
    weights = {v["weightGrams"] for v in details["variations"]}
    (in_40,) = {v["weightGrams"] for v in details["variations"] if v.get("size") == "40"}
    assert len(weights) > 1 and f"weighs {in_40} g." in asked.answer, asked.answer


async def test_a_colour_it_is_not_made_in_is_said_so_not_sold_out_for_now():
    speaker = {
        "name": "Party Speaker",
        "description": "",
        "variations": [{"color": "black", "available": 5}, {"color": "red", "available": 0}],
    }
    finder = FactFinder(ENGLISH)

    def say_filters(asked):
        return " in " + " ".join(asked.get("colors", []))

    assert await finder.answer("does it come in blue?", [speaker], {"colors": ["blue"]}, str, say_filters) == [
        "Party Speaker doesn't come in blue: only in black, red."
    ]
    lines = await finder.answer("is it in stock in red?", [speaker], {"colors": ["red"]}, str, say_filters)
    assert lines[0].startswith("Party Speaker is sold out in red at the moment."), lines


async def test_what_about_the_second_one_with_a_question_answers_the_question(sample_shop):
    from tests.test_concierge_chat import chat_with

    async with chat_with(sample_shop) as clothing:
        shopper = clothing()
        listed = await shopper.say("chelsea boots")
        asked = await shopper.say("and what about the second one, is it waterproof?")
        shown = await shopper.say("et la deuxième ?")
    assert len(listed.listed) >= 2 and asked.answer.startswith(listed.listed[1]), asked.answer
    assert "Available now" not in asked.answer, asked.answer  # an answer, not the product's card
    assert "Available now" in shown.answer or "Disponible" in shown.answer, shown.answer  # "et la deuxième ?" shows it


WATCH = {"name": "Trail Watch", "description": "A titanium GPS watch with a 1.4-inch screen.",
         "variations": [{"size": "45 MM", "color": "black", "quantity": 5}]}  # fmt: skip
HARNESS = {"name": "Easy Harness", "description": "A padded harness. Suits larger dogs that pull.",
           "variations": [{"size": s, "color": "black", "quantity": 3} for s in ("S", "M", "L")]}  # fmt: skip


@pytest.mark.parametrize(
    ("question", "product", "said"),
    [
        ("does it come smaller?", WATCH, "Trail Watch comes only in 45 MM."),
        ("gibts die auch mit kleinerem Gehäuse, hab ein schmales Handgelenk", WATCH, "comes only in 45 MM"),
        ("en plus petit ?", HARNESS, "Easy Harness comes in S, M, L."),
        ("do you have it in a bigger size", HARNESS, "comes in S, M, L"),
        # "larger" describing what it is for is a question for its text, not for its sizes
        ("is it ok for larger dogs?", HARNESS, "Suits larger dogs"),
    ],
)
async def test_asked_whether_it_comes_smaller_or_bigger_the_sizes_it_comes_in_say_so(question, product, said):
    answer = " ".join(await FactFinder(ENGLISH).answer(question, [product], {}, str, lambda _: ""))
    assert said in answer, answer


@pytest.mark.parametrize(
    "question",
    ["is the larger size in stock?", "ist das auch für größere Hunde?", "does it have larger wheels?",
     "has it got a bigger screen?", "en plus grande quantité ?"],
)  # fmt: skip
async def test_a_bigger_or_smaller_thing_asked_of_is_not_a_question_of_other_sizes(question):
    answer = " ".join(await FactFinder(ENGLISH).answer(question, [HARNESS], {}, str, lambda _: ""))
    assert "comes in S, M, L" not in answer, answer


HOSE = {
    "name": "Anti-Kink Hose",
    "description": "A flexible six-layer garden hose that resists kinking. Fittings are sold separately.",
    "variations": [{"options": {"Length": length}, "available": 5} for length in ("15 m", "25 m", "50 m")],
}
CAN = {
    "name": "Steel Watering Can",
    "description": "A galvanised steel can with a long spout and a brass rose. Hot-dip galvanised against rust.",
    "variations": [{"options": {"Volume": volume}, "available": 5} for volume in ("5 l", "10 l")],
}
GLASSES = {
    "name": "Crystal Wine Glasses",
    "description": "Lead-free crystal glasses with a thin rim. Dishwasher safe.",
    "variations": [{"size": size, "color": "clear", "available": 3} for size in ("SET OF 2", "SET OF 4")],
}
POT = {
    "name": "Enamelled Dutch Oven",
    "description": "A round cast iron casserole in glossy enamel. The heavy lid seals in moisture.",
    "variations": [{"size": "24 CM", "color": c, "available": 2} for c in ("red", "navy")]
    + [{"size": "24 CM", "color": "white", "available": 0}],
}


@pytest.mark.parametrize(
    ("question", "product", "said"),
    [
        ("how long is it?", HOSE, "length 15 m, 25 m, 50 m"),
        ("il fait combien de mètres ?", HOSE, "length 15 m, 25 m, 50 m"),
        ("wie lang ist der?", HOSE, "length 15 m, 25 m, 50 m"),
        ("how much does it hold", CAN, "volume 5 l, 10 l"),
        ("how many litres?", CAN, "volume 5 l, 10 l"),
        ("how many in a set", GLASSES, "comes in SET OF 2, SET OF 4"),
        ("colours?", POT, "comes in red, navy"),
        ("welche Farben gibt es?", POT, "comes in red, navy"),
        ("which colours does it come in", POT, "comes in red, navy"),
    ],
)
async def test_what_a_product_comes_in_answers_how_long_how_much_it_holds_how_many_and_which_colours(
    question, product, said
):
    """Its lengths, volumes, set sizes and colours are in its variations, not in its text."""
    answer = " ".join(await FactFinder(ENGLISH).answer(question, [product], {}, str, lambda _: ""))
    assert said in answer, answer
    assert "doesn't say" not in answer, answer


@pytest.mark.parametrize(
    ("question", "product", "unsaid"),
    [
        ("how long does it last?", HOSE, "length 15 m"),  # how long it lasts, not how long it is
        ("how long is the warranty?", HOSE, "length 15 m"),
        ("what colour is the lid?", POT, "comes in red"),  # of a part of it: its text
    ],
)
async def test_how_long_it_lasts_or_the_colour_of_a_part_is_not_what_it_comes_in(question, product, unsaid):
    answer = " ".join(await FactFinder(ENGLISH).answer(question, [product], {}, str, lambda _: ""))
    assert unsaid not in answer, answer


def _described(name: str, description: str) -> dict:
    return {"name": name, "description": description, "variations": []}


@pytest.mark.parametrize(
    ("question", "product", "verdict"),
    [
        ("does it have a hood?", _described("Hooded Down Jacket", "A hip-length puffer with warm duck down."), "Yes."),
        ("hat sie eine Kapuze?", _described("Rain Jacket", "Taped seams and an adjustable hood."), "Yes."),
        ("is it dishwasher safe?", _described("Stoneware Bowl", "Glazed stoneware. Dishwasher safe."), "Yes."),
        ("is it dishwasher safe?", _described("Copper Pan", "Hand wash only, not dishwasher safe."), "No."),
        ("does it come with a cable", _described("65W Charger", "Three USB ports; cables not included."), "No."),
        ("does it have a microphone?", _described("Headphones", "Wired only: no Bluetooth, no microphone."), "No."),
        ("the second one, is it lead-free?", _described("Wine Glasses", "Lead-free crystal with a thin rim."), "Yes."),
        # what the data does not say in those words gets no verdict: its sentences say what they say
        ("is it waterproof?", _described("Down Jacket", "The water-repellent shell handles light rain."), None),
        ("is it ok for kids?", _described("Puzzle", "A 500-piece puzzle, suitable for children from 8."), None),
        # the clause about the whole says so; the one about a part is not the answer
        ("is it waterproof?", _described("Jacket", "Not waterproof, but it has a waterproof phone pocket."), "No."),
        ("is the lid dishwasher safe?", _described("Glass Box", "The glass is dishwasher safe; wipe the lid."), None),
        ("is it dishwasher safe?", _described("Hand Blender", "The detachable parts are dishwasher safe."), None),
        ("is it leather?", _described("Faux Leather Jacket", "A biker jacket with zips."), None),
        ("are they leather?", _described("Chelsea Boot", "Made from a PU leather alternative."), None),
        ("is it scratchy?", _described("Merino Sweater", "Fine merino that feels soft rather than scratchy."), "No."),
        (
            "does it work on induction?",
            _described("Moka Pot", "Gas, electric; on induction use an adapter."),
            None,
        ),
        # free of it, made without it, for those sensitive to it; "non-slip" is one word; numbers must match
        ("does it have chicken in it?", _described("Duck Food", "Suits dogs sensitive to chicken or beef."), None),
        ("does it have wheat?", _described("Grain-Free Food", "Free of wheat, maize and soya."), "No."),
        ("does it have chicken?", _described("Duck Food", "A chicken-free recipe with duck."), "No."),
        ("is it grain free?", _described("Dog Food", "A grain-free recipe with duck."), "Yes."),
        ("is it non-slip?", _described("Bowl", "Non-slip rubber dots on the base."), "Yes."),
        ("is it non-slip?", _described("Clogs", "Light slip-on clogs."), None),
        ("does it have a handle?", _described("Tape Lead", "A lead with a non-slip handle."), "Yes."),
        ("does it come with batteries?", _described("Launcher", "Runs on six C batteries (not included)."), "No."),
        ("does it need batteries?", _described("Trimmer", "The bare tool comes without battery."), None),
        ("does it fit a 17 inch laptop?", _described("Sleeve", "Fits 13-inch, 14-inch and 16-inch laptops."), None),
        ("does it have a hood?", _described("Jacket", "The hood is not removable."), "Yes."),
        ("Material?", _described("Shirt", "Material: linen."), None),
        ("colour?", _described("Shirt", "The colours will not fade."), None),
        ("how long is the battery life?", _described("Speaker", "No battery: it runs on mains power."), None),
        ("is there a bigger one?", _described("Bigger Bowl", "A bowl."), None),
        ("is it leather or suede?", _described("Suede Boot", "Suede upper, leather lining."), None),
        # another word of the same stem is not the thing asked: a charger is not charging
        ("does it come with a charger", _described("E Ink Tablet", "The pen never needs charging."), None),
    ],
)
async def test_a_yes_or_no_question_is_answered_yes_or_no_where_its_name_or_text_says_so(question, product, verdict):
    answer = " ".join(await FactFinder(ENGLISH).answer(question, [product], {}, str, lambda _: ""))
    said = re.search(r": (Yes|No)\.", answer)
    assert (said.group(1) + "." if said else None) == verdict, answer


async def test_which_is_better_where_one_text_speaks_to_it_says_that_one_first():
    anvil = _described("Anvil Secateurs", "Easy on weaker hands and good for dead wood. Forged steel blade.")
    bypass = _described("Bypass Secateurs", "Clean cuts on living stems such as roses. Forged steel blade.")
    lines = await FactFinder(ENGLISH).answer("which is better for weaker hands?", [anvil, bypass], {}, str, str)
    assert lines[0] == "Of these, only the description of the Anvil Secateurs speaks to that:", lines
    assert lines[1].startswith("Anvil Secateurs: Easy on weaker hands"), lines
    # asked of them both without "which is better", nothing is put first
    lines = await FactFinder(ENGLISH).answer("are they ok for weaker hands?", [anvil, bypass], {}, str, str)
    assert lines[0].startswith("Anvil Secateurs: "), lines


def test_an_option_is_said_when_the_question_asks_which_of_it_not_in_passing():
    from shopagent.adapters.local.concierge.product_data import options_asked

    food = {"variations": [{"options": {"Bag size": "400 g"}}, {"options": {"Bag size": "2 kg"}}]}
    secateurs = {"variations": [{"options": {"Hand": "Right-handed"}}, {"options": {"Hand": "Left-handed"}}]}
    trowel = {"variations": [{"options": {"Type": "Trowel"}}, {"options": {"Type": "Transplanter"}}]}
    assert options_asked("what size is the bag", food, sizes_asked=True) == ["bag size 400 g, 2 kg"]
    assert options_asked("how big is it", food, sizes_asked=True) == ["bag size 400 g, 2 kg"]
    assert options_asked("how long will the 4 kg bag last", food, sizes_asked=False) == []
    assert options_asked("which of these is best for small hands", secateurs, sizes_asked=False) == []
    assert options_asked("what type of soil is it for", trowel, sizes_asked=False) == []
    assert options_asked("which hand is it for", secateurs, sizes_asked=False) == ["hand Right-handed, Left-handed"]
    assert options_asked("what size", {"variations": None}, sizes_asked=True) == []
    # a value named, every word of it (apart, together or in the catalog's words): that option, sold out said
    secateurs["variations"][1]["available"] = 0
    said = ["hand Right-handed, Left-handed (sold out)"]
    kept = {"sold_out": "sold out", "sizes_asked": False}
    assert options_asked("is it available for left handed people", secateurs, **kept) == said
    assert options_asked("do you have it left-handed", secateurs, **kept) == said
    assert options_asked("ist die auch fur linkshander", secateurs, **kept, also={"left", "hand"}) == said
    assert options_asked("is the left pocket zipped", secateurs, **kept) == []  # (not every word of it)
    named = {"name": "Transplanter Trowel", **trowel}
    assert options_asked("is the trowel sharp", named, sizes_asked=False) == []  # (a word of its name)


def test_a_value_with_a_hyphen_is_said_apart_or_together():
    from shopagent.adapters.local.concierge.product_data import says_value

    assert says_value("do you have it left-handed", "left-handed")
    assert says_value("do you have it left handed", "left-handed")
    assert says_value("do you have it lefthanded", "left-handed")
    assert not says_value("the left one, is it handed down", "left-handed")


POWER_BANK = {
    "name": "Volt 20000 Power Bank",
    "description": "A 20,000 mAh power bank with 65 W USB-C Power Delivery. Two USB-C ports, with a small display "
    "that shows the remaining charge in percent. 74 Wh, under the 100 Wh airline limit for hand luggage.",
    "variations": [],
}
MIXER = {
    **_described("Profi Stand Mixer 1200 W", "A planetary mixer with a 5 litre stainless steel bowl. Ten speeds."),
    "material": "die-cast metal, stainless steel bowl",
}
WEBCAM = _described(
    "Clip HD Webcam", "A webcam for calls with a 20 MP sensor. It records 4K at 30 fps. Clips onto a monitor."
)


@pytest.mark.parametrize(
    ("question", "product", "said", "unsaid"),
    [
        # a figure in the unit asked: in the text ("65 W in total") or in the name ("1200 W", "20W")
        ("how many watts is the first one", _described("Volt 65W Charger", "Two USB-C ports with 65 W in total. "
         "Folding pins."), "65 W in total", NOT_TOLD),
        ("wie viel Watt hat der erste?", MIXER, "1200 W", NOT_TOLD),
        ("how many watts?", _described("Volt 20W Charger", "A small wall charger. UK plug."), "20W", NOT_TOLD),
        # what it holds: a battery's in mAh or Wh
        ("capacity?", POWER_BANK, "20,000 mAh", NOT_TOLD),
        ("wie lange hält der Akku?", POWER_BANK, "20,000 mAh", "remaining charge"),
        # a camera's resolution: in megapixels or "4K"
        ("resolution?", WEBCAM, "20 MP", NOT_TOLD),
        ("what resolution does it film in?", WEBCAM, "4K at 30 fps", NOT_TOLD),
        # a property asked "at full power" is not its power
        ("Wie laut ist die Küchenmaschine bei voller Leistung?", _described("Profi Stand Mixer 1200 W", "A powerful "
         "1200 W planetary mixer for bread dough. Ten speeds."), NOT_TOLD, "1200 W: A powerful"),
        # on a plane: what the text says of airlines and flights
        ("darf ich die ins Flugzeug mitnehmen?", POWER_BANK, "airline limit", NOT_TOLD),
    ],
)  # fmt: skip
async def test_a_figure_asked_in_its_unit_is_found_in_the_text_or_the_name(question, product, said, unsaid):
    answer = " ".join(await FactFinder(ENGLISH).answer(question, [product], {}, str, lambda _: ""))
    assert said in answer and unsaid not in answer, answer


@pytest.mark.parametrize(
    ("question", "product", "verdict"),
    [
        ("is the 2nd one cotton", _described("Classic Chino", "Regular-fit chinos in a garment-dyed cotton twill."),
         "Yes."),
        ("can I take it on a plane?", POWER_BANK, "Yes."),
        ("is the 1st one lined?", _described("Midi Skirt", "A pleated midi. The skirt has a soft lining."), "Yes."),
        ("is it padded?", _described("Laptop Sleeve", "Thick padding all round."), "Yes."),
        # a material asked of it: one it is made of (steel is a metal), or none of those it is made of
        ("Ist die erste aus Metall?", _described("Galvanised Steel Watering Can", "A can with a long spout."), "Yes."),
        ("ist der erste aus Glas?", MIXER, "No."),
        ("is the grater plastic?", {**_described("Box Grater", "A four-sided grater."),
                                    "material": "stainless steel, rubber base"}, "No."),
        # not a material asked of a part, nor a property of the one of that material
        ("ist der Deckel aus Glas?", MIXER, None),
        ("the suede one, is it waterproof at all?", _described("Suede Chelsea Boot", "A pull-on boot."), None),
        ("is it made of plastic?", {**_described("Box Grater", "A four-sided grater."),
                                    "material": "stainless steel, rubber base"}, "No."),
        ("is it glass?", _described("Storage Jar", "A glass jar with a plastic lid."), None),  # the lid: no whole
        # the life stage it is for
        ("is the second one ok for puppies", {**_described("Adult Dog Food", "A dry food for adult dogs over 25 kg. "
         "Large kibble."), "specs": {"life_stage": "adult"}, "specText": ["life stage adult"]}, "No."),
        ("is it ok for puppies?", {**_described("Dog Food", "A dry food for dogs of all ages."),
                                   "specs": {"life_stage": "all"}, "specText": ["life stage all"]}, None),
        # German and French words of what is asked, said in the catalog's English
        ("Ist das zweite klumpend?", _described("Clumping Clay Litter", "A fine clay litter."), "Yes."),
        ("est-ce qu'elle est agglomérante ?", _described("Clumping Clay Litter", "A fine clay litter."), "Yes."),
    ],
)  # fmt: skip
async def test_a_yes_or_no_question_in_other_words_or_of_a_material_gets_its_verdict(question, product, verdict):
    answer = " ".join(await FactFinder(ENGLISH).answer(question, [product], {}, str, lambda _: ""))
    said = re.search(r": (Yes|No)\.", answer)
    assert (said.group(1) + "." if said else None) == verdict, answer


LEAD = {"name": "Reflex Dog Lead", "description": "A nylon lead with a padded handle.", "variations": [],
        "specs": {"reflective": False, "length_m": 1.5}, "specText": ["reflective: no", "length 1.5 m"]}  # fmt: skip
LITTER_BAGS = {
    "name": "Clumping Clay Litter",
    "description": "A fine clay litter that forms hard clumps.",
    "specs": {"clumping": True},
    "specText": ["clumping: yes"],
    "variations": [{"options": {"Scent": s, "Bag size": b}, "available": 4} for s in ("Original", "Lavender")
                   for b in ("5 kg", "10 kg")],
}  # fmt: skip


TROUSERS = _described(
    "Convertible Hiking Trousers",
    "Trousers that zip off above the knee. Stretchy nylon with a water-repellent finish dries quickly after rain. "
    "Colour-coded zips make it quick to attach the right leg.",
)
ROLL_TOP = _described("Roll-Top Backpack", "A roll-top bag for commuting. A luggage strap slides over a suitcase "
                      "handle. Padded back panel.")  # fmt: skip
SEED_SET = _described("Vegetable Seed Set", "Ten easy vegetables for a first patch. All seeds are certified organic. "
                      "The gift box includes a fold-out sowing calendar and a crop-rotation plan.")  # fmt: skip


@pytest.mark.parametrize(
    ("question", "product", "said", "unsaid"),
    [
        # German and French words for a spec, an option or what the text says
        ("ist das reflektierend?", LEAD, "reflective: no", NOT_TOLD),
        ("est-ce qu'elle est agglomérante ?", LITTER_BAGS, "clumping", NOT_TOLD),
        ("combien de kilos dans le sac ?", LITTER_BAGS, "bag size 5 kg, 10 kg", NOT_TOLD),
        ("elle sent quoi ?", LITTER_BAGS, "scent Original, Lavender", NOT_TOLD),
        ("what does it smell like?", LITTER_BAGS, "scent Original, Lavender", NOT_TOLD),
        # the sentence with all of what is asked, not one sharing one word of it
        ("is that one quick drying", TROUSERS, "Yes. Stretchy nylon with a water-repellent finish dries", ": Colour"),
        # (a word asked as it is, not in another form: "slip" is not "slipping these on")
        ("is it non slip?", _described("Shearling Boot", "Slipping these on feels like a warm blanket. Crepe sole."),
         NOT_TOLD, "Boot: Slipping"),
        ("when do i plant them", SEED_SET, "sowing calendar", "certified organic"),
        # another thing of the same name ("a luggage strap" is no shoulder strap): the text does not say
        ("does it have a shoulder strap", ROLL_TOP, NOT_TOLD, ": A luggage strap"),
        # but a kind of it its text names ("a spare blade" of a saw), or two words said of a third
        ("is the saw blade replaceable", _described("Folding Saw", "The blade folds into the handle. A spare blade "
         "can be fitted in seconds."), "spare blade", NOT_TOLD),
        ("the cherry tomato seeds, are they ok in pots?", _described("Cherry Tomato Seeds", "Sweet cherry tomatoes. "
         "A compact tomato that grows well in pots on a sunny balcony."), "compact tomato", NOT_TOLD),
        # what it is made of: its materials
        ("what material is the grater", {**_described("Box Grater", "A four-sided grater."),
                                          "material": "stainless steel, rubber base"}, "stainless steel", NOT_TOLD),
        ("wood or plastic?", {**_described("Box Grater", "A four-sided grater."),
                              "material": "stainless steel, rubber base"}, "stainless steel", NOT_TOLD),
    ],
)  # fmt: skip
async def test_what_is_asked_in_other_words_is_answered_by_what_says_it(question, product, said, unsaid):
    answer = " ".join(await FactFinder(ENGLISH).answer(question, [product], {}, str, lambda _: ""))
    assert said in answer and unsaid not in answer, answer


@pytest.mark.parametrize(
    ("question", "product", "said"),
    [
        # a short word's "-ing" and its other forms are one word: "biking" ~ "bike", "riding" ~ "ride"
        ("ok for biking?", _described("Rain Poncho", "Packs small. Long enough to cover you on a bike."), "on a bike"),
        ("good for riding?", _described("Overshoes", "Neoprene. Keeps shoes dry on a wet ride."), "wet ride"),
        ("ok for coding?", _described("Desk Lamp", "Warm white light. For long hours of code."), "of code"),
    ],
)  # fmt: skip
async def test_a_word_in_another_of_its_forms_finds_the_sentence_that_says_it(question, product, said):
    answer = " ".join(await FactFinder(ENGLISH).answer(question, [product], {}, str, lambda _: ""))
    assert said in answer and "doesn't say" not in answer, answer


FOOD_BAGS = {
    "name": "Adult Dog Food",
    "description": "A dry food for adult dogs.",
    "variations": [
        {"options": {"Bag size": "3 kg"}, "available": 20},
        {"options": {"Bag size": "12 kg"}, "available": 0},
    ],
}
LONG_HOSE = {
    "name": "Premium Hose",
    "description": "A heavy-duty hose.",
    "variations": [{"options": {"Length": "25 m"}, "available": 0}, {"options": {"Length": "50 m"}, "available": 7}],
}


@pytest.mark.parametrize(
    ("question", "product", "said"),
    [
        ("what size bag is the first", FOOD_BAGS, "3 kg, 12 kg (sold out at the moment)"),
        ("how long is the first one", LONG_HOSE, "25 m (sold out at the moment), 50 m"),
    ],
)
async def test_a_size_or_option_sold_out_is_said_so(question, product, said):
    answer = " ".join(await FactFinder(ENGLISH).answer(question, [product], {}, str, lambda _: ""))
    assert said in answer, answer


async def test_which_is_most_so_by_a_figure_says_the_one_with_the_highest():
    jackets = [
        {**_described(name, "A rain jacket."), "specs": {"waterproof_mm": mm}, "specText": [f"waterproof {mm} mm"]}
        for name, mm in (("Packable Jacket", 10000), ("Hiking Jacket", 20000), ("City Jacket", 5000))
    ]
    lines = await FactFinder(ENGLISH).answer("which is the most waterproof", jackets, {}, str, str)
    assert lines[0].startswith("Hiking Jacket"), lines


TANK_54 = {
    "name": "Lagoon 54 l Tank Kit",
    "description": "A glass tank with a lid.",
    "variations": [{"size": "ONE SIZE"}],
}
DROPS = {
    "name": "Lagoon Water Drops",
    "description": "Makes tap water safe for fish.",
    "variations": [{"options": {"Bottle": "100 ml"}}, {"options": {"Bottle": "500 ml"}}],
}
SOIL_BLOCKS = {
    "name": "Coir Blocks",
    "description": "Pressed coir that swells in water.",
    "variations": [{"options": {"Pack": "1 block"}}, {"options": {"Pack": "4 blocks"}}],
}
SOIL_BAGS = {
    "name": "Potting Soil",
    "description": "For pots and tubs.",
    "variations": [{"options": {"Bag size": "20 l"}}, {"options": {"Bag size": "2 x 50 l"}}],
}


@pytest.mark.parametrize(
    ("question", "products", "said"),
    [
        ("which is bigger?", [DROPS, TANK_54], ["Lagoon 54 l Tank Kit is the biggest", "100 ml, 500 ml"]),
        ("which one is smaller?", [TANK_54, DROPS], ["Lagoon Water Drops is the smallest", "54 l"]),
        # one counted in blocks beside bags in litres: the biggest of the bags, the blocks as they come
        (
            "which one is bigger?",
            [SOIL_BLOCKS, SOIL_BAGS, DROPS],
            ["Potting Soil is the biggest", "1 block, 4 blocks", "20 l, 2 x 50 l"],
        ),
        # none to weigh against another: what each comes in, and no verdict
        ("which one is bigger?", [SOIL_BLOCKS, SOIL_BAGS], ["Coir Blocks: 1 block, 4 blocks", "Soil: 20 l, 2 x 50 l"]),
        ("welche ist größer?", [DROPS, TANK_54], ["Lagoon 54 l Tank Kit is the biggest"]),
    ],
)
async def test_which_is_bigger_is_told_by_the_amounts_they_come_in(question, products, said):
    """ "which is bigger?" of an aquarium named "54 l" and drops in 100 and 500 ml bottles: the tank, with what
    each comes in (was "the product information doesn't say" of each)."""
    lines = await FactFinder(ENGLISH).answer(question, products, {}, str, lambda _: "")
    answer = " ".join(lines)
    assert all(s in answer for s in said) and NOT_TOLD not in answer, answer


async def test_a_difference_asked_with_a_typo_tells_what_each_is():
    """ "whats the diffrence between the first two?": what sets each apart, as "difference" does."""
    hoses = [
        {"name": "Wide Garden Hose 19 mm", "description": "A heavy-duty hose with a 19 mm bore for long runs.",
         "variations": []},
        {"name": "Light Garden Hose 13 mm", "description": "A light hose with a 13 mm bore for small gardens.",
         "variations": []},
    ]  # fmt: skip
    for typed in ("whats the diffrence between the first two?", "what's the diference between them"):
        lines = await FactFinder(ENGLISH).answer(typed, hoses, {}, str, lambda _: "")
        answer = " ".join(lines)
        assert "19 mm bore" in answer and "13 mm bore" in answer and NOT_TOLD not in answer, answer


async def test_a_stock_answer_counts_the_variations_it_does_not_name():
    """A product in ten colours: eight named and "and 2 more", not the last two left out unsaid."""
    colours = ["black", "white", "red", "blue", "green", "pink", "grey", "navy", "olive", "teal"]
    gloves = {
        "name": "Grip Gloves",
        "description": "Nitrile-coated gloves.",
        "variations": [{"color": c, "size": "M", "available": 5} for c in colours],
    }
    lines = await FactFinder(ENGLISH).answer("are they in stock?", [gloves], {}, str, lambda _: "")
    answer = " ".join(lines)
    assert "and 2 more" in answer and "navy" in answer and "teal" not in answer, answer


async def test_the_bigger_one_pointed_at_is_no_question_of_which_is_bigger():
    """ "the bigger set, how many pieces" asks the pieces of one, not which of them is bigger."""
    lines = await FactFinder(ENGLISH).answer("the bigger set, how many pieces", [DROPS, TANK_54], {}, str, lambda _: "")
    assert not any("is the biggest" in line for line in lines), lines


async def test_a_colour_it_is_not_made_in_is_said_so_with_what_there_is_in_the_size_asked():
    """ "is the blue one in stock in M?" of a jacket made in M, but not in blue: it does not come in blue
    (was "doesn't come in size M, in blue", as if M were missing), and what is left in M."""
    jacket = {
        "name": "Ridge Softshell",
        "description": "A softshell for running.",
        "variations": [
            {"color": "black", "size": "M", "available": 4},
            {"color": "navy", "size": "M", "available": 21},
            {"color": "navy", "size": "L", "available": 2},
        ],
    }

    def said(asked):
        return "".join(f" in size {s}" for s in asked.get("sizes", [])) + "".join(
            f" in {c}" for c in asked.get("colors", [])
        )

    lines = await FactFinder(ENGLISH).answer(
        "is the blue one in stock in M?", [jacket], {"colors": ["blue"], "sizes": ["M"]}, str, said
    )
    answer = " ".join(lines)
    assert "doesn't come in blue" in answer and "size M" not in answer.split(":")[0], answer
    assert "navy M (21 left)" in answer and "black M (4 left)" in answer, answer


async def test_the_colours_of_one_sold_out_are_the_colours_it_is_made_in():
    """ "what colours does it come in?" of a sweater sold out in every colour: those colours, and that none
    is left (was only "not available at the moment")."""
    sweater = {
        "name": "Crew Sweater",
        "description": "A cotton crew-neck sweater.",
        "variations": [{"color": c, "size": "M", "available": 0} for c in ("white", "yellow")],
    }
    lines = await FactFinder(ENGLISH).answer("what colours does it come in?", [sweater], {}, str, lambda _: "")
    answer = " ".join(lines)
    assert "white" in answer and "yellow" in answer and "sold out" in answer, answer


async def test_a_2_in_1_name_states_no_measure():
    """ "how long is the cable?" of a "2-in-1 Charging Pad": its text's cable, not "2-in" (inches) from its name."""
    pad = {
        "name": "Duo 2-in-1 Charging Pad",
        "description": "Charges a phone and earbuds at once. Comes with a 1 m USB-C cable.",
        "variations": [],
    }
    lines = await FactFinder(ENGLISH).answer("how long is the cable?", [pad], {}, str, lambda _: "")
    answer = " ".join(lines)
    assert "2-in" not in answer.split("Pad", 1)[1] and "1 m USB-C cable" in answer, answer


async def test_a_thing_asked_to_come_with_it_that_its_name_has_and_what_it_measures():
    """ "does the soundbar come with a subwoofer in the box" of a "Soundbar with Wireless Subwoofer": its sentence
    of the subwoofer (was the one of the cables included, the subwoofer counted as a word of its name only);
    "can the fitness tracker measure blood oxygen" of a tracker that says nothing of it: said so (was its strap's
    size in millimetres: "measure" asked of a thing is no size)."""

    async def asked(question: str, name: str, description: str) -> list[str]:
        product = {"name": name, "description": description, "variations": []}
        return await FactFinder(ENGLISH).answer(question, [product], {}, str, lambda _: "")

    lines = await asked(
        "does the soundbar come with a subwoofer in the box",
        "Auralis S5 Soundbar with Wireless Subwoofer",
        "A 2.1-channel soundbar with a wireless subwoofer, 300 W in total, for clearer dialogue. "
        "Connect by HDMI eARC or by optical cable. HDMI cable, optical cable and wall bracket included.",
    )
    assert "with a wireless subwoofer, 300 W" in " ".join(lines), lines
    # ("does the knife come with …" counts only what follows "with" so: the knife is what it is)
    lines = await asked(
        "does the knife come with a sheath",
        "Kochwerk Serrated Bread Knife 23 cm",
        "A long bread knife with deep scalloped serrations that cut cleanly through crusty sourdough. "
        "The 23 cm blade is stainless steel; the handle is beech.",
    )
    assert NOT_TOLD in " ".join(lines), lines
    # ("what's in the box with the speaker": nothing asked to come with it, what is included)
    lines = await asked(
        "whats in the box with the speaker",
        "Murmur Home Wi-Fi Smart Speaker",
        "A room-filling smart speaker for the kitchen or living room, with a built-in voice "
        "assistant. Power adapter with Type G plug included.",
    )
    assert lines == ["Murmur Home Wi-Fi Smart Speaker: Power adapter with Type G plug included."], lines
    tracker = (
        "Stridely Band 5 Fitness Tracker",
        "A slim activity tracker that counts steps, heart rate and sleep stages. Up to 14 days of "
        "battery. Strap fits wrists of 130-210 mm. Works with iOS and Android.",
    )
    lines = await asked("can the fitness tracker you showed measure blood oxygen", *tracker)
    assert NOT_TOLD in " ".join(lines), lines
    lines = await asked("how do i measure my wrist for it", *tracker)
    assert "130-210 mm" in " ".join(lines) and NOT_TOLD not in " ".join(lines), lines


@pytest.mark.parametrize(
    ("name", "value", "language", "said"),
    [
        ("tubeless_ready", False, "en", "no, not tubeless ready"),
        ("tubeless_ready", True, "en", "yes, tubeless ready"),
        ("grain_free", True, "en", "yes, grain free"),
        ("foldable", False, "en", "no, not foldable"),
        ("insulated", True, "en", "yes, insulated"),
        ("organic", True, "en", "yes, organic"),
        ("stabilisers_included", False, "en", "no, stabilisers not included"),
        ("batteries_included", True, "en", "yes, batteries included"),
        ("tools_needed", False, "en", "no, tools not needed"),
        ("whistle", True, "en", "whistle: yes"),  # a thing it has, not a property
        ("drainage_hole", False, "en", "drainage hole: no"),
        ("tubeless_ready", False, "de", "tubeless ready: nein"),
        ("drainage_hole", True, "de", "drainage hole: ja"),
        ("stabilisers_included", False, "fr", "stabilisers included : non"),
    ],
)
def test_a_yes_or_no_spec_is_said_in_words_of_the_answers_language(name, value, language, said):
    assert spec_said(name, value, REPLIES[language]) == said
