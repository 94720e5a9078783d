"""How a search query's words are read: which word names the thing asked for (its head) and
which words before another say which kind of it (its modifiers)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from itertools import pairwise

from shopagent.domain.options import fold
from shopagent.domain.text import letter_compounds, words

# Words after which a query goes on about the use, not the thing ("boots for hiking", "Schuhe für
# eine Hochzeit", "veste pour l'hiver"): the head word is the last descriptive word before them.
QUALIFIERS = frozenset({
    "for", "with", "to", "at", "in", "on", "under", "from", "that", "who", "which", "when", "because", "like",
    "but", "fur", "mit", "zum", "zur", "bei", "unter", "von", "als", "aber",
    "pour", "avec", "sans", "sous", "chez", "qui", "que", "quand", "mais",
})  # fmt: skip


# Words that say how good or pleasant a thing is, not which kind it is: "comfy sandals" asks for
# sandals (a sandal whose text lacks "comfy" is still of the kind), "motorbike helmet" does not
# ask for any helmet.
PRAISE = frozenset({
    "good", "great", "nice", "best", "decent", "lovely", "pretty", "cute", "cool", "comfy", "comfortable",
    "cheap", "affordable", "quality", "proper", "simple", "basic", "gut", "gute", "guter", "gutes", "schon",
    "schone", "schoner", "bequem", "bequeme", "bequemen", "gunstig", "gunstige", "bon", "bonne", "bons",
    "bonnes", "joli", "jolie", "confortable", "confortables", "guten", "beste", "besten", "bester", "bestes",
})  # fmt: skip

# Words before a thing that say which one of a series or what it replaces, not which kind it is:
# "first aquarium", "spare charger", "birkenstock type sandals", "neue Jacke".
NO_KIND = frozenset({
    "first", "new", "spare", "extra", "another", "other", "type", "kind", "style", "sort", "matching", "passende",
    "passenden", "passender", "assorti", "assortie",
    "erste", "ersten", "erster", "erstes", "neue", "neuen", "neuer", "neues", "premier", "premiere", "nouveau",
    "nouvelle", "nouvel",
})  # fmt: skip


# For whom a thing is, one audience each (en, de, fr).
MEN = frozenset({"men", "mens", "man", "herren", "homme", "hommes"})
WOMEN = frozenset({"women", "womens", "woman", "ladies", "lady", "damen", "femme", "femmes"})
KIDS = frozenset({"kids", "kid", "boys", "girls", "kinder", "enfant", "enfants"})

# Words for whom a thing is ("mens jumper", "Damen Jacke"): a product's name seldom says them, so
# they do not say which kind of the thing named it is.
AUDIENCE = MEN | WOMEN | KIDS | {"unisex"}

# What things are made of, in the catalog languages: a query naming one ("leather sandals", "pull
# en laine", "Topf aus Gusseisen") asks for a product made of it. Adjectives ("wooden", "woollen")
# are left out: the catalogs' material fields use the nouns.
MATERIALS = frozenset({
    "leather", "suede", "wool", "merino", "cashmere", "alpaca", "cotton", "linen", "silk", "denim", "canvas",
    "fleece", "polyester", "nylon", "corduroy", "tweed", "velvet", "satin", "steel", "iron", "aluminium",
    "aluminum", "copper", "titanium", "brass", "glass", "ceramic", "porcelain", "stoneware", "earthenware",
    "bamboo", "wood", "oak", "beech", "walnut", "acacia", "silicone", "rubber", "cork", "plastic", "marble",
    "leder", "wildleder", "wolle", "kaschmir", "baumwolle", "leinen", "seide", "stahl", "edelstahl", "gusseisen",
    "kupfer", "glas", "keramik", "porzellan", "steingut", "holz", "bambus", "gummi", "kork",
    "cuir", "daim", "laine", "cachemire", "coton", "lin", "soie", "acier", "inox", "fonte", "cuivre", "verre",
    "ceramique", "porcelaine", "gres", "bois", "bambou", "caoutchouc", "liege",
})  # fmt: skip

# Materials that are kinds of another ("bottines en cuir" are answered by suede ankle boots).
MATERIAL_KINDS = {
    "leather": frozenset({"suede", "nubuck", "lambskin", "sheepskin", "shearling", "calfskin", "cowhide", "nappa"}),
    "wool": frozenset({"merino", "cashmere", "lambswool", "alpaca", "mohair", "shearling"}),
    "wood": frozenset({"oak", "beech", "walnut", "acacia", "ash", "pine", "teak", "olivewood", "birch"}),
    "steel": frozenset({"inox"}),
}

# The small words of the customers' languages that say nothing of the thing ("ceinture en cuir",
# "Jacke aus Leder"); a shop's text search knows only its own language's.
FUNCTION_WORDS = frozenset({
    "a", "an", "the", "of", "and", "or",
    "der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "einer", "und", "oder", "aus",
    "mit", "fur", "fuer", "von", "vom", "zu", "zum", "zur", "im", "am",
    "le", "la", "les", "l", "un", "une", "du", "de", "d", "et", "ou", "en", "au", "aux", "pour", "avec",
    "sans", "dans", "sur",
    # who asks whom, and the verbs of asking ("vous faites la réparation de vélo ?", "habt ihr Rasenmäher?"); not
    # "hat", "son" nor "ai", words of an English shop
    "ich", "er", "sie", "es", "wir", "ihr", "habe", "hab", "habt", "haben", "gibt", "ist", "sind", "mein",
    "meine", "meinen", "meinem", "meiner", "unser", "unsere", "unseren", "unserem", "euer", "eure", "ihre",
    "je", "j", "tu", "il", "elle", "ils", "elles", "nous", "vous", "avez", "avons", "faites", "faire", "fait",
    "est", "sont", "mon", "ma", "mes", "sa", "ses", "notre", "nos", "votre", "vos", "qui", "que", "quoi",
    # how much and how dear, not what ("arrosoir pas trop cher", "nicht zu teuer", "not too expensive")
    "pas", "trop", "tres", "nicht", "sehr", "cher", "chere", "chers", "cheres", "teuer", "teure", "teures",
    "expensive", "pricey",
    # the courtesies around a request ("une batterie externe pas trop lourde svp", "Schneidebrett bitte")
    "please", "pls", "plz", "plse", "thanks", "thx", "bitte", "danke", "merci", "svp", "stp", "gern", "gerne",
    # how near a figure is ("tour de tête environ 52 cm", "etwa 40 cm")
    "environ", "etwa", "ungefahr", "ungefaehr", "circa", "approx", "approximately", "roughly",
})  # fmt: skip


def made_of(asked: frozenset[str], material: str) -> bool:
    """Whether a material as the catalog writes it ("soft suede, sheepskin lining") is one of the
    asked materials or a kind of one."""
    said = set(words(material))
    return any(m in said or MATERIAL_KINDS.get(m, frozenset()) & said for m in asked)


def only_a_part(word: str, material: str) -> bool:
    """Whether a word the catalog's material field uses names a part, not what the thing is made
    of ("ties" in "cotton canvas, braided jute wedge, ankle ties"; "lid" in "steel, glass lid"):
    a product with the thing asked for only there is not that thing."""
    return word not in MATERIALS and any(_same_word(word, said) for said in words(material))


# Words after which a material is a part's, not the product's ("pan with a glass lid").
WITH = frozenset({"with", "mit", "avec"})


def materials_named(terms: Sequence[str], wanted: Sequence[int], known: Callable[[str], bool]) -> frozenset[int]:
    """Positions of the descriptive words naming what the thing is made of, before any "with"
    (`known`: whether the catalog uses the word; an untranslated "Baumwolle" in an English shop
    says nothing either way)."""
    cut = next((n for n, term in enumerate(terms) if term in WITH), len(terms))
    return frozenset(n for n in wanted if n < cut and terms[n] in MATERIALS and known(terms[n]))


# The same audiences, told apart: a product named for another one than the query's ("Women's Rain
# Jacket" for "mens rain jacket") is not what was asked.
# ... and the animals a pet shop's things are for ("dog collar": a "Cat Collar" is for others).
DOGS = frozenset({"dog", "dogs", "puppy", "puppies", "hund", "hunde", "hundes", "welpe", "welpen", "chien", "chiens",
                  "chiot", "chiots"})  # fmt: skip
CATS = frozenset({"cat", "cats", "kitten", "kittens", "katze", "katzen", "chat", "chats", "chaton", "chatons"})
# (birds and small animals too: "Sunflower Hearts Bird Food" is no "dog food"; not fish, which names cat toys)
BIRDS = frozenset({"bird", "birds", "vogel", "vogelfutter", "oiseau", "oiseaux"})
SMALL_ANIMALS = frozenset({"rabbit", "rabbits", "bunny", "bunnies", "hamster", "hamsters", "guinea", "rodent",
                           "rodents", "kaninchen", "nager", "lapin", "lapins", "rongeur", "rongeurs"})  # fmt: skip
# who a shopper buys for says the audience too ("for my husband", "im a guy", "für meine Frau"); a son or a
# daughter may be a child or grown up
HIM = frozenset({"guy", "guys", "husband", "boyfriend", "dad", "father", "brother", "grandad", "grandpa", "gents",
                 "ehemann", "vater", "papa", "bruder", "opa", "mari", "pere", "frere", "copain"})  # fmt: skip
HER = frozenset({"wife", "girlfriend", "mum", "mom", "mother", "sister", "grandma", "gran", "granny", "ehefrau",
                 "mutter", "mama", "schwester", "oma", "freundin", "mere", "soeur", "copine"})  # fmt: skip
SON = frozenset({"son", "sons", "sohn", "fils"})
DAUGHTER = frozenset({"daughter", "daughters", "tochter", "fille"})
# things made for women only, whatever their names say of whom: "Chiffon Maxi Dress" is no outfit for "a man"
FOR_WOMEN = frozenset({"dress", "dresses", "skirt", "skirts", "blouse", "blouses", "kleid", "kleider", "rock",
                       "bluse", "robe", "robes", "jupe", "jupes", "chemisier"})  # fmt: skip
# Whom a present is for, never the thing asked for ("Puppenhaus Enkelin", "lego nephew 8"), where a word
# naming a thing comes before them.
RECIPIENTS = HIM | HER | SON | DAUGHTER | frozenset({
    "grandson", "granddaughter", "grandchild", "grandchildren", "grandkids", "nephew", "niece", "godson",
    "goddaughter", "godchild", "friend", "friends", "colleague", "boss", "teacher", "enkel", "enkelin", "enkelkind",
    "enkelkinder", "neffe", "neffen", "nichte", "nichten", "patenkind", "freund", "freunde", "kollege", "kollegin",
    "lehrer", "lehrerin", "neveu", "filleul", "filleule", "ami", "amie", "amis", "collegue",
})  # fmt: skip
# A person, of whatever age: "shampoo for myself" in a pet shop asks for none of the dog shampoos.
PEOPLE = frozenset({"myself", "yourself", "himself", "herself", "human", "humans", "people", "mensch", "menschen",
                    "humain", "humains"})  # fmt: skip
AUDIENCES = (
    MEN | HIM | SON, WOMEN | HER | DAUGHTER, KIDS | SON | DAUGHTER | {"children", "childrens", "junior"},
    DOGS, CATS, BIRDS, SMALL_ANIMALS, PEOPLE,
)  # fmt: skip
_MEN_AT, _WOMEN_AT = 0, 1  # AUDIENCES' places of men and of women
_PEOPLE_AT = 7  # of any person: men, women and children (0-2)
WHOM_FOR = AUDIENCE | DOGS | CATS  # words saying whom a thing is for ("mens", "dog"), not what it is


def audiences_named(words_said: Sequence[str] | set[str]) -> frozenset[int]:
    """Which of AUDIENCES some words name (by their index)."""
    said = set(words_said)
    return frozenset(n for n, group in enumerate(AUDIENCES) if group & said)


_KIDS_AT = 2  # AUDIENCES' place of children
_CHILD_AGE = 14
# A child's age: "my 7 year old", "a 7-year-old", "7yo", "my 18 month old", "7 jahre alt", "7-jährige", "ma fille
# de 7 ans" (not "2 years warranty", "garantie 2 ans"); group 1 or 2 the number, 3 a unit of months
_AGE = re.compile(
    r"\b(\d{1,2})(?:\s*-?\s*(?:years?|yrs?|y)\s*-?\s*olds?|\s*(?:yo|y/o|yr old)|\s*-?\s*jahre?n?\s+alt|"
    r"\s*-?\s*jae?hrige[nrm]?|\s*-?\s*(months?)\s*-?\s*olds?|\s+(monate)\s+alte[nrm]?)\b"
    r"|\b(?:fille|fils|enfant|garcon|petite?|neveu|niece|filleule?|petite-fille|petit-fils|bebe)\s+de\s+(\d{1,2})"
    r"(?:\s+(ans|mois))?\b"
)
# A child's age told of the child: "my son is 6", "she turns 2 next month", "meine Tochter wird 5", "il a 6 ans",
# "elle va avoir 3 ans"; by "he" or "she" only where the words name a child ("for my son, he's 6": not "my old
# Labrador, he's 11"); not "he's 6 foot", "she is 35": no unit after it, at most 14
_CHILD_NOUN = (
    r"son|daughter|boy|girl|kid|kids|child|children|baby|toddler|grandson|granddaughter|grandchild|nephew|niece|godson|"
    r"goddaughter|sohn|tochter|enkel|enkelin|enkelkind|kind|kinder|junge|maedchen|madchen|neffe|nichte|"
    r"fils|fille|petit-fils|petite-fille|enfant|neveu|bebe"
)
_CHILD_NAMED = re.compile(rf"\b(?:{_CHILD_NOUN})\b")
_AGE_AFTER = (
    r"\s+(?:now\s+|only\s+|just\s+|almost\s+|nearly\s+|about\s+|gerade\s+|fast\s+|bald\s+|presque\s+|bientot\s+)?"
    r"(\d{1,2})(?:\s*(months?|monate|mois)|\s*(?:years?|jahre|ans))?\b(?!\s*(?:[.,/]\d|cm|mm|m\b|kg|g\b|ft|foot|feet"
    r"|inch|in\b|\"|'|€|eur|euro|lbs?|pounds?|st\b|stone|%|x\b|percent|prozent))"
)
_VERB = r"(?:'s|is|turns|turned|is turning|will be|just turned|ist|wird|a|va avoir|aura)"
_AGE_TOLD = re.compile(rf"\b(?:{_CHILD_NOUN})\s*{_VERB}{_AGE_AFTER}")
_AGE_TOLD_BY_PRONOUN = re.compile(rf"\b(?:hes|shes|(?:he|she|er|il|elle)\s*{_VERB}){_AGE_AFTER}")
# The ages of children told as a range after them: "Kinder von 1 bis 3 Jahren", "kids from 2 to 4 years", "children
# aged 3-5", "enfants de 2 à 4 ans" (both ends told)
_AGE_RANGE = re.compile(
    rf"\b(?:{_CHILD_NOUN})s?\s+(?:von|from|between|aged|ages|im alter von|de|entre|agees? de|ages? de)?\s*"
    r"(\d{1,2})\s*(?:bis|to|and|-|\u2013|a|et|und)\s*(\d{1,2})\s*(?:jahren|jahre|years?|yrs|ans)\b"
)


def _ages_told(folded: str) -> list[tuple[int, bool]]:
    """The children's ages a folded text tells, each with whether it is in months."""
    found = [(int(m.group(1) or m.group(4)), bool(m.group(2) or m.group(3) or m.group(5) == "mois"))
             for m in _AGE.finditer(folded)]  # fmt: skip
    found += [(int(m.group(1)), bool(m.group(2))) for m in _AGE_TOLD.finditer(folded)]
    if _CHILD_NAMED.search(folded):
        found += [(int(m.group(1)), bool(m.group(2))) for m in _AGE_TOLD_BY_PRONOUN.finditer(folded)]
    found += [(int(age), False) for m in _AGE_RANGE.finditer(folded) for age in m.groups()]
    return found


