"""The answer of a turn whose model gave none within its step budget: what the last search found.

A small model may keep calling tools until the budget is spent, or repeat one call after it
was told it had the result already. The shopper then gets the last successful search's
products rather than an error: names and prices exactly as the tool returned them, the
closest ones said to be only close when the search found nothing strong, and no product at
all when no search succeeded. English, German and French (the store's language picks one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from shopagent.domain.chat import ChatMessage, FunctionCall, FunctionResponse
from shopagent.domain.tools import SEARCH_TOOL

SHOWN = 5  # products listed at most


@dataclass(frozen=True)
class _Phrases:
    found: str
    closest: str
    nothing: str
    no_search: str
    was: str
    sold_out: str
    ask: str


PHRASES = {
    "en": _Phrases(
        found="I could not finish looking into this, but here is what I found for “{query}”:",
        closest="I could not find exactly that. The closest I found for “{query}”, though not quite what you "
        "asked for:",
        nothing="I searched for “{query}” and found nothing that matches. Could you describe it in other words?",
        no_search="Sorry, I could not find an answer to that. Could you tell me in a few words what you are "
        "looking for?",
        was="was {price}",
        sold_out="sold out",
        ask="Ask me about any of them for more details.",
    ),
    "de": _Phrases(
        found="Ich konnte das nicht ganz klären, aber das habe ich zu „{query}“ gefunden:",
        closest="Genau das habe ich nicht gefunden. Am nächsten kommt für „{query}“, auch wenn es nicht ganz passt:",
        nothing="Ich habe nach „{query}“ gesucht und nichts Passendes gefunden. Können Sie es anders beschreiben?",
        no_search="Entschuldigung, darauf habe ich keine Antwort gefunden. Was suchen Sie, in ein paar Worten?",
        was="statt {price}",
        sold_out="ausverkauft",
        ask="Fragen Sie mich gern nach Einzelheiten zu einem davon.",
    ),
    "fr": _Phrases(
        found="Je n'ai pas pu aller au bout, mais voici ce que j'ai trouvé pour « {query} » :",
        closest="Je n'ai pas trouvé exactement cela. Le plus proche pour « {query} », sans être tout à fait ce "
        "que vous demandez :",
        nothing="J'ai cherché « {query} » sans rien trouver qui corresponde. Pouvez-vous le décrire autrement ?",
        no_search="Désolé, je n'ai pas trouvé de réponse. Que cherchez-vous, en quelques mots ?",
        was="au lieu de {price}",
        sold_out="épuisé",
        ask="Demandez-moi des détails sur l'un d'eux.",
    ),
}


def fallback_answer(messages: Sequence[ChatMessage], language: str = "en") -> str:
    """The answer from the last successful search among `messages` (a turn's new messages)."""
    say = PHRASES.get(language.split("-")[0].casefold(), PHRASES["en"])
    found = last_search(messages)
    if found is None:
        return say.no_search
    query, result = found
    products = [p for p in result.get("products") or [] if isinstance(p, dict)][:SHOWN]
    if not products:
        return say.nothing.format(query=query)
    head = say.closest if result.get("noStrongMatch") else say.found
    lines = [head.format(query=query), *(_line(p, say) for p in products), say.ask]
    return "\n".join(lines)


def last_search(messages: Sequence[ChatMessage]) -> tuple[str, dict[str, Any]] | None:
    """(query, structured result) of the last search that returned products data, if any."""
    queries: dict[str | None, str] = {}  # call id -> query
    found = None
    for message in messages:
        for part in message.parts:
            if isinstance(part, FunctionCall) and part.name == SEARCH_TOOL:
                queries[part.id] = str(part.args.get("query") or "")
            elif isinstance(part, FunctionResponse) and part.name == SEARCH_TOOL and not part.result.get("isError"):
                structured = part.result.get("structuredContent")
                if isinstance(structured, dict):
                    found = (queries.get(part.id, ""), structured)
    return found


def _line(product: dict[str, Any], say: _Phrases) -> str:
    currency = product.get("currency") or ""
    price = f"{product.get('effectivePrice') or product.get('price')} {currency}".strip()
    notes = []
    if product.get("discountedPrice") is not None and product.get("price") is not None:
        notes.append(say.was.format(price=f"{product['price']} {currency}".strip()))
    if product.get("inStock") is False:
        notes.append(say.sold_out)
    extra = f" ({', '.join(notes)})" if notes else ""
    return f"- {product.get('name')}: {price}{extra}"
