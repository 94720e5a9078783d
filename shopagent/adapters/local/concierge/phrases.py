"""How shoppers say things, in English, German and French: the patterns the concierge reads.

Every pattern works on folded text (lower case, accents removed: "Größe" reads "grosse",
"été" reads "ete"), so "groesse", "größe" and "GRÖSSE" all match. The patterns are about
the *shape* of a request (stock, sizes, follow-ups, small talk; prices are read with
`shopagent.domain.price_words`, which the search shares), never about what a shop sells: what counts
as a product comes from the catalog itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from shopagent.domain.colour_words import BUILTIN_COLOR_NAMES as BUILTIN_COLOR_NAMES
from shopagent.domain.colour_words import BUILTIN_COLOR_WRITTEN as BUILTIN_COLOR_WRITTEN

# -- stock, sizes -----------------------------------------------------------------------

# A shade asked for rather than a colour ("in a lighter colour", "gern was Helles", "une couleur
# claire", "something dark", "bright colours"): the shop's colours of that shade. "light", "pale"
# and "bright" only beside a word for colour ("a light jacket" is light to carry, "a bright torch"
# gives much light); German "hell" only inflected ("helles", "eine helle Jacke").
COLOUR_SHADE = re.compile(
    r"\b(?:(?P<light>light(?:er)?|pale(?:r)?|pastel|soft|neutral)|(?P<dark>dark(?:er)?|deep(?:er)?)|"
    r"(?P<bright>bright(?:er)?|vivid|bold|loud))[\s-]+(?:colou?r(?:s|ed)?|shades?|tones?)\b"
    r"|\b(?P<dark_one>dark(?:er)?)\s+(?:ones?|something)\b|\bsomething\s+(?P<dark_thing>dark(?:er)?)\b"
    r"|\b(?P<pastel>pastels?|pastell(?:farben|t(?:o|oe)ne)?)\b|\b(?P<colourful>colou?rful)\b"
    r"|\b(?P<hell>helle[snmr]?|hellere[snmr]?|heller)\b|\b(?P<dunkel>dunkel|dunkle[snmr]?|dunklere[snmr]?|dunkler)\b"
    r"|\b(?P<bunt>bunte?[snmr]?|knallige?[snmr]?)\b"
    r"|\b(?:couleurs?\s+)?(?P<clair>(?:plus\s+)?claire?s?)\b|\b(?P<fonce>(?:plus\s+)?foncee?s?|sombres?)\b"
    r"|\b(?P<vif>couleurs?\s+vives?|colorees?|colores?)\b"
)
# Colours of each shade, as shops name them (a colour named with "light"/"pale" or "dark"/"deep" is
# of that shade whatever its name); a shop whose colours are none of these gets no shade.
COLOUR_SHADES = {
    "light": frozenset({
        "white", "off white", "off-white", "cream", "ivory", "ecru", "beige", "sand", "stone", "natural", "oatmeal",
        "nude", "yellow", "lemon", "pink", "blush", "rose", "light blue", "sky blue", "baby blue", "light grey",
        "light gray", "mint", "lilac", "lavender", "peach", "apricot", "champagne", "pastel", "silver", "transparent",
        "clear",
    }),
    "dark": frozenset({
        "black", "navy", "charcoal", "anthracite", "dark grey", "dark gray", "graphite", "space grey", "dark green",
        "forest green", "bottle green", "burgundy", "bordeaux", "wine", "maroon", "brown", "dark brown", "chocolate",
        "espresso", "midnight", "midnight blue", "indigo", "plum", "aubergine", "oxblood",
    }),
    "bright": frozenset({
        "red", "yellow", "orange", "pink", "fuchsia", "magenta", "lime", "turquoise", "coral", "cobalt",
        "royal blue", "hot pink", "neon", "green", "purple",
    }),
}  # fmt: skip
SHADE_OF_MATCH = {
    "light": "light", "pastel": "light", "hell": "light", "clair": "light",
    "dark": "dark", "dark_one": "dark", "dark_thing": "dark", "dunkel": "dark", "fonce": "dark",
    "bright": "bright", "colourful": "bright", "bunt": "bright", "vif": "bright",
}  # fmt: skip


# Colours of each colour's family, as shops name them ("the blue one" of a navy sweater and a grey one)
COLOUR_FAMILIES = {
    "blue": frozenset({"navy", "midnight", "midnight blue", "indigo", "cobalt", "royal blue", "sky blue", "light blue",
                       "baby blue", "denim", "teal", "turquoise", "petrol", "steel blue"}),
    "red": frozenset({"burgundy", "bordeaux", "wine", "maroon", "crimson", "cherry", "oxblood", "rust", "coral"}),
    "green": frozenset({"olive", "khaki", "sage", "mint", "forest green", "bottle green", "dark green", "lime",
                        "emerald", "moss"}),
    "grey": frozenset({"charcoal", "anthracite", "graphite", "slate", "silver", "space grey", "light grey",
                       "dark grey", "stone"}),
    "brown": frozenset({"tan", "camel", "chocolate", "cognac", "espresso", "chestnut", "taupe", "mocha", "walnut"}),
    "pink": frozenset({"rose", "blush", "fuchsia", "magenta", "hot pink", "salmon", "dusty pink"}),
    "purple": frozenset({"lilac", "lavender", "plum", "aubergine", "violet", "mauve"}),
    "white": frozenset({"cream", "ivory", "off white", "off-white", "ecru", "snow"}),
    "yellow": frozenset({"mustard", "lemon", "ochre", "gold"}),
    "orange": frozenset({"rust", "apricot", "peach", "terracotta", "amber"}),
    "beige": frozenset({"sand", "stone", "oatmeal", "natural", "camel", "nude", "ecru"}),
}  # fmt: skip
COLOUR_FAMILIES["gray"] = COLOUR_FAMILIES["grey"]


def colours_of_family(colour: str, colours: Iterable[str]) -> list[str]:
    """The shop's colours of a colour's family ("blue": navy, cobalt, … of those it has)."""
    family = COLOUR_FAMILIES.get(colour, frozenset())
    return [c for c in colours if c in family or (c.split()[-1] == colour and c != colour)]


def colours_of_shade(shade: str, colours: Iterable[str]) -> list[str]:
    """The shop's colours of a shade ("light": white, beige, yellow, pink, … of those it has)."""
    marks = {"light": ("light", "pale", "pastel"), "dark": ("dark", "deep")}.get(shade, ())
    return [c for c in colours if c in COLOUR_SHADES[shade] or c.split()[0] in marks]


IN_STOCK = re.compile(
    r"\b(?:in[ -]stock|(?:available|in stock) (?:now|right now|today)|available|ready to ship|on hand|"
    r"(?:any|some|still|ones?|pairs?) left(?![ -]?hand)|noch (?:welche )?(?:da|(?:u|ue)brig)|il en reste|en reste-t-il|"
    # ("il reste du L ?"; not "il reste chaud ?", whether it stays warm)
    r"il reste (?=(?:du|des|encore)\b)|"
    r"auf lager|lagernd|sofort lieferbar|lieferbar|verf(?:u|ue)gbar\w*|vorr(?:a|ae)tig\w*|"
    r"en stock|disponibles?|dispo|en magasin)\b"
)
# ("il taille grand", "ça taille petit": how it fits, the verb, not a size asked)
SIZE_WORDS = (
    r"(?:eu\s+)?sizes?|eu|gr(?:o|oe)ss?en?|gr\.?|(?<!il )(?<!elle )(?<!ca )(?<!\u00e7a )(?<!on )taille|tailles|"
    r"pointures?|in gr(?:o|oe)sse"
)
# Words for letter sizes; those "alone" are read anywhere, the "cued" ones only after a word
# for size ("size large", "in small"), as "a small speaker" describes the speaker.
SIZE_NAMES_ALONE = {
    "extra small": "XS", "x-small": "XS", "xsmall": "XS", "medium": "M", "extra large": "XL", "x-large": "XL",
    "xlarge": "XL", "xx-large": "XXL", "xxlarge": "XXL", "2xl": "XXL", "3xl": "XXXL", "4xl": "XXXXL", "2xs": "XXS",
    "mittel": "M", "moyen": "M",
    "moyenne": "M",
}  # fmt: skip
SIZE_NAMES_CUED = {"small": "S", "large": "L", "klein": "S", "gross": "L", "petit": "S", "petite": "S",
                   "grand": "L", "grande": "L"}  # fmt: skip
SIZE_LISTS = r"\s*(?:,|/|or|and|oder|und|ou|et)\s*"
SIZE_PREPOSITIONS = r"in|an?|en|du|im|auf"  # "in 42", "an XL", "en 38", "je fais du 42"

# -- follow-ups -------------------------------------------------------------------------