def a_childs_age(text: str) -> bool:
    """Whether a shopper's words tell a child's age (at most 14): "for my 7 year old", "7yo", "my son, he's 6",
    "für einen 5-jährigen", "pour ma fille de 7 ans"."""
    return any(months or age <= _CHILD_AGE for age, months in _ages_told(fold(text)))


# The first of two ages told together: "my 3 and 5 year olds", "for 6-8 year olds", "ses 4 et 6 ans"
_AGES_BEFORE = re.compile(
    r"\b(\d{1,2})\s*(?:and|&|,|or|-|to|und|oder|bis|et|ou|a)\s*(?=\d{1,2}\s*(?:-?\s*(?:years?|yrs?|y)\b|yo\b|-?\s*jahr|-?\s*jae?hrig|ans\b))"
)


def childs_ages(text: str, named: frozenset[int] = frozenset()) -> frozenset[float]:
    """The children's ages, in years, a shopper's words tell ("for my 7 year old" -> 7, "my 3 and 5 year olds"
    -> 3 and 5, "mon bébé de 6 mois" -> 0.5, "my son, he's 6" -> 6); none where they tell none, or where they
    name an animal (`named`, the AUDIENCES they name: "my 10 year old dog")."""
    if any(_KIDS_AT < n < _PEOPLE_AT for n in named):
        return frozenset()
    folded = fold(text)
    found = _ages_told(folded)
    if found:  # (the first of two told together, where the second is a child's age)
        found += [(int(m.group(1)), False) for m in _AGES_BEFORE.finditer(folded)]
    return frozenset(age / 12 if months else float(age) for age, months in found if months or age <= _CHILD_AGE)


