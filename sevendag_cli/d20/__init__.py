"""Le combat (d20 homebrew): everything this ruleset does, in one package."""
