"""The customer's words -> a plan: a short reply, or the tool calls that answer them.

Small talk and clearly off-topic requests get a short reply; whether a message is off-topic
is decided with the catalog's own words (names, categories, brands, materials), so
"weatherproof jacket" is searched and "weather in Berlin" is not. Follow-ups ("cheaper
ones?", "in size 42?", "only in stock", "anything else?", "something similar to the second
one", "tell me about the first", "compare the first two") refine the last search, recovered
from the conversation's stored tool calls and the list shown. Everything else is searched.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Awaitable, Callable, Set
from decimal import Decimal
from typing import Any

from shopagent.adapters.local.concierge import asking as ask
from shopagent.adapters.local.concierge import phrases as ph
from shopagent.adapters.local.concierge.asked import SAID_AS, properties_named
from shopagent.adapters.local.concierge.facts import COMES_WITH, PARTS
from shopagent.adapters.local.concierge.memory import (
    LIST_LENGTH,
    STORE_TOOL,
    History,
    Shown,
    colours_of,
    decimal_or_none,
    details_call,
    say,
    search_call,
    search_calls,
    store_call,
)
from shopagent.adapters.local.concierge.phrases import ASKING_NOTHING_SAID, CONTACT_ASKED, STOPWORDS
from shopagent.adapters.local.concierge.pointing import (
    CUE_FILLER,
    MADE_OF,
    ORDINAL_WORDS,
    SAYS_WHICH,
    THERE_IS,
    another_thing,
    asks_for_another,
    asks_shop_for_a_thing,
    at_position,
    called_by,
    called_not_shown,
    called_one,
    called_that,
    called_the,
    calls,
    find_called,
    named_by_option,
    named_by_words,
    named_in_passing,
    named_products,
    of_kind_asked,
    of_kind_at,
    ordinal_kind,
    without_called_one,
    words_of,
)
from shopagent.adapters.local.concierge.product_data import names_a_variation
from shopagent.adapters.local.concierge.replies import Replies
from shopagent.adapters.local.concierge.text import TOKEN, said_for, stem
from shopagent.adapters.local.concierge.understanding import Lexicon, Reading
from shopagent.domain.chat import ModelReply
from shopagent.domain.options import fold
from shopagent.domain.query_words import (
    AUDIENCE,
    CATS,
    DAUGHTER,
    DOGS,
    HER,
    HIM,
    MATERIALS,
    SON,
    WHOM_FOR,
    asked_after_a_cue,
    category_heads,
    childs_ages,
    name_head,
    name_kind,
    tells_a_situation,
)
from shopagent.domain.search import MAX_LIMIT
from shopagent.domain.store_information import topics_named
from shopagent.domain.store_words import read_store_question
from shopagent.domain.text import words
from shopagent.domain.tools import DETAILS_TOOL, SEARCH_TOOL
from shopagent.domain.vocabulary import Vocabulary, word_forms

_SIZE_WORDS = {"size", "sizes", "groesse", "grosse", "taille", "version", "model", "modell", "pair", "format"}
_SAME = frozenset({"same", "gleiche", "gleichen", "gleichem", "meme", "memes"})
# what a thing has, comes with or includes, as said of it: the part, not a product ("does it come with a
# cable?", "has it got a hood?", "hat sie eine Kapuze?", "est-ce qu'elle a une capuche ?")
_HAS_A_PART = re.compile(
    r"\b(?:have|has|got|come with|comes with|include|includes|included|with|hat|haben|mit|dabei|avec|a|ont)\s+"
    r"(?:a|an|any|the|some|ein|eine|einen|einem|un|une|des|du|de la)?\s*[^\W\d_]+"
    # ... and what is asked of it: "is it see-through?", "can it change colour?", "ist sie aus Leder?" (not the
    # "Button-Through Blouse", the "Colour Smart Bulb" shown beside it), up to what it is said of ("… on the mixer")
    r"|\b(?:is|are|was|were|does|do|can|could|will|would|ist|sind|kann|passt)\s+(?:it|they|this|that|these|those|"
    r"er|sie|es)\b(?!\s+(?:the|der|die|das|le|la|les)\b)"
    r"(?:(?!\b(?:on|of|for|in|at|from|than|like|or|auf|von|fur|oder|sur|pour|du|ou)\b)[^,;.!?])*"
)

_CENT = Decimal("0.01")
_THING_WORDS = 3  # the words of one thing of a request for several, at most ("wooden spoon set")
_MOST_THINGS = 4  # the things of one request searched, at most
_QUANTITY = frozenset({"couple", "few", "bunch", "lot", "lots", "paar", "bisschen", "quelques", "several"})
# What makes two things said with "and" one ("knife and fork set", "keyboard and mouse combo").
_COLLECTIVE = frozenset({"set", "sets", "combo", "kit", "bundle", "pack", "duo", "combi", "ensemble", "coffret", "lot"})
_PLAIN_SUBJECT_WORDS = 4  # a request of more words is referred to in the customer's own words
_PLAIN_ANY_WORDS = 3  # ... or of at most these many words, the catalog's or not
_QUOTED_CHARS = 80
_PLAIN_SPAN_WORDS = 6  # the words of a plain request, with the ones between them, said back as written
_BROAD_RESULTS = 12  # results a broad need picks one product of each kind from
_ASKED_ABOUT_UNPOINTED = LIST_LENGTH  # products a question about "the list" is answered for
# "any", "something", "other": words asking for products rather than about the ones shown
_ASKS_FOR_OTHERS = re.compile(
    r"\b(?:any|anything|something|some|ones|other|others|another|else|etwas|was anderes|andere\w*|"
    r"quelque chose|autres?|d'autres)\b"
)
# "is there a food for older dogs too?", "gibt es auch eine Leine?": a kind of thing asked for, when the
# word after it names one the catalog sells and no product shown ("is there a lid?" asks of the pan)
_IS_THERE = rf"\b(?:{THERE_IS}|gibts){CUE_FILLER}"
# "und dünger, was geht für kräuter?", "and a lid for it?": a message opening on another thing
_AND_THEN = (
    r"^\W*(?:(?:oh|ah|ok|okay|right|so|alright|hmm+)\W+)?(?:and|und|et)(?: (?:also|too|auch|aussi|noch))?"
    r"(?: (?:an?|some|ein|eine|einen|etwas|un|une|des|du))?"
)
# "il faut un terreau spécial ?", "do I need a rake?": a question naming a kind of thing needed, after these
_NEEDED = (
    r"\b(?:do i (?:also )?need(?: an?| some)?|should i (?:get|buy)(?: an?| some)?|brauche ich(?: auch)?(?: eine?n?)?|"
    r"il (?:me )?faut(?: aussi)?(?: une?| des| du)?)"
)
# "what do I need to dig it over?", "was brauche ich dafür noch?": a need, whatever "it" is
_WHAT_NEEDED = re.compile(
    r"\b(?:what (?:else )?(?:do|would|will|should) (?:i|we) (?:also )?need|was brauch(?:e|t) (?:ich|man)|"
    r"de quoi (?:ai-je|j'ai|aurais-je) besoin|qu'est-ce qu'il (?:me )?faut)\b"
)
# "what should I sow them into?", "what do I put it in?", "womit soll ich sie düngen?", "dans quoi je les sème ?": a
# thing to do something with, asked for (not a question of the one talked about)
_WHAT_TO_USE = re.compile(
    r"\bwhat (?:should|shall|do|can|would|could) (?:i|we) \w+(?: (?:them|it|these|those|this|that))? "
    r"(?:in|into|with|on)\b\s*(?:[?.!,]|$)|"
    r"\b(?:womit|worin|wo ?rein) (?:soll|sollte|kann) (?:ich|man)\b|\b(?:dans|avec) quoi (?:je|on|dois-je)\b"
)
# ... and "which/what <kind>" where the message chooses one for a use ("should I use", "nehm ich", "am besten");
# else it is as often a question of those shown ("which battery does it take?")
_WHICH = r"\b(?:which|what|welche[rsnm]?|was fur|quel(?:le)?s?)"
_CHOOSING = re.compile(
    r"\b(?:should|shall|do i|would you|recommend\w*|best|nehm\w*|brauch\w*|empfiehl\w*|empfehl\w*|besten|"
    r"faut|conseill\w*|prendre|mieux)\b"
)
_CUE = re.compile(
    rf"(?:{_ASKS_FOR_OTHERS.pattern}|{_IS_THERE}|{_AND_THEN}|(?P<needed>{_NEEDED})|(?P<which>{_WHICH}))(?=\s)"
)
# "what pot size?", "which lead length?": a measure of the thing shown asked, by a kind's word before it
_MEASURED = frozenset({
    "size", "sizes", "length", "width", "height", "depth", "diameter", "colour", "color", "type", "brand", "model",
    "grosse", "lange", "breite", "hohe", "farbe", "taille", "longueur", "largeur", "hauteur", "couleur", "marque",
})  # fmt: skip
# "does it need …", "is it …", "braucht es …", "faut-il …": a question of the product shown
# Words that ask, not say what is asked ("wann aussäen?", "quand semer ?", "when to sow?")
_ASKING_WORDS = frozenset({
    "when", "wann", "quand", "how", "wie", "comment", "where", "wo", "why", "warum", "pourquoi",
    # the verbs of "does it support fast charging?", "unterstützt das Schnellladen?", "il supporte … ?"
    "support", "supports", "unterstutzt", "unterstutzen", "supporte", "supportent",
})  # fmt: skip
# The second word of a property asked in two ("pet safe", "frost proof", "kindersicher" is one)
_SAFE_FROM = frozenset({"safe", "proof", "free", "friendly", "resistant", "tight", "sicher", "fest", "frei", "dicht"})
# A message asking only a measure of the thing shown or what it is made of ("wattage", "blade length?",
# "max cutting diameter", "for what tank size", "what steel?", "quelle puissance ?", "Maße?")
_MEASURES = (
    r"wattage|watts|power|dimensions?|measurements|size|weight|length|width|height|depth|diameter|capacity|"
    r"volume|resolution|refresh rate|temp|temperature|material|fabric|steel|wood|metal|plastic|thickness|"
    r"leistung|wattzahl|masse|abmessungen|gewicht|lange|breite|hohe|tiefe|durchmesser|kapazitat|aufloesung|"
    r"auflosung|puissance|poids|longueur|largeur|hauteur|profondeur|diametre|capacite|"
    r"matiere|materiau|epaisseur"
)
_MEASURE_ASKED = re.compile(
    r"\W*(?:(?:and|so|ok|okay|und|et)\W+)?(?:(?:what|which|welche[rsn]?|quel(?:le)?s?|for what|whats|what's|"
    r"what is|what are)(?:\s+(?:the|its|their|is|are|der|die|das|la|le|les|est))*\s+)?(?:[^\W\d_]+\s+){0,2}?"
    rf"(?:{_MEASURES})"
    # ("et la capacité de stockage ?", "die Länge des Kabels?": a measure of a part, said after it)
    r"(?:\s+(?:de|du|des|d'|der)\s*[^\W\d_]+)?\W*"
    # "c'est en quoi", "elle est en quoi ?", "aus was ist die?", "woraus ist das": what it is made of
    r"|\W*(?:et\W+)?(?:(?:c'est|c est|il est|elle est|ils sont|elles sont|fait|faite|faits|faites)\s+)?en quoi"
    r"(?:\s+(?:c'est|est-il|est-elle|est-ce|sont-ils|sont-elles))?\W*"
    r"|\W*(?:und\W+)?(?:aus was|woraus)\s+(?:ist|sind|besteht|bestehen)(?:\s+(?:es|sie|er|der|die|das|den))?\W*"
)
# "the cutting width", "the battery life", "die Klingenlänge": a measure the word before it says of which part,
# not a thing called by that word
_MEASURE_AFTER = re.compile(rf"(?:{_MEASURES}|life|span|range|runtime|time)")
# What the thing compared should suit: "which one is better for a large breed puppy", "welche ist besser für",
# "lequel est le mieux pour"
_BETTER_FOR = re.compile(
    r"\b(?:better|best|good|suitable|ideal|right|besser|am besten|geeignet|mieux|meilleure?s?|adapte)\s+"
    r"(?:one\s+)?(?:for|f(?:u|ue)r|pour)\b"
)
# "one" as a number before what it counts ("for one cat", "one bag"), not a product called "the … one"
_ONE_NUMERAL = re.compile(
    r"\bone\s+(?!(?:with|without|for|in|on|of|that|which|from|you|i|is|are|and|or|but|please|pls|then|too)\b)"
    r"[^\W\d_]+"
)
# A message opening on what the thing is for ("for thick branches", "für dicke Äste", "pour un chiot")
_OPENS_ON_FOR = re.compile(r"\W*(?:(?:and|und|et|but|maybe|ideally)\W+)?(?:for|f(?:u|ue)r|pour)\s")
# A question whether it suits someone or something, by its first words
_SUITS = re.compile(
    r"\W*(?:(?:and|so|but|ok|okay|und|et)\W+)?(?:(?:is it|are they|would it|would they|ist (?:es|er|sie)|"
    r"sind sie|est-ce)\s+)?(?:good|ok|okay|fine|suitable|right|safe|gut|geeignet|passend|bien|adaptee?s?|bon|"
    r"bonne)\s+(?:for|f(?:u|ue)r|pour)\b"
)
_ASKED_OF_IT = re.compile(
    r"\b(?:(?:does|do|is|are|can|will|would|has|have|did|was)\s+(?:it|they|this|that|these|those)|"
    r"(?:braucht|hat|ist|kann|passt)\s+(?:es|er|sie|man|der|die|das)|faut-il|est-ce qu(?:'|e )(?:il|elle)s?)\b"
)
_FOR_WHOM = re.compile(
    r"\b(?:for|fur|pour)\s+(?:(?:my|a|an|the|our|his|her|their|meinen?|meine[mr]?|unsere?[nmr]?|einen?|"
    r"mon|ma|mes|un|une|le|la|les|notre|nos)\s+)?([^\W\d_]{3,})"
)
# "any that isn't chicken", "ohne Huhn", "sans poulet": words said of what it is not
_NEGATION = re.compile(r"\b(?:not|isn'?t|aren'?t|no|without|ohne|kein\w*|nicht|sans|pas)\b")
_QUALIFYING_WORDS = 3  # a message of more catalog words after a list is a request of its own
# Words saying where, before "the" and a thing of the shopper's ("far from the hedge", "next to the shed")
_PLACE_BEFORE = r"from|to|near|at|around|behind|along|beside|next to|over|under|into|onto|by"
_STORE_FOLLOW_UP_WORDS = 8  # a question of the shop of at most so many words, naming no topic, follows the last one
_WITH = re.compile(r"\b(?:with|without|mit|ohne|avec|sans)\b")
# "do you sell socks as well?", "verkauft ihr auch Regenschirme?": the shop asked for one more thing
# Words pointing at the list shown rather than at the one product talked about last ("which of them",
# "both", "all of them"; not "at all", "which size" nor "these", said of a pair of boots).
_THE_LIST = re.compile(
    r"\b(?:which (?:ones?|of|is|are|would|should|do|does|has|have)|any of|either|both|each|all of|all the|"
    r"them all|those two|these two|welche[rsn]? (?:davon|von)|von denen|beide\w*|alle|lesquel\w*|lequel|"
    r"laquelle|les deux|tous|toutes)\b"
)
# "the cheapest", "am günstigsten", "la moins chère de toutes": of the whole list, not of the two compared
_SUPERLATIVE = re.compile(r"est\b|ste[rsnm]?\b|\bleast\b|\bmost\b")
_WHOLE_LIST = re.compile(r"\b(?:list|overall|of all|of them all|liste|von allen|de tous|de toutes)\b")
# A thing to do something with ("something to clean suede with", "etwas zum Reinigen", "quelque chose pour
# nettoyer") or against ("something against slugs", "etwas gegen Zecken"): another thing, for a use, not
# more said of the thing shown ("something waterproof")
_THING_TO = re.compile(
    r"\b(?:(?:something|anything|stuff|a thing)\s+(?:to|against)|(?:etwas|was)\s+(?:zum|gegen)|"
    r"(?:quelque chose|un truc|un produit)\s+(?:pour|contre))\s+"
)
# Returning to a product of an earlier list: "back to the speaker", "going back to the red one, …",
# "zurück zum Lautsprecher", "revenons à la robe" (the words naming it up to a pause)
_BACK_TO = re.compile(
    r"\b(?:back to|zur(?:u|ue)ck zu(?:m|r)?|revenons (?:a|au|aux)|retour (?:a|au|aux))\s+"
    r"(?P<rest>[^,.;:!?]+?)(?=\s*(?:[,.;:!?]|\b(?:is|are|does|do|has|have|can|how|what|whats|which|ist|hat|"
    r"kann|wie|was|est|a-t-il|combien)\b|$))"
)
# "can you show me the pans again", "zeig mir nochmal die Uhren", "remontre-moi les casques": a list shown again
_AGAIN = re.compile(r"\b(?:again|once more|nochmal|noch (?:ein)?mal|erneut|wieder|de nouveau|a nouveau)\b")
_SHOW_AGAIN = re.compile(r"\b(?:re-?montre\w*|re-?voir|re-?list)\b")
_AGAIN_WORDS = frozenset({"again", "nochmal", "noch", "einmal", "erneut", "wieder", "encore", "nouveau", "remontre"})
_SHOW = re.compile(r"\b(?:show|see|list|look at|zeig\w*|anzeigen|sehen|montre\w*|voir|affiche\w*)\b")
# "which was the cheapest?", "le moins cher ?": of a list, by price
_SHOWN_BEFORE = re.compile(
    r"\byou (?:showed|show(?:ed)? me|have shown|mentioned|suggested|recommended|listed|had|found)\b|"
    r"\b(?:in|on) (?:the|your) (?:list|results)\b|"
    r"\bfrom (?:before|earlier|the (?:start|beginning))\b|\b(?:at|in) the (?:start|beginning)\b|"
    r"\b(?:von vorhin|von vorher|vorhin|vom anfang|am anfang)\b|\bde tout a l'heure\b|\bd'avant\b|\bdu debut\b|"
    r"\b(?:du|ihr|sie) (?:mir )?(?:gezeigt|empfohlen)|\b(?:que )?vous m'avez (?:montre|propose|conseille)e?s?\b|"
    r"\bque (?:vous|tu) (?:m')?(?:avez|as) (?:montre|propose|conseille)e?s?\b"
)
# The words a product is called by right before such a back-reference: "the cage" of "the cage from before", "die
# Schere" of "die Schere von vorhin" (after the last article)
_CALLED_BEFORE = re.compile(
    r"\b(?:the|that|those|these|this|die|der|das|den|dem|diese[nrs]?|le|la|les|l'|ce|cet|cette|ces)\s*"
    r"((?:[^\W\d_]+\s+){0,2}?[^\W\d_]+)\W*$"
)
_CHEAPEST = re.compile(
    r"\b(?:cheapest|least expensive|lowest price|g(?:u|ue)nstigste|billigste|(?:le|la|les) moins chere?s?)"
)
_DEAREST = re.compile(r"\b(?:dearest|priciest|most expensive|teuerste|(?:le|la|les) plus chere?s?)")
# "which is lighter?", "welche ist leichter?", "lequel est le plus léger ?": one chosen among several
_WHICH_IS = re.compile(r"\b(?:which(?: one)?|welche[rsn]?|lequel|laquelle)\s+(?:is|are|ist|sind|est)\b")
_WHICH_OF = re.compile(r"\b(?:which|welche[rsnm]?|lequel|laquelle|lesquels|lesquelles)\b")
# A yes-or-no question of "the" things named: "are the lids microwave safe", "sind die Deckel dicht"
_OF_THE = re.compile(
    r"^\W*(?:are|is|do|does|can|will|sind|ist|passen|passt)\s+(?:the|these|those|die|der|das|diese)\s+"
)
# "the ergonomic one", "and the glass ones": one of those shown, by a word, and nothing more said
_BARE_X_ONE = re.compile(r"\W*(?:(?:and|ok|okay|so|then)\W+)?the\s+(?:[^\W\d_]+\s+){0,2}?[^\W\d_]+\s+ones?\W*")
# A question about the products shown by whom they suit ("is it for dogs?", "are they ok for cats?")
_OF_THEM = re.compile(
    r"\b(?:is|are|does|do|can|will|would|which|ist|sind|passt|est|sont|lequel|laquelle)\b.*\b(?:it|they|this|these|them|"
    r"that|es|sie|das|die|der|il|elle|ils|elles|ca)\b|\b(?:which|welche\w*|lequel|laquelle)\b"
)
_LEADING_CUE = re.compile(r"^\W*(?:(?:and|und|et|any|some|also|auch|aussi|ok|so|what about|how about)\W+)*", re.I)
_ONE_WORDS = frozenset({"one", "ones", "thing", "eins", "celui", "celle"})
_ASKING_NOTHING = {stem(w) for w in ASKING_NOTHING_SAID.split()}
_ALSO = re.compile(r"\b(?:as well|also|too|auch|aussi|egalement)\b")
# "do you sell these?" after naming a thing: "these" are the things named, not those shown
_SELL_THESE = re.compile(
    r"\b(?:sell|have|carry|stock|got|verkauft ihr|habt ihr|vendez-vous) (?:these|those|them|die|ca)\b"
)
_ONES = re.compile(r"\b(?:ones?|welche|ceux|celles)\b")
# "the bedding you showed", "die Töpfe aus Terrakotta", "la souple": a product called by its kind (a word after
# "the", maybe one more before it)
_THE_KIND = re.compile(
    r"\b(?:the|that|those|these|die|der|das|den|dem|diese[nrs]?|la|le|les|l')\s*([^\W\d_]+)"
    # (the next word, unless it opens another: "der Akku der Kopfhörer")
    r"(?:\s+(?!(?:the|die|der|das|den|dem|la|le|les)\b)([^\W\d_]+))?"
)
# Any thing of a kind, not one named ("do you have something hooded too?", "habt ihr auch was Helles?").
_ANY_THING = re.compile(r"\b(?:something|anything|some|any|was|etwas|quelque chose|des trucs)\b")
# "what about the headset, is it …": a question about the thing named, not a new request ("what about a headset").
# "back to the first thing you showed me", "zurück zum ersten", "revenons au premier": the first of all shown
_BACK_TO_FIRST = re.compile(
    r"\b(?:back to|go back to|zur(?:u|ue)ck zu[rm]?|nochmal zu[rm]?|retour (?:a|au)|revenons (?:a|au))\s+"
    r"(?:the |de[rnm] |la |le |l')?(?:very )?(?:first|ersten?|premiere?)"
    r"(?=\s+(?:one|thing|product|item|you|eins|artikel|produkt|article|produit|chose|que)\b|\s*[,?.!;]|\s*$)"
)
# A message that only takes in what was said ("ok", "hmm", "alles klar", "d'accord")
_NOTED = re.compile(
    r"\W*(?:ok(?:ay)?|k|alright|all right|right|fine|cool|great|nice|sure|got it|i see|hmm+|mm+|ah|oh|"
    r"gut|alles klar|klar|verstehe|aha|na gut|d'accord|dac|bon|je vois|entendu|tres bien)"
    r"(?:\W+(?:ok(?:ay)?|then|thanks|danke|merci|hmm+))*\W*"
)
# A product called by a name: "the logitech one", "the one from bosch", "der von gardena", "celui de bosch"
_CALLED_ONE = re.compile(
    r"\b(?:(?:the|that|this) (?P<name>[a-z][\w-]+) one|(?:the one|one) (?:from|by|of) (?P<by>[a-z][\w-]+)|"
    r"(?:der|die|das|den|dem) (?:von|vom) (?P<von>[a-z][\w-]+)|(?:celui|celle) (?:de|d') ?(?P<de>[a-z][\w-]+))\b"
)
# Words before "one" that say which one, not what it is called ("the other one", "the last one", "the big one")
_NOT_A_NAME = frozenset({
    "other", "last", "first", "second", "third", "fourth", "fifth", "next", "same", "new", "old", "big", "bigger",
    "biggest", "small", "smaller", "smallest", "cheap", "cheaper", "cheapest", "expensive", "dear", "dearer",
    "right", "left", "best", "better", "only", "whole", "black", "white", "long", "short", "light", "heavy",
})  # fmt: skip
_PRICE_OF = re.compile(
    r"\W*(?:(?:and|ok|so|und|et)\W+)?(?:the |der |le )?(?:price|cost|preis|prix)\s+(?:of|for|von|fur|du|de|des)\b"
)
# A product called first, then asked about: "the knife, what steel is it?", "going back to the hose, is it
# kink-free?", "the retractable one, how far …", "die Schere, ist die …", "le collier rouge, il …"
_CALLED_FIRST = re.compile(
    r"^\W*(?:(?:ok|okay|and|so|also|und|et|alors|going back to|back to|what about|and what about)\s+)*"
    r"(?:the|that|those|these|this|die|der|das|den|dem|diese[nrs]?|le|la|les|l'|ce|cet|cette|ces)\s*"
    r"((?:[^\W\d_]+\s+){0,3}?[^\W\d_]+)\s*(?:,|:|\s-\s|\s(?:ones?)\b|\s(?=" + ph.ASKED_RIGHT_AFTER + "))"
)
# "is the cheaper boot waterproof", "ist die günstigere Uhr wasserdicht": a product pointed at by its price and its
# kind inside a question (`ph.PRICED_ONE` reads it before a pause or what is asked)
_PRICED_INSIDE = re.compile(
    r"^\W*(?:(?:and|so|ok|und|et)\W+)?(?:is|are|does|do|can|will|would|has|have|ist|sind|hat|haben|kann|passt|"
    r"est-ce que)\s+(?:the|die|der|das|den|le|la|l')\s*(?:(?P<cheap>cheaper|cheapest|less expensive|"
    r"g(?:u|ue)nstiger\w*|g(?:u|ue)nstigst\w*|billiger\w*|billigst\w*)|(?P<dear>dearer|dearest|pricier|priciest|"
    r"more expensive|most expensive|teurer\w*|teuerst\w*))\s+"
    # ("is the cheaper of the two propagators big enough?")
    r"(?:(?:of|von|des)\s+(?:the\s+|den\s+)?(?:two\s+|both\s+|beiden\s+|zwei\s+|deux\s+)?)?(?P<kind>[^\W\d_]{3,})\b"
)
# "the cat tree with hammock you showed, is it in stock?": a longer opening calling a thing, up to its comma
_CALLED_AT_OPENING = re.compile(
    r"^\W*(?:(?:ok|okay|and|so|also|und|et|alors)\s+)*(?:the|die|der|das|den|le|la|les|l')\s*"
    r"((?:[^\W\d_]+\s+){0,6}?[^\W\d_]+)\s*(?:,|:|\s-\s)"
)
# "whats the price of the laser toy", "how much is the reel?", "was kostet der Rechen?", "combien coûte la
# brouette ?": the thing priced, the words after its article up to the end of the question
_PRICE_OF_THE = re.compile(
    r"\b(?:(?:price|cost|preis|prix)\s+(?:of|for|von|fur|du|de|des)|how much (?:is|are|was|were|does|do)|"
    r"was kostet|was kosten|combien (?:coute|coutent))\s+(?:the|der|die|das|den|le|la|les|l')\s*"
    r"((?:[^\W\d_]+\s+)?[^\W\d_]+)\W*$"
)
# "aus welchem Material ist der Rechen?", "wie lang ist der Schlauch": the thing a German question is asked of,
# after its verb
_ASKED_OF_THE = re.compile(r"\b(?:ist|sind|hat|haben|kann|braucht)\s+(?:der|die|das)\s+([^\W\d_]+)")
_ONES_CALLED = re.compile(r"\bones?\W*$")
# Words a question asks of a product, not products: "the price, …?", "the warranty, how long is it?"
_NOT_PRODUCTS = frozenset({
    "price", "prices", "cost", "warranty", "guarantee", "delivery", "shipping", "postage", "return", "returns",
    "refund", "size", "sizes", "sizing", "fit", "colour", "colours", "color", "colors", "material", "fabric",
    "weight", "length", "width", "height", "depth", "capacity", "battery", "brand", "quality", "stock", "discount",
    "sale", "offer", "deal", "review", "reviews", "rating", "ratings", "manual", "instructions", "care", "assembly",
    "model", "version", "difference", "option", "options", "link", "page", "photo", "picture", "image", "list",
    "shop", "store", "website", "order", "total", "rest", "others", "same", "kind", "type", "sort", "pack", "set",
    "preis", "garantie", "lieferung", "versand", "grosse", "farbe", "gewicht", "marke", "prix", "livraison",
    "taille", "couleur", "poids", "marque", "matiere",
})  # fmt: skip
_ABOUT_THE = re.compile(r"^\W*(?:(?:and|ok|so) )?(?:what|how) about the \w")
_SIZED_BY = frozenset({
    "small", "little", "big", "large", "kleine", "kleinen", "kleiner", "kleines", "grosse", "grossen", "grosser",
    "grosses", "petit", "petite", "petits", "petites", "grand", "grande", "grands", "grandes",
})  # fmt: skip
_JOINING = frozenset({"in", "of", "aus", "en"})  # "pots in clay", "Töpfe aus Terrakotta"
# "does the terracotta pot have a drainage hole?", "how long is the garden hose?", "hat der Rasenmäher
# einen Fangkorb?", "est-ce que la bouilloire est sans fil ?": a question of a product the message calls
# by what it is, right after its article (the words after it, up to four)
_ASKS_OF_THE = re.compile(
    r"^\W*(?:(?:and|ok|okay|so|hi|hey|hello|und|also|et|bonjour)\W+)?(?:"
    r"(?:does|do|is|are|can|could|will|would|has|have|did|should)\s+(?:the|your)"
    r"|(?:how|what|which)\s+(?:[^\W\d_]+\s+){0,2}?(?:is|are|does|do|can|will)\s+(?:the|your)"
    r"|(?:hat|haben|ist|sind|kann|konnen|passt|passen|braucht|brauchen|halt|halten)\s+"
    r"(?:der|die|das|den|dem|eure[nmr]?|ihre?[nmr]?)"
    r"|(?:wie\s+(?:[^\W\d_]+\s+)?(?:ist|sind)|was\s+kostet)\s+(?:der|die|das)"
    r"|est[- ]ce\s+que\s+(?:le|la|les|l'|vos|votre)|combien\s+(?:coute|mesure|pese)\s+(?:le|la|les|l')"
    r")\s*((?:[^\W\d_]+\s+){0,3}[^\W\d_]+)"
    # "die kleinen Töpfe aus Terrakotta, haben die ein Loch?", "la poêle, elle va au four ?"
    r"|^\W*(?:the|der|die|das|le|la|les)\s+((?:[^\W\d_]+\s+){0,3}?[^\W\d_]+)\s*(?:,|:|\s[-\u2013\u2014]\s)"
)

VocabularySource = Callable[[], Awaitable[Vocabulary]]


# A message's sentences: what ends each (".", "!" or "?") kept with it.
_SENTENCE = re.compile(r"[^.!?]+[.!?]*")


def _question_and_telling(text: str) -> tuple[str, str] | None:
    """A message of one question and what the shopper tells around it ("how heavy is it? we only have a small
    car", "we only have a small car. how heavy is it?"): the question and the rest; None for other messages."""
    sentences = [s.strip() for s in _SENTENCE.findall(text) if s.strip() and any(ch.isalpha() for ch in s)]
    asked = [s for s in sentences if s.endswith("?")]
    if len(sentences) < 2 or len(asked) != 1:
        return None
    rest = " ".join(s for s in sentences if s is not asked[0])
    return asked[0], rest


def _searches(reply: ModelReply) -> bool:
    return any(c.name == SEARCH_TOOL for c in reply.message.function_calls)


def _only_details(reply: ModelReply) -> bool:
    calls = reply.message.function_calls
    return bool(calls) and all(c.name == DETAILS_TOOL for c in calls)


class Planner:
    """Plans the reply to a customer's message against what the conversation has shown."""

    def __init__(
        self,
        replies: Replies,
        store_name: str,
        lexicon: Lexicon,
        vocabulary: VocabularySource | None,
        contact: str = "",
        store_language: bool = True,
        pages_language: str = "en",
    ) -> None:
        self._say_in = replies
        self._store_language = store_language  # whether the shopper's language is the catalog's
        self._pages_language = pages_language  # the language of the shop's catalog and pages
        self._catalog_stems: tuple[Vocabulary | None, frozenset[str]] = (None, frozenset())
        self._contact = contact
        self._store = store_name
        self._lexicon = lexicon
        self._vocabulary = vocabulary

    async def plan(self, text: str, history: History, tools: frozenset[str] = frozenset()) -> ModelReply:
        """A reply to `text`, or the tool calls to make first (their plan in `provider_state`).
        `tools` names the tools at hand (the shop's pages are searched only when one is)."""
        reading = self._lexicon.read(text)
        reply = await self._plan(text, reading, history, tools)
        if (history.shown or history.detailed) and _searches(reply) and (asked := _question_and_telling(text)):
            # "et le poids ? on a une petite voiture": the question of the product talked about, the rest of
            # the message telling why (was searched whole, "poids petite voiture"); only a question of it
            told = self._lexicon.read(asked[1])
            # (what the shopper tells: "we only have a small car", not a thing asked for, "some fertiliser")
            telling = tells_a_situation(words(fold(asked[1]))) or await self._names_no_kind(told.words)
            if telling and not (told.request or told.question or told.has_filters or told.follow_up or told.buy):
                alone = await self._plan(asked[0], self._lexicon.read(asked[0]), history, tools)
                if _only_details(alone):
                    return alone
        state = reply.message.provider_state or {}
        searches = [c for c in reply.message.function_calls if c.name == SEARCH_TOOL]
        if reading.price_order and "plan" in state and len(searches) == 1 and not state["plan"].get("refined"):
            # "cheapest jacket you have": as many of the kind as a search gives, shown by price
            searches[0].args["limit"] = MAX_LIMIT
            plan = {**state["plan"], "price_order": reading.price_order}
            said = self._say_in.cheapest_first if reading.price_order == "cheapest" else self._say_in.dearest_first
            if plan.get("subject"):
                plan["subject"] = f"{plan['subject']}, {said}"
            state["plan"] = plan
        if reading.colors_not and "plan" in state and searches:
            # "a hoodie, not grey pls": none of those made only in the colours not wanted, and that said back
            plan = {**state["plan"], "colours_not": reading.colors_not}
            if plan.get("subject"):
                not_in = self._say_in.not_in_colours.format(colours=self._say_in.or_word.join(reading.colors_not))
                plan["subject"] = f"{plan['subject']}, {not_in}"
            state["plan"] = plan
        return reply

    async def _plan(self, text: str, reading: Reading, history: History, tools: frozenset[str]) -> ModelReply:
        r = self._say_in
        if reading.store_question:
            if STORE_TOOL in tools:
                query = " ".join(text.split())
                if (
                    history.store_asked
                    and len(words(text)) <= _STORE_FOLLOW_UP_WORDS
                    and not topics_named(words(read_store_question(text, self._pages_language)))
                ):
                    # "whats the wait time usually" right after "do you have a workshop?": asked of that
                    query = f"{history.store_asked} {query}"
                if not self._contact and CONTACT_ASKED.search(fold(text)):
                    # "what's your phone number?" with no contact set: the page on reaching the shop
                    query = f"{query} (contact customer service)"
                return store_call(query, {})
            return say(self._no_store_answer())
        shown = history.shown
        if shown is None and reading.words and set(reading.words) <= _SIZE_WORDS and ask.WHICH_SIZES.search(fold(text)):
            return say(r.no_list)  # "what sizes do you have?" before anything was shown: of what
        if shown is not None and (unknown := await self._one_not_carried(text, shown)) is not None:
            return say(r.no_such_one.format(name=unknown))  # "the logitech one, how much?" where none is
        pointing_by = reading.priced_ref is not None or reading.size_ref is not None or reading.refs or reading.ordinals
        if (
            shown is not None
            and not pointing_by
            and (thing := await self._thing_not_carried(text, history)) is not None
        ):
            # "the hosta how tall does it get?" after perennials, none a hosta, nor any product of the shop: said so
            # (was answered of the first perennial shown); "the cheaper nozzle" points at one shown, by its price
            return say(r.no_such_thing.format(thing=thing))
        if (
            (inside := _PRICED_INSIDE.search(fold(text))) is not None
            and _priced_of_kind(history, inside.group("kind"), "cheapest") is None
            and (kind := await self._kind_not_shown(text, history, inside.group("kind"), by_name=True)) is not None
        ):
            # "Is the cheaper of the two propagators big enough?" where no list had a propagator: the shop's
            # propagators, found, the cheaper (dearer) of them asked of (was the grow light talked about)
            synonyms = await self._catalog_synonyms(text)
            return find_called([kind], [], text, synonyms, [], or_first=True,
                               priced="cheapest" if inside.group("cheap") else "dearest")  # fmt: skip
        if reading.colour_ref and not reading.request and not _shown_in(reading.colour_ref, history):
            # "the grey one you mentioned, what's it made of?" where nothing shown comes in grey (nor is named so):
            # asked which (was the first product shown, dental sticks)
            return self._in_colour_unshown(text, reading, history)
        if reading.buy and _BOTH.search(fold(text)) and (both := _both(history)):
            return details_call(both, question=text, asked=_asked_of(reading))  # "add both", "beides bitte"
        if (reading.buy or reading.compare or reading.question) and (
            named_each := await self._each_named(text, history)
        ):
            # "add the toy and the bed", "compare the first mower and the first trimmer", "which is bigger, the
            # saucepan or the first stock pot?": each from its own list (of one list, as the list says, below)
            current = {p.get("productId") for p in shown.products} if shown else set()
            if reading.buy or not set(named_each) <= current:
                if reading.compare and not (reading.buy or reading.question or "?" in text) and len(named_each) == 2:
                    return details_call(named_each, compare=True)
                return details_call(named_each, question=text, asked=_asked_of(reading))
        if (again := await self._shown_again(reading, text, history)) is not None:
            return again
        if (of_earlier := await self._of_an_earlier_list(reading, text, history)) is not None:
            return of_earlier
        if (back := await self._back_to(reading, text, history)) is not None:
            return back
        if (other := self._the_other_one(reading, text, history)) is not None:
            return other
        if shown and len(shown.products) == 2 and len(reading.refs) == 1 and ph.OTHER_ONE.search(fold(text)):
            # "which one is better, the first or the other one?" of two shown: both
            reading.refs = [1, 2]
        if (
            reading.priced_ref is not None
            and reading.priced_kind
            and (priced := _priced_of_kind(history, reading.priced_kind, reading.priced_ref))
        ):
            # "the cheaper knife, what steel is it?": the cheapest of the knives of the latest list with any
            question = text.replace(reading.priced_said, " ") if reading.priced_said else text
            return details_call([priced], question=question, asked=_asked_of(reading))
        if (
            reading.priced_ref is None
            and (inside := _PRICED_INSIDE.search(fold(text))) is not None
            and (priced := _priced_of_kind(history, inside.group("kind"), "cheapest" if inside.group("cheap") else ""))
        ):
            # "is the cheaper boot waterproof" after boots, then rain jackets: the cheapest boot, and whether it is
            # (was the first boot of that list)
            question = " ".join(fold(text)[: inside.start()].split() + fold(text)[inside.end() :].split())
            return details_call([priced], question=question, asked=_asked_of(reading))
        if reading.priced_ref is not None:
            # "the cheaper one, does it have hdmi?": the cheapest (dearest) of the list, by position;
            # with no list, a request for cheaper (dearer) ones, as the words say.
            # Just after two or more were compared, "the cheaper one" is the cheaper of those ("the
            # cheapest one", "the cheaper one on the list" are of the list).
            folded = fold(text)
            of_those = not (_SUPERLATIVE.search(fold(reading.priced_said)) or _WHOLE_LIST.search(folded))
            compared = set(history.detailed) if of_those else set()
            # ("the cheapest one on the whole list": of all of it)
            whole = _WHOLE_LIST.search(folded) is not None
            kind_words = None if whole or not shown else {stem(w) for w in words(str(shown.args.get("query", "")))}
            position = _priced_position(shown.products if shown else [], reading.priced_ref, compared, kind_words)
            if position is None:
                reading.cheaper, reading.pricier = reading.priced_ref == "cheapest", reading.priced_ref == "dearest"
            else:
                reading.refs = [position, *[r for r in reading.refs if r != position]]
                reading.details = reading.details or not reading.compare
                text = text.replace(reading.priced_said, " ") if reading.priced_said else text  # not asked of
        also = await self._catalog_synonyms(text) if reading.size_ref is not None else {}
        if (sized := self._sized_one(reading, history, also)) is not None:
            return sized
        if reading.price_compared and shown and shown.products and not reading.refs:
            # "which is cheaper?" just after two were compared: of those; else of the list
            ids = [int(p["productId"]) for p in shown.products]
            just_compared = [i for i in history.detailed if i in ids]
            asked_of = just_compared if len(just_compared) >= 2 and not _WHOLE_LIST.search(fold(text)) else ids
            return details_call(asked_of, question=text, asked=_asked_of(reading))
        asks_other = reading.cheaper or reading.pricier or reading.similar or reading.more or reading.request
        narrows = reading.sizes or reading.max_price is not None or reading.min_price is not None
        if reading.colour_ref is not None and shown and not (reading.refs or asks_other or narrows):
            # "is the blue one midi length?": the one product shown that comes in blue (of several
            # that do, which one is meant the colour does not tell)
            colour = reading.colour_ref
            coloured = [n for n, p in enumerate(shown.products, 1) if colour in colours_of(p)]
            if not coloured:  # "the blue one" of a navy beanie and a grey one: the navy one
                coloured = [
                    n for n, p in enumerate(shown.products, 1) if ph.colours_of_family(colour, colours_of(p))
                ]  # fmt: skip
                if len(coloured) == 1:  # (of several in a shade of it, which one the colour does not tell)
                    reading.refs = coloured
                    reading.details = reading.details or not reading.compare
                    reading.colors = [c for c in reading.colors if c != reading.colour_ref]
                elif not coloured and (
                    in_colour := history.returned_to(set(), colour, lambda name: {stem(w) for w in words(name)})
                ):
                    # "the red one, is it in stock?" after hand blenders in black and white, since a stand
                    # mixer in red: that one
                    return details_call([in_colour], question=text, asked=_asked_of(reading))
            elif len(coloured) == 1 or (reading.question and "?" in text and len(coloured) <= _ASKED_ABOUT_UNPOINTED):
                # ("is the blue one lined?" of two dresses that come in blue: asked of both)
                reading.refs = coloured
                reading.details = reading.details or not reading.compare
                reading.colors = [c for c in reading.colors if c != reading.colour_ref]
        if shown and not (reading.refs or asks_other or narrows) and _BARE_X_ONE.fullmatch(fold(text)):
            # "the ergonomic one", "the glass one": the one product shown its name calls so
            by_name, _ = named_products(text, shown.products)
            if len(by_name) == 1:
                reading.refs = [shown.products.index(by_name[0]) + 1]
                reading.details = True
        # The words the catalog uses for its products; the rest ("pls", "lol", "for my dad") only
        # colour a message, and alone they do not make it a new request.
        named = await self._catalog_words(reading.words)
        cued = reading.follow_up or reading.refs or reading.compare or reading.details
        # "merci bcp", "thanks, that's helpful": small talk with a word or two the catalog never uses.
        # ("merci, je prends le pull" chooses the pullover, with thanks)
        chatter = reading.small_talk and not (named or cued or reading.request or reading.buy)
        chatter = chatter and len(reading.words) <= 2
        # "how much is it?", "how much is that one now?": a question of the one shown, in stop-words only
        # "price?", and "how much" (no word of its own) after a list
        said = fold(text)
        priced = all(ask.PRICE.search(w) for w in reading.words) if reading.words else bool(ask.PRICE.search(said))
        of_it = (
            (reading.points_at_one or reading.points_at_all or priced)
            and bool(shown or history.detailed)
            and ask.PRICE.search(said) is not None
        )
        # ("c'est en quoi", "elle est en quoi ?": what it is made of, in stop-words only)
        made_of = bool(shown or history.detailed) and _MEASURE_ASKED.fullmatch(said) is not None
        nothing_asked = not (reading.words or cued or of_it or made_of) or chatter
        if (
            nothing_asked
            and shown is not None
            and (reading.negated or reading.colors_not)
            and not (chatter or reading.refs or of_it)
        ):
            # "no capsules pls", "not non-stick", "ohne Absatz" after a list: that search, without those
            return self._refine(reading, shown, attribute=False)
        if nothing_asked:
            if (
                (reading.points_at_one or reading.buy)  # ("ok die nehm ich" after the jacket was talked about)
                and not reading.small_talk
                and (history.detailed or (shown and len(shown.products) == 1))
            ):
                # "ok that one": the one talked about (or the one shown)
                return details_call(history.detailed[:1] or [int(shown.products[0]["productId"])] if shown else [])
            if reading.points_at_one and not reading.small_talk and shown and not reading.off_topic:
                return self._out_of_range(shown.products)  # "ok that one" after a list of three: which one?
            if reading.identity:
                return say(r.identity.format(store=self._store))
            if reading.thanks:
                return say(r.thanks.format(store=self._store))
            if reading.bye:
                return say(r.bye.format(store=self._store))
            if reading.greeting:
                return say(r.greet.format(store=self._store))
            if shown and _NOTED.fullmatch(fold(text)):  # "ok", "hmm", "alles klar" after a list
                return say(r.noted)
            return say(r.off_topic.format(store=self._store) if reading.off_topic else r.unclear)
        # "do you have a sharpener that would work for it?": another thing, for the one talked about.
        if (
            shown
            and not (_ASSEMBLY.search(fold(text)) and not _SELLS.search(fold(text)))  # "do i need tools?": of it
            and (another := another_thing(reading, text, shown.products, history.detailed))
            # "do i need a lot of it?" asks of it; "do you have a sharpener for it?" asks the shop for one,
            # whether or not the catalog calls anything a sharpener
            and (
                another.of_shop
                or not await self._names_no_kind(another.words[-1:])
                # "gibt es auch Möbel dazu?" after a dollhouse: "Dollhouse Furniture Set" (not a kind: sets)
                or (another.there and await self._in_names(another.words[-1:]))
            )
        ):
            return another.call(_filters_of(reading))
        if shown and (for_others := self._for_others(reading, shown, text)) is not None:
            return for_others
        if (asked := await self._asked_about_shown(reading, history, named, text)) is not None:
            return asked
        if not (shown or history.detailed) and (called := await self._called_in_question(reading, text)):
            # "does the terracotta pot have a drainage hole?" with nothing shown: the pot, found, then asked
            catalog_words, synonyms = called
            return find_called(catalog_words, [], text, synonyms, [], or_first=True)
        if reading.compare or reading.refs or reading.details or reading.about:
            pointed = self._pointed_at(reading, history, text)
            if pointed is not None:
                return pointed
        if reading.off_topic and not named:
            return say(r.off_topic.format(store=self._store))
        # "do you also have puppy training pads", "do you have a gps tracker collar" after puppy food, collars: a
        # thing asked of the shop, searched as said (not the list's search with more words)
        of_shop = shown is not None and (
            asks_shop_for_a_thing(text, shown.products, reading.words)
            or await self._adds_a_thing(text, reading, shown.products)
        )
        if shown is not None and history.detailed and _only_a_variation(reading):
            # "in black?" right after the two wide-leg ones were talked about: do those come in black (not the
            # list's search again in black, which would answer of others)
            return details_call(history.detailed[:LIST_LENGTH], question=text, asked=_asked_of(reading))
        if shown is not None and (reading.follow_up or reading.attribute) and not of_shop:
            earlier = set(words(str(shown.args.get("query", ""))))
            same_subject = not named or set(named) <= earlier  # "cheaper ones pls", "the knives in black?"
            # ("oh and an apron as well please, size M" after pans: an apron, a thing the catalog has no word for)
            same_subject = same_subject and not _and_a_thing_unknown(text, reading, named, shown.args)
            # ("We also need two folding chairs, do you sell these?" after stoves: a thing asked for as well, not a
            # detail of those shown; not "do you also have grain free ones?")
            folded = fold(text)
            also_asked = (
                reading.request and _ALSO.search(folded) and not _points_at_shown(reading, folded) and named
                and not set(named) <= earlier
            )  # fmt: skip
            # "something grain free, between 15 and 25" after dog foods, some of them grain-free:
            # a detail of the products shown, not a new subject.
            of_shown = bool(named) and {stem(w) for w in named} <= words_of(shown.products)
            # ("also need a dog bed, he's about 25kg" after dog food: a bed, a new request, told of whom it is for)
            new_kind = not (same_subject or of_shown) and await self._names_another_kind(named, shown, earlier)
            if not also_asked and ((reading.attribute and not new_kind) or same_subject or of_shown):
                # ("for thick branches", "für dicke Äste" after secateurs: what they are for, though it names no kind)
                said_for = named or (reading.words if _OPENS_ON_FOR.match(fold(text)) else [])
                detail = (reading.attribute or of_shown) and not set(said_for) <= earlier
                return self._refine(reading, shown, attribute=detail, about=_talked_about(history))
        if shown is not None and not of_shop and await self._only_qualifies(reading, named, shown, text):
            # "something grain free, between 15 and 25" after dog foods: no word of it names a kind
            # of thing or whom it is for, so it says more about the thing shown.
            return self._refine(reading, shown, attribute=True, qualifies=not _NEGATION.search(fold(text)))
        if (
            (returned_to := history.earlier_search(named)) is not None
            and shown is not None
            and not of_shop
            and not _THING_TO.search(fold(text))  # "something to clean suede with" after suede boots
            # "and a knife sharpener" after "knife block set": a thing added, of words that search did not have
            and not (_AND_SOME.match(fold(text)) and set(reading.words) - set(words(str(returned_to.get("query", "")))))
            # "and leggings for running" after running shoes: leggings, a thing the catalog has no word for, not
            # running shoes again
            and not _and_a_thing_unknown(text, reading, named, returned_to)
        ):
            # "and the knives in black?" two turns after "knives under 30": that search, refined.
            subject = str(returned_to.get("query", ""))
            return self._refine(reading, Shown(returned_to, subject, []), attribute=False)
        if reading.words:
            not_had = reading.unknown_sizes if reading.unsized and reading.unsized[0] else []
            if not_had and reading.unsized:  # "sneakers in size 47": sneakers, said to be none in 47
                found, query, said, whole = reading.unsized
                reading = dataclasses.replace(reading, words=found, query=query, said=said, said_whole=whole)
            filters = _filters_of(reading)
            args: dict[str, Any] = {"query": await self._search_words(reading, text), "limit": LIST_LENGTH}
            if told := _age_told_before(text, history):  # "and a helmet for her too" after "my daughter turns 5"
                args["query"] = f"{args['query']} {told}"
            if filters:
                args["filters"] = filters
            plan = self._subject(reading, named, text)
            if things := await self._several_things(reading):  # "need a cage and bedding": each searched
                each = [{**args, "query": " ".join(words)} for words, _ in things]
                written = {fold(token): token for token in TOKEN.findall(text)}  # "Mütze", not "mutze"
                subjects = [" ".join(written.get(w, w) for w in own) for _, own in things]
                return search_calls(each, {**plan, "args": args, "each": subjects})
            if reading.budget and reading.max_price is None and not reading.price_order:
                plan["budget"] = True  # "cheap tshirts, white, L": the strong matches, cheaper first
            if reading.broad:  # "first time camping, where do I start?": one of each kind
                args["limit"] = _BROAD_RESULTS
                plan["broad"] = True
            if STORE_TOOL in tools:  # when no product fits, the shop's pages may answer
                plan.update(store_fallback=" ".join(text.split()), question=reading.question)
                # "are your prices including vat?": a question naming no kind of thing the shop sells
                # (not "what do you have for a small garden?": a request)
                plan["names_no_kind"] = (
                    reading.question and not reading.request and await self._names_no_kind(reading.words)
                )
            if await self._catalog_is_empty():  # then "try a wider price range" would mislead
                plan["catalog_empty"] = True
            if reading.soft_floor and reading.max_price is not None:
                # "a decent chef's knife, budget around 100": when nothing fits between 80 and 120,
                # the best one below (64.90) is what they would want; "around" sets no floor.
                plan["fallback"] = {"maxPrice": float(reading.max_price), "exclude": []}
            elif (
                reading.max_price is not None
                and not (reading.price_order or reading.broad or plan.get("refined"))
                # (not a gift or a situation: "gift for a friend who loves baking, max 50" names no kind to show
                # at its prices; what comes close within the price is the answer)
                and not tells_a_situation(words(fold(text)))
            ):
                plan["capped"] = True  # "chinos, max 50 euro" where none costs so little: the chinos there are
            if not_had:
                plan["unknown_sizes"] = not_had
            if reading.colors and not plan.get("fallback"):
                # "that black weed sheet": a product sold in no colours may be black all the same
                plan["uncoloured"] = True
            if reading.negated:  # "coffee machine, no capsules", "she has a balance bike now": none named so
                plan["without"] = reading.negated
            if (focus := _in_focus(reading, history, named)) is not None:
                plan.update(said_of=focus, said_words=named)
            return search_call(args, plan, also_details=focus)
        if reading.has_filters:  # "anything under 30 euros?" with nothing before it
            args = {"query": " ".join(_filter_words(reading)) or "products", "limit": LIST_LENGTH,
                    "filters": _filters_of(reading)}  # fmt: skip
            return search_call(args, {"subject": "", "browse": True, "catalog_empty": await self._catalog_is_empty()})
        return say(r.no_list if reading.refs or reading.details else r.unclear)

    async def _asked_about_shown(
        self, reading: Reading, history: History, named: list[str], text: str
    ) -> ModelReply | None:
        """A question about products shown ("is the second one waterproof?", "how far will the
        battery go?", "which of them is lighter?", "does it come in blue?"): the details of the
        product(s) it is about, to answer from; None when the message asks for something else."""
        shown = history.shown.products if history.shown else []
        # "battery life" right after the headphones were described: a property of them, asked
        asked_of_it = bool(history.detailed) and reading.asks_about and 0 < len(reading.words) <= _QUALIFYING_WORDS
        asked_of_it = asked_of_it and not (reading.request or reading.has_filters or reading.follow_up)
        asked_of_it = asked_of_it and not _ANY_THING.search(fold(text))  # "anything lighter": others, asked for
        # "good for a beginner?", "ok for a small flat?", "gut für Anfänger?": whether what was shown suits
        asked_of_it = asked_of_it or bool(_SUITS.match(fold(text)) and "?" in text and not reading.request)
        # "wattage", "blade length?", "cutting width", "what steel", "Abmessungen?": a measure or what it is made
        # of, asked of what was shown (with or without a question mark)
        measure_asked = bool(_MEASURE_ASKED.fullmatch(fold(text)) or ask.BIGGER_ASKED.fullmatch(fold(text)))
        measure_asked = measure_asked and not reading.request
        asked_of_it = asked_of_it or measure_asked
        if not (reading.question or reading.buy or "?" in text or asked_of_it) or not (shown or history.detailed):
            return None
        if reading.stock_asked and {stem(w) for w in named} - words_of(shown):
            return None  # "any watering cans in stock?" after hoses: cans, in stock
        pointed = reading.refs or reading.points_at_one or reading.points_at_all
        if _ASSEMBLY.search(fold(text)) and not _SELLS.search(fold(text)):
            # "do I need tools to assemble it?", "do I need tools?", "muss man den aufbauen?": of it
            refs = reading.refs or ([o for o in reading.ordinals if o != -1] if shown else [])
            ids = self._asked_ids(reading, refs, history, shown, [], text)
            return ids if isinstance(ids, ModelReply) else details_call(ids, question=text, asked=_asked_of(reading))
        if not pointed and (
            asks_shop_for_a_thing(text, shown, reading.words) or await self._adds_a_thing(text, reading, shown)
        ):
            return None  # "ok and do you have a rake for the moss?" after lawn feed: a rake, whatever the catalog has
        # "ist die erste aus Stretch?"; but "last" is also a verb ("how long does it last?")
        refs = reading.refs or ([o for o in reading.ordinals if o != -1] if shown else [])
        # "et pour la deuxième, il y a des joints ?" and "what about the headset, is it ok for smaller
        # heads" ask of it; "what about the second one?" shows it, "what about a headset?" looks for one
        the_thing = _ABOUT_THE.search(fold(text)) and (reading.points_at_one or reading.points_at_all)
        # ("et la capacité de stockage ?" after tablets: a measure of them; "what about the battery?" something
        # their texts tell where the shop sells no batteries)
        of_them = measure_asked or bool(
            reading.about
            and _ABOUT_THE.search(fold(text))
            and 0 < len(reading.words) <= _QUALIFYING_WORDS
            and await self._names_a_property(reading.words, text)
        )
        of_them = of_them or bool((refs or the_thing) and reading.words)
        # ("et il pèse combien ?", "und wiegt er viel?": what it has, asked of it by a pronoun)
        of_them = of_them or bool(reading.about and reading.points_at_one and reading.question and reading.asks_about)
        if reading.more or reading.similar:
            return None
        # "which is louder, first or second?", "P27Q vs G24 for office work?": answered from their
        # details; "compare the first two", saying nothing to compare them on, gets the side-by-side.
        # ("which one is better for a large breed puppy" names what it is for, in words the names share: a
        # question for their texts, not the side-by-side)
        purpose = _BETTER_FOR.search(fold(text)) is not None
        if reading.compare and not purpose and not {stem(w) for w in reading.words} - words_of(shown) - ORDINAL_WORDS:
            return None
        synonyms = await self._catalog_synonyms(text)  # its words in the catalog's language, looked up once
        if (
            (called_so := _CALLED_FIRST.match(fold(text)) or _called_shown_at_opening(fold(text))) is not None
            and not (refs or reading.compare or reading.sizes)
            # (a colour calling it too: "the terracotta pot, how many litres?" after seeds and feed, no pot shown)
            and not (reading.colors and not _says_a_colour(called_so.group(1), reading.colors))
            and not _ONES_CALLED.search(called_so.group(0))  # ("the chicken ones": chicken treats, below)
            and (not_listed := await self._named_not_shown(called_so.group(1), history))
        ):
            # "the allium bulbs - how many in a pack?" after tulips and daffodils: the shop's allium bulbs, found,
            # then asked (was the tulips, by "bulbs"); "the cat tree with hammock you showed" after cat beds (was
            # the cat cave)
            if isinstance(not_listed, int):
                return details_call([not_listed], question=text, asked=_asked_of(reading), also=synonyms)
            return find_called(not_listed, [], text, synonyms, [], or_first=True)
        if of_kind := _which_of_an_earlier_kind(text, history, synonyms):
            # "which bed is washable" after cat beds, then scratching posts: of the beds
            return details_call(of_kind, question=text, asked=_asked_of(reading), also=synonyms)
        if (earlier := self._earlier_of_kind(reading, history, shown, named, synonyms, text)) is not None:
            # "ok I'll take the jacket" after gloves were shown since the jacket: the jacket
            return details_call([earlier], question=text, asked=_asked_of(reading), also=synonyms)
        if reading.about and not of_them:  # ("et l'arrosoir, il est en quoi ?" of the can shown before: above)
            return None
        # "in black?" after two jeans asks of them, not of the "Black Skinny Jeans" shown beside them
        colours = {fold(c) for c in reading.colors}
        naming_text = fold(text)
        for colour in colours:
            naming_text = re.sub(rf"\b{re.escape(colour)}\b", " ", naming_text)
        also = [w for w in synonyms.values() if fold(w) not in colours]
        parts: set[str] = set()
        if (reading.points_at_one or reading.points_at_all) and not _ONES.search(naming_text):
            # "does it come with a cable?", "hat sie eine Kapuze?": the part asked of it names no product
            # shown (the "Lightning Cable", the "Hooded Jacket"); "the one with a lid" does
            parts = {w for m in _HAS_A_PART.finditer(naming_text) for w in words(m.group(0))}
            # ("is that hoe stainless steel?": "that hoe" calls the hoe shown, it is not what is asked of it)
            that = called_that(naming_text, shown, synonyms)
            naming_text = f"{_HAS_A_PART.sub(' ', naming_text)} {that}"
            left = set(words(naming_text))
            parts -= left
            also = [w for said, w in synonyms.items() if fold(w) not in colours and not set(words(fold(said))) & parts]
        by_name, naming = named_products(naming_text, shown, also=also, several=reading.compare)
        talked_about = set(history.detailed)
        # "the knife, what steel is it?", "the retractable one, how far does it extend?", "le collier rouge, il
        # existe en S ?": called so first, the one asked about is that one, whatever was talked about before
        called_first = (opening := _CALLED_FIRST.match(fold(text))) is not None and bool(
            by_name and named_products(opening.group(1), shown, also=also)[0]
        )
        # "le long en gris, il est en laine ?": called by a colour too, the ones shown made in it (where some are)
        called_in = {self._lexicon.colors[w] for w in words(opening.group(0)) if w in self._lexicon.colors} if (
            opening is not None) else set()  # fmt: skip
        coloured = [p for p in shown if called_in & set(p.get("availableColors") or [])]
        if coloured and len(coloured) < len(shown) and (by_name or called_first):
            by_name = [p for p in by_name if p in coloured] or coloured
        # ("does the camera need a subscription?" after three cameras were listed since the smart plug talked
        # about: the first of them)
        called_the_list = (
            ""
            if opening or talked_about & {p["productId"] for p in shown}
            else called_the(naming_text, shown, synonyms, every=True)
            or called_that(fold(text), shown, synonyms, every=True)
        )
        if (opening is not None or called_the_list) and not by_name and not refs:
            # "the knife, what steel is it?" where every product shown is a knife (so the word tells none
            # apart) and a pan was talked about since: the first of those knives
            called_stems = {stem(w) for w in words(opening.group(1) if opening else called_the_list)}
            if called_the_list:  # (and in the catalog's words: "die Powerbank" of a "Power Bank")
                called_stems |= {stem(w) for w in words(fold(synonyms.get(called_the_list, "")))}
            all_named = [p for p in shown if calls(called_stems, str(p.get("name", "")))]
            if len(all_named) == len(shown) >= 2 and (reading.points_at_all or _WHICH_OF.search(fold(text))):
                by_name, naming = all_named, 1  # "which of the games works for the most players?": of them all
            elif len(all_named) == len(shown) >= 2 and not talked_about & {p["productId"] for p in all_named}:
                # (the first that is the thing called: "how long is the hose?" of a "Hose Connector & Spray Gun
                # Set" and an "Anti-Kink Garden Hose" is the hose's length)
                forms = {f for w in called_stems for f in word_forms(w)}
                being = [p for p in all_named if _what_it_is(p) & forms]
                # (none of them being the thing called, and it said as a place, it is the shopper's: "the socket is
                # far from the hedge" after hedge shears and a hedge trimmer calls neither)
                theirs = (
                    not being
                    and re.search(rf"\b(?:{_PLACE_BEFORE}) the {re.escape(called_the_list)}\b", fold(text)) is not None
                )
                if not theirs:
                    by_name, naming, called_first = (being or all_named)[:1], 1, True
        asked_first = _asked_for_first(opening.group(1), history) if opening is not None else []
        if asked_first and opening is not None and not (by_name or refs):
            # "die Dosen, sind die luftdicht?" after "Vorratsdosen" were asked for and a scale since: those jars
            asked_rest = " ".join(text.split()[len(opening.group(0).split()) :]) or text
            return details_call(asked_first, question=asked_rest, asked=_asked_of(reading), also=synonyms)
        unshown = history.shown.unshown if history.shown else []
        kind_word = (await self._vocabulary()).names_a_kind if self._vocabulary is not None else None
        found = (
            None
            if by_name or refs or reading.compare or kind_word is None
            else _called_unshown(naming_text, shown, unshown, synonyms, kind_word)
        )
        if found is not None:
            # "the gauntlets, are they thorn proof?" after two gloves were listed: the gauntlets the search found
            # below them, called so (was the glove talked about, or a new search)
            return details_call([found], question=text, asked=_asked_of(reading), also=synonyms)
        if not (by_name or refs or reading.compare) and (
            described_as := await self._described(naming_text, reading, history, synonyms)
        ):
            described, described_words, called_as = described_as
            shown_before = _SHOWN_BEFORE.search(fold(text)) is not None
            if asked_first := _asked_for_first(" ".join(described), history):
                # "what is the leggings material" after "leggings for running" found joggers, a shoe of the list
                # before talked about since: the joggers (was the shoe, whose text has no leggings either)
                return details_call(asked_first, question=text, asked=_asked_of(reading), also=synonyms)
            # "is the basil an annual?" after herb seeds and pots were listed, a pot talked about since: the
            # product whose text tells of basil, the one talked about if its does (else the rest, latest list first)
            listed = [
                p["productId"] for shown_then in reversed(history.lists) for p in shown_then.products[:LIST_LENGTH]
            ]
            ids = list(dict.fromkeys([*history.detailed[:1], *listed]))[:_DESCRIBED_LOOKED_UP]
            # (the one talked about alone first: "how many days does the battery last" asks of it, where its
            # text tells of a battery)
            at_first, rest = (ids[:1], ids[1:]) if history.detailed else (ids, [])
            # ("what's in the box for the bead one?": what the box holds is asked, the beads only call it)
            asked_only = without_called_one(text) if set(called_as) <= set(called_one(fold(text))) else text
            return details_call(
                at_first, question=asked_only, asked=_asked_of(reading), also=synonyms, described=described,
                otherwise=history.detailed[:1], described_next=rest,
                # (searched for where none listed tells of it, when it is called shown before: "is the strap
                # swappable" of the watch talked about is of its band; "the pellets, are they organic" after copper
                # tape against slugs asks of slug pellets, not of the pelleted manure a search finds)
                described_search=" ".join(described_words) if shown_before else "",
                # ("das Mikrofon, das du gezeigt hast" of a camera whose text tells of a microphone: said so)
                told_elsewhere=_as_written(called_as, text) if shown_before else "",
            )  # fmt: skip
        if (
            by_name
            and not called_first
            and talked_about
            # ("the one with a lid", "a big one": one called so; not "for one cat", a number)
            and not (refs or reading.compare or _ONES.search(_ONE_NUMERAL.sub(" ", naming_text)))
            and not talked_about & {p["productId"] for p in by_name}
            # ("ist die Springform spülmaschinenfest?" after a pot of an earlier list was talked about: the
            # springform shown, called so)
            and not (called_the(naming_text, by_name, synonyms) and not talked_about & {p["productId"] for p in shown})
            and named_in_passing(naming_text, by_name, synonyms)
        ):
            # "ist ein Kabel dabei?" after the charger, "ok for small breeds?" after the second food: still of it
            by_name, parts = [], parts | set(words(naming_text))
        if (
            naming == 1
            and reading.points_at_one
            and history.detailed
            and not reading.compare
            and not called_first
            # ("ist das Kabel geflochten?": "das" is its article, the cable shown is called so)
            and not called_the(naming_text, by_name, synonyms)
            # ("is that charger compatible with samsung phones?" after the earbuds were talked about: the charger)
            and not called_that(fold(text), by_name, synonyms)
        ):
            by_name = []  # "can you read library books on it?": "it" is the one talked about, not the "E-reader"
        # "dishwasher safe?", "grain free?": a property asked of what was shown, by its mark alone
        property_asked = (
            "?" in text
            and 0 < len(reading.words) <= _QUALIFYING_WORDS
            and not (reading.request or reading.has_filters or reading.follow_up or _ASKS_FOR_OTHERS.search(fold(text)))
            and await self._names_a_property(reading.words, text)
        ) or measure_asked
        # "what sizes do you have?" after a list: the sizes of those shown, not a search for "sizes"
        property_asked = property_asked or (
            bool(reading.words) and set(reading.words) <= _SIZE_WORDS and bool(ask.WHICH_SIZES.search(fold(text)))
        )
        in_catalog_words = {x for w in reading.words for x in words(fold(synonyms.get(w, w)))}  # ("bio": organic)
        made_of = in_catalog_words <= MATERIALS | _MADE_OF_WORDS
        if property_asked and not (refs or reading.points_at_one) and (made_of or not history.detailed):
            # "cotton?" after t-shirts asks it of all of them, not of the "Organic Cotton Crew" alone; "grain free?"
            # after foods of all of them (one not named "Grain-Free" may be), unless one was talked about since
            by_name, reading.points_at_all = [], True
        price_asked = bool(reading.words) and all(ask.PRICE.search(w) for w in reading.words)  # "price?", "prix ?"
        # "price of the 34 waist?", "prix de la grande ?": the price of one shown, named by what else it says
        price_asked = price_asked or bool(_PRICE_OF.match(fold(text)) and not await self._cued_kind(fold(text), shown))
        if not (reading.question or reading.buy or by_name or refs or property_asked or asked_of_it or price_asked):
            return None  # with a "?", naming a product shown makes a question ("der Smart Speaker, …?")
        if reading.off_topic and not (refs or reading.points_at_one or reading.points_at_all):
            return None  # "what's the weather like in Berlin?" is not about the product shown
        if (reading.cheaper or reading.pricier) and not refs:  # "is the third one any cheaper": a question
            return None
        if not (refs or by_name) and _WHAT_TO_USE.search(fold(text)):
            return None  # "what should I sow them into?" after seeds and a grow light: what to sow into, searched
        if not (refs or by_name or history.detailed) and _WHAT_NEEDED.search(fold(text)):
            # "what do i need to dig it over?" after a list: the things for a job, searched ("it" is the
            # ground); after one product was talked about, "what do I need to use it?" asks of that one
            return None
        by_variation = [p for p in shown if names_a_variation(text, p)]  # "how much is the 450 g one?"
        # "is the manure one smelly?" after composts: the shop's manure, found first, then asked.
        # ("the suede one, is it waterproof?" names one by its material though it asks a property of it)
        # A product shown named by another word of the message is not the one called so: "the belt, is it
        # real leather?" after gloves in leather calls a belt ("the leather ones or the canvas ones" do not).
        by_called = [p for p in by_name if called_by(text, p)]
        called = [] if refs or by_called or by_variation or reading.colors or reading.sizes else named
        if called and opening is not None and (first := [w for w in called if w in words(opening.group(1))]):
            called = first  # "the knife, what steel is it?" after pans were talked about: the knife, not "steel"
        if called := called_not_shown(text, called, shown):
            # "ok the blender - warranty?" after toasters were shown since blenders: the blender shown before
            stems = {stem(w) for w in words(" ".join(synonyms.get(w, w) for w in called))}
            earlier = history.returned_to(stems, None, lambda name: {stem(w) for w in words(name)})
            if earlier is not None and not reading.request:
                return details_call([earlier], question=text, asked=_asked_of(reading), also=synonyms)
            otherwise = self._asked_ids(reading, refs, history, shown, by_name, text, parts)
            otherwise = otherwise if isinstance(otherwise, list) else []
            # ("and the plastic one?" right after the terracotta pot was found beside a list of seeds: a plastic pot)
            talked = [history.looked_up[i] for i in history.talked if i in history.looked_up]
            on_list = {p["productId"] for p in shown}
            kind_from = [talked[0], *shown] if talked and talked[0]["productId"] not in on_list else shown
            return find_called(called, kind_from, text, synonyms, otherwise, await self._names_no_kind(called))
        if len(refs) == 1 and (kind := await self._kind_not_shown(text, history)) is not None:
            # "is the first cage big enough?" where no list had a cage: the shop's cage, found, then asked
            return find_called([kind], [], text, synonyms, [], or_first=True)
        # "how many in a pack?", "what flavours?": a question naming no product, nor asking for one.
        unnamed = bool(shown) and not named and not reading.request and not reading.off_topic
        pointing = bool(refs or reading.points_at_one or reading.points_at_all or by_variation or unnamed or by_name)
        # "are the lids microwave safe?" after "Glass Containers with Bamboo Lid": a part of those shown, asked of
        if not pointing and named and _OF_THE.match(fold(text)):
            of_shown = words_of(shown)
            pointing = all(stem(w) in of_shown or stem(w.removesuffix("s")) in of_shown for w in named)
        if not (pointing or reading.asks_about or history.detailed or reading.buy or property_asked):
            return None  # "what headphones do you have?": a new search
        new_subject = bool({stem(w) for w in named} - words_of(shown))
        folded = fold(text)
        if not (refs or _ASKED_OF_IT.search(folded) or COMES_WITH.search(folded)) and await self._cued_kind(
            folded, shown
        ):
            # "any gloves that match?" after a scarf: gloves, a kind of thing not shown, asked for
            # ("does it need any adapter?", "is there any case included?" ask of the one shown), also
            # where another word names a product shown ("is there a food for older dogs too?" after
            # "Joint Support Chews for Dogs"), and in the shopper's language ("und dünger, …?")
            return None
        if new_subject and (
            reading.request or not (pointing or reading.asks_about or history.detailed or property_asked)
        ):
            return None  # "do you have a cable to go with it?"
        if new_subject and not (reading.question or reading.buy) and asks_for_another(text, named, shown):
            return None  # "and a case for the Paper 6?": a question only by its mark, asking for another thing
        listed = by_variation if by_variation and not refs else shown
        fitting = [p["productId"] for p in shown if p.get("match") == "strong"]  # what "which … pick?" picks from
        if ask.PICK.search(fold(text)) and len(shown) >= 2 and not (refs or by_name):
            # "which one would you pick?" right after one was talked about: still the best of the list
            ids = [p["productId"] for p in shown[:_ASKED_ABOUT_UNPOINTED]]
            return details_call(ids, question=text, asked={"fitting": fitting})
        # (called by what it is, or by two words of its name: "the over ear ones, do they fold?" calls no "On-Ear
        # Headphones" by one word of them, and asks of them all)
        called_forms = {f for w in words(opening.group(1)) for f in word_forms(w)} if opening is not None else set()
        called_what = any(_what_it_is(p, last_word=True) & called_forms for p in by_name)
        ids = self._asked_ids(
            reading,
            refs,
            history,
            listed,
            by_name,
            text,
            parts,
            called_first=called_first and (naming >= 2 or called_what),
        )
        if isinstance(ids, ModelReply):
            return ids
        asked = _filters_asked(reading)
        # "is the sundress see-through in white?" asks more of it than whether white is in stock.
        said = [w for w in reading.words if not w.isdigit() and w.upper() not in reading.unknown_sizes]
        more = {stem(w) for w in said if w not in _SIZE_WORDS} - words_of(shown) - _ASKING_NOTHING
        if (reading.colors or reading.sizes or reading.unknown_sizes) and more:
            asked["property"] = True
        if history.shown and (sizes := history.shown.args.get("filters", {}).get("sizes")):
            asked["listSizes"] = sizes  # the size the list was for: its weight, when weights differ by size
        if ask.PICK.search(fold(text)):
            asked["fitting"] = fitting
        if reading.recall and not (reading.words or reading.colors or reading.sizes or reading.buy or reading.cheaper):
            return details_call(ids)  # "what was the first one you showed me again?": described again, no fact asked
        # "ist das erste waschbar? washable": a German or French question finds the English sentence.
        if called_first and opening is not None and len(text.split()) > len(opening.group(0).split()):
            # "les plimsolls en coton bio, elles taillent grand ?": what is asked, without the words calling it
            text = " ".join(text.split()[len(opening.group(0).split()) :])
        return details_call(ids, question=text, asked=asked, also=synonyms)

    def _asked_ids(
        self,
        reading: Reading,
        refs: list[int],
        history: History,
        shown: list[dict[str, Any]],
        by_name: list[dict[str, Any]],
        text: str,
        parts: Set[str] = frozenset(),
        *,
        called_first: bool = False,
    ) -> list[int] | ModelReply:
        """Which shown products a question is about: the ones it points at by position or by
        name (`by_name`: named by a word of their names; "which of them is padded?" is still
        about all of them, but not "les pots en terre cuite, ils résistent au gel ?": called so
        first, `called_first`), the two compared, all of them ("which of them"), or the one
        talked about last."""
        of_all = reading.points_at_all and len(by_name) == 1 and not (reading.compare or called_first)
        if by_name and not refs and not of_all:
            if reading.buy and len(by_name) > 1 and not (reading.points_at_all or _BOTH.search(fold(text))):
                return self._out_of_range(shown)  # "I'll take the jacket" after two jackets: which one is chosen
            return [p["productId"] for p in by_name[:LIST_LENGTH]]
        if reading.compare and not refs:
            return [p["productId"] for p in shown[:2]]
        if len(refs) == 1 and (product := of_kind_at(text, shown, refs[0])) is not None:
            return [product["productId"]]  # "is the first cage big enough?": the first of the cages
        if refs == [1] and len(history.lists) >= 2 and _BACK_TO_FIRST.search(fold(text)) and history.lists[0].products:
            # "back to the first thing you showed me, how tall does it get?": the first of the first list
            return [history.lists[0].products[0]["productId"]]
        if refs:
            picked = [at_position(shown, p) for p in refs[:LIST_LENGTH]]
            if not shown:
                return say(self._say_in.no_list)
            if any(p is None for p in picked):
                return self._beyond_list(reading, refs, history, shown, text, asked=True)
            return [p["productId"] for p in picked if p is not None]
        # ("which ones are waterproof?", "are they waterproof?" ask it of all of them, not of the "Waterproof
        # Snow Boot", as one named while pointing at all is above; nor "does it come with a cable?" of the
        # "Lightning Cable": `parts` are what it is asked to have)
        naming = [w for w in reading.words if w not in parts]
        if not reading.points_at_all and (product := named_by_words(naming, shown)) is not None:
            return [product["productId"]]
        if not reading.points_at_all and (having := named_by_option(naming, shown)):
            return [p["productId"] for p in having[:_ASKED_ABOUT_UNPOINTED]]  # "is the battery included?"
        # "how do they fit?" right after one pair of boots was talked about: those boots ("are those
        # waterproof?" too); "which of them", "both", "all of them" still mean the list (_THE_LIST)
        # (but "which is lighter?", "welche ist leichter?" choose among the list, after one was talked about too)
        if (
            reading.points_at_all
            and len(history.detailed) == 1
            and not (_THE_LIST.search(fold(text)) or _WHICH_IS.search(fold(text)))
        ):
            return history.detailed[:1]
        if reading.points_at_all and shown:
            return [p["productId"] for p in shown[:LIST_LENGTH]]
        if history.detailed:
            # ("dishwasher safe?" right after "oven safe?" was asked of all three pans: of the three again)
            several = len(history.detailed) > 1 and not reading.points_at_one
            return history.detailed[:_ASKED_ABOUT_UNPOINTED] if several else history.detailed[:1]
        if reading.points_at_one or len(shown) == 1:
            # ("is it usb-c?" after a phone case and a charger were shown for "a phone charger": the charger)
            last = history.shown
            same = last is not None and [p["productId"] for p in last.products] == [p["productId"] for p in shown]
            kind = of_kind_asked(last.subject, shown) if last is not None and same else None
            return [(kind or shown[0])["productId"]]
        if reading.buy and not _BOTH.search(fold(text)):  # "danke, nehme das klo" after several: which one?
            return self._out_of_range(shown)
        return [p["productId"] for p in shown[:_ASKED_ABOUT_UNPOINTED]]

    def _sized_one(self, reading: Reading, history: History, also: dict[str, str]) -> ModelReply | None:
        """ "the bigger one", "do you have it in a smaller size?", "die größte?": a size of the one
        talked about (or pointed at), else of those shown; "the longer cable": of the cables of the latest
        list with any (`also`: the message's words in the catalog's); None when the message asks more than that
        ("a bigger one in red", "the bigger one, is it heavy?": asked as before) or nothing was shown."""
        if reading.size_ref is None:
            return None
        # "a bigger bag?" of cat food sold by "Bag size": the bag it comes in; of a plant, a bag is a thing asked for
        container = [w for w in reading.words if w not in _SIZE_WORDS and not ask.PRICE.search(w)]  # ("was kostet")
        if _SAME & set(container) and set(container) - _SAME <= ph.CONTAINERS:
            container = []  # "is there a bigger set of the same?": of the one talked about, whatever it comes in
        sold_in = set(container) <= ph.CONTAINERS and history.shown and _comes_in(history.shown, container)
        # "how much is the longer cable?", "was kostet das längere Kabel?": of the cables of the latest list with any
        of_kind = _sized_of_kind(history, also.get(container[0], container[0])) if len(container) == 1 else []
        of_kind = [] if sold_in else of_kind
        if container and not (sold_in or of_kind):
            return None
        if reading.colors or reading.sizes or reading.max_price is not None or reading.compare:
            return None
        if reading.buy or reading.cheaper or reading.pricier:
            return None  # "ich nehme die größere", "the bigger one is too expensive": asked as before
        shown = history.shown.products if history.shown else []
        one_size = False
        if of_kind:
            ids = [int(p["productId"]) for p in of_kind]
        elif reading.refs:
            picked = [p for p in (at_position(shown, n) for n in reading.refs[:1]) if p is not None]
            ids = [int(p["productId"]) for p in picked]
        else:
            # of a list, the ones that are what was asked for (not those "also close")
            fitting = [p for p in shown if p.get("match") == "strong"] or shown
            # (right after two were compared, "the bigger one" is the bigger of those two; right after one made in
            # one size was talked about, the bigger of the list: "how much is the bigger one?" after the 2TB drive)
            talked = [p for p in shown if p.get("productId") in history.detailed[:1]]
            one_size = len(history.detailed) == 1 and bool(talked) and not _comes_in_sizes(talked[0])
            among = shown if one_size else fitting  # (of all the list: the one talked about may be a close one)
            ids = ([] if one_size else history.detailed[:2]) or [int(p["productId"]) for p in among[:LIST_LENGTH]]
        if not ids:
            return None
        listed = (history.shown.args.get("filters") or {}).get("sizes") if history.shown else None
        sized = {"ref": reading.size_ref, "most": reading.size_most, "from": listed or [], "long": reading.size_long}
        if one_size:
            sized["between"] = True  # the bigger of them, not a bigger size of one
        return details_call(ids, sized=sized)

    def _out_of_range(self, shown: list[dict[str, Any]]) -> ModelReply:
        """A position past the end of the list shown ("the second one" of one)."""
        r = self._say_in
        return say(r.only_one if len(shown) == 1 else r.out_of_range.format(count=len(shown)))

    def _beyond_list(
        self,
        reading: Reading,
        refs: list[int],
        history: History,
        shown: list[dict[str, Any]],
        text: str,
        *,
        asked: bool,
    ) -> ModelReply:
        """Places past the end of the list shown ("is the second one 4k?" after a list of one): the products at those
        places of the latest list before it that has them (of the kind named, where one is: "the second shampoo"),
        said to be from there: the shopper goes back to it; else, something `asked` of a list of one (of that
        kind), that one, said to be the only one; else which one is meant, asked back."""
        r = self._say_in
        kind = ordinal_kind(text) if len(refs) == 1 else None

        def of_kind(p: dict[str, Any]) -> bool:
            return kind is None or stem(kind) in words_of([p])

        if all(n > 0 for n in refs):
            for earlier in list(reversed(history.lists[:-1]))[:_LISTS_BACK]:
                picked = [at_position(earlier.products, n) for n in refs[:LIST_LENGTH]]
                if all(p is not None and of_kind(p) for p in picked):
                    ids = [int(p["productId"]) for p in picked if p is not None]
                    return details_call(ids, question=text, asked=_asked_of(reading), lead=r.from_list_before)
        if asked and len(refs) == 1 and len(shown) == 1 and of_kind(shown[0]):
            # ("the second shampoo, how big is the bottle?" after one shampoo: that one, said to be the only one)
            return details_call([int(shown[0]["productId"])], question=text, asked=_asked_of(reading),
                                lead=r.only_one_shown)  # fmt: skip
        return self._out_of_range(shown)

    def _pointed_at(self, reading: Reading, history: History, text: str = "") -> ModelReply | None:
        """Details or a comparison of shown products, or None when the message is not about them."""
        r = self._say_in
        shown = history.shown.products if history.shown else []
        if not shown and not history.detailed and reading.request and reading.words:
            # "i need a charger for my laptop and phone, both usb c", "compare the P27Q and the G24 for me":
            # nothing shown to point at, a request
            return None
        if reading.compare:
            positions = reading.refs or [1, 2]
            if not shown:
                return say(r.no_list)  # (one shown: "I showed you only one product", past its end)
            named_two = [] if reading.refs or not text else named_products(text, shown, several=True)[0]
            if len(named_two) == 2:  # "compare the u-lock and the chain lock" of five locks: those two
                return details_call([p["productId"] for p in named_two], compare=True)
            picked = [at_position(shown, p) for p in positions[:2]]
            if any(p is None for p in picked):
                return self._out_of_range(shown)
            ids = [p["productId"] for p in picked if p is not None]
            if len(ids) == 1:  # "compare it with the first": the one detailed last and that one
                ids = [*history.detailed[:1], *ids] if history.detailed else [*ids, shown[0]["productId"]]
            return details_call(list(dict.fromkeys(ids))[:2], compare=True)
        if reading.refs and not reading.similar:
            if not shown:
                return say(r.no_list)
            product = at_position(shown, reading.refs[0])
            if product is None:
                return self._beyond_list(reading, reading.refs[:1], history, shown, "", asked=False)
            return details_call([product["productId"]])
        if reading.similar and reading.refs:
            return None  # a search for similar products (planned by _refine)
        named = named_by_words(reading.words, shown)
        if named is not None:
            return details_call([named["productId"]])
        if reading.details and not reading.words:
            if history.detailed:
                return details_call(history.detailed[:1])
            if len(shown) == 1:
                return details_call([shown[0]["productId"]])
            return say(r.which if shown else r.no_list)
        return None

    def _for_others(self, reading: Reading, shown: Shown, text: str) -> ModelReply | None:
        """ "any for cats?" after dog bowls, "und für Damen?" after men's boots: the same thing, for
        them (its words with whom it was for swapped); None when the message says more than whom."""
        whom = [w for w in reading.words if w in WHOM_FOR]
        if not whom or len(whom) != len(reading.words) or _ONES.search(fold(text)):
            return None  # ("do you have a men's one?": one of those shown)
        if (
            reading.refs
            or reading.compare
            or reading.points_at_one
            or reading.points_at_all
            or _OF_THEM.search(fold(text))
        ):
            return None  # "is it for dogs?", "are they ok for cats?", "which is better for 2 cats?": of them
        kept = [w for w in words(str(shown.args.get("query", shown.subject))) if w not in WHOM_FOR]
        if not kept:
            return None
        args = {"query": " ".join([*kept, *whom]), "limit": LIST_LENGTH}
        filters = _filters_of(reading)
        if filters:
            args["filters"] = filters
        said = _LEADING_CUE.sub("", " ".join(text.split())).strip(" ?!.")  # "for cats", "für Damen"
        tokens = said.split()
        last = max((n for n, t in enumerate(tokens) if set(words(t)) & set(whom)), default=len(tokens) - 1)
        return search_call(args, {"subject": f"{' '.join(kept)} {' '.join(tokens[: last + 1])}"})  # not "in black"

    def _refine(
        self, reading: Reading, shown: Shown, *, attribute: bool, qualifies: bool = False, about: int | None = None
    ) -> ModelReply:
        """A search of what was shown again, narrowed or widened by the message ("cheaper?", "in red?",
        "more like the second"); `about`: the product of the list talked about last, whose price
        "any cheaper?" means."""
        args = {"query": shown.args.get("query", shown.subject), "limit": LIST_LENGTH}
        filters = dict(shown.args.get("filters") or {})
        # A price bound derived from shown prices ("cheaper") is not said back: the customer never said it.
        hide = shown.hide_price and reading.max_price is None and reading.min_price is None
        plan: dict[str, Any] = {"subject": shown.subject, "refined": True, "hide_price": hide}
        # "cheaper?" is cheaper than what fits: not a close one of another kind (lawn seed beside mowers); and first
        # than what fits and can be bought, not one sold out (the €89 jacket out of stock beside the €109 one)
        strong_kinds = {name_head(str(p.get("name", ""))) for p in shown.products if p.get("match") == "strong"}
        fitting = [p for p in shown.products if name_head(str(p.get("name", ""))) in strong_kinds] or shown.products
        buyable = [p for p in fitting if p.get("inStock", True)] or fitting
        prices = [p for p in (decimal_or_none(p.get("effectivePrice")) for p in fitting) if p is not None]
        to_buy = [p for p in (decimal_or_none(p.get("effectivePrice")) for p in buyable) if p is not None] or prices
        if reading.colors:
            filters["colors"] = reading.colors
        if reading.sizes:
            filters["sizes"] = reading.sizes
        if reading.in_stock:
            filters["inStock"] = True
        if reading.max_price is not None:
            filters["maxPrice"] = float(reading.max_price)
        if reading.min_price is not None:
            filters["minPrice"] = float(reading.min_price)
        shown_ids = [p["productId"] for p in shown.products]
        if (reading.max_price is not None or reading.min_price is not None) and not reading.cheaper:
            # (a price said of those shown: what came only close stays only close)
            plan["close_before"] = [p["productId"] for p in shown.products if p.get("match") != "strong"]
        if reading.cheaper and reading.max_price is not None and prices and reading.max_price < max(prices):
            # "any cheaper? don't want to go over 150": what the customer said is the bound, and the ones
            # shown under it stay in the list (over all of them, it says nothing: cheaper than those shown)
            filters.pop("minPrice", None)
            plan.update(refinement="cheaper", bound_said=True)
        elif reading.cheaper and (talked := _priced_product(shown.products, about)) is not None:
            # "any cheaper?" right after one was talked about (the €79 dress): cheaper than that one
            filters["maxPrice"] = float(talked[1] - _CENT)
            filters.pop("minPrice", None)
            plan.update(refinement="cheaper", hide_price=True, than_it=True)
        elif reading.cheaper and prices:
            # Cheaper than all of them; failing that, than the dearest one, among the others.
            filters["maxPrice"] = float(min(to_buy) - _CENT)
            filters.pop("minPrice", None)
            # (none of those shown again: one sold out is cheaper than the cheapest one in stock)
            fallback = {"maxPrice": float(max(prices) - _CENT), "exclude": shown_ids}
            anchors = [p["productId"] for p in fitting]
            plan.update(refinement="cheaper", hide_price=True, anchors=anchors, exclude=shown_ids, fallback=fallback)
        elif reading.pricier and prices:
            filters["minPrice"] = float(max(prices) + _CENT)
            filters.pop("maxPrice", None)
            plan.update(refinement="pricier", hide_price=True,
                        fallback={"minPrice": float(min(prices) + _CENT), "exclude": shown_ids})  # fmt: skip
        if reading.similar and reading.refs and (product := at_position(shown.products, reading.refs[0])) is not None:
            args["query"] = product["name"]
            plan.update(refinement="similar", exclude=[product["productId"]])
            args["limit"] = LIST_LENGTH * 2
        elif reading.more or reading.similar:
            plan.update(refinement="more", exclude=[*shown.before, *(p["productId"] for p in shown.products)])
            args["limit"] = LIST_LENGTH * 2
        if reading.negated and not reading.words:  # "no capsules pls": none named so, said back as said
            plan["subject"] = ", ".join(filter(None, (shown.subject, reading.negated_said)))
        # (what was not wanted of the list stays so: "max 250 euro" after "she has a balance bike now")
        without = [*shown.without, *(reading.negated if not reading.words else [])]
        if without:
            plan["without"] = list(dict.fromkeys(without))
        if attribute:
            args["query"] = f"{args['query']} {reading.query}"
            if qualifies:
                plan["qualifier"] = reading.query
            # ("in leather", "for thick branches" said after it; not sentences of their own: "good. Lastly, once they
            # are bigger, do they need feeding …?" would be said back inside the quoted request)
            added = said_for(reading.said, reading.query)
            added = "" if len(added.split()) > _PLAIN_SPAN_WORDS or re.search(r"[.?!]", added) else added
            plan["subject"] = ", ".join(filter(None, (shown.subject, added)))
        if plan.get("refinement"):
            # Cheaper (dearer, more, similar) of the same kind of thing: the categories of what was
            # shown as a match, not whatever else is cheaper ("cheaper litter" is not cat food).
            matched = [p for p in shown.products if p.get("match") == "strong"] or shown.products
            plan["categories"] = sorted({str(p["category"]) for p in matched if p.get("category")})
            if plan["refinement"] in ("cheaper", "pricier"):  # and of the kinds of thing shown, by name
                plan["kinds"] = sorted({h for p in matched if (h := name_head(str(p.get("name", ""))))})
                # (cheaper than the one talked about, of a list of close ones only: those of its kind that come
                # as close are what is asked, "gibt es eine günstigere?" after the €34.95 secateurs)
                talked = _priced_product(shown.products, about) if plan.get("than_it") else None
                if talked and not any(p.get("match") == "strong" for p in shown.products):
                    plan["close_kinds"] = [h] if (h := name_head(str(talked[0].get("name", "")))) else []
            args["limit"] = max(args["limit"], LIST_LENGTH * 2)  # some of the others' kinds are left out
        if "maxPrice" in filters and "minPrice" in filters and filters["minPrice"] > filters["maxPrice"]:
            filters.pop("minPrice")
        if filters:
            args["filters"] = filters
        return search_call(args, plan)

    def _no_store_answer(self) -> str:
        r = self._say_in
        contact = r.store_contact.format(contact=self._contact) if self._contact else ""
        return f"{r.store_unknown} {contact}".strip()

    def _subject(self, reading: Reading, named: list[str], text: str) -> dict[str, Any]:
        """How the answer refers to the request: the customer's words for the thing when they
        are a few words the catalog uses ("warm winter boots") or just one or two ("tents", "warm winter boots"),
        as they wrote them ("dress for a wedding", never "dress wedding"); else their message, quoted."""
        plain = len(reading.words) <= _PLAIN_SUBJECT_WORDS and set(reading.words) <= set(named)
        if plain or len(reading.words) <= _PLAIN_ANY_WORDS:  # "tents", "a bicycle helmet"
            said = said_for(reading.said, reading.query)
            if len(said.split()) <= _PLAIN_SPAN_WORDS:
                return {"subject": said}
        said = " ".join(text.split()).strip(" ?!.,;:")
        if len(said) > _QUOTED_CHARS:
            said = said[:_QUOTED_CHARS].rsplit(" ", 1)[0] + "…"
        return {"subject": self._say_in.quoted.format(text=said), "quoted": True}

    async def _search_words(self, reading: Reading, text: str) -> str:
        """`_describing_words`, told as the shopper's situation where the message tells one: "my bike got stolen
        last week" is searched as "my bike stolen last week", not "bike stolen last week", so that the search
        hears a situation (and what answers it: a lock), not a request for a bike."""
        found = await self._describing_words(reading, text)
        said = words(fold(text))
        if (reading.told_by is not None or tells_a_situation(said)) and (asked := asked_after_a_cue(said)):
            # "…outside the station, I need a lock that actually works": the words asking for it kept before the
            # thing, so that the search hears a thing asked for by its name after the situation
            query = words(found)
            cued = next(((cue, w) for cue, w in asked if w in query[1:] and cue not in query), None)
            # (after words of the situation: "need two folding chairs" stays as it was; and a kind of thing the
            # shop sells: "do i really need a different one" asks for none)
            if cued is not None and not await self._names_no_kind([cued[1]]):
                at = query.index(cued[1])
                found = " ".join([*query[:at], cued[0], *query[at:]])
        if reading.told_by is None or tells_a_situation(words(found)):
            return found
        return f"{reading.told_by} {found}"

    async def _describing_words(self, reading: Reading, text: str) -> str:
        """The words that describe the thing; as written, small words between included, where those
        make a phrase of the synonyms ("cafetière à piston": the search knows it, not "cafetière piston")."""
        known = set(reading.words)
        if (before := await self._before_a_told_but(reading)) is not None:
            return before
        split = [p for p in await self._catalog_synonyms(text) if " " in p and not set(p.split()) <= known]
        if reading.said_whole and (split or await self._kind_in_a_clause(reading.said)):
            return said_for(reading.said, reading.query)
        # ("what compost do you have for sowing seeds": the clause kept where what was read out is only around it)
        if not reading.said_whole and reading.said_kept and await self._kind_in_a_clause(reading.said_kept):
            return said_for(reading.said_kept, reading.query)
        if reading.said_whole and await self._thing_for_a_purpose(reading.said):
            return said_for(reading.said, reading.query)
        return reading.query

    async def _before_a_told_but(self, reading: Reading) -> str | None:
        """The words of the thing asked for where what follows "but" tells of the shopper ("a pump but no idea
        what valve my bike has", "eine Pumpe, aber ich weiß nicht welches Ventil", "une pompe mais je ne sais
        pas"): those before it, where they name a kind of thing of the catalog's; None otherwise."""
        folded = fold(reading.said)
        found = _TOLD_BUT.search(folded)
        if found is None or self._vocabulary is None:
            return None
        before = set(words(folded[: found.start()]))
        kept = [w for w in reading.query.split() if fold(w) in before]
        vocabulary = await self._vocabulary()
        return " ".join(kept) if any(vocabulary.names_a_kind(fold(w)) for w in kept) else None

    async def _thing_for_a_purpose(self, said: str) -> bool:
        """Whether a request names a kind of thing of the catalog's, then what it is for in at most three
        words that name nobody ("a grinder for espresso", "an espresso machine for home", "a speaker for the
        garden"; not "a raincoat for my wife", "shampoo for myself", "a bike for a 10 year old", "food for older
        dogs", "a charger for my iphone"): the search, told the "for", takes the first for the thing. Without
        it "grinder espresso" asks for an espresso of the grinder kind, and "espresso machine home" for a home
        no machine's text names."""
        split = _words_around(_PURPOSE, said)
        if split is None or self._vocabulary is None:
            return False
        before, after = split
        if not after or len(after) > _PURPOSE_WORDS:
            return False
        # (what is done with it names no one it is for: "a gilet for walking the dog")
        if not after[0].endswith("ing") and any(w in _SOMEONE or w.isdigit() for w in after):
            return False
        vocabulary = await self._vocabulary()
        # (in the catalog's words, "gilet" a vest; or a thing the catalog never names: "pee pads for training"
        # asks for no training lead)
        searched = vocabulary.terms(" ".join(before)).terms
        return any(map(vocabulary.names_a_kind, searched)) or bool(before and not vocabulary.uses(before[-1]))

    async def _kind_in_a_clause(self, said: str) -> bool:
        """Whether a request names a kind of thing of the catalog's, then another in a clause about
        it ("a brush for a long-haired dog that gets mats", "a spatula that won't scratch my pans", "belt
        for my jeans"): the search, told the clause, takes the first for the thing asked for (not the
        "Sniffle Mat", not jeans)."""
        split = _words_around(_CLAUSE, said)
        if split is None or self._vocabulary is None:
            return False
        vocabulary = await self._vocabulary()
        before, after = split
        return any(map(vocabulary.names_a_kind, before)) and any(map(vocabulary.names_a_kind, after))

    async def _several_things(self, reading: Reading) -> list[tuple[list[str], list[str]]]:
        """The things of a request for several, each as the words to search for it and its own words;
        empty for one thing. The things stand on either side of "and" ("und", "et"), and between the
        commas of a list before it: a word the catalog names a kind of thing with, and the words
        before it ("smart trousers and a couple of shirts", "a hat, gloves and a scarf", "eine Mütze
        und einen Schal"); after the first, a thing the catalog does not name too, said with an
        article ("a knife and a cutting board"). What the parts before the first thing say that the
        catalog's names use ("office"), whom it is for ("mens", "for my dog") and what the last is
        made of ("in wool") go with each; anything else said after the last thing ("a spatula that
        won't scratch my pans", "a charger for my phone"), a colour or size, or more than four
        things keep the request one search. "Salt and pepper grinder", "knife and fork set", "keyboard and
        mouse combo" are one thing."""
        if len(reading.pieces) < 2 or reading.broad or reading.colors or reading.sizes or self._vocabulary is None:
            return []
        vocabulary = await self._vocabulary()
        if not vocabulary.kinds:
            return []
        pieces = list(reading.pieces)
        context: list[str] = []
        while pieces and not (pieces[0][0] and vocabulary.names_a_kind(pieces[0][0][-1])):
            context += [w for w in pieces.pop(0)[0] if vocabulary.names_products(w) or w in AUDIENCE]
        if not 2 <= len(pieces) <= _MOST_THINGS:
            return []  # (more than four: one search)
        first, _, text = pieces[0]
        start = len(first) - 1
        # the words just before it that the catalog's texts use, the farther one in its names too
        # ("wooden spoon set", "smart trousers"; not "job smart trousers", nor "charger for the laptop")
        while start > 0 and len(first) - start < _THING_WORDS and vocabulary.uses(first[start - 1]):
            if len(first) - start == _THING_WORDS - 1 and not vocabulary.names_products(first[start - 1]):
                break
            if not _side_by_side(first[start - 1], first[start], text):
                break
            start -= 1
        context += [w for w in first[:start] if vocabulary.names_products(w)]
        things = [first[start:]]
        for n, (said, begins, text) in enumerate(pieces[1:_MOST_THINGS], start=1):
            found = [w for w in said if w not in _QUANTITY]
            run = 1  # the words side by side from the first ("a watering can", not "a charger for the laptop")
            while run < min(len(found), _THING_WORDS) and _side_by_side(found[run - 1], found[run], text):
                run += 1
            kinds = [k for k, w in enumerate(found[:run]) if vocabulary.names_a_kind(w)]
            if not begins and found and found[-1] in _COLLECTIVE:
                return []  # "knife and fork set": one thing
            if kinds:
                things.append(found[: kinds[-1] + 1])  # "a watering can", "a spatula" (of "a spatula that …")
            elif begins and 0 < len(found) < _THING_WORDS and run == len(found) and not set(found) & SAYS_WHICH:
                things.append(found)  # "and a cutting board" where the shop sells no board
            else:
                return []
            after = found[len(things[-1]) :]
            if n < len(pieces) - 1:
                context += [w for w in after if w in AUDIENCE]
            elif not all(w in AUDIENCE or w in MATERIALS or w in DOGS | CATS for w in after):
                return []  # said of the last alone, or not clear of which ("a charger for my phone")
            else:
                context += after  # "in wool", "mens", "for my dog": of each
        if len(things) != len(pieces[:_MOST_THINGS]) or len({stem(t[-1]) for t in things}) < len(things):
            return []
        if len(things) == 2 and len(first) == 1 and not pieces[1][1] and len(pieces[1][0]) >= 2:
            return []  # "salt and pepper grinder": one thing
        return [([*[w for w in dict.fromkeys(context) if w not in thing], *thing], thing) for thing in things]

    async def _in_names(self, named: list[str]) -> bool:
        """Whether one of the words is in a product's name, as written or in the catalog's words ("Möbel":
        furniture)."""
        if self._vocabulary is None:
            return False
        vocabulary = await self._vocabulary()
        return any(vocabulary.in_names(r) for w in named for r in (w, *vocabulary.terms(w).terms))

    async def _names_no_kind(self, named: list[str]) -> bool:
        """Whether none of the words names a kind of thing of the catalog's (False when it cannot tell)."""
        if self._vocabulary is None:
            return False
        vocabulary = await self._vocabulary()
        return bool(vocabulary.kinds) and not any(vocabulary.names_a_kind(w) for w in named)

    async def _one_not_carried(self, text: str, shown: Shown) -> str | None:
        """The name a message calls a product by ("the logitech one", "the one from Bosch", "der von
        Gardena", "celui de Bosch") where no product shown has it and no product of the catalog uses
        it, as the shopper wrote it; else None (a word of a product shown, or of one of another
        list or of the shop, finds that one as before)."""
        called = _CALLED_ONE.search(fold(" ".join(text.split())))
        if called is None or self._vocabulary is None:
            return None
        word = next(found for found in called.group("name", "by", "von", "de") if found)
        if word in STOPWORDS or word in _NOT_A_NAME or word in words_of(shown.products):
            return None
        if word.endswith(("er", "est")) or self._lexicon.rules.size(word) is not None:
            return None  # "the nicer one", "the comfiest one", "the XL one": which one, not a name
        vocabulary = await self._vocabulary()
        if vocabulary.uses(word) or (vocabulary.correct(word) or word) != word or word in self._lexicon.colors:
            return None
        written = re.search(rf"\b{re.escape(word)}\b", text, re.IGNORECASE)  # as written: "Logitech"
        return written.group(0) if written else word

    def _in_colour_unshown(self, text: str, reading: Reading, history: History) -> ModelReply:
        """ "the red one" where nothing listed comes in red: a product talked about that does ("the red one"
        of a headset asked about by name), else the shop's product of the kind talked about (or listed first)
        that does, searched ("das rote" after a harness in black, blue and grey: the shop's red harness), the
        question answered of it; else asked which."""
        colour = str(reading.colour_ref)
        if reading.question:  # "the red one, does it have a handle?" asks that of it; "the red one" asks for it in red
            reading.colors = [c for c in reading.colors if c != colour]
        looked = [history.looked_up[i] for i in history.talked if i in history.looked_up]
        if in_colour := [p for p in looked if colour in colours_of(p)]:
            return details_call([int(in_colour[0]["productId"])], question=text, asked=_asked_of(reading))
        about = looked[:1] or (history.shown.products[:1] if history.shown else [])
        kind = name_kind(str(about[0].get("name", ""))) if about else None
        head = name_head(kind) if kind else None
        if kind is None or head is None:
            return say(self._say_in.no_such_colour.format(colour=colour))
        args = {"query": fold(kind), "limit": LIST_LENGTH, "filters": {"colors": [colour]}}
        return search_call(args, {"subject": head, "colour_found": colour, "question": text,
                                  "asked": _asked_of(reading)})  # fmt: skip

    async def _thing_not_carried(self, text: str, history: History) -> str | None:
        """The thing a question after a list asks of, by a word no product of the catalog uses, as the shopper
        wrote it: "hosta" of "the hosta how tall does it get?" (called first), "hosta" of "whats the price of
        the hosta", "reel" of "is the reel wall mounted?" (asked of, where an earlier request of the
        conversation had that word: "and a hose reel"). None when the catalog's texts have the word, as written,
        mistyped, in the plural, by its stem or in their words for the shopper's (`terms`), or it names which one,
        a colour, size, material, part or property; when a list for a request with it had a product that fits;
        or when the shopper writes another language than the catalog's and the synonyms do not know the word."""
        if self._vocabulary is None:
            return None
        folded = fold(" ".join(text.split()))
        called: list[str] = []  # the words calling it (what it is: the last of them before a small word)
        asked_of = False  # (called as what a question is asked of: only a thing asked for earlier)
        shown_before = _SHOWN_BEFORE.search(folded) is not None  # ("the juicer you showed": called shown)
        opening = _CALLED_FIRST.match(folded) or _called_shown_at_opening(folded)
        if opening is not None and not _ONES_CALLED.search(opening.group(0)):
            called = words(opening.group(1))
        elif (priced := _PRICE_OF_THE.search(folded)) is not None:
            called = words(priced.group(1))
        elif (subject := _ASKS_OF_THE.match(folded) or _ASKED_OF_THE.search(folded)) is not None:
            called, asked_of = words(next(g for g in subject.groups() if g))[:1], True
        # what it is is the last word before any small word ("the bedding you showed": bedding), and only that
        # word counts ("the cherry tomato seeds" are tomato seeds the shopper misremembers)
        called = list(itertools.takewhile(lambda w: w not in STOPWORDS, called))
        word = called[-1] if called else ""
        if (
            len(word) < 3
            or word in _ONE_WORDS
            or stem(word) in ORDINAL_WORDS
            or word in SAYS_WHICH | _NOT_A_NAME | PARTS | MADE_OF | _NOT_PRODUCTS
            or word in self._lexicon.colors
            or self._lexicon.rules.size(word) is not None
            or properties_named({stem(word)})
        ):
            return None
        vocabulary = await self._vocabulary()
        readings = {word, *vocabulary.terms(word).terms}
        # the lists shown for a request with the word, or a word it ends ("and a hose reel to keep it tidy", "und
        # eine Küchenwaage"): one with a product that fits it means the shop calls that thing otherwise ("the
        # sharpener" of a whetstone found for it)
        asked_for = [shown for shown in history.lists if _asked_with(readings, str(shown.args.get("query", "")))]
        if any(p.get("match") == "strong" for shown in asked_for for p in shown.products):
            return None
        if not (self._store_language or readings - {word} or asked_for):
            return None  # "le tuyau" in an English shop, no synonym knowing it, nor asked for: perhaps its hose
        if asked_of and not (asked_for or shown_before):
            return None  # "does the cat like it?" in a garden shop: no thing asked for, the cat
        if vocabulary.correct(word) is not None:
            return None  # (mistyped: "the secatuers")
        # no product's text has it, nor a word of its stem ("the sharpener" of a "sharpening stone": a text may
        # call it so; "der Rechen" where a text says "rake it in" is left to the texts too)
        if any(vocabulary.uses(w) or stem(w) in self._stems_of(vocabulary) for w in readings):
            return None
        # (as the shopper wrote it, with the words before it: "car mount", not "mount")
        phrase = r"\s+".join(re.escape(w) for w in called)
        said = " ".join(text.split())
        written = re.search(rf"\b{phrase}\b", said, re.IGNORECASE) or re.search(rf"\b{re.escape(word)}\b", said, re.I)
        return written.group(0) if written else word

    async def _adds_a_thing(self, text: str, reading: Reading, shown: list[dict[str, Any]]) -> bool:
        """Whether a message adds a thing by "and" and its name, with no article ("and trekking poles?" after
        gaiters, "and cbd oil for dogs?" after dental sticks): a word of it that no
        product shown has, which the catalog names a kind of thing with, or does not use at all (not "and
        waterproof?", "and in blue?", "and cheaper?": words that say more of those shown)."""
        found = _AND_FIRST.match(fold(text))
        if found is None or self._vocabulary is None:
            return False
        named = list(itertools.takewhile(lambda w: w not in STOPWORDS, words(fold(text)[found.start(1) :])))
        vocabulary = await self._vocabulary()
        seen = words_of(shown)
        for word in named:
            if word not in reading.words or stem(word) in seen or properties_named({stem(word)}):
                continue
            readings = {word, *vocabulary.terms(word).terms}
            if not any(vocabulary.uses(w) for w in readings) or any(vocabulary.names_a_kind(w) for w in readings):
                return not {stem(w) for w in readings} & seen
        return False

    def _stems_of(self, vocabulary: Vocabulary) -> frozenset[str]:
        """The stems of every word of the catalog's texts (worked out once for each vocabulary)."""
        if self._catalog_stems[0] is not vocabulary:
            self._catalog_stems = (vocabulary, frozenset(stem(w) for w in vocabulary.known))
        return self._catalog_stems[1]

    async def _names_a_property(self, found: list[str], text: str = "") -> bool:
        """Whether words say something of a thing rather than name one: the catalog's texts use
        each of them ("dishwasher", "safe"), and none names a kind of thing ("kennel?" asks for one)."""
        if self._vocabulary is None:
            return False
        vocabulary = await self._vocabulary()
        # in the catalog's words ("bio?" -> organic, "rétroéclairé ?" -> backlight, "sans céréales ?" -> grain free)
        synonyms = await self._catalog_synonyms(text or " ".join(found))
        covered = {x for said in synonyms for x in words(fold(said))}
        found = [w for w in found if w not in covered] + [x for said in synonyms.values() for x in words(fold(said))]
        found = [x for w in found for x in (SAID_AS[w].split()[:1] if w in SAID_AS else [w])]  # "bio?": organic
        found = [w for w in found if w not in _ASKING_WORDS] or found  # "wann aussäen?": sow
        # ("oven safe?" of pans: "oven" is a property asked though the shop sells a mini oven)
        things = [w for w in found if not properties_named({stem(w)})]
        if 1 < len(found) <= 2 and found[-1] in _SAFE_FROM:
            return True  # "pet safe?", "frost proof?", "peat free?": safe for (free of) whatever the word before says
        # what the words name is their last one: "cutting width?" asks a width (though "cutting" is a
        # kind of the catalog's: "Seed & Cutting Compost"), "dog bowl?" asks for a bowl
        return all(vocabulary.uses(w) for w in found) and await self._names_no_kind(things[-1:])

    async def _only_qualifies(self, reading: Reading, named: list[str], shown: Shown, text: str) -> bool:
        """Whether a message after a list says only more about what was asked ("something grain
        free", "any waterproof ones?", "from Harbour?"): a few catalog words, none of them one the
        catalog's names or categories name a kind of thing with, nor a word of a category that the
        earlier request did not have ("dog" after cat food is another subject)."""
        if reading.broad or reading.refs or self._vocabulary is None:
            return False
        folded = fold(text)
        pointing = _points_at_shown(reading, folded) or _ANY_THING.search(folded)
        if reading.request and _ALSO.search(folded) and not pointing:
            return False  # "do you sell socks as well?" after sneakers; not "do you also have grain free ones?"
        if _THING_TO.search(folded):
            return False  # "can you show me something to clean suede with?" after boots
        if _AND_SOME.match(folded) and not _ONES.search(folded):
            return False  # "and some running shorts" after running shoes; not "and some waterproof ones?"
        vocabulary = await self._vocabulary()
        if not vocabulary.kinds:
            return False
        # "any with a mic?": with "with", words only the descriptions use say something of the thing too,
        # as do one or two such words alone ("dry please" after cat foods, "expandable?" after hoses)
        short = len(reading.words) <= _SAID_ALONE and not reading.question
        if not named and reading.words and _ONES.search(folded) and len(reading.words) <= _QUALIFYING_WORDS:
            named = reading.words  # "a quiet one if possible" after blenders: of them, whatever the words
        elif not named and reading.words and (_WITH.search(fold(text)) or short):
            if not all(
                vocabulary.uses(w) or any(map(vocabulary.uses, vocabulary.terms(w).terms)) for w in reading.words
            ):
                return False
            named = reading.words
        if not named or len(named) > _QUALIFYING_WORDS:
            return False
        earlier = {stem(w) for w in words(str(shown.args.get("query", "")))}
        if all(stem(w) in earlier for w in named):  # nothing new said of it ("she's a small dog")
            return False
        # "something for my hamster" after dog food: for someone else, another request
        if any(stem(m.group(1)) not in earlier for m in _FOR_WHOM.finditer(fold(text))):
            return False
        return not any(
            vocabulary.names_a_kind(w) or (vocabulary.names_a_category(w) and stem(w) not in earlier) for w in named
        )

    async def _catalog_is_empty(self) -> bool:
        return self._vocabulary is not None and not len(await self._vocabulary())

    def _the_other_one(self, reading: Reading, text: str, history: History) -> ModelReply | None:
        """ "and the other one?", "the other one, is it waterproof?", "und die zweite?": of two shown, the
        one not talked about last ("the other one"), asked what the message asks, or what was asked of
        the one before when it asks nothing more ("is the cheaper one waterproof?" … "and the other
        one?"). None when the message is no such pointer or the list does not tell which."""
        shown = history.shown.products if history.shown else []
        folded = fold(text)
        bare = ph.BARE_POINTER.fullmatch(folded) is not None
        if not shown or not ((ph.OTHER_ONE.search(folded) and not reading.refs) or (bare and reading.refs)):
            return None
        if ph.OTHER_ONE.search(folded) and not reading.refs:
            talked = [p for p in shown if p.get("productId") in history.detailed]
            others = [p for p in shown if p.get("productId") not in history.detailed]
            if not talked or len(others) != 1:
                # which other one the list does not tell (none talked about, or three or more shown): asked
                # back, the list kept; not a search for "other" things
                return self._out_of_range(shown)
            product: dict[str, Any] | None = others[0]
        else:
            product = at_position(shown, reading.refs[0])  # (a bare pointer: refs said)
        if product is None:
            return None
        # (asked of that one already, "et la deuxième ?" shows it)
        again = bare and history.question and product.get("productId") not in history.detailed
        question = history.question if again else "" if bare else text
        asked = _asked_of(reading)
        return details_call([int(product["productId"])], question=question, asked=asked) if question else (
            details_call([int(product["productId"])]))  # fmt: skip

    async def _each_named(self, text: str, history: History) -> list[int]:
        """The products "add the toy and the bed", "add the first leash and the first collar", "ich nehme die
        Leine und das Halsband" name, each by its kind (in its name or category) and maybe its place, in
        the latest list with some of that kind (the one of them talked about, else the first); empty
        unless two or more are named so."""
        if self._vocabulary is None or not history.lists:
            return []
        picked: list[int] = []
        for part in _EACH_PART.split(fold(text)):
            place = next((n for n, pattern in ph.ORDINALS if pattern.search(part)), None)
            said = words(part)  # (a small word right after an article names a thing: "the can or the planter")
            said = [w for n, w in enumerate(said) if w not in STOPWORDS or (n and said[n - 1] in _THE_WORDS)]
            kinds = await self._kinds_said(said, text)
            # by name first ("leash" of a lead, not of a collar in "Collars, leads & harnesses"), else by category;
            # by its last word that a list has ("the second food bag": the foods, no list having a bag)
            found = next(
                (
                    sub
                    for kind in reversed(kinds)
                    for by_category in (False, True)
                    for shown in reversed(history.lists)
                    if (sub := _of_kind(shown.products, kind, by_category))
                ),
                [],
            )
            if not found:
                # (or by a word of its name that is no kind: "the multipurpose or the seed compost" after seed trays
                # were searched: the "Peat-Free Multi-Purpose Compost" of the list before)
                # (a part that only calls a thing: "the multipurpose"; not "the second one - is it wireless?")
                called = _ONLY_CALLED.fullmatch(part) is not None and place is None
                naming = {stem(w) for w in said if w not in STOPWORDS and len(w) >= _NAMING_LENGTH} if called else set()
                found = next(
                    (sub for shown in reversed(history.lists) if naming
                     and (sub := [p for p in shown.products if calls(naming, str(p.get("name", "")))])),
                    [],
                )  # fmt: skip
            if not found:
                continue
            # (of those of the kind, the one its other words name: "the seed compost" of the composts)
            told = {stem(w) for w in said if w not in STOPWORDS}
            if place is None:  # (a place is the list's own: "the second saucepan")
                found = sorted(found, key=lambda p: -len(told & {stem(w) for w in words(fold(str(p.get("name", ""))))}))
            if place is not None:
                product = at_position(found, place)
            else:
                talked = [p for p in found if p.get("productId") in history.talked]
                product = min(talked, key=lambda p: history.talked.index(p["productId"])) if talked else found[0]
            if product is not None and (pid := int(product["productId"])) not in picked:
                picked.append(pid)
        return picked if len(picked) >= 2 else []

    async def _kinds_said(self, said: list[str], text: str) -> list[list[set[str]]]:
        """The kinds of thing of the catalog's that these words of the message name, each as the forms of its
        words in the catalog's language ("pans": pan, pans; "Uhren": watch, watches)."""
        if self._vocabulary is None:
            return []
        vocabulary = await self._vocabulary()
        synonyms = await self._catalog_synonyms(text)
        in_catalog = [synonyms.get(w, w) for w in said]
        return [[word_forms(w) for w in words(kind)] for kind in in_catalog if vocabulary.names_a_kind(kind)]

    async def _shown_again(self, reading: Reading, text: str, history: History) -> ModelReply | None:
        """ "can you show me the pans again", "zeig mir nochmal die Uhren", "remontre-moi les casques": the
        latest list with products of that kind (or asked for by it), searched again as it was (was a
        question about the first pan, or a search for "nochmal uhren"); None when no list had them."""
        folded = fold(text)
        again = _SHOW_AGAIN.search(folded) or (_AGAIN.search(folded) and _SHOW.search(folded))
        if not again or not history.lists or reading.refs or self._vocabulary is None:
            return None
        kinds = await self._kinds_said(reading.words, text)
        said = {stem(w) for w in reading.words if len(w) > 2} - _AGAIN_WORDS  # (the shopper's words for it)
        for shown in reversed(history.lists):
            named = [{"name": shown.subject if " / " not in shown.subject else ""}, *shown.products]
            asked_so = said & {stem(w) for w in words(fold(named[0]["name"]))}  # ("les cafetières": as asked)
            if shown.products and (asked_so or any(k and _of_kind(named, k) for k in kinds)):
                return search_call(dict(shown.args), {"subject": shown.subject})
        return None

    async def _of_an_earlier_list(self, reading: Reading, text: str, history: History) -> ModelReply | None:
        """ "the frying pan you showed first, is it induction ready?", "back to the pans, the second one -
        how much?", "compare the first two knives", "back to the t-shirts - which was the cheapest?" after
        another kind of thing was listed since: the products of that kind in the latest earlier list
        with some, and the one at that place among them, the cheapest (dearest), or all of them for a
        question of which; None when the list shown has one of that kind, or nothing says which."""
        folded = fold(text)
        before = _SHOWN_BEFORE.search(folded) is not None  # "the bedding you showed me, is it dust free?"
        # (asked for again, of one shown before: "das Klo von vorhin, gibt es das in grau?")
        if len(history.lists) < 2 or history.shown is None or (reading.request and not before):
            return None
        back = _BACK_TO.search(folded) is not None
        if (reading.more or reading.similar) and not back:  # ("revenons aux salons, montre-les encore": back)
            return None
        by_price = "cheapest" if _CHEAPEST.search(folded) else "dearest" if _DEAREST.search(folded) else None
        places = reading.refs or [o for o in reading.ordinals]
        if not (places or by_price or back or before):
            return None
        if self._vocabulary is None:
            return None
        synonyms = await self._catalog_synonyms(text)
        kinds = await self._kinds_said([w for w in reading.words if stem(w) not in ORDINAL_WORDS], text)

        # ("pans" of a "Frying Pan", "knives" of a "Chef's Knife")
        # (gone "back to" them, they are the earlier list's though the list shown has one: "back to the keyboards"
        # after mice beside a keyboard-and-mouse set)
        kinds = [k for k in kinds if k and (back or not _of_kind(history.shown.products, k))]
        found, earlier = next(
            (
                (sub, earlier)
                for earlier in reversed(history.lists[:-1])
                for k in kinds
                if (sub := _of_kind(earlier.products, k))
            ),
            ([], None),
        )
        if not found:
            # called by the shopper's own word for what a list was asked for, where the catalog has no such word
            # ("la cafetière la moins chère" after "cafetière à piston" was asked for and knives were listed since)
            found, earlier = _asked_for_so(reading, history) or ([], None)
        if not found and (before or (places and ordinal_kind(text))):
            # called by a word no name or category of the list shown has: "the cage from before" (a "Hamster Home"
            # listed for "hamster cage"), "das Klo von vorhin", "that first tank"
            found, earlier = await self._called_earlier(text, history) or ([], None)
            said = _called_before(folded)
            if not found and before and said and (kind := await self._kind_not_shown(text, history, said)):
                # "the shears you showed me first, what do they cost?" where no list had shears (secateurs did):
                # the shop's shears, found, then asked (was the first product of the list shown, a water butt)
                return find_called([kind], [], text, synonyms, [], or_first=True)
        if not found or earlier is None:
            return None
        plural = any(stem(w) != w for w in reading.words if stem(w) not in ORDINAL_WORDS)
        if back and plural and not (places or by_price or reading.question or reading.buy or "?" in text):
            # "go back to the keyboards", "zurück zu den Töpfen": that list again, as it was searched
            return search_call(dict(earlier.args), {"subject": earlier.subject})
        if by_price:
            priced = [(p, price) for p in found if (price := decimal_or_none(p.get("effectivePrice"))) is not None]
            if not priced:
                return None
            pick = min if by_price == "cheapest" else max
            ids = [int(pick(priced, key=lambda pair: pair[1])[0]["productId"])]
        elif places:
            # the places of a list asked for by that kind are its own ("the second saucepan" of the list for
            # "saucepan with lid" is its second product, a "Sauté Pan"; "the first sheet pan", its first)
            asked_for = [k for k in kinds if " / " not in earlier.subject and _of_kind([{"name": earlier.subject}], k)]
            among = earlier.products if asked_for else found
            picked = [at_position(among, p) for p in places[:LIST_LENGTH]]
            if asked_for and any(p is not None and _plainly_other(p, found) for p in picked):
                # ... unless the one at that place is plainly another thing ("the second food" of the list for
                # "dry food for a puppy" that had a bowl second: the second of its foods)
                picked = [at_position(found, p) for p in places[:LIST_LENGTH]]
            if any(p is None for p in picked):
                return self._out_of_range(among)
            ids = [int(p["productId"]) for p in picked if p is not None]
        elif reading.points_at_all or _WHICH_OF.search(folded):  # "back to the speakers - which is the loudest?"
            ids = [int(p["productId"]) for p in found[:LIST_LENGTH]]
        elif before:  # the one of them talked about, else the first
            talked = [p for p in found if p.get("productId") in history.talked]
            one = min(talked, key=lambda p: history.talked.index(p["productId"])) if talked else found[0]
            ids = [int(one["productId"])]
        else:
            return None  # "back to the speaker, …": the one so called (_back_to)
        if reading.compare and len(ids) >= 2 and not reading.question:
            return details_call(ids[:2], compare=True)
        asked = reading.question or reading.buy or reading.asks_about or "?" in text or reading.sizes or reading.colors
        if asked or by_price:
            return details_call(ids, question=text, asked=_asked_of(reading), also=synonyms)
        return details_call(ids)

    async def _called_earlier(self, text: str, history: History) -> tuple[list[dict[str, Any]], Shown] | None:
        """The products of an earlier list a back-reference calls by a word ("the cage from before", "das Klo
        von vorhin", "that first tank") in any of the catalog's words for it: those of the latest earlier list
        with it in their names, else in their categories, else all of the latest earlier list asked for with
        it ("hamster cage": the "Hamster Home"; "Katzenklo mit Deckel": the litter box). None when the list
        shown has it so, or was asked for with it: that list is meant."""
        word = _called_before(fold(text)) or ordinal_kind(text)  # (the thing: "the lawn food" is food)
        if not word or self._vocabulary is None or len(history.lists) < 2:
            return None
        vocabulary = await self._vocabulary()
        readings = [{stem(w) for w in words(term)} for term in {word, *vocabulary.terms(word).terms}]

        def has_it(text: str) -> bool:
            found = words(fold(text))
            stems = {stem(w) for w in found}
            # (or the end of a compound: "Katzenklo" for "Klo", "Gartenschere" for "Schere")
            return any(r <= stems for r in readings) or (
                len(word) >= 3 and any(w.endswith(word) and len(w) >= len(word) + 3 for w in found)
            )

        def asked_with(shown: Shown) -> bool:
            return has_it(f"{shown.subject} {shown.args.get('query', '')}")

        current = history.lists[-1]
        if asked_with(current) or any(has_it(f"{p.get('name', '')} {p.get('category', '')}") for p in current.products):
            return None
        for field in ("name", "category"):
            for shown in reversed(history.lists[:-1]):
                if of_it := [p for p in shown.products if has_it(str(p.get(field, "")))]:
                    return of_it, shown
        return next(((s.products, s) for s in reversed(history.lists[:-1]) if asked_with(s) and s.products), None)

    async def _back_to(self, reading: Reading, text: str, history: History) -> ModelReply | None:
        """ "back to the speaker, how long does the battery last?", "going back to the red one, is it in
        stock", "zurück zum Lautsprecher": the product of an earlier list so called, asked of (its card
        when nothing more is asked); None when the message returns to nothing shown before."""
        found = _BACK_TO.search(fold(text))
        if found is None or len(history.lists) < 2:
            return None
        colours = {fold(c) for c in self._lexicon.colors}
        # ("back to the first grinder": the grinder; which of an earlier list is by name, not by place)
        said = [
            w
            for w in words(found["rest"])
            if w not in STOPWORDS and w not in _ONE_WORDS and stem(w) not in ORDINAL_WORDS
        ]
        colour = next((self._lexicon.colors[w] for w in said if w in colours), None)
        synonyms = await self._catalog_synonyms(" ".join(said)) if said else {}
        called = {stem(w) for w in words(" ".join(synonyms.get(w, w) for w in said if w not in colours))}
        if not called and colour is None:
            return None
        folded = fold(text)  # (the match's offsets are the folded text's: "ß" is "ss" there)
        question = (folded[: found.start()] + " " + folded[found.end() :]).strip(" ,.;:-")
        hint = {stem(w) for w in words(question) if w not in STOPWORDS}
        product = history.returned_to(called, colour, lambda name: {stem(w) for w in words(name)}, hint)
        if product is None and called and colour is None:
            # "ok going back to the first tank" where no product is named so ("Aquarium Starter Set"): of the first
            # list asked for with the word ("a small fish tank for my room"), the one at the place said, else its first
            asked_with = [
                s.products for s in history.lists
                if s.products and called <= {stem(w) for w in words(fold(f"{s.subject} {s.args.get('query', '')}"))}
            ]  # fmt: skip
            at = [n for n in reading.ordinals if n > 0][:1] or [1]
            there = at_position(asked_with[0], at[0]) if asked_with else None
            product = int(there["productId"]) if there is not None else None
        if product is None:
            return None
        return details_call([product], question=question, asked=_asked_of(reading)) if question else (
            details_call([product]))  # fmt: skip

    async def _kind_not_shown(
        self, text: str, history: History, said: str | None = None, *, by_name: bool = False
    ) -> str | None:
        """The kind of thing a place is said of ("the first cage"), or `said` of, where no list shown had one
        of that kind (by name or category; `by_name`, by name only: a grow light in "Greenhouse & propagation"
        is no propagator); None otherwise."""
        said = said or ordinal_kind(text)
        if said is None or self._vocabulary is None:
            return None
        vocabulary = await self._vocabulary()
        meant = (await self._catalog_synonyms(said)).get(said, said)
        # (a kind the catalog names things by, by its last word; not what things come in: "the second set", "la
        # deuxième paire"; nor a property after the place: "ist die erste backofenfest?" is "oven safe")
        if not vocabulary.names_a_kind(words(meant)[-1] if words(meant) else meant) or meant in ph.CONTAINERS | _PAIRS:
            return None
        kind = [word_forms(w) for w in words(meant)]
        if any(
            _of_kind(shown.products, kind) or (not by_name and _of_kind(shown.products, kind, True))
            for shown in history.lists
        ):
            return None
        if by_name:
            return meant
        # ("the first bag" of foods sold by the bag: a word of the products shown, their options')
        return None if any(stem(meant) in words_of(shown.products) for shown in history.lists) else meant

    async def _called_in_question(self, reading: Reading, text: str) -> tuple[list[str], dict[str, str]] | None:
        """The catalog's words for the product a question asks about, called by what it is right after
        its article ("does the terracotta pot have a drainage hole?": terracotta pot; "die kleinen
        Töpfe, haben die ein Loch?": pot), with the catalog's words for the shopper's; None where
        the message asks for products ("do you have the kettle in red?"), points at one by its place,
        or calls nothing the catalog sells a kind of thing by."""
        if self._vocabulary is None or not reading.question or reading.request or reading.refs or reading.compare:
            return None
        found = _ASKS_OF_THE.search(fold(text))
        if found is None or reading.ordinals:
            return None
        vocabulary = await self._vocabulary()
        kept: list[str] = []
        for word in words(found.group(1) or found.group(2)):
            if (word in _SIZED_BY and not kept) or (word in _JOINING and kept):  # "the small pots in clay"
                continue
            if word in STOPWORDS or not (vocabulary.names_products(word) or vocabulary.names_a_kind(word)):
                break
            kept.append(word)
        called = [w for term in vocabulary.terms(" ".join(kept)).terms for w in words(term)]  # "Töpfe": pot
        if not any(vocabulary.names_a_kind(w) for w in called):
            return None
        return called, await self._catalog_synonyms(text)

    async def _named_not_shown(self, called: str, history: History) -> list[str] | int:
        """The words calling a thing at the opening of a question ("the allium bulbs - …"), up to a small word,
        where one of them is a word the catalog names products by that no product listed has in its name
        ("allium" after tulips and daffodils): those words, to search, or the first product the search found
        below the list shown named by it ("the hedgehog house you had in the list" after bird feeders; "the
        belt" after a scarf); none otherwise (and none for a word that tells which, a colour, size, material,
        part or property)."""
        if self._vocabulary is None:
            return []
        vocabulary = await self._vocabulary()
        said = list(itertools.takewhile(lambda w: w not in STOPWORDS, words(called)))
        # (by the names: a category "Scratching posts & trees" does not make a scratching post a tree)
        seen = words_of([{"name": p.get("name", "")} for shown in history.lists for p in shown.products])

        def names_another(w: str) -> bool:
            # (a word of three letters only where the catalog calls a kind of thing so, "pot", "mug"; not "box")
            short = len(w) < 3 or (len(w) == 3 and (not vocabulary.names_a_kind(w) or w in ph.CONTAINERS))
            if short or w in SAYS_WHICH | PARTS | MADE_OF | _ONE_WORDS | _NOT_A_NAME or w in self._lexicon.colors:
                return False
            if stem(w) in ORDINAL_WORDS or self._lexicon.rules.size(w) is not None or properties_named({stem(w)}):
                return False
            # (or by the catalog's words for it: "l'arrosoir" is the "Watering Can" shown)
            said_so = [w, *(t for term in vocabulary.terms(w).terms for t in words(term) if t != w)]
            if any({stem(f) for f in word_forms(t)} & seen for t in said_so):
                return False
            if any(_asked_with(word_forms(w), str(shown.args.get("query", ""))) for shown in history.lists):
                return False  # ("la casserole" after "casserole en inox" found a saucepan: that one)
            return any(vocabulary.in_names(t) for t in said_so)

        naming = [w for w in said if names_another(w)]
        head = said[-1] if said else ""
        # (what it is must be a thing the shop names too: "the grow bags you showed" where only a "Grow Light" is
        # named so is no product of the shop)
        if not naming or not (
            head in naming or vocabulary.in_names(head) or {stem(f) for f in word_forms(head)} & seen
        ):
            return []
        forms = {stem(f) for w in naming for f in word_forms(w)}
        below = history.shown.unshown if history.shown else []
        # (searched by all its words up to the words saying it was shown: "chargeur sans fil" of "le chargeur sans fil
        # que tu as montré", where "sans" is a small word)
        marker = _SHOWN_BEFORE.search(called) or re.search(r"\b(?:que|qu'|den|die|das)\b", called)
        whole = words(called[: marker.start()]) if marker else said
        searched = whole if said and whole[: len(said)] == said else said
        # (one named for what it is: "the terracotta pot" is no "Drip Irrigation Kit for 20 Pots")
        return next((int(p["productId"]) for p in below if forms & {stem(f) for f in _what_it_is(p)}), searched)

    async def _described(
        self, text: str, reading: Reading, history: History, synonyms: dict[str, str]
    ) -> tuple[list[str], list[str], list[str]] | None:
        """The (stemmed) words by which a (folded) question calls a thing after an article that no product is
        named or filed under, though the catalog's texts use them ("is the basil an annual?" after a herb seed
        collection: basil, of its text), the words to search it by, in the catalog's words, and all the words calling
        it as the shopper wrote them ("grow bags" of "the grow bags you showed", where a "Grow Light" is named by
        "grow"); None for a part, a property, a colour or a size."""
        if self._vocabulary is None or not history.lists:
            return None
        vocabulary = await self._vocabulary()
        seen = words_of([p for shown in history.lists for p in shown.products])
        colours = {fold(c) for c in reading.colors}
        found: list[str] = []
        written: list[str] = []
        opening = _ASKS_OF_THE.search(text)
        called = words(opening.group(1) or opening.group(2)) if opening else []
        if not called and (first := _CALLED_FIRST.match(text) or _called_shown_at_opening(text)):
            called = words(first.group(1))  # "the rosemary you showed, is it hardy?"
        called = called or called_one(text)  # "what's in the box for the bead one?" of a kit with beads
        phrase = list(itertools.takewhile(lambda w: w not in STOPWORDS, called))  # ("the basil an annual": basil)
        for said in phrase:
            if said in PARTS | SAYS_WHICH | _SIZE_WORDS | colours or stem(said) in ORDINAL_WORDS:
                continue
            catalog = [said] if vocabulary.uses(said) else words(fold(synonyms.get(said, "")).replace("|", " "))
            stems = {stem(w) for w in catalog}
            if not stems or stems & seen or properties_named(stems) or not all(vocabulary.uses(w) for w in catalog):
                written += catalog if stems and all(vocabulary.uses(w) for w in catalog) else []
                continue
            if any(vocabulary.names_products(w) for w in catalog):
                written += catalog  # (a thing the shop names products by is searched: "the controller" of mats)
                continue
            found += sorted(stems)
            written += catalog
        return (found, written, phrase) if found else None

    def _earlier_of_kind(
        self,
        reading: Reading,
        history: History,
        shown: list[dict[str, Any]],
        named: list[str],
        synonyms: dict[str, str],
        text: str,
    ) -> int | None:
        """The product of an earlier list a choice or an ordinal calls by a kind no product shown is of
        ("ok I'll take the jacket", "ich nehme die Tastatur" after mice, one a "Keyboard and Mouse Set",
        since the keyboard; "ich nehme die erste Schere" after gloves, since secateurs): the one talked
        about, or at that place among those of the kind; None when a product shown is of it."""
        refs = reading.refs or [o for o in reading.ordinals if o != -1]
        kind = ordinal_kind(text) if len(refs) == 1 else None
        # (what it is called, in the catalog's words where the catalog uses another: "Tastatur": keyboard)
        said = [w for w in reading.words if w in named or w in synonyms]
        # "the bedding you showed, is it dust free?", "die Töpfe, haben die ein Loch?": called by its kind
        definite = (
            [
                w
                for m in _THE_KIND.finditer(fold(text))
                if not (m.group(2) and _MEASURE_AFTER.fullmatch(m.group(2)))
                for w in m.groups()
                if w in said
            ]
            if not refs
            else []
        )
        # ("wie lange hält der Akku der Kopfhörer?": the battery is of no kind any list had, the headphones it is of
        # are; not "the leather ones, which colour is closest to the scarf": the scarf is no thing the gloves are of)
        of_the = _OF_THE_NEXT.search(fold(text))
        next_one = [of_the.group(2)] if of_the and definite[:1] == [of_the.group(1)] and of_the.group(2) in said else []
        calls = (
            [[kind]] if kind else [said[-1:]] if reading.buy and not refs else [[w] for w in definite[:1] + next_one]
        )
        if not calls or not shown:
            return None

        def head(p: dict[str, Any]) -> set[str]:
            return {stem(name_head(str(p.get("name", ""))) or "")}

        def name_words(p: dict[str, Any]) -> set[str]:
            return {stem(w) for w in words(str(p.get("name", "")))}

        def kinds_of(p: dict[str, Any]) -> set[str]:  # its name's, and its category's ("Small animal cages")
            return head(p) | {stem(h) for h in category_heads(str(p.get("category", "")))}

        place = refs[0] if kind else None
        for called in calls:
            if not called:
                return None
            kinds = {stem(x) for w in called for x in words(fold(synonyms.get(w, w)).replace("|", " "))} | {
                stem(w) for w in called
            }
            if any(head(p) & kinds for p in shown):
                return None
            # named so in an earlier list ("die Tastatur" after mice, one a "Keyboard and Mouse Set"), else of that
            # kind by its category in the list shown ("the first cage" of a "Hamster Home" among cages), else before
            if len(history.lists) >= 2 and (earlier := history.earlier_of_kind(kinds, head, place)) is not None:
                return earlier
            if len(history.lists) >= 2 and (earlier := history.earlier_of_kind(kinds, name_words, place)) is not None:
                return earlier  # "the aquarium, how many litres?" of the "60 l Aquarium Starter Set" before fish food
            if of_kind := [p for p in shown if kinds_of(p) & kinds]:
                chosen = at_position(of_kind, place or 1) if place or len(of_kind) == 1 else None
                return int(chosen["productId"]) if chosen is not None else None
            if len(history.lists) >= 2 and (earlier := history.earlier_of_kind(kinds, kinds_of, place)) is not None:
                return earlier
        return None

    async def _names_another_kind(self, named: list[str], shown: Shown, earlier: set[str]) -> bool:
        """Whether a word the catalog names a kind of thing with ("bed", "lead") is among `named` and
        neither in the request shown (`earlier`: its words) nor in what it showed."""
        if self._vocabulary is None:
            return False
        vocabulary = await self._vocabulary()
        seen = words_of(shown.products)
        return any(vocabulary.names_a_kind(w) and w not in earlier and stem(w) not in seen for w in named)

    async def _catalog_synonyms(self, text: str) -> dict[str, str]:
        """The catalog's words for the shopper's words of `text` that the catalog does not use."""
        if self._vocabulary is None:
            return {}
        return dict((await self._vocabulary()).terms(text).corrections)

    async def _cued_kind(self, folded: str, shown: list[dict[str, Any]]) -> bool:
        """Whether a word right after a word asking for something ("any", "is there a", a message's
        opening "and") names a kind of thing the catalog sells and no product shown, as written or
        in the catalog's words ("und dünger": fertiliser)."""
        if self._vocabulary is None:
            return False
        vocabulary = await self._vocabulary()
        if not vocabulary.kinds:
            return False
        seen = words_of(shown)
        # the two words after each cue, as "any other gloves", "is there a matching collar" have the thing second
        after: set[str] = set()
        for m in _CUE.finditer(folded):
            following = words(folded[m.end() :])[:3]
            if m["which"] and (_MEASURED & set(following) or not _CHOOSING.search(folded)):
                continue  # "what pot size?", "what greenhouse temperature?": of the products shown
            after |= {w for w in following[:2] if w not in STOPWORDS}
        for word in after - seen:
            readings = {word, *vocabulary.terms(word).terms}
            if any(vocabulary.names_a_kind(w) for w in readings) and not {stem(w) for w in readings} & seen:
                return True
        return False

    async def _catalog_words(self, found: list[str]) -> list[str]:
        """Those of the words the catalog uses for its products (all of them while the catalog
        has no words yet: then nothing can be told apart, and everything is searched)."""
        if not found or self._vocabulary is None:
            return found
        vocabulary = await self._vocabulary()
        if not len(vocabulary):
            return found
        return [w for w in found if vocabulary.names_products(w)]


def _called_shown_at_opening(folded: str) -> re.Match[str] | None:
    """A longer opening calling a thing shown before, up to its comma ("the cat tree with hammock you showed, is
    it in stock?"); not one telling of something ("ok the ground is full of weeds and grass, what do i need")."""
    found = _CALLED_AT_OPENING.match(folded)
    return found if found is not None and _SHOWN_BEFORE.search(found.group(1)) else None


def _as_written(said: list[str], text: str) -> str:
    """Folded words of a message as the shopper wrote them ("Mikrofon" of "das Mikrofon, das du gezeigt hast")."""
    found = re.search(r"\b" + r"\s+".join(re.escape(w) for w in said) + r"\b", " ".join(text.split()), re.IGNORECASE)
    return found.group(0) if found else " ".join(said)


def _called_before(folded: str) -> str | None:
    """The word a back-reference calls a product by: "cage" of "the cage from before", "schere" of "die Schere von
    vorhin" (the last word after the last article before it); None without one."""
    marker = _SHOWN_BEFORE.search(folded)
    called = _CALLED_BEFORE.search(folded[: marker.start()]) if marker else None
    said = [
        w for w in (words(called.group(1)) if called else [])
        if w not in STOPWORDS and w not in _ONE_WORDS and stem(w) not in ORDINAL_WORDS
    ]  # fmt: skip
    return said[-1] if said else None


def _shown_in(colour: str, history: History) -> bool:
    """Whether a product of a list shown comes in a colour, or a shade of it (navy for blue), or is named by
    it ("Grey Fleece Blanket")."""
    return any(
        colour in colours_of(p)
        or ph.colours_of_family(colour, colours_of(p))
        or colour in words(fold(str(p.get("name", ""))))
        for shown in history.lists
        for p in shown.products
    )


def _called_unshown(
    text: str,
    shown: list[dict[str, Any]],
    unshown: list[dict[str, Any]],
    also: dict[str, str],
    kind_word: Callable[[str], bool],
) -> int | None:
    """The product a search found and did not show that the message calls "the" and the word its name
    calls its kind by (or a word of its name that names a kind, `kind_word`), which no product shown has,
    where that word names no property, part, material (those are searched: "the leather ones", "the
    stainless steel one") or which of them ("the big one"): the first found so. Called in the catalog's
    words for the shopper's, it is of a category none shown is of ("le pull" is the jumper shown, not a
    "Sweater" of its category found below it)."""
    said = called_the(text, unshown, also)
    forms = {stem(said), *(stem(w) for w in words(fold(also.get(said, ""))))} if said else set()
    if not forms or said in SAYS_WHICH | PARTS | MADE_OF or properties_named(forms):
        return None
    if any(calls(forms, str(p.get("name", ""))) for p in shown):
        return None
    categories = {p.get("category") for p in shown}
    for p in unshown:
        # (by what it is: the last word of its name, "the gauntlets", or a word of it the catalog names kinds of
        # thing with; not "the beach" of a "Beach Flip-Flop", nor "the chicken ones" of a food "— Chicken & Pea")
        called = str(p.get("name", "")) if kind_word(said) else name_head(str(p.get("name", ""))) or ""
        if calls({stem(said)}, called) or (calls(forms, called) and p.get("category") not in categories):
            return int(p["productId"])
    return None


def _asked_for_so(reading: Reading, history: History) -> tuple[list[dict[str, Any]], Shown] | None:
    """The products of the latest list before the one shown that was asked for with a word of the message
    (not the list shown: that one is meant by any message about it)."""
    said = {stem(w) for w in reading.words if len(w) > 3 and stem(w) not in ORDINAL_WORDS}

    def asked_with(subject: str) -> bool:  # (or the end of a compound: "Schere" of "Gartenschere")
        return any(s == w or (w.endswith(s) and len(w) >= len(s) + 3) for s in said for w in _stems_of(subject))

    if not history.shown or asked_with(history.shown.subject):
        return None
    for shown in reversed(history.lists[:-1]):
        if shown.products and " / " not in shown.subject and asked_with(shown.subject):
            return shown.products, shown
    return None


_DESCRIBED_LOOKED_UP = 12  # products of the lists shown looked up for the one whose text a question calls it by


def _stems_of(text: str) -> set[str]:
    return {stem(w) for w in words(fold(text))}


def _of_kind(products: list[dict[str, Any]], kind: list[set[str]], by_category: bool = False) -> list[dict[str, Any]]:
    """Those products whose name (or, `by_category`, category) has each word of a kind, in any of its
    forms ("leash" of a "Training Lead" by its synonym, "toy" of a treat ball in "Toys")."""
    return [
        p for p in products
        if all(_has_form(forms, words(str(p.get("category" if by_category else "name", "")))) for forms in kind)
    ]  # fmt: skip


def _plainly_other(product: dict[str, Any], of_kind: list[dict[str, Any]]) -> bool:
    """Whether a product is none of those of a kind, nor in their categories, nor named by a word their names
    end in (a "Stoneware Bowl" beside dog foods; not a "Sauté Pan" beside a "Saucepan")."""
    if not of_kind or product in of_kind:
        return False
    if product.get("category") in {p.get("category") for p in of_kind}:
        return False
    head = fold(name_head(str(product.get("name", ""))) or "")
    return not head or not any(w.endswith(head) for p in of_kind for w in words(fold(str(p.get("name", "")))))


_LISTS_BACK = 2  # how many lists before the one shown a place past its end may be of ("the second one" after one)
_COMPOUND_HEAD = 4  # the shortest word ending a compound that names its kind ("whetstone": stone; not "pan")


def _has_form(forms: Set[str], said: list[str]) -> bool:
    """Whether one of the words is one of the forms, or a compound ending in one ("Smartwatch": watch)."""
    return bool(forms & set(said)) or any(
        w.endswith(f) and len(f) >= _COMPOUND_HEAD and len(w) >= len(f) + 3 for f in forms for w in said
    )


def _both(history: History) -> list[int]:
    """The two products "both" means where the list does not tell: the two talked about last (compared),
    or the one talked about and the first of the list shown since; empty otherwise (then the first two
    of the list)."""
    if len(history.detailed) >= 2:
        return history.detailed[:2]
    shown = history.shown.products if history.shown else []
    # ("add both" after a webcam was talked about and USB hubs were listed: the webcam and the first hub)
    if shown and history.talked and history.talked[0] not in {p.get("productId") for p in shown}:
        return [history.talked[0], int(shown[0]["productId"])]
    return []


def _comes_in(shown: Shown, container: list[str]) -> bool:
    """Whether the products shown are sold by what the words name ("Bag size: 400 g, 2 kg", "SET OF 4")."""
    said = " ".join(
        " ".join([str(p.get("name", "")), *p.get("availableOptions", {}), *p.get("availableSizes", [])])
        for p in shown.products
    )
    have = {stem(w) for w in words(fold(said))}
    return all(stem(w) in have for w in container)


def _says_a_colour(said: str, colours: list[str]) -> bool:
    """Whether the words `said` name each of those colours (the catalog's colour words, folded)."""
    named = set(words(said))
    return all(set(words(c)) <= named for c in colours)


def _points_at_shown(reading: Reading, folded: str) -> bool:
    """Whether a message points at products shown ("it", "those", "the grain free ones"), not at a thing it names
    ("We also need two folding chairs, do you sell these?")."""
    pointing = (reading.points_at_one or reading.points_at_all) and not _SELL_THESE.search(folded)
    return pointing or _ONES.search(folded) is not None


def _only_a_variation(reading: Reading) -> bool:
    """Whether a message says a colour or size (and maybe "in stock") and nothing else: no describing word,
    no place in the list, no price, nothing more, other or unwanted."""
    return (
        bool(reading.colors or reading.sizes)
        and not (reading.words or reading.refs or reading.negated or reading.colors_not or reading.unknown_sizes)
        and not (reading.cheaper or reading.pricier or reading.more or reading.similar)
        and reading.max_price is None
        and reading.min_price is None
    )


def _talked_about(history: History) -> int | None:
    """The one product talked about since the list was shown ("tell me about the second" and no other)."""
    return history.detailed[0] if len(history.detailed) == 1 else None


def _comes_in_sizes(product: dict[str, Any]) -> bool:
    """Whether a product of a search result comes in two sizes or more (or values of an option)."""
    if len(product.get("availableSizes") or []) >= 2:
        return True
    return any(len(values) >= 2 for values in (product.get("availableOptions") or {}).values())


def _priced_product(shown: list[dict[str, Any]], product_id: int | None) -> tuple[dict[str, Any], Decimal] | None:
    """The product of the list with that id, and its price; None when it is not on the list or has no price."""
    for product in shown:
        if product_id is not None and product.get("productId") == product_id:
            price = decimal_or_none(product.get("effectivePrice"))
            return (product, price) if price is not None else None
    return None


def _what_it_is(product: dict[str, Any], *, last_word: bool = False) -> set[str]:
    """The forms of the word its name says what it is with (a "Hose" of an "Anti-Kink Garden Hose"), and with
    `last_word` those of its name's last word too (the "… — Bare-Root Canes" are canes)."""
    name = str(product.get("name", ""))
    forms = word_forms(fold(name_head(name) or ""))
    return forms | word_forms(words(fold(name))[-1]) if last_word and words(name) else forms


def _priced_of_kind(history: History, kind: str, which: str) -> int | None:
    """The cheapest or dearest product (its productId) of those of the latest list shown with any that a word
    of their names calls `kind` ("knife" of a "Serrated Bread Knife", "coat" of a "Peacoat"); None where no
    list has one."""
    forms = word_forms(fold(kind))
    called = {stem(fold(kind))}  # (or a compound's end: the "Peacoat" of "the cheaper coat")
    for shown in reversed(history.lists):
        of_kind = [
            (price, n, int(p["productId"]))
            for n, p in enumerate(shown.products)
            if (
                any(word_forms(w) & forms for w in words(fold(str(p.get("name", ""))))) or calls(called, str(p["name"]))
            )
            and (price := decimal_or_none(p.get("effectivePrice"))) is not None
        ]
        if of_kind:
            chosen = min(of_kind) if which == "cheapest" else max(of_kind, key=lambda k: (k[0], -k[1]))
            return chosen[2]
    return None


def _asked_for_first(called: str, history: History) -> list[int]:
    """The products that fit of the latest list whose request had the words a question calls its thing by
    first, or ended on them ("die Dosen" of "Vorratsdosen für Mehl"; "the leggings" of the joggers found for
    "leggings for running", a shoe of an earlier list talked about since), the one of them talked about if
    any; none otherwise. The caller asks this only where no product shown is named so."""
    said = {f for w in words(called) if w not in STOPWORDS for f in word_forms(w)}
    if not said or not history.shown:
        return []
    for shown in reversed(history.lists):
        if shown.products and _asked_with(said, str(shown.args.get("query", ""))):
            if shown is history.shown and (history.detailed[:1] or [0])[0] in {p["productId"] for p in shown.products}:
                return []  # (the one of the list shown talked about: the question's own way to it)
            fitting = [p for p in shown.products if p.get("match") == "strong"] or shown.products[:1]
            return [int(p["productId"]) for p in fitting[:_ASKED_ABOUT_UNPOINTED]]
    return []


# "which bed is washable", "welche Schere ist leichter", "quel pot est le plus grand": which of a kind
_WHICH_KIND = re.compile(r"^\W*(?:(?:and|so|ok|und|et)\W+)?(?:which|welche[rnsm]?|quel(?:le)?s?) ([^\W\d_]+)\b")


def _which_of_an_earlier_kind(text: str, history: History, also: dict[str, str]) -> list[int]:
    """The products of a kind that a question asks which of ("which bed is washable?"), where the list shown has
    none of that kind (by what its names say they are, or their categories) and an earlier one has: those of
    it in the latest such list; none otherwise."""
    found = _WHICH_KIND.match(fold(text))
    if found is None or len(history.lists) < 2 or found.group(1) in STOPWORDS:
        return []
    said = found.group(1)
    forms = {f for w in [said, *words(fold(also.get(said, "")))] for f in word_forms(w)}

    def by_name(p: dict[str, Any]) -> bool:
        return bool(word_forms(fold(name_head(str(p.get("name", ""))) or "")) & forms)

    def by_category(p: dict[str, Any]) -> bool:
        return any(word_forms(fold(h)) & forms for h in category_heads(str(p.get("category", ""))))

    # what its name says it is first ("which knife" of a "Chef's Knife" before, not of a "Knife Block" and a
    # whetstone filed under "Knives" shown since), else its category
    for of_kind in (by_name, by_category):
        if any(of_kind(p) for p in history.lists[-1].products):
            return []
        for shown in reversed(history.lists[:-1]):
            if called := [int(p["productId"]) for p in shown.products[:LIST_LENGTH] if of_kind(p)]:
                return called
    return []


def _asked_with(said: Set[str], query: str) -> bool:
    """Whether a request's words have one of these, or end on one ("waage" of "Küchenwaage")."""
    asked = set(words(fold(query)))
    return bool(said & asked) or any(
        len(w) >= 4 and a.endswith(w) and len(a) >= len(w) + 3 for w in said for a in asked
    )


def _sized_of_kind(history: History, said: str) -> list[dict[str, Any]]:
    """The products of the latest list with any that a word calls by what they are ("cable" of a "Braided USB-C
    to USB-C Cable"; a German or French word by its stem: "Kabel"), those that fit first."""
    forms = {f for w in words(fold(said)) for f in word_forms(w)}
    for shown in reversed(history.lists):
        called = [p for p in shown.products[:LIST_LENGTH] if _what_it_is(p) & forms]
        if called:
            return [p for p in called if p.get("match") == "strong"] or called
    return []


def _priced_position(
    shown: list[dict[str, Any]], which: str, among: Set[int] = frozenset(), kind_words: Set[str] | None = frozenset()
) -> int | None:
    """The place (1-based) in the list of its cheapest or dearest product (of those of `among`'s
    productIds, where the list has two or more of them; else of its strong matches and those of the kind
    asked for, named by the (stemmed) `kind_words` of the list's search: "the cheapest one" after city bikes
    is no front light listed below them as close; `kind_words` None: of the whole list); None without a list."""

    def fits(p: dict[str, Any]) -> bool:
        head = name_head(str(p.get("name", "")))
        return p.get("match") == "strong" or (head is not None and stem(head) in (kind_words or set()))

    every = list(enumerate(shown, 1))
    places = [(n, p) for n, p in every if p.get("productId") in among]
    if kind_words is None:
        places = every
    elif len(places) < 2:
        places = [(n, p) for n, p in every if fits(p)] or every
    prices = [(decimal_or_none(p.get("effectivePrice")), n) for n, p in places]
    known = [(price, n) for price, n in prices if price is not None]
    if not known:
        return None
    return min(known)[1] if which == "cheapest" else max(known, key=lambda k: (k[0], -k[1]))[1]


def _in_focus(reading: Reading, history: History, named: list[str]) -> int | None:
    """The product a request for something else refers to ("a bracket to put it on the wall"): the
    one detailed last, or the only one shown; its own text may say it comes with one."""
    if not (reading.points_at_one and named):
        return None
    if history.detailed:
        return history.detailed[0]
    shown = history.shown.products if history.shown else []
    return int(shown[0]["productId"]) if len(shown) == 1 else None


# Whether a product must be put together, and with what: a question of it, not a request for tools
_ASSEMBLY = re.compile(
    r"\b(?:(?:do|will|would) (?:i|we|you) need (?:any |some )?tools?\b(?! for (?!it|them|this|that|assembly))|"
    r"assembl\w*|put (?:it |them )?together|self[- ]assembly|flat[- ]?pack\w*|"
    r"aufbau\w*|aufzubauen|zusammenbau\w*|zusammenzubauen|montage|monter|a monter|brauche ich werkzeug\w*|"
    r"faut-il des outils|besoin d'outils)"
)
# "der Akku der Kopfhörer", "der Akku bei den Kopfhörern", "the lid of the pot": a thing, then what it is of
_OF_THE_NEXT = re.compile(
    r"\b(?:the|die|der|das|den|dem|la|le|les|l')\s*([^\W\d_]+)\s+(?:(?:of|on|bei|von|vom|an|am|de|du|des)\s+)?"
    r"(?:the|der|des|den|dem|die|la|le|les|l')\s*([^\W\d_]+)"
)
_THE_WORDS = frozenset({"the", "der", "die", "das", "den", "dem", "le", "la", "les"})
_ONLY_CALLED = re.compile(r"\W*(?:the|die|der|das|den|le|la|les|l')\s*[^\W\d_]+(?:\s+[^\W\d_]+){0,2}\W*")
_NAMING_LENGTH = 5  # the shortest word of a name that calls its product alone ("multipurpose"; not "the")
_EACH_PART = re.compile(r"\b(?:and|und|et|plus|or|oder|ou|vs|versus|with|mit|avec)\b|[,&+]")
_BOTH = re.compile(r"\b(?:both|beides|beide|les deux|tous les deux|toutes les deux)\b")
_PAIRS = frozenset({"pair", "pairs", "paar", "paire", "paires"})
_MADE_OF_WORDS = frozenset({"stainless", "cast", "organic", "recycled", "solid", "genuine", "real", "faux"})
_SAID_ALONE = 2  # words of a message that only says more of the thing shown ("dry please")
_SELLS = re.compile(
    r"\b(?:do|does) (?:you|u|ya|the shop) (?:sell|have|stock|carry|do)\b|\b(?:habt|verkauft|fuhrt) ihr\b|"
    r"\b(?:vendez|avez)-vous\b"
)
# A message adding a thing to the one asked for: "and some running shorts", "plus a hat", "und eine Mütze"
_AND_SOME = re.compile(
    r"\W*(?:and|plus|also|und|et|aussi)\s+(?:some|a|an|any|ein|eine|einen|etwas|des|du|un|une)\s+[^\W\d_]"
)
_AND_FIRST = re.compile(_AND_THEN + r"\s*([^\W\d_]+)")


def _and_a_thing_unknown(text: str, reading: Reading, named: list[str], search: dict[str, Any]) -> bool:
    """Whether a message adds a thing by a word right after its "and" that the catalog does not use and the
    search returned to did not have: "and leggings for running" after "running shoes for women"."""
    found = _AND_FIRST.match(fold(text))
    said = found.group(1) if found else ""
    return said in reading.words and said not in named and said not in words(str(search.get("query", "")))


_CLAUSE = re.compile(r"\b(?:that|which|who|for|but|aber|mais)\b")
_PURPOSE = re.compile(r"\bfor\b")
# "but" and a clause telling of the shopper: what follows asks for nothing
_TOLD_BUT = re.compile(
    r"\b(?:but|aber|mais)\s+(?:i|im|ive|we|my|our|no idea|not sure|dont know|don't know|"
    r"ich|wir|mein\w*|unser\w*|keine ahnung|weiss ich|je|j|nous|mon|ma|mes|aucune idee)\b"
)


def _words_around(pattern: re.Pattern[str], said: str) -> tuple[list[str], list[str]] | None:
    """The (folded) words of `said` before and after the first match of `pattern`; None without one."""
    folded = fold(said)
    found = pattern.search(folded)
    return None if found is None else (words(folded[: found.start()]), words(folded[found.end() :]))


_PURPOSE_WORDS = 3
# Words that name someone a thing is for, their age, or what is theirs: "for my wife", "for myself", "for a 10 year
# old", "for older dogs", "for my iphone" (the search reads those better without the "for")
_SOMEONE = WHOM_FOR | HIM | HER | SON | DAUGHTER | {
    "myself", "me", "him", "her", "them", "us", "year", "years", "old", "yo", "month", "months",
    "my", "our", "your", "his", "their",
}  # fmt: skip


def _side_by_side(first: str, second: str, text: str) -> bool:
    """Whether two (folded) words stand side by side in a (folded) text, a space or hyphen between."""
    return re.search(rf"(?<![^\W_]){re.escape(first)}[\s'-]+{re.escape(second)}(?![^\W_])", text) is not None


# Words pointing at a person told of before: "for her", "he", "für sie", "pour lui", "the kids"
_PERSON_POINTED = re.compile(
    r"\b(?:her|him|she|he|them|they|hers|his|sie|ihn|ihm|ihr|er|elle|lui|il|the (?:kid|kids|child|children|boy|girl|"
    r"little one|little ones))\b"
)


def _age_told_before(text: str, history: History) -> str:
    """The child's age a request pointing at someone told of before ("and a helmet for her too, head is around 50cm"
    after "my daughter turns 5 next month") is searched with, as the search reads one ("for a 5 year old"): the
    age the latest search that told one told; "" where the message tells its own, points at no one, or none was
    told."""
    if childs_ages(text) or not _PERSON_POINTED.search(fold(text)):
        return ""
    for args in reversed(history.searches):
        if ages := childs_ages(str(args.get("query", ""))):
            age = min(ages)
            return f"for a {age:g} year old" if age >= 1 else f"for a {age * 12:g} month old"
    return ""


def _filters_of(reading: Reading) -> dict[str, Any]:
    filters: dict[str, Any] = {}
    if reading.colors:
        filters["colors"] = reading.colors
    if reading.sizes:
        filters["sizes"] = reading.sizes
    if reading.min_price is not None:
        filters["minPrice"] = float(reading.min_price)
    if reading.max_price is not None:
        filters["maxPrice"] = float(reading.max_price)
    if reading.in_stock:
        filters["inStock"] = True
    return filters


def _asked_of(reading: Reading) -> dict[str, Any]:
    """The colours, sizes, prices and stock a question of products names, and with colours or sizes its other
    describing words ("said": "will it fit a medium frame?" asks more of it than whether M is in stock)."""
    asked = _filters_asked(reading)
    if reading.colors or reading.sizes or reading.unknown_sizes:
        asked["said"] = list(reading.words)
    return asked


def _filters_asked(reading: Reading) -> dict[str, Any]:
    """The colours, sizes, prices and stock a question of products names, with the sizes the shop does not sell
    ("do you have it in size 58?", "auch in XXL?": none made so)."""
    asked = _filters_of(reading)
    if reading.unknown_sizes:
        asked["sizes"] = list(dict.fromkeys([*asked.get("sizes", []), *reading.unknown_sizes]))
    return asked


def _filter_words(reading: Reading) -> list[str]:
    return [*reading.colors, *reading.sizes]