# The specs giving the ages a product is for: a name of "age" and "min" or "max", in years or months
# ("age_min_years", "age_max_months", "Alter ab (Jahre)" as a shop names it: [catalog] spec_units).
_AGE_SPEC = re.compile(r"\b(?:age|ages|alter)\b")
_YEARS = frozenset({"years", "year", "yrs", "y", "jahre", "ans"})
_MONTHS = frozenset({"months", "month", "monate", "mois"})
_FROM = frozenset({"min", "from", "ab"})
_UP_TO = frozenset({"max", "to", "bis"})


def age_range(specs: Mapping[str, object], units: Mapping[str, str]) -> tuple[float | None, float | None]:
    """The youngest and oldest ages, in years, a product's specs say it is for (None where they do not)."""
    low = high = None
    for name, value in specs.items():
        key = fold(name).replace("_", " ")
        if not _AGE_SPEC.search(key) or not isinstance(value, int | float) or isinstance(value, bool):
            continue
        parts = set(key.split())
        unit = fold(units.get(name, "")) or key.split()[-1]
        years = value if unit in _YEARS else value / 12 if unit in _MONTHS else None
        if years is None:
            continue
        if parts & _FROM:
            low = years if low is None else min(low, years)
        elif parts & _UP_TO:
            high = years if high is None else max(high, years)
    return low, high


def for_other_ages(ages: frozenset[float], specs: Mapping[str, object], units: Mapping[str, str]) -> bool:
    """Whether a product's specs say it is for none of the children's `ages` ("from 6 years" for "my 5 year
    old", "up to 5 years" for a 10 year old); one whose specs say nothing is not."""
    if not ages:
        return False
    low, high = age_range(specs, units)
    return all((low is not None and age < low) or (high is not None and age > high) for age in ages)


def with_a_childs_age(named: frozenset[int], text: str) -> frozenset[int]:
    """The audiences a query's words name (`named`, of AUDIENCES), and children where its text tells a child's
    age (not an animal's: "my 10 year old dog")."""
    animals = any(_KIDS_AT < n < _PEOPLE_AT for n in named)
    return named | ({_KIDS_AT} if not animals and a_childs_age(text) else frozenset())


def for_a_child_asked(asked: frozenset[int], title: str) -> bool:
    """Whether children are asked for and a product's name and category (`title`) name them ("Kids' Helmet"
    for "helmet for my 7 year old": an adult's helmet names no one, but is none for a child)."""
    return _KIDS_AT in asked and _KIDS_AT in audiences_named(words(title))


