"""What a product's structured data says, as the offline assistant says it: its sizes, weights
(per size), prices (with the list price of a discount), stock per variation, the variations a
question names ("the 1 kg bag", "the Presta one") and the specs a question names."""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from shopagent.adapters.local.concierge.replies import Replies
from shopagent.adapters.local.concierge.text import clean_sentences, stem
from shopagent.domain.options import fold
from shopagent.domain.prices import price_text


def sizes_of(d: dict[str, Any]) -> list[str]:
    """The sizes a product comes in (none for a one-size product), small to large where they are
    numbers, letter sizes or amounts of one unit ("1 L", "1.5 L"), else in the catalog's order."""
    sizes = [s for s in dict.fromkeys(str(v.get("size", "")) for v in d.get("variations", [])) if s]
    sizes = [s for s in sizes if s.upper() != "ONE SIZE"]
    return _in_order(sizes) or sizes


def _in_order(values: list[str]) -> list[str] | None:
    """The values small to large where they are all numbers or letter sizes ("36, 37, 38"; "S, M, L,
    XL") or amounts of one unit ("1 L", "1.5 L"; "24 CM", "28 CM"); None where they are not."""
    if all(_NUMBER.fullmatch(s) for s in values):
        return sorted(values, key=lambda s: float(s.replace(",", ".")))
    if all(s.upper() in _LETTER_SIZES for s in values):
        return sorted(values, key=lambda s: _LETTER_SIZES.index(s.upper()))
    measured = [_MEASURED.fullmatch(s.strip()) for s in values]
    if all(measured) and len({m.group(2).casefold() for m in measured if m}) == 1:
        amounts = [float(m.group(1).replace(",", ".")) for m in measured if m]
        return [s for _, s in sorted(zip(amounts, values, strict=True))]
    # amounts of one measure in several units or packs ("400 g, 2 kg"; "12 x 85 g"; "SET OF 2, SET OF 6")
    found = [_amount(s) for s in values]
    if all(found) and len({a[0] for a in found if a}) == 1:
        return [s for _, s in sorted(zip((a[1] for a in found if a), values, strict=True))]
    # dimensions in one unit, by their area or volume ("120 x 80 x 42 cm", "180 x 80 x 42 cm"), and counts of
    # one thing ("1 block", "5 blocks")
    for pattern in (_DIMENSIONS, _THINGS):
        matched = [pattern.fullmatch(fold(v).strip()) for v in values]
        if all(matched) and len({m.group("unit").rstrip("s") for m in matched if m}) == 1:
            sizes = [math.prod(float(n.replace(",", ".")) for n in _NUMBER.findall(m.group("n"))) for m in matched if m]
            return [v for _, v in sorted(zip(sizes, values, strict=True))]
    # an aside after the amount ("1 kg (30 m²)", "2.5 kg (70 m²)"): ordered by the amount before it
    bare = [_ASIDE.sub("", v) for v in values]
    if bare != values and (ordered := _in_order(bare)) is not None:
        return [values[bare.index(b)] for b in ordered]
    return None


_ASIDE = re.compile(r"\s*\([^()]*\)\s*$")


_DIMENSIONS = re.compile(r"(?P<n>\d+(?:[.,]\d+)?(?:\s*[x\u00d7]\s*\d+(?:[.,]\d+)?)+)\s*(?P<unit>mm|cm|m|in|\")")
_THINGS = re.compile(r"(?P<n>\d+)\s+(?P<unit>[a-z]{3,})")


_UNIT_SIZE = {
    "mg": ("g", 0.001), "g": ("g", 1.0), "kg": ("g", 1000.0),
    "ml": ("l", 0.001), "cl": ("l", 0.01), "dl": ("l", 0.1), "l": ("l", 1.0), "litre": ("l", 1.0),
    "litres": ("l", 1.0), "liter": ("l", 1.0), "liters": ("l", 1.0),
    "mm": ("m", 0.001), "cm": ("m", 0.01), "m": ("m", 1.0), "km": ("m", 1000.0), "metre": ("m", 1.0),
    "metres": ("m", 1.0), "meter": ("m", 1.0), "meters": ("m", 1.0), "in": ("m", 0.0254), "inch": ("m", 0.0254),
    "inches": ("m", 0.0254), "zoll": ("m", 0.0254), '"': ("m", 0.0254), "ft": ("m", 0.3048), "feet": ("m", 0.3048),
    "mb": ("byte", 1e6), "gb": ("byte", 1e9), "tb": ("byte", 1e12),
}  # fmt: skip
_BASE_UNIT = {"length": "m", "volume": "l", "weight": "g", "count": "count"}
_PACKED = re.compile(r"(?:(\d+)\s*[x\u00d7]\s*)?(\d+(?:[.,]\d+)?)\s*([a-z]+|\")")  # "12 x 85 g", '27"'
_COUNTED = re.compile(
    r"(?:set|pack|box|lot|satz) (?:of|de|mit) (\d+)|"
    r"(\d+)\s*(?:-?pack|pcs|pieces?|pairs?|paires?|st(?:u|ue)ck|teile|bags?|sacs?)"
)


