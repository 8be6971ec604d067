"""sevendag: a command-line combat resolver for Sevendag and Le combat (d20)."""

__version__ = "0.1.0"
