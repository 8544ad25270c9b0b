"""How `results` and `report` show a store's runs: under the latest spec's columns, with the
number of runs behind each mean, and what `--where` selects."""

from __future__ import annotations

import csv
import io

from ckptsim.cli import main
from ckptsim.experiments.store import load_results

CKPT_HEAD = """name = "ck"
seeds = [1, 2]
metrics = ["mean_wait", "checkpoints"]
[workloads.lub]
generator = "lublin"
n = 60
machine = 64
"""
CKPT_TABLE = CKPT_HEAD + """[workloads.lub.components.checkpoint.policy]
interval = "fixed"
cost = [60, 1200]
[workloads.lub.components.checkpoint.policy.fixed]
interval = 3600
[[schedulers]]
name = "easy"
"""
CKPT_STRING = CKPT_HEAD + """checkpoint = ["fixed:interval=3600,cost=60",
              "fixed:interval=3600,cost=1200"]
[[schedulers]]
name = "easy"
[[figures]]
name = "w"
kind = "bar"
x = "scheduler"
y = "mean_wait"
group_by = "checkpoint"
"""


def _sweep(spec, out, capsys):
    assert main(["sweep", str(spec), "--out", str(out), "--jobs", "0"]) == 0
    return capsys.readouterr()


def test_runs_reused_by_another_form_of_a_plan_show_under_its_columns(tmp_path, capsys):
    """A checkpoint plan written as a table, then as its string: the runs are reused, and
    shown under the string form's column, so the two costs are two configurations."""
    spec, out = tmp_path / "ck.toml", tmp_path / "o"
    spec.write_text(CKPT_TABLE)
    _sweep(spec, out, capsys)
    before, _ = load_results(out)
    spec.write_text(CKPT_STRING)
    assert "0 succeeded, 0 failed, 4 already done" in _sweep(spec, out, capsys).out
    rows, _ = load_results(out)
    assert [r["run_id"] for r in rows] == [r["run_id"] for r in before]
    assert [r["workload.checkpoint"] for r in rows] == [
        "fixed:interval=3600,cost=60"] * 2 + ["fixed:interval=3600,cost=1200"] * 2
    assert not [c for r in rows for c in r if c.startswith("workload.checkpoint.")]
    assert [r["mean_wait"] for r in rows] == [r["mean_wait"] for r in before]

    assert main(["results", str(out), "--group-by", "scheduler"]) == 0
    captured = capsys.readouterr()
    assert "no confidence interval" in captured.out and "±" not in captured.out
    assert "checkpoint vary within them" in captured.err
    assert main(["results", str(out), "--group-by", "checkpoint", "--csv", "-"]) == 0
    groups = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(g["checkpoint"] if "checkpoint" in g else g["workload.checkpoint"], g["runs"])
            for g in groups] == [("fixed:interval=3600,cost=60", "2"),
                                 ("fixed:interval=3600,cost=1200", "2")]
    assert main(["report", str(out)]) == 0

    # Back to the table: the runs show its columns again.
    spec.write_text(CKPT_TABLE)
    _sweep(spec, out, capsys)
    rows, _ = load_results(out)
    assert sorted(r["workload.checkpoint.policy.cost"] for r in rows) == [60, 60, 1200, 1200]
    assert "workload.checkpoint" not in rows[0]