def _amount(value: str) -> tuple[str, float] | None:
    """A size's measure and amount in its base unit ("2 kg" -> g, 2000; "12 x 85 g" -> g, 1020; "SET OF 4"
    -> count, 4); None where it is no amount."""
    folded = fold(value).strip()
    if counted := _COUNTED.fullmatch(folded):
        return "count", float(counted.group(1) or counted.group(2))
    packed = _PACKED.fullmatch(folded)
    if packed is None or packed.group(3) not in _UNIT_SIZE:
        return None
    measure, factor = _UNIT_SIZE[packed.group(3)]
    return measure, int(packed.group(1) or 1) * float(packed.group(2).replace(",", ".")) * factor


def size_steps(d: dict[str, Any]) -> list[tuple[str, list[dict[str, Any]]]]:
    """A product's sizes small to large, each with its variations, where they can be put in order:
    its sizes, else an option whose values are amounts of one unit (a hose's "Length": 15 m, 25 m,
    50 m); none where it comes in one size or its sizes have no order ("Right-handed")."""
    variations = d.get("variations", [])
    sizes = sizes_of(d)
    if len(sizes) >= 2 and _in_order(sizes):
        return [(s, [v for v in variations if str(v.get("size", "")) == s]) for s in sizes]
    for key in dict.fromkeys(k for v in variations for k in v.get("options", {})):
        values = list(dict.fromkeys(str(v["options"][key]) for v in variations if key in v.get("options", {})))
        ordered = _in_order(values) if len(values) >= 2 else None
        if ordered:
            return [(x, [v for v in variations if str(v.get("options", {}).get(key)) == x]) for x in ordered]
    return []


_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
_MEASURED = re.compile(r"(\d+(?:[.,]\d+)?)\s*([^\W\d_]+)")
_LETTER_SIZES = ["XXXS", "XXS", "XS", "S", "M", "L", "XL", "XXL", "XXXL", "XXXXL"]


_AMOUNT = re.compile(r"\d")
# the word after one asking which: "what size", "which flavours", "welche Länge" (not "which of", "what type of")
_COUNTED_IN = frozenset({"set", "pack", "box", "packet", "pieces", "lot", "packung", "satz"})
_WHICH = re.compile(r"\b(?:what|which|welche\w*|was fur|quel\w*)\s+([a-z]+)\b(?!\s+of\b)")


_AREA = re.compile(r"\d\s*(?:m2|m\u00b2|sq ?m|square)", re.IGNORECASE)  # what an option covers: "1 kg (30 m²)"


def in_measure(values: list[str], measure: str) -> bool:
    """Whether the values are all amounts of that measure: "length" ("15 m", "25 m"), "volume" ("5 l"),
    "weight" ("400 g", "2 kg") or "count" ("SET OF 4", "2 pairs")."""
    base = _BASE_UNIT.get(measure)
    return bool(values) and base is not None and all((_amount(v) or ("", 0.0))[0] == base for v in values)


