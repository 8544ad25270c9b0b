"""A paper's figures may share runs under other names (niu's readings and Fig. 4 both run
ckpt-backfill at p = 0.2 on the same trace): whichever spec stores a run first, every figure
reads it back under its own spec's names."""

from __future__ import annotations

from pathlib import Path

from ckptsim.experiments.papers.common import run_spec

SPEC = """
name = "{name}"
seeds = [1, 2]

[workloads.{workload}]
generator = "lublin"
n = 60
machine = 32

[[schedulers]]
name = "easy"
label = "{label}"
"""


def test_a_run_another_spec_stored_comes_back_under_this_specs_names(tmp_path: Path):
    first = run_spec("one", SPEC.format(name="one", workload="model", label="classical"),
                     tmp_path, tmp_path, 0)
    simulated = []
    second = run_spec("two", SPEC.format(name="two", workload="lublin60", label="easy"),
                      tmp_path, tmp_path, 0, on_row=simulated.append)
    assert simulated == []  # the same runs: none run again
    assert sorted(r["run_id"] for r in first) == sorted(r["run_id"] for r in second)
    assert {(r["experiment"], r["workload"], r["scheduler"]) for r in first} == {
        ("one", "model", "classical")}
    assert {(r["experiment"], r["workload"], r["scheduler"]) for r in second} == {
        ("two", "lublin60", "easy")}
    # Their results are the stored ones, whatever the names.
    by_id = {r["run_id"]: r for r in first}
    assert all(r["mean_wait"] == by_id[r["run_id"]]["mean_wait"] for r in second)