# The opening of a question put right after what it asks of, without a pause: "(the copper tape) how long is the
# roll", "(the sharpener) is it electric", "(die Dosen) sind die luftdicht", "(la casserole) elle fait quel diamètre"
ASKED_RIGHT_AFTER = (
    r"(?:(?:how|what|whats|which|wie|was|welche[rsnm]?|quel(?:le)?s?|combien)\s+[^\W\d_]"
    r"|(?:is|are|does|do|has|have|can|could|will|would|ist|sind|hat|haben|kann|passt|est-ce|il|elle|ils|elles)\s+"
    r"(?:it|they|that|this|these|those|i|you|we|es|sie|die|der|das|er|man|ich|en|fait|est|sont|va|vont|taille|"
    r"tient)\b)"
)
# "the cheaper one, does it have hdmi?", "la moins chère, elle est longue comment ?", "der günstigere":
# one of the products shown, by its price (a definite article, one thing); "a cheaper one", "anything
# cheaper?" and "the cheaper ones" ask for other products.
PRICED_ONE = re.compile(
    r"\b(?:the|die|das|der|den|dem|le|la|les|l')\s*(?:"
    # ("die günstigeren" are cheaper ones asked for; "den billigsten" is the one)
    r"(?P<cheap>cheap(?:er|est)|less expensive|least expensive|g(?:u|ue)nstigere?[rsm]?|g(?:u|ue)nstigste[rsmn]?|"
    r"billigere?[rsm]?|billigste[rsmn]?|moins chere?s?)|"
    r"(?P<dear>dearer|dearest|pricier|priciest|more expensive|most expensive|teurere?[rsm]?|teuerste[rsmn]?|"
    r"plus chere?s?))"
    # then "one", a pause or the end, or what is said of it ("…, does it", "is", "hat der"); never a
    # noun ("the cheapest cat food", "the cheaper options" ask for products)
    r"(?=\s*(?:(?:one|model|version|modell|variante|pair)\b|[,?!.;:]|$|"
    r"(?:is|has|does|do|will|would|can|could|ist|hat|kann|est|a|fait|elle|il|der|die|das|please|pls|bitte|svp|"
    r"nehme?|nimm|s'il|costs?|weighs?|kostet|kosten|wiegt|coute|coutent|vaut|pese|mesure)\b)"
    # or a thing shown, then what is asked of it: "the cheaper knife what steel is it", "the cheaper coat, whats
    # it made of", "whats the cheaper scratcher made of", "I'll take the cheaper puzzle. is it in stock?" (its
    # noun in `kind`)
    r"|\s+(?P<kind>[^\W\d_]{3,})(?=\s*(?:[,:;.?!]|\s-\s)\s*\S|\s+(?:made (?:of|from)\b|" + ASKED_RIGHT_AFTER + r")))"
)
# What a thing is sold in: "a bigger bag?" asks a size of food sold by the bag
CONTAINERS = frozenset(
    re.findall(
        r"\S+",
        "bag pack packet set tin bottle box tub can jar roll sack beutel packung dose flasche sachet paquet boite "
        "bouteille",
    )
)
# "the bigger one", "a smaller one?", "the longest", "in a larger size", "die größere", "la plus grande":
# a size of the product talked about (or of those shown), by how big it is; never a noun after ("a
# bigger bag", "a larger dog": things asked for or told of)
SIZED_ONE = re.compile(
    r"(?:^|\b(?:the|a|an|any|die|das|der|den|dem|ein|eine|einen|einer|einem|le|la|l'|un|une|in|en|im|avez|auriez|"
    r"as)\s+)(?:"
    r"(?P<big>bigger|biggest|larger|largest|longer|longest|taller|tallest|wider|widest|"
    r"gr(?:o|oe)ssere?[rsmn]?|gr(?:o|oe)sste[rsmn]?|l(?:a|ae)ngere?[rsmn]?|l(?:a|ae)ngste[rsmn]?|"
    r"plus (?:grande?|longue?)s?)|"
    r"(?P<small>smaller|smallest|shorter|shortest|kleinere?[rsmn]?|kleinste[rsmn]?|k(?:u|ue)rzere?[rsmn]?|"
    r"k(?:u|ue)rzeste[rsmn]?|plus (?:petite?|courte?)s?))"
    r"(?=\s*(?:(?:one|size|version|model|pair|groesse|gr(?:o|oe)sse|taille|modell|variante|format|"
    # ... or what it comes in, "a bigger bag?", "die größere Packung" (the planner checks the product does)
    + "|".join(sorted(CONTAINERS))
    + r")\b|"
    r"[,?!.;:]|$|(?:is|has|does|do|will|would|can|could|ist|hat|kann|est|a|fait|elle|il)\b))"
    # ... or, after "the", a thing closing the message: "how much is the longer cable?", "was kostet das längere
    # Kabel" (the planner checks a list had one; "bigger bags" asks for bags)
    r"|\b(?:the|das|der|die|den|dem|le|la|les)\s+(?:(?P<big_thing>longer|longest|bigger|biggest|larger|largest|"
    r"l(?:a|ae)ngere?[rsmn]?|l(?:a|ae)ngste[rsmn]?|gr(?:o|oe)ssere?[rsmn]?|gr(?:o|oe)sste[rsmn]?)|"
    r"(?P<small_thing>shorter|shortest|smaller|smallest|k(?:u|ue)rzere?[rsmn]?|k(?:u|ue)rzeste[rsmn]?|"
    r"kleinere?[rsmn]?|kleinste[rsmn]?))(?=\s+[^\W\d_]+\s*(?:[,?!.;:]|$))"
)
# the superlative of those ("the biggest", "die kleinste", "la plus grande"): the end of the range
SIZED_MOST = re.compile(r"(?:est|ste[rsmn]?)$")
# "which is the cheaper one?": the question compares them, it points at none
PRICE_COMPARED = re.compile(r"\b(?:which|welche[rsn]?|lequel|laquelle|lesquel(?:le)?s)\b")
WHICH_PRICED = re.compile(
    r"\b(?:which|welche[rsn]?|lequel|laquelle)(?:\s+(?:one|ones|of them|of these|of those|of the two|davon|"
    r"von (?:den )?beiden|des deux|d'entre eux))?\s+(?:is|'s|are|ist|sind|est|costs?|kostet)\s+"
    r"(?:the\s+|le\s+|la\s+|am\s+|der\s+|die\s+|das\s+)?"
    r"(?:cheaper|less expensive|more affordable|dearer|pricier|more expensive|g(?:u|ue)nstiger|billiger|teurer|"
    r"g(?:u|ue)nstigsten?|billigsten?|teuersten?|moins chere?|plus chere?)\b|"
    # "le moins cher, c'est lequel ?", "the cheapest - which one is it?", "der günstigste, welcher ist das?"
    r"\b(?:the|le|la|les|der|die|das)\s+(?:cheapest|dearest|priciest|most expensive|least expensive|"
    r"(?:moins|plus) chere?s?|g(?:u|ue)nstigste[rsn]?|billigste[rsn]?|teuerste[rsn]?)\b[^?.!]*?"
    r"\b(?:which|lequel|laquelle|lesquel(?:le)?s|welche[rsn]?)\b"
)
CHEAPER = re.compile(
    r"\b(?:cheaper|less expensive|more affordable|lower price[sd]?|too expensive|too pricey|too much|"
    r"g(?:u|ue)nstiger\w*|billiger\w*|preiswerter\w*|zu teuer|weniger teuer\w*|"
    r"moins cher(?:e|s|es)?|meilleur marche|trop cher(?:e|s|es)?|plus abordables?)\b"
)
PRICIER = re.compile(
    # ("something more premium", "premium ones?"; not "the premium hose", a product called so)
    r"\b(?:more expensive|pricier|higher[- ]end|(?:more|something|anything) premium|premium (?:ones?|options?|"
    r"versions?|range|quality)|better quality|fancier|"
    r"teurer\w*|hochwertiger\w*|plus cher(?:e|s|es)?|haut de gamme|de meilleure qualite)\b"
)
# ("more like this one?"; not "in some shops it is like this", "I'd like this one in red": a liking or a state)
_NOT_SIMILAR_BEFORE = "".join(rf"(?<!\b{w} )" for w in (
    "is", "was", "are", "were", "it's", "that's", "i'd", "we'd", "would", "i", "we", "they", "you", "really", "do",
    "looks", "look", "seems", "sounds", "feels",
))  # fmt: skip
SIMILAR = re.compile(
    rf"\b(?:similar|something like (?:that|this|it)|{_NOT_SIMILAR_BEFORE}like (?:that|this)(?: one)?|alike|"
    r"(?:a|ae)hnlich\w*|vergleichbar\w*|so (?:etwas|was) wie|"
    r"similaires?|du meme genre|dans le meme style|pareil\w*|comme (?:celui|celle)(?:-ci|-la)?)\b"
)
MORE = re.compile(
    r"\b(?:anything else|something else|other (?:ones|options|models|choices)|others|more options|"
    r"show me more|what else|any more|more of (?:these|them)|"
    r"noch (?:was|etwas|mehr|andere\w*)|andere\w*|weitere\w*|sonst noch\w*|mehr davon|"
    # "encore" is "more" ("encore des modèles ?"), not "still" ("il est encore en stock ?")
    r"autre chose|d'autres|autres?|(?<!est )(?<!sont )(?<!existe )(?<!existent )encore(?! (?:en stock|dispo)))\b"
)
DETAILS = re.compile(
    r"\b(?:tell me (?:more )?about|more (?:about|on|info(?:rmation)? (?:about|on)|details (?:about|on|of))|"
    r"details? (?:about|on|of|for)|describe|info(?:rmation)?s? (?:about|on)|what is the|"
    r"erz(?:a|ae)hl\w* (?:mir )?(?:mehr )?(?:uber|ueber|von)|mehr (?:uber|ueber|zu|zum|zur|infos? zu)|"
    r"details? zu(?:m|r)?|infos? zu(?:m|r)?|was ist mit|wie ist|"
    r"plus de (?:details|infos?|informations) sur|parle[sz]?[- ]moi (?:de|du|des)|dis[- ]m'en plus(?: sur)?|"
    r"en savoir plus(?: sur)?|details sur|c'est quoi|qu'en est-il (?:de|du))\b"
)
# Only which product that was ("what was the first one you showed me again?", "was war nochmal das erste?",
# "c'était quoi déjà le premier ?"): it is described again, as "tell me about the first one" has it.
RECALL = re.compile(
    r"\b(?:(?:that |which |what |den |die |das |que )?(?:you|u|du|tu|vous) (?:mir |m'|m')?"
    r"(?:showed|show(?:n)?|have shown|had shown|mentioned|suggested|recommended|listed|gezeigt|"
    r"(?:as |avez )?montr(?:e|ee|es|ees))(?: (?:me|us|hast|habt|haben))?|"
    r"(?:what|which) (?:was|were)|was war(?:en)?|c'etait (?:quoi|lequel|laquelle)|"
    r"remind me(?: of| about| what| which)?)\b"
)
AGAIN = re.compile(r"\b(?:nochmal|noch mal|deja|again|once more)\b")  # said with RECALL: no word of the thing
# "le chargeur sans fil que tu as montré", "den Sie mir gezeigt haben": said of a thing shown before, no words of it
# ("montré" folds to "montre", a watch)
SHOWN_SAID = re.compile(
    r"\b(?:que|qu')\s*(?:vous|tu)\s+(?:m'\s*|me\s+)?(?:avez|as)\s+(?:montr|propos|conseill|present)\w*|"
    r"\b(?:den|die|das|welche[nsr]?)\s+(?:sie|du|ihr)\s+(?:mir\s+)?(?:gezeigt|empfohlen|vorgeschlagen)\s+(?:haben|hast|habt)\b"
)
# ("et la verte ?" asks about the green one; "et est-ce qu'elle tient sous la pluie ?", "et il pèse combien ?" ask
# something of it, as "and is it …?" does)
ABOUT = re.compile(
    r"\b(?:what about|how about|and what about|und was ist mit|et (?:pour|avec))\b"
    r"|^\s*et\b(?!\s+(?:est-ce|est|il|elle|ils|elles|c'est|ca|on|vous|tu|je|j'|qu'))"
)
COMPARE = re.compile(
    r"\b(?:compare|comparison|difference between|differences?|dif+e?r[ae]nces?|which (?:one )?is better|which should i|"
    r"vs\.?|versus|vergleich\w*|unterschied\w*|welche[rs]? (?:ist|davon ist) besser|was ist besser|"
    r"compar\w*|difference entre|lequel est (?:mieux|meilleur)|laquelle est (?:mieux|meilleure))"
)
_ORDINAL_WORDS = {
    1: r"(?<!it )(?<!them )first|1st|erste[nrsm]?|premiere?s?|1ers?|1eres?",  # not "soak it first"
    2: r"second|2nd|zweite[nrsm]?|deuxiemes?|secondes?|2e|2emes?",
    3: r"third|3rd|dritte[nrsm]?|troisiemes?|3e|3emes?",
    4: r"fourth|4th|vierte[nrsm]?|quatriemes?|4e|4emes?",
    5: r"fifth|5th|f(?:u|ue)nfte[nrsm]?|cinquiemes?|5e|5emes?",
    -1: r"last|letzte[nrsm]?|dernieres?|derniers",
}
ORDINALS = [(index, re.compile(rf"\b(?:{words})\b")) for index, words in _ORDINAL_WORDS.items()]
NUMBERED = re.compile(r"(?:\b(?:number|no\.?|nr\.?|nummer|numero|n°)\s*|#)([1-9])\b|\b([1-9])(?:st|nd|rd|th)? one\b")
# "the other one", "die andere", "l'autre": of two shown, the one not talked about last
OTHER_ONE = re.compile(
    r"\b(?:the other one|(?:the other|die andere|der andere|das andere|den anderen|l'autre|l autre)"
    r"(?=\s*(?:[,?!.;:]|$)))"
)
# "and the second?", "und die zweite?", "et l'autre ?": nothing asked but which one, after a question
BARE_POINTER = re.compile(
    r"\W*(?:(?:and|what about|how about|und|et|ok|so)\W+)?(?:(?:the|die|der|das|den|le|la|l')\s*)?"
    r"(?:other(?: one)?|andere[nr]?|autre|(?:first|second|third|fourth|fifth|last|erste[nrs]?|zweite[nrs]?|"
    r"dritte[nrs]?|letzte[nrs]?|premiere?|deuxieme|troisieme|derniere?)(?:\s+(?:one|eins))?)\W*"
)
# "whats the difference between 1 and 3", "compare 2 and 4", "1 vs 3": two positions, where a
# comparison is asked (not "between 1 and 3 years old", "2 and 4 kg").
PAIR_NUMBERED = re.compile(
    r"\b([1-9])(?:st|nd|rd|th|e|er|re)?\s*(?:and|&|und|et|or|oder|ou|vs\.?|versus|with|mit|avec|to)\s*"
    r"(?:the\s+|der\s+|die\s+|das\s+|den\s+|le\s+|la\s+|no\.?\s*|#)?"
    r"([1-9])(?:st|nd|rd|th|e|er|re)?\b(?!\s*(?:[%€$£]|years?|yrs?|jahre?n?|ans?|months?|mois|monate?n?|weeks?|"
    r"wochen|kg|g|cm|mm|m|l|ml|euros?|eur|pounds?|lbs?)\b)"
)
# "the second one", "number 2 please", "die zweite?", "le deuxième": clearly pointing at a position.
POINTER_AFTER = re.compile(r"\s*(?:one|ones|item|product|pair|eins|artikel|produkt|modell|article|produit|modele)\b")
POINTER_BEFORE = re.compile(r"\b(?:the|die|der|das|den|dem|le|la|les|l')\s*$")
# "the first and the last please", "die letzte bitte": a courtesy word after it, not a noun it describes
COURTESY_AFTER = re.compile(r"\s*(?:please|pls|plz|thanks|bitte|danke|svp|stp|s'il (?:vous|te) pla[iî]t|merci)\b")
LEADING_ARTICLE = re.compile(r"\W*(?:(?:and|und|et|ok|okay)\W+)?(?:the|die|der|das|den|dem|le|la|les|l')\s*")
# An amount right before "both" ("max 40 euro both", "30 for both", "unter 50 € für beide"): a budget for the two
PRICED_FOR_BOTH = re.compile(
    r"\d(?:[.,]\d+)?\s*(?:€|eur|euros?|\$|£|dollars?|pounds?|quid|bucks)?\s*(?:for|f(?:u|ü|ue)r|pour)?\s*(?:the\s*)?$",
    re.IGNORECASE,
)
BOTH = re.compile(
    r"\b(?:(?:the )?(?:first|top) two|both(?: of them)?|the two|die ersten (?:beiden|zwei|2)|beide[n]?|"
    r"les deux(?: premier(?:e)?s)?)\b"
)

