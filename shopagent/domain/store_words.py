"""A German or French question about the shop, read against English store pages.

"Liefert ihr nach Österreich?", "Vous livrez en Suisse ?", "Kann ich per Rechnung bezahlen?":
the shop's own pages are in English, and the local embedding model and the English full-text
configuration know none of these words, so such a question found nothing (or the size guide).
Here, for pages in English, the words shoppers use about delivery, returns, payment, orders,
contact and opening hours, and the countries they ask about, are read as the pages' words (and
a few everyday English ones: "broken" is "damaged"); the
small words of a question ("wie", "kann", "est-ce", "vous") are dropped, so that they neither
lower a passage's share of the question's words nor reach the embedding. A word with no entry
is kept as written: "PayPal", "Klarna", a town's name.

Keys are folded (case and accents: `fold`); values are English words, several where the word
says several things ("Versandkosten" -> "shipping cost"). Pages in another language get no
reading: their shoppers' questions are searched as written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from shopagent.domain.options import fold
from shopagent.domain.text import words

_GERMAN = {
    # delivery and shipping
    "lieferung": "delivery", "lieferungen": "delivery", "liefern": "deliver", "liefert": "deliver",
    "liefere": "deliver", "geliefert": "delivered", "lieferzeit": "delivery time", "lieferzeiten": "delivery time",
    "lieferkosten": "delivery cost", "versand": "shipping", "versandkosten": "shipping cost",
    "versandkostenfrei": "free shipping", "versenden": "ship", "versendet": "ship", "verschicken": "ship",
    "verschickt": "ship", "schicken": "send", "schickt": "send", "paket": "parcel",
    "pakete": "parcel", "sendung": "parcel", "sendungsverfolgung": "tracking", "zustellung": "delivery",
    "ankommen": "arrive", "ankommt": "arrive", "kommt": "arrive", "dauert": "take", "dauer": "time",
    "lange": "long", "tage": "days", "tagen": "days", "werktage": "working days", "woche": "week",
    "wochen": "weeks", "ausland": "abroad", "adresse": "address", "lieferadresse": "delivery address",
    "abholen": "collect", "abholung": "collection", "selbstabholung": "collection",     # returns and refunds
    "rucksendung": "return", "rucksendungen": "return", "ruckgabe": "return", "zuruckschicken": "return",
    "zurucksenden": "return", "zuruckgeben": "return", "zuruck": "back", "retoure": "return",
    "retouren": "return", "umtausch": "exchange", "umtauschen": "exchange", "erstattung": "refund",
    "ruckerstattung": "refund", "erstattet": "refunded", "geld": "money", "widerruf": "withdrawal",
    "beschadigt": "damaged", "kaputt": "damaged", "defekt": "faulty", "garantie": "warranty",
    "gewahrleistung": "warranty", "passt": "fit", "gefallt": "like",
    # payment
    "bezahlen": "pay", "zahlen": "pay", "zahlung": "payment", "bezahlung": "payment",
    "zahlungsarten": "payment methods", "zahlungsmethoden": "payment methods", "rechnung": "invoice",
    "kreditkarte": "credit card", "uberweisung": "bank transfer", "vorkasse": "prepayment",
    "lastschrift": "direct debit", "ratenzahlung": "instalments", "raten": "instalments",
    "kosten": "cost", "kostet": "cost", "kostenlos": "free", "gratis": "free", "gebuhr": "fee",
    "gebuhren": "fees", "preis": "price", "mehrwertsteuer": "vat", "zoll": "customs",
    # orders, contact, the shop
    "bestellung": "order", "bestellungen": "order", "bestellen": "order", "bestellt": "ordered",
    "stornieren": "cancel", "andern": "change", "kontakt": "contact", "kontaktieren": "contact",
    "erreichen": "reach", "kundenservice": "customer service", "kundendienst": "customer service",
    "telefon": "phone", "anrufen": "call", "offnungszeiten": "opening hours", "geoffnet": "open",
    "offen": "open", "laden": "shop", "geschaft": "shop", "filiale": "shop", "besuchen": "visit",
    "gutschein": "gift card", "geschenkgutschein": "gift card", "geschenkverpackung": "gift wrapping",
    "verpackung": "packaging", "geschenk": "gift", "rabatt": "discount", "studenten": "students",
    "grossentabelle": "size guide", "konto": "account",
    "lieferbar": "in stock", "vorratig": "in stock",
}  # fmt: skip

_FRENCH = {
    # delivery and shipping
    "livraison": "delivery", "livraisons": "delivery", "livrer": "deliver", "livrez": "deliver",
    "livre": "deliver", "livrent": "deliver", "livree": "delivered",
    "expedition": "shipping", "expeditions": "shipping", "expedier": "ship", "expediez": "ship",
    "expedie": "shipped", "envoi": "shipping", "envoyer": "send", "envoyez": "send", "port": "shipping",
    "frais": "cost", "colis": "parcel", "suivi": "tracking", "delai": "time", "delais": "time",
    "jours": "days", "jour": "day", "ouvres": "working", "ouvrables": "working", "semaine": "week",
    "semaines": "weeks", "etranger": "abroad", "adresse": "address", "retrait": "collection",
    "retirer": "collect", "entrepot": "warehouse", "recevoir": "receive",
    # returns and refunds
    "retour": "return", "retours": "return", "retourner": "return", "renvoyer": "return",
    "rendre": "return", "echange": "exchange", "echanger": "exchange", "remboursement": "refund",
    "rembourser": "refund", "rembourse": "refunded", "argent": "money", "retractation": "withdrawal",
    "abime": "damaged", "endommage": "damaged", "casse": "damaged", "defectueux": "faulty",
    "garantie": "warranty", "convient": "fit",
    # payment
    "payer": "pay", "paiement": "payment", "paiements": "payment", "reglement": "payment",
    "facture": "invoice", "carte": "card", "bancaire": "card", "virement": "bank transfer",
    "prelevement": "direct debit", "cout": "cost", "coute": "cost",
    "gratuit": "free", "gratuite": "free", "offert": "free", "offerte": "free", "prix": "price",
    "tva": "vat", "douane": "customs",
    # orders, contact, the shop
    "commande": "order", "commandes": "order", "commander": "order", "annuler": "cancel",
    "modifier": "change", "contacter": "contact", "joindre": "reach",
    "telephone": "phone", "appeler": "call", "horaires": "opening hours", "ouverture": "opening",
    "ouvert": "open", "ouverts": "open", "magasin": "shop", "boutique": "shop", "visiter": "visit",
    "cadeau": "gift", "emballage": "packaging", "reduction": "discount",
    "remise": "discount", "etudiants": "students", "tailles": "sizes", "taille": "size",
    "pointure": "size", "compte": "account", "disponible": "in stock",
}  # fmt: skip

_COUNTRIES = {
    "deutschland": "germany", "allemagne": "germany", "osterreich": "austria", "autriche": "austria",
    "schweiz": "switzerland", "suisse": "switzerland", "frankreich": "france", "belgien": "belgium",
    "belgique": "belgium", "niederlande": "netherlands", "holland": "netherlands", "luxemburg": "luxembourg",
    "italien": "italy", "italie": "italy",
    "spanien": "spain", "espagne": "spain", "irland": "ireland", "irlande": "ireland",
    "danemark": "denmark", "schweden": "sweden", "polen": "poland", "pologne": "poland",
    "tschechien": "czechia", "paysbas": "netherlands", "grossbritannien": "united kingdom",
    "england": "united kingdom", "angleterre": "united kingdom", "royaume": "united kingdom",
    "europa": "europe",
}  # fmt: skip

# Towns shoppers name where the pages name the country ("when does it arrive in Basel?", "can you post it to
# Galway?"): read as the town and its country. Towns whose name is also a word a shopper uses otherwise ("Nice",
# "Cork", "Bath", "Split", "Tours", "Essen", "Bâle" a bale) are left out.
_TOWNS = {
    "austria": "wien vienna vienne graz linz salzburg innsbruck klagenfurt",
    "switzerland": "zurich basel bern berne geneva geneve genf lausanne luzern lucerne lugano winterthur",
    "germany": "berlin hamburg munchen munich koln cologne frankfurt stuttgart dusseldorf dortmund leipzig bremen "
    "dresden hannover hanover nurnberg nuremberg freiburg heidelberg bonn mannheim karlsruhe augsburg aachen kiel "
    "rostock potsdam munster wiesbaden mainz",
    "france": "paris lyon marseille toulouse nantes strasbourg montpellier bordeaux lille rennes reims grenoble "
    "dijon metz",
    "belgium": "brussels bruxelles brussel antwerp antwerpen anvers ghent gent gand bruges brugge liege luik namur "
    "leuven louvain charleroi mechelen",
    "netherlands": "amsterdam rotterdam utrecht eindhoven groningen haarlem leiden maastricht nijmegen arnhem delft "
    "tilburg breda",
    "ireland": "dublin galway limerick waterford kilkenny sligo",
    "united kingdom": "london manchester birmingham edinburgh glasgow liverpool leeds bristol belfast cardiff",
    "italy": "rome roma milan milano mailand naples napoli turin torino florence firenze venice venezia bologna verona",
    "spain": "madrid barcelona valencia seville sevilla malaga bilbao",
    "portugal": "lisbon lisboa lissabon",  # (not Porto: German for postage)
    "denmark": "copenhagen kobenhavn kopenhagen aarhus",
    "sweden": "stockholm gothenburg goteborg malmo",
    "norway": "oslo bergen",
    "finland": "helsinki",
    "poland": "warsaw warszawa warschau krakow cracow gdansk wroclaw",
    "czechia": "prague praha prag brno",
    "hungary": "budapest",
    "greece": "athens athen athenes",
}
_TOWN_COUNTRIES = {town: f"{town} {country}" for country, towns in _TOWNS.items() for town in towns.split()}

# The small words of a German or French question: they say nothing of its topic.
_QUESTION_WORDS = frozenset({
    "wie", "was", "wann", "wo", "wohin", "welche", "welcher", "welches", "warum", "kann", "konnen", "konnte",
    "ich", "ihr", "sie", "wir", "man", "es", "er", "ist", "sind", "bin", "auch", "nach", "bei", "gibt",
    "mir", "mich", "mein", "meine", "meinen", "euch", "euer", "eure", "noch", "schon", "bitte", "hallo",
    "habt", "haben", "hat", "hab", "habe", "wird", "werden", "denn", "mal", "so", "wenn", "dass", "ob",
    "per", "in", "an", "auf", "uber", "hoch", "viel", "wieviel", "wieviele", "direkt", "einfach",
    "der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "einer", "und", "oder", "aus",
    "mit", "fur", "von", "vom", "zu", "zum", "zur", "im", "am", "nicht", "kein", "keine",
    "est", "ce", "que", "qui", "quel", "quelle", "quels", "quelles", "je", "j", "vous", "nous", "il", "elle",
    "on", "sont", "combien", "comment", "quand", "ou", "pouvez", "peut", "puis", "peux", "avez", "faites",
    "ca", "c", "s", "n", "pas", "ne", "y", "a", "aussi", "svp", "bonjour", "acceptez",
    "le", "la", "les", "l", "un", "une", "du", "de", "d", "et", "en", "au", "aux", "pour", "avec",
    "sans", "dans", "sur", "par", "mon", "ma", "mes", "votre", "vos", "chez", "moyens", "moyen",
    "prend", "faut", "fait", "temps",
})  # fmt: skip

_NETHERLANDS = re.compile(r"\bpays[\s-]+bas\b")  # two words for one country

# English words shoppers use where shop pages use another ("it arrived broken": damaged).
# ("can you send to Italy?": shipped, as the pages say; "send it back" is a return, read above; "when would it
# arrive?": delivery)
_ENGLISH = {
    "broken": "damaged", "smashed": "damaged", "cracked": "damaged", "busted": "damaged", "send": "ship",
    "sending": "shipping", "arrive": "delivery", "arrives": "delivery",
}  # fmt: skip

_READINGS: Mapping[str, Mapping[str, str]] = {"en": {**_ENGLISH, **_GERMAN, **_FRENCH, **_COUNTRIES, **_TOWN_COUNTRIES}}
# English phrases for what pages say in one word: "can I send back shoes that don't fit?" (return),
# "can I pick up my order?" (collect), "do you have a physical store?" (shop).
_PHRASES = (
    (
        re.compile(
            r"\b(?:send|sent|sending|take|taking|bring|post|ship)\s+"
            r"(?:(it|them|something|stuff|things?|items?|(?:the|my|our|this|that|these|those)(?:\s+\w+){0,2})\s+)?"
            r"back\b"
        ),
        lambda m: f"return {m.group(1)}" if m.group(1) else "return",
    ),
    (
        re.compile(r"\bpick(?:ing)?\s+(?:(it|them|my\s+order|the\s+order|my\s+\w+)\s+)?up\b|\bpick-?up\b"),
        lambda m: f"collect {m.group(1)}" if m.group(1) else "collect",
    ),
    (
        re.compile(r"\b(physical|your|the|a|in)[\s-]+stores?\b(?!\s+(?:credit|card|voucher|gift))"),
        lambda m: f"{m.group(1)} shop",
    ),
)


def read_store_question(question: str, page_language: str) -> str:
    """The question in the pages' words where it is written in another of the shop's customers'
    languages (German or French against English pages); the question itself when it has no word
    to read, or the pages are not in English."""
    reading = _READINGS.get(page_language.split("-")[0].casefold())
    if not reading:
        return question
    folded = _NETHERLANDS.sub("paysbas", fold(question))
    phrased = folded
    for phrase, reads in _PHRASES:
        phrased = phrase.sub(reads, phrased)
    said = words(phrased)
    if not any(w in reading for w in said):
        return question if phrased == folded else " ".join(said)
    kept = [reading.get(w, w) for w in said if w in reading or w not in _QUESTION_WORDS]
    return " ".join(kept) if kept else question


def _check() -> None:  # keys must be folded, or they would never be looked up
    for table in _READINGS.values():
        assert all(fold(k) == k for k in table), [k for k in table if fold(k) != k]


_check()
