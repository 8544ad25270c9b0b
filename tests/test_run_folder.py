"""A run folder holds one run's files: a run into a folder another run wrote removes the
optional outputs it does not write itself."""

from __future__ import annotations

from pathlib import Path

from ckptsim.cli import main

WORKLOAD = "lublin:n=60,seed=1,machine=16"
FAILURES = "synthetic:mtbf=40000,repair_mean=7200"


def test_a_run_without_down_time_removes_the_last_runs_unavailability(tmp_path: Path) -> None:
    import ckptsim

    out = tmp_path / "run"
    assert main(["run", "--workload", WORKLOAD, "--failures", FAILURES, "--out", str(out)]) == 0
    assert (out / "unavailability.csv").is_file()
    assert main(["run", "--workload", WORKLOAD, "--out", str(out)]) == 0
    assert not (out / "unavailability.csv").exists()
    assert len(ckptsim.load_run(out).unavailability) == 0


def test_a_run_without_allocations_removes_the_last_runs(tmp_path: Path) -> None:
    """`demo --out` writes no allocations: those of a run before it go."""
    out = tmp_path / "demo"
    for name in ("fcfs", "easy", "conservative"):
        assert main(["run", "--workload", WORKLOAD, "--failures", FAILURES,
                     "--out", str(out / name)]) == 0
    assert main(["demo", "--jobs", "30", "--machine-size", "16", "--out", str(out)]) == 0
    for name in ("fcfs", "easy", "conservative"):
        assert sorted(p.name for p in (out / name).iterdir()) == [
            "jobs.csv", "schedule.swf", "summary.json"]


def test_a_rerun_for_a_gantt_removes_stale_down_time(tmp_path: Path) -> None:
    from ckptsim.records.allocations import AllocationLog, write_unavailability

    path = tmp_path / "unavailability.csv"
    path.write_text("reason,start,end,nodes\nfailure,0,10,0-3\n")
    assert write_unavailability(AllocationLog(), path) is False
    assert not path.exists()


def test_a_run_removes_the_gantt_chart_drawn_from_the_last_run(tmp_path: Path) -> None:
    """`gantt DIR` draws DIR/gantt.png from the run in DIR: a new run there removes it (it
    shows the earlier run), and leaves an image under another name (the user's own)."""
    out = tmp_path / "run"
    assert main(["run", "--workload", WORKLOAD, "--out", str(out)]) == 0
    assert main(["gantt", str(out)]) == 0
    assert (out / "gantt.png").is_file()
    (out / "mine.png").write_bytes(b"kept")
    assert main(["run", "--workload", WORKLOAD, "--scheduler", "fcfs", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == [
        "allocations.csv", "jobs.csv", "mine.png", "out_jobs.csv", "schedule.swf",
        "summary.json"]
