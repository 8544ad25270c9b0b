"""The readings of seed 002 that are options of `scojo-pect` (without_migration, interval_size,
the size-ratio range), the pooled ARRT, and the shi figure that runs them: each changes what it
should on a hand-checkable case, and the defaults reproduce the schedules recorded before."""

from __future__ import annotations

import hashlib
import math
import tomllib
from typing import Any

import numpy as np
import pytest
from test_scojo import ALC, by_id, run

from ckptsim.errors import ConfigError
from ckptsim.metrics.classes import CLASS_METRIC_NAMES, class_summary
from ckptsim.policies.base import make_params
from ckptsim.policies.scojo import ScojoParams, alc
from ckptsim.policies.scojo.checkpoints import AlcPlan
from ckptsim.runner import simulate
from ckptsim.workload.source import load_workload

ROWS = [(0, 3000, 2, 3000), (0, 790, 2, 790), (5, 500, 2, 500), (6, 1000, 2, 1000)]
ALL_LONG = dict(short_limit=100.0, long_limit=200.0, reserve_pass="every")


# ------------------------------------------------------------------------ without_migration
def test_checkpoint_that_keeps_the_nodes():
    # test_scojo's case without migration, the other reading: J1 (nodes 0-1) checkpoints at
    # work 800, 1600, 2400 (t = 800, 1603, 2406; 3 s each) and runs on, ending at 3000 + 9.
    # J3 takes J2's nodes 2-3 at 790; J4 waits for them (1290) instead of taking J1's, and
    # checkpoints once (t = 2090) before its end at 1290 + 1000 + 3.
    sim, pol = run(ROWS, 4, migration=False, without_migration="continue", **ALL_LONG, **ALC)
    j = by_id(sim)
    assert [s for s in pol.starts if s[1] == 1] == [(0, 1, [0, 1], 0.0)]
    assert j[1].end == 3009 and j[1].overhead == pytest.approx(9.0)
    assert [s for s in pol.starts if s[1] == 4] == [(1290, 4, [2, 3], 0.0)]
    assert j[4].end == 2293
    assert pol.n_alc[j[1].index] == 3 and pol.n_alc[j[4].index] == 1
    assert sum(pol.n_mig) == 0 and not pol.reserved


def test_stop_is_the_default_and_continue_changes_nothing_with_migration():
    _, stop = run(ROWS, 4, migration=False, **ALL_LONG, **ALC)
    # The default: J1 gives its nodes back at its first checkpoint and waits for them.
    assert [s[0] for s in stop.starts if s[1] == 1] == [0, 1807, 2611, 3415]
    sim_a, a = run(ROWS, 4, **ALL_LONG, **ALC)
    sim_b, b = run(ROWS, 4, without_migration="continue", **ALL_LONG, **ALC)
    assert a.starts == b.starts
    assert [j.end for j in sim_a.jobs] == [j.end for j in sim_b.jobs]


def test_a_slice_ending_during_a_kept_checkpoint_suspends_the_job_after_it():
    # Medium J1 and long J2 alternate: M [0,100) L [100,198) (the 2 s short slice is empty,
    # skipped) M [198,298) ...  J1 checkpoints at work 98 (t = 98, 5 s), across its slice's
    # end at 100: it is suspended when the checkpoint completes (103) and resumes in its next
    # slice (198, + 1 s switch), its 52 s left ending it at 251.
    rows = [(0, 150, 2, 150), (0, 1000, 2, 1000)]
    params: dict[str, Any] = dict(cycle=200.0, share_short=0.01, share_medium=0.5,
                                  share_long=0.49, switch_overhead=1.0, short_limit=10.0,
                                  long_limit=500.0, nontype=False, checkpoint="alc",
                                  migration=False, without_migration="continue",
                                  interval="fixed:interval=98", jitter_var=0.0,
                                  ckpt_fixed=5.0, order="medium-long-short")
    sim, pol = run(rows, 4, **params)
    j = by_id(sim)
    assert [s for s in pol.starts if s[1] == 1][:2] == [(0, 1, [0, 1], 0.0),
                                                        (198, 1, [0, 1], 1.0)]
    assert pol.n_susp[j[1].index] == 1 and pol.n_alc[j[1].index] == 1
    assert j[1].end == 251 and j[1].overhead == pytest.approx(5.0 + 1.0)


def test_bad_without_migration_is_refused():
    with pytest.raises(ConfigError, match="without_migration"):
        make_params(ScojoParams, {"without_migration": "keep"}, where="scojo-pect")
    with pytest.raises(ConfigError, match="interval_size"):
        make_params(ScojoParams, {"interval_size": "both"}, where="scojo-pect")


# ------------------------------------------------------------------------ the ALC plan
def _plan(**params: Any) -> AlcPlan:
    w = load_workload("lublin:n=200,seed=7,machine=128,estimates=exact")
    p = make_params(ScojoParams, {"checkpoint": "alc", **params}, where="scojo-pect")
    work = np.asarray(w.runtime, dtype=np.float64)
    return AlcPlan(w, work, np.ones(w.n_jobs, dtype=bool), p)


