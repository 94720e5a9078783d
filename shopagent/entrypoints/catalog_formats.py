"""The layouts `catalog import --format` reads, named apart from the readers (which import the
catalog's stack) so the command line can list them without loading it."""

from __future__ import annotations

from typing import Literal

CsvFormat = Literal["auto", "shopagent", "shopify", "woocommerce"]
CSV_FORMATS: tuple[CsvFormat, ...] = ("auto", "shopagent", "shopify", "woocommerce")
