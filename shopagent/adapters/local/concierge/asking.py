"""What a question about a product asks for, in English, German and French (folded text):
its weight, price, sale price, sizes or stock; the structured facts answer these."""

from __future__ import annotations

import re

# "Light" asks for a weight only as an adjective ("is it light?", "light enough"), not as a
# thing the product has ("an adjustable warm light", "the light on the front").
WEIGHT = re.compile(
    r"\b(?:weigh\w*|weight|heavy|heavier|heaviest|lighter|lightest|lightweight|"
    r"how light\b|(?:is (?:it|that|this|the \w+(?: one)?)|are (?:they|those|these)|very|quite|really|too|nice and"
    r"|super) light(?=\b\W*$|\b\W*(?:to|for|enough|or|and)\b)|"
    r"gewicht|wiegt|wiegen|schwer\w*|leicht(?:er|este\w*)?|poids|pese\w*|lourd\w*|leger\w*|legere\w*)\b"
)
# "which is bigger?", "welche ist größer?", "lequel est le plus grand ?": by the amounts they come in
# (not "the bigger set, how many pieces?": one pointed at)
_WHICH_IS = r"\b(?:which|what|welche[rs]?|was|lequel|laquelle|lesquels|lesquelles|quel|quelle)\b.*"
# ("which one holds more?", "welche fasst mehr?", "lequel contient le plus ?": by what they hold)
BIGGER = re.compile(
    _WHICH_IS + r"\b(?:bigger|biggest|larger|largest|gr(?:o|oe)ss(?:er|te)\w*|plus grande?s?|"
    r"holds? (?:the )?(?:more|most)|fass(?:t|en) (?:am )?(?:mehr|meisten)|contien(?:t|nent) (?:le )?plus)\b"
)
SMALLER = re.compile(
    _WHICH_IS + r"\b(?:smaller|smallest|kleinere?\w*|kleinste\w*|plus petite?s?|"
    r"holds? (?:the )?(?:less|least)|fass(?:t|en) (?:am )?(?:weniger|wenigsten)|contien(?:t|nent) (?:le )?moins)\b"
)
LIGHTER = re.compile(r"\b(?:lighter|lightest|leichter\w*|leichteste\w*|plus leger\w*|moins lourd\w*)\b")
# "is it real silk for the price?" ("für den Preis", "pour le prix") asks about the silk. (Not "costume" nor
# "cherche": other words.)
PRICE = re.compile(
    r"\b(?<!for the )(?<!fur den )(?<!pour le )(?:price|cost(?:s|ing|ly)?|"
    r"how much (?:is|are|was|were|for|do|does|will|would)\b(?![^?.!,]*\b(?:hold|holds|take|carry|weigh|weighs)\b)|"
    r"how much(?=\W*$)|"
    r"expensive|cheap\w*|"
    r"preis\w*|kostet|kosten|teuer\w*|g(?:u|ue)nstig\w*|billig\w*|prix|co(?:u|û)t(?:e|es|ent|er|era|erait)|cher(?:e|es|s)?|"
    # ("elle mesure combien ?", "combien pèse-t-elle ?" ask its length, its weight)
    r"(?<!mesure )(?<!mesurent )(?<!pese )(?<!pesent )combien(?!\s+(?:d(?:e\b|')|mesure|pese)))\b"
)
# Which sizes (capacities, lengths) a product comes in: its variations' sizes answer it.
SIZES = re.compile(
    r"^\W*(?:the |its |their )?size\W*$|"  # "size?"
    r"\b(?:storage|capacity|memory|how big|how large|what sizes?|which sizes?|sizes|how long is the cable|lengths?|"
    r"wie gro(?:ss|s)e? (?:ist|sind|wird)|quelle taille (?:fait|font)|"
    r"speicher\w*|kapazit(?:a|ae)t|welche gr(?:o|oe)ssen?|gr(?:o|oe)ssen|stockage|capacite|quelles? tailles?)\b"
)
# How long it is (not how long it lasts or takes), how much it holds, how many come in a set: its
# sizes or options in a unit of that measure answer it ("Length: 15 m, 25 m"; "SET OF 4"), and only those
# (a dress's "midi length" is its text's; a jacket's S, M, L are no length)
MEASURES = {
    "length": re.compile(
        r"\b(?:how long (?:is|are) (?!(?:the |its |it )?(?:battery|warranty|guarantee|delivery|shipping|life)\b)|"
        r"wie lang (?:ist|sind)\b(?!\s+(?:die |der |das )?(?:garantie|lieferung|lieferzeit|akku)\b)|"
        r"welche l(?:a|ae)nge|longueur|combien de (?:metres|m|centimetres|cm)\b|"
        r"mesurent combien|mesure(?:-t-(?:il|elle))? combien|combien (?:mesure|mesurent)\b|"  # "elle mesure combien ?"
        r"how many (?:metres|meters)\b|lengths?\b|diameter|diametre|durchmesser|"
        # "is it 25 m long?", "fait-il 25 mètres ?", "ist er 20 m lang?"
        r"(?:is it|are they|fait(?:-il|-elle)?|mesure(?:-t-il|-t-elle)?|ist (?:er|sie|es)|sind sie)\s+"
        r"\d+(?:[.,]\d+)?\s*(?:m|metres?|meters?|meter|cm|centimetres?)\b)"
    ),
    "volume": re.compile(
        r"\b(?:how much (?:[^\W\d_]+ )?(?:does|do|will|can|would) "  # "how much water does the first one hold?"
        r"(?:it|they|this|that|each|one|(?:the|this|that) (?:[^\W\d_]+ )?ones?) hold|wie viel (?:passt|fasst)|"
        r"volume|contenance|fassungsverm(?:o|oe)gen|how many (?:litres|liters)|combien de (?:litres|l)\b|capacity|"
        r"wie ?viele? (?:liter|l)\b|"
        r"capacite|kapazit(?:a|ae)t)"
    ),
    # "combien de kilos dans le sac ?": its bag sizes (not "how many grams of protein")
    "weight": re.compile(
        r"\b(?:how many (?:kilos?|kg|grams?)|combien de (?:kilos?|kg|grammes?)|wie viele? (?:kilos?|kg|gramm))\b"
        r"(?!\s+(?:of|de|d'|an)\b)"
    ),
    # "how much area does one bag do?", "wie viele Quadratmeter?": options saying what each covers ("1 kg (30 m²)")
    "area": re.compile(
        r"\b(?:area|m2|m\u00b2|square (?:metres|meters|feet)|sq ?m|quadratmeter\w*|fl(?:a|ae)che|surface|"
        r"how much (?:lawn|grass|ground|garden|space) (?:does|do|will|would)|how many (?:square|sq))"
    ),
    "count": re.compile(
        r"\b(?:how many (?:[^\W\d_]+ )?(?:are |come |do you get )?in (?:a|the|one|each) (?:set|pack|box|bag|packet)|"
        r"how many pieces|set of how many|wie viele (?:st(?:u|ue)ck|teile)|combien (?:de pieces|dans le lot|par lot))"
    ),
}
# "what sizes does it come in?", "welche Größen gibt es?", "quelles tailles ?": the sizes it is made in.
WHICH_SIZES = re.compile(
    r"\b(?:what|which) (?:sizes?|widths?|lengths?)\b|\bwelche (?:gr(?:o|oe)ss?en|breiten|langen)\b|"
    r"\bquelles? (?:tailles?|largeurs?|longueurs?)\b"
)
# "does it come smaller?", "gibts die auch mit kleinerem Gehäuse?", "en plus grand ?": the sizes it comes in.
OTHER_SIZE = re.compile(
    r"\b(?:come|comes|available|have it|get it|make it|do it|in)(?: in)?(?: an?)? (?:smaller|bigger|larger)"
    r"(?: (?:size|sizes|version|model|case))?(?=\s*(?:[?.!,;]|$))"
    r"|\b(?:an?|any) (?:smaller|bigger|larger) (?:size|sizes|version|model|case)(?=\s*(?:[?.!,;]|$))"
    r"|\b(?:other|different) sizes?\b"
    r"|\bauch (?:in |mit |als )?(?:einem |einer |einen )?(?:kleiner|gr(?:o|oe)sser)\w*"
    r"(?: (?:gehause|grosse|version|modell|format))?(?=\s*(?:[?.!,;]|$))|\bandere gr(?:o|oe)ssen?\b"
    r"|\ben plus (?:petit|grand)e?s?(?=\s*(?:[?.!,;]|$))|\bautres? tailles?\b|\bune autre taille\b"
)
# "any discount on it?", "ist die im Angebot?", "elle est en promo ?": the sale price, or that there is none.
DISCOUNT = re.compile(
    r"\b(?:discount\w*|on sale|sale price|reduced|markdown|marked down|% off|percent off|"
    r"rabatt\w*|(?:im )?angebot|sonderangebot\w*|reduziert\w*|preisnachlass|"
    # (not "la réduction de bruit", "reduced noise": noise cancelling)
    r"remise\w*|en solde|soldes?|promo\w*|(?<!noise )(?<!bruit )reduction\w*(?! (?:de |du )?bruit)|"
    r"reduit\w*)(?! (?:noise|bruit)\b)"
)
# "which one would you pick?", "what do you recommend?", "welchen würdest du nehmen?", "lequel tu me conseilles ?":
# the best fit of those shown, with nothing else asked of them ("which is best for a small balcony?" asks more)
PICK = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|so|and|then|hmm+|well|also|alright|und|also|alors|et|bon|du coup)\W+)*"
    r"(?:\b(?:which|what)(?: one)? (?:would|should|do|will) (?:you|u|i) (?:pick|choose|recommend|suggest|get|go for|"
    r"buy|take)|\bwhat (?:would|do|can) you (?:recommend|suggest)|\b(?:your|ur) (?:pick|recommendation|choice)|"
    r"\bwhich (?:one )?(?:is|'s|s) (?:the )?best|\bwhich (?:one )?(?:do|would) you (?:prefer|like best)|"
    r"\b(?:any|a) recommendation|\brecommend (?:one|me one|me something)|\bwhich one then|"
    r"\bwelche[nrs]?(?: davon)? (?:w(?:u|ue)rdest|w(?:u|ue)rden) (?:du|sie) (?:nehmen|empfehlen|kaufen|w(?:a|ae)hlen)|"
    r"\bwas (?:empfiehlst|empfehlen|w(?:u|ue)rdest) (?:du|sie)(?: mir)?(?: nehmen)?|"
    r"\bwelche[nrs]? (?:empfiehlst|empfehlen) (?:du|sie)(?: mir)?|\bwelche[nrs]? ist (?:der|die|das) beste|"
    r"\b(?:lequel|laquelle) (?:tu|vous) (?:me )?(?:conseille[sz]?|recommande[sz]?|prendrai[st]?|prendriez|"
    r"choisirai[st]?|choisiriez)|\b(?:tu|vous) (?:me )?(?:conseille[sz]?|recommande[sz]?) (?:lequel|laquelle|quoi)|"
    r"\bqu'est-ce que (?:tu|vous) (?:me )?(?:conseille[sz]?|recommande[sz]?)|\b(?:lequel|laquelle) est (?:le|la) "
    r"meilleur(?:e)?|\b(?:lequel|laquelle) choisir)"
    r"(?=(?:\s*(?:then|of them|of these|of those|for me|please|pls|davon|denn|dann|bitte|parmi eux|alors|donc|svp|"
    r"s'il (?:te|vous) pla[iî]t))*\s*[?.!]*\s*$)"
)
CHEAPER = re.compile(
    r"\b(?:cheaper|cheapest|g(?:u|ue)nstiger\w*|g(?:u|ue)nstigst\w*|billiger\w*|billigst\w*|moins cher\w*)\b"
)
# "what's the price difference?", "how much more is it?", "Preisunterschied", "la différence de prix"
PRICE_DIFFERENCE = re.compile(
    r"\b(?:price difference|difference in price|difference (?:between|of) (?:their|the) prices?|how much (?:more|less|"
    r"cheaper|dearer)|preisunterschied\w*|(?:unterschied|differenz) (?:im|beim) preis|was kostet der unterschied|"
    r"difference de prix|ecart de prix)\b"
)
# "what's the total?", "how much for both?", "was kosten beide zusammen?", "combien pour les deux ?"
PRICE_TOTAL = re.compile(
    r"\b(?:(?:what(?:'s| is| would be) )?the total|total (?:price|cost)|in total|altogether|all together|"
    r"how much (?:for|are|is it for) (?:both|the two|them together|the pair)|insgesamt|zusammen|gesamtpreis|"
    r"beide zusammen|au total|en tout|combien pour les deux|les deux ensemble)\b"
)
DEARER = re.compile(
    r"\b(?:dearer|dearest|pricier|priciest|more expensive|most expensive|teurer\w*|teuerste\w*|plus cher\w*)\b"
)
STOCK = re.compile(
    r"\b(?:in[ -]stock|available|availability|auf lager|lieferbar|verf(?:u|ue)gbar\w*|vorr(?:a|ae)tig\w*|"
    r"en stock|disponibles?|dispo|existe\w*|encore|noch da|still have|still got)\b"
    r"|\b(?:any|how many|many|some|still|only|none|\d+)(?: \w+)? left\b(?![ -]hand)|\bleft in stock\b"
    # (not "gibt es die als Set?": how it is sold)
    r"|\b(?:come|comes|coming) in\b|\bgibt(?: es|s) (?:den|die|das|ihn|es)\b(?! (?:auch )?(?:als|einzeln)\b)"
    # "which colours?", "which colour is closest to the scarf?", "welche Farben gibt es?", "quelles couleurs ?":
    # "what colours for the first one?": its colours (not "what colour is the lining?" nor "what colours
    # would go with black jeans?")
    r"|\b(?:which|what|welche\w*|quelles) (?:colou?rs|colou?r options|farben|couleurs)\b"
    r"(?! (?:would|go|goes|match|matches|suit|suits|are in|is in|are popular|are trendy)\b)"
    r"|\b(?:which|what|welche|quelle) (?:colou?r|farbe|couleur)\b(?= ?[?.!]|$| (?:is|are) (?:closest|nearest)\b|"
    r" (?:does|do) (?:it|they) come\b)"
)
# "which colours …?": the product's colours, not its stock line by line
COLOURS_ASKED = re.compile(r"\b(?:colou?rs?|colou?r options|farben?|couleurs?)\b")
# "colours?", "which colours does it come in?", "welche Farben?": the colours it comes in (its stock
# tells), not the colour of a part of it ("what colour is the lining?")
COLOURS_OFFERED = re.compile(
    r"^\W*(?:(?:and|ok|so|und|et)\W+)?(?:colou?rs|farben|couleurs)\W*$|"
    r"\b(?:(?:which|what|any|other) colou?rs|colou?r options|welche farben|quelles couleurs|"
    r"(?:what|which|other|any) colou?r (?:does|do|can)\b|in (?:what|which|other) colou?rs?|"
    # "what color is the cheaper one?" (not "what colour is the lining?": a part of it)
    r"what colou?r (?:is|are) (?:it|they|this|that|these|those|(?:the|this|that) (?:[^\W\d_]+ )?ones?)\b|"
    # (what points at it taken out first: "what color is [the cheaper] one?")
    r"what colou?r (?:is|are)(?:\s+(?:it|they|this|that|these|those|the|one|ones))*(?=\W*$)|"
    r"colou?rs? (?:does|do|can) (?:it|they) come|comes? in (?:what|which|other|any) colou?rs?)\b"
)
# "how does the copper stuff work?", "wie funktioniert das?", "comment ça marche ?": what the product
# is and does, which its text says first.
# Not of the product: "how does the warranty work?"
_NOT_THE_PRODUCT = r"(?!(?:warranty|guarantee|sizing|size|delivery|returns?|payment)\b)"
HOW_IT_WORKS = re.compile(
    rf"\bhow (?:does|do|will|would) (?:it|they|that|this|these|those|the {_NOT_THE_PRODUCT}[\w ]{{1,30}}?) work\b"
    r"(?! (?:with|on|for|in)\b)|\bhow (?:it|they) works?\b(?! (?:with|on|for|in)\b)"
    r"|\bwie funktionier\w*|\bcomment (?:ca|cela|il|elle|ils|elles) (?:marche|fonctionne)\w*"
)


# "anything bigger?", "a smaller one?", "gibt es den größer?", "plus grand ?" right after a list: the sizes of
# those shown (was searched for "bigger": "doesn't seem to carry bigger")
BIGGER_ASKED = re.compile(
    r"\W*(?:(?:and|so|ok|okay|und|et|hmm)\W+)?(?:(?:anything|something|any|got|do you have|have you got|is there|"
    r"gibt es (?:(?:das|den|die|es|ihn|sie) )?(?:auch )?|habt ihr (?:(?:das|den|die|es|ihn|sie) )?(?:auch )?|"
    r"(?:il|elle) existe (?:en )?|vous l'avez (?:en )?|en)\s+)?(?:a |an |one |in a |etwas |was |un |une )?"
    r"(?:bigger|larger|smaller|gr(?:o|oe)(?:ss|\u00df)er\w*|kleiner\w*|plus (?:grand|petit)e?s?)"
    r"(?:\s+(?:one|ones|size|sizes|version|bag|pack|pot|tub))?\W*"
)