def for_others(asked: frozenset[int], title: str, kinds: Iterable[str] = ()) -> bool:
    """Whether a product's name and category (`title`) name only other audiences than the asked ones;
    `kinds`, the words naming what it is (its name's head word, its category's), say women where a dress,
    a skirt or a blouse ("Dress Shoes" are shoes)."""
    if not asked:  # nothing asked: no product's words to read
        return False
    named = audiences_named(words(title))
    if FOR_WOMEN & {fold(k) for k in kinds}:
        named |= {_WOMEN_AT}
    people = {_MEN_AT, _WOMEN_AT, _KIDS_AT, _PEOPLE_AT}  # (a person: a "Men's Jacket" for "a jacket for myself" too)
    asked = asked | people if _PEOPLE_AT in asked else asked
    named = named | people if _PEOPLE_AT in named else named
    return bool(named) and not named & asked


# Words of which a product named with one is not what a query with the other asks for: "Short-Sleeve Camp
# Shirt" for "long sleeve shirts", a "Wired Mouse" for "wireless mouse", a "Winter Boot" for "summer boots"
_OPPOSITES = {
    "long": "short", "short": "long", "summer": "winter", "winter": "summer", "indoor": "outdoor",
    "outdoor": "indoor", "wired": "wireless", "wireless": "wired", "corded": "cordless", "cordless": "corded",
    "manual": "electric", "electric": "manual", "langarm": "kurzarm", "kurzarm": "langarm", "sommer": "winter",
    "ete": "hiver", "hiver": "ete", "kabellos": "kabelgebunden", "kabelgebunden": "kabellos",
}  # fmt: skip


def says_the_opposite(said: Sequence[str], name: str) -> bool:
    """Whether a product's name has the opposite of a word the query has (`said`, its words), and
    not that word itself."""
    named = set(words(name))
    return any(other in named and word not in named for word in said if (other := _OPPOSITES.get(word)))


_CLAUSE_END = re.compile(r"[.;:!?()\n]")


def opening(text: str, most: int = 6) -> str:
    """The first words of a description, where it says what the product is ("Women's high-waisted jeans with
    a flowing wide leg" -> "Women's high-waisted jeans with a")."""
    first = _CLAUSE_END.split(text, maxsplit=1)[0]
    return " ".join(first.split(",", 1)[0].split()[:most])


# Words before a size the shopper names ("size 38", "taille M", "Größe 42", "pointure 39").
SIZE_MARKERS = frozenset({"size", "sizes", "taille", "tailles", "pointure", "grosse", "groesse", "gr", "talla"})


# Letter sizes no word of the languages is written as: named without a word for size ("shorts in XXL")
LETTER_SIZES = frozenset({"xxs", "xs", "xl", "xxl", "xxxl", "2xl", "3xl", "4xl"})


def sizes_named(terms: Sequence[str], size: Callable[[str], str | None]) -> frozenset[str]:
    """The catalog sizes (`size` reads a word as one) that the query names after a word for size, or as a
    letter size no word is written as ("padded shorts in XXL")."""
    after_a_marker = {word for before, word in pairwise(terms) if before in SIZE_MARKERS}
    return frozenset(
        s for word in terms if (word in after_a_marker or word in LETTER_SIZES) and (s := size(word)) is not None
    )


# Words that stand for any thing ("a kneeler pad thingy", "so ein Ding"): the thing asked for only when
# nothing else is said before what it is for ("un truc pour couper").
FILLERS = frozenset({
    "thing", "things", "thingy", "thingie", "thingies", "stuff", "item", "items", "ding", "dinger", "zeug", "truc",
    "trucs", "machin",
})  # fmt: skip


# Who speaks of their own situation ("my dog pulls on the lead", "I'm away for two weeks", "we're moving
# house", "mein Rasen ist voller Moos", "j'ai des pucerons"): the subject words, and the words for whose
# it is, unless they only say whom the thing is for ("a mat for my beagle", "für meinen Hund").
_SPEAKERS = frozenset({"i", "ive", "we", "he", "she", "hes", "shes", "they", "ich", "wir", "je", "j", "nous"})
# (not "im", "id", "us" nor "myself": German's "im Set", a "dog ID tag", a "US plug", "for myself")
_WHOSE = frozenset({
    "my", "me", "our", "his", "her", "him", "their", "mein", "meine", "meinen", "meinem", "meiner", "meines", "mir",
    "mich", "unser", "unsere", "unseren", "unserem", "unserer", "uns", "mon", "ma", "mes", "moi", "notre", "nos",
})  # fmt: skip
_WHOM_FOR = frozenset({"for", "fur", "pour", "to", "a", "an", "zu"})
# The shopper's own ("my bike got stolen", "unser Rasen", "mes rosiers"): of the words for whose it is, those
# that seldom only say whom a thing is for where no "for" comes before them ("her old one broke": a gift's story)
MINE = frozenset({
    "my", "our", "mein", "meine", "meinen", "meinem", "meiner", "meines", "unser", "unsere", "unseren", "unserem",
    "unserer", "mon", "ma", "mes", "notre", "nos",
})  # fmt: skip


# Words for any thing, a gift or an idea: "gift for my dad who is always cold", "anything that helps a 9 year
# old get into music" name no thing; what follows tells what it is for.
GIFTS = frozenset({"gift", "gifts", "present", "presents", "geschenk", "geschenke", "cadeau", "cadeaux"})
_ANY_THING = GIFTS | FILLERS | frozenset({
    "something", "anything", "idea", "ideas", "etwas", "geschenkidee", "chose", "idee", "idees",
})  # fmt: skip
# After the words asking for a thing, "to" and a verb tell what the shopper wants to do, not the thing:
# "want to attract more bees", "need to carry 2 bikes to the alps" (but "need to buy a tent" asks for a tent).
_GOAL_AFTER = frozenset({"to"})
_GOAL_FIRST = 3  # "want to …", "I want to …", "we just need to …"
_BUYING = frozenset({"buy", "get", "find", "order", "purchase", "replace", "pick"})


def tells_a_goal(said: Sequence[str], n: int) -> bool:
    """Whether the word at `n` asks for a thing with "to" and a verb of doing ("want to see who is at the
    door"), not of buying ("need to buy a tent")."""
    return said[n] in REQUEST_CUES and n + 2 < len(said) and said[n + 1] in _GOAL_AFTER and said[n + 2] not in _BUYING


def tells_a_situation(said: Sequence[str]) -> bool:
    """Whether the shopper's words (`text.words`, as written) tell of their own situation or goal
    rather than name a thing: a sentence like "slugs ate all my lettuce again", whose last noun is
    seldom what would help ("night"), "want to attract more bees" or "a gift for my dad who is always
    cold", against "snuffle mat for my beagle"."""
    return situation_told_by(said) is not None