def test_interval_from_the_system_image():
    app, sys_ = _plan(), _plan(interval_size="sys")
    # Same draws, same checkpoint costs; only the interval's delta changes.
    assert np.array_equal(app.s_app, sys_.s_app) and np.array_equal(app.ckpt_cost,
                                                                     sys_.ckpt_cost)
    delta_app = app.s_app / 70.0 + 0.5
    delta_sys = app.s_sys / 70.0 + 0.5
    assert np.allclose(app.t_opt, np.sqrt(2 * delta_app * 720000.0))
    assert np.allclose(sys_.t_opt, np.sqrt(2 * delta_sys * 720000.0))
    ratio = sys_.t_opt / app.t_opt
    assert np.all(ratio >= 1.0) and ratio.max() <= math.sqrt(1 / 0.2) + 1e-9
    # A fixed checkpoint cost is the delta either way.
    assert np.array_equal(_plan(ckpt_fixed=4.0).t_opt,
                          _plan(ckpt_fixed=4.0, interval_size="sys").t_opt)


def test_size_ratio_ranges_and_the_constants_are_parameters():
    default, thesis = _plan(), _plan(ratio_low=0.0, ratio_high=1.0)
    a, b = default.s_app / default.s_sys, thesis.s_app / thesis.s_sys
    assert a.min() >= 0.2 - 1e-12 and a.max() <= 0.95 + 1e-12
    assert b.min() >= 0.0 and b.max() <= 1.0 and b.min() < 0.2
    # The same uniforms: the [0, 1] ratio is the [0.2, 0.95] one stretched.
    assert np.allclose(b, (a - 0.2) / 0.75)
    assert alc.size_ratio(np.array([0.0]), 0.0, 1.0)[0] == pytest.approx(0.0)
    # T_min adds to every migration; the jitter moves the positions.
    t_min = _plan(t_min=7.0).mig_cost - default.mig_cost
    assert np.allclose(t_min, 6.0)
    still = _plan(jitter_var=0.0, interval="fixed:interval=100")
    i = next(k for k in range(200) if still.end(k) - still.first(k) >= 2)
    assert still.position(still.first(i)) == 100.0
    assert still.position(still.first(i) + 1) == 200.0


# ------------------------------------------------------------------------ pooled ARRT
def test_pooled_arrt_is_the_ratio_of_the_means():
    # Two medium narrow jobs: response 200 on runtime 100 (ratio 2) and 1000 on 1000 (1).
    table = {"relative_response": np.array([2.0, 1.0]), "response": np.array([200.0, 1000.0]),
             "runtime": np.array([100.0, 1000.0]),
             "job_class": np.array(["medium", "medium"]),
             "size_class": np.array(["narrow", "narrow"]),
             "slice_suspensions": np.zeros(2), "alc_checkpoints": np.zeros(2),
             "alc_migrations": np.zeros(2)}
    out = class_summary(table)  # type: ignore[arg-type]
    assert out["arrt_medium"] == pytest.approx(1.5)
    assert out["arrt_pooled_medium"] == pytest.approx(1200 / 1100)
    assert out["arrt_pooled_medium_narrow"] == pytest.approx(1200 / 1100)
    assert math.isnan(out["arrt_pooled_long"])
    assert set(out) == set(CLASS_METRIC_NAMES)


# ------------------------------------------------------------------------ defaults
def _digest(r: Any) -> tuple[str, str]:
    t = r.table
    data = np.asarray(t["end"], dtype=np.float64).tobytes()
    data += np.asarray(t["start"], dtype=np.float64).tobytes()
    return hashlib.sha256(data).hexdigest()[:16], repr(r.summary["mean_response"])


@pytest.mark.parametrize("params, expected", [
    ({"checkpoint": "off"}, ("0022e22b35532483", "12694.486666666666")),
    ({"checkpoint": "alc", "migration": False}, ("ace55e9510ca1b0a", "17053.84358887736")),
    ({"checkpoint": "alc"}, ("e39d630f4adae928", "9685.477219289169")),
])
def test_defaults_reproduce_the_schedules_recorded_before_the_options(params, expected):
    w = load_workload("lublin:n=600,seed=71,machine=128,estimates=exact")
    assert _digest(simulate(w, "scojo-pect", params)) == expected
    explicit = {"without_migration": "stop", "interval_size": "app"}
    assert _digest(simulate(w, "scojo-pect", {**params, **explicit})) == expected


# ------------------------------------------------------------------------ the figure
def test_readings_figure_spec_and_run(tmp_path):
    from ckptsim.experiments.papers.shi import experiments as shi
    from ckptsim.experiments.papers.shi import readings

    assert "readings" not in shi.wanted_figures("all")
    assert shi.wanted_figures("readings") == ["readings"]
    spec = tomllib.loads(readings.spec_text(100, 128, "exact", (71, 7)))
    labels = {s["label"]: s["params"] for s in spec["schedulers"]}
    assert labels["checkpoint-keep"] == {"checkpoint": "alc", "migration": False,
                                         "without_migration": "continue"}
    assert labels["migration-sys"]["interval_size"] == "sys"
    assert labels["checkpoint-01"]["ratio_low"] == 0 and labels["checkpoint-01"]["ratio_high"] == 1
    assert len(labels) == 10 and readings.runs_of((71, 7)) == 20
    opt = shi.Options(n=150, jobs=1)
    (out,) = shi.run_figures("readings", tmp_path, opt)
    assert len(out.rows) == 6 and all(r["seeds"] == 5 for r in out.rows)
    row = out.rows[0]
    assert row["arrt_gain_vs_checkpoint_pct"] == pytest.approx(np.mean([
        100 * (a - b) / a for a, b in zip(*_per_seed(tmp_path, "arrt_long"), strict=True)]))


def _per_seed(out, metric):
    from ckptsim.experiments.store import load_results

    rows, _ = load_results(out / "store")
    by = {(r["scheduler"], r["seed"]): r[metric] for r in rows}
    seeds = sorted({s for _, s in by})
    return ([by[("checkpoint", s)] for s in seeds], [by[("migration", s)] for s in seeds])