# -- small talk -----------------------------------------------------------------------

GREETING = re.compile(
    r"\b(?:hi|hello|hey|hiya|howdy|good (?:morning|afternoon|evening|day)|hallo|guten (?:tag|morgen|abend)|"
    r"servus|moin|gruss gott|gruezi|bonjour|bonsoir|salut|coucou)\b"
)
THANKS = re.compile(
    r"\b(?:thanks?(?: a lot| so much)?|thank you(?: very much| so much)?|thx|ty|cheers|much appreciated|"
    r"danke(?: schon| schoen| sehr)?|vielen dank|merci(?: beaucoup| bien)?)\b"
)
BYE = re.compile(
    r"\b(?:bye(?: bye)?|goodbye|see you|see ya|that'?s all|that is all|nothing else|have a nice day|"
    r"tsch(?:u|ue)ss|auf wiedersehen|ciao|bis bald|das war'?s|das wars|schonen tag|"
    r"au revoir|a bientot|bonne (?:journee|soiree)|c'est tout)\b"
)
IDENTITY = re.compile(
    r"\b(?:who are you|what are you|are you (?:a |an )?(?:bot|robot|human|real person|ai)|what can you do|"
    r"wer bist du|was bist du|bist du ein (?:bot|mensch|roboter)|was kannst du|"
    r"qui es[- ]tu|qui etes[- ]vous|tu es un robot|que (?:peux|sais)[- ]tu faire)\b"
)
OFF_TOPIC = re.compile(
    # (not the weather a thing is for: "something cool for hot weather", "bei nassem Wetter")
    r"\b(?:(?<!hot )(?<!cold )(?<!warm )(?<!wet )(?<!rainy )(?<!windy )(?<!snowy )(?<!icy )(?<!bad )(?<!all )"
    r"(?<!any )(?<!dry )(?<!summer )(?<!winter )(?<!heissem )(?<!kaltem )(?<!nassem )(?<!schlechtem )"
    r"(?<!jedem )(?<!heisses )(?<!kaltes )(?<!nasses )(?:weather|wetter)|forecast|wettervorhersage|meteo|"
    r"temps qu'il fait|"
    r"politic\w*|election\w*|president|government|regierung|wahlen|politique|"
    r"news|nachrichten|actualites|homework|hausaufgabe\w*|devoirs?|essay|aufsatz|"
    r"python|javascript|java|coding|programm\w*|script|sql|html|"
    r"joke|witz|blague|poem|gedicht|poeme|capital of|hauptstadt|capitale|who won|fussball|football match|"
    r"stock market|bitcoin|crypto\w*|aktien|bourse|meaning of life|sinn des lebens|sens de la vie|"
    r"(?:what is|what's|was ist|combien (?:font|fait)|calculate|rechne)\s+\d+\s*[-+*/x]\s*\d+)"
)
COURTESY = re.compile(
    r"\b(?:ok(?:ay)?|great|perfect|super|cool|nice|awesome|lovely|brilliant|toll|prima|klasse|perfekt|"
    r"parfait|genial|tres bien|d'accord|alright|all right|good|gut|bien|sehr gut)\b"
)

