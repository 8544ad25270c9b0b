"""Before a paper command starts, it prints its runs and their estimated CPU time, and asks
when that is over an hour (--yes starts without asking; no terminal and no --yes: refused)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from ckptsim.cli import main
from ckptsim.errors import ConfigError
from ckptsim.experiments.estimate import format_seconds, measured_seconds
from ckptsim.experiments.execute import SerialExecutor
from ckptsim.experiments.papers.base import get_paper
from ckptsim.experiments.sweep import plan_sweep, run_sweep

SPEC = """
name = "t"
seeds = [1, 2]

[workloads.model]
generator = "lublin"
n = [60, 80]
machine = 32

[[schedulers]]
name = "easy"
"""


@pytest.mark.parametrize("seconds, text", [(0.0, "under 1 s"), (0.5, "under 1 s"),
                                           (1.0, "1 s"), (5, "5 s"), (89.4, "89 s"), (120, "2 min"),
                                           (5399, "90 min"), (5400, "1.5 h"),
                                           (36000, "10.0 h")])
def test_format_seconds(seconds, text):
    assert format_seconds(seconds) == text


def test_measured_seconds_is_the_median_of_the_stored_runs(tmp_path: Path):
    assert measured_seconds(tmp_path / "store") is None  # no store
    spec = tmp_path / "t.toml"
    spec.write_text(SPEC)
    store = tmp_path / "store"
    run_sweep(plan_sweep(spec, store), store, SerialExecutor())
    seconds, source = measured_seconds(store)
    from ckptsim.experiments.store import load_results

    rows, _ = load_results(store)
    times = sorted(r["run_seconds"] for r in rows)
    assert len(times) == 4 and seconds == pytest.approx((times[1] + times[2]) / 2)
    assert "median of 4 runs" in source


def test_a_command_is_timed_by_its_own_stored_runs(tmp_path: Path):
    """With the command's experiment names, the median is over their stored runs when there
    are at least 3 (a store shared by families of different run lengths), else the store's."""
    from ckptsim.experiments.estimate import spec_names
    from ckptsim.experiments.store import Store

    store = tmp_path / "store"
    other = SPEC.replace('name = "t"', 'name = "u"').replace("seeds = [1, 2]", "seeds = [3]")
    bigger = other.replace("n = [60, 80]", "n = [400, 500, 600]")
    for name, text in (("t", SPEC), ("u", bigger)):
        spec = tmp_path / f"{name}.toml"
        spec.write_text(text)
        run_sweep(plan_sweep(spec, store), store, SerialExecutor())
    rows = Store(store).read(verify_jobs=False).rows.values()  # every spec's runs
    times = {e: sorted(r["run_seconds"] for r in rows if r["experiment"] == e) for e in "tu"}
    assert [len(times["t"]), len(times["u"])] == [4, 3]
    assert spec_names({"a": bigger, "b": "name = [broken", "c": "seeds = [1]"}) == ["u"]
    seconds, source = measured_seconds(store, ["u"])
    assert seconds == times["u"][1]
    assert source == f"the median of 3 runs of u in {store}"
    seconds, source = measured_seconds(store, ["t", "u", "t"])
    assert seconds == pytest.approx(sorted(times["t"] + times["u"])[3])
    assert source == f"the median of 7 runs of t, u in {store}"
    seconds, source = measured_seconds(store, ["nothing-stored"])  # too few: every run
    assert seconds == pytest.approx(sorted(times["t"] + times["u"])[3])
    assert source == f"the median of 7 runs in {store}"


def test_the_survey_counts_the_runs_a_command_will_reuse(tmp_path: Path):
    from ckptsim.experiments.estimate import Survey, survey

    spec = tmp_path / "t.toml"
    spec.write_text(SPEC)
    store = tmp_path / "store"
    assert survey({"t": SPEC}, tmp_path, store) == Survey(runs=4)  # no store yet
    run_sweep(plan_sweep(spec, store), store, SerialExecutor())
    assert survey({"t": SPEC}, tmp_path, store).done == 4
    wider = SPEC.replace("seeds = [1, 2]", "seeds = [1, 2, 3]")
    # The two specs share the runs of seeds 1 and 2: 6 runs in all, 4 of them stored.
    got = survey({"t": SPEC, "u": wider}, tmp_path, store)
    assert (got.done, got.runs) == (4, 6)
    assert survey({"t": "name = [broken"}, tmp_path, store) == Survey()  # the run reports it


