"""Which of the products shown a message names: "is the nordkap one warm enough?", "P27Q vs G24",
"la robe Solenne en mousseline", "the 20000 one". A product is named by a word of its name that
the other products shown do not all share (their common words, "Trailhound … Harness", name
none of them); the shopper's words count in the catalog's language too ("Knoblauchpresse" ->
garlic press, from the shop's and the built-in synonyms)."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from shopagent.adapters.local.concierge.asked import properties_named
from shopagent.adapters.local.concierge.memory import LIST_LENGTH, search_call
from shopagent.adapters.local.concierge.phrases import ASKED_RIGHT_AFTER, STOPWORDS
from shopagent.adapters.local.concierge.text import stem
from shopagent.adapters.local.concierge.understanding import Reading
from shopagent.domain.chat import ModelReply
from shopagent.domain.options import fold
from shopagent.domain.query_words import AUDIENCE, MATERIALS, PRAISE, name_head, name_kind
from shopagent.domain.text import words

ORDINAL_WORDS = {
    stem(w)
    for w in ["first", "second", "third", "last", "two", "both", "erste", "zweite", "dritte", "letzte", "beide",
              "premier", "premiere", "deuxieme", "troisieme", "dernier", "derniere", "deux"]
}  # fmt: skip
_TOKEN = re.compile(r"[^\W_]+")
_FOR = re.compile(r"\b(?:for|f(?:u|ue)r|pour|to go with|to fit|passend zu)\b")
_EITHER = re.compile(r"\b(?:or|oder|ou|vs|versus)\b")
_MIN_DIGITS = 3  # "the 20000 one" names the power bank; "for a 6 year old" names no "Paper 6"


def _counts(word: str) -> bool:
    if word.isdigit():
        return len(word) >= _MIN_DIGITS
    return len(word) >= 2 and word not in STOPWORDS


def _stems(text: str) -> set[str]:
    """The words that may name a product; a number counts with its unit ("the 20cm knife", "the 20 cm one")."""
    folded = fold(text)
    tokens = [part for token in _TOKEN.findall(folded) for part in _parted(token)]
    measured = {t for t, after in itertools.pairwise(tokens) if t.isdigit() and after in _UNITS}
    # ("the u-lock", "U-Lock 16": a lone letter joined to its word names it, as "ulock")
    lettered = {f"{m[1] or m[2]}{m[3]}" for m in _LETTER_JOINED.finditer(folded)}
    return {stem(w) for w in tokens if _counts(w) or w in measured} | lettered


_LETTER_JOINED = re.compile(r"(?<!['\w])(?:([^\W\d_])-|((?![ai]\b)[^\W\d_]) )([^\W\d_]{2,})\b")


def _parted(token: str) -> tuple[str, ...]:
    glued = _GLUED.fullmatch(token)
    return glued.groups() if glued else (token,)


_GLUED = re.compile(r"(\d+)([^\W\d_]+)")
_UNITS = frozenset({"mm", "cm", "m", "inch", "zoll", "pouces", "kg", "g", "l", "ml", "cl", "gb", "tb", "w", "mah"})


def named_products(
    text: str, shown: list[dict[str, Any]], *, also: Iterable[str] = (), several: bool = False
) -> tuple[list[dict[str, Any]], int]:
    """The shown products `text` names, in the order shown, and how many of its words name the
    best named one: those naming the most of their own words (ties: all of them), or, with
    `several` (a comparison), every one it names at all. `also` holds more words the message
    stands for (its words in the catalog's language). Two products set side by side with "or"
    ("oder", "ou", "vs") are both named, as in a comparison."""
    if not shown:
        return [], 0
    several = several or bool(_EITHER.search(fold(text)))  # "das Adventure oder das Easy-Walk?"
    said = _stems(text) | _stems(" ".join(also))
    names = [_stems(str(p.get("name", ""))) for p in shown]
    # "the stone" is the whetstone, "the pan" the saucepan: a word ending a name's word names it too.
    names = [name | {w for w in said if len(w) >= 4 and any(n.endswith(w) for n in name)} for name in names]
    common = set.intersection(*names) if len(names) > 1 else set()
    hits = [len(said & (name - common)) for name in names]
    best = max(hits)
    if best == 0:
        return [], 0
    # "can the monitor arm hold the 32 inch one?": each named by a word no other shown has.
    own = [bool(said & (name - set().union(*names[:n], *names[n + 1 :]))) for n, name in enumerate(names)]
    if several:
        return [p for p, h in zip(shown, hits, strict=True) if h > 0], best
    if sum(own) >= 2:
        return [p for p, o in zip(shown, own, strict=True) if o], best
    return [p for p, h in zip(shown, hits, strict=True) if h == best], best


def named_by_words(words: list[str], shown: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The shown product whose name the words point at ("the chelsea boots"), if one stands out."""
    if not words or not shown:
        return None
    wanted = set(words)
    scored = [(len(wanted & set(re.findall(r"[^\W_]+", fold(p.get("name", ""))))), p) for p in shown]
    best = max(score for score, _ in scored)
    leaders = [p for score, p in scored if score == best]
    # Most of the words must be in the name, and the name must be the only one that has them.
    if best == 0 or best * 2 < len(wanted) or len(leaders) > 1:
        return None
    return leaders[0]


def named_by_option(words: list[str], shown: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The shown products an option of which the words name, where only some of them have it: "is the battery
    included in the price?" after hand shears and a hedge trimmer sold "bare tool" or "with battery" (the
    trimmer), when no name says "battery"."""
    # (the words no name shown has: "hedge" of "the socket is far from the hedge" names both hedge tools)
    in_names = {stem(w) for p in shown for w in re.findall(r"[^\W\d_]+", fold(p.get("name", "")))}
    wanted = {stem(w) for w in words} - in_names
    if not wanted:
        return []

    def options(product: dict[str, Any]) -> set[str]:
        said = " ".join(f"{k} {' '.join(map(str, v))}" for k, v in (product.get("availableOptions") or {}).items())
        return {stem(w) for w in re.findall(r"[^\W\d_]+", fold(said))}

    having = [p for p in shown if wanted & options(p)]
    return having if 0 < len(having) < len(shown) else []


# "is the manure one smelly?", "the leather ones, can you wash them": a product called by what it is.
# A thing of any such kind, or what it is for: "is a cable included?", "ist ein Kabel dabei?", "ok for small
# breeds?", "stable enough for a big cat?" (up to the next word that asks or joins, or two words on)
_ANY_OR_FOR = re.compile(
    r"\b(?:a|an|any|ein|eine|einen|einem|einer|un|une|for|f(?:u|ue)r|pour)\s+"
    r"(?:(?:a|an|ein|eine|einen|einem|einer|un|une|le|la|les)\s+)?([^\W\d_]+(?:\s+[^\W\d_]+)?)"
)


def named_in_passing(text: str, products: list[dict[str, Any]], also: dict[str, str]) -> bool:
    """Whether the products shown that a question about another one names are named only in passing, so that
    it still asks of the one talked about: by the words of a thing of any such kind or of what it is for ("is a
    cable included?" beside a "Lightning Cable", "ok for small breeds?" beside a "Small Breed" food), or by
    one word of their names that is not what they are ("grass box capacity" of a mower, beside a "Grass
    Trimmer"). Called "the … one" or "the …," they are named ("the grass one", "the trimmer, is it loud?").
    `also` maps the question's words to the catalog's ("Kabel" -> cable)."""
    folded = fold(text)
    if not products or _THE_X_ONE.search(folded):
        return False
    passing = {w for m in _ANY_OR_FOR.finditer(folded) for w in words(m.group(1))}
    said_words = [w for w in words(folded) if w not in passing and _counts(w)]
    said = {stem(w) for w in said_words} | {stem(x) for w in said_words for x in words(fold(also.get(w, "")))}
    for product in products:
        name = str(product.get("name", ""))
        naming = said & {stem(w) for w in words(fold(name))}
        head = name_head(name)
        if len(naming) > 1 or (naming and head is not None and stem(head) in naming):
            return False
    return True


_THE_WORD = re.compile(r"\b(?:the|die|der|das|den|dem|la|le|les|l')\s*([^\W\d_]{3,})")
# "is that hoe stainless?", "this trowel", "diese Schere", "cette bêche": what it is, after a demonstrative
_THAT_WORD = re.compile(r"\b(?:that|this|those|these|diese[rnsm]?|cette|ces|ce|cet)\s+([^\W\d_]{3,})")


def called_the(
    text: str, products: list[dict[str, Any]], also: Mapping[str, str] | None = None, *, every: bool = False
) -> str:
    """The word by which the message calls one of the products (`every`: all of them) with "the" before it:
    a word of its name, the end of one or two of them written as one ("ist die Springform
    spülmaschinenfest?", "the grit of the stone" of a "Whetstone", "die Powerbank" of a "Power Bank"), or,
    by `also`, the catalog's word for it ("la souris": mouse); "" when it calls none so."""
    for m in _THE_WORD.finditer(fold(text)):
        said = m.group(1)
        if said in STOPWORDS:
            continue
        called = {stem(said), *(stem(w) for w in words(fold((also or {}).get(said, ""))))}
        if (all if every else any)(calls(called, str(p.get("name", ""))) for p in products) and products:
            return said
    return called_that(text, products, also, every=every)


def called_that(
    text: str, products: list[dict[str, Any]], also: Mapping[str, str] | None = None, *, every: bool = False
) -> str:
    """The word by which the message calls one of the products (`every`: all of them) after "that", "this",
    "diese", "cette"…: what it is, the head of its name ("is that hoe stainless steel?"; "is that waterproof?"
    calls no "Waterproof Boot"); "" when it calls none so."""
    for m in _THAT_WORD.finditer(fold(text)):
        said = m.group(1)
        called = {stem(said), *(stem(w) for w in words(fold((also or {}).get(said, ""))))}
        if (
            said not in STOPWORDS
            and products
            and (all if every else any)(
                calls(called, head) for p in products if (head := name_head(str(p.get("name", ""))))
            )
        ):
            return said
    return ""


def calls(called: set[str], name: str) -> bool:
    """Whether a name has one of the stems called, as a word, two words written as one, or a compound's end."""
    found = words(fold(name))
    stems = {stem(w) for w in found} | {stem(a + b) for a, b in itertools.pairwise(found)}
    return bool(called & stems) or any(n.endswith(c) and len(c) >= 4 for c in called for n in stems)


# "the manure one", and a message opening on the thing it asks about: "the belt, is it real leather?"
_THE_X_ONE = re.compile(
    r"\bthe ((?:[^\W\d_]+ ){0,2}?[^\W\d_]+) ones?\b|"
    # "the grinder, is it electric?", "ok the blender - warranty?", "the dress then: what is it made of?"
    r"^\W*(?:(?:and|ok|okay|so) )?(?:(?:what|how) about )?the ((?:[^\W\d_]+ ){0,2}?[^\W\d_]+)"
    r"(?:\s+then\b)?\s*(?:,|:|\s[-\u2013\u2014]\s|\s(?=" + ASKED_RIGHT_AFTER + "))"
)


def called_one(folded: str) -> list[str]:
    """The words by which a (folded) message calls a product "the … one" anywhere in it ("what's in the box for the
    bead one?": bead); none where it calls none so."""
    found = _THE_X_ONE.search(folded)
    return words(found.group(1) or found.group(2)) if found else []


_THE_ONE_WRITTEN = re.compile(r"\bthe\s+(?:[^\W\d_]+\s+){0,2}?[^\W\d_]+\s+ones?\b", re.IGNORECASE)


def without_called_one(text: str) -> str:
    """The message with "the … one" said as "it": the words that call the product are not what is asked of it
    ("what's in the box for the bead one?" asks what the box holds, not about beads)."""
    return _THE_ONE_WRITTEN.sub("it", text)


def called_by(text: str, product: dict[str, Any]) -> bool:
    """Whether the message names this product by more than what it is made of, or calls it so: "the strap,
    is it adjustable on the crossbody?" asks of the crossbody bag shown, "the leather ones or the canvas
    ones?" of a "Canvas Sneaker", "the belt, is it real leather?" not of the "Leather Gloves" shown (only
    its material is said). Where the message calls nothing "the … one" or "the …, ", any word counts."""
    calls = [m.group(1) or m.group(2) for m in _THE_X_ONE.finditer(fold(text))]
    if not calls:
        return True
    said = {stem(w) for w in words(text) if w not in STOPWORDS}
    shared = said & {stem(w) for w in words(str(product.get("name", "")))}
    called = {stem(w) for call in calls for w in words(call)}  # "the canvas ones": by its material, too
    # nor by a property asked of it ("the mat, is it non-slip?" is no question about "Non-Slip Bowls")
    return bool(shared - _MATERIAL_STEMS - properties_named(shared) or shared & called)


_MATERIAL_STEMS = frozenset(stem(w) for w in MATERIALS | {"stainless"})
# The words of what a thing is made of ("the stainless steel one", "the cast iron one")
MADE_OF = MATERIALS | {"stainless", "cast", "carbon", "solid", "enamelled", "enameled", "terracotta", "clay"}


def called_not_shown(text: str, named: list[str], shown: list[dict[str, Any]]) -> list[str]:
    """The words calling a product "the … one" where they are words of the catalog (`named`) that
    no product shown has in its name, category or options: a product of the shop not in the list
    ("the manure one" after composts); empty otherwise ("the blue one", "the second one")."""
    found = _THE_X_ONE.search(fold(text))
    if found is None:
        return []
    called = [w for w in words(found.group(1) or found.group(2)) if _counts(w) and stem(w) not in ORDINAL_WORDS]
    if not called or not set(called) <= set(named) - _NOT_A_THING - SAYS_WHICH:
        return []
    said = {stem(w) for w in called}
    if properties_named(said):  # "the waterproof one": a property, asked of those shown
        return []
    # "the enamel one" of an "Enamelled Dutch Oven" shown is that one
    return [] if said & words_of(shown) or any(_named_by(said, str(p.get("name", ""))) for p in shown) else called


# Words that tell the products shown apart rather than call another ("the big one", "the new one",
# and the words of praise: "the nice one").
SAYS_WHICH = PRAISE | frozenset({
    "big", "bigger", "small", "little", "large", "long", "short", "tall", "wide", "narrow", "heavy", "light", "new",
    "old", "same", "expensive", "pricey", "top", "bottom", "left", "right", "middle",
})  # fmt: skip


def find_called(
    called: list[str],
    shown: list[dict[str, Any]],
    question: str,
    also: dict[str, str],
    otherwise: list[int],
    no_kind: bool = False,
    or_first: bool = False,
    priced: str = "",
) -> ModelReply:
    """The search for the product called so (`called_not_shown`), whose details then answer the
    question: "the manure one" is searched as "manure"; a material, "the leather ones" after
    gloves, or a word naming no kind of the catalog's, "the chicken ones" after training treats, as
    a thing of the list's kind ("leather gloves", "chicken treats"; `no_kind`). `otherwise`: the
    products the question is about when none found is called so ("the waterproof one" is a shown
    jacket; `or_first`: the first found, when none is called so; `priced`: "cheapest" or "dearest", the one
    of those found called so, by its price: "the cheaper of the two propagators")."""
    # "the chicken ones" after treats: chicken treats; "the manure one" after composts: manure
    kind = name_kind(str(shown[0].get("name", ""))) if shown and (set(called) <= MADE_OF or no_kind) else None
    query = " ".join([*called, *([fold(kind)] if kind else [])])
    plan = {"subject": " ".join(called), "ask_found": question, "ask_words": called, "also": also,
            "otherwise": otherwise, "or_first": or_first, **({"priced": priced} if priced else {}),
            # ("the stainless steel one": of those shown made of it, if any is; "the chicken ones" is searched)
            "among": [p["productId"] for p in shown[:LIST_LENGTH]] if set(called) <= MADE_OF else []}  # fmt: skip
    return search_call({"query": query, "limit": LIST_LENGTH}, plan)


def having(products: list[dict[str, Any]], called: list[str]) -> list[dict[str, Any]]:
    """The looked-up products that are what `called` says: made of it (a material: "the leather
    ones", in its material), or that thing (its name's last word: "the manure one" is a "… Horse
    Manure", not a "Waterproof Jacket" for "the waterproof one"), or named by all its words, when
    they are several ("the memory foam one"), or by the one word, when that names no property
    ("the rope one": a "Cotton Rope Tug")."""
    wanted = {stem(w) for w in called}
    if set(called) <= MADE_OF:  # named so first: a "Rubber Treat Ball" before a mat with a rubber base
        made = [p for p in products if wanted <= {stem(w) for w in words(f"{p.get('name')} {p.get('material')}")}]
        return sorted(made, key=lambda p: not _named_by(wanted, str(p.get("name", ""))))
    # or whose name has all the words ("the memory foam one": an "Orthopaedic Memory Foam Dog Bed")
    named = [
        p for p in products
        if ((head := name_head(str(p.get("name", "")))) and stem(head) in wanted)
        or (len(wanted) > 1 and wanted <= {stem(w) for w in words(str(p.get("name", "")))})
    ]  # fmt: skip
    if named or properties_named(wanted):
        return named
    # one word that names no property: what it is made of or has ("the rope one": a "Cotton Rope Tug")
    return [p for p in products if _named_by(wanted, str(p.get("name", "")))]


def mainly(product: dict[str, Any], called: list[str]) -> bool:
    """Whether a product is what `called` says by its name or, a material, by the first of its
    materials ("stainless steel, non-stick interior" is a stainless steel one; "borosilicate glass,
    stainless steel" and "polyester fleece, rubber base" are not)."""
    wanted = {stem(w) for w in called}
    if _named_by(wanted, str(product.get("name", ""))):
        return True
    first = re.split(r",|\band\b|/|\+", str(product.get("material") or ""))[0]
    return set(called) <= MADE_OF and wanted <= {stem(w) for w in words(first)}


def _named_by(stems: set[str], name: str) -> bool:
    """Whether each stem is a word of the name, maybe with an ending ("enamel" of an "Enamelled
    Dutch Oven"; not "car" of a "Carrier")."""
    named = words(name)
    return all(any(stem(w) == s or (w.startswith(s) and w[len(s) :] in _ENDINGS) for w in named) for s in stems)


_ENDINGS = frozenset({"s", "es", "ed", "led", "d", "ing", "er", "ers"})


# "the first cage", "die zweite Jacke", "la deuxième veste": a position among the products of a kind.
_ORDINAL_NOUN = re.compile(
    r"\b(?:first|second|third|last|erste[nrsm]?|zweite[nrsm]?|dritte[nrsm]?|letzte[nrsm]?|premiere?|deuxieme|"
    r"troisieme|derniere?)\s+([^\W\d_]{3,})"
)


_POINTERS = frozenset({"pair", "item", "product", "eins", "artikel", "produkt", "article", "produit"})


def of_kind_at(text: str, shown: list[dict[str, Any]], position: int) -> dict[str, Any] | None:
    """The product at `position` among those shown of the kind the word after the ordinal names
    ("is the first cage big enough?" after a list of food, a cage and a hutch: the cage), where
    some, not all, of them are of it; None otherwise ("the first one", "the second jacket" when all
    are jackets)."""
    found = _ORDINAL_NOUN.search(fold(text))
    if found is None or found.group(1) in _NOT_A_THING | _POINTERS:
        return None
    kind = stem(found.group(1))
    of_kind = [p for p in shown if kind in words_of([p])]
    return at_position(of_kind, position) if 0 < len(of_kind) < len(shown) else None


def of_kind_asked(subject: str, shown: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The first product shown of the kind the request that showed them asked for, where the first one
    shown is not of it ("is it usb-c?" after "phone charger that works with iphone" listed a phone case
    first and a charger second: the charger): the kind is the last word before the words about what it
    is for or goes with ("that", "for", "with") that is the head word of a shown product's name; None
    where the first shown is of it, or no word names one."""
    folded = fold(subject).rsplit(",", 1)[-1]  # (a list refined by more words: what was said last)
    cut = _ABOUT_THE_THING.search(folded)
    said = [w for w in words(folded[: cut.start()] if cut else folded) if _counts(w)]
    # (each word, and two written as one: "head lamp" asks for a "Headlamp")
    asked = [stem(w) for w in said] + [stem(a + b) for a, b in itertools.pairwise(said)]
    heads = [stem(h) if (h := name_head(str(p.get("name", "")))) else "" for p in shown]
    kinds = [w for w in asked if w in heads]
    # (the first is of it where its name has the word, in a word of its own or in one: "Sundress" for "dress")
    if not kinds or not shown or kinds[-1] in fold(str(shown[0].get("name", ""))):
        return None
    return next(p for p, h in zip(shown, heads, strict=True) if h == kinds[-1])


# What is said of the thing asked for after it: what it is for, goes with, does ("charger that works with
# iphone", "bed for a labrador", "Ladegerät für mein Handy", "gamelle pour chat")
_ABOUT_THE_THING = re.compile(
    r"\b(?:for|that|which|who|with|to|so|f(?:u|ue)r|mit|zum|zur|der|die|das|pour|avec|qui|que)\b"
)


def ordinal_kind(text: str) -> str | None:
    """The word after an ordinal naming a kind of thing ("is the first cage big enough?": cage), if any."""
    found = _ORDINAL_NOUN.search(fold(text))
    return None if found is None or found.group(1) in _NOT_A_THING | _POINTERS else found.group(1)


def at_position(products: list[dict[str, Any]], position: int) -> dict[str, Any] | None:
    if position == -1:
        return products[-1] if products else None
    return products[position - 1] if 1 <= position <= len(products) else None


def asks_for_another(text: str, named: list[str], shown: list[dict[str, Any]]) -> bool:
    """Whether a message names a thing the products shown are not before "for" ("a case for the Paper 6",
    "eine Hülle für die Uhr", "une housse pour la liseuse")."""
    folded = fold(text)
    found = _FOR.search(folded)
    new = {stem(w) for w in named} - words_of(shown)
    return found is not None and bool(new & {stem(w) for w in words(folded[: found.start()])})


def words_of(products: list[dict[str, Any]]) -> set[str]:
    """The words of the products' names, categories and option names (a question naming only these
    is about them: "which flavours does the first come in?")."""
    return {
        stem(w)
        for p in products
        for w in words(
            " ".join([p.get("name", ""), p.get("category", ""), *(p.get("availableOptions") or {}),
                      *(p.get("options") or [])])  # (a search result's options, or a product's details')
        )
    }  # fmt: skip


# "do you have a sharpener that would work for it?", "is there a case that fits the first one?",
# "habt ihr auch eine Hülle dafür?", "vous avez un étui pour la liseuse ?": a request for a thing.
THERE_IS = r"is there|are there|gibt es|gibts|gibt's|il y a|y a-t-il"  # "is there a …", "gibt es …", "il y a …"
# the words between such a cue and the thing: "also", and an article ("is there also a …", "eine")
CUE_FILLER = r"(?: (?:also|too|auch|aussi))?(?: (?:an?|any|some|ein|eine|einen|un|une|des|du))?"
_ASKS_FOR = re.compile(
    rf"\b(?:(?P<there>{THERE_IS})|(?P<shop>do (?:you|u) (?:also |still )?(?:have|sell|do|carry|stock)|"
    r"have (?:you|u) got|you got|can i get|habt ihr|haben sie|hast du|avez-vous|avez vous|vous avez|"
    r"est-ce que vous avez)|"
    r"(?P<need>do i (?:also )?need(?: to (?:get|buy))?|should i (?:also )?(?:get|buy)|brauche ich))"
    rf"{CUE_FILLER} (?P<rest>[^?!.;]*)"
)
# "and a hat to go with it?", "und eine Maus dazu?", "et une écharpe pour aller avec ?": a thing asked of the
# shop by "and" and an article, with a word of fitting after it
_AND_A = re.compile(
    r"\W*(?:(?:ok|okay|great|cool|perfect|super|merci|thanks|danke|gut)\W+)?(?P<joined>and|und|et|plus)"
    r"(?: (?:also|too|auch|aussi))? (?:an?|any|some|ein|eine|einen|un|une|des|du) (?P<rest>[^?!.;]*)"
)
# "Is there a …" asks for a thing only with a word of fitting ("is there a case that fits it?"); else it
# asks of the product ("is there a monthly fee?", "is there a lid?").
_FITS = re.compile(
    r"\b(?:fit|fits|go(?:es)? with|works? with|compatible|match|matches|matching|to go with|for (?:it|them|this|that)|"
    r"passt|passend|passende[nrs]?|dafur|dazu|assorti(?:e|es|s)?|(?:pour )?aller avec|qui va avec|"
    # "and a spreader to put it down with?", "and a brush to clean them with?"
    r"to \w+ (?:it|them)(?: \w+)? with)\b"
)
_FITS_IN_ENGLISH = re.compile(r"fit|fits|go(?:es)? with|works? with|compatible|match\w*|to go with|for \w+|to \w+ .*")


# What ends the words naming the thing ("a sharpener that would work for it", "a case to fit it").
_THING_ENDS = frozenset({
    "that", "which", "to", "for", "with", "so", "it", "too", "also", "fur", "mit", "zu", "zum", "dafur", "dazu",
    "die", "der", "das", "den", "auch", "qui", "que", "pour", "avec", "aussi", "the", "them", "this", "these",
    "those", "in", "im", "en", "dans", "le", "la", "les", "ce", "cette", "ces", "sie", "diese",
})  # fmt: skip
# Words that may stand before the thing asked for ("gibts dazu auch einen …", "is there also a matching …")
_BEFORE_THE_THING = frozenset({
    "dazu", "dafur", "auch", "noch", "also", "too", "aussi", "a", "an", "any", "some", "ein", "eine", "einen", "un",
    "une", "des", "du",
})  # fmt: skip
# What a product has or comes with rather than a thing sold ("do you have a warranty for it?").
_OF_IT = frozenset({
    "warranty", "guarantee", "garantie", "review", "reviews", "discount", "discounts", "video", "manual",
    "instructions", "deal", "offer", "rabatt", "bewertungen", "anleitung", "avis", "remise", "notice",
})  # fmt: skip
# An indefinite article just before the words naming the thing, and words for an amount of it after one.
_A_THING = re.compile(r"\b(?:an?|ein|eine|einen|un|une) $")
_DEFINITE = frozenset({"the", "die", "das", "den", "le", "la", "les"})
_ANY_THING = re.compile(r"\b(?:an?|any|some|ein|eine|einen|un|une|des|du) $")
_WITH_IT = re.compile(r"\b(?:with|mit|avec) (?:it|them|this|that|ihm|ihr|dem|der)\b")
_AMOUNTS = frozenset({"lot", "bit", "little", "few", "couple", "paar", "bisschen", "peu"})
# Words that ask for more of the shown things, not for another thing ("a bigger size", "a cheaper one").
_NOT_A_THING = frozenset({
    "one", "ones", "other", "another", "similar", "different", "version", "model", "size", "colour", "color",
    "bigger", "smaller", "larger", "cheaper", "longer", "shorter", "lighter", "better", "lower", "higher", "grosse",
    "grossere", "kleinere", "andere", "farbe", "taille", "couleur", "autre", "modele",
})  # fmt: skip


def another_thing(reading: Reading, text: str, shown: list[dict[str, Any]], detailed: list[int]) -> AnotherThing | None:
    """What a message asks for when it asks for a thing the products shown are not, though it
    points at them ("do you have a sharpener that would work for it?" after knives, "is there a
    case that fits the one you showed first?"): the thing, for the product it is about by its
    name's last word ("sharpener for knife"); else None ("do you have skis too?" is a new request)."""
    refs = reading.refs or [o for o in reading.ordinals if o != -1]
    folded = fold(text)
    # pointing at them, or asking for one that fits ("is there a matching lead?")
    pointed = refs or reading.points_at_one or reading.points_at_all or _FITS.search(folded)
    found = _ASKS_FOR.search(folded) if pointed else None
    if found is None and pointed and (also := _AND_A.match(folded)) is not None and _FITS.search(also["rest"]):
        found = also  # "and a hat to go with it?", "und eine Maus dazu?": the shop asked for one
    asked = found.groupdict() if found is not None else {}
    if found is None or (asked.get("there") and not _FITS.search(found["rest"])):
        return None
    joined = bool(asked.get("joined"))
    there = bool(asked.get("there"))
    said = ""  # the thing as written ("gants en cuir"), where it is said before the words of fitting
    if joined and (fits := _FITS.search(found["rest"])) is not None:  # "et des gants en cuir pour aller avec ?"
        named = [w for w in words(found["rest"][: fits.start()]) if w not in STOPWORDS and w not in _THING_ENDS]
        start, end = found.start("rest"), found.start("rest") + fits.start()
        spans = [m.span() for m in re.finditer(r"[^\W_]+", folded[start:end]) if m.group(0) in named]
        if spans:  # from its first word to its last ("plain top", not "plain top that would")
            start, end = start + spans[0][0], start + spans[-1][1]
            said = " ".join((text[start:end] if len(text) == len(folded) else folded[start:end]).split())
    else:  # (after the words of fitting and an article that may come first: "gibts dazu einen Schleifstein?")
        said_first = itertools.dropwhile(lambda w: w in _BEFORE_THE_THING, words(found["rest"]))
        named = list(itertools.takewhile(lambda w: w not in _THING_ENDS, said_first))
    # a thing none of them is by its name (a lead after harnesses, though their category names leads too)
    names = {stem(w) for p in shown for w in words(str(p.get("name", "")))}
    if joined:  # ("and a mouse to go with it?" beside a "Keyboard and Mouse Set")
        names = {stem(h) for p in shown if (h := name_head(str(p.get("name", ""))))}
    if not named or named[-1] in _NOT_A_THING | _OF_IT or named[-1].isdigit() or stem(named[-1]) in names:
        return None  # ("do you have a warranty for it?" asks of it)
    focus = _about(shown, refs, detailed)
    if focus is None:
        return None
    kind = name_kind(str(focus.get("name", "")))  # "Chef's Knife 20 cm" is a knife
    thing = " ".join(named)
    # "do i need a sharpener with it?" asks for one as much as "do you have one?" ("do i need a lot?",
    # "do i need a sharp eye to use it?" do not)
    of_shop = bool(asked.get("shop") or joined) or (
        bool(asked.get("need"))
        and _A_THING.search(folded, 0, found.start("rest")) is not None
        and named[0] not in _AMOUNTS
        and bool(_FITS.search(found["rest"]) or _WITH_IT.search(found["rest"]))
    )
    if kind is None or joined:  # ("und eine Rosenschere dazu?": searched as said, "for" in no language of it)
        head = name_head(str(focus.get("name", ""))) if joined else None
        return AnotherThing(named, thing, int(focus["productId"]), said or thing, of_shop, head or "", there)
    head = name_head(str(focus.get("name", ""))) or fold(kind)
    subject = f"{thing} for the {kind.lower()}"
    if (fits := _FITS.search(found["rest"])) is not None and not _FITS_IN_ENGLISH.fullmatch(fits.group(0)):
        # "gibt es auch Möbel dazu?": said as the shopper wrote it ("for the dollhouse" is English)
        spans = [m.span() for m in re.finditer(r"[^\W_]+", folded) if m.group(0) in named]
        written = text if len(text) == len(folded) else folded
        subject = " ".join(written[spans[0][0] : spans[-1][1]].split()) if spans else thing
    return AnotherThing(named, f"{thing} for {fold(kind)}", int(focus["productId"]), subject, of_shop, head, there)


def asks_shop_for_a_thing(text: str, shown: list[dict[str, Any]], described: Iterable[str]) -> bool:
    """Whether a message asks the shop for a thing by a word no product shown is called by ("ok and
    do you have a rake for the moss?" after lawn feed, "habt ihr auch eine Gießkanne?"), whether or not
    the catalog has the word: a request of its own, not a question about them. Not where the words
    say which of them or which variation ("do you have it in 42?", "do you have an XL?", "do you have
    a 28 cm one?", "do you have a men's one?", "do you have a bigger size?"), nor what comes with one
    ("do you have a warranty for it?"). `described`: the message's words describing a thing (not its
    colours, sizes nor amounts)."""
    found = _ASKS_FOR.search(fold(text)) or _WHAT_DO_YOU_HAVE.search(fold(text))
    if found is None or not found["shop"]:
        return False
    # with no article, the thing's words right after the cue ("do you also have puppy training pads", "do you
    # sell live hamsters"; not "do you have it in grey", "do you have them in 42")
    first = words(found["rest"])[:1]
    # ("do you also have the big dinosaur that roars?": "also", another thing, called as the shopper knows it)
    also_the = " also " in found["shop"] and bool(first) and first[0] in _DEFINITE
    article = _ANY_THING.search(found.string, 0, found.start("rest"))
    if not (article or (first and first[0] not in STOPWORDS) or also_the):
        return False
    # the first words naming something: "a rake" of "a rake for the moss", "plants" of "des plants ou des graines"
    rest = list(itertools.dropwhile(lambda w: w in STOPWORDS, words(found["rest"])))
    named = list(itertools.takewhile(lambda w: w not in _THING_ENDS | STOPWORDS, rest))
    if not named or rest[len(named) : len(named) + 1] in (["one"], ["ones"]):  # "a 28 cm one": one of them
        return False
    thing = named[-1]
    if thing in _NOT_A_THING | _OF_IT | AUDIENCE or any(ch.isdigit() for w in named for ch in w):
        return False
    # what it is, or a word saying which thing of its kind, that no product shown has ("a gps tracker collar"
    # after collars; not "a bigger collar", nor "a red collar": words that are no thing are not `described`)
    seen = words_of(shown) | {stem(w) for w in _NOT_A_THING}
    # the thing itself is seen only as what a product shown is ("a big dinosaur" after a "Dinosaur Valley Puzzle")
    kinds = {stem(head) for p in shown if (head := name_head(str(p.get("name", ""))))} | {stem(w) for w in _NOT_A_THING}
    return any(
        w in set(described) and stem(w) not in (kinds if n == len(named) - 1 else seen)
        for n, w in enumerate(named)
        if w not in _NOT_A_THING | AUDIENCE
    )


# "what screen protectors do you have?", "what kind of litter do you sell?": a thing asked of the shop
_WHAT_DO_YOU_HAVE = re.compile(
    r"\bwhat (?:kind of |kinds of |sort of |sorts of |types? of )?(?P<rest>[^?!.;]+?) "
    r"(?P<shop>do you (?:have|sell|do|carry|stock)|have you got)\b"
)


class AnotherThing(NamedTuple):
    """A thing asked for to go with a product shown: its words, what to search for, the product."""

    words: list[str]  # "sharpener"
    search: str  # "sharpener for knife"
    about: int  # the product's id
    subject: str  # how the answer says it: "sharpener for the knife"
    of_shop: bool  # asked of the shop ("do you have …"), not of the shopper's needs ("do i need …")
    goes_with: str = ""  # what the product is ("knife"): others of it are no alternative to the thing
    there: bool = False  # asked whether there is one ("is there a case that fits it?", "gibt es Möbel dazu?")

    def call(self, filters: dict[str, Any]) -> ModelReply:
        """The search for it within `filters`, said as asked ("socks for the boot"), the product itself not offered,
        and the product looked up beside it: what its own text says of the thing comes first
        ("HDMI cable included")."""
        args = {"query": self.search, "limit": LIST_LENGTH, **({"filters": filters} if filters else {})}
        plan = {"subject": self.subject, "exclude": [self.about], "said_of": self.about, "said_words": self.words,
                "goes_with": [self.goes_with] if self.goes_with else []}  # fmt: skip
        return search_call(args, plan, also_details=self.about)


def _about(shown: list[dict[str, Any]], refs: list[int], detailed: list[int]) -> dict[str, Any] | None:
    """The shown product a message is about: the one it points at, else the one talked about
    last, else the first shown (the best match of the search that showed them)."""
    if refs:
        return at_position(shown, refs[0])
    talked = [p for p in shown if p.get("productId") in detailed[:1]]
    return talked[0] if talked else (shown[0] if shown else None)
