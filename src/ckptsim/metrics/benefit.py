"""Seed 003's benefit function (its equation 5): the share of the largest possible gain a
policy achieves, 1 - (v_x - v_opt) / (v_none - v_opt).

1 is as good as Opt (a checkpoint just before every eviction), 0 as good as None (no
checkpoints); below 0 is worse than not checkpointing.  When None and Opt give the same value
there is no gain to share and the benefit is NaN.
"""

from __future__ import annotations

import math


def benefit(v_x: float, v_none: float, v_opt: float) -> float:
    """1 - (v_x - v_opt) / (v_none - v_opt); NaN when v_none == v_opt or a value is NaN."""
    span = v_none - v_opt
    if span == 0 or not (math.isfinite(v_x) and math.isfinite(span)):
        return math.nan
    return 1.0 - (v_x - v_opt) / span
