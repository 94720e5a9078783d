"""Logging: human-readable lines in a terminal, JSON lines otherwise.

Every formatted line passes through a scrubber that replaces known secret values with
`***`, so a secret that sneaks into an exception message still never reaches the log.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Iterable
from typing import TextIO

_STANDARD_ATTRS = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}
# Third-party loggers that are chatty at INFO; shown only when debugging.
_QUIET = ("mcp", "httpx", "httpcore", "asyncio", "uvicorn.error", "uvicorn.access")


class Scrubber:
    """Replaces every known secret value in a text with ***."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        # Longest first, so a secret containing another is replaced whole.
        self._secrets = sorted({s for s in secrets if len(s) >= 4}, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "***")
        return text


class TextFormatter(logging.Formatter):
    def __init__(self, scrub: Scrubber) -> None:
        super().__init__("%(asctime)s %(levelname)-7s %(name)s: %(message)s", "%H:%M:%S")
        self._scrub = scrub

    def format(self, record: logging.LogRecord) -> str:
        return self._scrub(super().format(record))


class JsonFormatter(logging.Formatter):
    def __init__(self, scrub: Scrubber) -> None:
        super().__init__()
        self._scrub = scrub

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD_ATTRS and not key.startswith("_") and key != "color_message":
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return self._scrub(json.dumps(entry, default=str, ensure_ascii=False))


def configure_logging(
    level: str = "info",
    fmt: str = "auto",
    *,
    secrets: Iterable[str] = (),
    access_log: bool = False,
    stream: TextIO | None = None,
) -> None:
    """Install one handler on the root logger. `fmt` is "text", "json" or "auto" (text on a TTY)."""
    out = stream if stream is not None else sys.stderr
    use_json = fmt == "json" or (fmt == "auto" and not out.isatty())
    scrub = Scrubber(secrets)
    handler = logging.StreamHandler(out)
    handler.setFormatter(JsonFormatter(scrub) if use_json else TextFormatter(scrub))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    for name in _QUIET:
        logging.getLogger(name).setLevel("DEBUG" if level == "debug" else "WARNING")
    # Requests are logged by the servers that log them (runtime/asgi.py AccessLog), at INFO
    # even when the process logs less, so `logging.access_log = true` always shows them.
    logging.getLogger("shopagent.access").setLevel("INFO" if access_log else "WARNING")
