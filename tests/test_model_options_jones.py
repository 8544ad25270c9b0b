"""The readings of seed 001 that are options of `coalloc` (admit_cut, ctmr_waiting, ctmr_steps),
a fixed kappa, and the jones families that run them: each changes what it should on a
hand-checkable grid, and the defaults reproduce the schedules recorded before they existed."""

from __future__ import annotations

import hashlib
import math
import tomllib

import numpy as np
import pytest
from coalloc_helpers import Checked, grid_jobs

from ckptsim.engine.simulator import Simulator
from ckptsim.errors import ConfigError
from ckptsim.platform.links import split_demand
from ckptsim.policies.base import make_params
from ckptsim.policies.coalloc import CoallocParams
from ckptsim.policies.coalloc_place import greedy_split, least_unit_demand, unit_demand
from ckptsim.runner import simulate
from ckptsim.workload.source import load_workload

NAN = math.nan
LONG = 1e6


def run(w, **params):
    sim = Simulator(w, lambda s: Checked(s, make_params(CoallocParams, params)), check=True)
    log: list[tuple[float, int]] = []
    checkpoint = sim.checkpoint

    def logged(job, duration=0.0, then="requeue", **kw):
        log.append((sim.now, job.id))
        checkpoint(job, duration, then=then, **kw)

    sim.checkpoint = logged  # type: ignore[method-assign]
    sim.run()
    return sim, {j.id: j for j in sim.jobs}, log


# ------------------------------------------------------------------------------ admit_cut
def test_four_node_job_two_by_two_worst_cut_refuses_real_cut_admits():
    # n = 4: mesh 2 wide (ranks 0 1 / 2 3).  A block of 2 cuts 2 edges ({0, 1}) or 4 ({1, 2}):
    # worst u(2) = 0.5 * 2*2/3 + 0.5/4 * 4 = 7/6, least 0.5 * 4/3 + 0.5/4 * 2 = 11/12.
    assert unit_demand(4)[2] == pytest.approx(7 / 6)
    assert least_unit_demand(4)[2] == pytest.approx(11 / 12)
    # PPBW 1000 on links with 1000 free: 1166.7 does not fit, the real split 2 | 2 (blocks
    # {0, 1} and {2, 3}) puts 916.7 on each link and fits.
    assert greedy_split(4, 1000.0, [2, 2], [1000.0, 1000.0]) is None
    assert greedy_split(4, 1000.0, [2, 2], [1000.0, 1000.0], "real") == [2, 2]
    assert split_demand([2, 2], 1000.0) == pytest.approx((11000 / 12, 11000 / 12))
    # Less room than the real cut needs: refused either way.
    assert greedy_split(4, 1000.0, [2, 2], [900.0, 1000.0], "real") is None


def test_real_cut_keeps_every_worst_case_split_and_fits_its_real_demand():
    rng = np.random.default_rng(5)
    for _ in range(400):
        c = int(rng.integers(2, 5))
        n = int(rng.integers(2, 30))
        avail = rng.integers(0, 12, c).tolist()
        residual = rng.uniform(0, 3000, c).tolist()
        e = float(rng.uniform(10, 800))
        worst = greedy_split(n, e, avail, residual)
        real = greedy_split(n, e, avail, residual, "real")
        if worst is not None:
            assert real == worst
        if real is not None:
            assert sum(real) == n and all(k <= a for k, a in zip(real, avail, strict=True))
            assert all(d <= r for d, r in zip(split_demand(real, e), residual, strict=True)
                       if d > 0)


def test_real_cut_starts_a_job_the_worst_cut_makes_wait():
    # Two clusters of 4; a local job of 2 on each (ends at 100); job 3 (4 nodes, PPBW 1000,
    # exact estimate) fits only as 2 | 2.
    rows = [(0, 100, 2, 0, 10.0, NAN, 0.0), (0, 100, 2, 1, 10.0, NAN, 0.0),
            (1, 50, 4, 0, 1000.0, 1000.0, 0.5)]
    w = grid_jobs(rows, clusters=2, nodes=4)
    _, worst, _ = run(w)
    _, real, _ = run(w, admit_cut="real")
    assert worst[3].start == 100.0 and worst[3].end == 150.0  # whole on cluster 0 later
    # 916.7 Mbit/s on each link: no slowdown, it ends after its 50 s.
    assert real[3].start == 1.0 and real[3].end == 51.0


