"""A store page's passage as the concierge quotes it: sentences, and a table's rows as lines.

"| Country | Carrier | Cost | Free from | Delivery time |" with its rows reads, quoted as written,
as a run of bars and dashes. A table is said row by row instead ("Germany: Carrier DHL, Cost 6.95
EUR, Free from 69 EUR, Delivery time 1-3 working days"), each row cleaned as sentences are (no markup,
nothing that reads like an instruction), and where the question names a row
("… nach Deutschland?", read in the pages' words), only the rows it names.
"""

from __future__ import annotations

import re
from typing import Any

from shopagent.adapters.local.concierge.memory import say
from shopagent.adapters.local.concierge.phrases import CONTACT_ASKED, STOPWORDS
from shopagent.adapters.local.concierge.replies import Replies
from shopagent.adapters.local.concierge.text import clean_sentences
from shopagent.domain.chat import ChatMessage, ModelReply, TextPart
from shopagent.domain.options import fold
from shopagent.domain.store_information import topics_named
from shopagent.domain.store_pages import is_rule, table_cells
from shopagent.domain.store_words import read_store_question
from shopagent.domain.text import words

STORE_CHARS = 420  # of a store page's passage, quoted
# An e-mail address or a phone number in a passage: how to reach the shop
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")
_PHONE = re.compile(r"\+?\d[\d ()/-]{6,}\d")
_REACH = re.compile(f"{_EMAIL.pattern}|{_PHONE.pattern}")
_BY_PHONE = re.compile(r"\b(?:phone|telephone|call|ring|number)\b")


def readable_passage(text: str, question: str, language: str) -> str:
    """The passage's text to quote: its sentences, a table in it said row by row."""
    lines = text.split("\n")
    rows = [cells for line in lines if (cells := table_cells(line)) is not None]
    if len(rows) < 2:
        return " ".join(clean_sentences(text))
    header: list[str] = []
    if is_rule(rows[1]):
        header, rows = rows[0], rows[2:]
    rows = [row for row in rows if not is_rule(row)]
    # The words that name a row: not small words, nor a lone letter ("I'm" is no size M).
    read = f"{read_store_question(question, language)} {question}"
    asked = {w for w in words(read) if w not in STOPWORDS and (len(w) > 1 or w.isdigit())}
    named = [row for row in rows if asked & set(words(row[0]))]
    said = [" ".join(clean_sentences(_row(row, header))) for row in named or rows]
    prose = [line for line in lines if table_cells(line) is None]
    return " ".join([*clean_sentences("\n".join(prose)), *(s for s in said if s)])


def _row(row: list[str], header: list[str]) -> str:
    """ "Germany: Carrier DHL, Cost 6.95 EUR, …" (the first cell names the row; empty cells are left out)."""
    first, *rest = row
    names = header[1:] if len(header) == len(row) else [""] * len(rest)
    cells = [f"{name} {cell}" if name else cell for name, cell in zip(names, rest, strict=True) if cell]
    if not cells:
        return first
    return f"{first}: {', '.join(cells)}." if first else f"{', '.join(cells)}."


def store_answer(data: dict[str, Any], plan: dict[str, Any], r: Replies, contact: str, language: str) -> ModelReply:
    """The best passage of the shop's pages, quoted with its title and link; or, when none
    answers, that the assistant does not know (and how to reach the shop)."""
    # Only a strong passage is quoted as the answer: a partial one is often about something
    # else on the same page ("open the order" for "are you open on sundays?").
    passages = [p for p in data.get("passages", []) if p.get("grade") == "strong"]
    question = str(plan.get("store_query", ""))
    reach = r.store_contact.format(contact=contact) if contact else ""
    contact_asked = bool(CONTACT_ASKED.search(fold(question))) and not plan.get("fallback")
    if reach and contact_asked:
        # "what's your phone number?", "is there a number I can call?": that
        return say(reach, kept=True, store_asked=question)
    if contact_asked:  # with no contact set, the pages' passage that gives one ("Write to …@… or call …")
        reached = _PHONE if _BY_PHONE.search(fold(question)) else _EMAIL if "mail" in fold(question) else _REACH
        found = [p for p in data.get("passages", []) if reached.search(str(p.get("text", "")))]
        found = found or [p for p in data.get("passages", []) if _REACH.search(str(p.get("text", "")))]
        passages = found[:1] or passages
    hedged = False
    if not passages and not plan.get("fallback") and (on_topic := _on_topic(data, question, language)):
        # "do you deliver to a parcel locker?": nothing surely answers, but the page titled for delivery
        # is what there is to read on it; said as such, with how to reach the shop.
        passages, hedged = [on_topic], True
    text = readable_passage(str(passages[0].get("text", "")), question, language) if passages else ""
    if not text:
        if plan.get("fallback") and plan.get("fallback_state"):  # the products found, as they were to be shown
            message = ChatMessage(
                role="model", parts=[TextPart(plan["fallback"])], provider_state=plan["fallback_state"]
            )
            return ModelReply(message=message)
        if plan.get("fallback"):
            return say(plan["fallback"], kept=True)
        return say(f"{r.store_unknown} {reach}".strip(), kept=True, store_asked=question)
    if len(text) > STORE_CHARS:
        text = text[:STORE_CHARS].rsplit(" ", 1)[0].rstrip(",;:-") + "…"
    lines = [(r.store_topic if hedged else r.store_from).format(title=passages[0].get("title", ""), text=text)]
    if url := passages[0].get("url"):
        lines.append(r.store_link.format(url=url))
    if hedged and reach:
        lines.append(reach)
    return say("\n".join(lines), kept=True, store_asked=question)


def _on_topic(data: dict[str, Any], question: str, language: str) -> dict[str, Any] | None:
    """The first partial passage, where the question names a topic (`TOPICS`) and its page's title too."""
    asked = topics_named(words(read_store_question(question, language)))
    partial = [p for p in data.get("passages", []) if p.get("grade") == "partial"]
    if not asked or not partial or not asked & topics_named(words(str(partial[0].get("title", "")))):
        return None
    return partial[0]