# -- words that say how, not what ----------------------------------------------------

# "die … als", "den … in", "das … mit": a pronoun for what was shown, then how it is sold
_OF_THOSE = r"(?! (?:die|den|das|sie|es|ihn)(?: (?:auch|denn|noch|eigentlich))? (?:als|in|im|mit|ohne|aus|einzeln)\b)"
REQUEST_FILLERS = re.compile(
    r"\b(?:i'?m looking for|i am looking for|looking for|"
    r"do (?:you|u|ya) (?:also |even |still |by any chance )?(?:have|sell|carry|stock)|have (?:you|u) (?:also )?got|"
    # not "i want to use them for meal prep", "i need to wash it": what they will do with it
    r"got any|show me|can you show me|(?:i want|i'?d like|i would like|i need)(?! to (?!buy|get|find|order|try|see))|"
    r"can you find|could you find|"
    r"find me|can i get|search for|i'?m after|any chance of|what do you have|"
    r"if possible|if you can|wenn m(?:o|oe)glich|si possible|"
    r"vous vendez|vendez-vous|verkauft ihr|verkaufen sie|do you do|"
    r"ich suche|suche|ich brauche|brauche|ich h(?:a|ae)tte gerne?|ich m(?:o|oe)chte|"
    # (not "gibt es die als Set?", "habt ihr die als Pflanzen?": of those shown, how they are sold)
    rf"habt ihr{_OF_THOSE}|haben sie{_OF_THOSE}|gibt es{_OF_THOSE}|zeig mir|zeigen sie mir|ich will|hast du{_OF_THOSE}|"
    r"je cherche|je recherche|je voudrais|je veux(?! pas)|avez-vous|avez vous|vous avez|il me faut|"
    r"montrez-moi|montre-moi|auriez-vous|est-ce que vous avez|j'aimerais|j'ai besoin d(?:e|')?)"
)
HOW_MUCH = re.compile(r"^\W*(?:how (?:much|many|long|often)|wie (?:viele?|lange|oft)|combien)\b")  # not a request
# Compared case-folded but with accents kept, so the French "thé" is not the English "the".
_STOPWORDS = """
    a an the and or but of for to in on at with by from it its them they these those this that one ones some
    any me my i you your we us our please pls plz just only also too very really maybe perhaps show see find
    get give want need like would could can do does did have has had got is are was were be there what which
    how about else more other ok okay yes no not so then now here well also something anything stuff thing
    things item items product products kind sort type pair pairs please them those im id ill ive youre dont
    u ur ya if possible actually whats thats theres somethin smth sth lol oh ooh hmm um uh erm pls thx hes shes its
    theyre wanna
    gonna gotta kinda sorta bit lot lots much many quite rather still again der die das den dem des ein eine
    einen einem einer eines und oder aber mit ohne für fuer von vom zu zum zur im in an auf bei es sie ihr
    ich du wir mir mich dir uns euch bitte auch noch nur mal gerne gern habt haben hast hat gibt gibts
    welche welcher welches was wie ist sind sein seid diese dieser dieses da dann so ja nein nicht kein
    keine keinen etwas denn doch schon sowas sachen sache modell modelle ding dinge davon dazu damit welchen
    als wenn weil dass sondern sowie bzw beim ans aufs ums über übers ueber uebers durch gegen um seit nach vor
    hinter neben zwischen mein meine meinen meinem meiner meines dein deine deinen deinem deiner seine seinen
    seinem seiner ihre ihren ihrem ihrer unser unsere unseren unserem unserer euer eure
    mon ma mes tes ses notre nos votre vos leur leurs
    hier dort jetzt darf ruhig eher halt eben vielleicht wirklich sehr ganz eigentlich le la les l un une des du de d
    et ou mais avec sans pour par à a au aux en dans sur il elle ils elles je j tu vous nous me m moi te toi
    ce c cet cette ces ça ca cela ceci celui celle ceux qui que qu quoi quel quelle quels quelles est sont
    avez avoir ai as y s plait svp aussi encore seulement juste bien oui non ne n pas plus moins chose quelque quelques
    choses truc trucs modèle modèles article articles alors voilà bcp stp euro euros eur également egalement
    faut nehm nehme nehmen should shall him her his hers who whom whose into onto nothing yet been being
    weiss weiß weisst weißt wissen
    budget insgesamt gesamtbudget
"""
STOPWORDS = frozenset(_STOPWORDS.split())
# Small words of German or French that are English things: "hat" (German "has"), "plus" (French "more").
_HAT_IS_A_THING = re.compile(r"^\W*hat\W*$|(?<!^)\bhat\b")  # a lone "hat", or one not opening a question
_PLUS_SIZE = re.compile(r"\bplus[ -]size")
_NON_PREFIX = re.compile(r"\bnon[ -](?=[^\W\d_])")
_POUR_OVER = re.compile(r"\bpour[ -]?over\b")


def stopwords_of(message: str) -> frozenset[str]:
    """The small words of a message: `STOPWORDS`, less "hat", "plus" and "non" where they are English
    things (by the message's `LANGUAGE_CUES`): "a warm hat for winter" and "sun hat" ask for a hat,
    "die Jacke hat eine Kapuze?" and "hat sie Taschen?" say what one has; "plus size dress" asks for
    a size, "des chaussures plus confortables" and "plus chaude ?" for more comfort and warmth; "non stick
    frying pan" for a non-stick one, "non merci" says no; "pour over coffee" for a pour-over dripper."""
    said = message.lower()
    cued = {language for language, cue in LANGUAGE_CUES.items() if cue.search(said)}
    english = "en" in cued
    things = set()
    if "hat" in said and ((english and "de" not in cued) or (not cued and _HAT_IS_A_THING.search(said.strip()))):
        things.add("hat")
    if _PLUS_SIZE.search(said) or (english and "fr" not in cued):
        things.add("plus")
    if _NON_PREFIX.search(said) and "fr" not in cued:  # "non stick frying pan", "non slip mat": a property
        things.add("non")
    if _POUR_OVER.search(said):  # "pour over coffee", "a pour-over dripper": a way of making coffee
        things.add("pour")
    if _YEARS_OLD.search(said):  # "ma fille de 7 ans": a child's age (German "ans" is "an das")
        things.add("ans")
    return STOPWORDS - things


_YEARS_OLD = re.compile(r"\d\s*ans\b")


