"""`ckptsim sweep / results / report` end to end, and the statistics behind the tables."""

from __future__ import annotations

import csv
import io
import math

import pytest

from ckptsim.cli import main
from ckptsim.experiments import results as res
from ckptsim.experiments.execute import SerialExecutor
from ckptsim.experiments.stats import T975, mean_ci, t975
from ckptsim.experiments.store import load_results
from ckptsim.experiments.sweep import plan_sweep, run_sweep

SPEC = """
name = "cli"
description = "a small campaign"
seeds = [1, 2, 3]
metrics = ["mean_wait", "mean_bsld"]

[workloads.model]
generator = "lublin"
n = [100, 200]
machine = 64

[[schedulers]]
name = "fcfs"

[[schedulers]]
name = "easy"

[[figures]]
name = "wait-by-n"
x = "n"
y = "mean_wait"
group_by = "scheduler"
title = "Mean wait"

[[figures]]
name = "bsld-bars"
kind = "bar"
x = "scheduler"
y = "mean_bsld"
facet_by = "n"
"""


@pytest.fixture
def spec(tmp_path):
    path = tmp_path / "cli.toml"
    path.write_text(SPEC)
    return path


@pytest.fixture
def store(spec, tmp_path, capsys):
    out = tmp_path / "store"
    assert main(["sweep", str(spec), "--out", str(out), "--jobs", "0"]) == 0
    capsys.readouterr()
    return out


# ----------------------------------------------------------------------------- statistics
def test_t_quantiles():
    assert t975(1) == 12.706 and t975(10) == 2.228 and t975(30) == 2.042
    # Above the table: the Cornish-Fisher expansion, within 1e-3 of published values.
    for df, published in ((40, 2.021), (60, 2.000), (120, 1.980), (10_000, 1.960)):
        assert abs(t975(df) - published) < 1e-3
    assert abs(t975(31) - 2.0395) < 1e-3 and t975(31) < T975[-1]
    with pytest.raises(ValueError):
        t975(0)


def test_mean_ci():
    mean, half, n = mean_ci([1.0, 2.0, 3.0])
    assert (mean, n) == (2.0, 3) and half == pytest.approx(4.303 * 1.0 / math.sqrt(3))
    assert mean_ci([5.0, 5.0]) == (5.0, 0.0, 2)
    m, h, n = mean_ci([7.0])
    assert m == 7.0 and math.isnan(h) and n == 1
    m, h, n = mean_ci([None, float("nan")])
    assert math.isnan(m) and n == 0


