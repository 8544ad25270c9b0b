"""`results --versus KEY=BASE,OTHER`: paired differences of the metrics between two values of a
column, over runs that agree on every other input (the seed included)."""

from __future__ import annotations

import csv
import io
import math

import pytest

from ckptsim.cli import main
from ckptsim.errors import ConfigError
from ckptsim.experiments.paired import Versus, paired
from ckptsim.experiments.stats import t975
from ckptsim.experiments.store import load_results

SPEC = """name = "pair"
seeds = [1, 2, 3]
metrics = ["mean_wait", "utilization"]
[workloads.lub]
generator = "lublin"
n = [40, 60]
machine = 32
[[schedulers]]
name = "easy"
label = "a"
[[schedulers]]
name = "fcfs"
label = "b"
[[schedulers]]
name = "easy"
label = "c"
params = { requeue = "order" }
[[schedulers]]
name = "conservative"
label = "d"
params = { requeue = ["front", "order"] }
"""


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = tmp_path_factory.mktemp("versus")
    (root / "s.toml").write_text(SPEC)
    assert main(["sweep", str(root / "s.toml"), "--out", str(root / "o"), "--jobs", "0"]) == 0
    return root / "o"


def _csv(capsys, *args):
    assert main(["results", *map(str, args), "--csv", "-"]) == 0
    captured = capsys.readouterr()
    return list(csv.DictReader(io.StringIO(captured.out))), captured.err


def _by_hand(values):
    """Mean and 95% t half-width, written out."""
    n = len(values)
    mean = sum(values) / n
    s = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    return mean, t975(n - 1) * s / math.sqrt(n)


def test_paired_mean_and_interval_equal_the_hand_computed_ones(store, capsys):
    runs, _ = _csv(capsys, store)
    wait = {(r["scheduler"], r["workload.n"], r["seed"]): float(r["mean_wait"]) for r in runs}
    keys = [(n, s) for n in ("40", "60") for s in ("1", "2", "3")]
    diffs = [wait["b", n, s] - wait["a", n, s] for n, s in keys]
    ratios = [wait["b", n, s] / wait["a", n, s] - 1 for n, s in keys]
    assert len(set(diffs)) > 2  # the schedulers differ: the interval is not 0

    rows, err = _csv(capsys, store, "--versus", "scheduler=a,b", "--metrics", "mean_wait")
    assert list(rows[0]) == ["pairs", "mean_wait", "mean_wait_ci95", "mean_wait_n"]
    mean, half = _by_hand(diffs)
    assert rows[0]["pairs"] == "6" and rows[0]["mean_wait_n"] == "6"
    assert float(rows[0]["mean_wait"]) == pytest.approx(mean, rel=1e-12)
    assert float(rows[0]["mean_wait_ci95"]) == pytest.approx(half, rel=1e-12)
    # The registry name goes with the label: not compared.
    assert "one value on each side: scheduler_name" in err

    rows, _ = _csv(capsys, store, "--versus", "scheduler=a,b", "--relative",
                   "--group-by", "n", "--metrics", "mean_wait")
    assert [(r["workload.n"], r["pairs"]) for r in rows] == [("40", "3"), ("60", "3")]
    for r, part in zip(rows, (ratios[:3], ratios[3:]), strict=True):
        mean, half = _by_hand(part)
        assert float(r["mean_wait"]) == pytest.approx(mean, rel=1e-12)
        assert float(r["mean_wait_ci95"]) == pytest.approx(half, rel=1e-12)

    rows, _ = _csv(capsys, store, "--versus", "scheduler=a,b", "--where", "n=60", "seed=1,2")
    assert rows[0]["pairs"] == "2"
    assert float(rows[0]["mean_wait"]) == pytest.approx(
        (wait["b", "60", "1"] - wait["a", "60", "1"] + wait["b", "60", "2"]
         - wait["a", "60", "2"]) / 2)
    assert main(["results", str(store), "--versus", "scheduler=a,b", "--relative"]) == 0
    out = capsys.readouterr().out
    assert "b / a − 1 over 6 pairs" in out and "%" in out


@pytest.mark.parametrize(("args", "message"), [
    (["--versus", "sched=a,b"], "--versus: unknown column 'sched'; accepted:"),
    (["--versus", "mean_wait=1,2"], "--versus: mean_wait is not an input"),
    (["--versus", "scheduler=a"], "--versus: expected two values of scheduler"),
    (["--versus", "scheduler=a,a"], "BASE and OTHER are the same value"),
    (["--versus", "scheduler=a,z"], "--versus: no run has scheduler=z; its values: a, b, c, d"),
    (["--versus", "scheduler=a,b", "--where", "seed=1", "scheduler=a"],
     "no run among the runs --where keeps has scheduler=b; its values: a"),
    (["--versus", "scheduler=a,b", "--group-by", "scheduler"],
     "--group-by: scheduler is the --versus column"),
    (["--versus", "scheduler=a,b", "--group-by", "scheduler_name"],
     "--group-by: scheduler_name goes with scheduler (a: easy, b: fcfs)"),
    # Both values of requeue hold runs of different labels: the label always differs.
    (["--versus", "requeue=front,order", "--where", "scheduler=a,b,c"],
     "--versus: no run with param.requeue=order agrees with one with param.requeue=front on "
     "every other input; the closest differ in scheduler (front: a, order: c)"),
    (["--relative"], "--relative: goes with --versus"),
])
def test_bad_versus_is_refused_naming_the_option(store, capsys, args, message):
    assert main(["results", str(store), *args]) == 2
    assert message in capsys.readouterr().err


def test_failed_runs_and_runs_without_a_partner_are_left_out_and_counted(store):
    rows, manifest = load_results(store)
    inputs = manifest["inputs"]
    rows = [dict(r) for r in rows]
    lost = next(r for r in rows if r["scheduler"] == "a" and r["seed"] == 2)
    lost["status"] = "failed"
    result = paired(rows, Versus("scheduler", "a", "b"), inputs, [], ["mean_wait"])
    assert result.pairs == 5 and result.failed == 1 and len(result.unpaired) == 1
    partner = result.unpaired[0]
    assert (partner["scheduler"], partner["seed"]) == ("b", 2)
    assert partner["workload.n"] == lost["workload.n"]
    with pytest.raises(ConfigError, match="all failed"):
        paired([r for r in rows if r["seed"] == 2 and r["workload.n"] == lost["workload.n"]],
               Versus("scheduler", "a", "b"), inputs, [], ["mean_wait"])


def test_runs_without_a_partner_are_named_in_a_note(store, capsys):
    """d's runs with requeue=order have no partner among a's (requeue=front): requeue varies
    among d's runs, so it is compared, and a's runs pair with d's of requeue=front."""
    rows, err = _csv(capsys, store, "--versus", "scheduler=a,d", "--metrics", "mean_wait")
    assert rows[0]["pairs"] == "6"
    note = next(line for line in err.splitlines() if "without a partner" in line)
    assert note.startswith("note: 6 run(s) without a partner, left out: e.g. ")
    assert "(scheduler=d n=" in note and " requeue=order seed=" in note
    # Each d run pairs with the other value of requeue: d's own pairs.
    rows, err = _csv(capsys, store, "--versus", "requeue=front,order", "--where", "scheduler=d")
    assert rows[0]["pairs"] == "6" and "without a partner" not in err
