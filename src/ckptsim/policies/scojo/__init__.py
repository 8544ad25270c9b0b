"""Scojo-PECT time slicing (`scojo-pect`) and seed 002's application-level checkpoints with
migration: the scheduler (`scheduler`), its parameters (`params`), job classes and the slice
timeline (`slices`), backfilling within a class (`planner`), non-type backfilling (`nontype`),
the reserve pass (`reserve`), the ALC cost model (`alc`) with its driver (`checkpoints`), and
the timing of ALC checkpoints beside checkpoints the scheduler did not write (`alctimers`)."""

from ckptsim.policies.scojo.params import ScojoParams
from ckptsim.policies.scojo.scheduler import ScojoPect

__all__ = ["ScojoParams", "ScojoPect"]
