"""Seed 004's modelling choices as options: where a killed job waits again (`requeue`), the
jitter of a rescaled log's copies (`jitter=`), and the paper's failure counts on a `first`
slice (`slice_failures`) and at the log's rate (`rate="log"`)."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from helpers import TRACES, inject_failures, jobs, starts

from ckptsim.engine.simulator import Simulator
from ckptsim.errors import ConfigError
from ckptsim.failures.model import FailureTrace
from ckptsim.failures.source import check_failure_spec, parse_jitter
from ckptsim.failures.transforms import rescale_count
from ckptsim.policies.base import scheduler_factory

TINY = {"x": 2, "y": 2, "z": 2}


# --- killed jobs: back to the queue's front (default) or to their submit-order place ------
# 1 holds half the torus until 100; 2 (the whole torus) waits for it; 3 (estimate 95) is
# backfilled at 0, ending by 2's reservation; a failure at 10 on 3's node kills it.
KILLED = [(0, 100, 4, 100), (0, 10, 8, 10), (0, 50, 4, 95)]


def run_bgl(requeue=None):
    params = {**TINY, **({} if requeue is None else {"requeue": requeue})}
    factory = scheduler_factory("bgl-fcfs", params)
    sim = Simulator(factory.prepare(jobs(KILLED, 8)), factory, check=True)
    inject_failures(sim, [10.0], [5])  # a node of 3's half (MFP puts 1 on nodes 0-3)
    sim.run()
    assert sim.jobs[0].n_kills == 0 and sim.jobs[2].n_kills == 1
    return sim


def test_a_killed_job_returns_to_the_queue_front_by_default():
    # At 10, 3 heads the queue again and fits the 4 free nodes: it restarts at once (10-60).
    sim = run_bgl()
    assert starts(sim) == {1: (0, 100), 2: (100, 110), 3: (0, 60)}
    assert sim.jobs[2].lost_work == 10
    assert starts(run_bgl("front")) == starts(sim)


def test_a_killed_job_returns_to_its_submit_order_place():
    # requeue=order: 3 waits behind 2 and cannot be backfilled again (10 + 95 > 100, no extra
    # node): 2 runs 100-110, 3 110-160.
    sim = run_bgl("order")
    assert starts(sim) == {1: (0, 100), 2: (100, 110), 3: (0, 160)}
    with pytest.raises(ConfigError, match=r"requeue: got 'back'; accepted: one of front, order"):
        scheduler_factory("bgl-fcfs", {**TINY, "requeue": "back"})


# --- the jitter of the copies of a rescaled log ---------------------------------------------
LOG = FailureTrace(time=np.array([0.0, 100.0, 100.0, 250.0, 400.0]),
                   node=np.array([0, 1, 2, 3, 4]), repair=np.zeros(5), span=400.0)


ORIGINAL = {0: 0.0, 1: 100.0, 2: 100.0, 3: 250.0, 4: 400.0}


def _copies(t: FailureTrace) -> dict[int, float]:
    """Each node's copy time (its failure that is not at the log's time; the log's own time
    when both are)."""
    out: dict[int, float] = {}
    for node, time in zip(t.node.tolist(), t.time.tolist(), strict=True):
        if time != ORIGINAL[node] or node in out:
            out[node] = time
    return out


def test_copies_jitter_by_default_and_keep_multi_node_events_together():
    t = rescale_count(LOG, 10, seed=3)
    assert len(t) == 10 and t.counts["rescale_copies"] == 2
    assert sorted(t.node.tolist()) == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    copy = _copies(t)
    # The copies move by up to 400 / (2 sqrt 5) = 89.4 s: some leave the log's times.
    assert copy != ORIGINAL
    assert all(abs(copy[n] - ORIGINAL[n]) <= 400 / (2 * 5 ** 0.5) + 1e-9 for n in copy)
    assert copy[1] == copy[2]  # the 2-node event at 100 moved as one


def test_jitter_zero_puts_every_copy_at_its_original_instant():
    t = rescale_count(LOG, 10, seed=3, jitter=0.0)
    assert sorted(zip(t.node.tolist(), t.time.tolist(), strict=True)) == sorted(
        [*ORIGINAL.items(), *ORIGINAL.items()])
    # The same draws whatever the jitter: the same failures (the copies only move).
    auto = rescale_count(LOG, 10, seed=3)
    assert sorted(t.node.tolist()) == sorted(auto.node.tolist())
    assert "jitter=0" in t.notes[-1] and "jitter" not in auto.notes[-1]


def test_a_given_jitter_bounds_the_moves():
    t = rescale_count(LOG, 10, seed=3, jitter=5.0)
    moves = [abs(time - ORIGINAL[n]) for n, time in _copies(t).items()]
    assert max(moves) <= 5.0 and max(moves) > 0


def test_jitter_option_of_a_failure_source(tmp_path):
    log = tmp_path / "log.csv"
    log.write_text("x\n")
    assert "jitter=0" in check_failure_spec(f"lanl:path={log},system=20,count=9,jitter=0")
    assert parse_jitter("auto") is None and parse_jitter("30") == 30.0
    for bad in ("-1", "wide", "inf"):
        with pytest.raises(ConfigError, match=r"failures\.jitter: .*accepted: auto or a number"):
            check_failure_spec(f"lanl:path={log},system=20,count=9,jitter={bad}")
    with pytest.raises(ConfigError, match="jitter"):
        rescale_count(LOG, 10, jitter=-1.0)


# --- the paper's failure counts --------------------------------------------------------------
def _options(**kw):
    from ckptsim.experiments.papers.oliner import experiments as ol

    if not (TRACES / ol.TRACES["SDSC"]).exists():
        pytest.skip("SDSC-SP2 trace not available")
    return ol, ol.Options(traces=("SDSC",), trace_dir=TRACES, failure_log=Path(__file__),
                          **kw)


def test_a_slice_keeps_the_seed_counts_by_default():
    ol, opt = _options(first=2000)
    assert ol.level_counts(opt) == {"SDSC": 4000}
    text = ol.spec_text("failures", opt)
    assert "failure_count = [0, 500, 1000, 1500, 2000, 2500, 3000, 3500, 4000]" in text
    assert "jitter" not in text


def test_a_slice_can_scale_the_counts_with_its_span():
    ol, opt = _options(first=2000, slice_failures="scale")
    share = ol.slice_shares(opt)["SDSC"]
    spans = ol._span_days(opt)["SDSC"], ol._span_days(_options()[1])["SDSC"]
    assert share == pytest.approx(spans[0] / spans[1]) and 0 < share < 0.2
    assert ol.level_counts(opt) == {"SDSC": round(4000 * share)}
    text = ol.spec_text("failures", opt)
    assert f"failure_count = [0, {round(500 * share)}, " in text
    # Without a slice, scaling changes nothing.
    whole = _options(slice_failures="scale")[1]
    assert ol.level_counts(whole) == {"SDSC": 4000}


def test_jitter_and_bad_options_in_the_paper_specs():
    ol, opt = _options(jitter="0")
    assert ",transient=true,jitter=0\"" in ol.spec_text("balancing", opt)
    # The failure span: the default writes no span (the committed runs' specs), run does.
    assert "span=" not in ol.spec_text("failures", _options()[1])
    for family in ("failures", "balancing", "options"):
        text = ol.spec_text(family, _options(jitter="0", failure_span="run")[1])
        assert ",transient=true,jitter=0,span=run\"" in text
    with pytest.raises(ConfigError, match="--failure-span"):
        ol.check(_options(failure_span="end")[1])
    with pytest.raises(ConfigError, match="slice_failures"):
        ol.check(_options(slice_failures="half")[1])
    with pytest.raises(ConfigError, match="failures.jitter"):
        ol.check(_options(jitter="-3")[1])


# --- a box's extra supernodes: utilised (default) or lost (`--rounding lost`) -----------------
def test_the_rounding_option_adds_the_component_to_every_workload():
    ol, opt = _options()
    for family in ("failures", "balancing", "tiebreak", "options"):
        assert "rounding" not in ol.spec_text(family, opt)  # the committed runs' specs
        text = ol.spec_text(family, _options(rounding="lost")[1])
        assert 'components.rounding = { count_as = "lost" }' in text
    with pytest.raises(ConfigError, match="--rounding"):
        ol.check(_options(rounding="wasted")[1])


def test_rounding_lost_moves_the_extra_supernodes_from_utilised_to_lost(tmp_path):
    from ckptsim.cli import main
    from ckptsim.experiments.papers.oliner import experiments as ol

    log = TRACES.parent / "failures" / "lanl_cfdr" / ol.FAILURE_LOG.rsplit("/", 1)[1]
    if not (TRACES / ol.TRACES["LUBLIN-256"]).exists() or not log.exists():
        pytest.skip("LUBLIN-256 trace or the LANL failure log not available")
    rows = {}
    for rounding in ("utilized", "lost"):
        out = tmp_path / rounding
        assert main(["paper", "oliner", "fig3", "--out", str(out), "--trace-dir", str(TRACES),
                     "--traces", "LUBLIN-256", "--first", "100", "--counts", "0", "--loads",
                     "1", "--jobs", "0", "--rounding", rounding]) == 0
        rows[rounding] = list(csv.DictReader(open(out / "fig3.csv")))
    assert len(rows["lost"]) == len(rows["utilized"]) == 3  # a = 0, 0.1, 0.9
    for base, lost in zip(rows["utilized"], rows["lost"], strict=True):
        assert lost["mean_response_bsld"] == base["mean_response_bsld"]  # the same schedule
        assert lost["capacity_unused"] == base["capacity_unused"]
        moved = float(base["capacity_utilized"]) - float(lost["capacity_utilized"])
        assert moved > 0  # some of LUBLIN-256's first 100 sizes are no box volume
        # (the CSVs hold 6 digits)
        assert float(lost["capacity_lost"]) - float(base["capacity_lost"]) == \
            pytest.approx(moved, abs=2e-6)
        assert sum(float(lost[f"capacity_{m}"]) for m in ("utilized", "unused", "lost")) == \
            pytest.approx(1.0, abs=2e-6)


# --- the tie-break predictor's draws: its own seed, the same in every replication ------------
def test_the_tiebreak_seed_spec_varies_the_predictor_seed_beside_the_replications():
    from ckptsim.experiments.spec import load_spec

    ol, opt = _options()  # the committed runs name no predictor seed: 0 in every replication
    assert "seed" not in ol.spec_text("tiebreak", opt).split("[[schedulers]]")[1]
    path = Path(__file__).resolve().parents[1] / "docs/results/oliner/choices/tiebreak-seed.toml"
    spec = load_spec(path, trace_dir=TRACES)
    assert spec.seeds == (1, 2, 3, 4, 5)
    (tb,) = spec.schedulers
    assert tb.name == "bgl-tiebreak"
    assert tb.params["seed"] == [0, 1, 2, 3, 4] and tb.params["accuracy"] == [0.5]
    assert list(spec.workloads) == ["LUBLIN-256"]


@pytest.mark.parametrize(("name", "params"), [
    ("front-order", {"front_order": ["last", "submit"]}),
    ("restart", {"restart": ["save", "save-left", "scratch"]})])
def test_the_choice_specs_run_each_reading_on_the_papers_failures(name, params):
    """choices/front-order.toml and restart.toml (the page's measures of `front_order` and
    `restart`) run bgl-fcfs under each reading on the failure source the paper's specs give
    (the committed runs' failures)."""
    from ckptsim.experiments.spec import load_spec, parse_spec

    ol, _ = _options()
    opt = ol.Options(traces=("SDSC",), trace_dir=TRACES)  # the default failure log
    paper = parse_spec(ol.spec_text("failures", opt), trace_dir=TRACES)
    path = Path(__file__).resolve().parents[1] / f"docs/results/oliner/choices/{name}.toml"
    spec = load_spec(path, trace_dir=TRACES)
    assert spec.seeds == (1, 2, 3, 4, 5)
    (fcfs,) = spec.schedulers
    assert (fcfs.name, fcfs.params) == ("bgl-fcfs", params)
    assert list(spec.workloads) == ["SDSC", "NASA"]
    for w in spec.workloads.values():
        assert w.options["first"] == [2000] and w.options["failure_count"] == [1000]
        assert w.options["failures"] == paper.workloads["SDSC"].options["failures"]


def _predictor_streams(text):
    """Each bgl-tiebreak run of a spec text, by (label, accuracy): the first draws of its
    predictor, replication by replication (a run built as the sweep builds it)."""
    from helpers import jobs

    from ckptsim.experiments.matrix import build_matrix
    from ckptsim.experiments.spec import parse_spec

    out = {}
    for run in build_matrix(parse_spec(text, trace_dir=TRACES)):
        if run.scheduler_name != "bgl-tiebreak":
            continue
        sim = Simulator(jobs([(0, 10, 1, 10)], 128),
                        scheduler_factory(run.scheduler_name, run.params), seed=run.seed)
        out.setdefault((run.scheduler, run.params["accuracy"]), []).append(
            tuple(sim.policy.rng.random(3)))
    return out


def test_predictor_draws_reach_the_tiebreak_runs():
    ol, fixed = _options(levels=(0.5,), loads=(1.0,), replications=3)
    ol, drawn = _options(levels=(0.5,), loads=(1.0,), replications=3, predictor_draws="replication")
    counts = {"SDSC": 10}
    for family in ("tiebreak", "options"):
        # fixed (default): the committed runs' specs, every replication the same draws.
        text = ol.spec_text(family, fixed, counts)
        assert "seed" not in text.split("[[schedulers]]", 1)[1]
        streams = _predictor_streams(text)
        assert len(streams) == (1 if family == "tiebreak" else 4)  # the tie-break variants
        assert all(len(set(s)) == 1 and len(s) == 3 for s in streams.values())
        # replication: each replication's own draws, the same in every variant.
        streams = _predictor_streams(ol.spec_text(family, drawn, counts))
        assert all(len(set(s)) == 3 for s in streams.values())
        assert len({tuple(s) for s in streams.values()}) == 1
    # The families without bgl-tiebreak are left as they are.
    for family in ("failures", "balancing"):
        assert ol.spec_text(family, drawn, counts) == ol.spec_text(family, fixed, counts)
    with pytest.raises(ConfigError, match=r"--predictor-draws: unknown 'run'; accepted: "
                                          r"fixed, replication"):
        ol.check(_options(predictor_draws="run")[1])
