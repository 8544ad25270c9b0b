"""Seed 000's figures: every figure runs end to end on small slices of two real traces."""

from __future__ import annotations

import csv

import pytest
from helpers import TRACES, trace

from ckptsim.cli import main
from ckptsim.errors import ConfigError
from ckptsim.experiments.papers.niu.experiments import TRACES as TRACE_FILES
from ckptsim.experiments.papers.niu.experiments import run_figure, spec_text

SLICE = ["CTC-SP2", "CEA-Curie"]


@pytest.mark.parametrize("figure", ["fig1", "fig2", "fig4", "fig5", "fig6", "fig7", "readings"])
def test_figure_writes_csv_and_png(figure, tmp_path):
    for name in SLICE:
        trace(TRACE_FILES[name])
    out = run_figure(figure, tmp_path, trace_dir=TRACES, traces=SLICE, first=600, jobs=2)
    rows = list(csv.DictReader(open(out.csv)))
    assert rows and out.png.stat().st_size > 10_000
    assert {r["trace"] for r in rows} == set(SLICE)
    if figure == "fig1":
        days = [int(r["day"]) for r in rows if r["trace"] == "CTC-SP2"]
        assert days == list(range(days[0], days[0] + len(days)))
    if figure == "fig2":
        shares = list(csv.DictReader(open(tmp_path / "fig2_shares.csv")))
        assert [r["trace"] for r in shares] == [*SLICE, "all"]
        assert int(shares[-1]["jobs"]) == sum(int(r["jobs"]) for r in shares[:-1])
    if figure == "readings":
        from ckptsim.experiments.papers.niu.experiments import READINGS

        assert {r["reading"] for r in rows} == {"classical", *(lab for lab, _ in READINGS)}
        for r in rows:
            assert sum(int(r[f"jobs_{c}"]) for c in ("small", "medium", "large", "wide")) == 600
            if r["reading"] == "classical":
                assert float(r["preempt_ratio"]) == 0.0
    if figure == "fig4":
        # Normalised to classical EASY; p = 1 without overhead plans like EASY (the slices have
        # jobs that outrun their estimates, so it need not be exactly 1).
        assert {r["variant"] for r in rows} >= {"classical-actual", "p=0.1", "p=1"}
        assert all(float(r["easy_mean_wait"]) > 0 for r in rows if r["trace"] == "CTC-SP2")
    if figure == "fig7":
        no_ovh = [r for r in rows if r["variant"] == "no overhead"]
        assert all(float(r["wasted_ratio"]) == 0.0 for r in no_ovh)


def test_fig1_uses_the_schedule_the_log_records():
    import dataclasses

    from helpers import jobs

    from ckptsim.experiments.papers.niu.experiments import logged_daily
    from ckptsim.workload.model import SWF_INDEX

    day = 86400.0
    # Machine 4. The log says: job 1 (2 nodes) submitted at 0, started at once, ran a day; job
    # 2 (4 nodes) submitted at 0.5 day waited half a day, then ran half a day.
    w = jobs([(0, day, 2, day), (0.5 * day, 0.5 * day, 4, day)], 4)
    fields = w.fields.copy()
    fields[:, SWF_INDEX["wait_time"]] = [0, 0.5 * day]
    d = logged_daily(dataclasses.replace(w, fields=fields))
    assert d["day"] == [0, 1]
    # Day 0: 2 of 4 nodes busy all day; job 2 waits the second half.
    assert d["utilization"][0] == 0.5 and d["queue_length"][0] == 0.5
    # Day 1 (the span ends at 1.5 days): job 2 on 4 nodes for half a day, nothing waits.
    assert d["utilization"][1] == 1.0 and d["queue_length"][1] == 0.0
    # A missing wait (-1) counts as none.
    fields[:, SWF_INDEX["wait_time"]] = -1
    assert logged_daily(dataclasses.replace(w, fields=fields))["queue_length"] == [0.0]


def test_specs_are_valid_sweeps(tmp_path):
    from ckptsim.experiments.sweep import plan_sweep

    trace("CTC-SP2-1996-3.1-cln.swf.gz")
    for figure, runs in (("fig4", 2 * 12), ("fig6", 2 * 6), ("fig7", 2 * 6),
                         ("readings", 2 * 6)):
        path = tmp_path / f"{figure}.toml"
        path.write_text(spec_text(figure, ["CTC-SP2", "KTH-SP2"]))
        assert len(plan_sweep(path, trace_dir=TRACES).runs) == runs


def test_bad_arguments(tmp_path, capsys):
    with pytest.raises(ConfigError, match="unknown trace 'ANL'"):
        run_figure("fig4", tmp_path, trace_dir=TRACES, traces=["ANL"])
    with pytest.raises(ConfigError, match="--trace-dir"):
        run_figure("fig4", tmp_path, trace_dir=tmp_path)
    assert main(["paper", "niu", "fig2", "--out", str(tmp_path), "--trace-dir",
                 str(tmp_path)]) == 2
    assert "missing" in capsys.readouterr().err


def test_all_writes_every_figure_into_one_folder_that_claims_can_grade(tmp_path, capsys):
    """`niu all --out DIR` leaves every figure's CSV and one store in DIR, as the other papers
    do, so that `claims --out DIR` and `results DIR/store` read them where they are."""
    trace(TRACE_FILES["KTH-SP2"])
    out = tmp_path / "niu"
    argv = ["paper", "niu", "all", "--traces", "KTH-SP2", "--first", "400", "--jobs", "1",
            "--trace-dir", str(TRACES), "--out", str(out)]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert "runs simulated" in first
    for name in ("fig1", "fig2", "fig4", "fig5", "fig6", "fig7", "readings"):
        assert (out / f"{name}.csv").is_file()
    assert (out / "store").is_dir() and not (out / "fig4").exists()
    # Again: every sweep run is found in the one store.
    assert main(argv) == 0
    again = capsys.readouterr().out
    assert "0 runs simulated" in again and f"already in {out / 'store'}" in again
    assert main(["paper", "niu", "claims", "--out", str(out), "--csv",
                 str(tmp_path / "c.csv")]) == 0
    verdicts = {r["verdict"] for r in csv.DictReader(open(tmp_path / "c.csv"))}
    assert verdicts - {"not-run"}  # graded from the folder's CSVs


@pytest.mark.parametrize("figure", ["fig4", "all", "fig1"])
@pytest.mark.parametrize("trace", ["FOO", "ctc-sp2"])
def test_an_unknown_trace_is_one_line_for_every_figure(tmp_path, capsys, figure, trace):
    """A swept figure (fig4, all) planned its runs before the check and raised KeyError."""
    assert main(["paper", "niu", figure, "--out", str(tmp_path), "--traces", trace]) == 2
    err = capsys.readouterr().err
    near = " (did you mean 'CTC-SP2'?)" if trace == "ctc-sp2" else ""
    assert err.startswith(f"ckptsim: error: --traces: unknown trace '{trace}'{near}; accepted: ")
    assert err.count("\n") == 1