# ----------------------------------------------------------------------------- sweep
def test_dry_run_prints_the_matrix(spec, capsys, tmp_path):
    assert main(["sweep", str(spec), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "12 runs (1 workload(s), 2 scheduler entries, 3 seed(s))" in out
    assert "Run matrix of cli" in out and "fcfs" in out and "200" in out
    assert not (tmp_path / "store").exists()


def test_dry_run_against_a_store_says_what_is_left(spec, store, capsys):
    assert main(["sweep", str(spec), "--dry-run", "--out", str(store)]) == 0
    assert "12 finished, 0 to run" in capsys.readouterr().out


def test_sweep_then_resume(spec, tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["sweep", str(spec), "--out", str(out), "--jobs", "2"]) == 0
    text = capsys.readouterr().out
    assert "12 succeeded, 0 failed, 0 already done" in text
    assert main(["sweep", str(spec), "--out", str(out)]) == 0
    assert "0 succeeded, 0 failed, 12 already done" in capsys.readouterr().out


def test_invalid_spec_exits_2_with_every_problem(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('[workloads.w]\ngenerator = "lublin"\nn = 0\n[[schedulers]]\nname = "x"\n')
    assert main(["sweep", str(bad), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "2 problems" in err and "workloads.w.n (line 3)" in err
    assert "schedulers[0].name (line 5)" in err
    assert not (tmp_path / "o").exists()


def test_sweep_needs_out_or_dry_run(spec, capsys):
    assert main(["sweep", str(spec)]) == 2
    assert "--out" in capsys.readouterr().err


def test_failed_runs_name_the_parameters_that_tell_them_apart(tmp_path, capsys):
    (tmp_path / "bad.swf").write_text("; MaxProcs: 4\n1 0 -1 x\n")
    spec = tmp_path / "s.toml"
    spec.write_text('name = "s"\n[workloads.bad]\ntrace = "bad.swf"\n[[schedulers]]\n'
                    'name = "ckpt-backfill"\nparams = { p = [0.1, 0.2] }\n')
    assert main(["sweep", str(spec), "--out", str(tmp_path / "o"), "--jobs", "0"]) == 1
    lines = [line for line in capsys.readouterr().err.splitlines()
             if line.startswith("failed: ")]
    assert len(lines) == 2
    assert [line.split(" ", 2)[2].split(":")[0] for line in lines] == [
        "bad x ckpt-backfill p=0.1 seed=1", "bad x ckpt-backfill p=0.2 seed=1"]


def test_failed_runs_exit_1(spec, tmp_path, capsys):
    (tmp_path / "bad.swf").write_text("; MaxProcs: 4\n1 0 -1 x\n")
    spec.write_text(SPEC + '\n[workloads.bad]\ntrace = "bad.swf"\n')
    # The figures now average over workloads unless they name one.
    spec.write_text(spec.read_text().replace('title = "Mean wait"',
                                             'title = "Mean wait"\nwhere = { workload = "model" }')
                    .replace('facet_by = "n"', 'facet_by = "n"\nwhere = { workload = "model" }'))
    assert main(["sweep", str(spec), "--out", str(tmp_path / "o"), "--jobs", "0"]) == 1
    captured = capsys.readouterr()
    assert "12 succeeded, 6 failed" in captured.out
    assert "failed:" in captured.err and "WorkloadError" in captured.err
    hint = f"ckptsim results {tmp_path / 'o'} --where status=failed --csv -, column error"
    assert hint in captured.err
    # `results` says why the runs failed too, grouped or not (it showed only "failed" and
    # empty metrics), and the command it points to gives the tracebacks.
    for extra in ([], ["--group-by", "workload"]):
        assert main(["results", str(tmp_path / "o"), *extra]) == 0
        err = capsys.readouterr().err
        assert err.count("failed: ") == 6 and err.count("WorkloadError") == 6 and hint in err
    assert main(["results", str(tmp_path / "o"), "--where", "workload=model"]) == 0
    assert "failed: " not in capsys.readouterr().err
    assert main(["results", str(tmp_path / "o"), "--where", "status=failed", "--csv", "-"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) == 6 and all("Traceback" in r["error"] for r in rows)


# ----------------------------------------------------------------------------- results
def test_results_table(store, capsys):
    assert main(["results", str(store)]) == 0
    out = capsys.readouterr().out
    assert "cli: 12 runs" in out and "mean_wait" in out and "status" in out


def test_a_where_that_matches_nothing_says_why(store, capsys):
    # It printed an empty table and nothing else.
    assert main(["results", str(store), "--where", "n=300"]) == 0
    assert "note: no run has workload.n=300; its values: 100, 200" in capsys.readouterr().err
    assert main(["results", str(store), "--where", "scheduler=easy", "seed=9",
                 "--group-by", "scheduler"]) == 0
    assert "note: no run has seed=9; its values: 1, 2, 3" in capsys.readouterr().err
    rows = [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}]
    assert res.why_none_match(rows, {"a": ("1",), "b": ("y",)}) == (
        "each --where filter matches some runs, but no run matches them all")
    assert main(["results", str(store), "--where", "n=100"]) == 0
    assert "note:" not in capsys.readouterr().err


def test_results_where_group_by_and_csv(store, capsys, tmp_path):
    assert main(["results", str(store), "--where", "scheduler=easy", "--where", "n=100",
                 "--csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) == 3
    assert {r["scheduler"] for r in rows} == {"easy"} and {r["workload.n"] for r in rows} == {
        "100"}
    assert {r["seed"] for r in rows} == {"1", "2", "3"}
    assert list(rows[0])[0] == "run_id" and list(rows[0])[-1] == "error"

    assert main(["results", str(store), "--group-by", "scheduler", "n", "--csv",
                 str(tmp_path / "g.csv")]) == 0
    capsys.readouterr()
    groups = list(csv.DictReader(open(tmp_path / "g.csv")))
    assert len(groups) == 4
    assert list(groups[0]) == ["scheduler", "workload.n", "runs", "failed", "mean_wait",
                               "mean_wait_ci95", "mean_wait_n", "mean_bsld", "mean_bsld_ci95",
                               "mean_bsld_n"]
    assert all(g["runs"] == "3" and g["failed"] == "0" for g in groups)
    # The group mean is the mean of the runs.
    assert main(["results", str(store), "--where", "scheduler=fcfs", "n=200", "--csv", "-"]
                ) == 0
    runs = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    group = next(g for g in groups if g["scheduler"] == "fcfs" and g["workload.n"] == "200")
    assert float(group["mean_wait"]) == pytest.approx(
        sum(float(r["mean_wait"]) for r in runs) / 3)

    assert main(["results", str(store), "--group-by", "scheduler", "--where", "n=100",
                 "--metrics", "utilization"]) == 0
    out = capsys.readouterr().out
    assert "utilization" in out and "±" in out


def test_results_errors(store, tmp_path, capsys):
    assert main(["results", str(store), "--where", "colour=red"]) == 2
    assert "unknown column 'colour'" in capsys.readouterr().err
    assert main(["results", str(store), "--group-by", "nope"]) == 2
    capsys.readouterr()
    # A column filtered twice: refused (the last filter alone was kept), naming the column.
    assert main(["results", str(store), "--where", "scheduler=easy", "scheduler=fcfs"]) == 2
    assert ("ckptsim: error: --where: scheduler is filtered twice ('scheduler=easy' and "
            "'scheduler=fcfs'): filters must all hold; for runs with any of its values, give "
            "them in one: scheduler=easy,fcfs") in capsys.readouterr().err
    assert main(["results", str(store), "--where", "n=100", "--where", "workload.n=200"]) == 2
    assert "workload.n is filtered twice" in capsys.readouterr().err
    assert main(["results", str(tmp_path / "nothing")]) == 2
    assert "not a results store" in capsys.readouterr().err
    # A paper command's folder holds its store in store/: named, for results and report.
    paper = tmp_path / "paper"
    paper.mkdir()
    (paper / "store").symlink_to(store, target_is_directory=True)
    for command in ("results", "report"):
        assert main([command, str(paper)]) == 2
        assert f"but a paper's folder: its runs are in the store {paper / 'store'}" in \
            capsys.readouterr().err


def test_results_say_an_interrupted_sweeps_runs_are_missing(spec, tmp_path, capsys,
                                                            monkeypatch):
    """A sweep stopped by Ctrl-C keeps its finished runs; `results` showed them as if they were
    the whole experiment."""
    import ckptsim.experiments.execute as execute

    real, calls = execute.execute_run, []

    def stopping(run):
        calls.append(run)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return real(run)

    monkeypatch.setattr(execute, "execute_run", stopping)
    out = tmp_path / "stopped"
    assert main(["sweep", str(spec), "--out", str(out), "--jobs", "0"]) == 130
    capsys.readouterr()
    assert main(["results", str(out), "--csv", "-"]) == 0
    captured = capsys.readouterr()
    assert len(list(csv.DictReader(io.StringIO(captured.out)))) == 3
    assert (f"note: 9 of the 12 runs of the latest sweep are not in the store (not run yet: an "
            f"interrupted sweep?); run the same sweep again with --out {out} to finish them"
            ) in captured.err
    monkeypatch.setattr(execute, "execute_run", real)
    assert main(["sweep", str(spec), "--out", str(out), "--jobs", "0"]) == 0
    capsys.readouterr()
    assert main(["results", str(out)]) == 0
    assert "not in the store" not in capsys.readouterr().err


def test_results_refuse_a_damaged_store(store, capsys):
    victim = sorted((store / "runs").iterdir())[0]
    victim.write_bytes(victim.read_bytes()[:100])
    assert main(["results", str(store)]) == 2
    err = capsys.readouterr().err
    assert victim.name in err and "damaged" in err


def test_results_show_the_readable_runs_of_a_damaged_store(spec, store, capsys):
    """A second sweep adds a run table; damaging the first leaves the second's runs shown,
    the damaged file named, exit status 2."""
    assert main(["results", str(store), "--csv", "-"]) == 0
    before = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    spec.write_text(SPEC.replace("seeds = [1, 2, 3]", "seeds = [1, 2, 3, 4]"))
    assert main(["sweep", str(spec), "--out", str(store), "--jobs", "0"]) == 0
    capsys.readouterr()
    tables = sorted((store / "runs").iterdir())
    assert len(tables) == 2
    victim = tables[0]
    data = bytearray(victim.read_bytes())
    data[len(data) // 2] ^= 0x10
    victim.write_bytes(bytes(data))
    assert main(["results", str(store), "--csv", "-"]) == 2
    captured = capsys.readouterr()
    shown = list(csv.DictReader(io.StringIO(captured.out)))
    assert 0 < len(shown) < len(before) + len(shown)
    assert {r["run_id"] for r in shown}.isdisjoint({r["run_id"] for r in before})
    assert victim.name in captured.err and "damaged run file" in captured.err


def test_group_by_pools_only_replications_with_a_confidence_interval(tmp_path, capsys):
    """One seed, two values of n: grouping by scheduler alone pools two configurations, whose
    spread is no confidence interval; grouping by scheduler and n gives one configuration per
    group and the interval over its seeds."""
    spec = tmp_path / "pool.toml"
    spec.write_text(SPEC.replace("seeds = [1, 2, 3]", "seeds = [1, 2]"))
    out = tmp_path / "store"
    assert main(["sweep", str(spec), "--out", str(out), "--jobs", "0"]) == 0
    capsys.readouterr()
    assert main(["results", str(out), "--csv", "-"]) == 0
    runs = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))

    assert main(["results", str(out), "--group-by", "scheduler", "--csv", "-"]) == 0
    captured = capsys.readouterr()
    groups = list(csv.DictReader(io.StringIO(captured.out)))
    assert [g["runs"] for g in groups] == ["4", "4"]
    fcfs = [float(r["mean_wait"]) for r in runs if r["scheduler"] == "fcfs"]
    g = next(g for g in groups if g["scheduler"] == "fcfs")
    assert float(g["mean_wait"]) == pytest.approx(sum(fcfs) / 4)
    assert g["mean_wait_ci95"] == ""  # no interval over two different configurations
    assert "pool runs of different configurations (n vary" in captured.err

    assert main(["results", str(out), "--group-by", "scheduler"]) == 0
    captured = capsys.readouterr()
    assert "mean over runs that differ in n" in captured.out and "±" not in captured.out
    assert "95% CI over replications" not in captured.out

    assert main(["results", str(out), "--group-by", "scheduler", "n", "--csv", "-"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    groups = list(csv.DictReader(io.StringIO(captured.out)))
    assert len(groups) == 4 and all(g["runs"] == "2" for g in groups)
    g = next(g for g in groups if g["scheduler"] == "fcfs" and g["workload.n"] == "100")
    pair = [float(r["mean_wait"]) for r in runs
            if r["scheduler"] == "fcfs" and r["workload.n"] == "100"]
    # Two replications: half-width = t(0.975, 1) * s / sqrt(2), s = |a - b| / sqrt(2).
    assert float(g["mean_wait_ci95"]) == pytest.approx(12.706 * abs(pair[0] - pair[1]) / 2)
    assert main(["results", str(out), "--group-by", "scheduler", "--where", "n=100"]) == 0
    captured = capsys.readouterr()
    assert "95% CI over replications" in captured.out and captured.err == ""


def test_damaged_per_job_file_is_reported_and_recomputed(spec, tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["sweep", str(spec), "--out", str(out), "--jobs", "0", "--keep-jobs"]) == 0
    files = sorted((out / "jobs").iterdir())
    assert len(files) == 12
    victim = files[3]
    intact = victim.read_bytes()
    data = bytearray(intact)
    data[len(data) // 2] ^= 0x10  # one bit, inside the records
    victim.write_bytes(bytes(data))
    capsys.readouterr()
    assert main(["results", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"damaged per-job file {victim}" in err and "checksum" in err
    assert main(["report", str(out)]) == 0
    assert victim.name in capsys.readouterr().err
    assert victim.name in (out / "report" / "index.html").read_text()
    assert main(["sweep", str(spec), "--out", str(out), "--jobs", "0", "--keep-jobs"]) == 0
    captured = capsys.readouterr()
    assert f"damaged per-job file {victim}" in captured.err
    assert "1 succeeded, 0 failed, 11 already done" in captured.out
    assert victim.read_bytes() == intact  # recomputed: the same records
    assert main(["results", str(out)]) == 0
    assert capsys.readouterr().err == ""


# ----------------------------------------------------------------------------- report
def test_report(store, tmp_path, capsys):
    assert main(["report", str(store)]) == 0
    assert "2 figure(s)" in capsys.readouterr().out
    page = (store / "report" / "index.html").read_text()
    for expected in ("<h1>cli</h1>", "a small campaign", "Figures", "wait-by-n", "bsld-bars",
                     "data:image/svg+xml;base64,", "Summary", "Run matrix", "Versions",
                     "pyarrow", "matplotlib", "numpy", "Seeds: 1, 2, 3",
                     "12 succeeded, 0 failed, 0 not run yet", "±"):
        assert expected in page, expected
    figures = store / "report" / "figures"
    names = sorted(p.name for p in figures.iterdir())
    assert names == ["bsld-bars.png", "bsld-bars.svg", "wait-by-n.png", "wait-by-n.svg"]
    assert (figures / "wait-by-n.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # Deterministic: a second report into another folder is byte-identical.
    assert main(["report", str(store), "--out", str(tmp_path / "again")]) == 0
    for name in names:
        assert (figures / name).read_bytes() == (tmp_path / "again" / "figures" / name
                                                 ).read_bytes(), name
    assert (tmp_path / "again" / "index.html").read_text() == page


def test_report_shows_failures_and_missing_runs(spec, tmp_path, capsys):
    (tmp_path / "bad.swf").write_text("; MaxProcs: 4\n1 0 -1 x\n")
    # Without its figures, the spec may mix workloads freely.
    spec.write_text(SPEC[: SPEC.index("[[figures]]")] + '[workloads.bad]\ntrace = "bad.swf"\n')
    out = tmp_path / "o"
    # A sweep that stopped before its first run.
    plan = plan_sweep(spec, out)
    plan.todo = plan.todo[1:]
    run_sweep(plan, out, SerialExecutor())
    assert main(["report", str(out)]) == 0
    page = (out / "report" / "index.html").read_text()
    assert "Failures" in page and "WorkloadError" in page and "Traceback" in page
    assert "1 not run yet" in page and "not run" in page


def test_renamed_workloads_and_labels_show_under_their_new_names(tmp_path, capsys):
    """Renaming reruns nothing (names are not part of a run's identity), and the stored runs
    are shown, grouped and filtered under the names the latest spec gives them."""
    spec = tmp_path / "s.toml"
    spec.write_text('name = "ren"\nseeds = [1, 2]\n[workloads.l]\ngenerator = "lublin"\n'
                    'n = 60\n[[schedulers]]\nname = "easy"\n[[schedulers]]\nname = "fcfs"\n')
    out = tmp_path / "o"
    assert main(["sweep", str(spec), "--out", str(out), "--jobs", "0"]) == 0
    before, _ = load_results(out)
    spec.write_text(spec.read_text().replace('name = "ren"', 'name = "renamed"')
                    .replace("[workloads.l]", "[workloads.lub60]")
                    .replace('name = "fcfs"', 'name = "fcfs"\nlabel = "FCFS"'))
    capsys.readouterr()
    assert main(["sweep", str(spec), "--out", str(out), "--jobs", "0"]) == 0
    assert "0 succeeded, 0 failed, 4 already done" in capsys.readouterr().out
    after, _ = load_results(out)
    assert [r["run_id"] for r in after] == [r["run_id"] for r in before]
    assert {(r["experiment"], r["workload"], r["scheduler"]) for r in after} == {
        ("renamed", "lub60", "easy"), ("renamed", "lub60", "FCFS")}
    assert [r["mean_wait"] for r in after] == [r["mean_wait"] for r in before]
    assert main(["results", str(out), "--where", "scheduler=FCFS", "--csv", "-"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) == 2 and {r["workload"] for r in rows} == {"lub60"}


LUBLIN_40 = '[workloads.l]\ngenerator = "lublin"\nn = 40\n[[schedulers]]\nname = "easy"\n'


def swept(tmp_path, text):
    """A spec of `text` (its name "s") swept in this process; (spec, store)."""
    spec = tmp_path / "s.toml"
    spec.write_text('name = "s"\n' + text)
    out = tmp_path / "o"
    assert main(["sweep", str(spec), "--out", str(out), "--jobs", "0"]) == 0
    return spec, out


def test_an_unreadable_sweep_json_is_rewritten_by_the_next_sweep(tmp_path, capsys):
    spec, out = swept(tmp_path, LUBLIN_40)
    (out / "sweep.json").write_text((out / "sweep.json").read_text()[:100])
    capsys.readouterr()
    assert main(["results", str(out)]) == 2
    assert "unreadable" in capsys.readouterr().err
    assert main(["sweep", str(spec), "--out", str(out), "--jobs", "0"]) == 0
    assert "0 succeeded, 0 failed, 1 already done" in capsys.readouterr().out
    assert main(["results", str(out)]) == 0


def test_a_spec_metric_no_run_reports_is_noted(tmp_path, capsys):
    _, out = swept(tmp_path, 'metrics = ["mean_wait", "arrt"]\n' + LUBLIN_40)
    capsys.readouterr()
    assert main(["results", str(out)]) == 0
    captured = capsys.readouterr()
    assert "mean_wait" in captured.out and "arrt" not in captured.out
    assert ("note: the spec's metric(s) arrt: no run here reports them (a metric of some "
            "schedulers or components only), so they are not shown") in captured.err


def test_a_csv_of_no_run_still_has_its_header(tmp_path, capsys):
    _, out = swept(tmp_path, LUBLIN_40)
    capsys.readouterr()
    assert main(["results", str(out), "--where", "status=failed", "--csv", "-"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("run_id,experiment,workload,") and text.count("\n") == 1


def test_a_figure_caption_says_what_its_where_keeps(tmp_path, capsys):
    _, out = swept(tmp_path, 'seeds = [1, 2]\n[workloads.l]\ngenerator = "lublin"\n'
                             'n = [40, 50, 60]\n[[schedulers]]\nname = "easy"\n'
                             '[[figures]]\nname = "f"\nx = "n"\ny = "mean_wait"\n'
                             'where = { n = [40, 60] }\n')
    assert main(["report", str(out)]) == 0
    page = (out / "report" / "index.html").read_text()
    assert "mean_wait against n; only n = 40 or 60." in page
