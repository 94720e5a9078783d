"""shopagent: an open AI shopping assistant service for small online shops."""

__version__ = "0.1.0"
