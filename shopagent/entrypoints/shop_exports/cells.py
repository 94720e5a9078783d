"""Reading the cells of a shop export: option names, HTML descriptions, numbers; and slugs."""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal, InvalidOperation
from html.parser import HTMLParser

from shopagent.domain.options import COLOR_NAMES, SIZE_NAMES, fold

MATERIAL_OPTIONS = frozenset({"material", "materiau", "matiere", "materiale"})
BRAND_OPTIONS = frozenset({"brand", "marke", "marque", "hersteller"})


def option_kind(name: str) -> str:
    """ "size", "color", "material", "brand" or "other" for an option/attribute name."""
    folded = fold(" ".join(name.split()))
    folded = folded.removeprefix("pa_").replace("_", " ").replace("-", " ")
    for kind, names in (("size", SIZE_NAMES), ("color", COLOR_NAMES), ("material", MATERIAL_OPTIONS),
                        ("brand", BRAND_OPTIONS)):  # fmt: skip
        if folded in names:
            return kind
    return "other"


_METAFIELD = re.compile(
    r"^(?:.*\()?(?P<owner>product|variant)\.metafields\.(?P<namespace>[^.]+)\.(?P<key>[^.\s)]+)\)?$"
    r"|^metafield: (?P<namespace2>[^.]+)\.(?P<key2>[^\s\[]+)"
)


def metafield(column: str) -> tuple[str, str] | None:
    """("product" | "variant", key) for a Shopify metafield column: `Lumens (product.metafields.custom.lumens)`,
    `product.metafields.custom.lumens`, `Metafield: custom.lumens [number_integer]`; None for other columns
    and for the shop system's own namespaces (Google Shopping, Shopify's category taxonomy)."""
    found = _METAFIELD.match(column)
    if found is None:
        return None
    namespace = found["namespace"] or found["namespace2"]
    if namespace.startswith(("mm-google-shopping", "shopify", "google")):
        return None
    return found["owner"] or "product", found["key"] or found["key2"]


def spec_value(text: str) -> object:
    """A spec cell as a number, yes/no or the text: "800" -> 800, "2.5" -> 2.5, "true" -> True."""
    cleaned = text.strip()
    if cleaned.casefold() in ("true", "yes"):
        return True
    if cleaned.casefold() in ("false", "no"):
        return False
    if re.fullmatch(r"-?\d{1,15}", cleaned):
        return int(cleaned)
    if re.fullmatch(r"-?\d{1,15}\.\d+", cleaned):
        return float(cleaned)
    return cleaned


def is_number(text: str) -> bool:
    try:
        Decimal(text)
    except InvalidOperation:
        return False
    return True


_TRANSLITERATE = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "æ": "ae", "ø": "o", "œ": "oe"})


def slugify(text: str) -> str:
    """A catalog slug for a name: "Größe-Tabelle Ärmel" -> "groesse-tabelle-aermel"."""
    decomposed = unicodedata.normalize("NFKD", text.casefold().translate(_TRANSLITERATE))
    ascii_text = "".join(ch for ch in decomposed if not unicodedata.combining(ch)).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text).strip("-")[:120].rstrip("-")


class _TextOfHtml(HTMLParser):
    BLOCKS = frozenset({"p", "div", "br", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "table",
                        "section", "article", "blockquote", "hr", "dd", "dt"})  # fmt: skip
    HIDDEN = frozenset({"script", "style", "template", "head"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.HIDDEN:
            self.hidden += 1
        elif tag in self.BLOCKS:
            self.parts.append("\n- " if tag == "li" else "\n")
        elif tag in ("td", "th"):
            self.parts.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.HIDDEN:
            self.hidden = max(self.hidden - 1, 0)
        elif tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)


def html_to_text(html: str) -> str:
    """The text of an HTML description: tags dropped, entities read, one line per block."""
    if "<" not in html and "&" not in html:
        return " ".join(html.split())
    parser = _TextOfHtml()
    parser.feed(html)
    parser.close()
    lines = (" ".join(line.split()) for line in "".join(parser.parts).splitlines())
    return "\n".join(line for line in lines if line and line != "-")
