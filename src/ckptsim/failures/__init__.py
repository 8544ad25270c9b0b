"""Failure data: real failure logs (LANL CFDR, Failure Trace Archive), synthetic failure models,
and the transforms that fit a log to a simulated machine and period.

Everything here produces a `FailureTrace` (failure start times in seconds from the start of the
simulated period, node ids, repair durations), which the engine's failure injector replays.
docs/failures.md describes the formats, the methods and the choices made.
"""

from ckptsim.failures.model import FailureTrace
from ckptsim.failures.readers import fta_event_trace_path, lanl_systems, read_fta, read_lanl_cfdr
from ckptsim.failures.synthetic import SyntheticFailures, synthetic_failures
from ckptsim.failures.transforms import (
    map_nodes,
    matching_count,
    merge_overlaps,
    rescale_count,
    transient,
)

__all__ = [
    "FailureTrace",
    "SyntheticFailures",
    "fta_event_trace_path",
    "lanl_systems",
    "map_nodes",
    "matching_count",
    "merge_overlaps",
    "read_fta",
    "read_lanl_cfdr",
    "rescale_count",
    "synthetic_failures",
    "transient",
]
