"""The Gantt chart's node axis: the whole machine (or --nodes), every down span of the window,
and the clusters of a platform of several groups."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from ckptsim.cli import main
from ckptsim.records.nodesets import parse_nodes


@pytest.fixture
def axes(monkeypatch: pytest.MonkeyPatch) -> dict[str, list]:
    """What the chart set: its y limits, the cluster lines and names."""
    from matplotlib.axes import Axes

    seen: dict[str, list] = {"ylim": [], "lines": [], "names": []}
    real_ylim, real_line, real_note = Axes.set_ylim, Axes.axhline, Axes.annotate

    def set_ylim(self, *a, **k):
        seen["ylim"].append(a)
        return real_ylim(self, *a, **k)

    monkeypatch.setattr(Axes, "set_ylim", set_ylim)
    monkeypatch.setattr(Axes, "axhline", lambda self, y, *a, **k:
                        seen["lines"].append(y) or real_line(self, y, *a, **k))
    monkeypatch.setattr(Axes, "annotate", lambda self, text, *a, **k:
                        seen["names"].append(text) or real_note(self, text, *a, **k))
    return seen


def test_a_window_spans_the_machine_and_its_down_time(tmp_path: Path, axes) -> None:
    """A window whose jobs used the lowest nodes only: the axis is the machine's 64 nodes,
    so every node down in the window shows (it stopped at the highest node a job used)."""
    from ckptsim.plots.gantt import plot_gantt

    out = tmp_path / "run"
    assert main(["run", "--workload", "lublin:n=300,seed=1,machine=64", "--scheduler",
                 "ckpt-backfill", "--set", "p=0.2", "--failures",
                 "synthetic:mtbf=20000,repair_mean=3600", "--out", str(out)]) == 0
    with open(out / "unavailability.csv", newline="") as f:
        down = [r for r in csv.DictReader(f)
                if float(r["start"]) <= 3000 and float(r["end"]) >= 0]
    highest = max(last for r in down for _, last in parse_nodes(r["nodes"]))
    plot_gantt(out, tmp_path / "w.png", start=0, end=3000, color="ended")
    assert axes["ylim"][-1] == (0, 64)
    assert highest < 64
    axes["ylim"].clear()
    plot_gantt(out, tmp_path / "n.png", start=0, end=3000, nodes=(8, 40))
    assert axes["ylim"][-1] == (8, 41)


def test_a_grid_platforms_run_marks_its_clusters(tmp_path: Path, axes) -> None:
    """A run on `--platform grid:...` (no co-allocation: no links in summary.json) is marked
    by the platform's groups, over its 400 nodes."""
    from ckptsim.plots.gantt import plot_gantt

    out = tmp_path / "grid"
    assert main(["run", "--workload", "lublin:n=100,seed=1,machine=400", "--platform",
                 "grid:clusters=4,nodes=100", "--out", str(out)]) == 0
    plot_gantt(out, tmp_path / "g.png", end=20000)
    assert axes["ylim"][-1] == (0, 400)
    assert axes["lines"] == [100, 200, 300]
    assert axes["names"] == ["cluster0", "cluster1", "cluster2", "cluster3"]


def test_a_platform_file_that_changed_draws_no_marks(tmp_path: Path, axes) -> None:
    from ckptsim.plots.gantt import plot_gantt

    platform = tmp_path / "two.toml"
    platform.write_text('name = "two"\n[types.pc]\ncores = 1\n'
                        '[[groups]]\nname = "a"\nmachines = 6\ntype = "pc"\n'
                        '[[groups]]\nname = "b"\nmachines = 10\ntype = "pc"\n')
    out = tmp_path / "run"
    assert main(["run", "--workload", "lublin:n=40,seed=1,machine=16", "--platform",
                 str(platform), "--out", str(out)]) == 0
    plot_gantt(out, tmp_path / "g.png")
    assert (axes["lines"], axes["names"]) == ([6], ["a", "b"])
    axes["lines"].clear(), axes["names"].clear()
    platform.write_text(platform.read_text().replace("machines = 10", "machines = 12"))
    plot_gantt(out, tmp_path / "h.png")
    assert (axes["lines"], axes["names"]) == ([], [])


def test_cluster_names_that_would_overlap_are_left_out(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two one-node groups between two of 200 nodes: their names would cover each other, so
    the chart names the larger clusters and the first of the two small ones, and no name it
    shows overlaps another; every cluster's line is drawn."""
    from matplotlib.axes import Axes

    from ckptsim.plots.gantt import plot_gantt

    notes: list = []
    real_note = Axes.annotate

    def annotate(self, text, *a, **k):
        note = real_note(self, text, *a, **k)
        notes.append(note)
        return note

    monkeypatch.setattr(Axes, "annotate", annotate)
    platform = tmp_path / "four.toml"
    platform.write_text('name = "four"\n[types.pc]\ncores = 1\n'
                        + "".join(f'[[groups]]\nname = "{g}"\nmachines = {n}\ntype = "pc"\n'
                                  for g, n in (("a", 200), ("b", 1), ("c", 1), ("d", 200))))
    out = tmp_path / "run"
    assert main(["run", "--workload", "lublin:n=40,seed=1,machine=402", "--platform",
                 str(platform), "--out", str(out)]) == 0
    plot_gantt(out, tmp_path / "g.png")
    assert [n.get_text() for n in notes] == ["a", "b", "c", "d"]
    shown = [n for n in notes if n.axes is not None]
    assert [n.get_text() for n in shown] == ["a", "b", "d"]
    boxes = [n.get_bbox_patch().get_window_extent() for n in shown]
    assert not any(p.overlaps(q) for k, p in enumerate(boxes) for q in boxes[k + 1:])
