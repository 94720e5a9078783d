"""What a shopper's trouble asks for: the built-in starter list, by the catalog's language.

Shoppers tell a situation more often than they name a product: "my dog sheds everywhere", "my
knives are all blunt", "my phone dies by lunchtime". The words of the trouble are seldom the
words of what solves it (a "Deshedding Tool" whose text says "loose undercoat", a "Whetstone", a
"Power Bank"), and a small sentence encoder does not bridge them: on a pet shop, "dog shedding"
put every dog food above the deshedding tool, because "dog" is in their names and nothing else of
the query is in any product's text.

So a trouble's words add the words of what answers it to the search (the full-text leg matches
and ranks on them too, the vector leg embeds them), as a shop assistant would hear "sheds" and
think of a deshedding brush. Only the words the catalog itself uses are added, so a trouble
another trade's shop has nothing for adds nothing there ("scared" adds "calming" in a pet shop,
nothing in a shop of kitchen tools). The words the shopper said stay the request: the thing asked
for is still read from them alone.

A key is one or more words, all of which the query must have (in any order: "bad breath", "dog
pulls"); its value, the words to add. For an English catalog: everyday troubles of the common
retail trades, with German and French keys for them (a German shopper in an English shop); for a
German or a French catalog, the troubles in its language and the words its shops use. A shop's
own `[search.needs]` goes over the list. Catalogs in other languages start with none.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from importlib import resources

from shopagent.domain.text import words

_ENGLISH_NEEDS = {
    # pets
    "sheds": "deshedding undercoat grooming", "shedding": "deshedding undercoat grooming",
    "moulting": "deshedding undercoat grooming", "molting": "deshedding undercoat grooming",
    "hair everywhere": "deshedding undercoat grooming", "fur everywhere": "deshedding undercoat grooming",
    "loses hair": "deshedding undercoat grooming", "losing hair": "deshedding undercoat grooming",
    "bad breath": "dental teeth plaque", "smelly breath": "dental teeth plaque", "breath smells": "dental teeth plaque",
    "stinky breath": "dental teeth plaque", "tartar": "dental teeth plaque",
    "fireworks": "calming anxiety", "thunder": "calming anxiety", "thunderstorms": "calming anxiety",
    "anxious": "calming anxiety", "anxiety": "calming", "nervous": "calming anxiety", "stressed": "calming anxiety",
    "scared": "calming anxiety", "frightened": "calming anxiety",
    "bored": "enrichment puzzle interactive toy", "boredom": "enrichment puzzle interactive toy",
    "alone": "enrichment puzzle interactive toy",
    "pulls": "harness", "pulling": "harness",
    "scratches sofa": "scratching post scratcher", "scratches furniture": "scratching post scratcher",
    "scratching sofa": "scratching post scratcher", "scratching furniture": "scratching post scratcher",
    "scratches couch": "scratching post scratcher",
    "stiff": "joint senior orthopaedic", "arthritis": "joint senior orthopaedic",
    "joint pain": "joint senior orthopaedic", "limping": "joint orthopaedic", "getting old": "senior joint",
    "old dog": "senior", "old cat": "senior", "older dog": "senior", "older cat": "senior", "elderly": "senior",
    "itchy": "sensitive skin soothing", "itching": "sensitive skin soothing", "dry skin": "sensitive skin soothing",
    "upset stomach": "sensitive digestion probiotic", "sensitive stomach": "sensitive digestion probiotic",
    "diarrhoea": "sensitive digestion probiotic", "diarrhea": "sensitive digestion probiotic",
    "overweight": "light weight control", "too fat": "light weight control", "chubby": "light weight control",
    "chews everything": "chew", "teething": "chew puppy", "hairballs": "hairball", "hairball": "hairball",
    "car trip": "travel car", "car journey": "travel car", "road trip": "travel car",
    "drink more": "fountain", "litter smells": "odour clumping",
    "matted": "detangling tangles slicker", "tangles": "detangling slicker", "knots fur": "detangling slicker",
    "allergies": "hypoallergenic sensitive", "allergic": "hypoallergenic sensitive",
    "fussy eater": "fussy", "picky eater": "fussy", "wont eat": "fussy", "doesnt eat": "fussy",
    "lose weight": "light weight control",
    # kitchen
    "blunt": "sharpener whetstone sharpening honing", "dull knives": "sharpener whetstone sharpening honing",
    "dull knife": "sharpener whetstone sharpening honing", "not sharp": "sharpener whetstone sharpening honing",
    "sticks pan": "non stick", "sticking pan": "non stick", "eggs stick": "non stick", "food sticks": "non stick",
    "make bread": "bread loaf proofing dough", "bake bread": "bread loaf proofing dough",
    "baking bread": "bread loaf proofing dough", "sourdough": "bread loaf proofing dough",
    "meal prep": "storage containers", "leftovers": "storage containers",
    # electronics
    "phone dies": "power bank portable charger", "battery dies": "power bank portable charger",
    "runs out battery": "power bank portable charger", "battery runs out": "power bank portable charger",
    "low battery": "power bank portable charger",
    "wrists hurt": "ergonomic vertical wrist", "wrist pain": "ergonomic vertical wrist",
    "rsi": "ergonomic vertical wrist",
    "carpal tunnel": "ergonomic vertical wrist",
    "messy cables": "cable ties organiser management", "cable mess": "cable ties organiser management",
    "cables everywhere": "cable ties organiser management", "tangled cables": "cable ties organiser management",
    "front door": "doorbell camera security", "burglars": "camera security", "keep eye": "camera security",
    "noisy office": "noise cancelling", "noisy neighbours": "noise cancelling", "block out noise": "noise cancelling",
    "weak wifi": "mesh router extender", "slow wifi": "mesh router extender", "wifi reach": "mesh router extender",
    "youtube": "vlogging camera microphone", "vlog": "vlogging camera microphone",
    "record videos": "vlogging camera microphone", "video calls": "webcam microphone headset",
    "zoom calls": "webcam microphone headset", "lose my keys": "tracker tag", "find my keys": "tracker tag",
    "audiobooks": "speaker", "read in bed": "reading light reader",
    # garden
    "slugs": "slug snail barrier", "snails": "slug snail barrier", "weeds": "weeding weed",
    "away holiday": "self watering drip timer automatic", "away vacation": "self watering drip timer automatic",
    "attract birds": "bird feeder nest", "too sunny": "shade parasol sail", "hot sun": "shade parasol sail",
    "grow herbs": "herb planter", "mosquitoes": "insect repellent", "wasps": "insect wasp trap",
    "holiday plants": "self watering drip timer automatic", "holiday tomatoes": "self watering drip timer automatic",
    "holiday pots": "self watering drip timer automatic", "vacation plants": "self watering drip timer automatic",
    "watering holiday": "self watering drip timer automatic", "water away": "self watering drip timer automatic",
    "grow tomatoes": "seeds", "growing tomatoes": "seeds", "grow vegetables": "seeds", "growing vegetables": "seeds",
    "from seed": "seeds",
    "back hurts": "kneeler long handle upright", "bad back": "kneeler long handle upright",
    "bending": "kneeler long handle upright", "knees hurt": "kneeler kneeling pad",
    # clothing and outdoor
    "freezing": "warm thermal insulated", "keep warm": "warm thermal insulated", "keep dry": "waterproof rain",
    "get wet": "waterproof rain", "heatwave": "breathable lightweight linen", "sweaty": "breathable lightweight",
    "sore feet": "cushioned comfort insole", "feet all day": "cushioned comfort insole",
    "job interview": "blazer suit shirt", "soaked": "waterproof rain", "keeps raining": "waterproof rain",
    # German and French
    "haart": "deshedding undercoat grooming", "haaren": "deshedding undercoat grooming",
    "fellwechsel": "deshedding undercoat grooming", "mundgeruch": "dental teeth plaque",
    "feuerwerk": "calming anxiety", "silvester": "calming anxiety", "gewitter": "calming anxiety",
    "angstlich": "calming anxiety", "langweilt": "enrichment puzzle interactive toy", "zieht leine": "harness",
    "kratzt sofa": "scratching post scratcher", "stumpf": "sharpener whetstone sharpening honing",
    "klebt": "non stick", "brennt": "non stick", "akku leer": "power bank portable charger",
    "handgelenk": "ergonomic vertical wrist", "kabelsalat": "cable ties organiser management",
    "zu dick": "light weight control", "abnehmen": "light weight control", "allergie": "hypoallergenic sensitive",
    "beisst alles": "chew", "verfilzt": "detangling tangles slicker", "regnet": "waterproof rain",
    "makelt": "fussy", "wahlerisch": "fussy", "difficile mange": "fussy", "mange rien": "fussy",
    "maigrir": "light weight control", "trop gros": "light weight control", "pluie": "waterproof rain",
    "noeuds poils": "detangling slicker", "n\u0153uds poils": "detangling slicker",
    "mauvaise haleine": "dental teeth plaque", "perd poils": "deshedding undercoat grooming",
    "mue": "deshedding undercoat grooming", "feux artifice": "calming anxiety", "orage": "calming anxiety",
    "stresse": "calming anxiety", "ennuie": "enrichment puzzle interactive toy", "tire laisse": "harness",
    "griffe canape": "scratching post scratcher", "emousse": "sharpener whetstone sharpening honing",
    "emousses": "sharpener whetstone sharpening honing", "ne coupent plus": "sharpener whetstone sharpening honing",
    "poignet": "ergonomic vertical wrist", "batterie vide": "power bank portable charger",
    "verdursten": "self watering drip timer automatic", "vertrocknen": "self watering drip timer automatic",
    "urlaub giessen": "self watering drip timer automatic", "urlaub pflanzen": "self watering drip timer automatic",
    "vacances plantes": "self watering drip timer automatic", "vacances arroser": "self watering drip timer automatic",
}  # fmt: skip


# For a German catalog: the troubles in German, what answers them in the words German shops use.
_GERMAN_NEEDS = {
    # Küche
    "stumpf": "schleifstein wetzstahl schärfen", "schneiden nicht": "schleifstein wetzstahl schärfen",
    "klebt": "antihaft", "brennt an": "antihaft", "haftet": "antihaft",
    "brot backen": "brot kastenform gärkörbchen", "sauerteig": "brot kastenform gärkörbchen",
    "reste": "vorratsdose glasbehälter", "meal prep": "vorratsdose glasbehälter",
    # Tiere
    "haart": "unterwolle fellpflege bürste", "haaren": "unterwolle fellpflege bürste",
    "mundgeruch": "zahnpflege zähne", "feuerwerk": "beruhigend", "silvester": "beruhigend", "gewitter": "beruhigend",
    "angstlich": "beruhigend", "langweilt": "intelligenzspielzeug schnüffelteppich", "zieht leine": "geschirr",
    "kratzt sofa": "kratzbaum kratzbrett", "zu dick": "light gewichtskontrolle", "abnehmen": "light gewichtskontrolle",
    "verfilzt": "entfilzungskamm bürste", "gelenke": "gelenk senior", "steif": "gelenk senior",
    # Technik
    "akku leer": "powerbank ladegerät", "handgelenk": "ergonomisch vertikal", "kabelsalat": "kabelbinder kabel",
    # Garten
    "schnecken": "schneckenzaun schneckenkorn", "urlaub pflanzen": "bewässerung tropfbewässerung",
    "urlaub giessen": "bewässerung tropfbewässerung", "unkraut": "unkraut fugenkratzer",
    # Kleidung
    "regnet": "wasserdicht regenjacke", "friere": "warm gefüttert thermo", "kalte fusse": "warm gefüttert thermo",
}  # fmt: skip

# For a French catalog: the troubles in French, what answers them in the words French shops use.
_FRENCH_NEEDS = {
    # cuisine
    "coupent": "aiguiser affûter pierre",  # ("ne coupent plus": "ne" and "plus" are small words the search drops)
    "emousse": "aiguiser affûter pierre", "emousses": "aiguiser affûter pierre",
    "attache": "antiadhésive antiadhésif", "accroche": "antiadhésive antiadhésif", "colle poele": "antiadhésive",
    "faire pain": "pain banneton moule", "pain maison": "pain banneton moule", "levain": "pain banneton moule",
    "restes": "boîtes conservation", "meal prep": "boîtes conservation",
    # animaux
    "perd poils": "sous-poil brosse toilettage", "mue": "sous-poil brosse toilettage",
    "mauvaise haleine": "dentaire dents", "feux artifice": "apaisant", "orage": "apaisant", "stresse": "apaisant",
    "ennuie": "jouet interactif tapis de fouille", "tire laisse": "harnais", "griffe canape": "griffoir arbre à chat",
    "trop gros": "light contrôle du poids", "maigrir": "light contrôle du poids", "raide": "articulations senior",
    "articulations": "articulations senior", "noeuds poils": "démêlant brosse",
    # high-tech
    "batterie vide": "batterie externe chargeur", "poignet": "ergonomique verticale", "cables partout": "serre-câbles",
    # jardin
    "limaces": "anti-limaces barrière", "escargots": "anti-limaces barrière",
    "vacances plantes": "arrosage goutte-à-goutte", "mauvaises herbes": "désherbage désherbeur",
    # vêtements
    "pluie": "imperméable pluie", "froid": "chaud doublé thermique",
}  # fmt: skip


def _listed(name: str) -> dict[str, str]:
    """The longer list shipped beside this module (words/<name>.tsv: a trouble, a tab, the words answering it)."""
    text = (resources.files(__package__) / "words" / f"{name}.tsv").read_text(encoding="utf-8")
    pairs = (line.split("\t") for line in text.splitlines() if line.strip() and not line.startswith("#"))
    return {trouble.strip(): answer.strip() for trouble, answer in pairs}


_BUILT_IN = {"en": _ENGLISH_NEEDS, "de": _GERMAN_NEEDS, "fr": _FRENCH_NEEDS}
# Situations, occasions and goals of each trade ("keep my dog busy", "going hiking", "first date"), with German and
# French keys, for an English catalog (words/needs_en.tsv): what answers them is added only where the shopper names
# no thing the catalog sells ("regenjacke wasserdicht zum wandern" asks for a rain jacket, not hiking boots).
_SITUATIONS = {"en": _listed("needs_en")}


class Needs:
    """Troubles (folded words, all of which a query must have) -> the words that answer them; and situations,
    whose answers count only where the query names no thing."""

    def __init__(self, pairs: Mapping[str, str], situations: Mapping[str, str] | None = None) -> None:
        self._pairs = _read(pairs)
        self._situations = {k: v for k, v in _read(situations or {}).items() if k not in self._pairs}

    def __len__(self) -> int:
        return len(self._pairs) + len(self._situations)

    def __or__(self, other: Needs) -> Needs:
        """These troubles with `other`'s over them (the shop's own list over the built-in one)."""
        joined = Needs({})
        joined._pairs = {**self._pairs, **other._pairs}
        joined._situations = {
            k: v for k, v in {**self._situations, **other._situations}.items() if k not in joined._pairs
        }
        return joined

    def answers(
        self, query: Sequence[str], catalog_uses: Callable[[str], bool], *, thing_named: bool = False
    ) -> list[str]:
        """The words answering the troubles `query` (its folded words) tells of, those the catalog
        uses and the query does not have, each once, in the list's order (of the situations too, unless
        `thing_named`)."""
        said = set(query)
        # (a word in the plural says it too: "a mess of cables" tells of a "cable mess")
        forms = said | {
            w[: -len(end)] for w in said for end in ("s", "es") if w.endswith(end) and len(w) > len(end) + 2
        }
        added: list[str] = []
        pairs = self._pairs if thing_named else {**self._situations, **self._pairs}
        for trouble, answer in pairs.items():
            if all(w in forms for w in trouble):
                added += [w for w in answer if w not in said and w not in added and catalog_uses(w)]
        return added


def _read(pairs: Mapping[str, str]) -> dict[tuple[str, ...], tuple[str, ...]]:
    return {tuple(words(k)): tuple(words(v)) for k, v in pairs.items() if words(k) and words(v)}


NO_NEEDS = Needs({})


def builtin_needs(language: str) -> Mapping[str, str]:
    """The built-in starter list for a catalog in `language` (a BCP 47 tag): English, German or French;
    none for another language."""
    return _BUILT_IN.get(language.split("-")[0].casefold(), {})


def builtin_situations(language: str) -> Mapping[str, str]:
    """The built-in list of situations for a catalog in `language`: English; none for another language."""
    return _SITUATIONS.get(language.split("-")[0].casefold(), {})
