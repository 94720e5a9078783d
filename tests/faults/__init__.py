"""Fault suite: real shopagent processes over a PostgreSQL each test owns, stopped, killed and
restarted under them."""
