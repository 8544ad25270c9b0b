"""Properties of `scojo-pect`: equal to the within-class backfilling scheduler with one class,
useful work equal to the runtime for every job under the invariant checker, and suspended jobs
resuming on their own nodes in their class's next slice."""

from __future__ import annotations

from typing import Any

import numpy as np
from helpers import examples, jobs, trace
from hypothesis import given, settings
from hypothesis import strategies as st

from ckptsim.engine.simulator import Simulator
from ckptsim.engine.state import DONE
from ckptsim.limits import MAX_SECONDS
from ckptsim.policies.base import make_params
from ckptsim.policies.scojo import ScojoParams, ScojoPect
from ckptsim.runner import simulate
from ckptsim.workload.source import load_workload

MACHINE = 8
# Every job medium: no estimate reaches the longest time a parameter takes (MAX_SECONDS).
ONE_CLASS = {"short_limit": 1e-3, "long_limit": MAX_SECONDS}
# One slice longer than the workload: a slice boundary is a scheduling instant the within-class
# scheduler does not have, where a job overrunning its estimate may let a backfill in earlier.
ONE_SLICE = {**ONE_CLASS, "cycle": 1e9}


@st.composite
def workloads(draw: Any, n_max: int = 25) -> list[tuple[float, float, int, float]]:
    n = draw(st.integers(1, n_max))
    rows = []
    for _ in range(n):
        runtime = draw(st.integers(1, 6000))
        factor = draw(st.sampled_from([0.5, 1.0, 1.0, 2.0, 5.0]))
        rows.append((float(draw(st.integers(0, 6000))), float(runtime),
                     draw(st.integers(1, MACHINE)), float(max(1, round(runtime * factor)))))
    return rows


@st.composite
def scojo_params(draw: Any) -> dict[str, Any]:
    weights = [draw(st.integers(1, 10)) for _ in range(3)]
    total = sum(weights)
    cycle = float(draw(st.integers(300, 4000)))
    p: dict[str, Any] = {
        "backfill": draw(st.sampled_from(["easy", "conservative"])),
        "cycle": cycle,
        "share_short": weights[0] / total, "share_medium": weights[1] / total,
        "share_long": 1.0 - weights[0] / total - weights[1] / total,
        "empty_slice": draw(st.sampled_from(["skip", "keep"])),
        # less than the shortest slice (longer ones are refused: no job could progress)
        "switch_overhead": float(draw(st.sampled_from(
            [o for o in (0, 10, 60) if o < min(weights) / total * cycle]))),
        "short_limit": float(draw(st.integers(50, 600))),
        "nontype": draw(st.booleans()),
        "preempt_all": draw(st.booleans()),
        "nodes": draw(st.sampled_from(["lowest", "unclaimed"])),
    }
    p["long_limit"] = p["short_limit"] * draw(st.integers(1, 10))
    if draw(st.booleans()):
        p.update(checkpoint="alc", interval=f"fixed:interval={draw(st.integers(50, 800))}",
                 jitter_var=float(draw(st.sampled_from([0, 4]))),
                 ckpt_fixed=float(draw(st.integers(0, 20))),
                 migration_fixed=float(draw(st.integers(0, 30))),
                 migration=draw(st.booleans()),
                 reserve_pass=draw(st.sampled_from(["checkpoint", "every"])),
                 reserve_first=draw(st.booleans()))
    return p


def same_schedule(a: Any, b: Any) -> bool:
    return all(np.array_equal(a[c], b[c], equal_nan=True)
               for c in ("start", "end", "wait", "backfilled"))


@settings(max_examples=examples(60))
@given(rows=workloads(), mode=st.sampled_from(["easy", "conservative"]))
def test_one_class_without_checkpoints_is_the_within_class_scheduler(rows, mode):
    w = jobs(rows, MACHINE)
    a = simulate(w, mode).table
    b = simulate(w, "scojo-pect", {"backfill": mode, **ONE_SLICE}, check=True).table
    assert same_schedule(a, b)


def test_one_class_on_a_real_trace_slice():
    w = load_workload(str(trace("SDSC-SP2-1998-4.2-cln.swf.gz")), first=3000)
    for mode in ("easy", "conservative"):
        a = simulate(w, mode).table
        b = simulate(w, "scojo-pect", {"backfill": mode, **ONE_CLASS}).table
        assert same_schedule(a, b), mode


def test_one_class_on_a_lublin_workload_with_tsafrir_estimates():
    w = load_workload("lublin:n=2000,seed=7")
    for mode in ("easy", "conservative"):
        assert same_schedule(simulate(w, mode).table,
                             simulate(w, "scojo-pect", {"backfill": mode, **ONE_CLASS}).table)


class Watched(ScojoPect):
    """Logs slice suspensions (with their nodes), starts and slice beginnings."""

    def __init__(self, sim: Simulator, params: Any) -> None:
        super().__init__(sim, params)
        self.suspensions: list[tuple[float, int, int, int]] = []  # (time, index, class, mask)
        self.starts: list[tuple[float, int, int]] = []  # (time, index, mask)
        self.begins: list[tuple[float, int]] = []

    def on_checkpointed(self, job: Any) -> None:
        mask = self.suspending.get(job.index)
        if mask is not None:
            self.suspensions.append((self.sim.now, job.index, self.cls[job.index], mask))
        super().on_checkpointed(job)

    def _eng_start(self, job: Any, mask: int | None, overhead: float,
                   backfilled: bool) -> None:
        super()._eng_start(job, mask, overhead, backfilled)
        self.starts.append((self.sim.now, job.index, job.mask))

    def _begin(self, s: Any, now: float) -> None:
        super()._begin(s, now)
        self.begins.append((now, s.cls))


@settings(max_examples=examples(60))
@given(rows=workloads(), prm=scojo_params())
def test_every_job_does_its_work_and_suspended_jobs_resume_on_their_nodes(rows, prm):
    params = make_params(ScojoParams, prm, where="scojo-pect")
    # The checker verifies, at every pass and at every end, that no node is held twice and
    # that each job's useful work (node time - overhead - lost work) equals its runtime.
    sim = Simulator(jobs(rows, MACHINE), lambda s: Watched(s, params), check=True)
    sim.run()
    pol = sim.policy
    assert isinstance(pol, Watched)
    assert all(j.state is DONE and j.work_done == j.runtime and j.lost_work == 0
               for j in sim.jobs)
    slack = params.ckpt_fixed or 0.0  # an ALC checkpoint in flight may hold nodes that long
    for t, i, c, mask in pol.suspensions:
        resume = next(s for s in pol.starts if s[1] == i and s[0] >= t)
        assert resume[2] == mask  # on its own nodes
        begin = next((b for b, cls in pol.begins if cls == c and b >= t), float("inf"))
        assert resume[0] <= begin + slack  # in its class's next slice (or earlier, non-type)
