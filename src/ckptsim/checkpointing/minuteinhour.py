"""`minuteinhour`: MinuteInHour(m, t) of seed 003 with its uniform jitter r.  Interactive users
arrive just before the hour, so a job is checkpointed at `m` minutes past the hour.  From a
time j minutes past the wall-clock hour (the availability component's epoch; time 0 is on the
hour without it) the next interval is, in minutes (the seed's equation 2),

    m - j + R          if j < m - t,
    60 + (m - j + R)   otherwise,

R uniform on [-r, r], drawn per job and checkpoint from the run's seed.  `t` is the least
interval: a checkpoint due sooner waits for the next hour.  j counts seconds too (a
checkpoint lands at m:00 + R exactly); an interval that R makes <= 0 takes 60 minutes more.
The interval is counted from the job's (re)start or its last checkpoint's end."""

from __future__ import annotations

import dataclasses

import numpy as np

from ckptsim.checkpointing.base import (
    CheckpointPolicy,
    CostParams,
    IntervalContext,
    register_policy,
)
from ckptsim.params import param


@dataclasses.dataclass(frozen=True)
class MinuteInHourParams(CostParams):
    m: float = param(55.0, "minutes past the hour to checkpoint at", low=0.0, high=60.0,
                     high_open=True)
    t: float = param(0.0, "least minutes between a job's (re)start or checkpoint and its "
                          "next checkpoint", low=0.0, high=60.0, high_open=True)
    r: float = param(0.0, "jitter: the checkpoint moves by U[-r, r] minutes", low=0.0,
                     high=30.0)


@register_policy
class MinuteInHour(CheckpointPolicy):
    name = "minuteinhour"
    description = "MinuteInHour(m, t): checkpoint at m minutes past the hour, jitter U[-r, r]"
    Params = MinuteInHourParams
    dynamic = True

    def interval(self, delta: float, mtbf: float, restart: float) -> float:
        return 3600.0  # unused: next_interval answers

    def next_interval(self, delta: float, mtbf: float, restart: float,
                      ctx: IntervalContext) -> float:
        p = self.params
        j = ctx.hour_s / 60.0
        jitter = 0.0
        if p.r > 0:
            rng = np.random.default_rng([ctx.seed, ctx.job, ctx.count, int(ctx.at)])
            jitter = float(rng.uniform(-p.r, p.r))
        i = p.m - j + jitter if j < p.m - p.t else 60.0 + p.m - j + jitter
        while i <= 0:
            i += 60.0
        return i * 60.0
