"""Store pages: the shop's own texts (shipping, returns, payment, size guides, FAQ), how they
are validated, and how a page becomes passages.

A page is split at its headings and blank lines; short paragraphs under one heading are kept
together up to the token budget, a long one is cut between sentences. A question and its
answer are never split: a heading that asks (ends with "?") keeps the paragraphs under it as one
passage (up to a paragraph that asks a question of its own), and so does a paragraph that is
only a question ("Do you ship abroad?", "Q: Gift cards") with the paragraphs that answer it. A
Markdown table may take twice the budget; a longer one is cut between rows, its header row in
front of each piece.
Each passage is embedded with the page title and its heading in front, so "Austria: 5-7
working days" still says what it is about when it is matched on its own.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated

import msgspec

from shopagent.domain.catalog import SLUG
from shopagent.domain.errors import ValidationError
from shopagent.domain.indexing import content_hash, estimate_wordpiece_tokens, split_sentences
from shopagent.domain.validation import checked_text as _text
from shopagent.domain.validation import checked_url as _url

MAX_BODY_CHARS = 100_000
_LANGUAGE = re.compile(r"^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(?P<text>.+?)\s*#*\s*$")
_QUESTION_MARKER = re.compile(r"^(?:\*\*)?(?:q|question|frage)\s*[:.]\s*", re.IGNORECASE)


def _doc(**schema: object) -> msgspec.Meta:
    return msgspec.Meta(extra_json_schema=dict(schema))


class StorePageInput(msgspec.Struct, forbid_unknown_fields=True, rename="camel", kw_only=True):
    """A store page as the admin API and the import files give it (and the API returns it)."""

    slug: Annotated[str, _doc(maxLength=120, description="lowercase letters, digits and single hyphens")]
    title: Annotated[str, _doc(maxLength=200)]
    text: Annotated[str, _doc(maxLength=MAX_BODY_CHARS, description="Markdown or plain text")]
    url: str | None = None
    language: str | None = None  # None: the store language
    id: int | None = None  # read-only
    created_at: datetime | None = None  # read-only
    updated_at: datetime | None = None  # read-only


class StorePageDraft(msgspec.Struct, frozen=True, kw_only=True):
    """A validated page, ready to store."""

    slug: str
    title: str
    text: str
    url: str | None
    language: str


class StorePage(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    slug: str
    title: str
    text: str
    url: str | None
    language: str
    version: int
    created_at: datetime
    updated_at: datetime

    def draft(self) -> StorePageDraft:
        return StorePageDraft(slug=self.slug, title=self.title, text=self.text, url=self.url, language=self.language)


def validate_page(data: StorePageInput, store_language: str) -> StorePageDraft:
    slug = data.slug.strip()
    if not SLUG.match(slug) or len(data.slug) > 120:
        raise ValidationError(
            f"slug {data.slug!r} must be 1-120 lowercase letters, digits and single hyphens", field="slug"
        )
    language = (data.language or store_language).strip()
    if not _LANGUAGE.match(language):
        raise ValidationError(f"language {language!r} must be a language tag such as 'de' or 'en-GB'", field="language")
    text = _text(data.text, "text", 1, MAX_BODY_CHARS)
    if not any(ch.isalnum() for ch in text):
        raise ValidationError("text has no words", field="text")
    return StorePageDraft(
        slug=slug,
        title=_text(data.title, "title", 1, 200),
        text=text,
        url=_url(data.url, "url") if data.url else None,
        language=language,
    )


def page_to_input(page: StorePage) -> StorePageInput:
    return StorePageInput(
        slug=page.slug,
        title=page.title,
        text=page.text,
        url=page.url,
        language=page.language,
        id=page.id,
        created_at=page.created_at,
        updated_at=page.updated_at,
    )


@dataclass(frozen=True)
class PageCoverage:
    """How many store pages are indexed with a model, of how many."""

    pages_indexed: int
    pages_total: int


# -- passages ------------------------------------------------------------------------------


class Passage(msgspec.Struct, frozen=True):
    ordinal: int
    heading: str  # the heading it stands under ("" before the first one)
    text: str  # what a reader is shown
    content: str  # what is embedded: page title, heading and text
    content_hash: bytes


@dataclass
class _Section:
    heading: str
    paragraphs: list[str]


def split_passages(title: str, text: str, token_budget: int) -> list[Passage]:
    """The page's passages, in page order (see the module docstring)."""
    pieces: list[tuple[str, str]] = []
    for section in _sections(text):
        for piece in _section_pieces(section, token_budget):
            pieces.append((section.heading, piece))
    passages = []
    for ordinal, (heading, piece) in enumerate(pieces):
        context = f"{title} — {heading}" if heading and heading not in (title, piece.partition("\n")[0]) else title
        content = f"{context}: {piece}"
        passages.append(Passage(ordinal, heading, piece, content, content_hash("passage", content)))
    return passages