# Words after these are what the customer does NOT want ("not so chunky", "ohne Absatz").
# Not the words of a property said with a "no" ("sans fil": wireless, "sans céréales": grain free, "pas cher":
# cheap, "ohne Kabel": cordless), which the shop's and the built-in word lists read, nor a thing named by what it
# prevents ("a no pull harness", "no show socks", "a no spill bowl", "no iron shirts", "no dig beds").
# Said right before a colour, that colour is not wanted: "not grey", "he hates grey", "anything but black", "any
# colour except red", "nicht in grau", "kein Schwarz", "pas en gris", "sauf le noir" (folded text, up to the colour)
# "cheapest jacket you have", "your most expensive headphones", "der günstigste Rasenmäher": the kind asked for,
# cheapest (dearest) first, from the whole shop
PRICE_ORDER = re.compile(
    r"\b(?:(?P<cheap>cheapest|least expensive|lowest[- ]priced|g(?:u|ue)nstigste[nrsm]?|billigste[nrsm]?)|"
    r"(?P<dear>most expensive|priciest|dearest|teuerste[nrsm]?))\b(?=\s+[^\W\d_])"
)
# "cheap tshirts", "a budget kettle", "günstiger Wasserkocher", "une poêle pas chère": the fitting ones by price
BUDGET = re.compile(
    r"\b(?:cheap|budget|affordable|inexpensive|low[- ]cost|g(?:u|ue)nstige[nrsm]?|g(?:u|ue)nstig|billige[nrsm]?|"
    r"billig|pas chere?s?|bon marche|petit prix)\b"
)
COLOUR_TURNED = re.compile(
    r"\b(?:going|goes|gone|went|turning|turns|turned|turn|getting|gets|got|go|become|becomes|becoming|"
    r"wird|werden|geworden|devient|deviennent|devenu\w*|vire\w*|tourne\w*) +(?:all +|really +|very +|a bit +)?$"
)
# "black spots on the leaves", "yellow leaves", "schwarze Flecken", "taches noires", "feuilles jaunes": the colour of a
# trouble told, not one asked for (after the colour in English and German, before it in French)
COLOUR_OF_A_MARK = re.compile(
    r"^[a-z]{0,3} +(?:spots?|marks?|stains?|patches|patch|leaves|leaf|tips|edges|mou?ld|fungus|streaks?|"
    r"flecken|fleck|blatter|blattern|blatt|spitzen|schimmel|streifen)\b"
)
COLOUR_OF_A_MARK_BEFORE = re.compile(r"\b(?:taches?|feuilles?|bouts?|moisissures?|marques?) +$")
# "weiß ich nicht", "ich weiß es nicht", "wer weiß": German's "know", written as its white
KNOWN_NOT_WHITE = re.compile(r"(?:\b(?:ich|er|sie|man|wer|du|nicht)\s+)$|^\s+(?:ich|er|sie|man|nicht|es|das|du)\b")
COLOUR_NOT_WANTED = re.compile(
    r"\b(?:(?:he|she|they|i|we|er|sie|il|elle|je) +)?(?:not|no|never|(?:anything|everything|any colou?rs?) but|except|"
    r"apart from|other than|rather than|"
    r"hates?|dislikes?|(?:do|does)(?: not|n'?t) (?:like|want)|nicht|keine?[nms]?|ausser|bloss nicht|pas|sans|sauf|"
    r"deteste?)(?: +(?:in|en|the|any|so|le|la|les|du|de|mehr|more|too))? *$"
)
NEGATED = re.compile(
    r"\b(?:not so|not too|not|without|no|nothing|nicht so|nicht zu|nicht|ohne|kein\w*|pas trop|pas si|pas|sans)"
    r"\s+(?!(?:fil|cereales|gluten|bpa|kabel|cher|chere|chers|cheres|pull|show|spill|slip|iron|drip|dig|tangle)\b)"
    r"((?:[^\W\d_]+[ -]?){1,2})"
)
# What the shopper is past ("done with the balance bike", "she's outgrown her balance bike") or has already ("she has a
# balance bike now"): the words before the last say what is not wanted; the last, the kind, is still asked for (a
# bike). One word alone ("outgrown her scooter") is left as it is: the kind asked for, bigger.
OUTGROWN = re.compile(
    r"\b(?:(?:done|finished) with|outgrown|outgrew|(?:grown|grew) out of|(?:moving|moved) on from|"
    r"too (?:big|old) for|"
    # what they have already: "she has a balance bike now", "he already has a kids bike"
    r"(?:already|currently) (?:has|have|owns?|rides?|uses?|got)|"
    r"(?P<now>has|have|owns?|rides?|has got|have got))"
    r"(?:\s+(?:the|his|her|their|its|my|our|a|an|ein|eine|einen|un|une))?"
    r"\s+(?P<said>(?:[^\W\d_]+[ -])?(?P<last>[^\W\d_]+))"
    r"(?(now)(?=\s+(?:now|already|at the moment)\b))"
)
# Measures that are no size of this shop ("springform 26 cm"): not words that describe the item.
MEASURE = re.compile(r"\b\d+(?:[.,]\d+)?\s*(?:cm|mm|ml|cl|l|liter|litre|liters|litres|zoll|inch(?:es)?)\b")
# A follow-up that adds a detail to the last request: "in leather?", "aus Leder?", "with a hood".
# Who or what the thing is for, described after a list was shown ("she's a small dog, shih tzu",
# "XL, he's huge", "er ist groß, ca. 40 kg", "elle est très poilue", "my dog is a labrador",
# "i have a dog so nothing poisonous please"):
# more about the last request, not a new one.
DESCRIBES = re.compile(
    r"(?:^|[,.;:!]\s*|\b(?:and|but|und|aber|et|mais)\s+)"
    r"(?:(?:she|he|it|they)\s*(?:'s|'re|\s+is|\s+are|\s+has|\s+was)|(?:my|our)\s+[^\W\d_]+\s*(?:'s|\s+is)|"
    r"(?:i|we)\s*(?:\s+have|'ve got|\s+got)\s+(?:an?|two|2|three|3|some)\s|"
    r"(?:ich habe|wir haben|j'ai|nous avons)\s+(?:einen?|un|une|deux|2)\s|"
    r"(?:sie|er|es)\s+(?:ist|hat|war)|(?:mein|meine|unser|unsere)\s+[^\W\d_]+\s+ist|"
    r"(?:elle|il)\s+(?:est|a|fait)|c'est\s+pour|(?:mon|ma|notre)\s+[^\W\d_]+\s+(?:est|a|fait))\b"
)
ATTRIBUTE_LEAD = re.compile(r"^\s*(?:and\s+|und\s+|et\s+)?(?:in|aus|en|with|mit|avec|made of|for|fur|pour)\b")

# The built-in German and French colour words (with their inflected forms matched by the reading) and how each
# colour is written in a reply: shopagent.domain.colour_words (BUILTIN_COLOR_NAMES, BUILTIN_COLOR_WRITTEN).
BUILTIN_SIZE_NAMES = {
    "de": {
        "einheitsgrosse": "ONE SIZE", "einheitsgroesse": "ONE SIZE", "onesize": "ONE SIZE",
        **{f"{n}er-set": f"SET OF {n}" for n in range(2, 13)}, **{f"{n}er set": f"SET OF {n}" for n in range(2, 13)},
        **{f"set mit {n}": f"SET OF {n}" for n in range(2, 13)},
    },
    "fr": {
        "taille unique": "ONE SIZE",
        **{f"lot de {n}": f"SET OF {n}" for n in range(2, 13)}, **{f"set de {n}": f"SET OF {n}" for n in range(2, 13)},
    },
}  # fmt: skip
# Words only a message in that language has (articles, pronouns, common verbs and prepositions),
# matched in lower case with accents kept.
LANGUAGE_CUES = {
    "de": re.compile(
        r"\b(?:der|das|dem|des|ein|eine|einen|einem|und|oder|mit|ohne|für|fuer|von|ich|du|ist|sind|"
        r"nicht|gibt|habt|haben|hast|auch|noch|welche|welcher|bitte|gern|gerne|suche|brauche|möchte|moechte|"
        r"auf|bei|zum|zur|vom|wie|sie|es|ihr|euch|diese|dieser|welches)\b"
    ),
    "en": re.compile(
        r"\b(?:the|for|with|and|or|my|your|of|to|is|are|it|they|them|do|does|you|have|has|i|i'd|i'm|"
        r"looking|need|want|any|some|this|that|those|these|what|which|how|please|from|at|by)\b"
    ),
    "fr": re.compile(
        r"\b(?:le|la|les|un|une|des|du|de|et|ou|avec|sans|pour|par|en|dans|sur|est|sont|je|vous|tu|il|"
        r"elle|ils|elles|ce|cette|ces|qui|que|pas|au|aux|à|avez|existe|existent|cherche|voudrais|merci|"
        r"moins|taille|pointure)\b|\b(?:l|j|qu|d)'(?=\w)"
    ),
}

# -- questions about a product shown ---------------------------------------------------

