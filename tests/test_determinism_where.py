"""The same inputs and seed give byte-identical outputs wherever and however a researcher runs
them: from another folder, with another executor, in another sweep of the same spec."""

from __future__ import annotations

from pathlib import Path

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