def situation_told_by(said: Sequence[str]) -> str | None:
    """The word by which the shopper's words tell of their situation or goal (`tells_a_situation`): "my" of "my
    bike got stolen", "want" of "want to attract more bees"; None where they tell none."""
    for n, word in enumerate(said):
        # (a goal told first: "need to carry 2 bikes" after "do you have roof racks for the car?" is no situation)
        if word in _SPEAKERS or word in _ANY_THING or (n < _GOAL_FIRST and tells_a_goal(said, n)):
            return word
        if word in _WHOSE and not (n > 0 and said[n - 1] in _WHOM_FOR):
            return word
    return None


def before_its_material(
    terms: Sequence[str], wanted: Sequence[int], head: int | None, heads: Set[str], translated: Set[str]
) -> int | None:
    """The head word where a German or French message names the thing and then what it is made of
    ("Schneidebrett Holz", "poêle inox", "pull chaud en laine": a board, a pan and a sweater, not wood, steel
    and wool): the material said in another language (`translated`, the words searched for the shopper's own),
    after "en" or "aus", or after a word products are named by. A material products are named by stays the
    thing ("honing steel"), unless said to be what it is made of ("boîtes en verre", where glasses are sold
    too); "clean suede" asks for nothing called clean."""
    if head is None or terms[head] not in MATERIALS:
        return head
    made_of = head > 0 and terms[head - 1] in _MADE_OF
    if names_a_thing(terms[head], heads) and not made_of:
        return head
    before = [n for n in wanted if n < head]
    while before and terms[before[-1]] in MATERIALS | _OF_A_MATERIAL:  # ("pan stainless steel")
        before.pop()
    # (of the words before, the last that names products: "pull chaud en laine" asks for a sweater, not "warm")
    named = next((n for n in reversed(before) if names_a_thing(terms[n], heads)), None)
    if named is not None:
        return named
    return before[-1] if before and (made_of or terms[head] in translated) else head


_MADE_OF = frozenset({"en", "aus"})
# Words that say which material ("stainless steel", "cast iron", "real leather"), no thing of their own.
_OF_A_MATERIAL = frozenset({"stainless", "cast", "carbon", "solid", "real", "genuine", "faux", "recycled"})


def names_a_thing(word: str, heads: Set[str]) -> bool:
    """Whether products are named with `word` as the thing they are (`heads`: their `name_head`s)."""
    return any(_same_word(word, head) for head in heads)


# Words of shape, size, weight or feel, never a thing: "Kuchenform rund", "sac à main noir pas trop grand",
# "Rucksack leicht" ask for a tin, a bag and a backpack (the word after the thing in German and French).
SHAPES = frozenset({
    "round", "rund", "runde", "runden", "rond", "ronde", "ronds", "rondes", "square", "eckig", "eckige", "carre",
    "carree", "oval", "ovale", "grand", "grande", "grands", "grandes", "petit", "petite", "petits", "petites",
    "gros", "big", "little", "tiny", "huge", "klein", "kleine", "kleinen", "kleiner", "kleines", "gross",
    "grosse", "grossen", "grosser", "grosses", "leger", "legere", "legers", "legeres", "leicht", "leichte",
    "leichten", "leichter", "lightweight", "lang", "lange", "langen", "langer", "longue", "longues", "kurz",
    "kurze", "kurzen", "court", "courte", "courts", "courtes", "breit", "breite", "wide", "schmal", "schmale",
    "narrow", "etroit", "etroite", "tall", "hoch", "hohe", "hohen", "haut", "haute", "niedrig", "niedrige",
    "schwer", "schwere", "lourd", "lourde", "heavy", "weich", "weiche", "doux", "douce", "soft", "thick", "dick",
    "dicke", "epais", "epaisse", "thin", "dunn", "dunne", "duenn", "duenne", "mince",
})  # fmt: skip

# Words a shopper asks for a thing with, the thing after them: "need a", "brauche ein", "il me faut un".
REQUEST_CUES = frozenset({
    "need", "needs", "want", "wants", "looking", "searching", "brauche", "brauchen", "suche", "suchen", "cherche",
    "cherchons", "faut", "besoin", "voudrais", "veux",
})  # fmt: skip


# Words between those asking and the thing asked for ("need a new lock", "suche einen Fahrradhelm")
_BEFORE_THE_THING = frozenset({
    "a", "an", "some", "new", "another", "good", "proper", "decent", "for", "un", "une", "des", "de", "d", "ein",
    "eine", "einen", "neue", "neuen", "neues", "nouveau", "nouvelle",
})  # fmt: skip


def asked_after_a_cue(said: Sequence[str]) -> list[tuple[str, str]]:
    """The words asking for a thing and the word right after them ("I need a lock that actually works": "need",
    "lock"; "looking for a new helmet": "looking", "helmet"), one of each asking; none after a goal ("need to carry
    2 bikes")."""
    found = []
    for n, word in enumerate(said):
        if word in REQUEST_CUES and not tells_a_goal(said, n):
            after = n + 1
            while after < len(said) and said[after] in _BEFORE_THE_THING:
                after += 1
            if after < len(said) and said[after] not in _ANY_THING:  # ("looking for a gift for a newborn": no thing)
                found.append((word, said[after]))
    return found


def head_word(terms: tuple[str, ...], wanted: list[int]) -> int | None:
    """The query's head word: the last descriptive word before the first qualifier after one."""
    if not wanted:
        return None
    # "walking the camino for 3 weeks, need a backpack": the thing is what comes after the words asking for it
    # (not "need to carry 2 bikes", which wants to do something; "need to buy a tent" asks for a tent)
    start = next(
        (
            c + (3 if c + 2 < len(terms) and terms[c + 1] in _GOAL_AFTER else 1)
            for c, term in enumerate(terms)
            if term in REQUEST_CUES and not tells_a_goal(terms, c) and any(n > c for n in wanted)
        ),
        0,
    )
    head = stand_in = None
    first = next((n for n in wanted if n >= start), None)
    for n, term in enumerate(terms):
        if n < start:
            continue
        if term in QUALIFIERS | PEOPLE and (head is not None or stand_in is not None):  # ("shampoo for myself, …")
            break
        # French names the thing first, what kind after "de": "bulbes de tulipes", "casque de vélo pour ma fille"
        # (the message's first word of a thing; not "pars chemin de Compostelle … sac à dos")
        if term in _OF and head is not None and head == first:
            break
        if n in wanted and term in SIZE_MARKERS | FILLERS | SHAPES:  # "navy blazer size L" asks for a blazer
            stand_in = n
        elif n in wanted and term in RECIPIENTS and head is not None:  # "Puppenhaus Enkelin": a dollhouse
            continue
        elif n in wanted:
            head = n
    # Only a word for any thing (or for size) before what it is for ("un truc pour couper"): that word.
    return head if head is not None else stand_in if stand_in is not None else wanted[-1]


