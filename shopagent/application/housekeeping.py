"""Housekeeping use cases the reaper runs every tick; each is idempotent and safe to run in
several processes at once, and returns how many things it released."""

from __future__ import annotations

import logging

from shopagent.application.ports.operations import StuckClaims

log = logging.getLogger("shopagent.reaper")


async def release_stuck_conversations(claims: StuckClaims, stuck_after_seconds: float) -> int:
    """Free the conversations whose turn crashed or hangs, so their users can talk again."""
    released = await claims.release_stuck(stuck_after_seconds)
    for conversation_id in released:
        log.warning("released conversation %s: its turn ran longer than %.0fs", conversation_id, stuck_after_seconds)
    return len(released)
