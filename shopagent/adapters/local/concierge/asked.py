"""What a question asks of a product: the properties it names ("is the filter loud?" -> loud,
and the words that say it: db, noise, quiet) and the specs whose names answer it ("how bright is
it?" -> lumens)."""

from __future__ import annotations

import re
from typing import Any

from shopagent.adapters.local.concierge.phrases import PROPERTIES, QUESTION_IMPLIES, STOPWORDS
from shopagent.adapters.local.concierge.text import stem
from shopagent.domain.options import fold
from shopagent.domain.query_words import name_head
from shopagent.domain.text import words

# The catalog's English for words of questions that it says otherwise: German and French words of
# properties, smells and flights, and English ones the text puts in other words ("plant" -> sow)
SAID_AS = {
    "reflektierend": "reflective", "reflektierende": "reflective", "reflechissant": "reflective",
    "reflechissante": "reflective", "klumpend": "clumping clumps", "klumpt": "clumping clumps",
    "agglomerante": "clumping clumps", "agglomerant": "clumping clumps", "smell": "scent scented",
    "smells": "scent scented", "duft": "scent scented", "duftet": "scent scented", "riecht": "scent scented",
    "odeur": "scent scented", "parfum": "scent scented", "plane": "airline flight flights cabin luggage",
    "flight": "airline plane flights cabin luggage", "flugzeug": "plane airline flight flights cabin luggage",
    "avion": "plane airline flight flights cabin luggage", "fly": "airline flight flights cabin luggage",
    "flying": "airline flight flights cabin luggage", "plant": "sow sowing", "pflanzen": "sow sowing plant",
    "saen": "sow sowing", "semer": "sow sowing", "seme": "sow", "semes": "sow",
    "planter": "sow sowing plant", "kilos": "kg", "kilo": "kg",
    "puppies": "puppy adult junior", "puppy": "adult junior", "kitten": "adult junior", "kittens": "adult junior",
    "welpe": "puppy adult junior", "welpen": "puppy adult junior", "chiot": "puppy adult junior",
    "chiots": "puppy adult junior", "chaton": "kitten adult junior", "chatons": "kitten adult junior",
    "resolution": "megapixel megapixels mp", "auflosung": "resolution megapixel mp",
    "glas": "glass", "verre": "glass", "metall": "metal", "holz": "wood", "bois": "wood",
    "plastik": "plastic", "kunststoff": "plastic", "plastique": "plastic", "etanche": "waterproof",
    "wasserdicht": "waterproof", "puissant": "powerful power", "leistungsstark": "powerful power",
    # what a text calls the thing asked with ("does it work with a mac?": "Works with Windows and macOS")
    "mac": "macos macbook", "macbook": "macos mac", "iphone": "ios", "stove": "hob hobs", "cooktop": "hob hobs",
    "mic": "microphone", "microphone": "mic", "mount": "vesa mounting",
    # ("can it stay outside in winter or it break?" of a flowerpot: "Frost-proof and unbreakable")
    "winter": "frost hardy", "freeze": "frost", "freezes": "frost", "freezing": "frost",
    # ("bio?" asks whether it is organic; searched, "un produit bio" is no organic thing of any kind)
    "bio": "organic",
    # ("which is more compact?", "le plus compact": how small it packs; "packed length 32 cm", "packs to 36 x 23 cm")
    "compact": "packed packs", "kompakt": "compact packed packs", "kompakter": "compact packed packs",
    "packmass": "packed packs", "compacte": "compact packed packs", "encombrant": "packed packs",
    # ("does it need assembly?": "Screws together in a few minutes; tools included")
    "assembly": "assemble assembled screws together tools", "assemble": "assembly assembled screws together tools",
    "aufbau": "assembly assemble screws tools", "aufbauen": "assembly assemble screws tools",
    "zusammenbauen": "assembly assemble screws tools", "montage": "assembly assemble screws tools",
    "monter": "assembly assemble screws tools",
    # ("ist sie backofenfest?": "Oven safe up to 260 °C"; "le four" is read as a phrase below, "four" being a number)
    "backofen": "oven", "ofen": "oven", "backofenfest": "oven safe", "ofenfest": "oven safe", "mikrowelle": "microwave",
    "induktion": "induction", "herd": "hob hobs stove",
    # what it is sold in ("combien de boîtes dans le paquet ?", "wie viele sind in der Packung?": its packs)
    "paquet": "pack", "paquets": "pack", "boite": "box tin pack", "boites": "box tin pack", "sachet": "pouch pack",
    "sachets": "pouch pouches pack", "packung": "pack", "packungen": "pack", "beutel": "bag pack", "dose": "tin can",
    "dosen": "tin can", "karton": "box pack", "schachtel": "box pack",
    # ("how many tins are in the box?": the packs it comes in)
    "box": "pack", "boxes": "pack", "carton": "pack", "cartons": "pack",
    # how it is ground ("do you have it ground?", "gibt es die gemahlen?", "vous l'avez moulu ?": its grinds)
    "ground": "grind", "gemahlen": "grind mahlgrad", "moulu": "grind mouture", "moulus": "grind mouture",
    # German and French words of questions the built-in noun list does not hold ("haben die unten ein Loch?": its
    # drainage hole; "was ist alles dabei?": what is included; "welche Marke?": its brand)
    # ("ist die auch für Linkshänder?", "pour gaucher ?": its left-handed version)
    "linkshander": "left handed", "rechtshander": "right handed", "gaucher": "left handed", "gauchers": "left handed",
    "gauchere": "left handed", "droitier": "right handed", "droitiers": "right handed",
    "loch": "hole", "trou": "hole", "trous": "holes hole", "abfluss": "drainage drain", "wiegt": "weight weighs",
    "pese": "weight weighs", "laufzeit": "battery life runtime hours", "antiderapante": "non-slip",
    "zutaten": "ingredients", "spieler": "players", "joueurs": "players", "dabei": "included comes with",
    "inklusive": "included", "incluse": "included", "fournie": "included supplied", "ersatz": "replacement spare",
    "marke": "brand", "marque": "brand",
}  # fmt: skip
# What a French word is only in these words ("ça sent quoi ?", not "il a été sent")
_SAID_AS_PHRASES = {
    "scent smell": re.compile(r"\b(?:ca|elle|il|ils|elles) sent\b|\bsent (?:quoi|bon|le|la|comment)\b"),
    # "elle est en quoi ?", "aus was ist es?": what it is made of
    "material": re.compile(r"\b(?:est|sont|c'est|fait|faite|faits|faites) en quoi\b|\baus was\b|\baus welchem\b"),
    # "elle va au four ?", "résiste au four": the oven ("four" alone is also a number)
    "oven": re.compile(r"\b(?:au|le|du|en|four a) four\b"),
}
# A material asked of a thing, and the words that say it (of a kind of it: steel is a metal)
MATERIALS = {
    "glass": "glass glas verre borosilicate",
    "plastic": "plastic plastik kunststoff plastique polypropylene polycarbonate abs pvc acrylic melamine tritan",
    "wood": "wood wooden holz bois bamboo beech oak acacia walnut olivewood teak",
    "metal": "metal metall steel stainless aluminium aluminum iron copper brass titanium zinc inox acier stahl "
    "edelstahl galvanised galvanized",
    "cotton": "cotton baumwolle coton", "leather": "leather leder cuir suede", "wool": "wool wolle laine merino",
    "ceramic": "ceramic keramik ceramique stoneware porcelain earthenware",
    "silicone": "silicone silikon", "steel": "steel stainless stahl edelstahl acier inox",
}  # fmt: skip
_MATERIAL_OF = {w: key for key, said in MATERIALS.items() for w in said.split()}


