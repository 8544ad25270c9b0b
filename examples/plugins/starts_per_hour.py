"""StartsPerHour: an example component written outside ckptsim.

It counts the job starts (first starts and restarts) in each period of `period` seconds of
simulated time and reports the busiest period and the mean, as metrics of the run.

    ckptsim run --workload lublin:n=800,seed=3,machine=64 --scheduler easy \
        --component examples/plugins/starts_per_hour.py:StartsPerHour:period=3600

See docs/plugins.md.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

from ckptsim import Component, param


@dataclasses.dataclass(frozen=True)
class StartsParams:
    period: float = param(3600.0, "seconds of simulated time per bin", low=1.0,
                          seconds=1.0)


class StartsPerHour(Component):
    name = "starts"
    description = "job starts per period: the busiest period and the mean"
    Params = StartsParams
    counter_names = ("max_starts_per_period", "mean_starts_per_period")

    def attach(self, sim: Any) -> None:
        super().attach(sim)
        self.bins: Counter[int] = Counter()

    def on_start(self, job: Any) -> None:  # a hook: the job took nodes
        assert self.sim is not None
        self.bins[int(self.sim.now // self.params.period)] += 1

    def counters(self) -> dict[str, Any]:
        if not self.bins:
            return {"max_starts_per_period": 0, "mean_starts_per_period": 0.0}
        span = max(self.bins) - min(self.bins) + 1
        return {"max_starts_per_period": max(self.bins.values()),
                "mean_starts_per_period": sum(self.bins.values()) / span}