def named_first(terms: Sequence[str], wanted: Sequence[int], head: int | None, heads: Set[str]) -> int | None:
    """The head word where the message named the thing before, with a word of its own before it and
    no word naming another thing after it ("good chefs knife know knives" asks for a chef's knife;
    "raised dog bowl large dogs" for no dog, nor "leather watch strap watches" for a watch, where
    products are called bowls and straps: `heads`, their names' head words)."""
    if head is None:
        return None
    kept = set(wanted)
    for n in wanted:
        if n >= head:
            break
        if (
            _same_word(terms[n], terms[head])
            and n - 1 in kept
            and not (n + 1 in kept and names_a_thing(terms[n + 1], heads))
        ):
            return n
    return head


def kind_head(
    terms: Sequence[str], wanted: Sequence[int], head: int | None, kinds: Set[int], uses: Callable[[str], bool]
) -> int | None:
    """The thing asked for where the head word names no candidate's category (`kinds`, the
    positions of the words that do) although the catalog uses it: the last descriptive word
    before it that names one. "regenjacke wasserdicht" ("rain jacket waterproof") and
    "sneakers women" ask for a jacket and sneakers; a head no product uses ("worktop
    installation") stays, so that nothing is taken for it."""
    if head is None or head in kinds or not uses(terms[head]):
        return head
    before = [n for n in wanted if n < head and n in kinds]
    return before[-1] if before else head


def modifiers(terms: Sequence[str], wanted: Sequence[int]) -> dict[int, int]:
    """Each descriptive word's position -> the descriptive word just before it, where that word
    may say which kind the thing is ("motorbike" in "motorbike helmet"; not "comfy" in "comfy
    sandals", nor "mens" in "mens jacket", nor "dog" in "dog collar": whom it is for), or the one
    after a French "de" ("pirate" of "déguisement de pirate")."""
    kept = set(wanted)
    # (nor "need" of "need wellies", nor "keeps" of "my cat keeps scratching the sofa")
    for_whom = PRAISE | AUDIENCE | DOGS | CATS | NO_KIND | REQUEST_CUES | _DOING
    found = {}
    for n in wanted:
        # (over a possessive's "s": "chef" in "chef's knife" says which knife)
        before = n - 2 if n >= 2 and terms[n - 1] == "s" and n - 1 not in kept else n - 1
        if before in kept and terms[before] not in for_whom and not _a_time_span(terms, before):
            found[n] = before
        # French names the kind after "de": "déguisement de pirate" is a pirate costume, "bulbes de tulipes" tulip
        # bulbs (where no word before says it)
        after = n + 2
        if (
            n not in found
            and after in kept
            and terms[n + 1] in _OF
            and not terms[after].isdigit()
            and terms[after] not in for_whom
        ):
            found[n] = after
    return found


_OF = frozenset({"de", "du", "des", "d"})
# Verbs a shopper tells a situation with, which say nothing of which kind the next word's thing is ("keeps
# scratching", "loves roses", "hates baths", "liebt Dinosaurier", "adore les chevaux"); not "play" ("play
# kitchen") nor "used" ("used bikes"), which may.
_DOING = frozenset({
    "keep", "keeps", "kept", "keeping", "love", "loves", "loved", "loving", "adore", "adores", "like", "likes",
    "liked", "hate", "hates", "hated", "get", "gets", "got", "getting", "want", "wants", "wanted", "start", "starts",
    "started", "stop", "stops", "stopped", "try", "tries", "tried", "liebt", "lieben", "mag", "mogen", "hasst",
    "aime", "aiment", "adorent", "deteste",
})  # fmt: skip


# How long for: "3 weeks", "zwei Wochen", "trois jours" say nothing of which kind the next thing is.
_TIME_UNITS = frozenset({
    "day", "days", "week", "weeks", "month", "months", "year", "years", "night", "nights", "hour", "hours",
    "tag", "tage", "tagen", "woche", "wochen", "monat", "monate", "monaten", "jahr", "jahre", "jahren", "nacht",
    "nachte", "stunde", "stunden", "jour", "jours", "semaine", "semaines", "mois", "an", "ans", "annee", "annees",
    "nuit", "nuits", "heure", "heures",
})  # fmt: skip
_COUNTS = frozenset({
    "a", "one", "two", "three", "four", "five", "six", "few", "couple", "several", "ein", "eine", "zwei", "drei",
    "vier", "funf", "paar", "einige", "un", "une", "deux", "trois", "quatre", "cinq", "quelques",
})  # fmt: skip


def _a_time_span(terms: Sequence[str], n: int) -> bool:
    """Whether `terms[n]` is the unit of a span of time counted before it ("3 weeks", "ein paar Tage")."""
    return terms[n] in _TIME_UNITS and n > 0 and (terms[n - 1].isdigit() or terms[n - 1] in _COUNTS)


# Where a product name's own words end and what it comes with, is for or holds begins: "Dental
# Sticks for Dogs — 28 sticks", "Hamster Home, 80 cm", "Screen Protector (2-Pack)".
_NAME_END = re.compile(r"\s[\u2014\u2013-]\s|[,(/|]|\s(?:for|with|f\u00fcr|mit|pour|avec)\s", re.IGNORECASE)
# How many come in it is not what it is either: "Hiking Socks Two-Pack", "Tennis Balls 3-Pack".
_NUMBER_WORDS = frozenset({"two", "three", "four", "five", "six", "ten", "twelve", "twin", "double", "triple"})
# A variety or model name in quotes is no kind of thing: "Seed Potatoes 'Charlotte'", "Lavender 'Hidcote'".
_ASIDE = re.compile(r"\([^()]*\)")
_QUOTED = re.compile(
    r"(?<!\S)['\u2018\"\u201c](?:[^'\u2019\"\u201d]|(?<=\w)['\u2019](?=\w))+['\u2019\"\u201d](?!\S)"
)  # "Tomato 'Gardener's Delight'" too
_MEASURE_WORDS = frozenset({"mm", "cm", "m", "l", "ml", "cl", "g", "kg", "inch", "in", "oz", "lb", "lbs", "pack"})
# Nor is a size, colour, edition or audience after it: "Dog Bed XL", "Rain Jacket Navy", "Running Shoe Women".
_AFTER_THE_THING = frozenset({
    "xxs", "xs", "s", "m", "xl", "xxl", "xxxl", "small", "medium", "large", "mini", "max", "pro", "plus", "lite",
    "deluxe", "edition", "classic", "original", "black", "white", "grey", "gray", "navy", "blue", "red", "green",
    "brown", "beige", "pink", "olive", "puppy", "kitten", "adult", "senior", "junior",
})  # fmt: skip
_NOT_THE_THING = _MEASURE_WORDS | _NUMBER_WORDS


