"""The store pages an answer draws on, taken from `search-store-information` results.

The event stream sends them with each `tool` event, so a page can show the cited page's title
as a link under the answer. Only strong passages cite their page (a partial or weak one may not
hold the answer); a result of another tool or shape gives none.
"""

from __future__ import annotations

from typing import Any

import msgspec

from shopagent.domain.chat import ToolResult
from shopagent.domain.tools import STORE_INFO_TOOL

MAX_SOURCES = 2


class PageSource(msgspec.Struct, frozen=True, kw_only=True):
    page: str
    title: str
    url: str | None


class _Passage(msgspec.Struct, kw_only=True):
    page: str
    title: str
    url: str | None = None
    grade: str


def page_sources(tool: str, result: ToolResult | None) -> list[PageSource]:
    """The pages of the strong passages, best first, each once."""
    if tool != STORE_INFO_TOOL or result is None or result.is_error or not isinstance(result.structured, dict):
        return []
    passages = result.structured.get("passages")
    sources: dict[str, PageSource] = {}
    for raw in passages if isinstance(passages, list) else []:
        passage = _passage(raw)
        if passage is not None and passage.grade == "strong" and passage.page not in sources:
            sources[passage.page] = PageSource(page=passage.page, title=passage.title, url=passage.url)
    return list(sources.values())[:MAX_SOURCES]


def _passage(raw: Any) -> _Passage | None:
    try:
        return msgspec.convert(raw, _Passage)
    except msgspec.ValidationError:
        return None