def test_the_survey_reads_the_store_once_for_every_spec(tmp_path: Path, monkeypatch):
    from ckptsim.experiments.estimate import survey
    from ckptsim.experiments.store import Store

    spec = tmp_path / "t.toml"
    spec.write_text(SPEC)
    store = tmp_path / "store"
    run_sweep(plan_sweep(spec, store), store, SerialExecutor())
    reads = []
    read = Store.read

    def counted(self, **kw):
        reads.append(kw)
        return read(self, **kw)

    monkeypatch.setattr(Store, "read", counted)
    wider = SPEC.replace("seeds = [1, 2]", "seeds = [1, 2, 3]")
    got = survey({"t": SPEC, "u": wider, "v": wider.replace("n = [60, 80]", "n = [90]")},
                 tmp_path, store)
    assert (got.done, got.runs) == (4, 6 + 3)
    assert len(reads) == 1


def test_survey_times_the_runs_left_by_their_configurations_on_other_seeds(tmp_path: Path):
    from ckptsim.experiments.estimate import Survey, survey
    from ckptsim.experiments.store import Store

    spec = tmp_path / "t.toml"
    spec.write_text(SPEC)
    store = tmp_path / "store"
    assert survey({"t": SPEC}, tmp_path, store) == Survey(runs=4)  # no store yet
    run_sweep(plan_sweep(spec, store), store, SerialExecutor())
    rows = Store(store).read(verify_jobs=False).rows.values()
    took = {n: [float(r["run_seconds"]) for r in rows if r["workload.n"] == n]
            for n in (60, 80)}
    assert all(len(v) == 2 for v in took.values())
    # Seed 3 of each size is left: each is expected to take its size's mean over seeds 1-2.
    wider = SPEC.replace("seeds = [1, 2]", "seeds = [1, 2, 3]")
    got = survey({"u": wider}, tmp_path, store)
    assert (got.done, got.known_runs) == (4, 2)
    assert got.known_seconds == pytest.approx(sum(sum(v) / 2 for v in took.values()))
    # A run shared by two specs counts once; a configuration never run is not known.
    other = wider.replace('name = "easy"', 'name = "fcfs"')
    got = survey({"u": wider, "v": wider, "w": other}, tmp_path, store)
    assert (got.done, got.known_runs, got.runs) == (4, 2, 6 + 6)
    assert survey({"t": SPEC}, tmp_path, store) == Survey(4, 0, 0.0, 4)  # nothing left


def test_the_estimate_adds_the_runs_timed_by_their_configurations(capsys):
    from argparse import Namespace

    from ckptsim.cli.papers import confirm_cost

    paper = get_paper("jones")
    opt = type("O", (), {"n": 400_000})()
    args = Namespace(out="nowhere", jobs=2, dask=None, yes=True, figure="fig7")
    each, _ = paper.seconds_per_run(opt)
    assert confirm_cost(paper, args, opt, 67, stored=40, known=(20, 9000.0))
    assert confirm_cost(paper, args, opt, 67, stored=40, known=(27, 900.0))
    some, every = capsys.readouterr().out.splitlines()
    expected = format_seconds(7 * each + 9000.0)
    assert some.startswith(f"67 runs (40 already in nowhere/store, reused; 27 to run), about "
                           f"{expected} of CPU (20 of them as their configurations took on "
                           "other seeds in nowhere/store, the other 7 at ")
    assert "about 15 min of CPU (27 of them as their configurations took" in every
    assert "every one" in every
    # A paper without its own measurement is still timed when every run left is known.
    from types import SimpleNamespace

    bare = SimpleNamespace(name="bare", seconds_per_run=lambda opt: None)
    assert confirm_cost(bare, args, None, 10, stored=4, known=(6, 120.0))
    assert "about 2 min of CPU" in capsys.readouterr().out


