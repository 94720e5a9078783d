"""Store-page files -> StorePageInput: a folder of pages, or one JSON / JSON Lines file.

- A folder: each `.md`, `.markdown`, `.txt`, `.html` or `.htm` file is a page. Its slug is the
  file name without the extension (lower case, other characters as hyphens), its title the first
  heading (`# Shipping` in Markdown, `<h1>` or `<title>` in HTML) or else the file name. A page
  may start with front matter lines `url: https://…` and `language: de` before a `---` line.
  HTML is turned into text: headings become Markdown headings, paragraphs and list items
  paragraphs, scripts and styles are dropped. Other files are reported and skipped.
- `.json`: an array of pages; `.jsonl`: one page per line; each page an object with `slug`,
  `title`, `text` and optionally `url` and `language` (the store language when absent).

Parsing never stops at a bad page: each becomes a StorePageInput or a ValidationError saying
where ("shipping.md line 4", "pages.jsonl line 3", "pages.json item 2") and what is wrong.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import msgspec

from shopagent.domain.errors import ShopagentError, ValidationError
from shopagent.domain.inputs import explain, text_problem
from shopagent.domain.store_pages import StorePageInput

PAGE_SUFFIXES = (".md", ".markdown", ".txt", ".html", ".htm")
ParsedPage = tuple[str, StorePageInput | ShopagentError]
_FRONT_MATTER = re.compile(r"^(url|language)\s*:\s*(.*)$", re.IGNORECASE)
_MD_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")
_decoder = msgspec.json.Decoder(StorePageInput)
NEWLINE = b"\n"


def read_store_pages(path: Path) -> list[ParsedPage]:
    """The pages of a folder or of a .json/.jsonl file; ValidationError for the path as a whole."""
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
        if not files:
            raise ValidationError(f"{path} has no files")
        return [_read_page_file(p) for p in files]
    if not path.is_file():
        raise ValidationError(f"{path} is neither a folder nor a file")
    if path.suffix.lower() == ".jsonl":
        return _read_jsonl(path)
    if path.suffix.lower() == ".json":
        return _read_json(path)
    if path.suffix.lower() in PAGE_SUFFIXES:
        return [_read_page_file(path)]
    raise ValidationError(f"{path.name}: store pages come in a folder, a .json or a .jsonl file")


def _read_page_file(path: Path) -> ParsedPage:
    name = path.name
    if path.suffix.lower() not in PAGE_SUFFIXES:
        return name, ValidationError(f"{name}: not a page file (.md, .txt or .html); skipped")
    try:
        raw = _text_of(path)
    except ValidationError as exc:
        return name, exc
    slug = re.sub(r"[^a-z0-9]+", "-", path.stem.casefold()).strip("-")
    meta, body = _front_matter(raw)
    if path.suffix.lower() in (".html", ".htm"):
        title, body = html_to_text(body)
    else:
        title = next((m[1] for line in body.splitlines() if (m := _MD_HEADING.match(line))), None)
    page = {"slug": slug, "title": title or path.stem.replace("-", " ").replace("_", " ").strip(), "text": body}
    try:
        return name, msgspec.convert({**page, **meta}, StorePageInput)
    except msgspec.ValidationError as exc:
        return name, ValidationError(f"{name}: {explain(exc)}")


def _text_of(path: Path) -> str:
    """The file's text; ValidationError naming the file and line of a byte or character no page may hold."""
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ValidationError(f"{path.name} line {line}: not UTF-8 text") from None
    for number, line_text in enumerate(text.splitlines(), start=1):
        if (problem := text_problem(line_text)) is not None:
            raise ValidationError(f"{path.name} line {number}: contains {problem}; remove it")
    if not text.strip():
        raise ValidationError(f"{path.name}: the file is empty")
    return text


def _front_matter(text: str) -> tuple[dict[str, str], str]:
    lines = text.splitlines()
    meta: dict[str, str] = {}
    for index, line in enumerate(lines):
        if line.strip() == "---" and meta:
            return meta, "\n".join(lines[index + 1 :])
        match = _FRONT_MATTER.match(line.strip())
        if match is None:
            break
        meta[match[1].lower()] = match[2].strip()
    return {}, text


def _read_jsonl(path: Path) -> list[ParsedPage]:
    pages: list[ParsedPage] = []
    for number, line in enumerate(_text_of(path).splitlines(), start=1):
        if line.strip():
            pages.append(_decoded(f"{path.name} line {number}", line.encode()))
    return pages


def _read_json(path: Path) -> list[ParsedPage]:
    raw = _text_of(path).encode()
    try:
        items = msgspec.json.decode(raw)
    except msgspec.DecodeError as exc:
        at = re.search(r"byte (\d+)", str(exc))
        line = f" line {raw[: int(at[1])].count(NEWLINE) + 1}" if at else ""
        raise ValidationError(f"{path.name}{line}: not JSON ({exc})") from None
    if not isinstance(items, list):
        raise ValidationError(f"{path.name}: must hold an array of pages")
    return [_decoded(f"{path.name} item {i}", msgspec.json.encode(item)) for i, item in enumerate(items, start=1)]


def _decoded(where: str, raw: bytes) -> ParsedPage:
    try:
        return where, _decoder.decode(raw)
    except msgspec.ValidationError as exc:
        return where, ValidationError(f"{where}: {explain(exc)}")
    except msgspec.DecodeError as exc:
        return where, ValidationError(f"{where}: not JSON ({exc})")


class _HtmlText(HTMLParser):
    _BLOCKS = frozenset({"p", "div", "li", "dt", "dd", "tr", "br", "section", "article", "table", "ul", "ol"})
    _SKIP = frozenset({"script", "style", "head", "nav", "footer"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title: str | None = None
        self._skipping = 0
        self._in_title = False
        self._heading: int | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._SKIP:
            self._skipping += 1
        elif tag == "title":
            self._in_title = True
        elif re.fullmatch(r"h[1-6]", tag):
            self._heading = int(tag[1])
            self.parts.append("\n\n" + "#" * self._heading + " ")
        elif tag in self._BLOCKS:
            self.parts.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIP:
            self._skipping = max(0, self._skipping - 1)
        elif tag == "title":
            self._in_title = False
        elif re.fullmatch(r"h[1-6]", tag):
            self._heading = None
            self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title = self.title or data.strip() or None
        elif not self._skipping:
            text = " ".join(data.split())
            if text:
                if self._heading == 1 and self.title is None:
                    self.title = text
                self.parts.append(text + " ")


def html_to_text(html: str) -> tuple[str | None, str]:
    """(the page's title, its text as Markdown-like paragraphs and headings)."""
    parser = _HtmlText()
    parser.feed(html)
    parser.close()
    paragraphs = [" ".join(block.split()) for block in "".join(parser.parts).split("\n\n")]
    return parser.title, "\n\n".join(p for p in paragraphs if p)
