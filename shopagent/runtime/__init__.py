"""Shop-agnostic machinery: supervision, mailbox, embedded ASGI server, signals, logging.

Nothing here imports from the rest of shopagent.
"""
