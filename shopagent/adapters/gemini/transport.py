"""What a failed Gemini request tells: whether the network failed, and how long the server
asks us to wait before trying again."""

from __future__ import annotations

import re

import httpx
from google.genai import errors

# The SDK sends with httpx2 (a fork of httpx under another namespace) when it is installed,
# as it is with google-genai 3.x, and with httpx otherwise; their errors share no base class.
try:
    import httpx2

    TRANSPORT_ERRORS: tuple[type[Exception], ...] = (httpx.TransportError, httpx2.TransportError)
except ImportError:  # pragma: no cover - depends on the SDK's dependencies
    TRANSPORT_ERRORS = (httpx.TransportError,)

_SECONDS = r"([0-9]+(?:\.[0-9]+)?)"
_RETRY_IN = re.compile(rf"retry in {_SECONDS}\s*s", re.IGNORECASE)
_DURATION = re.compile(rf"^{_SECONDS}s$")


def suggested_delay(exc: errors.APIError) -> float | None:
    """The wait the server asked for: RetryInfo.retryDelay ("37s"), or "retry in 37.5s" in the text."""
    body = exc.details if isinstance(exc.details, dict) else {}
    error = body.get("error", body)
    details = error.get("details") if isinstance(error, dict) else None
    for detail in details if isinstance(details, list) else []:
        delay = detail.get("retryDelay") if isinstance(detail, dict) else None
        match = _DURATION.match(delay) if isinstance(delay, str) else None
        if match:
            return float(match.group(1))
    match = _RETRY_IN.search(exc.message or "")
    return float(match.group(1)) if match else None
