"""Seed 001's headline points alone (`ckptsim paper jones headline`): 10 runs per workload
seed, each one a run of the seed's figure families (one id), and a figure whose improvements
and CTMR gains are paired by seed."""

from __future__ import annotations

import csv
import math

from ckptsim.cli import main
from ckptsim.experiments.papers.jones import experiments as jones
from ckptsim.experiments.papers.jones import headline
from ckptsim.experiments.sweep import plan_sweep


def test_headline_runs_are_runs_of_the_seed_figures_families(tmp_path):
    opt = jones.Options(n=50)
    ids = {}
    for family in ("headline", "info", "ctmr"):
        path = tmp_path / f"{family}.toml"
        path.write_text(jones.spec_text(family, opt))
        ids[family] = {r.run_id for r in plan_sweep(path).runs}
    assert len(ids["headline"]) == headline.runs_of("headline") == jones.runs_of("headline", opt)
    assert ids["headline"] <= ids["info"] | ids["ctmr"]


def test_headline_figure_pairs_by_seed(tmp_path):
    out = tmp_path / "out"
    assert main(["paper", "jones", "headline", "--out", str(out), "--per-cluster", "60",
                 "--replications", "3", "--jobs", "1"]) == 0
    rows = list(csv.DictReader(open(out / "headline.csv")))
    assert [(float(r["ppbw"]), r["variant"]) for r in rows] == [
        (p, v) for p in headline.PPBWS for v in headline.VARIANTS]
    assert all(r["seeds"] == "3" for r in rows)
    # Recompute CTMR's gain at 300 Mbit/s from the stored runs, seed by seed.
    from ckptsim.experiments.store import load_results

    runs, _ = load_results(out / "store")
    base = {r["seed"]: r["mean_response"] for r in runs if r["scheduler"] == "migration-only"}
    pick = {(r["scheduler"], r["seed"]): r["mean_response"] for r in runs
            if r.get("workload.ppbw") == 300 and r.get("workload.error") == 1
            and r["param.overhead"] == 600}
    gains = [(pick[("coalloc", s)] - pick[("ctmr", s)]) / base[s] for s in base]
    row = next(r for r in rows if r["ppbw"] == "300" and r["variant"] == "+-100%, CTMR 10 min")
    assert math.isclose(float(row["vs_no_ctmr"]), sum(gains) / 3, rel_tol=1e-5, abs_tol=1e-9)
    assert (out / "headline.png").stat().st_size > 10_000
    # CTMR at 0 min against the ideal case, seed by seed.
    ideal = {r["seed"]: r["mean_response"] for r in runs if r.get("workload.ppbw") == 300
             and r.get("workload.error") == 0 and r["scheduler"] == "coalloc"}
    free = {r["seed"]: r["mean_response"] for r in runs if r.get("workload.ppbw") == 300
            and r["scheduler"] == "ctmr" and r["param.overhead"] == 0}
    row = next(r for r in rows if r["ppbw"] == "300" and r["variant"] == "+-100%, CTMR 0 min")
    expected = sum((ideal[s] - free[s]) / base[s] for s in base) / 3
    assert math.isclose(float(row["vs_ideal"]), expected, rel_tol=1e-5, abs_tol=1e-9)