def name_kind(name: str) -> str | None:
    """The word a product name names its thing with, as written: its last word before what it
    comes with or is for, an amount, a model code or a quoted variety aside ("Stahlberg Classic
    Chef's Knife 20 cm" -> "Knife", "Inkleaf Paper 6 Waterproof E-reader" -> "E-reader", "Burrowly
    Hamster Home, 80 cm" -> "Home", "Seed Potatoes 'Charlotte'" -> "Potatoes")."""
    own = _naming_words(name)
    return own[-1] if own else None


def _naming_words(name: str) -> list[str]:
    """A product name's words up to the one naming its thing (`name_kind`), as written."""
    # (an aside in brackets is no end of the name: "Voltra 36V (2 x 18V) Cordless Lawn Mower" is a mower)
    own = _QUOTED.sub(" ", _NAME_END.split(_ASIDE.sub(" ", name), maxsplit=1)[0]).split()
    # an amount ("20 cm", "27-inch") or a model code ("WH-1000XM5", "AX-3000") is not the thing
    while own and (
        any(ch.isdigit() for ch in own[-1])
        or all(w in _NOT_THE_THING for w in words(own[-1]))
        or (len(own) > 1 and all(w in _AFTER_THE_THING | AUDIENCE for w in words(own[-1])))
    ):
        own.pop()
    return own


def set_of_other_things(terms: Sequence[str], head: int | None, name: str, heads: Set[str]) -> bool:
    """Whether a product is a set of things that go with the thing asked for, where another
    candidate is that thing: "Dollhouse Furniture Set" beside a "Wooden Dollhouse" for
    "dollhouse" (its name has the thing only before what the set holds). A set of the thing
    itself ("Dinner Plate Set", "Wooden Railway Starter Set") is the thing."""
    if head is None or not any(_same_word(terms[head], other) for other in heads):
        return False
    own = [w for w in _naming_words(name) if fold(w) not in _SET_QUALIFIERS]
    if len(own) < 3 or fold(own[-1]) not in _PACKED:
        return False
    held = words(own[-2])  # what the set holds
    return not any(_same_word(terms[head], w) for w in held) and any(
        _same_word(terms[head], w) for part in own[:-2] for w in words(part)
    )


# Words a set is named with that say nothing of what it holds ("Railway Starter Set", "Gift Set").
_SET_QUALIFIERS = frozenset({
    "starter", "gift", "complete", "beginner", "beginners", "beginner's", "deluxe", "basic", "basics", "essential",
    "essentials", "value", "mini", "travel", "family", "combo", "mixed", "assorted",
})  # fmt: skip


def name_head(name: str) -> str | None:
    """`name_kind` as a folded word ("Knife" -> "knife", "E-reader" -> "reader", "Gaming Mouse Mat" -> "mat")."""
    found = words(name_kind(name) or "")
    return found[-1] if found else None


def said_again(terms: Sequence[str], wanted: Iterable[int], positions: Set[int]) -> frozenset[int]:
    """`positions` and the other `wanted` positions holding one of their words again, maybe in
    the plural ("knife" and "knives")."""
    return frozenset(positions) | {n for n in wanted if any(_same_word(terms[n], terms[m]) for m in positions)}


def _same_word(a: str, b: str) -> bool:
    """One word, maybe one in the plural ("watch", "watches"; "knife", "knives"; "puppy", "puppies")."""
    if a == b:
        return True
    short, long = sorted((a, b), key=len)
    return (
        long in (short + "s", short + "es")
        or (short.endswith("fe") and long == short[:-2] + "ves")
        or (len(short) > 2 and short.endswith("y") and long == short[:-1] + "ies")
    )


def for_another(
    terms: Sequence[str],
    wanted: Sequence[int],
    head: int | None,
    name: str,
    heads: Set[str],
    kinds: Set[str] = frozenset(),
    *,
    named_in_another_text: bool = False,
    said: int | None = None,
) -> bool:
    """Whether a product is the thing the asked one goes with, not the asked one: its name names
    what the query's head is for ("case for e-reader" -> the E-reader, "sharpener for knife" -> a
    knife) or has no word of the query but those of what it is for, a kind of thing sold ("Hose
    Connector Set" for "wall holder for hose", beside hoses), or a word that only qualifies the
    head while other candidates' names (their `name_head`s, `heads`) name the head itself ("dress
    shoes" -> a wrap dress beside the shoes, "shirt dress" -> a dress shirt; or, `named_in_another_text`,
    another candidate's text has the head and its own text does not), or whose name has the
    head as what it is for while another's name names it ("Gaming Mouse Mat" beside a "Gaming
    Mouse"; `kinds`, its category's heads, which its name may end with: "Chino Trousers"). A head no
    name ends with ("cardigan oversized", "jeans high waist") may be a word about the thing, and the
    words before it rule nothing out."""
    if head is None:
        return False
    own = name_head(name)
    if own is None or _same_word(own, terms[head]):
        return False
    if named_for_purpose(terms, head, name, said):
        return True
    named = words(name)
    # "wall holder for hose" -> a "Hose Connector Set": named by nothing but what the thing is
    # for, where that names a kind of thing sold (hoses; not "Hamster Home" for "cage for hamster")
    # (only a name ending in a word for a set of things: a "Hose Hanger" may be the holder asked for)
    if own in _PACKED and (purpose := _purpose(terms[:said], head)) is not None:
        titled = [n for n in wanted if any(_same_word(terms[n], w) for w in named)]
        if (
            titled
            and all(n in purpose for n in titled)
            and any(_same_word(terms[n], other) for n in titled for other in heads)
        ):
            return True
    # "gaming mouse" -> a "Gaming Mouse Mat" beside a "Gaming Mouse": the thing asked for names what it
    # is for, and what it is (not its category's kind: "Chino Trousers"; not a "Set") the query never says
    if (
        # ("backpack" -> a "Backpacking Tent" beside backpacks: named for the activity)
        any(_same_word(terms[head], w) or w == f"{terms[head]}ing" for w in named)
        and not any(_same_word(own, t) for t in terms)
        and own not in _PACKED | kinds
        and terms[head] not in MATERIALS  # "… aus Glas": what it is made of, not a thing
        and any(_same_word(other, terms[head]) for other in heads)
    ):
        return True
    if (
        own not in _PACKED
        and any(_same_word(own, kind) for kind in kinds)
        and _qualifies_another(terms, wanted, head, name, own)
    ):
        return True
    if not any(_same_word(own, terms[n]) for n in wanted if n < head and terms[n] not in PRAISE | AUDIENCE):
        return False
    if terms[head] in SOLD_BY:  # "dinner plate set": the "Dinner Plates" are what is asked for, sold as a set
        return False
    # (or, where no name does, another's text names it and its own does not: a knife for "knife sharpener" beside
    # a whetstone, "a dual-grit sharpening stone")
    # (a name ending the query, its word right before the head: not "gloves that match", "lights garden path")
    compound = head > 0 and head == max(wanted) and _same_word(own, terms[head - 1])
    return any(_same_word(other, terms[head]) for other in heads) or (named_in_another_text and compound)


