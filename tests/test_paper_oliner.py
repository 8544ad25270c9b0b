"""Seed 004's figures: every family runs end to end on small slices of the three workloads with
the real LANL failure log (skipped when ../shared/data is absent)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from helpers import TRACES, trace

from ckptsim.cli import main
from ckptsim.errors import ConfigError
from ckptsim.experiments.papers.oliner import experiments as oliner
from ckptsim.experiments.sweep import plan_sweep

LOG = TRACES.parent / "failures" / "lanl_cfdr" / "LA-UR-05-7318-failure-data-1996-2005.csv.gz"


def needs_data() -> None:
    for name in oliner.TRACES.values():
        trace(name)
    if not LOG.exists():
        pytest.skip(f"real failure data not available: {LOG} is missing")


def read(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(open(path)))


@pytest.fixture(scope="module")
def figures(tmp_path_factory):
    needs_data()
    out = tmp_path_factory.mktemp("oliner")
    common = ["--out", str(out), "--trace-dir", str(TRACES), "--first", "150", "--levels", "0",
              "0.5", "1", "--replications", "2", "--jobs", "2"]
    assert main(["paper", "oliner", "all", "--counts", "0", "300", *common]) == 0
    assert main(["paper", "oliner", "options", *common]) == 0
    return out


@pytest.mark.slow  # the figures fixture runs every family (~40 s)
def test_every_figure_writes_csv_and_png(figures):
    for figure in (*oliner.FIGURES, "options"):
        assert read(figures / f"{figure}.csv"), figure
        assert (figures / f"{figure}.png").stat().st_size > 10_000
    for family in oliner.FAMILIES:
        assert (figures / f"{family}.toml").exists()
    # Two replications: every point has its spread, capacity included.
    for r in read(figures / "fig7.csv"):
        assert r["seeds"] == "2"
        assert all(r[f"{m}_ci95"] != "" for m in oliner.SPREAD)


@pytest.mark.slow  # the figures fixture runs every family (~40 s)
def test_options_share_the_default_runs_and_cover_every_variant(figures):
    from ckptsim.experiments.papers.oliner.variants import VARIANTS

    rows = read(figures / "options.csv")
    assert {r["variant"] for r in rows} == {label for label, _, _ in VARIANTS}
    assert {float(r["load_scale"]) for r in rows} == {1.0}
    # The default variants are the runs of Figs. 6 and 9 at c = 1.0.
    fig6 = {(r["trace"], float(r["confidence"])): r["mean_response_bsld"]
            for r in read(figures / "fig6.csv") if float(r["load_scale"]) == 1.0}
    for r in rows:
        if r["variant"] == VARIANTS[0][0]:
            assert r["mean_response_bsld"] == fig6[(r["trace"], float(r["level"]))]
    # Without prediction (a = 0) every variant gives the same schedule.
    for t in oliner.TRACES:
        assert len({r["mean_response_bsld"] for r in rows
                    if r["trace"] == t and float(r["level"]) == 0.0}) == 1


@pytest.mark.slow  # the figures fixture runs every family (~40 s)
def test_failure_sweep_counts_and_zero_failures(figures):
    rows = read(figures / "fig4.csv")
    assert {r["trace"] for r in rows} == set(oliner.TRACES)
    assert {float(r["load_scale"]) for r in rows} == {1.0, 1.2}
    for r in rows:
        assert float(r["failures"]) == float(r["failure_count"])
    # Without failures the fault-aware scheduler is bgl-fcfs whatever its confidence.
    for t in oliner.TRACES:
        for c in (1.0, 1.2):
            zero = {float(r["mean_response_bsld"]) for r in rows if r["trace"] == t
                    and float(r["load_scale"]) == c and float(r["failure_count"]) == 0}
            assert len(zero) == 1


@pytest.mark.slow  # the figures fixture runs every family (~40 s)
def test_level_sweeps_use_the_seed_counts_and_capacity_adds_up(figures):
    for figure in ("fig6", "fig9"):
        for r in read(figures / f"{figure}.csv"):
            assert float(r["failure_count"]) == oliner.FAILURE_COUNTS[r["trace"]]
    for figure, trace_name in oliner.CAPACITY_TRACE.items():
        rows = read(figures / f"{figure}.csv")
        assert {r["trace"] for r in rows} == {trace_name}
        for r in rows:
            total = sum(float(r[m]) for m in ("capacity_utilized", "capacity_unused",
                                               "capacity_lost"))
            assert total == pytest.approx(1.0, abs=1e-4)
    fig5 = read(figures / "fig5.csv")
    assert {r["trace"] for r in fig5} == {"SDSC"} and {r["confidence"] for r in fig5} == {"0.1"}


@pytest.mark.slow  # the figures fixture runs every family (~40 s)
def test_rerun_reuses_the_store_and_gives_the_same_csv(figures, capsys):
    before = (figures / "fig9.csv").read_bytes()
    assert main(["paper", "oliner", "tiebreak", "--out", str(figures), "--trace-dir",
                 str(TRACES), "--first", "150", "--levels", "0", "0.5", "1",
                 "--replications", "2"]) == 0
    assert "0 runs simulated" in capsys.readouterr().out
    assert (figures / "fig9.csv").read_bytes() == before


def test_specs_hold_the_seed_grid(tmp_path):
    needs_data()
    opt = oliner.Options(trace_dir=TRACES)
    sizes = {"failures": 3 * 2 * 9 * 3, "balancing": 3 * 2 * 11, "tiebreak": 3 * 2 * 11,
             "options": 3 * 1 * 11 * 9}
    ids = {}
    for family, n in sizes.items():
        path = tmp_path / f"{family}.toml"
        path.write_text(oliner.spec_text(family, opt))
        runs = plan_sweep(path, trace_dir=TRACES).runs
        assert len(runs) == n
        assert oliner.runs_of(family, opt) == n
        # Every workload is scheduled with exact estimates (alpha = 0) by default.
        assert {r.columns["workload.alpha"] for r in runs} == {0.0}
        ids[family] = {r.run_id for r in runs}
    # Families share runs: a run of two families is counted once, as the sweeps run it.
    from ckptsim.experiments.estimate import survey
    from ckptsim.experiments.papers.base import get_paper

    paper = get_paper("oliner")
    for figure, families in (("all", ("failures", "balancing", "tiebreak")),
                             ("balancing", ("balancing",))):
        union = set().union(*(ids[f] for f in families))
        assert survey(paper.specs(figure, opt), TRACES, tmp_path / "store").runs == len(union)
    assert len(set().union(*ids.values())) == 3 * (2 * 9 * 3 + 2 * 11 * 2 + 11 * 9) - 3 * (
        2 * 3 + 11 * 2)  # failures' levels 0, 0.1, 0.9 at the seed's count; options' defaults
    ten = oliner.Options(trace_dir=TRACES, replications=10)
    assert survey(paper.specs("all", ten), TRACES, tmp_path / "store").runs == 2760
    path = tmp_path / "requested.toml"
    path.write_text(oliner.spec_text("balancing", oliner.Options(trace_dir=TRACES,
                                                                 estimates="requested")))
    assert all("workload.alpha" not in r.columns for r in plan_sweep(path, trace_dir=TRACES).runs)


def test_log_rate_counts_follow_the_failure_log():
    needs_data()
    # LANL system 20: 2,478 failures of its 512 nodes (400 of which fail at least once) over
    # the 1,358.9 days between its first and last failure: 0.00356 failures per node-day,
    # 0.456 a day on 128 supernodes.
    opt = oliner.Options(trace_dir=TRACES, rate="log")
    rate = oliner.log_rate(opt)
    assert rate == pytest.approx(2478 / (512 * 1358.894), rel=1e-4)
    counts = oliner.level_counts(opt)
    days = oliner._span_days(opt)
    for t, count in counts.items():
        assert count == round(rate * 128 * days[t])
    assert 300 < counts["SDSC"] < 360 and counts["NASA"] < 50
    assert oliner.level_counts(oliner.Options(trace_dir=TRACES)) == oliner.FAILURE_COUNTS


def test_bad_arguments(tmp_path, capsys):
    with pytest.raises(ConfigError, match="unknown figure 'fig11'"):
        oliner.family_of("fig11")
    assert main(["paper", "oliner", "fig11", "--out", str(tmp_path)]) == 2
    assert "accepted: failures, balancing, tiebreak, options, fig3" in capsys.readouterr().err
    with pytest.raises(ConfigError, match="--trace-dir"):
        oliner.run_figures("fig3", tmp_path, oliner.Options(trace_dir=tmp_path))
    needs_data()
    with pytest.raises(ConfigError, match="--failure-log"):
        oliner.run_figures("fig3", tmp_path, oliner.Options(
            trace_dir=TRACES, failure_log=tmp_path / "none.csv"))
    with pytest.raises(ConfigError, match="unknown trace 'LLNL'"):
        oliner.run_figures("fig3", tmp_path, oliner.Options(trace_dir=TRACES,
                                                            traces=("LLNL",)))
    with pytest.raises(ConfigError, match="--levels"):
        oliner.run_figures("fig6", tmp_path, oliner.Options(trace_dir=TRACES, levels=(1.5,)))
    for loads in ((float("inf"),), (float("nan"),), (0.0,)):
        with pytest.raises(ConfigError, match=r"--loads: values must lie in \(0, 1000\]"):
            oliner.run_figures("fig6", tmp_path, oliner.Options(trace_dir=TRACES, loads=loads))
    with pytest.raises(ConfigError, match="--estimates"):
        oliner.run_figures("fig6", tmp_path, oliner.Options(trace_dir=TRACES, estimates="x"))
    with pytest.raises(ConfigError, match="--failure-rate"):
        oliner.run_figures("fig6", tmp_path, oliner.Options(trace_dir=TRACES, rate="x"))


@pytest.mark.parametrize("system", ["99999", "-1"])
def test_a_system_not_in_the_failure_log_is_refused_before_any_run(system, tmp_path, capsys):
    needs_data()
    out = tmp_path / "out"
    assert main(["paper", "oliner", "fig3", "--out", str(out), "--trace-dir", str(TRACES),
                 "--system", system, "--first", "100", "--counts", "500", "--traces", "NASA",
                 "--loads", "1"]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"ckptsim: error: --system: no system {system} in the "
                                   f"failure log {LOG.resolve()}; accepted: 2 (49 nodes), ")
    assert "20 (512 nodes)" in captured.err and "7 (1 node)," in captured.err
    assert captured.err.count("\n") == 1
    assert "run" not in captured.out  # no estimate, nothing run
    assert not (out / "store").exists()


def test_the_system_option_names_the_logs_node_count(capsys):
    # System 20 of the LANL records has 512 nodes, 400 of which fail at least once; the
    # option's help says so (the log rate divides by the 512).
    needs_data()
    from ckptsim.failures.readers import lanl_systems, read_lanl_cfdr

    nodes = lanl_systems(LOG)[20][0]
    failing = len(set(read_lanl_cfdr(LOG, system=20).node.tolist()))
    with pytest.raises(SystemExit):
        main(["paper", "oliner", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"default 20: {nodes} nodes, {failing} of which fail" in text
