"""The shop owner's view on the admin API: GET /api/admin/insights/no-strong-match.

What shoppers searched for (the assistant's searches and any other MCP client's) that found
nothing graded strong over a period (`since=7d`), most frequent first, with the same bearer key
as the rest of the admin API.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from shopagent.application.insights import MAX_REPORT_QUERIES, UnmetSearchLog
from shopagent.application.limits import RateLimit
from shopagent.domain.inputs import ascii_int
from shopagent.domain.insights import UnmetSearches, parse_period
from shopagent.entrypoints.http.admin import admin_guard, json_response
from shopagent.entrypoints.http.openapi import ApiRoute, Operation, Query

DEFAULT_SINCE = "7d"
DEFAULT_LIMIT = 50
PERIOD = {"type": "string", "pattern": "^[0-9]{1,6}[mhdw]$", "default": DEFAULT_SINCE}


def insights_routes(unmet: UnmetSearchLog, admin_key: str | None, limit: RateLimit | None = None) -> list[Route]:
    guarded = admin_guard(admin_key, limit)

    @guarded
    async def no_strong_match(request: Request) -> Response:
        period = parse_period(request.query_params.get("since") or DEFAULT_SINCE)
        raw = request.query_params.get("limit")
        most = ascii_int(raw, "limit", 1, MAX_REPORT_QUERIES) if raw else DEFAULT_LIMIT
        return json_response(await unmet.report(period, most))

    return [
        ApiRoute("/api/admin/insights/no-strong-match", no_strong_match, method="GET", operation=Operation(
            "Searches that found nothing strong, most frequent first", response=UnmetSearches, security="adminKey",
            errors=(400, 401, 403, 429), query=(
                Query("since", PERIOD, "the period back from now: 30m, 12h, 7d, 4w"),
                Query("limit", {"type": "integer", "minimum": 1, "maximum": MAX_REPORT_QUERIES,
                                "default": DEFAULT_LIMIT}, "how many queries at most"),
            ),
            description="Each normalised query searched without a strong match in the period (by the "
            "assistant or any MCP client), how often, with which tools, the best grade it found and when it "
            "was last searched. Kept `insights.retention_days` (90 by default).")),
    ]  # fmt: skip
