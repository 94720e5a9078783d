"""Pure types and rules: no I/O, no frameworks."""