# ------------------------------------------------------------------------------ kappa
def test_fixed_kappa_changes_only_the_kappa_column():
    base = load_workload("grid:n=50,ppbw=300,error=1,seed=4")
    fixed = load_workload("grid:n=50,ppbw=300,error=1,seed=4,kappa=0.5")
    assert np.all(fixed.extra["kappa"] == 0.5)
    assert np.allclose(base.extra["kappa"], np.minimum(0.9, base.extra["ppbw"] / 1000.0))
    for col in ("cluster", "ppbw", "ppbw_estimate"):
        assert np.array_equal(base.extra[col], fixed.extra[col], equal_nan=True)
    assert np.array_equal(base.submit, fixed.submit)
    with pytest.raises(ConfigError, match="grid.kappa"):
        load_workload("grid:n=5,kappa=1.5")


# ------------------------------------------------------------------------------ ctmr_waiting
def _reservation_case():
    """Two clusters of 4.  Jobs 1, 2: 2 nodes each on clusters 0, 1 until 20,000 s.  Job 3:
    4 nodes at t = 1, co-allocated 2 | 2 on its tiny estimate, saturating the links (true
    PPBW 2000).  Job 4 (4 nodes, cluster 1, t = 2) gets cluster 1's reservation at 20,000 s
    (job 3's nodes are predicted free at 10,001, job 2's at 20,000); job 5 (2 nodes, cluster
    1, t = 3, 50,000 s) would fit job 3's nodes but would delay job 4."""
    rows = [(0, 20000, 2, 0, 10.0, NAN, 0.0), (0, 20000, 2, 1, 10.0, NAN, 0.0),
            (1, 10000, 4, 0, 2000.0, 500.0, 0.5), (2, 1000, 4, 1, 10.0, NAN, 0.0),
            (3, 50000, 2, 1, 10.0, NAN, 0.0)]
    return grid_jobs(rows, clusters=2, nodes=4)


def test_dispatch_check_spares_a_job_whose_nodes_no_waiting_job_may_take():
    w = _reservation_case()
    common = {"ctmr": True, "overhead": 0.0, "remote": False}
    sim, nodes, log = run(w, **common)
    # Counting nodes only: job 5 fits job 3's nodes, so job 3 is checkpointed at t = 3 ...
    assert log[0] == (3.0, 3)
    assert nodes[5].start >= 10000.0  # ... but job 5 may not take them (job 4's reservation)
    sim, dispatch, log = run(w, ctmr_waiting="dispatch", **common)
    assert log == []  # no waiting job could start on job 3's nodes: it runs on
    assert dispatch[3].start == 1.0 and dispatch[3].n_checkpoints == 0


def test_dispatch_check_allows_a_job_that_would_start():
    # Without job 4, job 5 is the head of cluster 1's queue: it would start on job 3's nodes.
    rows = [(0, 20000, 2, 0, 10.0, NAN, 0.0), (0, 20000, 2, 1, 10.0, NAN, 0.0),
            (1, 10000, 4, 0, 2000.0, 500.0, 0.5), (3, 50000, 2, 1, 10.0, NAN, 0.0)]
    w = grid_jobs(rows, clusters=2, nodes=4)
    _, jobs, log = run(w, ctmr=True, overhead=0.0, remote=False, ctmr_waiting="dispatch")
    assert log[0] == (3.0, 3)
    assert jobs[4].start == 3.0  # on job 3's nodes of cluster 1


# ------------------------------------------------------------------------------ ctmr_steps
def _two_offenders():
    """Four clusters of 4, three nodes of each busy for good; jobs 5 and 6 (2 nodes, PPBW 5000
    on an estimate of 10) co-allocated over clusters 0 | 1 and 2 | 3, each saturating its own
    links; at t = 3 two 1-node jobs (10 s) arrive."""
    rows = [(0, LONG, 3, c, 10.0, NAN, 0.0) for c in range(4)]
    rows += [(1, 100000, 2, 0, 5000.0, 10.0, 0.5), (2, 100000, 2, 2, 5000.0, 10.0, 0.5),
             (3, 10, 1, 0, 10.0, NAN, 0.0), (3, 10, 1, 1, 10.0, NAN, 0.0)]
    return grid_jobs(rows, clusters=4, nodes=4)


