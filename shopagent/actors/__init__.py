"""One module per supervised actor: lifetime, readiness, loop."""