def test_the_estimate_counts_only_the_runs_left(capsys, monkeypatch):
    import os
    from argparse import Namespace

    from ckptsim.cli.papers import confirm_cost

    monkeypatch.setattr(os, "cpu_count", lambda: 2)

    paper = get_paper("jones")
    opt = type("O", (), {"n": 400_000})()
    args = Namespace(out="nowhere", jobs=2, dask=None, yes=True, figure="fig7")
    assert confirm_cost(paper, args, opt, 67)
    assert confirm_cost(paper, args, opt, 67, stored=40)
    assert confirm_cost(paper, args, opt, 67, stored=67)
    each, _ = paper.seconds_per_run(opt)
    whole, part, none = capsys.readouterr().out.splitlines()
    assert whole.startswith(f"67 runs, about {format_seconds(67 * each)} of CPU")
    assert part.startswith("67 runs (40 already in nowhere/store, reused; 27 to run), "
                           f"about {format_seconds(27 * each)} of CPU")
    assert none == "67 runs (67 already in nowhere/store, reused; 0 to run)"
    # Where the runs go: local processes, a local Dask cluster's workers, a remote cluster.
    for dask, where in ((None, f"; about {format_seconds(67 * each / 2)} on 2 processes;"),
                        ("local", f"; about {format_seconds(67 * each / 2)} on a Dask "
                                  f"LocalCluster of 2 workers;"),
                        ("tcp://h:8786", "; on the Dask cluster at tcp://h:8786: that CPU "
                                         "time over its workers;")):
        args.dask = dask
        assert confirm_cost(paper, args, opt, 67)
        assert where in capsys.readouterr().out


