"""Sevendag: everything this ruleset does, in one package."""
