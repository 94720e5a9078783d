"""Words of product text and of shoppers' queries, for the lexical (full-text) search leg.

Both sides go through `fold` (case and accents folded: "Größe" and "grosse", "été" and
"ete" are the same word), so matching does not depend on PostgreSQL's `unaccent`, which
many servers lack. Query words the catalog never uses are corrected against the catalog's
own vocabulary (`Vocabulary.correct`): names, brands, categories and materials, so a
misspelling finds the product it meant, in any trade and any language.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field

from rapidfuzz import process
from rapidfuzz.distance import OSA

from shopagent.domain.catalog import CatalogRules, ProductDraft
from shopagent.domain.errors import ValidationError

MAX_QUERY_TERMS = 32
_WORD = re.compile(r"[^\W_]+")
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


def fold(text: str) -> str:
    """Lower case without accents: what both sides of a lexical match compare."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def words(text: str) -> list[str]:
    """The folded words of a text: letters and digits only, so nothing reaches a query parser
    but plain words (no operators, quotes, NULs or lone surrogates)."""
    return _WORD.findall(fold(text))


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
        primary=" ".join(words(f"{product.name} {product.category}")),
        secondary=" ".join(words(f"{product.brand} {product.material}")),
        body=" ".join(words(f"{product.description} {colours}")),
    )


@dataclass(frozen=True)
class QueryTerms:
    terms: tuple[str, ...]  # the words to match, corrected where the catalog never uses them
    corrections: Mapping[str, str] = field(default_factory=dict)  # shopper's word -> catalog word

    def corrected_text(self, text: str) -> str:
        """`text` with each corrected word replaced (what the vector leg embeds)."""
        if not self.corrections:
            return text
        return " ".join(self.corrections.get(w, w) for w in words(text))


class Vocabulary:
    """The catalog's words: `known` (any field) and `targets` (name, category, brand,
    material), each with the number of products using it.

    A query word is corrected only when no product uses it anywhere, it is at least four
    letters long and not a number, and a target lies within one edit (two from seven letters
    on), a swap of neighbours counting as one; ties go to the more common word, and so does a
    word one edit further that is at least five times as common.
    """

    def __init__(self, known: Mapping[str, int], targets: Mapping[str, int]) -> None:
        self.known = known
        self._targets = {w: n for w, n in targets.items() if len(w) >= 3 and not w.isdigit()}
        self._choices = list(self._targets)

    def __len__(self) -> int:
        return len(self.known)

    def correct(self, word: str) -> str | None:
        if word in self.known or len(word) < 4 or any(ch.isdigit() for ch in word) or not self._choices:
            return None
        allowed = 1 if len(word) < 7 else 2
        reach = allowed + 1 if len(word) >= 6 else allowed
        found = process.extract(word, self._choices, scorer=OSA.distance, score_cutoff=reach, limit=16)
        within = [(w, d) for w, d, _ in found if d <= allowed]
        if not within:
            return None
        best, distance = min(within, key=lambda f: (f[1], -self._targets[f[0]], f[0]))
        # A much more common word one edit further is the likelier meaning ("sandles" is one
        # edit from a rare "handles", two from the category "sandals").
        common = [w for w, d, _ in found if d == distance + 1 and self._targets[w] >= 5 * self._targets[best]]
        return max(common, key=lambda w: (self._targets[w], w)) if common else best

    def names_products(self, word: str) -> bool:
        """Whether a (folded) word is one the catalog names its products with: in a name,
        category, brand or material, maybe misspelt or in the plural ("jackets", "snekers")."""
        if word in self._targets or self.correct(word) is not None:
            return True
        return any(word.endswith(end) and word[: -len(end)] in self._targets for end in _PLURALS)

    def terms(self, text: str) -> QueryTerms:
        found: dict[str, None] = {}
        corrections = {}
        for word in words(text):
            fixed = self.correct(word)
            if fixed is not None:
                corrections[word] = fixed
            found.setdefault(fixed or word, None)
            if len(found) == MAX_QUERY_TERMS:
                break
        return QueryTerms(terms=tuple(found), corrections=corrections)


_PLURALS = ("s", "es", "e", "en", "n", "er", "x")
EMPTY_VOCABULARY = Vocabulary({}, {})


def descriptive(term: str, filter_words: frozenset[str]) -> bool:
    """Whether a query term describes the item: not a number, colour or size (those are filters)."""
    return not term.isdigit() and term not in filter_words


# How shop exports commonly spell the default sizes (folded word -> size).
COMMON_SIZE_WORDS = {
    "extra small": "XS", "x-small": "XS", "xsmall": "XS", "small": "S", "medium": "M", "large": "L",
    "extra large": "XL", "x-large": "XL", "xlarge": "XL", "xx-large": "XXL", "xxlarge": "XXL", "2xl": "XXL",
    "xxx-large": "XXXL", "xxxlarge": "XXXL", "3xl": "XXXL", "one size": "ONE SIZE", "onesize": "ONE SIZE",
    "one-size": "ONE SIZE", "os": "ONE SIZE",
}  # fmt: skip


@dataclass(frozen=True)
class OptionWords:
    """The colours and sizes as shops write them in their exports ("Schwarz", "Medium"):
    the catalog's own words and aliases, then other languages' names (folded word -> colour
    or size). Only words whose colour or size the catalog has count."""

    rules: CatalogRules
    colors: Mapping[str, str] = field(default_factory=dict)
    sizes: Mapping[str, str] = field(default_factory=dict)

    def color(self, raw: str) -> str | None:
        return self.rules.color(raw) or self.rules.color(self.colors.get(fold(" ".join(raw.split())), ""))

    def size(self, raw: str) -> str | None:
        word = fold(" ".join(raw.split()))
        return self.rules.size(raw) or self.rules.size(self.sizes.get(word) or COMMON_SIZE_WORDS.get(word, ""))

    def variation(self, color: str, size: str) -> tuple[str, str]:
        """The catalog's (colour, size) for these option values, or a ValidationError with the allowed set."""
        if (known_color := self.color(color)) is None:
            shown = f"colour {color!r}" if color else "no colour"
            raise ValidationError(f"{shown} is not one of {', '.join(self.rules.colors)}")
        if (known_size := self.size(size)) is None:
            shown = f"size {size!r}" if size else "no size"
            raise ValidationError(f"{shown} is not one of {', '.join(self.rules.sizes)}")
        return known_color, known_size
