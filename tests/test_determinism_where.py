"""The same inputs and seed give byte-identical outputs wherever and however a researcher runs
them: from another folder, with another executor, in another sweep of the same spec."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ckptsim.cli import main

SPEC = """\
name = "where"
seeds = [1, 2]
metrics = ["mean_wait", "utilization"]

[workloads.model]
generator = "lublin"
n = [60, 90]
machine = 32

[[schedulers]]
name = "fcfs"

[[schedulers]]
name = "easy"

[[figures]]
name = "wait"
x = "n"
y = "mean_wait"
group_by = "scheduler"
"""


def test_two_sweeps_of_one_spec_give_the_same_report(tmp_path, capsys):
    """The page shows no wall-clock data (a run's seconds differ from sweep to sweep), so two
    sweeps of one spec, on any executor, give the same bytes."""
    spec = tmp_path / "where.toml"
    spec.write_text(SPEC)
    pages = []
    for name, jobs in (("one", "0"), ("two", "1")):
        store = tmp_path / name
        assert main(["sweep", str(spec), "--out", str(store), "--jobs", jobs]) == 0
        assert main(["report", str(store), "--out", str(tmp_path / f"{name}-report")]) == 0
        pages.append(tmp_path / f"{name}-report")
    capsys.readouterr()
    for file in ("index.html", "figures/wait.png", "figures/wait.svg"):
        assert (pages[0] / file).read_bytes() == (pages[1] / file).read_bytes(), file


def test_shi_lublin_figures_run_from_any_folder(tmp_path, monkeypatch, capsys):
    """Figures of generated workloads read no trace: they run from a folder without
    ../shared/data/traces (the default --trace-dir, which they refuse to be given), and
    write what they write from the repository root."""
    root = Path(__file__).resolve().parents[1]
    argv = ["paper", "shi", "fig11", "--first", "60", "--jobs", "0", "--out"]
    monkeypatch.chdir(root)
    assert main([*argv, str(tmp_path / "root")]) == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert main([*argv, str(tmp_path / "other")]) == 0, capsys.readouterr().err
    for file in ("fig11.csv", "fig11.png"):
        assert (tmp_path / "root" / file).read_bytes() == (tmp_path / "other" / file
                                                           ).read_bytes(), file


@pytest.mark.parametrize("argv", [
    ["--workload", "htc:days=1,seed=2", "--platform", "smallpool", "--scheduler", "htc",
     "--component", "availability:owners=model,reboot=03:00-05:00,lead=600",
     "--component", "energy:htc=true", "--component", "power:idle_timeout=900",
     "--checkpoint", "fixed:interval=1800,cost=60+closedcluster+scheduled"],
    ["--workload", "lublin:n=200,seed=1,machine=64", "--scheduler", "ckpt-backfill",
     "--set", "p=0.2", "--failures", "synthetic:mtbf=400000,repair_mean=7200",
     "--component", "energy:active=57,idle=40,sleep=2", "--out-jobs", "attempt"],
], ids=["pool", "failures"])
def test_runs_do_not_depend_on_hash_randomisation(argv, tmp_path):
    """Python salts str hashes per process: two processes of other PYTHONHASHSEEDs write
    the same bytes (no output follows the order of a set of names)."""
    root = Path(__file__).resolve().parents[1]
    written = []
    for hashseed in ("0", "12345"):
        out = tmp_path / hashseed
        env = dict(os.environ, PYTHONHASHSEED=hashseed,
                   PYTHONPATH=os.pathsep.join([str(root / "src"),
                                               os.environ.get("PYTHONPATH", "")]))
        subprocess.run([sys.executable, "-m", "ckptsim", "run", *argv, "--out", str(out)],
                       cwd=root, env=env, check=True, capture_output=True)
        written.append({p.name: p.read_bytes() for p in sorted(out.iterdir())})
    assert sorted(written[0]) == sorted(written[1])
    assert len(written[0]) >= 5
    for name, data in written[0].items():
        assert data == written[1][name], name