def passage_set_hash(model: str, language: str, passages: Sequence[Passage]) -> bytes:
    """Identifies a page's whole passage set for one model (and the language its full-text
    documents are written in): equal hash, nothing to write."""
    digest = hashlib.sha256(f"{model}\n{language}".encode())
    for passage in passages:
        digest.update(passage.content_hash)
    return digest.digest()


def _sections(text: str) -> list[_Section]:
    sections = [_Section("", [])]
    paragraph: list[str] = []

    def end_paragraph() -> None:
        if paragraph:
            sections[-1].paragraphs.append("\n".join(paragraph))
            paragraph.clear()

    for line in text.replace("\r\n", "\n").split("\n"):
        if heading := _HEADING.match(line):
            end_paragraph()
            sections.append(_Section(heading["text"].strip(), []))
        elif line.strip():
            paragraph.append(line.strip())
        else:
            end_paragraph()
    end_paragraph()
    return [s for s in sections if s.paragraphs]


def _is_question(paragraph: str) -> bool:
    return "\n" not in paragraph and (paragraph.rstrip("*_ ").endswith("?") or bool(_QUESTION_MARKER.match(paragraph)))


def _section_pieces(section: _Section, budget: int) -> list[str]:
    pieces: list[str] = []
    paragraphs = section.paragraphs
    if section.heading.endswith("?"):  # an FAQ entry: the question with its whole answer
        answer = next((i for i, p in enumerate(paragraphs) if _is_question(p)), len(paragraphs))
        pieces.append("\n\n".join([section.heading, *paragraphs[:answer]]))
        paragraphs = paragraphs[answer:]
    current: list[str] = []
    used = 0
    for unit in _units(paragraphs):
        cost = estimate_wordpiece_tokens(unit)
        asks = _is_question(unit.split("\n\n")[0])
        if current and (used + cost > budget or asks):
            pieces.append("\n\n".join(current))
            current, used = [], 0
        if cost > budget and not asks:
            pieces.extend(_table_pieces(unit, budget) or split_sentences(unit, budget))
            continue
        current.append(unit)
        used = budget if asks else used + cost  # nothing joins a question and its answer
    if current:
        pieces.append("\n\n".join(current))
    return pieces


TABLE_ROW = re.compile(r"^\s*\|(.*)\|\s*$")  # a Markdown table's row: its cells between the outer bars
RULE_CELL = re.compile(r"^[\s:-]*$")  # a cell of the rule under the header ("|---|:--:|")


def table_cells(line: str) -> list[str] | None:
    """A Markdown table row's cells ("| Germany | DHL |" -> ["Germany", "DHL"]); None for another line."""
    found = TABLE_ROW.match(line)
    return [cell.strip() for cell in found.group(1).split("|")] if found else None


def is_rule(cells: list[str]) -> bool:
    return all(RULE_CELL.match(cell) for cell in cells)


# A table may take this many times the token budget before it is cut: cut, one piece's rows stand
# for the whole table ("deliver to Leuven" quoting the France row, where the Belgium row is in
# another piece).
_TABLE_STRETCH = 2
_TABLE_MAX_TOKENS = 200  # and no more than this: the local model reads 256 tokens, title and heading included


def _table_pieces(unit: str, budget: int) -> list[str]:
    """A Markdown table too long for one passage, cut between rows, each piece under the table's
    own header ("| Country | Carrier | Cost |"), so that "| Germany | DHL | 6.95 EUR |" still says
    what its cells are; nothing when `unit` is not one table."""
    lines = unit.split("\n")
    rows = [table_cells(line) for line in lines]
    if len(lines) < 3 or any(row is None for row in rows) or not is_rule(rows[1] or []):
        return []
    stretched = min(budget * _TABLE_STRETCH, max(budget, _TABLE_MAX_TOKENS))
    if estimate_wordpiece_tokens(unit) <= stretched:
        return [unit]
    header = lines[:2]
    room = max(stretched - estimate_wordpiece_tokens("\n".join(header)), 1)
    pieces: list[list[str]] = []
    used = 0
    for row in lines[2:]:
        cost = estimate_wordpiece_tokens(row)
        if not pieces or used + cost > room:
            pieces.append([])
            used = 0
        pieces[-1].append(row)
        used += cost
    return ["\n".join(header + rows) for rows in pieces]


def _units(paragraphs: list[str]) -> list[str]:
    """Paragraphs, with a question joined to the paragraphs that answer it (up to the next question)."""
    units: list[str] = []
    open_question = False
    for paragraph in paragraphs:
        if _is_question(paragraph):
            units.append(paragraph)
            open_question = True
        elif open_question:
            units[-1] += "\n\n" + paragraph
        else:
            units.append(paragraph)
    return units