def options_asked(
    question: str,
    d: dict[str, Any],
    *,
    sizes_asked: bool,
    measures: tuple[str, ...] = (),
    sold_out: str = "",
    also: set[str] | frozenset[str] = frozenset(),
) -> list[str]:
    """The options of a product's variations a (folded) question asks about, each with its values
    in the catalog's order ("bag size 400 g, 2 kg"): those named right after the word asking which
    ("what size is the bag", "which flavours"; not "what type of soil", nor "which of these"), or,
    asked about sizes (`sizes_asked`), those whose values are all amounts ("how big is it" of a
    400 g and a 2 kg bag), or asked how long it is (how much it holds, how many: `measures`), those
    whose values are amounts of that ("Length 15 m, 25 m"). Empty for a product without options. A value
    no variation of which can be bought now has `sold_out` beside it ("12 kg (sold out at the moment)")."""
    values: dict[str, dict[str, None]] = {}
    for v in d.get("variations") or []:
        for name, value in (v.get("options") or {}).items():
            if str(value).strip():
                values.setdefault(str(name), {})[str(value)] = None
    asked = {w for m in _WHICH.finditer(question) for w in (m.group(1), m.group(1).removesuffix("s"))}
    asked |= also  # the catalog's word for one the question says otherwise ("elle sent quoi ?": scent)
    if "count" in measures:  # "how many in a pack?" of one sold by "Pack: 1 bar, 2 bars"
        asked |= set(re.findall(r"[a-z]+", question)) & _COUNTED_IN
    found = []
    bare = set(re.findall(r"[a-z0-9]+", question))
    # (or by one of its values, every word of it: "available for left handed people?", "für Linkshänder?" of
    # secateurs sold by "Hand: Right-handed, Left-handed"; not by a word of the product's name)
    stems_said = {stem(w) for w in bare} | also
    in_name = {stem(w) for w in re.findall(r"[a-z0-9]+", fold(str(d.get("name", ""))))}
    for name, said in values.items():
        own = set(re.findall(r"[a-z0-9]+", fold(name)))
        # (or asked by its name alone: "bag size?" of food sold by "Bag size", not its "breed size" spec)
        named = bool(own & asked) or (len(own) > 1 and own == bare)
        for value in said:
            value_stems = {stem(w) for w in re.findall(r"[^\W\d_]{3,}", fold(value))}
            named = named or (bool(value_stems) and value_stems <= stems_said and not value_stems <= in_name)
        amounts = sizes_asked and all(_AMOUNT.search(x) for x in said)
        measured = any(in_measure(list(said), m) for m in measures)
        measured = measured or ("area" in measures and all(_AREA.search(x) for x in said))
        if named or amounts or measured:
            shown = [f"{x} ({sold_out})" if sold_out and not _to_have(d, name, x) else x for x in said]
            found.append(f"{name.lower()} {', '.join(shown)}")
    return found


def options_naming(d: dict[str, Any], asked: set[str]) -> set[str]:
    """The words of the names of a product's options one of whose values names every word of `asked`
    (folded words): "does it come with battery and charger?" of a tool sold as "Battery: Bare tool,
    With 2.5 Ah battery and charger" names its "Battery" option (it comes with them in one variation)."""
    if not asked:
        return set()
    found: set[str] = set()
    for v in d.get("variations") or []:
        for name, value in (v.get("options") or {}).items():
            said = set(re.findall(r"[a-z0-9]+", fold(str(value))))
            if all(w in said or w.removesuffix("s") in said or w + "s" in said for w in asked):
                found |= set(re.findall(r"[a-z0-9]+", fold(str(name))))
    return found


def _to_have(d: dict[str, Any], option: str | None, value: str) -> bool:
    """Whether a variation with this option value (or size, where `option` is None) can be bought now;
    true where the data does not say how many there are."""
    having = [
        v for v in d.get("variations") or []
        if str(v.get("size", "") if option is None else (v.get("options") or {}).get(option, "")) == value
    ]  # fmt: skip
    return any(v.get("available") is None or v.get("available", 0) > 0 for v in having) or not having


def sizes_said(d: dict[str, Any], sold_out: str) -> list[str]:
    """Its sizes (sizes_of), each that cannot be bought now with `sold_out` beside it."""
    return [s if _to_have(d, None, s) else f"{s} ({sold_out})" for s in sizes_of(d)]


def size_guide(d: dict[str, Any]) -> list[str]:
    """The sentences of its text that name two or more of its sizes ("S for dogs up to 10 kg, M
    10-25 kg, L over 25 kg"): what says which size to take."""
    sizes = sizes_of(d)
    return [
        sentence for sentence in clean_sentences(str(d.get("description", "")))
        if sum(bool(re.search(rf"(?<![\w.]){re.escape(size)}(?![\w.])", sentence)) for size in sizes) >= 2
    ]  # fmt: skip