def for_a_gift(terms: Sequence[str], head: int | None, name: str) -> bool:
    """Whether the thing asked for is a gift and the product's name has the word only for what it is for: "Gift
    Wrapping with Card" or a "Gift Box" is no gift for "un cadeau pour ma petite fille"."""
    if head is None or terms[head] not in GIFTS:
        return False
    own = name_head(name)
    return (
        own is not None
        and not _same_word(own, terms[head])
        and fold(own) not in _GIFTS_THEMSELVES
        and any(_same_word(w, terms[head]) for w in words(fold(name)))
    )


# A gift card or voucher is a gift, named so.
_GIFTS_THEMSELVES = frozenset({"card", "cards", "voucher", "vouchers", "certificate", "gutschein", "carte", "bon"})


def _qualifies_another(terms: Sequence[str], wanted: Sequence[int], head: int, name: str, own: str) -> bool:
    """Whether a product's name has the thing asked for, said in two or more words as the query says
    it, only to qualify another thing the query never names (`own`, its name's head, which the caller
    checks names its category's kind): a "Trekking Pole Tent" of "Tents" for "trekking poles", a
    "Sleeping Bag Liner" of "Liners" for "sleeping bag" (not the "Waterproof Jacket" of "waterproof", a
    word alone; not a "Budgie Seed Mix" of "Birds": a mix may be the thing; whatever other products are
    named)."""
    if head < 1 or head - 1 not in wanted or terms[head] in MATERIALS or any(_same_word(own, t) for t in terms):
        return False  # (not what it is made of: "saucepan lid stainless steel" asks for no steel)
    named = [w for part in _naming_words(name) for w in words(part)]
    last = max((n for n, w in enumerate(named) if _same_word(w, own)), default=-1)
    return any(_same_word(named[n], terms[head - 1]) and _same_word(named[n + 1], terms[head]) for n in range(last - 1))


def features_asked(terms: Sequence[str], wanted: Sequence[int], head: int | None) -> frozenset[int]:
    """The positions of the words saying what the thing asked for is to come with: after "with" ("mit",
    "avec") right after it, up to the next qualifier ("bicycle with gears for a 10 year old": gears; "wool
    coat with a belt": belt); none where the head is not right before ("a bag for a laptop with a handle")."""
    if head is None:
        return frozenset()
    kept = set(wanted)
    after = next((n for n in range(head + 1, len(terms)) if n in kept or terms[n] in QUALIFIERS), None)
    if after is None or terms[after] not in WITH:
        return frozenset()
    ends = next((n for n in range(after + 1, len(terms)) if terms[n] in QUALIFIERS), len(terms))
    return frozenset(n for n in range(after + 1, ends) if n in kept and terms[n] not in MATERIALS)


def named_for_purpose(terms: Sequence[str], head: int | None, name: str, said: int | None = None) -> bool:
    """Whether a product's name names what the thing asked for is for ("sharpener for knife" -> a
    "Chef's Knife"; "lead for harness" -> a "Y-Harness", whatever its category also names). `said`: how many
    of `terms` the shopper said (not the words added for a trouble told: "need something for the laptop, my
    neck hurts" asks for a laptop stand, whose "stand" is added, not said)."""
    own = name_head(name)
    if head is None or own is None or _same_word(own, terms[head]):
        return False
    purpose = _purpose(terms[:said], head)
    return purpose is not None and any(_same_word(own, terms[n]) for n in purpose)


def _purpose(terms: Sequence[str], head: int) -> range | None:
    """The positions of what the thing asked for is for: after "for" up to the next qualifier
    ("bike for the shopping with a basket" is for shopping); None when the query says no "for"."""
    purpose = next((n for n in range(head + 1, len(terms)) if terms[n] in _FOR), None)
    if purpose is None:
        return None
    ends = next((n for n in range(purpose + 1, len(terms)) if terms[n] in QUALIFIERS), len(terms))
    return range(purpose + 1, ends)


_FOR = frozenset({"for", "fur", "pour"})  # what the thing asked for is for: "a case for the e-reader"
# What a name may end with and still be the thing it names before: a "Hand Blender Set" is a blender.
_PACKED = frozenset({"set", "pack", "kit", "bundle", "collection", "duo", "trio", "pair"})
# How things are sold together, said after them ("dinner plate set", "treats pack"): a product named by the
# words before it is no mere qualifier of the set (as a "Wrap Dress" is of "dress shoes"). (Not "kit" nor
# "collection": a "first aid kit" is a thing of its own.)
SOLD_BY = frozenset({"set", "sets", "pack", "packs", "pair", "pairs", "bundle", "duo", "trio"})


_HYPHENED = re.compile(r"[^\W_]+(?:-[^\W_]+)*")  # a word, hyphened parts and all
_CATEGORY_PARTS = re.compile(r"\s*(?:[&,/+|>]|\band\b|\bund\b|\bet\b)\s*", re.IGNORECASE)


def category_heads(category: str) -> frozenset[str]:
    """The words a category names its kinds of thing with: the last word of each of its parts
    ("Dog food" -> food, "Jackets & Coats" -> jackets, coats), not the words saying for whom or
    what ("dog" in "Dog food" is said of dog beds and dog toys too)."""
    found = set()
    for part in _CATEGORY_PARTS.split(category):
        written = _HYPHENED.findall(fold(part))
        if written:  # "T-Shirts" names T-shirts, as searched ("tshirts"), not shirts
            joined = letter_compounds(written[-1])
            found.add(joined[0] if joined else words(written[-1])[-1])
    return frozenset(found)


def names_a_category(word: str, heads: Set[str]) -> bool:
    """Whether `word` is one of a category's `category_heads` (maybe in the plural)."""
    return any(_same_word(word, head) for head in heads)


def kind_words(
    name_kinds: Mapping[str, int], categories: Iterable[str], titles: Mapping[str, int]
) -> tuple[frozenset[str], frozenset[str]]:
    """The words a catalog names its kinds of thing with, and every word of its categories.

    `name_kinds`: each name's `name_kind` as written, with the number of products named so;
    `titles`: how many products' names, categories, brands or materials use each folded word.
    A name's last word counts when it ends at least half the names that use it ("knife", "lead");
    one that mostly says something of other things ("Roll Neck" beside five V-neck jumpers,
    "Bike Light" beside light jackets) does not. A category's heads always count."""
    found: set[str] = set()
    category_words: set[str] = set()
    for category in categories:
        found |= category_heads(category)
        category_words.update(words(category))
    ends: dict[str, int] = {}
    for kind, count in name_kinds.items():
        if written := words(kind):
            ends[written[-1]] = ends.get(written[-1], 0) + count
    found |= {word for word, count in ends.items() if 2 * count >= titles.get(word, count)}
    return frozenset(found), frozenset(category_words)
