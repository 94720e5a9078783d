"""Use cases over ports (`ports.py`)."""
