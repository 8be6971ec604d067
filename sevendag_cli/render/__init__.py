"""Renderers: they read result records and only render (Rich for people, JSON for tools)."""
