"""Words of product text and of shoppers' queries, for the lexical (full-text) search leg.

Both sides go through `fold` (case and accents folded: "Größe" and "grosse", "été" and
"ete" are the same word), so matching does not depend on PostgreSQL's `unaccent`, which
many servers lack. How a query's words are corrected and rewritten against the catalog's own
words is `shopagent.domain.vocabulary`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from shopagent.domain.catalog import CatalogRules, ProductDraft, variation_facts
from shopagent.domain.errors import ValidationError
from shopagent.domain.options import fold

MAX_QUERY_TERMS = 32
_WORD = re.compile(r"[^\W_]+")
# A number, maybe with a unit of weight, length or volume: 7kg, 28cm, 2l, 500ml (not 4k, 64gb).
_MEASURE = re.compile(r"\d+(?:mg|g|kg|lbs?|oz|mm|cm|m|km|in|ft|ml|cl|l)?")
# The store language (BCP 47 primary subtag) -> PostgreSQL's snowball configuration.
TEXT_SEARCH_CONFIGS = {
    "ar": "arabic",
    "ca": "catalan",
    "da": "danish",
    "de": "german",
    "el": "greek",
    "en": "english",
    "es": "spanish",
    "eu": "basque",
    "fi": "finnish",
    "fr": "french",
    "ga": "irish",
    "hi": "hindi",
    "hu": "hungarian",
    "hy": "armenian",
    "id": "indonesian",
    "it": "italian",
    "lt": "lithuanian",
    "nb": "norwegian",
    "ne": "nepali",
    "nl": "dutch",
    "nn": "norwegian",
    "no": "norwegian",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "sr": "serbian",
    "sv": "swedish",
    "ta": "tamil",
    "tr": "turkish",
    "yi": "yiddish",
}


def text_search_config_for(language: str) -> str:
    """The full-text configuration for a store language; `simple` (no stemming) when unknown."""
    return TEXT_SEARCH_CONFIGS.get(language.split("-")[0].casefold(), "simple")


def words(text: str) -> list[str]:
    """The folded words of a text: letters and digits only, so nothing reaches a query parser
    but plain words (no operators, quotes, NULs or lone surrogates)."""
    return _WORD.findall(fold(text))


# A lone letter joined to a word by a hyphen: "T-Shirt", "E-reader", "U-lock", "V-neck".
_LETTER_COMPOUND = re.compile(r"(?<![^\W_])([^\W\d_])-([^\W\d_]{2,})(?![^\W_])")


def letter_compounds(text: str) -> list[str]:
    """The text's words of a lone letter and a word ("T-Shirt" -> "tshirt"), folded and joined:
    as `words` parts them, the letter says nothing (full-text search drops it) and "t-shirt"
    would match any shirt. A product's text is indexed with these too, so "t shirt", "t-shirt"
    and "tshirt" all find the T-shirts and not a dress shirt."""
    return [a + b for a, b in _LETTER_COMPOUND.findall(fold(text))]


def with_compounds(text: str) -> str:
    """`text` with its `letter_compounds` after it."""
    return " ".join([text, *letter_compounds(text)])


@dataclass(frozen=True)
class LexicalFields:
    """A product's text by weight: name and category first, then brand and material, then the
    description with the colours it comes in (so "black boots" prefers boots that come in black)."""

    primary: str
    secondary: str
    body: str


def lexical_fields(product: ProductDraft) -> LexicalFields:
    colours = " ".join(dict.fromkeys(v.color for v in product.variations))
    return LexicalFields(
        primary=" ".join(words(with_compounds(f"{product.name} {product.category}"))),
        secondary=" ".join(words(with_compounds(f"{product.brand} {product.material}"))),
        body=" ".join(words(with_compounds(f"{product.description} {colours} {variation_facts(product)}"))),
    )


@dataclass(frozen=True)
class QueryTerms:
    terms: tuple[str, ...]  # the words to match: corrected, and with the shop's synonyms applied
    corrections: Mapping[str, str] = field(default_factory=dict)  # shopper's word or phrase -> what was searched
    rewritten: tuple[str, ...] = ()  # the query's words as searched (what the vector leg embeds)
    typo_fixes: Mapping[str, str] = field(default_factory=dict)  # the corrections that were misspellings
    added: tuple[str, ...] = ()  # words of what answers a trouble the query tells of (domain.needs), at the end
    said: int | None = None  # how many of `terms` are the shopper's, before those added (None: all)

    def corrected_text(self, text: str) -> str:
        """`text` with each corrected word and synonym replaced, and the words added for a trouble
        after it (what the vector leg embeds)."""
        if not self.corrections and not self.added:
            return text
        return " ".join(self.rewritten)


class CatalogWords(NamedTuple):
    """The indexed products' words, each with the number of products using it: `known` (any
    field), `titles` (names, categories, brands, materials); `products`, how many are indexed;
    and `phrases`, those of the phrases asked about that some product's name or category has,
    word after word (a "Memory Card" and a "Streaming Stick" do not make "memory stick" one);
    `kinds`, the words the products' names and categories name their kinds of thing with ("knife"
    of "Classic Chef's Knife 20 cm", "food" of "Dog food"): `query_words.name_head` and
    `category_heads`."""

    known: dict[str, int]
    titles: dict[str, int]
    products: int
    phrases: frozenset[str] = frozenset()
    kinds: frozenset[str] = frozenset()
    category_words: frozenset[str] = frozenset()  # every word of the categories ("dog" of "Dog food" too)


def descriptive(term: str, filter_words: frozenset[str]) -> bool:
    """Whether a query term describes the item: not a number or a measure ("7kg", "28cm"), colour
    or size (those are filters)."""
    return not _MEASURE.fullmatch(term) and term not in filter_words


# How shop exports commonly spell the default sizes (folded word -> size).
COMMON_SIZE_WORDS = {
    "extra small": "XS", "x-small": "XS", "xsmall": "XS", "small": "S", "medium": "M", "large": "L",
    "extra large": "XL", "x-large": "XL", "xlarge": "XL", "xx-large": "XXL", "xxlarge": "XXL", "2xl": "XXL",
    "xxx-large": "XXXL", "xxxlarge": "XXXL", "3xl": "XXXL", "one size": "ONE SIZE", "onesize": "ONE SIZE",
    "one-size": "ONE SIZE", "os": "ONE SIZE",
}  # fmt: skip


@dataclass(frozen=True)
class OptionWords:
    """The colours and sizes as shops write them in their exports ("Schwarz", "Medium"): the
    catalog's rules with every language's names for them (`CatalogRules.with_words`) and the
    common spellings of the default sizes. Only words whose colour or size the catalog has count."""

    rules: CatalogRules

    @classmethod
    def create(cls, rules: CatalogRules, colors: Mapping[str, str], sizes: Mapping[str, str]) -> OptionWords:
        return cls(rules.with_words(colors, {**COMMON_SIZE_WORDS, **sizes}))

    def color(self, raw: str) -> str | None:
        return self.rules.color(raw)

    def size(self, raw: str) -> str | None:
        return self.rules.size(raw)

    def variation(self, color: str, size: str) -> tuple[str, str]:
        """The catalog's (colour, size) for these option values ("" for none), or a ValidationError
        with the allowed set."""
        known_color = self.color(color) if color.strip() else ""
        if known_color is None:
            raise ValidationError(f"colour {color!r} is not one of {', '.join(self.rules.colors)}")
        known_size = self.size(size) if size.strip() else ""
        if known_size is None:
            raise ValidationError(f"size {size!r} is not one of {', '.join(self.rules.sizes)}")
        return known_color, known_size
