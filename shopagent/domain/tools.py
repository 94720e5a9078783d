"""The names of the shop's tools (the catalog and its store pages): part of the public interface.

The MCP server serves them, chat models call them by name, the offline concierge plans with
them and the chat API turns their results into product cards, so they are written once, here.
"""

from __future__ import annotations

SEARCH_TOOL = "product-semantic-search"
DETAILS_TOOL = "get-product-full-details"
STORE_INFO_TOOL = "search-store-information"