# Words a question implies that its answer uses ("how long does the battery last" -> hours):
# added to the question's words when the description's sentences are ranked against it.
QUESTION_IMPLIES = {
    # the German and French words for what goes in the oven, microwave, freezer, on induction
    "backofen": "oven", "ofenfest": "oven", "mikrowelle": "microwave", "gefrierfach": "freezer",
    "induktion": "induction", "congelateur": "freezer", "ovenproof": "oven",
    "last": "hours battery", "long": "hours battery length", "far": "range km miles", "range": "km miles",
    "battery": "hours charge charging", "charge": "hours charging battery", "charging": "hours charge",
    "waterproof": "ipx4 ipx5 ipx7 ip54 ip65 ip67 ip68 water splash rain splashproof",
    "water": "ipx4 ipx5 ipx7 ip54 ip65 ip67 ip68 waterproof splash", "rain": "waterproof ipx4 ipx5 splash",
    "fold": "folds folding foldable flat", "box": "included comes", "included": "box comes",
    "include": "box comes included",
    "work": "works compatible", "compatible": "works", "android": "ios", "iphone": "ios",
    "subscription": "monthly", "warranty": "guarantee years", "big": "size cm mm dimensions",
    "fit": "fits size slim snug narrow loose relaxed tight",
    "wash": "washable machine", "material": "made", "bright": "lumens lumen lm",
    "brightness": "lumens lumen lm", "hold": "capacity volume litres liters ml", "volume": "capacity litres ml",
    "cups": "capacity ml", "powerful": "power watts", "power": "watts", "warm": "comfort temperature",
    "dishwasher": "safe hand wash rinse detergent", "heavy": "weight", "old": "age aged",
    "akku": "stunden laden akkulaufzeit", "wasserdicht": "ipx4 ipx7 ip67 wasser", "steuern": "app",
    "batterie": "heures autonomie charge", "autonomie": "heures batterie", "etanche": "ipx4 ipx7 ip67 eau",
    # what things are made of, how big, how loud, how to clean them, what comes with them
    "made": "material", "fabric": "material", "materials": "material", "dimensions": "cm mm size",
    "measurements": "cm mm size dimensions", "measure": "cm mm size", "wide": "cm width", "width": "cm wide",
    "tall": "cm height high", "height": "cm tall high", "deep": "cm depth", "length": "cm long",
    "loud": "db noise quiet watts sound loudest", "noisy": "db noise quiet", "noise": "db quiet loud",
    "quiet": "db noise silent", "clean": "wash washable dishwasher wipe", "slip": "grip non-slip",
    "grip": "slip non-slip", "charger": "charging cable adapter included", "cable": "included charging",
    "puppy": "months puppies", "kitten": "months kittens", "age": "months years",
    "sole": "rubber grip outsole", "heel": "cm", "blade": "cm steel", "capacity": "litres ml cups",
    # when to sow or use it ("sowing period"), what it is made of or covered with, how it goes together
    "when": "period season month months", "wann": "period season month months",
    "quand": "period season month months", "composition": "material made", "covered": "material",
    "zusammensetzung": "material", "woraus": "material", "monter": "assembly assemble",
    "montage": "assembly assemble", "aufbauen": "assembly assemble", "zusammenbauen": "assembly assemble",
    "aufbau": "assembly assemble", "assemble": "assembly", "diameter": "cm size", "durchmesser": "cm size",
    "diametre": "cm size",
    # how many in a pack or set: a spec of pairs, pieces or a count ("pairs: 2" of socks in a two-pack)
    "pack": "pairs pieces count pcs items", "packet": "seeds pieces count", "set": "pieces pairs count pcs items",
    "pieces": "pieces count pcs", "teile": "pieces count pcs", "stuck": "pieces count pcs",
    "lot": "pieces pairs count pcs", "paires": "pairs", "paare": "pairs",
    # German: the words of questions about a product, in the catalog's English
    "stoff": "material fabric", "gross": "size cm dimensions", "grosse": "size cm dimensions",
    "masse": "cm size dimensions", "breit": "cm width", "hoch": "cm height", "lang": "cm length long",
    "misst": "cm length size dimensions", "mesure": "cm length size dimensions",
    "mesurent": "cm length size dimensions",
    "waschbar": "washable wash", "waschen": "wash washable", "spulmaschine": "dishwasher hand wash rinse",
    "spulmaschinenfest": "dishwasher safe hand wash rinse", "laut": "loud db noise", "lautstarke": "loud db",
    "leise": "quiet db noise", "ladekabel": "charging cable charger", "netzteil": "adapter charger power",
    "dabei": "included box comes", "enthalten": "included box comes", "lieferumfang": "included box comes",
    "garantie": "warranty guarantee years", "alter": "age months years", "welpe": "puppy", "welpen": "puppy",
    "reinigen": "clean wash", "sauber": "clean wash", "rutschfest": "non-slip grip", "sohle": "sole",
    "knickfest": "kink anti-kink kinking kinks", "knickfrei": "kink anti-kink kinking kinks",
    "kratzfest": "scratch scratch-resistant scratches", "bruchsicher": "shatterproof shatter break unbreakable",
    "hitzebestandig": "heat heat-resistant oven temperature", "frostfest": "frost frost-resistant frost-proof",
    "frostsicher": "frost frost-resistant frost-proof", "winterhart": "hardy frost",
    "absatz": "heel", "klinge": "blade", "griff": "handle", "deckel": "lid", "kabel": "cable",
    "bildschirm": "screen display", "offnen": "open opening", "oben": "top", "staub": "dust", "gehause": "case mm",
    "handgelenk": "wrist strap mm", "passt": "fits compatible", "kompatibel": "compatible works",
    # French
    "matiere": "material made", "materiau": "material made", "taille": "size cm", "grand": "size cm",
    "poids": "weight", "lavable": "washable wash", "lave": "dishwasher wash hand rinse",
    "vaisselle": "dishwasher hand wash rinse detergent",
    "bruit": "noise db loud", "bruyant": "loud noise db", "silencieux": "quiet noise db",
    "chargeur": "charger charging", "inclus": "included box comes",
    "fourni": "included box comes", "livre": "included comes", "chiot": "puppy", "chaton": "kitten",
    "nettoyer": "clean wash", "antiderapant": "non-slip grip", "antiderapante": "non-slip grip",
    "rusticite": "hardy frost", "rustique": "hardy frost", "gel": "frost", "rayures": "scratch scratches",
    "semelle": "sole outsole rubber", "talon": "heel cm", "lame": "blade", "poignee": "handle",
    "couvercle": "lid", "ecran": "screen display", "inox": "stainless steel", "tasses": "cups",
    "joint": "seal gasket", "joints": "seal gasket", "centimetres": "cm",
    # getting wet, a first-timer, parts that can be changed
    "wet": "waterproof water rain splash quick-drying ipx4 ipx5 ipx7", "nass": "waterproof water quick-drying",
    "beginner": "beginners easy simple starter complete everything", "anfanger": "beginners easy starter complete",
    "einsteiger": "beginners easy starter complete", "debutant": "beginners easy starter complete",
    # what a device plugs into or is played on
    "ps5": "console controller playstation", "ps4": "console controller playstation",
    "playstation": "console controller", "xbox": "console controller", "console": "controller",
    "usb": "port ports input inputs connection", "hdmi": "port ports input inputs connection",
    "displayport": "port ports input inputs connection", "thunderbolt": "port ports connection",
    "ports": "usb hdmi displayport input inputs", "plug": "port ports cable connect",
    # whether it is safe for a child or a pet
    "safe": "toxic poison poisonous chemical chemicals untreated pesticides",
    "toxic": "poison poisonous chemical chemicals untreated pesticides",
    "poisonous": "toxic poison chemical chemicals untreated pesticides",
    "swappable": "quick-release spare replaceable interchangeable",
    "replaceable": "spare quick-release interchangeable", "interchangeable": "spare quick-release replaceable",
    # whom it is safe for, as a text says it ("children and pets can use the lawn straight after feeding")
    "kids": "children child", "kid": "children child", "toddler": "children child", "toddlers": "children child",
    "kinder": "children child", "enfants": "children child", "dogs": "pets pet", "dog": "pets pet",
    "cats": "pets pet", "cat": "pets pet", "hund": "pets pet dog", "hunde": "pets pet dogs", "katze": "pets pet cat",
    "chien": "pets pet dog", "chiens": "pets pet dogs", "chat": "pets pet cat",
    # when it flowers ("flowering: June-August")
    "flower": "flowering flowers", "flowers": "flowering", "bloom": "flowering flowers", "blooms": "flowering",
    "fleurit": "flowering flowers", "fleurissent": "flowering flowers", "floraison": "flowering",
    "bluht": "flowering flowers", "bluhen": "flowering flowers", "blute": "flowering flowers",
}  # fmt: skip
# Properties a product has or has not ("is the filter loud?", "is it dishwasher safe?"): a
# sentence about the thing asked of ("an internal filter of 300 l/h") answers the question only
# when it names the property or a word it implies; otherwise the data does not tell.
PROPERTIES = (
    "loud noisy quiet noise silent waterproof dishwasher washable dusty dust slip bright brightness warranty "
    "subscription foldable oven ovenproof microwave freezer induction "
    "laut leise lautstarke wasserdicht spulmaschinenfest spulmaschine staub rutschfest garantie backofen "
    "ofenfest mikrowelle gefrierfach induktion "
    "bruyant silencieux bruit etanche antiderapant antiderapante lavable vaisselle congelateur"
)
# A question, by its first words ("is the second one waterproof", "kann man den …", "est-ce que …").
QUESTION = re.compile(
    r"(?:^|[,;:.!?\u2013\u2014]|\s-\s)\W*(?:(?:ok(?:ay)?|and|also|so|hm+|but|und|et|alors|dann|also|mais|aus|von|mit|fur|de|"
    r"en|avec|pour)"
    r"\W+)*"
    r"(?:is|are|does|do|did|can|could|will|would|has|have|how|what|whats|which|where|why|when|"
    r"ist|sind|hat|haben|kann|k(?:o|oe)nnen|wie(?:viele?)?|welche[rsnm]?|was|wo|warum|wann|passt|passen|gibt|geht|"
    r"est-ce|est ce|combien|quel(?:le)?s?|lequel|laquelle|peut|peux|peut-on|comment|quand|fait|a-t-il|y a-t-il|"
    r"marche|fonctionne|va|ca|c'est|gibts)\b"
    # a German question puts its verb first, then who or what it asks of: "brauchen die eine Bridge",
    # "gehen die direkt übers WLAN", "braucht man", "muss ich" (not "brauche was Schickes": a request)
    r"|(?:^|[,;:.!?]|\b(?:oder|und)\b)\W*(?:brauche?(?=\s+ich\b)|brauch(?:en|t)|geh(?:en|t)|funktionier(?:en|t)|halt(?:en)?|h(?:a|ae)lt|"
    r"taug(?:en|t)|muss|m(?:u|ue)ssen|soll(?:en)?|komm(?:en|t)|l(?:a|ae)sst|lassen|l(?:a|ae)uft|laufen|wird|werden|"
    r"darf|d(?:u|ue)rfen|reicht|reichen|kostet|kosten|unterst(?:u|ue)tz(?:en|t)|biete[nt]?|schaff(?:en|t)|"
    r"eigne[nt]|besitz(?:en|t)|verf(?:u|ue)g(?:en|t)|l(?:a|ae)d(?:en|t)|brauch(?:en|t))"
    r"\s+(?:ich|man|die|der|das|sie|er|es|den|dem|diese[rsnm]?|ihr|du)\b"
    # "le sac fait combien de kilos ?", "das wiegt wie viel?": asking how much, wherever it stands
    r"|\b(?:combien|wie ?viele?)\b"
    # "the steel one is it dishwasher safe", "the red ones are they waterproof": a question after the
    # one it is asked of, without a pause
    r"|\b(?:one|ones)\s+(?:is|are|does|do|has|have|can|will|would)\s+(?:it|they|that|this)\b"
    r"|\b(?:one|ones)\s+(?:how|what|whats)\b"  # "the mini one how many shelves"
    # "the copper tape how long is the roll", "the sharpener is it electric", "die Dosen sind die luftdicht":
    # a question opening on what it asks of, without a pause
    r"|^\W*(?:(?:ok(?:ay)?|and|so|also|und|et|alors)\s+)*(?:the|that|those|these|this|die|der|das|den|le|la|les|l')\s*"
    r"(?:[^\W\d_]+\s+){1,4}?" + ASKED_RIGHT_AFTER +
    # "any grain in them", "any plastic in it?": asked of them, not a request for more ("any leads in
    # these colours?", "any puppy food in that brand" ask for more)
    r"|\bany\s+\w+(?:\s+\w+)?\s+in\s+(?:it|them)\b(?!\s*\w)"
    # "any of those in that colour", "any of them in XL": asked of those shown, without a question mark
    r"|\bany of (?:those|them|these)\s+(?:in|come in|available in)\b"
)
# The shopper wants to buy what was shown: a link to the basket answers it.
BUY = re.compile(
    r"\b(?:i(?:'|\u2019| wi)?ll (?:take|go (?:with|for)|order)|i want to (?:buy|order)|(?:how|where) (?:can|do) i "
    r"(?:buy|order|get)|"
    # "ok the mower then", "right, the first bench then": chosen
    r"^\W*(?:ok|okay|right|alright|fine)\W+(?:the|that) (?:[^\W\d_]+ ){0,2}[^\W\d_]+ then\W*$|"
    r"add (?:it|this|that|them|the \w+(?: one)?) to (?:my |the )?(?:basket|cart)|(?:buy|order) (?:it|this|that)|"
    # "add it", "add the second one", "ok add both", "i'll have that one", "put it in my basket"
    r"(?:^|[,.;:!-]\s*|\b(?:ok|okay|so|then|please|pls|and)\s+)"
    r"add (?:it|this|that|them|those|these|both|the|number|no\.?)\b|"
    r"i'?ll have (?:it|this|that|them|those|these|both|the)\b|put (?:it|this|that|them) in (?:my|the) (?:basket|cart)|"
    r"je prends (?:celle|celui|ceux|celles|le|la|les)\b|"
    # the whole message: "add", "ok take it", "i'll get that one", "both please", "den nehme ich", "nehme beides"
    r"^\W*(?:(?:ok|okay|yes|great|perfect|fine|alright|cool|super|gut|prima|parfait|d'accord)\W+)*(?:"
    r"add(?: (?:it|this|that|them|both|this one|that one))?(?: to (?:my |the )?(?:basket|cart|bag|trolley))?|"
    r"(?:i'?ll |i will )?(?:take|get|buy|have) (?:it|that|this|them|both|that one|this one|those|these)|"
    r"both(?: please| pls| of them)?|(?:den|die|das|beides|beide) nehme? ich|"
    r"(?:ich )?nehme? (?:beides|beide|den|die|das|es)|"
    r"beides(?: bitte)?|(?:je prends )?les deux(?: svp| s'il vous plait)?"
    r")\W*$|"
    r"link|checkout|warenkorb|bestellen|kaufen|ich nehme?|panier|commander|acheter|je (?:le|la|les) prends|"
    # "danke, nehme das klo", "ok nehm die zweite": the choice after thanks or an "ok"
    r"(?:(?:^|[,.;:!]\s*)|\b(?:ok|okay|dann|gut|danke|prima|super)\W+)nehme? (?:den|die|das|ihn|sie|es|beide|beides)"
    r")\b"
)
# Words pointing back at what was shown: one product, or all of them.
# French verbs an object pronoun stands before ("vous l'avez", "tu la fais", "on peut les laver")
_FRENCH_VERBS = (
    "avez|as|a|faites|fais|fait|laver|mettre|porter|trouve|trouvez|prends|prend|livrez|recommandez|conseillez|garder"
)
# ("on peut la repasser ?", "je peux le congeler ?": any verb in its infinitive after an object pronoun)
_INFINITIVE = r"[^\W\d_]{2,}(?:er|ir|re)"
POINTS_AT_ONE = re.compile(
    r"\b(?:it|it's|its|that one|this one|that|this|the one|er|es|ihn|den|dem|das da|davon|"
    r"il|elle|celui-ci|celle-ci|celui-la|celle-la|ca)\b"
    # "vous l'avez en noir ?", "tu la fais en 38 ?", "on peut le laver ?": French object pronouns
    r"|\bl'(?=(?:avez|as|a|ai|auriez|aurez|existe|faites|fait|trouve|trouvez|recommandez|conseillez)\b)"
    rf"|\b(?:vous|tu|on|je|peut|peux|pouvez|qu'on)\s+(?:le|la)\s+(?=(?:{_FRENCH_VERBS}|{_INFINITIVE})\b)"
    # "ist der wasserdicht?", "hat die einen Akku?": an article standing for the thing
    r"|^\W*(?:ist|hat|kann|passt|geht|gibt es|wie (?:lange|schwer|gross) (?:ist|halt|hält)) "
    r"(?:der|die|das)\b"
    # "hat sie eine Kapuze?", "ist sie waschbar?": "sie" after a verb of one thing is the thing (the jacket)
    r"|\b(?:ist|hat|kann|passt|geht|halt|hält|wiegt|braucht|funktioniert|lauft|läuft|lasst|lässt) sie\b"
)
POINTS_AT_ALL = re.compile(
    r"\b(?:they|them|those|these|which of them|any of them|all of them|either|welche[rsn]? davon|"
    # "which one would you say is easier?", "which is better for a beginner?" (not "which sizes …")
    r"which ones?|which (?=(?:is|are|would|should|do|does|has|have)\b)|"
    r"welche[rsn]? (?=(?:ist|sind|hat|haben|w(?:a|ae)re|w(?:u|ue)rden?)\b)|"
    r"von denen|ils|elles|lesquels|lesquelles|lequel|laquelle|"
    # "vous les avez en noir ?", "on peut les laver ?"
    rf"(?:vous|tu|on|je|peut|peux|pouvez|qu'on)\s+les\s+(?=(?:{_FRENCH_VERBS}|{_INFINITIVE})\b))"
    # "sind die wasserdicht?", "haben die einen Akku?", "sind sie waschbar?": the plural verb, of them all
    # (not "haben Sie …?": do you have)
    r"|^\W*(?:(?:sind|haben|passen|gehen|halten|kosten) die|sind sie)\b"
)
# What a question about a product asks for (its answer is in the product's data).
ASKS_ABOUT = re.compile(
    r"\b(?:battery|charge|charging|last|range|far|long|waterproof|water|rain|weigh\w*|weight|heavy|heavier|"
    r"light|lighter|lightest|fold\w*|include\w*|in the box|come with|comes with|work with|works with|"
    r"compatible|fit|fits|warranty|material|made of|wash\w*|size|big|wide|tall|noise|connect\w*|"
    r"akku|laufzeit|wasserdicht|gewicht|schwer|leicht\w*|steuern|passt|kompatibel|"
    r"batterie|autonomie|etanche|poids|pese|pesent|lourd|leger\w*|compatible|marche avec|fonctionne avec|"
    r"wiegt|wiegen|"
    # properties and parts of the thing shown, never things sold on their own ("ein Ladekabel dazu?",
    # "un chargeur ?", "Lautsprecher?" are requests)
    r"made of|dimensions|measurements|loud|louder|noisy|quiet|dusty|slippery|non-slip|capacity|"
    r"material|stoff|gross|grosse|waschbar|spulmaschine\w*|laut|lauter|lautstarke|leise|enthalten|"
    r"lieferumfang|garantie|rutschfest|sohle|absatz|staubig|"
    r"matiere|materiau|lavable|lave-vaisselle|bruit|bruyant|silencieux|inclus|fourni|antiderapant\w*|"
    r"semelle|talon|centimetres|"
    # what it comes in: its colours, how much it holds, how many come in a set ("set of how many?")
    r"colou?rs|farben|couleurs|hold|holds|volume|contenance|how many (?:are )?in|how many pieces|"
    r"set of how many|wie viele st(?:u|ue)ck|combien dans|"
    # how much of something it has ("how much storage?"), what its screen shows
    r"how much (?:storage|memory|space|room|ram|power)|resolution|aufl(?:o|oe)sung|wie viel speicher)\b"
)

