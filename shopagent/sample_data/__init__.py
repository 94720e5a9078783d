"""The bundled sample catalog of a clothing & shoes shop, imported by `shopagent demo`."""
