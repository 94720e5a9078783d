"""Amounts with a unit in a text ("2TB", "65 W", "20000mAh", "1 litre", "24 cm"), to tell a product
whose name states another amount of what a shopper asked for ("2tb hard drive" against a
"Portable Hard Drive 4TB").

Only units that measure one thing count, each turned into a base unit (litres into millilitres,
terabytes into gigabytes, ...), so "1l" and "1000 ml" are the same amount. Inches count only
written as "inch" or '"' ("2 in 1" is no length).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from shopagent.domain.options import fold

# unit as written -> (base unit, factor)
_UNITS: Mapping[str, tuple[str, float]] = {
    "tb": ("gb", 1000.0), "gb": ("gb", 1.0), "mah": ("mah", 1.0), "wh": ("wh", 1.0), "w": ("w", 1.0),
    "v": ("v", 1.0), "mm": ("mm", 1.0), "cm": ("mm", 10.0), "m": ("mm", 1000.0), "ml": ("ml", 1.0),
    "cl": ("ml", 10.0), "l": ("ml", 1000.0), "litre": ("ml", 1000.0), "litres": ("ml", 1000.0),
    "liter": ("ml", 1000.0), "liters": ("ml", 1000.0), "g": ("g", 1.0), "kg": ("g", 1000.0),
    "inch": ("in", 1.0), "inches": ("in", 1.0), '"': ("in", 1.0), "hz": ("hz", 1.0), "lm": ("lm", 1.0),
    # how many pieces: a puzzle of "48 pieces" is none of "100 pieces", a "1000-piece" one none of "500 Teile"
    "pieces": ("pcs", 1.0), "piece": ("pcs", 1.0), "pcs": ("pcs", 1.0), "stück": ("pcs", 1.0),
    "stueck": ("pcs", 1.0), "stk": ("pcs", 1.0), "pièces": ("pcs", 1.0), "pièce": ("pcs", 1.0),
    "teile": ("pcs", 1.0), "teilig": ("pcs", 1.0),
}  # fmt: skip
_AMOUNT = re.compile(
    r"(?<![\w.,])(\d+(?:[.,]\d+)?)[\s-]?("
    + "|".join(sorted(map(re.escape, _UNITS), key=len, reverse=True))
    + r")(?!\w)",
    re.IGNORECASE,
)


def a_unit(word: str) -> bool:
    """Whether a (folded) word is a unit an amount is stated in ("cm", "pieces", "teile", "stuck")."""
    return word in _FOLDED_UNITS


_FOLDED_UNITS = frozenset(fold(unit) for unit in _UNITS)
_SAME = 0.03  # amounts within 3 % are the same ("1TB" and "1000GB", "2 l" and "2,0 l")


# A weight a shopper allows at most ("a tent under 1.5 kg", "max 800 g", "unter 1,5 kg", "moins de 2 kilos",
# "1kg max"), on folded text
_LESS = (
    r"under|below|less than|lighter than|no more than|not more than|at most|up to|max(?:imum)?|within|"
    r"unter|weniger als|leichter als|hochstens|hoechstens|maximal|bis(?: zu)?|"
    r"moins de|plus leger que|au maximum|au max|maxi(?:mum)?|pas plus de|jusqu'a|sous"
)
_WEIGHT_UNITS = {"kg": 1000.0, "kilo": 1000.0, "kilos": 1000.0, "g": 1.0, "gram": 1.0, "grams": 1.0,
                 "gramm": 1.0, "gramme": 1.0, "grammes": 1.0}  # fmt: skip
_WEIGHT = r"(\d+(?:[.,]\d+)?)\s?(kg|kilos?|grams?|gramm|grammes?|g)(?!\w)"
_WEIGHT_CEILING = re.compile(
    rf"\b(?:{_LESS})\s+(?:(?:about|around|ca\.?|etwa|environ)\s+)?{_WEIGHT}"
    rf"|(?<![\w.,]){_WEIGHT}\s*(?:max(?:imum)?|maxi|or less|at most|oder weniger|hochstens|au maximum|ou moins)\b"
)


def weight_ceiling(folded: str) -> float | None:
    """The most a shopper's (folded) words allow a thing to weigh, in grams ("a tent under 1.5 kg": 1500),
    or None where they state no such bound ("a 2 kg bag of compost" is a size, not a bound)."""
    found = _WEIGHT_CEILING.search(folded)
    if found is None:
        return None
    number, unit = (found.group(1), found.group(2)) if found.group(1) else (found.group(3), found.group(4))
    return float(number.replace(",", ".")) * _WEIGHT_UNITS[unit]


def amounts(text: str) -> dict[str, frozenset[float]]:
    """The amounts `text` states, by base unit."""
    found: dict[str, set[float]] = {}
    for number, unit in _AMOUNT.findall(text):
        base, factor = _UNITS[unit.lower()]
        found.setdefault(base, set()).add(float(number.replace(",", ".")) * factor)
    return {unit: frozenset(values) for unit, values in found.items()}


def other_amount(
    asked: Mapping[str, frozenset[float]], stated: Mapping[str, frozenset[float]], near: float = _SAME
) -> bool:
    """Whether a text stating `stated` names, in a unit the shopper asked an amount of, only
    other amounts than the one asked ("4TB" for "2tb"); a text stating none of that unit does not.
    `near`: how far apart (a share of the larger) two amounts may be and still be the same."""
    return any(
        unit in stated and not any(_same(a, s, near) for a in wanted for s in stated[unit])
        for unit, wanted in asked.items()
    )


def _same(a: float, b: float, near: float = _SAME) -> bool:
    return abs(a - b) <= near * max(abs(a), abs(b))