def said_as(question: str, *, phrases: bool = False) -> set[str]:
    """The catalog's words (stemmed) for words of a (folded) question that it says otherwise (and, with
    `phrases`, for French words that are something else alone: "elle sent")."""
    found = {x for w in words(question) for x in SAID_AS.get(w, "").split()}
    if phrases:
        found |= said_in_phrases(question)
    if any(w in _MATERIAL_OF for w in words(question)):
        found.add("material")  # ("wood or plastic?": what it is made of)
    return {stem(x) for x in found}


def said_in_phrases(question: str) -> set[str]:
    """The catalog's words for the French and German phrases of a (folded) question that say it otherwise
    ("elle sent quoi ?": scent, smell; "elle est en quoi ?": material), unstemmed."""
    return {x for said, pattern in _SAID_AS_PHRASES.items() if pattern.search(question) for x in said.split()}


def materials_named(text: str) -> set[str]:
    """The materials (keys of MATERIALS) a (folded) text names; metal also for a metal it names."""
    named = {_MATERIAL_OF[w] for w in words(text) if w in _MATERIAL_OF}
    named |= {"metal" for w in words(text) if w in MATERIALS["metal"].split()}
    return named


IMPLIES = {stem(fold(k)): {stem(w) for w in words(v)} for k, v in QUESTION_IMPLIES.items()}
_PROPERTIES = {stem(w) for w in PROPERTIES.split()}
# ("how long do they stay on?", "how long does it take to charge?", "wie lange leuchtet sie?": a time too)
_HOW_LONG = {
    stem(w)
    for w in ("last", "lasts", "halt", "reicht", "dure", "tient", "stay", "stays", "run", "runs", "take", "takes",
              "keep", "keeps", "bleibt", "lauft", "dauert", "leuchtet", "brennt", "reste", "fonctionne")
}  # fmt: skip


