#!/usr/bin/env python3
"""Regenerate shopagent/adapters/local/words/<language>.txt.gz from pyspellchecker's word lists.

The search never "corrects" a word that is a real word of the shop's languages; these lists
say which words are real. pyspellchecker (MIT) ships frequency lists per language inside its
wheel, built from the FrequencyWords lists of OpenSubtitles (CC BY-SA 4.0); a word is in them
when it occurs at least 50 times. Here each list is folded the way the search folds text
(lower case, no accents: shopagent.domain.text.fold), kept to words of letters only, sorted
by their UTF-8 bytes and written one per line, so the service loads a list in milliseconds
as one block of bytes instead of parsing JSON into hundreds of thousands of objects.

    pip install pyspellchecker==0.9.1 && python scripts/build_wordlists.py
"""

from __future__ import annotations

import gzip
import json
import sys
from importlib import metadata, resources
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from shopagent.domain.options import fold  # noqa: E402
from shopagent.domain.text import words  # noqa: E402

LANGUAGES = ("en", "de", "fr", "es", "it", "nl", "pt")
OUT = ROOT / "shopagent" / "adapters" / "local" / "words"


def main() -> None:
    version = metadata.version("pyspellchecker")
    OUT.mkdir(exist_ok=True)
    for language in LANGUAGES:
        source = resources.files("spellchecker") / "resources" / f"{language}.json.gz"
        counts = json.loads(gzip.decompress(source.read_bytes()))
        kept = {fold(w) for w in counts if words(w) == [fold(w)] and not any(ch.isdigit() for ch in w)}
        body = b"\n".join(sorted(w.encode() for w in kept)) + b"\n"
        # mtime=0: the same input gives the same bytes, so a rebuild shows no spurious change.
        (OUT / f"{language}.txt.gz").write_bytes(gzip.compress(body, compresslevel=9, mtime=0))
        print(f"{language}: {len(kept):,} words from pyspellchecker {version}")


if __name__ == "__main__":
    main()