# -- questions about the shop, and broad needs ---------------------------------------------

# Which size to order: a question for the shop's size guide, unless the message asks for a thing too ("J'ai
# besoin d'un sac à dos, je sais pas quelle taille prendre": a backpack)
SIZE_CHOICE = re.compile(
    r"\b(?:(?:which|what) size should (?:i|we) (?:order|get|buy)|welche gr(?:o|oe)sse soll|"
    r"quelle taille (?:dois|prendre))"
)
# Shipping, delivery, returns, payment, opening hours, contact, size guides: a question about
# the shop, answered from its store pages, never searched as a product.
STORE_QUESTION = re.compile(
    r"\b(?:ship|ships|shipping|shipped|deliver|delivers|delivery|deliveries|postage|post (?:it|them|to)|"
    r"send (?:it|them) to|(?:you|u) (?:can |could |also |still )?send (?:orders? |parcels? |packages? )?to|"
    r"returns?|returning|(?:be|been|get|gets) returned|refunds?|exchange|exchanges|"
    # not "a spade, I don't want to pay more than 40", "happy to pay up to 30": a budget
    r"(?:pay|paying)(?!\s+(?:(?:more than|less than|no more than|at most|up to|under|over|around|about|"
    r"max(?:imum)?)\s+)?[€$£]?\s*\d)|"
    r"payment\w*|paypal|klarna|"
    r"credit card|invoice|opening hours|opening times|are you open|when do you open|open on|parcel|"
    r"(?<!')arrives?(?!\s+(?:aux?|a)\b)|(?:order|parcel|package|it|they) (?:has |have |just )?arrived|"
    r"arrived (?:damaged|broken|late|open|wet)|(?:hasn'?t|has not|haven'?t|never|not yet|still not) arrived|"
    r"(?:my|our) order(?! (?:of|for|some|a|an|the|more)\b)|order number|tracking|dispatch\w*|"
    r"send (?:\w+ )?back|sent back|take (?:it|them) back|"
    r"sizes? runs?|"
    r"(?:sizing|sizes) (?:run|fit)|fits? (?:small|large|true to size)|"
    r"zur(?:u|ue)ck(?:schick|send|geb)\w*|paket|"
    r"contact|phone number|email address|your address|size guide|size chart|click and collect|pick up in store|"
    r"versand\w*|versende\w*|verschick\w*|liefer(?:ung|zeit|kosten|t ihr|n sie)\w*|zustellung|porto|"
    r"r(?:u|ue)cksend\w*|r(?:u|ue)ckgabe\w*|umtausch\w*|umtauschen|erstatt\w*|bezahl\w*|zahlung\w*|"
    r"rechnung|(?:o|oe)ffnungszeiten|ge(?:o|oe)ffnet|kontakt\w*|gr(?:o|oe)ssentabelle|"
    r"livr(?!(?:e|é)e?s? avec)\w*|exp(?:e|é)di\w*|envoi|envoyez|retour\w*|rembours\w*|(?:e|é)change\w*|paiement|payer|"
    r"horaires|ouvert\w*|contacter|guide des tailles|"
    # prices for many: "do you do any discount for bulk orders?", "Mengenrabatt für Einrichtungen?"
    r"(?:bulk|quantity|volume|wholesale|trade) (?:orders?|discounts?|prices?|pricing|rates?)|wholesale|"
    r"discounts? (?:for|on) (?:bulk|large|big|schools?|nurseries|groups?|orders? of)|"
    # "any discount if I order that much?", "a discount when we order more", "Rabatt, wenn wir 4 kaufen?"
    r"(?:discounts?|rabatt|preisnachlass|reductions?|remises?)\W+(?:\w+\W+){0,2}?(?:if|when|wenn|si|quand)\W+"
    r"(?:\w+\W+){0,3}?(?:order|buy|bestell|kauf|command|achet)\w*|"
    r"mengenrabatt\w*|gro(?:ss|ß)bestellung\w*|rabatt f(?:u|ue)r (?:einrichtungen|schulen|kitas?|vereine)|"
    r"remises? (?:sur|pour) (?:la )?(?:quantite|quantité|commandes? group)\w*|prix de gros|"
    # the shop itself: where it is, visiting and collecting, reaching a person
    r"physical (?:store|shop)|(?:visit|come to) (?:your|the) (?:shop|store)|where are you (?:based|located)|"
    r"where (?:is|are) your (?:warehouse|shop|store|office|premises)|"
    r"(?:order|buy) (?:by|over the|via) (?:phone|e-?mail)|"
    r"collect (?:it |them |my order )?(?:from|at|in) (?:your|the) (?:shop|store)|(?:pick ?up|collect) in(?:-| )store|"
    r"customer (?:service|support|care)|(?:call|ring|reach) you|speak to (?:someone|a person|a human)|"
    r"number (?:i|we) can (?:call|ring)|number to (?:call|ring)|"
    r"your (?:e-?mail|phone number|telephone number|number)\b|"
    r"einen laden|ladengesch(?:a|ae)ft|(?:im laden|vor ort|selbst) abholen|abholung|kundenservice|kundendienst|"
    r"boutique physique|magasin physique|retrait en magasin|service client|"
    # services rather than things: appointments, repairs, alterations, installing, someone sent round
    r"(?:book|make|schedule) (?:an? |the )?(?:\w+ )?appointment|appointments?|alterations?|"
    r"repairs?(?!\s+(?:kit|kits|patch|patches|set|spray|tape|glue|stand))|repair (?:service|shop)|"
    r"(?:you|u) (?:repair|fix|service|install|alter|engrave|personali[sz]e|customi[sz]e)|installation service|"
    r"(?:a |the |bike |annual )?servicing|"
    # "do you have a workshop?", "how long is the wait for your workshop?", "what's the wait time usually"
    r"(?:you|u) (?:have|run|got|do) an? (?:workshop|repair shop|service (?:department|centre|center))|"
    r"your workshop|(?:wait|waiting) times?|how long (?:is|would be) the wait|wartezeit|delai d'attente|"
    r"werkstatt|atelier de reparation|"
    r"(?:engrave|personali[sz]e) (?:it|them|a|the|my|our|his|her)|gravieren|graver|"
    r"send (?:someone|somebody|an engineer|a technician|a plumber|an electrician)|quote for|"
    r"termin\w*|reparatur(?!set|kit)\w*|reparier\w*|(?:a|ae)ndern lassen|rendez-vous|reparation\w*|reparer|"
    # orders gone wrong, cancelled or changed
    r"(?:got|received|sent me|were sent) the wrong|cancel (?:my|the|an|our|this) order|"
    r"order cancell?ation|cancell?ation (?:policy|fee)|"
    r"(?:order|parcel|package|delivery|it|they)(?: \w+)? (?:never|didn'?t|did not|hasn'?t|has not) "
    r"(?:came|come|turned up|shown up|showed up)|"
    r"stornier\w*|annuler (?:ma|la|une|notre) commande|"
    # vouchers, codes, gift cards and wrapping, price promises
    r"(?:discount|promo|voucher|coupon) codes?|gift ?vouchers?|(?:use|redeem) (?:a |my |the |your )?(?:voucher|coupon)|"
    r"(?:sell|have|offer|do|accept|take) (?:\w+ )?gift ?cards?|gift ?cards? (?:work|expire)|"
    r"(?:gift ?wrap (?:it|them)|gift ?wrapping|gift-wrapped|wrap (?:it|them) as a gift)(?! paper)|"
    r"student discount|price ?match\w*|"
    r"gutschein\w*|rabattcode\w*|geschenkverpackung|code promo|codes? de r(?:e|é)duction|"
    r"cartes? cadeaux?|bons? d'achat|emballage cadeau|frais de port)\b"
)
# A store question asking how to reach the shop ("what's your phone number?", "wie kann ich euch erreichen?"):
# the shop's contact is the answer, whatever its pages say.
CONTACT_ASKED = re.compile(
    r"\b(?:how (?:can|do|could|should) (?:i|we) (?:contact|reach|call|ring|get (?:in touch|hold))|"
    r"contact (?:details|info|information|number|e-?mail|address)|get in touch|phone number|telephone number|"
    r"e-?mail address|your (?:e-?mail|phone|telephone|number)|"
    r"(?:call|ring|reach) (?:you|the shop|someone|a person|customer|us)|"
    r"number (?:i|we) can (?:call|ring)|number to (?:call|ring)|"
    r"speak to|talk to|customer (?:service|support|care)|"
    r"kontaktdaten|telefonnummer|anrufen|erreichen|contacter|joindre|num(?:e|é)ro de t(?:e|é)l(?:e|é)phone|"
    r"service client)\b"
)
# A need rather than a thing ("first time camping, where do I start?"): one of each kind.
# "a soundbar to go with it", "something that goes with them": what it is for, not words of the thing
GOES_WITH_IT = re.compile(
    r"\b(?:(?:to go|that goes?|which goes?|to wear|to use) with|to match) (?:it|them|this|that|these|those)\b|"
    r"\b(?:passend )?dazu\b|\bqui va(?:nt)? avec\b"
)
BROAD_NEED = re.compile(
    r"\b(?:what (?:do|would|will|should) (?:i|we|she|he|they) (?:need|get|buy|bring|take)|what does (?:she|he) need|"
    r"where (?:do|should) (?:i|we) start|first time|just moved|starting (?:to|out)|getting into|"
    r"what else (?:do|would|should) (?:i|we) need|"
    r"was brauch(?:e|t|en) (?:ich|man|wir|sie|er)|womit fange ich an|zum ersten mal|"
    r"de quoi (?:ai-je|j'ai|a-t-(?:il|elle)) besoin|par quoi commencer|premiere fois|je debute)\b"
)


# Words of a question of a colour or size that ask nothing of the product ("going back to it, do you have it in M
# too?", "can I still get the other one in black?")
ASKING_NOTHING_SAID = (
    "going go back will would come one ones have get still also too left available there pair size sizes "
    "colour color colours colors version please want like need take order buy instead again same other another "
    "noch auch gibt haben hast habt bitte nochmal wieder aussi encore avez avoir existe disponible "
    # (what the shopper says of whom it is for: "she wants purple lol any of those in that colour")
    "lol haha pls plz she he wants wanted likes loves prefers"
)
