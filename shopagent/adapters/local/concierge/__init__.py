"""The offline concierge: the rule-based stand-in for a chat model (see concierge.py)."""

from shopagent.adapters.local.concierge.concierge import OfflineConcierge
from shopagent.adapters.local.concierge.replies import Replies, replies_for
from shopagent.adapters.local.concierge.text import summarise
from shopagent.adapters.local.concierge.understanding import LanguageNames, Reading

__all__ = ["LanguageNames", "OfflineConcierge", "Reading", "Replies", "replies_for", "summarise"]
