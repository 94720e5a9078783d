"""Driven side: databases, model providers, offline models, test twins."""