def test_a_mean_over_fewer_runs_than_its_group_says_so(tmp_path, capsys):
    """arrt_long_wide is NaN in the seed whose jobs include no long wide one: its mean is
    over the other runs, which the table, the CSV and the report say."""
    spec, out = tmp_path / "s.toml", tmp_path / "o"
    spec.write_text('name = "scojo"\nseeds = [1, 2, 3, 4]\n'
                    'metrics = ["arrt", "arrt_long_wide"]\n[workloads.lub]\n'
                    'generator = "lublin"\nn = 150\nmachine = 64\nestimates = "exact"\n'
                    '[[schedulers]]\nname = "scojo-pect"\n[[figures]]\nname = "lw"\n'
                    'kind = "bar"\nx = "scheduler"\ny = "arrt_long_wide"\n')
    _sweep(spec, out, capsys)
    rows, _ = load_results(out)
    values = [r["arrt_long_wide"] for r in rows]
    assert sum(v != v for v in values) == 1  # NaN in one run: what this test is about

    assert main(["results", str(out), "--group-by", "scheduler"]) == 0
    captured = capsys.readouterr()
    (line,) = [x for x in captured.out.splitlines() if "scojo-pect" in x]
    assert line.count("(n=3)") == 1 and "note: (n=N): that metric's mean" in captured.err
    assert main(["results", str(out), "--group-by", "scheduler", "--csv", "-"]) == 0
    (g,) = csv.DictReader(io.StringIO(capsys.readouterr().out))
    assert (g["runs"], g["arrt_n"], g["arrt_long_wide_n"]) == ("4", "4", "3")

    assert main(["report", str(out)]) == 0
    page = (out / "report" / "index.html").read_text()
    assert "(n=3)" in page and "over the N runs of the group" in page
    assert "1 of the 4 runs it shows have no value of arrt_long_wide" in page


def test_where_matches_a_value_holding_commas_as_a_whole(tmp_path, capsys):
    spec, out = tmp_path / "ck.toml", tmp_path / "o"
    spec.write_text(CKPT_STRING)
    _sweep(spec, out, capsys)
    cheap, dear = "fixed:interval=3600,cost=60", "fixed:interval=3600,cost=1200"

    def kept(*where):
        assert main(["results", str(out), "--where", *where, "--csv", "-"]) == 0
        captured = capsys.readouterr()
        return [r["workload.checkpoint"] for r in csv.DictReader(io.StringIO(captured.out))
                ], captured.err

    assert kept(f"checkpoint={cheap}") == ([cheap, cheap], "")
    assert kept(f"checkpoint={dear},{cheap}") == ([cheap, cheap, dear, dear], "")
    assert kept(f"checkpoint={cheap}", "seed=2") == ([cheap], "")
    runs, err = kept("checkpoint=fixed:interval=3600,cost=61")
    assert runs == [] and err == (
        "note: no run has workload.checkpoint=fixed:interval=3600,cost=61; its values: "
        f"{cheap}; {dear}\n")
    runs, err = kept("checkpoint=young:cost=60,mtbf=86400,fixed:interval=600,cost=60")
    assert "no run has workload.checkpoint=young:cost=60,mtbf=86400,fixed:interval=600," \
        "cost=60; its values" in err


FAILURES_SPEC = """name = "fl"
seeds = [1]
metrics = ["mean_wait", "failures"]
[workloads.lub]
generator = "lublin"
n = 40
machine = 32
failures = ["synthetic:mtbf=200000,seed=1", "synthetic:mtbf=20000,seed=1"]
[[schedulers]]
name = "easy"
[[figures]]
name = "w"
x = "failures"
y = "mean_wait"
"""


def test_a_bare_name_that_is_a_metric_and_an_input_is_the_metric_and_results_say_so(
        tmp_path, capsys):
    # `failures` is both the metric (a count) and, after its prefix, the input
    # `workload.failures` (the source). In results it is the metric, with a note naming the
    # input's column; a figure's x names inputs only, so there it is the source.
    from ckptsim.experiments.spec import load_spec

    spec, out = tmp_path / "fl.toml", tmp_path / "o"
    spec.write_text(FAILURES_SPEC)
    _sweep(spec, out, capsys)
    assert load_spec(spec).figures[0].x == "workload.failures"
    assert main(["results", str(out), "--group-by", "failures", "--csv", "-"]) == 0
    got = capsys.readouterr()
    rows = list(csv.DictReader(io.StringIO(got.out)))
    counts = sorted(float(r["failures"]) for r in load_results(out)[0])
    assert sorted(float(r["failures"]) for r in rows) == counts and counts[0] < counts[1]
    assert ("note: failures is the metric failures; for the input of that name, write "
            "workload.failures") in got.err
    assert main(["results", str(out), "--group-by", "workload.failures"]) == 0
    assert "note: failures is" not in capsys.readouterr().err
