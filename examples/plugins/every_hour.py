"""EveryHour: an example checkpoint policy written outside ckptsim.

A checkpoint after every `hours` hours of a job's computation (one by default): the interval
policy `fixed` with its interval in hours, to show the shape of a policy.

    ckptsim run --workload lublin:n=800,seed=3,machine=64 --scheduler easy \
        --checkpoint examples/plugins/every_hour.py:EveryHour:hours=2,cost=60 --check

See docs/plugins.md.
"""

from __future__ import annotations

import dataclasses

from ckptsim import CheckpointPolicy, CostParams, param


@dataclasses.dataclass(frozen=True)
class EveryHourParams(CostParams):  # cost, bandwidth, restart, mtbf... come with CostParams
    hours: float = param(1.0, "hours of computation between checkpoints", low=0.0,
                         low_open=True, period=1 / 3600, seconds=3600.0)


class EveryHour(CheckpointPolicy):
    name = "every-hour"
    description = "a checkpoint every `hours` hours of computation"
    Params = EveryHourParams

    def interval(self, delta: float, mtbf: float, restart: float) -> float:
        """Seconds of computation between two checkpoints of cost `delta`."""
        return self.params.hours * 3600.0
