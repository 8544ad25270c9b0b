"""The seed-001 multi-cluster workload (ckptsim.workload.grid): statistics of a large seeded
sample against the model's formulas, determinism, independent streams, bad parameters,
grid attributes for real traces, and the extra columns travelling with the jobs."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from helpers import trace

from ckptsim.cli import main
from ckptsim.errors import ConfigError
from ckptsim.runner import simulate
from ckptsim.workload import transforms
from ckptsim.workload.grid import COLUMNS, GridParams, attach_grid, generate_grid
from ckptsim.workload.model import SWF_INDEX, from_columns
from ckptsim.workload.source import load_workload


@pytest.fixture(scope="module")
def big():
    """80,000 jobs: 20,000 on each of 4 clusters, PPBW 300 +- 50%, error +-80%, 30% info."""
    p = GridParams(n=20_000, error=0.8, info=0.3)
    return p, generate_grid(p, seed=11)


def test_shape_and_columns(big):
    p, w = big
    assert w.n_jobs == 80_000 and w.machine_size == 400
    assert set(w.extra) == set(COLUMNS)
    assert (np.diff(w.submit) >= 0).all() and (w.job_id == np.arange(1, 80_001)).all()
    counts = np.bincount(w.extra["cluster"])
    assert counts.tolist() == [20_000] * 4
    assert (w.fields[:, SWF_INDEX["partition"]] == w.extra["cluster"] + 1).all()
    assert (w.fields[:, SWF_INDEX["allocated_processors"]] == w.size).all()
    assert (w.estimate == w.runtime).all()  # exact runtime estimates by default
    assert (w.runtime >= 1).all() and (w.runtime == np.round(w.runtime)).all()


def test_widths_are_uniform_on_5_to_20(big):
    _, w = big
    assert w.size.min() == 5 and w.size.max() == 20
    assert w.size.mean() == pytest.approx(12.5, abs=0.1)  # sd 4.61 / sqrt(80000) = 0.016
    share = np.bincount(w.size, minlength=21)[5:] / w.n_jobs
    assert share == pytest.approx([1 / 16] * 16, abs=0.006)


def test_arrival_rate_and_load_follow_the_formula(big):
    p, w = big
    lam = 0.7 * 100 / (12.5 * 14_400)  # load * nodes / (E[width] * E[T_E])
    assert p.arrival_rate() == pytest.approx(lam)
    for c in range(4):
        mine = w.extra["cluster"] == c
        submit = w.submit[mine]
        # n arrivals of a Poisson process: last time ~ n / lambda, relative sd 1/sqrt(n) = 0.7%
        assert len(submit) / submit[-1] == pytest.approx(lam, rel=0.03)
        work = float(np.sum(w.runtime[mine] * w.size[mine]))
        assert work / (100 * submit[-1]) == pytest.approx(0.7, rel=0.05)
        gaps = np.diff(submit)
        assert gaps.std() / gaps.mean() == pytest.approx(1.0, abs=0.05)  # exponential
    assert w.runtime.mean() == pytest.approx(14_400, rel=0.015)  # sd/mean 1/sqrt(80000)
    assert np.median(w.runtime) == pytest.approx(14_400 * math.log(2), rel=0.03)


def test_bandwidth_error_and_information(big):
    _, w = big
    ppbw, est = w.extra["ppbw"], w.extra["ppbw_estimate"]
    assert ppbw.min() >= 150 and ppbw.max() <= 450
    assert ppbw.mean() == pytest.approx(300, rel=0.005)
    revealed = ~np.isnan(est)
    assert revealed.mean() == pytest.approx(0.3, abs=0.01)  # sd 0.0016
    err = est[revealed] / ppbw[revealed] - 1
    assert err.min() >= -0.8 - 1e-12 and err.max() <= 0.8 + 1e-12
    assert np.sqrt(np.mean(err ** 2)) == pytest.approx(0.8 / math.sqrt(3), rel=0.02)
    assert np.mean(err) == pytest.approx(0.0, abs=0.01)
    assert np.mean(err < 0) == pytest.approx(0.5, abs=0.015)
    assert (w.extra["kappa"] == np.minimum(0.9, ppbw / 1000)).all()


def test_fixed_error_and_fixed_kappa():
    for e in (-1.0, -0.4, 0.0, 0.7, 1.0):
        w = generate_grid(GridParams(n=500, error=e, error_mode="fixed", kappa=0.25), seed=2)
        ratio = w.extra["ppbw_estimate"] / w.extra["ppbw"]
        assert ratio == pytest.approx(np.full(w.n_jobs, 1 + e), abs=1e-12)
        assert (w.extra["kappa"] == 0.25).all()
    w = generate_grid(GridParams(n=500, error=-1.0, error_mode="fixed"), seed=2)
    assert (w.extra["ppbw_estimate"] == 0.0).all()
    w = generate_grid(GridParams(n=500, ppbw=400, spread=0.0, info=0.0), seed=2)
    assert (w.extra["ppbw"] == 400).all() and np.isnan(w.extra["ppbw_estimate"]).all()


def digest(w) -> bytes:
    parts = [w.job_id, w.submit, w.runtime, w.estimate, w.size, w.fields]
    return b"".join(np.ascontiguousarray(a).tobytes()
                    for a in parts + [w.extra[k] for k in COLUMNS])


def test_same_seed_same_bytes():
    p = GridParams(n=2000, error=0.5, info=0.6)
    assert digest(generate_grid(p, seed=5)) == digest(generate_grid(p, seed=5))
    assert digest(generate_grid(p, seed=5)) != digest(generate_grid(p, seed=6))


def test_changing_the_error_or_information_changes_nothing_else():
    base = generate_grid(GridParams(n=3000, error=0.0, info=1.0), seed=4)
    for change in ({"error": 0.9}, {"error": -0.5, "error_mode": "fixed"}, {"info": 0.2},
                   {"ppbw": 150.0}, {"spread": 0.1}, {"kappa": 0.5}, {"capacity": 500.0}):
        w = generate_grid(GridParams(n=3000, **change), seed=4)
        for col in ("job_id", "submit", "runtime", "estimate", "size"):
            assert (getattr(w, col) == getattr(base, col)).all(), (change, col)
        assert (w.extra["cluster"] == base.extra["cluster"]).all()
        if "ppbw" not in change and "spread" not in change:
            assert (w.extra["ppbw"] == base.extra["ppbw"]).all(), change
    # raising the information availability reveals more jobs, never different ones
    low = generate_grid(GridParams(n=3000, info=0.2, error=0.5), seed=4)
    high = generate_grid(GridParams(n=3000, info=0.7, error=0.5), seed=4)
    shown_low = ~np.isnan(low.extra["ppbw_estimate"])
    shown_high = ~np.isnan(high.extra["ppbw_estimate"])
    assert (shown_high[shown_low]).all() and shown_high.sum() > shown_low.sum()
    assert (high.extra["ppbw_estimate"][shown_low] == low.extra["ppbw_estimate"][shown_low]).all()


def test_load_scales_the_arrivals_only():
    a = generate_grid(GridParams(n=1000, load=0.5), seed=3)
    b = generate_grid(GridParams(n=1000, load=0.9), seed=3)
    for c in range(4):
        sa, sb = (w.submit[w.extra["cluster"] == c] for w in (a, b))
        # same standard exponentials, divided by a rate 0.9 / 0.5 higher (then floored)
        assert sb == pytest.approx(np.floor(sb), abs=0)
        assert sa[-1] / sb[-1] == pytest.approx(0.9 / 0.5, rel=1e-3)


def test_a_cluster_does_not_depend_on_the_number_of_clusters():
    two = generate_grid(GridParams(clusters=2, n=800), seed=9)
    four = generate_grid(GridParams(clusters=4, n=800), seed=9)
    for col in ("submit", "runtime", "size"):
        for c in range(2):
            assert (getattr(two, col)[two.extra["cluster"] == c]
                    == getattr(four, col)[four.extra["cluster"] == c]).all()


@pytest.mark.parametrize(("change", "key", "accepted"), [
    ({"error": 1.5}, "grid.error", "in [0, 1]"),
    ({"error": -0.2}, "grid.error", "in [0, 1]"),
    ({"error": -1.5, "error_mode": "fixed"}, "grid.error", "in [-1, 1]"),
    ({"error": 1.01, "error_mode": "fixed"}, "grid.error", "in [-1, 1]"),
    ({"error_mode": "normal"}, "grid.error_mode", "uniform, fixed"),
    ({"info": 1.2}, "grid.info", "in [0, 1]"),
    ({"info": -0.1}, "grid.info", "in [0, 1]"),
    ({"capacity": 0.0}, "grid.capacity", "> 0"),
    ({"capacity": -1000.0}, "grid.capacity", "> 0"),
    ({"load": 0}, "grid.load", "> 0"),
    ({"ppbw": float("nan")}, "grid.ppbw", "> 0"),
    ({"spread": 1.5}, "grid.spread", "in [0, 1]"),
    ({"kappa": 2.0}, "grid.kappa", "in [0, 1]"),
    ({"n": 0}, "grid.n", ">= 1"),
    ({"width_max": 4}, "grid.width_max", ">= 5"),
    ({"width_max": 401}, "grid.width_max", "4 x 100 = 400"),
    ({"estimates": "psychic"}, "grid.estimates", "tsafrir"),
])
def test_bad_parameters_name_the_key_and_the_accepted_values(change, key, accepted):
    with pytest.raises(ConfigError) as err:
        generate_grid(replace(GridParams(n=10), **change))
    assert err.value.key == key and accepted in err.value.message


def test_generator_option_string():
    w = load_workload("grid:clusters=2,nodes=50,n=300,ppbw=150,error=0.5,info=0.5,load=0.6,"
                      "seed=7")
    p = GridParams(clusters=2, nodes=50, n=300, ppbw=150.0, error=0.5, info=0.5, load=0.6)
    assert digest(w) == digest(generate_grid(p, seed=7)) and w.machine_size == 100
    assert load_workload("grid").n_jobs == 40_000
    w = load_workload("grid:n=50,error=-1,error_mode=fixed", first=30, load_scale=2.0)
    assert w.n_jobs == 30 and all(len(v) == 30 for v in w.extra.values())
    for spec, key, text in (
        ("grid:error=2", "grid.error", "in [0, 1]"),
        ("grid:error=-2,error_mode=fixed", "grid.error", "in [-1, 1]"),
        ("grid:info=1.5", "grid.info", "in [0, 1]"),
        ("grid:capacity=0", "grid.capacity", "> 0"),
        ("grid:capacity=abc", "grid.capacity", "expected a number"),
        ("grid:n=1.5", "grid.n", "expected an integer"),
        ("grid:ppwb=3", "grid.ppwb", "accepted: capacity, clusters"),
        ("grid:split=random", "grid.split", "trace="),
        ("grid:trace=x.swf,load=0.5", "grid.load", "synthetic workload only"),
    ):
        with pytest.raises(ConfigError) as err:
            load_workload(spec)
        assert err.value.key == key and text in err.value.message, err.value


def test_command_line_refuses_bad_grid_options(capsys):
    assert main(["run", "--workload", "grid:n=10,error=-1.5,error_mode=fixed"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("ckptsim: error: --workload grid.error: must be a number in [-1, 1]")


def test_a_grid_workload_runs_under_an_existing_scheduler():
    w = load_workload("grid:n=150,seed=3")
    result = simulate(w, "easy")
    assert result.summary["jobs"] == 600 and result.workload.machine_size == 400


# ------------------------------------------------------------------ real traces
def small_trace():
    return from_columns(submit=[0, 5, 5, 9, 12, 20, 30], runtime=[10] * 7,
                        size=[1, 50, 120, 400, 8, 3, 2], machine_size=512)


def test_attach_round_robin_and_random():
    w = attach_grid(small_trace(), GridParams(ppbw=400, error=0.5, info=0.5), seed=1)
    assert w.extra["cluster"].tolist() == [0, 1, 2, 3, 0, 1, 2] and w.machine_size == 400
    assert w.transforms[-1].startswith("attach_grid(")
    assert (w.extra["ppbw"] >= 200).all() and (w.extra["ppbw"] <= 600).all()
    r1 = attach_grid(small_trace(), seed=1, split="random")
    r2 = attach_grid(small_trace(), seed=1, split="random")
    assert (r1.extra["cluster"] == r2.extra["cluster"]).all()
    assert set(r1.extra["cluster"].tolist()) <= {0, 1, 2, 3}
    # the split does not change the bandwidth draws
    assert (r1.extra["ppbw"] == attach_grid(small_trace(), seed=1).extra["ppbw"]).all()
    with pytest.raises(ConfigError) as err:
        attach_grid(small_trace(), seed=1, split="alphabetical")
    assert err.value.key == "grid.split" and "roundrobin, random" in err.value.message


def test_attach_refuses_a_job_wider_than_the_grid():
    with pytest.raises(ConfigError) as err:
        attach_grid(small_trace(), GridParams(clusters=3, nodes=100))
    assert err.value.key == "grid.nodes"
    assert "job 4 needs 400 nodes" in err.value.message and "at most 300" in err.value.message


def test_real_trace_gets_grid_columns():
    path = trace("HPC2N-2002-2.2-cln.swf.gz")
    w = load_workload(f"grid:trace={path},ppbw=150,error=0.3,seed=2", first=3000)
    assert w.n_jobs == 3000 and w.machine_size == 400
    assert np.bincount(w.extra["cluster"]).tolist() == [750] * 4
    assert (w.size <= 400).all() and w.extra["ppbw"].mean() == pytest.approx(150, rel=0.05)
    again = load_workload(f"grid:trace={path},ppbw=150,error=0.3,seed=2", first=3000)
    assert digest(w) == digest(again)


SWF_TEXT = ("; MaxProcs: 64\n"
            "1 0 -1 100 8 -1 -1 -1 200 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
            "2 5 -1 100 8 -1 -1 500 200 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
            "3 9 -1 x20 4 -1 -1 4 200 -1 1 -1 -1 -1 -1 -1 -1 -1\n")


def test_a_grid_trace_is_read_with_the_trace_options(tmp_path):
    # grid:trace= read its SWF with the defaults whatever --skip-bad-lines, --size-from and
    # --oversize said.
    path = tmp_path / "t.swf"
    path.write_text(SWF_TEXT)
    spec = f"grid:trace={path}"
    with pytest.raises(Exception, match="line 4, field 4"):
        load_workload(spec)
    w = load_workload(spec, skip_bad_lines=True)
    assert w.counts["skipped_bad_lines"] == 1 and w.counts["skipped_too_large"] == 1
    assert w.size.tolist() == [8] and w.machine_size == 400
    w = load_workload(spec, skip_bad_lines=True, oversize="clamp")
    assert w.size.tolist() == [8, 400] and w.counts["clamped_too_large"] == 1
    w = load_workload(spec, skip_bad_lines=True, size_from="allocated")
    assert w.size.tolist() == [8, 8]


def test_a_grid_trace_may_be_batsim_json(tmp_path):
    # A .json trace was parsed as SWF ("18 fields expected").
    out = tmp_path / "l.json"
    assert main(["convert", "lublin:n=60,seed=2", str(out)]) == 0
    w = load_workload(f"grid:trace={out},nodes=40")
    plain = load_workload("lublin:n=60,seed=2")
    assert w.machine_size == 160 and set(COLUMNS) <= set(w.extra)
    assert np.array_equal(w.runtime, plain.runtime) and np.array_equal(w.size, plain.size)


def test_machine_size_other_than_the_grid_is_refused(capsys):
    for spec in ("grid:n=20", "grid:n=20,clusters=2,nodes=50"):
        assert main(["run", "--workload", spec, "--scheduler", "coalloc",
                     "--machine-size", "800"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("ckptsim: error: --machine-size: 800 nodes differs from the "
                              "grid's own machine, ")
        assert "accepted: " in err
    assert load_workload("grid:n=20", machine_size=400).machine_size == 400


# ------------------------------------------------------------------ extra columns
def test_extra_columns_follow_the_jobs_through_transforms():
    w = generate_grid(GridParams(n=400, info=0.5, error=0.5), seed=8)
    by_id = {int(j): (int(c), float(p)) for j, c, p in
             zip(w.job_id, w.extra["cluster"], w.extra["ppbw"], strict=True)}
    mid = float(w.submit[w.n_jobs // 2])
    for out in (transforms.first_n(w, 100), transforms.time_window(w, mid, math.inf),
                transforms.scale_load(w, 1.5), transforms.interpolate_estimates(w, 0.5),
                w.subset(w.size > 10, note="wide")):
        assert set(out.extra) == set(COLUMNS)
        for j, c, p in zip(out.job_id, out.extra["cluster"], out.extra["ppbw"], strict=True):
            assert by_id[int(j)] == (int(c), float(p))


def test_from_columns_sorts_extra_columns_with_the_jobs():
    w = from_columns(submit=[3, 1, 2], runtime=[1, 1, 1], size=[1, 1, 1], machine_size=1,
                     extra={"tag": np.array([30, 10, 20])})
    assert w.extra["tag"].tolist() == [10, 20, 30] and w.job_id.tolist() == [2, 3, 1]
    with pytest.raises(ValueError, match="tag"):
        replace(w, extra={"tag": np.array([1, 2])})
    plain = from_columns(submit=[0], runtime=[1], size=[1], machine_size=1)
    assert plain.extra == {} and plain.subset([0]).extra == {}
    assert plain.with_extra("tagged", tag=np.array([7])).extra["tag"].tolist() == [7]


def test_tsafrir_estimates_are_never_shorter_than_the_runtime():
    """With `estimates=tsafrir` a grid job's estimate is at least its runtime, as the model
    requires and as lublin's are: runtimes beyond the largest estimate are truncated to it
    (89 of 8,000 jobs here had an estimate shorter than their runtime, and --overrun kill
    killed them); the estimates are those the model dealt before."""
    from ckptsim.workload import estimates as est

    w = load_workload("grid:n=2000,estimates=tsafrir")
    assert np.all(w.estimate >= w.runtime)
    cut = w.counts["estimate_runtime_truncated"]
    assert cut > 0 and int(np.count_nonzero(w.runtime == est.DEFAULT_MAX_EST)) >= cut
    exact = load_workload("grid:n=2000")
    longer = exact.runtime > w.runtime
    assert int(np.count_nonzero(longer)) == cut
    assert np.array_equal(exact.runtime[~longer], w.runtime[~longer])
