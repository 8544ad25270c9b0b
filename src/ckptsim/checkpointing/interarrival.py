"""`interarrival`: Interarrival(w, m, l, d) of seed 003 (section 4.3, equation 4), a skip
policy.

Reading chosen (the printed equation is garbled): at an evaluation at time t, the checkpoint
is taken when the user arrivals in [t - w, t] number at least `l` AND the job's last
checkpoint completed at least `d` minutes before t; otherwise it is skipped.  A job with no
checkpoint has c_j = 0, time 0 of the run (`origin=zero`, the seed's convention, the
default): t - c_j is then the time since the run began, so a job started after d minutes of
the run may be checkpointed at its first evaluation.  `origin=start` takes c_j = the start of
the job's current allocation instead: no checkpoint in its first d minutes.  The
evaluations are the checkpoints of the interval policy it is combined with, or, alone, one
every `m` minutes of computation (as `fixed:interval=60m`).  The alternative
readings, not implemented: the text's "greater than l" (use l + 1 here), and the printed
condition (t - c_j) <= d, which would checkpoint only jobs checkpointed recently.

Arrivals are the logins of the availability component's owners (the user model or a session
CSV) and, with an availability trace, the starts of its unavailability intervals; `scope`
counts them in the job's cluster (that of its first node) or in the whole pool.  w, m and d
are minutes, as in the seed."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from ckptsim.checkpointing.base import CostParams, register_policy
from ckptsim.checkpointing.plan import SkipPolicy
from ckptsim.engine.provides import OwnerArrivals
from ckptsim.errors import ConfigError
from ckptsim.params import param

if TYPE_CHECKING:
    from ckptsim.engine.state import Job


@dataclasses.dataclass(frozen=True)
class InterarrivalParams(CostParams):
    w: float = param(10.0, "minutes of the sliding window arrivals are counted in", low=0.0,
                     seconds=60.0)
    m: float | None = param(None, "minutes of computation between evaluations when no "
                                  "interval policy is given", low=0.0, low_open=True,
                                  period=1 / 60, seconds=60.0)
    l: int = param(1, "least arrivals in the window for a checkpoint", low=0)  # noqa: E741
    d: float = param(0.0, "least minutes since the job's last checkpoint", low=0.0, seconds=60.0)
    scope: str = param("cluster", "arrivals counted in the job's cluster or the whole pool",
                       choices=("cluster", "system"))
    origin: str = param("zero", "c_j of a job with no checkpoint: time 0 of the run (the "
                                "seed's convention) or the start of its current allocation",
                        choices=("zero", "start"), added=True)


@register_policy
class Interarrival(SkipPolicy):
    name = "interarrival"
    description = ("skip: checkpoint only when >= l users arrived in the last w minutes and "
                   "none was taken in the last d")
    Params = InterarrivalParams
    counter: Any = None

    def check(self) -> None:
        sim = self.agent.sim
        users: OwnerArrivals | None = sim.provider(OwnerArrivals)
        if users is None or not users.knows_arrivals():
            raise ConfigError("checkpoint", "interarrival counts user arrivals: run the "
                                            "availability component with owners=model|CSV "
                                            "or trace=...")

    def _counter(self) -> Any:
        if self.counter is None:
            import numpy as np

            from ckptsim.platform.groups import machines_of
            from ckptsim.platform.users import ArrivalCounter, Sessions

            sim = self.agent.sim
            machines = machines_of(sim.platform)
            users: OwnerArrivals | None = sim.provider(OwnerArrivals)
            got = users.arrivals() if users is not None else None
            machine, times = got if got is not None else (np.empty(0, np.int64),
                                                          np.empty(0))
            sessions = Sessions.build(machine, times, times, len(machines))
            groups = np.asarray([m.group for m in machines], dtype=np.int64)
            self.counter = ArrivalCounter(sessions, groups)
        return self.counter

    def skip(self, job: Job, now: float) -> bool:
        p = self.params
        cluster = self.agent.cluster_of(job) if p.scope == "cluster" else None
        arrivals = self._counter().count(now, p.w * 60.0, cluster)
        origin = job.seg_start if p.origin == "start" else 0.0
        recent = now - self.agent.last_checkpoint(job, origin) < p.d * 60.0
        return arrivals < p.l or recent
