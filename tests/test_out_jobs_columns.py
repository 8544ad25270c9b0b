"""out_jobs.csv's columns mean what Batsim's job output (docs/output-jobs.rst of Batsim 4.2)
says they mean, in both forms (`--out-jobs job|attempt`)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from ckptsim.cli import main


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _run(tmp_path: Path, per: str, *extra: str) -> list[dict[str, str]]:
    out = tmp_path / "out"
    assert main(["run", "--workload", "lublin:n=40,seed=1,machine=16", "--scheduler",
                 "ckpt-backfill", "--set", "p=0.2", "--failures",
                 "synthetic:mtbf=20000,repair_mean=3600", *extra, "--out", str(out),
                 "--out-jobs", per]) == 0
    return _rows(out / "out_jobs.csv")


@pytest.mark.parametrize("per", ["job", "attempt"])
def test_consumed_energy_is_minus_one_when_no_energy_is_measured(per: str,
                                                                  tmp_path: Path) -> None:
    """Batsim writes -1 when its energy plug-in is off (0 would say the job used no energy):
    every row of a run without the energy meter; a run with it keeps its joules."""
    rows = _run(tmp_path, per)
    assert len(rows) >= 40
    assert {r["consumed_energy"] for r in rows} == {"-1.0"}
    metered = _run(tmp_path, per, "--component", "energy:active=200,idle=100,sleep=10")
    assert all(float(r["consumed_energy"]) >= 0 for r in metered)
    assert any(float(r["consumed_energy"]) > 0 for r in metered)
