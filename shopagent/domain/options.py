"""What tells a shop's variations apart beyond colour and size, and the facts shoppers compare.

- **Options**: up to three named options per product ("Valve", "Battery", "Weight"), a value per
  variation. Names and values keep the shop's spelling; they are compared folded (case and
  accents ignored), so "presta" finds "Presta".
- **Specs**: named facts, a number, a text or yes/no, per product or per variation (a
  variation's own merged over the product's). Names are folded to `snake_case`
  ("Waterproof mm" -> `waterproof_mm`); a unit may be configured per name (`[catalog] spec_units`).
- **Links**: a product's page and a variation's cart link, given by the catalog or built from
  the store's URL templates.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from urllib.parse import quote

from shopagent.domain.errors import ValidationError
from shopagent.domain.inputs import check_text

MAX_OPTIONS = 3
MAX_SPECS = 30
MAX_OPTION_CHARS = 100
MAX_SPEC_TEXT = 200
SpecValue = bool | int | float | str

# Option names that mean the first-class colour and size (which have their own fields).
COLOR_NAMES = frozenset({"color", "colour", "colors", "colours", "farbe", "couleur", "colore", "kleur", "farbton"})
SIZE_NAMES = frozenset(
    {"size", "sizes", "grosse", "groesse", "konfektionsgrosse", "schuhgrosse", "taille", "pointure", "talla",
     "taglia", "maat", "shoe size"}
)  # fmt: skip
_SPEC_NAME = re.compile(r"^[a-z][a-z0-9_]{0,59}$")


def fold(text: str) -> str:
    """Lower case without accents: what both sides of a lexical match compare."""
    if text.isascii():  # nothing to decompose, and ASCII case-folds as it lowers
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def option_folded(text: str) -> str:
    """How an option name or value is compared: folded, spaces collapsed."""
    return " ".join(fold(text).split())


def option_kind(name: str) -> str:
    """ "color", "size" or "other" for an option name as shops write it ("Farbe", "pa_size")."""
    folded = option_folded(name).removeprefix("pa_").replace("_", " ").replace("-", " ")
    if folded in COLOR_NAMES:
        return "color"
    if folded in SIZE_NAMES:
        return "size"
    return "other"


def option_names(given: Iterable[str], where: str = "options") -> tuple[str, ...]:
    """The product's option names, trimmed, distinct (folded) and at most three."""
    names: list[str] = []
    seen: set[str] = set()
    for raw in given:
        name = " ".join(check_text(raw, where).split())
        if not 1 <= len(name) <= 40:
            raise ValidationError(f"{where}: option name {raw!r} must be 1-40 characters", field="options")
        if option_kind(name) != "other":
            kind = option_kind(name)
            raise ValidationError(
                f"{where}: {name!r} is the variations' {kind}; give it in each variation's {kind} field",
                field="options",
            )
        if option_folded(name) in seen:
            raise ValidationError(f"{where}: option {name!r} is named twice", field="options")
        seen.add(option_folded(name))
        names.append(name)
    if len(names) > MAX_OPTIONS:
        raise ValidationError(
            f"{where}: at most {MAX_OPTIONS} options besides colour and size (got {', '.join(names)})", field="options"
        )
    return tuple(names)


def option_values(names: tuple[str, ...], given: Mapping[str, str], where: str) -> dict[str, str]:
    """A variation's value for each of the product's options, keyed by the product's spelling of
    the name; every option needs a value and no other name may appear."""
    by_folded = {option_folded(n): n for n in names}
    values: dict[str, str] = {}
    for raw_name, raw_value in given.items():
        name = by_folded.get(option_folded(raw_name))
        if name is None:
            known = f"the product's options are {', '.join(names)}" if names else "the product has no options"
            raise ValidationError(
                f"{where}: option {raw_name!r} is not one of its options ({known})", field="variations"
            )
        value = " ".join(check_text(raw_value, f"{where} {name}").split())
        if not 1 <= len(value) <= MAX_OPTION_CHARS:
            raise ValidationError(f"{where}: {name} must be 1-{MAX_OPTION_CHARS} characters", field="variations")
        values[name] = value
    missing = [n for n in names if n not in values]
    if missing:
        raise ValidationError(f"{where}: no value for {', '.join(missing)}", field="variations")
    return {n: values[n] for n in names}


def spec_name(raw: str) -> str:
    """`Waterproof (mm)` -> `waterproof_mm`."""
    return "_".join(re.findall(r"[a-z0-9]+", fold(raw)))


def specs(given: Mapping[str, object], where: str) -> dict[str, SpecValue]:
    """Named facts with folded names; numbers finite, texts 1-200 characters, at most 30."""
    result: dict[str, SpecValue] = {}
    if len(given) > MAX_SPECS:
        raise ValidationError(f"{where}: at most {MAX_SPECS} specs (got {len(given)})", field="specs")
    for raw, value in given.items():
        name = spec_name(check_text(raw, f"{where} name"))
        if not _SPEC_NAME.match(name):
            raise ValidationError(
                f"{where}: spec name {raw!r} must start with a letter and be at most 60 letters and digits",
                field="specs",
            )
        if name in result:
            raise ValidationError(f"{where}: spec {name!r} is given twice", field="specs")
        result[name] = _spec_value(value, f"{where} {name}")
    return result