def test_batch_checkpoints_both_offenders_at_one_instant():
    _, jobs, log = run(_two_offenders(), ctmr=True, overhead=600.0)
    assert log == [(3.0, 5), (3.0, 6)]


def test_seed_steps_checkpoint_wait_reschedule_reevaluate():
    _, jobs, log = run(_two_offenders(), ctmr=True, overhead=600.0, ctmr_steps="seed")
    # Job 5 is checkpointed; when its checkpoint completes (300 s later) the pass starts the
    # two small jobs on its freed nodes, and then no waiting job could use job 6's nodes.
    assert log == [(3.0, 5)]
    assert jobs[7].start == 303.0 and jobs[8].start == 303.0
    assert jobs[6].n_checkpoints == 0


# ------------------------------------------------------------------------------ params, defaults
@pytest.mark.parametrize("key, value", [("admit_cut", "best"), ("ctmr_waiting", "all"),
                                        ("ctmr_steps", "one")])
def test_bad_values_are_refused_naming_the_key(key, value):
    with pytest.raises(ConfigError, match=key):
        make_params(CoallocParams, {key: value})


def _digest(r):
    t = r.table
    data = np.asarray(t["end"], dtype=np.float64).tobytes()
    data += np.asarray(t["start"], dtype=np.float64).tobytes()
    return hashlib.sha256(data).hexdigest()[:16], repr(r.summary["mean_response"])


@pytest.mark.parametrize("params, expected", [
    ({}, ("c161de3532fa40ff", "18317.176432722415")),
    ({"ctmr": True, "overhead": 0.0}, ("d09636e22305ca66", "17767.515309862407")),
    ({"ctmr": True, "overhead": 600.0, "overhead_known": False},
     ("1d46850a6c3dde57", "18316.49095444717")),
])
def test_defaults_reproduce_the_schedules_recorded_before_the_options(params, expected):
    w = load_workload("grid:n=300,load=0.95,ppbw=300,error=1,seed=2")
    explicit = {"admit_cut": "worst", "ctmr_waiting": "nodes", "ctmr_steps": "batch",
                "overhead_links": "restart"}
    assert _digest(simulate(w, "coalloc", params)) == expected
    assert _digest(simulate(w, "coalloc", {**params, **explicit})) == expected


# ------------------------------------------------------------------------------ the families
def test_jones_families_cpfrac_and_ablation_name_the_options():
    from ckptsim.experiments.papers.jones import experiments as jones

    opt = jones.Options(n=100)
    assert "cpfrac" not in jones.FIGURES and "ablation" not in jones.FIGURES  # not `all`
    assert jones.family_of("unknown") == "cpfrac-sweep"
    cp = tomllib.loads(jones.spec_text("cpfrac-sweep", opt))
    params = [s["params"] for s in cp["schedulers"]]
    assert {"ctmr": True, "overhead": 600, "cpfrac": [0.005, 0.01, 0.02, 0.08, 0.16, 0.32, 1]} \
        in params
    assert any(p.get("overhead_known") is False for p in params)
    ab = tomllib.loads(jones.spec_text("readings", opt))
    given = {k: v for s in ab["schedulers"] for k, v in s["params"].items()}
    assert given["admit_cut"] == "real" and given["ctmr_waiting"] == "dispatch"
    assert given["ctmr_steps"] == "seed"
    assert [w.get("kappa") for w in ab["workloads"].values()].count(0.5) == 2
    # 4% at 10 min is also the known overhead's 10 min: one run
    assert jones.runs_of("cpfrac", opt) == 19 and jones.runs_of("ablation", opt) == 19
    assert jones.runs_of("all", opt) == sum(jones.runs_of(f, opt) for f in jones.FAMILIES)
    with pytest.raises(ConfigError, match="ablation"):
        jones.family_of("fig20")


def test_ablation_family_runs_and_reports_every_reading(tmp_path):
    from ckptsim.experiments.papers.jones import experiments as jones

    opt = jones.Options(n=40, replications=2, jobs=1)
    (out,) = jones.run_figures("ablation", tmp_path, opt)
    readings = {r["reading"] for r in out.rows}
    assert readings == {"today's readings", "kappa = 0.5", "admit_cut=real",
                        "ctmr_waiting=dispatch", "ctmr_steps=seed", "all three"}
    assert all(r["seeds"] == 2 for r in out.rows)
    assert (tmp_path / "ablation.csv").exists() and (tmp_path / "ablation.png").exists()