def test_papers_scale_their_measurement_with_the_size():
    from ckptsim.experiments.papers.jones import RUN_SECONDS as JONES

    jones = get_paper("jones")

    def jones_at(n):
        return jones.seconds_per_run(type("O", (), {"n": n})())[0]

    # At a measured size, the mean of its two kinds of run; between two, on the line joining
    # them; beyond the largest and below the smallest, at their seconds per job.
    for n, co, ctmr in JONES:
        assert jones_at(n) == pytest.approx((co + ctmr) / 2)
    (a, *ta), (b, *tb) = JONES[-2:]
    middle = (sum(ta) + sum(tb)) / 4
    assert jones_at((a + b) // 2) == pytest.approx(middle)
    assert jones_at(2 * b) == pytest.approx(2 * sum(tb) / 2)
    assert jones_at(JONES[0][0] // 2) == pytest.approx(sum(JONES[0][1:]) / 4)
    assert 40 < jones_at(400_000) < 90 and jones_at(2_000) < 0.5
    assert [jones_at(n) for n, *_ in JONES] == sorted(jones_at(n) for n, *_ in JONES)
    from ckptsim.experiments.papers.forshaw import (
        SHORT_SECONDS,
        TRACE_SECONDS,
        YEAR_SECONDS,
        run_seconds,
    )
    from ckptsim.experiments.papers.forshaw.experiments import (
        FAMILIES,
        TRACE_DAYS,
        Options,
        runs_of,
    )

    forshaw = get_paper("forshaw")
    # A family is timed by its own runs: measured at 2 days and at a year, linear between.
    for family in ("baseline", "interarrival"):
        year, what = forshaw.seconds_per_run(Options(days=365, figure=family))
        assert year == pytest.approx(YEAR_SECONDS[family]) and family in what
        short, _ = forshaw.seconds_per_run(Options(days=2, figure=family))
        assert short == pytest.approx(SHORT_SECONDS[family])
        steps = [run_seconds(family, d) for d in (2, 123, 244, 365)]  # 121 days apart
        assert steps == sorted(steps) and steps[1] - steps[0] == pytest.approx(
            steps[2] - steps[1]) and steps[3] - steps[2] == pytest.approx(steps[1] - steps[0])
        assert run_seconds(family, 1) == short  # below the shortest measurement: its time
    fig12, _ = forshaw.seconds_per_run(Options(days=365, figure="fig12"))
    assert fig12 == pytest.approx(YEAR_SECONDS["interarrival"])
    year, what = forshaw.seconds_per_run(Options(days=365))
    counts = {f: runs_of(f, Options(days=365)) for f in FAMILIES}
    assert year == pytest.approx(sum(run_seconds(f, 365) * n for f, n in counts.items())
                                 / sum(counts.values()))
    assert "together" in what
    # The trace figure runs the trace's days whatever --days says, and says so.
    trace, what = forshaw.seconds_per_run(Options(days=7, figure="trace"))
    assert trace == TRACE_SECONDS and what == (
        f"the trace figure's runs, measured at its {TRACE_DAYS} days")  # not at 2 days, a year
    _, what = forshaw.seconds_per_run(Options(days=7, figure="all"))
    assert what == ("the families' runs together, measured at 2 days and at a year (the trace "
                    f"figure's at its {TRACE_DAYS} days), at 7 days")
    assert forshaw.detail(Options(days=7, figure="trace")).startswith(f" ({TRACE_DAYS} days")
    # docs/experiments.md quotes these (it had kept the trace figure's earlier 1.8 s)
    week, _ = forshaw.seconds_per_run(Options(days=7))
    text = " ".join((Path(__file__).resolve().parents[1] / "docs" / "experiments.md")
                    .read_text().split())
    assert (f"`all`: the families' runs together, {week:.1f} s a run at the page's 7 days, "
            f"{year:.0f} s at a year), the trace figure's {TRACE_SECONDS:.1f} s at its "
            f"{TRACE_DAYS} days") in text
    assert forshaw.detail(Options(days=7, figure="fig6")).startswith(" (7 days")
    # oliner times each workload by its own runs: the mean over those a command runs, each
    # scaled by --first over its own jobs.
    from ckptsim.experiments.estimate import TRACE_JOBS
    from ckptsim.experiments.papers.oliner import FIXED_SECONDS, RUN_SECONDS
    from ckptsim.experiments.papers.oliner.experiments import TRACES as OLINER_TRACES

    JOBS = {t: TRACE_JOBS[f] for t, f in OLINER_TRACES.items()}
    from ckptsim.experiments.papers.oliner.experiments import Options as OlinerOptions

    oliner = get_paper("oliner")
    each, what = oliner.seconds_per_run(OlinerOptions(traces=("NASA", "LUBLIN-256")))
    assert each == pytest.approx((RUN_SECONDS["NASA"] + RUN_SECONDS["LUBLIN-256"]) / 2)
    assert "SDSC" not in what and "NASA 0.67 s" in what
    assert oliner.seconds_per_run(OlinerOptions(traces=("SDSC",)))[0] > 3 * each
    sliced, what = oliner.seconds_per_run(OlinerOptions(traces=("SDSC", "LUBLIN-256"),
                                                        first=10_000))
    fixed = FIXED_SECONDS["SDSC"]
    assert sliced == pytest.approx((fixed + (RUN_SECONDS["SDSC"] - fixed) * 10_000 / JOBS["SDSC"]
                                    + RUN_SECONDS["LUBLIN-256"]) / 2)
    assert what.endswith("scaled to --first above a fixed part")
    # A run of a few jobs still costs its fixed part (the trace, the failures, the torus).
    tiny, _ = oliner.seconds_per_run(OlinerOptions(traces=("NASA",), first=1))
    assert FIXED_SECONDS["NASA"] < tiny < 1.01 * FIXED_SECONDS["NASA"]


def test_shi_times_its_lublin_and_trace_runs_apart(capsys):
    from argparse import Namespace

    from ckptsim.cli.papers import confirm_cost
    from ckptsim.experiments.papers.shi import experiments as shi
    from ckptsim.experiments.papers.shi.figures import CASES

    paper = get_paper("shi")

    def each(figure, **options):
        return paper.seconds_per_run(shi.Options(figure=figure, **options))[0]

    lublin, (sdsc, kth) = shi.LUBLIN_SECONDS, shi.TRACE_SECONDS.values()
    assert each("fig16") == pytest.approx(lublin)
    assert each("traces") == pytest.approx((sdsc + kth) / 2)
    models = shi.runs_of("all", shi.Options()) - 2 * len(CASES)
    assert models == 30 * len(CASES)
    k = len(CASES)
    assert each("all") == pytest.approx((models * lublin + k * (sdsc + kth)) / (models + 2 * k))
    # --first sets the Lublin workloads' jobs and cuts the traces.
    cut = each("all", n=5_000, first=5_000)
    assert cut == pytest.approx((models * lublin / 2 + k * (sdsc * 5_000 / 54_044
                                                            + kth * 5_000 / 28_475))
                                / (models + 2 * k))
    # The command prints the estimate, not the runs alone.
    opt = shi.Options(figure="traces")
    args = Namespace(out="nowhere", jobs=2, dask=None, yes=False, figure="traces")
    assert confirm_cost(paper, args, opt, 8)
    assert capsys.readouterr().out.startswith(
        f"8 runs, about {format_seconds(8 * each('traces'))} of CPU (")


def test_niu_counts_and_times_its_sweeps(tmp_path, capsys):
    from argparse import Namespace

    from ckptsim.cli.papers import confirm_cost
    from ckptsim.experiments.estimate import TRACE_JOBS, planned
    from ckptsim.experiments.papers.niu import RUN_SECONDS, Options
    from ckptsim.experiments.papers.niu.experiments import TRACES

    paper = get_paper("niu")
    opt = Options(trace_dir=tmp_path)
    assert paper.runs_of("fig4", opt) is None  # no traces there: the figure's run says so
    import gzip

    for k, name in enumerate(TRACES.values()):  # a few jobs each (runs name their content)
        (tmp_path / name).write_bytes(gzip.compress("".join(
            f"{i} {10 * i} 0 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n"
            for i in range(1, 3 + k)).encode()))
    specs = paper.specs("all", opt)
    assert sorted(specs) == ["fig4", "fig6", "fig7", "readings"]
    runs = paper.runs_of("all", opt)
    assert runs > 0 and runs == sum(len(p.runs) for p in planned(specs, tmp_path).values())
    assert paper.runs_of("all", opt) == paper.runs_of("fig4", opt) + paper.runs_of(
        "fig6", opt) + paper.runs_of("fig7", opt) + paper.runs_of("readings", opt)
    assert paper.runs_of("fig1", opt) is None  # computed from the traces: timed as it goes
    each, what = paper.seconds_per_run(opt)
    assert each == pytest.approx(sum(RUN_SECONDS.values()) / len(RUN_SECONDS))
    assert "CEA-Curie 4.42 s" in what
    cut, what = paper.seconds_per_run(Options(traces=("HPC2N",), first=20_000))
    assert cut == pytest.approx(RUN_SECONDS["HPC2N"] * 20_000 / TRACE_JOBS[TRACES["HPC2N"]])
    windows, what = paper.seconds_per_run(Options(traces=("HPC2N",), windows=3))
    assert windows == pytest.approx(RUN_SECONDS["HPC2N"] / 2) and what.endswith("windows")
    args = Namespace(out=str(tmp_path), jobs=2, dask=None, yes=False, figure="all")
    assert confirm_cost(paper, args, opt, 180, stored=72)
    assert capsys.readouterr().out.startswith(
        f"180 runs (72 already in {tmp_path}/store, reused; 108 to run), "
        f"about {format_seconds(108 * each)} of CPU")


def test_a_long_command_without_a_terminal_is_refused_naming_yes(tmp_path, capsys,
                                                                 monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    out = tmp_path / "out"
    assert main(["paper", "jones", "fig7", "--full", "--out", str(out)]) == 2
    captured = capsys.readouterr()
    each, _ = get_paper("jones").seconds_per_run(type("O", (), {"n": 400_000})())
    assert 67 * each > 3600  # over the hour above which the command asks
    assert f"67 runs, about {format_seconds(67 * each)} of CPU" in captured.out
    assert "--yes" in captured.err and format_seconds(67 * each) in captured.err
    assert not (out / "store").exists()  # nothing started


def test_runs_two_families_share_are_counted_once(tmp_path, capsys, monkeypatch):
    # forshaw's families share their None and Opt runs: `all` at a year is 12,000 runs
    # family by family, 10,000 distinct ones, and the command counts and times those.
    from ckptsim.experiments.papers.forshaw.experiments import Options

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    out = tmp_path / "out"
    forshaw = get_paper("forshaw")
    assert forshaw.runs_of("all", Options(days=365, replications=50)) == 12_000
    assert main(["paper", "forshaw", "all", "--full", "--out", str(out)]) == 2
    line = capsys.readouterr().out.splitlines()[0]
    each, _ = forshaw.seconds_per_run(Options(days=365))
    assert line.startswith(f"10,000 runs, about {format_seconds(10_000 * each)} of CPU")
    assert not (out / "store").exists()


def test_a_long_command_asks_and_stops_on_no(tmp_path, capsys, monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr("sys.stdin", Terminal("n\n"))
    out = tmp_path / "out"
    assert main(["paper", "jones", "fig7", "--full", "--out", str(out)]) == 1
    assert "not started" in capsys.readouterr().out
    assert not (out / "store").exists()


def test_yes_skips_the_question(monkeypatch):
    from argparse import Namespace

    from ckptsim.cli.papers import confirm_cost

    def ask(prompt: str) -> str:
        raise AssertionError("asked")

    monkeypatch.setattr("builtins.input", ask)
    paper = get_paper("jones")
    opt = type("O", (), {"n": 400_000})()
    args = Namespace(out="nowhere", jobs=2, dask=None, yes=True, figure="fig7")
    assert confirm_cost(paper, args, opt, 67)
    args.yes = False
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    with pytest.raises(ConfigError) as err:
        confirm_cost(paper, args, opt, 67)
    assert err.value.key == "--yes"
    # Under an hour: no question, whatever the terminal.
    assert confirm_cost(paper, args, type("O", (), {"n": 1_000})(), 67)


@pytest.mark.parametrize(("args", "key"), [
    (["jones", "fig7", "--replications", "0"], "--replications"),
    (["jones", "fig7", "--per-cluster", "0"], "--per-cluster"),
    (["shi", "fig16", "--ci-seeds", "1"], "--ci-seeds"),
    (["forshaw", "fig4", "--replications", "1"], "--replications"),
    (["oliner", "fig3", "--traces", "NASA", "--trace-dir", "{tmp}"], "--trace-dir"),
])
def test_a_bad_option_is_refused_before_the_runs_are_counted(args, key, tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["paper", *(a.format(tmp=tmp_path) for a in args), "--out", str(out)]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # no count, no estimate of runs that cannot start
    assert key in captured.err
    assert list(out.iterdir()) == []  # the folder is made first (a bad --out fails at once)


def test_the_trace_sizes_the_estimates_scale_by_are_the_loaded_ones():
    from helpers import trace

    from ckptsim.experiments.estimate import TRACE_JOBS
    from ckptsim.workload.source import load_workload

    for name, jobs in TRACE_JOBS.items():
        assert len(load_workload(str(trace(name)))) == jobs, name


@pytest.mark.parametrize(("jobs", "dask", "share", "where"), [
    (0, None, 1, "in this process"),
    (1, None, 1, "on 1 process"),
    (2, None, 2, "on 2 processes"),
    (8, None, 2, "on 8 processes (2 cores)"),  # more processes than cores share them
    (None, None, 2, "on 2 processes"),
    (0, "local", 2, "on a Dask LocalCluster of 2 workers"),  # as `ckptsim sweep` runs it
    (None, "local", 2, "on a Dask LocalCluster of 2 workers"),
    (1, "local", 1, "on a Dask LocalCluster of 1 worker"),
    (8, "local", 2, "on a Dask LocalCluster of 8 workers (2 cores)"),
])
def test_the_estimate_divides_among_the_processes_that_run(jobs, dask, share, where, capsys,
                                                           monkeypatch):
    import os
    from argparse import Namespace

    from ckptsim.cli.papers import confirm_cost

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    paper = get_paper("jones")
    opt = type("O", (), {"n": 100_000})()
    args = Namespace(out="nowhere", jobs=jobs, dask=dask, yes=True, figure="fig7")
    assert confirm_cost(paper, args, opt, 40)
    each, _ = paper.seconds_per_run(opt)
    assert f"; about {format_seconds(40 * each / share)} {where}; " in capsys.readouterr().out


def test_an_estimate_under_a_second_is_not_about(capsys, monkeypatch):
    import os
    from argparse import Namespace

    from ckptsim.cli.papers import confirm_cost
    from ckptsim.experiments.estimate import about

    assert (about(0.4), about(1.0), about(120)) == ("under 1 s", "about 1 s", "about 2 min")
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    paper = get_paper("jones")
    opt = type("O", (), {"n": 10})()
    for jobs, where in ((None, "under 1 s on 2 processes"), (0, "under 1 s in this process")):
        args = Namespace(out="nowhere", jobs=jobs, dask=None, yes=True, figure="fig7")
        assert confirm_cost(paper, args, opt, 3)
        out = capsys.readouterr().out
        assert out.startswith("3 runs, under 1 s of CPU (") and f"; {where}; " in out
        assert "about under" not in out


def test_forshaw_says_one_day_not_one_days():
    from types import SimpleNamespace

    forshaw = get_paper("forshaw")
    opt = SimpleNamespace(figure="fig4", days=1, platform="newcastle", replications=2,
                          startdelay_first="interval", durations=None)
    assert forshaw.detail(opt) == " (1 day of the newcastle pool, 2 replications)"
    assert forshaw.seconds_per_run(opt)[1].endswith(", at 1 day")
    assert forshaw.detail(SimpleNamespace(**{**vars(opt), "days": 2})).startswith(" (2 days ")


def test_forshaw_times_the_trace_runs_as_measured():
    # docs/results/forshaw.md: "The 90 runs took 291 s of run time" (the trace figure at 10
    # replications): the estimate of the same command agrees within a factor of 1.5.
    import re

    from ckptsim.experiments.papers.forshaw import run_seconds

    page = (Path(__file__).resolve().parents[1] / "docs" / "results" / "forshaw.md").read_text()
    runs, seconds = map(int, re.search(r"The (\d+) runs took (\d+) s of run time", page).groups())
    assert 1 / 1.5 < runs * run_seconds("trace", 7) / seconds < 1.5


@pytest.mark.parametrize(("name", "argv", "runs", "line"), [
    ("jones", ["all", "--per-cluster", "10000", "--replications", "5"], 1505,
     "--per-cluster 10000 --replications 5 --yes # the earlier size, 5 seeds: estimated at "
     "{about} of CPU"),
    ("shi", ["all"], 128, "# 128 runs, estimated at {about} of CPU"),
    ("niu", ["all"], 150, "`all` is estimated at {about} of CPU for its 150 sweep runs"),
])
def test_the_pages_quote_the_estimates_the_commands_print(name, argv, runs, line):
    # A page states what the command prints, never a hand-tuned figure.
    import argparse

    from ckptsim.cli import build_parser
    from ckptsim.cli.papers import check_options
    from ckptsim.experiments.estimate import about

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    args = sub.choices["paper"].parse_args([name, *argv, "--out", "x"])
    check_options(args)
    paper = get_paper(name)
    each, _ = paper.seconds_per_run(paper.options(args))
    page = (Path(__file__).resolve().parents[1] / "docs" / "results" / f"{name}.md").read_text()
    assert line.format(about=about(runs * each)) in " ".join(page.split())
