"""The error for a stdin line the SDK cannot read carries the request's id when the line gives it."""

from __future__ import annotations

import pytest

from shopagent.entrypoints.mcp.stdio_errors import error_for_line


@pytest.mark.parametrize(
    ("line", "request_id", "code"),
    [
        (
            '{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"arguments": {"query": "a\\ud800"}}}',
            3,
            -32600,
        ),
        ('{"jsonrpc": "2.0", "id": "x", "method": 5}', "x", -32600),
        ('{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"na', 7, -32700),
        ('{"params": {"id": 9, "a": [1, {"id": 8}]}, "id": 10, "method": "x", "jsonrpc": "2.0", "oops', 10, -32700),
        ('{"jsonrpc": "2.0", "method": "tools/call", "params": {"id": 9, "na', None, -32700),
        ('{"jsonrpc": "2.0", "id": true, "method": "ping"', None, -32700),
        ("this is not json", None, -32700),
        ("[1, 2", None, -32700),
    ],
)
def test_the_id_is_recovered_from_the_top_level_of_the_line(line, request_id, code):
    error = error_for_line(line)
    assert (error.id, error.error.code) == (request_id, code)