def properties_named(asked: set[str]) -> set[str]:
    """The properties a question (its stems) asks of a product ("is the filter loud?" -> loud)
    and the words that name them (loud -> db, noise, quiet, watts); empty when it asks none."""
    properties = asked & _PROPERTIES
    return properties | {x for w in properties for x in IMPLIES.get(w, set())}


def specs_about(question: str, d: dict[str, Any]) -> list[str]:
    """The product's specs (as read: "capacity 1000 ml") whose names the question's words or the
    words it implies name ("how bright is it?" -> lumens)."""
    asked = {stem(w) for w in words(question) if w not in STOPWORDS} | said_as(fold(question))
    # "is the filter loud?": a spec must name loudness, not the filter
    asked = properties_named(asked) or asked | {x for w in asked for x in IMPLIES.get(w, set())}
    if asked & _HOW_LONG:  # "how long does one last?" asks for a time, not a length
        asked -= {stem("length")}
    # what it is, named, is not asked of it: "ist der erste Schlauch knickfest?" is no question of its "hose diameter"
    # (a word of its name that is no kind may be: "agglomérante?" of a "Clumping" litter is its "clumping")
    if (head := name_head(str(d.get("name", "")))) is not None:
        asked -= {stem(head)}
    texts = d.get("specText") or []
    # a spec named by a word any such name has ("safe", "free") alone is not the one asked: "is it safe
    # for puppies?" is not "dishwasher safe", "is it kink-free?" not "phthalate free"
    named = [
        text for name, text in zip(d.get("specs", {}), texts, strict=False)
        if {stem(w) for w in name.split("_") if len(w) > 2} & asked - _SPEC_QUALIFIERS
    ]  # fmt: skip
    if named:
        return named
    # else a spec in the unit asked ("how many litres is it?": "volume 60 l"; "how long does the battery
    # last?": "runtime 45 min"), not an age or a warranty said in years or weeks
    units = units_asked(fold(question))
    return [
        text for name, text in zip(d.get("specs", {}), texts, strict=False)
        if name.rsplit("_", 1)[-1] in units and not set(name.split("_")) & _NOT_HOW_LONG
    ]  # fmt: skip


def units_asked(question: str) -> set[str]:
    """The unit suffixes of spec names ("volume_l", "runtime_min") a (folded) question asks a figure in:
    "how many litres?", "in cm", "how long does it last?" (a time)."""
    found = {unit for m in _IN_UNIT.finditer(question) for word, unit in _UNIT_WORDS if re.fullmatch(word, m[1])}
    return found | (_TIME_UNITS if _TIME_ASKED.search(question) else set())


_UNIT_WORDS = [
    (r"litres?|liters?|litern?", "l"), (r"ml|millilit(?:re|er)s?", "ml"), (r"kg|kilos?|kilograms?", "kg"),
    (r"grams?|gramm|grammes?", "g"), (r"cm|centimet(?:re|er)s?|zentimetern?", "cm"),
    (r"mm|millimet(?:re|er)s?|millimetern?", "mm"), (r"watts?", "w"), (r"mah", "mah"),
    (r"inch(?:es)?|zoll|pouces?", "in"), (r"lumens?", "lm"), (r"decibels?|db", "db"),
]  # fmt: skip
_IN_UNIT = re.compile(
    r"\b(?:in|how many|wie viele?|combien de|en)\s+(" + "|".join(word for word, _ in _UNIT_WORDS) + r")\b"
)
# "how long does the battery last?", "wie lange hält der Akku?", "combien de temps ça dure ?" (not "how
# long is it?": a length)
_TIME_ASKED = re.compile(
    r"\bhow long (?:does|do|will|would|can|should)\b|\bhow many (?:hours|minutes|weeks|days)\b|"
    r"\bwie lange?\b(?! (?:ist|sind)\b)|\bcombien de temps\b|\bautonomie\b|\bruntime\b|\bbattery life\b|"
    r"\b(?:akku)?laufzeit\b"
)
_TIME_UNITS = {"min", "h", "hours", "days", "weeks", "months"}
_NOT_HOW_LONG = {"age", "warranty", "guarantee", "garantie"}


_SPEC_QUALIFIERS = {stem(w) for w in ("safe", "free", "proof", "friendly", "resistant", "included", "max", "min")}
