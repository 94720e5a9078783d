"""The catalog and index commands of the CLI: translate to use cases, print for people."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from shopagent.application.catalog import CatalogService, ImportSummary, import_products
from shopagent.application.index_status import IndexStatus
from shopagent.domain.text import OptionWords
from shopagent.entrypoints.catalog_files import CsvFormat, read_catalog_file


class ProgressBar:
    """A one-line progress bar on a terminal; a few plain lines otherwise."""

    def __init__(self, label: str, stream: TextIO = sys.stderr, width: int = 30) -> None:
        self.label, self.stream, self.width = label, stream, width
        self._tty = stream.isatty()
        self._last_tenth = -1

    def __call__(self, done: int, total: int) -> None:
        total = max(total, 1)
        if self._tty:
            filled = self.width * done // total
            bar = "#" * filled + "." * (self.width - filled)
            end = "\n" if done >= total else ""
            self.stream.write(f"\r{self.label} [{bar}] {done}/{total}{end}")
            self.stream.flush()
        elif (tenth := 10 * done // total) != self._last_tenth:
            self._last_tenth = tenth
            self.stream.write(f"{self.label}: {done}/{total}\n")


async def import_catalog_file(
    catalog: CatalogService,
    path: Path,
    out: TextIO = sys.stdout,
    *,
    format: CsvFormat = "auto",
    words: OptionWords | None = None,
) -> ImportSummary:
    items = read_catalog_file(path, format=format, words=words)
    summary = await import_products(catalog, items, ProgressBar(f"importing {path.name}"))
    out.write(
        f"{path.name}: {summary.created} created, {summary.updated} updated, "
        f"{summary.unchanged} unchanged, {len(summary.rejected)} rejected"
        + (f", {len(summary.notes)} note(s)\n" if summary.notes else "\n")
    )
    for where, why in sorted(summary.rejected, key=_row_order):
        out.write(f"  rejected {where}: {why}\n")
    for where, what in sorted(summary.notes, key=_row_order):
        out.write(f"  note {where}: {what}\n")
    return summary


def _row_order(entry: tuple[str, str]) -> int:
    """Where a record is ("row 12 (…)", "line 3", "item 4"), as a number to sort by; 0 when unknown."""
    number = entry[0].split(" ", 2)[1:2]
    return int(number[0]) if number and number[0].isdigit() else 0


def _vector_index(status: IndexStatus) -> str:
    if status.vector_index_ready:
        return f"ready ({status.vector_index_settings})"
    return "not built: searches scan every chunk until the indexer builds it (once its backlog drains)"


def _full_text(status: IndexStatus) -> str:
    current = status.text_documents.get(status.text_search_config, 0)
    line = f"{current} of {status.products_total} products in {status.text_search_config}"
    others = {c: n for c, n in status.text_documents.items() if c != status.text_search_config}
    if others:
        line += (
            "; " + ", ".join(f"{n} in {c}" for c, n in others.items()) + " (`shopagent index rebuild` rewrites them)"
        )
    return line


def print_index_status(status: IndexStatus, out: TextIO = sys.stdout) -> None:
    out.write(
        f"model     {status.model}\n"
        f"products  {status.products_indexed} indexed of {status.products_total}\n"
        f"events    {status.pending} pending, {status.in_flight} in flight, {status.dead} dead-lettered\n"
        f"vector index  {_vector_index(status)}\n"
        f"full text  {_full_text(status)}\n"
    )
    if status.dead_events:
        out.write("dead-lettered events (newest first; `shopagent index retry-failed` retries them):\n")
        for e in status.dead_events:
            out.write(
                f"  #{e['id']} {e['kind']} product {e['productId']}, {e['attempts']} failed attempts, "
                f"{e['lostLeases']} lost leases: {e['lastError']}\n"
            )
