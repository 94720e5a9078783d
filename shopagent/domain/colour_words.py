"""German and French words for common colours, as shoppers write them in a shop whose catalog speaks
English: the offline assistant reads them as colour filters, the search as the colours a query names
("rote Mütze", "sac à main noir"), where the catalog has that colour."""

from __future__ import annotations

from shopagent.domain.options import fold

# Colour words of German and French for common colour names; a shop adds or overrides them in
# [catalog.language_aliases.<lang>]. Only those whose colour the catalog has are used.
# German and French adjectives inflect ("rote", "schwarzen", "noire", "blanches"): each
# word here also matches with the usual endings.
BUILTIN_COLOR_NAMES = {
    "de": {
        "schwarz": "black", "weiss": "white", "grau": "grey", "dunkelblau": "navy", "marineblau": "navy",
        "marine": "navy", "blau": "blue", "hellblau": "blue", "rot": "red", "weinrot": "burgundy",
        "bordeaux": "burgundy", "bordeauxrot": "burgundy", "rosa": "pink", "pink": "pink", "grun": "green",
        "gruen": "green", "oliv": "olive", "olivgrun": "olive", "olivgruen": "olive", "beige": "beige",
        "braun": "brown", "camel": "camel", "kamel": "camel", "gelb": "yellow", "orange": "orange",
        "lila": "purple", "violett": "purple", "silber": "silver", "silbern": "silver", "kupfer": "copper",
        "kupfern": "copper", "gold": "gold", "golden": "gold", "creme": "cream", "cremeweiss": "cream",
    },
    "fr": {
        "noir": "black", "blanc": "white", "blanche": "white", "gris": "grey", "grise": "grey",
        "bleu marine": "navy", "marine": "navy", "bleu fonce": "navy", "bleu": "blue", "bleu clair": "blue",
        "rouge": "red", "bordeaux": "burgundy", "rose": "pink", "vert": "green", "kaki": "olive",
        "olive": "olive", "beige": "beige", "marron": "brown", "brun": "brown", "camel": "camel",
        "jaune": "yellow", "orange": "orange", "violet": "purple", "violette": "purple", "mauve": "purple",
        "argent": "silver", "argente": "silver", "cuivre": "copper", "dore": "gold",
        "creme": "cream",
    },
}  # fmt: skip
# How the built-in colours are written in a reply in that language (the names above are folded for reading).
BUILTIN_COLOR_WRITTEN = {
    "de": {
        "black": "schwarz", "white": "weiß", "grey": "grau", "navy": "marineblau", "blue": "blau", "red": "rot",
        "burgundy": "bordeaux", "pink": "rosa", "green": "grün", "olive": "oliv", "beige": "beige", "brown": "braun",
        "camel": "camel", "yellow": "gelb", "orange": "orange", "purple": "lila", "silver": "silber",
        "copper": "kupfer", "gold": "gold", "cream": "creme",
    },
    "fr": {
        "black": "noir", "white": "blanc", "grey": "gris", "navy": "bleu marine", "blue": "bleu", "red": "rouge",
        "burgundy": "bordeaux", "pink": "rose", "green": "vert", "olive": "kaki", "beige": "beige", "brown": "marron",
        "camel": "camel", "yellow": "jaune", "orange": "orange", "purple": "violet", "silver": "argent",
        "copper": "cuivre", "gold": "doré", "cream": "crème",
    },
}  # fmt: skip

# The usual endings of an inflected colour adjective, by language: "rote", "schwarzen", "grünes", "noire", "blanches".
COLOUR_ENDINGS = {"de": ("", "e", "en", "er", "es", "em"), "fr": ("", "e", "s", "es")}


def builtin_colour(word: str) -> str | None:
    """The catalog-language colour name a German or French colour word says, inflected or not ("schwarze" ->
    "black", "noires" -> "black", "grün" -> "green"); None for any other word."""
    folded = fold(word)
    for language, names in BUILTIN_COLOR_NAMES.items():
        for ending in COLOUR_ENDINGS[language]:
            base = folded[: len(folded) - len(ending)]
            if folded.endswith(ending) and base in names and (base == folded or len(base) >= 3):
                return names[base]
    return None
