"""Reproductions of the seed papers' experiments: one package folder per paper, each declaring
a `base.Paper` (its options, figures, runs, results-page tables and claims), found and
registered by `base.papers`."""