def _spec_value(value: object, where: str) -> SpecValue:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        if abs(value) >= 10**15:
            raise ValidationError(f"{where}: {value} is out of range", field="specs")
        return value
    if isinstance(value, float | Decimal):
        number = float(value)
        if not math.isfinite(number) or abs(number) >= 1e15:
            raise ValidationError(f"{where}: {value} must be a finite number", field="specs")
        return int(number) if number.is_integer() and isinstance(value, Decimal) else number
    if isinstance(value, str):
        text = " ".join(check_text(value, where).split())
        if not 1 <= len(text) <= MAX_SPEC_TEXT:
            raise ValidationError(f"{where}: the text must be 1-{MAX_SPEC_TEXT} characters", field="specs")
        return text
    raise ValidationError(f"{where}: a spec is a number, a text or true/false", field="specs")


def spec_label(name: str, value: SpecValue, units: Mapping[str, str]) -> str:
    """How a spec reads to a shopper: `capacity 1000 ml` (unit from `units`, or the name's unit
    suffix), `dishwasher safe: yes`, and a count of things as said: `800 lumens`, `6 plants`."""
    if isinstance(value, bool):
        return f"{name.replace('_', ' ')}: {'yes' if value else 'no'}"
    words = name.split("_")
    unit = units.get(name)
    if len(words) > 1 and words[-1] in _UNIT_SUFFIXES:  # ("filter_flow_lph" with "l/h" set: "filter flow 300 l/h")
        unit = unit or _UNIT_SUFFIXES[words[-1]]
        words = words[:-1]
    shown = f"{value:g}" if isinstance(value, float) else str(value)
    if isinstance(value, int) and not unit and _plural(words[0]):
        return f"{shown} {' '.join(words)}"  # a count: "6 plants", "28 sticks per pack", "800 lumens"
    if unit == "years" and isinstance(value, float) and not value.is_integer():
        # ("age min 1.5 years (18 months)": how a part of a year is said of a child's age)
        return f"{' '.join(words)} {shown} years ({value * 12:g} months)"
    return f"{' '.join(words)} {shown}{f' {unit}' if unit else ''}"


def _plural(word: str) -> bool:
    """Whether a spec name's word reads as a plural ("plants", "sticks"; not "lens", "canvas", "series")."""
    return len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")) and word not in _NO_PLURALS


_NO_PLURALS = frozenset({"lens", "canvas", "series", "species", "news", "gas", "atlas", "chassis", "means", "abs"})


_UNIT_SUFFIXES = {
    "mm": "mm", "cm": "cm", "m": "m", "km": "km", "g": "g", "kg": "kg", "ml": "ml", "l": "l", "w": "W", "wh": "Wh",
    "mah": "mAh", "v": "V", "h": "h", "min": "min", "c": "°C", "bar": "bar", "lm": "lm", "in": "in", "gb": "GB",
    "tb": "TB", "hz": "Hz", "db": "dB", "pct": "%", "percent": "%", "years": "years", "months": "months",
    "weeks": "weeks", "days": "days", "hours": "hours", "lph": "l/h", "m2": "m²", "sqm": "m²", "m3": "m³",
}  # fmt: skip


LINK_PLACEHOLDERS = ("slug", "external_id", "variation_external_id", "sku")


@dataclass(frozen=True)
class StoreLinks:
    """Links to the shop's own pages, for products the catalog gives no URL for: the product
    page and the cart templates (placeholders {slug}, {external_id}, {variation_external_id},
    {sku}); a template whose placeholder has no value for a product gives no link."""

    product_template: str = ""
    cart_template: str = ""

    def __post_init__(self) -> None:
        templates = {"product_url_template": self.product_template, "cart_url_template": self.cart_template}
        for name, template in templates.items():
            unknown = set(re.findall(r"{([^{}]*)}", template)) - set(LINK_PLACEHOLDERS)
            if unknown:
                raise ValidationError(
                    f"store.{name}: unknown placeholder(s) {', '.join(sorted(unknown))}; "
                    f"use {', '.join('{' + f + '}' for f in LINK_PLACEHOLDERS)}"
                )

    def product_url(self, explicit: str | None, slug: str, external_id: str | None) -> str | None:
        if explicit:
            return explicit
        return _fill(self.product_template, slug=slug, external_id=external_id)

    def cart_url(
        self, explicit: str | None, slug: str, external_id: str | None, variation_id: str | None, sku: str | None
    ) -> str | None:
        if explicit:
            return explicit
        return _fill(
            self.cart_template, slug=slug, external_id=external_id, variation_external_id=variation_id, sku=sku
        )


def _fill(template: str, **values: str | None) -> str | None:
    if not template:
        return None
    needed = set(re.findall(r"{([^{}]*)}", template))
    if any(not values.get(name) for name in needed):
        return None
    return template.format(**{k: quote(v or "", safe="") for k, v in values.items()})
