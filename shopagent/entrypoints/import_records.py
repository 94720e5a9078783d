"""What the catalog file readers share: a parsed record, and a CSV file as they read it
(the separator sniffed from the header, header names folded to lower case, cells trimmed,
decimal commas understood)."""

from __future__ import annotations

import csv
import logging
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, TextIO

import msgspec

from shopagent.application.catalog import ImportNote
from shopagent.domain.catalog import ProductInput
from shopagent.domain.errors import ValidationError
from shopagent.domain.inputs import decode_hook, explain

log = logging.getLogger("shopagent.catalog")

# (where in the file, what it holds): a product, the reason a record is rejected, or a note.
Parsed = tuple[str, ProductInput | ValidationError | ImportNote]

_SEPARATORS = (",", ";", "\t")
# Why a row is refused whose product's rows ended further up (a file is read as a stream: each
# product is imported once its rows end).
APART = "its product's rows ended further up; the rows of one product must follow one another"
_DECIMAL_COMMA = re.compile(r"^-?(\d{1,3}(\.\d{3})+|\d+),\d+$")  # 12,50 or 1.234,50


@dataclass
class CsvTable:
    lines: TextIO  # the text after the header, read as the rows are taken (newline="")
    separator: str
    names: list[str]  # folded header names, in file order
    label: str = "the CSV"  # how messages name the layout ("the Shopify export")
    raw_names: list[str] = field(default_factory=list)  # the header names as written (spaces collapsed)

    @classmethod
    def open(cls, lines: TextIO) -> CsvTable:
        """The table whose header is the next line of `lines`; its rows are read from `lines` as taken."""
        header = lines.readline()
        separator = max(_SEPARATORS, key=header.count)  # the header holds only names: its separators are real
        names = next(csv.reader([header], delimiter=separator), [])
        raw = [" ".join(name.split()) for name in names]
        return cls(lines, separator, [name.casefold() for name in raw], raw_names=raw)

    @property
    def columns(self) -> frozenset[str]:
        return frozenset(self.names) - {""}

    @property
    def decimal_comma(self) -> bool:
        """Spreadsheets in locales whose decimal mark is a comma separate fields with `;`."""
        return self.separator == ";"

    def require(self, needed: Iterable[str], *, any_of: Iterable[Iterable[str]] = ()) -> None:
        """A ValidationError for the file unless every `needed` column (and one of each `any_of` group) is there."""
        missing = [name for name in needed if name not in self.columns]
        missing += [" or ".join(group) for group in map(list, any_of) if not set(group) & self.columns]
        if missing:
            shown = {";": "semicolons", "\t": "tabs"}.get(self.separator, "commas")
            raise ValidationError(
                f"{self.label} header lacks the column(s) {', '.join(sorted(missing))} (read as separated by {shown})"
            )

    def warn_unknown(self, known: Iterable[str], prefixes: tuple[str, ...] = ()) -> None:
        unknown = sorted(c for c in self.columns - set(known) if not c.startswith(prefixes))
        if unknown:
            log.warning("ignoring the CSV column(s) shopagent does not use: %s", ", ".join(unknown))

    def rows(self) -> Iterator[tuple[int, dict[str, str]]]:
        """(row number as a spreadsheet shows it, {column: trimmed cell}); row 1 is the header.
        Blank rows are skipped but counted."""
        reader = csv.reader(self.lines, delimiter=self.separator)
        for number, cells in enumerate(reader, start=2):
            if any(cell.strip() for cell in cells):
                yield number, {name: cell.strip() for name, cell in zip(self.names, cells, strict=False) if name}

    def decimals(self, row: dict[str, str], columns: Iterable[str]) -> None:
        """Rewrite `12,50` / `1.234,50` in these columns as `12.50` / `1234.50` (in a `;` file only)."""
        if not self.decimal_comma:
            return
        for column in columns:
            value = row.get(column, "")
            if _DECIMAL_COMMA.match(value):
                row[column] = value.replace(".", "").replace(",", ".")


def convert(where: str, item: Any, *, strict: bool = True, name_slug: bool = True) -> Parsed:
    """A record as a ProductInput, or the ValidationError saying what in it is wrong. `where`
    gains the record's slug unless `name_slug` is false (it names the record already)."""
    slug = item.get("slug") if isinstance(item, dict) else None
    label = f"{where} (slug {slug!r})" if name_slug and isinstance(slug, str) and slug else where
    try:
        return label, msgspec.convert(item, ProductInput, strict=strict, dec_hook=decode_hook)
    except msgspec.ValidationError as exc:
        return label, ValidationError(explain(exc))
