"""The composition ring beside bootstrap: settings turned into policies, providers and services."""
