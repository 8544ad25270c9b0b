"""The periodic application-level checkpoints of a run: which jobs checkpoint, when (in
seconds of useful work), at what cost, and what moving them costs.

This is the one place that drives the ALC model (`ckptsim.policies.scojo.alc`) and asks the
platform's checkpoint-interval policy (`ckptsim.checkpointing`, the `interval` parameter) for
each job's interval; the scheduler only asks `AlcPlan` for a job's next checkpoint position
and its costs, and decides what happens at a checkpoint.  Everything
is drawn once, up front, from streams seeded by the `seed` parameter and the workload's jobs
(so two runs of the same workload that differ only in the scheduling see the same
checkpoints, and different workloads see different draws).
"""

from __future__ import annotations

import hashlib

import numpy as np

from ckptsim.policies.scojo import alc
from ckptsim.policies.scojo.params import ScojoParams
from ckptsim.rng import RandomStreams
from ckptsim.workload.model import SWF_INDEX, Workload


def workload_seed(seed: int, workload: Workload) -> int:
    """A seed from the parameter and the workload's jobs (submit, runtime, size)."""
    h = hashlib.sha256(str(seed).encode())
    for column in (workload.submit, workload.runtime, workload.size):
        h.update(np.ascontiguousarray(column).tobytes())
    return int.from_bytes(h.digest()[:8], "little") >> 1


class AlcPlan:
    """Per-job checkpoint sizes, costs and positions (positions only for jobs that
    checkpoint)."""

    def __init__(self, workload: Workload, work: np.ndarray, eligible: np.ndarray,
                 p: ScojoParams) -> None:
        n = workload.n_jobs
        streams = RandomStreams(workload_seed(p.seed, workload))
        size = workload.size
        s_sys = alc.trace_memory(workload.fields[:, SWF_INDEX["used_memory"]],
                                 workload.fields[:, SWF_INDEX["requested_memory"]], size)
        modelled = alc.memory_model(streams.stream("scojo.memory"), size, p.mem_low,
                                    p.mem_high)
        missing = np.isnan(s_sys)
        s_sys[missing] = modelled[missing]
        self.memory_from_model = int(np.count_nonzero(missing))
        ratio = alc.size_ratio(streams.stream("scojo.ratio").random(n), p.ratio_low,
                               p.ratio_high)
        self.s_sys = s_sys
        self.s_app = ratio * s_sys
        if p.ckpt_fixed is not None:
            self.ckpt_cost = np.full(n, float(p.ckpt_fixed))
        else:
            self.ckpt_cost = alc.checkpoint_cost(self.s_app, p.ckpt_bandwidth,
                                                 p.ckpt_coordination)
        if p.migration_fixed is not None:
            self.mig_cost = np.full(n, float(p.migration_fixed))
        else:
            self.mig_cost = alc.migration_cost(self.s_app, p.migration_bandwidth, p.t_min)
        # When: the interval policy's compute time between checkpoints, per job, from the
        # ALC checkpoint's cost or (interval_size=sys) the system image's.
        delta = self.ckpt_cost
        if p.interval_size == "sys" and p.ckpt_fixed is None:
            delta = alc.checkpoint_cost(s_sys, p.ckpt_bandwidth, p.ckpt_coordination)
        policy = p.interval_policy()
        mtbf = float(policy.params.mtbf) if policy.params.mtbf is not None else p.mtbf
        t_opt = np.array([policy.interval(d, mtbf, p.t_restart)
                          for d in delta.tolist()], dtype=np.float64)
        self.t_opt = t_opt
        idx = np.flatnonzero(eligible & np.isfinite(t_opt))  # `none`: no checkpoint
        flat, offsets = alc.positions(streams.stream("scojo.jitter"), t_opt[idx], work[idx],
                                      p.jitter_var)
        self._flat = flat.tolist()
        # Job index -> [first, end) of its positions in the flat list.
        self._first = dict(zip(idx.tolist(), offsets[:-1].tolist(), strict=True))
        self._end = dict(zip(idx.tolist(), offsets[1:].tolist(), strict=True))
        self._ckpt = self.ckpt_cost.tolist()
        self._mig = self.mig_cost.tolist()

    def first(self, i: int) -> int:
        """Index of job i's first checkpoint position (== `end(i)` when it has none)."""
        return self._first.get(i, 0)

    def end(self, i: int) -> int:
        return self._end.get(i, 0)

    def position(self, k: int) -> float:
        """Useful work (s) at which the checkpoint at flat index k is taken."""
        return self._flat[k]

    def checkpoint_cost(self, i: int) -> float:
        return self._ckpt[i]

    def migration_cost(self, i: int) -> float:
        return self._mig[i]
