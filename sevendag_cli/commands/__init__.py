"""Command bodies too long to sit in cli.py; each still only parses, calls and renders."""
