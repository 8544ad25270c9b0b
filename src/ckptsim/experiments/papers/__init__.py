"""Reproductions of the seed papers' experiments, one function per figure."""