def weighed_variations(d: dict[str, Any], sizes: list[str]) -> list[dict[str, Any]]:
    """The variations with a weight: those of `sizes` when any of them has one, else all."""
    weighed = [v for v in d.get("variations", []) if v.get("weightGrams")]
    return [v for v in weighed if str(v.get("size", "")) in sizes] or weighed


def grams_of(d: dict[str, Any], sizes: list[str]) -> int | None:
    grams = weights_of(d, sizes)
    return min(grams) if grams else None


def weights_of(d: dict[str, Any], sizes: list[str]) -> list[int]:
    """What a product weighs, in grams, smallest first: the weight its specs state ("weight_kg": 9,
    the shop's own figure for the thing), else its variations' weights (of `sizes` when any of them
    has one), which may be packed weights."""
    stated = spec_grams(d.get("specs") or {})
    if stated is not None:
        return [stated]
    return sorted({int(v["weightGrams"]) for v in weighed_variations(d, sizes)})


def weight_by_variation(d: dict[str, Any], sizes: list[str]) -> list[tuple[int, str]]:
    """Each weight of a product's variations with what sets those variations apart ("10 l", "3 bags"),
    lightest first: the option value all of a weight's variations share and no other weight's
    have; none where its specs state one weight, or a weight has no such value."""
    if spec_grams(d.get("specs") or {}) is not None:
        return []
    said: dict[int, list[set[str]]] = {}
    for v in weighed_variations(d, sizes):
        values = {str(x) for x in (v.get("options") or {}).values() if x}  # (by size, a range says it)
        said.setdefault(int(v["weightGrams"]), []).append(values)
    shared = {grams: set.intersection(*each) for grams, each in said.items()}
    labels = []
    for grams, own in sorted(shared.items()):
        others = set().union(*(values for g, each in said.items() if g != grams for values in each))
        apart = sorted(own - others)
        if not apart:
            return []
        labels.append((grams, ", ".join(apart)))
    return labels


# A spec stating what the thing itself weighs ("weight_kg", "weight_g", "weight", "net_weight_kg"), not
# what it carries or a part of it ("max_weight_kg", "ball_weight_g", "fabric_weight_gsm")
_OWN_WEIGHT = re.compile(r"(?:net[_ ]?)?(?:weight|gewicht|poids)(?:[_ ]?(g|grams?|kg|kilos?|kilograms?))?")
_STATED = re.compile(r"\s*(\d+(?:[.,]\d+)?)\s*(g|grams?|kg|kilos?|kilograms?)?\s*$")


def spec_grams(specs: Mapping[str, Any]) -> int | None:
    """The weight a product's specs state, in grams (None when they state none)."""
    for key, value in specs.items():
        named = _OWN_WEIGHT.fullmatch(fold(str(key)))
        if named is None or isinstance(value, bool):
            continue
        written = _STATED.match(str(value)) if not isinstance(value, int | float) else None
        if written is None and not isinstance(value, int | float):
            continue
        amount = float(value) if written is None else float(written.group(1).replace(",", "."))
        unit = named.group(1) or (written.group(2) if written is not None else None) or "g"
        return round(amount * (1000 if unit.startswith("k") else 1))
    return None


def grams_text(grams: int) -> str:
    return f"{grams} g" if grams < 1000 else f"{grams / 1000:.2f}".rstrip("0").rstrip(".") + " kg"


def price_said(d: dict[str, Any], r: Replies, locale: str, currency: str | None = None) -> str:
    """The price of a product or a variation (whose currency is the product's)."""
    price = price_text(d["effectivePrice"], currency or d["currency"], locale)
    if d.get("discountedPrice"):
        price += r.was.format(price=price_text(d["price"], currency or d["currency"], locale))
    return price


