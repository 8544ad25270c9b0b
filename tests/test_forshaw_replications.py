"""Seed 003's per-replication CSVs (figN-replications.csv): each replication's benefit against
its own None and Opt runs, so that the claims can pair two configurations by seed."""

from __future__ import annotations

import csv

import pytest

from ckptsim.experiments.papers.forshaw import experiments as fw
from ckptsim.experiments.papers.forshaw.figures import FIGURE_MAKERS, reduce


def _row(policy: str, seed: int, overhead_min: float, energy_kwh: float) -> dict:
    return {"status": "ok", "workload.checkpoint": policy, "seed": seed,
            fw.OVERHEAD: overhead_min * 60.0, fw.ENERGY: energy_kwh, fw.UTILISATION: 0.5}


def _rows() -> list[dict]:
    c30 = fw.policy("fixed", 1, 30)
    # seed 1: None 20 min / 10 kWh, Opt 10 / 5, C(30) 12 / 6 -> benefits 0.8 and 0.8;
    # seed 2: None 40 / 8, Opt 20 / 4, C(30) 30 / 7 -> benefits 0.5 and 0.25.
    return [_row("none", 1, 20, 10), _row(fw.policy("opt", 1), 1, 10, 5), _row(c30, 1, 12, 6),
            _row("none", 2, 40, 8), _row(fw.policy("opt", 1), 2, 20, 4), _row(c30, 2, 30, 7)]


def test_each_replication_has_its_own_benefit():
    pts = {p["policy"]: p for p in reduce(_rows(), "fixed")}
    runs = pts[fw.policy("fixed", 1, 30)]["runs"]
    assert runs[1]["benefit_overhead_min"] == pytest.approx(0.8)
    assert runs[1]["benefit_energy_mwh"] == pytest.approx(0.8)
    assert runs[2]["benefit_overhead_min"] == pytest.approx(0.5)
    assert runs[2]["benefit_energy_mwh"] == pytest.approx(0.25)
    assert runs[2]["energy_mwh"] == pytest.approx(0.007)
    point = pts[fw.policy("fixed", 1, 30)]
    assert point["benefit_energy_mwh"] == pytest.approx((0.8 + 0.25) / 2)
    assert pts["none"]["runs"][2]["benefit_overhead_min"] == 0.0


def test_the_replications_csv_has_a_row_per_configuration_and_seed(tmp_path):
    pts = reduce(_rows(), "fixed")
    FIGURE_MAKERS["fig6"](pts, tmp_path)
    FIGURE_MAKERS["fig4"](pts, tmp_path)
    with open(tmp_path / "fig6-replications.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["value"], r["seed"]) for r in rows] == [("30", "1"), ("30", "2")]
    assert float(rows[1]["benefit_energy_mwh"]) == pytest.approx(0.25)
    with open(tmp_path / "fig4-replications.csv", newline="") as fh:
        base = list(csv.DictReader(fh))
    assert [(r["policy"], r["seed"]) for r in base] == [
        ("None", "1"), ("None", "2"), ("Opt 1 min", "1"), ("Opt 1 min", "2")]
    assert float(base[3]["overhead_min"]) == pytest.approx(20.0)