def named_variations(question: str, d: dict[str, Any], asked: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The product's variations the (folded) question names by an option value or size ("the 1 kg
    bag", "the Presta one"), or by the colours/sizes asked; none when it names none."""
    found = []
    for v in d.get("variations", []):
        values = [x for x in (str(v.get("size", "")), *v.get("options", {}).values()) if x and x.upper() != "ONE SIZE"]
        said = [x for x in values if says_value(question, fold(x))]
        colours, sizes = asked.get("colors") or [], asked.get("sizes") or []
        if said or ((colours or sizes) and (not colours or v.get("color") in colours)
                                        and (not sizes or v.get("size") in sizes)):  # fmt: skip
            found.append((len(said), v))
    best = max((n for n, _ in found), default=0)
    return [v for n, v in found if n == best]


def says_value(question: str, value: str) -> bool:
    """Whether the (folded) question names the (folded) `value` as whole words; a number and its
    unit may be written apart or together ("1 kg", "1kg", "450g")."""
    pieces = re.findall(r"\d+(?:[.,]\d+)?|[^\W\d_]+|[^\w\s]", value)
    if not pieces:
        return False
    pattern = re.escape(pieces[0])
    for before, piece in itertools.pairwise(pieces):
        if piece == "-" and before[-1].isalpha():  # ("left-handed" said "left handed" or "lefthanded" too)
            pattern += r"[\s-]*"
            continue
        words_apart = before[-1].isalpha() and piece[0].isalpha()  # "presta valve"; "1kg", "a-b" may touch
        glue = "" if before == "-" else r"\s+" if words_apart else r"\s*"
        pattern += glue + re.escape(piece)
    return re.search(rf"(?<!\w){pattern}(?!\w)", question) is not None


def names_a_variation(text: str, product: dict[str, Any]) -> bool:
    """Whether `text` names one of a listed product's sizes or option values ("the 450g one")."""
    folded = fold(text)
    values = [
        *product.get("availableSizes", []),
        *(v for vs in (product.get("availableOptions") or {}).values() for v in vs),
    ]
    return any(says_value(folded, fold(v)) for v in values if v.upper() != "ONE SIZE")


def stock_item(r: Replies, v: dict[str, Any], colour: Callable[[str], str]) -> str:
    """A variation and its stock: "black 42 (5 left)"; "6 l (40 left)" where options tell them apart."""
    if v.get("color") or size_said(v):
        item = r.item.format(
            colour=colour(v["color"]) if v.get("color") else "", size=size_said(v), count=v["available"]
        )
    else:
        item = r.item.format(colour=variant_text(v, colour), size="", count=v["available"])
    return " ".join(item.split())


def variant_text(v: dict[str, Any], colour: Callable[[str], str]) -> str:
    """A variation as said to a shopper: "black, 1 kg, Espresso"."""
    parts = [colour(v["color"]) if v.get("color") else "", size_said(v), *v.get("options", {}).values()]
    return ", ".join(p for p in parts if p)


def size_said(variation: dict[str, Any]) -> str:
    """A variation's size as said to a customer: nothing for a product made in one size."""
    size = str(variation.get("size", ""))
    return "" if size.upper() == "ONE SIZE" else size


def made_in(d: dict[str, Any], colours: list[str], sizes: list[str], colour: Callable[[str], str]) -> list[str]:
    """The colours (or sizes) the product does come in, when none of its variations is in the
    colour (or size) asked for; empty when it is made so and merely sold out."""
    variations = d.get("variations", [])
    if colours and not any(v.get("color") in colours for v in variations):
        return list(dict.fromkeys(colour(v["color"]) for v in variations if v.get("color")))
    if sizes and not any(v.get("size") in sizes for v in variations):
        return list(dict.fromkeys(v["size"] for v in variations if v.get("size")))
    return []


# (not the "in" of "2-in-1")
_NAMED_MEASURE = re.compile(r"(\d+(?:[.,]\d+)?)[\s-]*(mm|cm|m|ml|cl|l|g|kg|inch|in|\")(?![^\W\d_]|-\w)", re.IGNORECASE)


def amounts_of(d: dict[str, Any]) -> list[tuple[str, tuple[str, float]]]:
    """The amounts a product comes in, each as written with its measure and amount in the base unit: its
    sizes' or options' ("Bottle": 250 ml, 500 ml), else its name's ("60 l Aquarium Starter Set")."""
    searched = [str(v) for vs in (d.get("availableOptions") or {}).values() for v in vs]  # (a search's result)
    values = [*map(str, sizes_of(d)), *searched, *options_of(d)]
    own = [(v, a) for v in dict.fromkeys(values) if (a := _amount(v)) is not None]
    if not own and (named := _NAMED_MEASURE.search(str(d.get("name", "")))) is not None:
        own = [(named.group(0), a) for a in [_amount(named.group(0))] if a is not None]
    return own


def options_of(d: dict[str, Any]) -> list[str]:
    """What its variations' options are ("1 block", "5 blocks"), each once."""
    return list(
        dict.fromkeys(
            str(v) for variation in d.get("variations", []) for v in (variation.get("options") or {}).values()
        )
    )


def biggest_of(found: list[dict[str, Any]], big: bool) -> dict[str, Any] | None:
    """For "which is bigger?": the biggest (smallest) by the amounts they come in, of those that come in
    amounts of the measure most of them do (compost in litres beside blocks counted); None where fewer
    than two of them give amounts of one measure."""
    measures = [{a[0] for _, a in amounts_of(d)} for d in found]
    counts = Counter(next(iter(m)) for m in measures if len(m) == 1)
    if not counts or (common := counts.most_common(1)[0])[1] < 2:
        return None
    ranked = by_largest_amount([d for d, m in zip(found, measures, strict=True) if m == {common[0]}], big)
    return (ranked[-1] if big else ranked[0]) if ranked else None


def by_largest_amount(found: list[dict[str, Any]], big: bool) -> list[dict[str, Any]]:
    """The products small to large by the largest (`big`) or smallest amount they come in, of one
    measure for all of them (their sizes or option values, else their names: "Hard Drive 4TB", "SSD 2TB",
    "Flash Drive" in 32 to 256 GB); none where one gives no such amount."""
    amounts = []
    for d in found:
        own = [a for _, a in amounts_of(d)]
        if not own or len({a[0] for a in own}) != 1:
            return []
        amounts.append((own[0][0], (max if big else min)(a[1] for a in own)))
    if len({measure for measure, _ in amounts}) != 1:
        return []
    return [d for _, d in sorted(zip((a for _, a in amounts), found, strict=True), key=lambda x: x[0])]


def by_named_measure(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The products small to large by the measure their names give in one unit ("Chef's Knife 20
    cm", "Santoku Knife 18 cm"); none where a name gives none, or they differ in unit."""
    measures = [_NAMED_MEASURE.search(str(d.get("name", ""))) for d in found]
    if not all(measures) or len({m.group(2).casefold() for m in measures if m}) != 1:
        return []
    amounts = [float(m.group(1).replace(",", ".")) for m in measures if m]
    if len(set(amounts)) < len(amounts):
        return []
    return [d for _, d in sorted(zip(amounts, found, strict=True), key=lambda x: x[0])]


def with_specs_said(d: dict[str, Any], r: Replies) -> dict[str, Any]:
    """The details with their yes-or-no specs said in the answer's language, as a person says them:
    "no, not tubeless ready", "yes, foldable", "no, stabilisers not included", "whistle: yes" (a thing
    it has), not "tubeless ready: no"; the other specs as the catalog tool reads them."""
    specs = d.get("specs") or {}
    texts = list(d.get("specText") or [])
    if len(texts) != len(specs) or not any(isinstance(v, bool) for v in specs.values()):
        return d
    said = [spec_said(name, value, r) if isinstance(value, bool) else text
            for (name, value), text in zip(specs.items(), texts, strict=True)]  # fmt: skip
    return {**d, "specText": said}


def spec_said(name: str, value: bool, r: Replies) -> str:
    """A yes-or-no spec as said: of a property by the property ("no, not tubeless ready"), of a thing it
    comes with or needs by that ("no, batteries not included"), of a thing it has by yes or no ("whistle: yes")."""
    named = [w for w in name.split("_") if w]
    what = " ".join(named)
    if len(named) > 1 and named[-1] in _COMES_WITH:  # "batteries included", "tools needed"
        return (
            r.spec_is.format(what=what) if value else r.spec_not_last.format(rest=" ".join(named[:-1]), last=named[-1])
        )
    if _PROPERTY_END.search(named[-1] if named else ""):
        return (r.spec_is if value else r.spec_is_not).format(what=what)
    return (r.spec_has if value else r.spec_has_not).format(what=what)


# The last words of a yes-or-no spec naming what comes with the product or what it needs
_COMES_WITH = frozenset({"included", "required", "needed", "supplied"})
# ... and the endings of words naming a property of it ("foldable", "grain free", "tubeless ready",
# "insulated", "reflective", "organic"), not a thing it has ("whistle", "thermostat", "app")
_PROPERTY_END = re.compile(
    r"(?:able|ible|proof|free|ready|safe|resistant|friendly|compatible|approved|certified|compliant|ed|ive|ic|"
    r"less|hardy|tight|ing|al|ous|ant|ent)$"
)
