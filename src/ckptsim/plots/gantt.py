"""The Gantt chart of a run: its attempts (allocations.csv) as boxes on their nodes, the
machines' down time (unavailability.csv) shaded.

Every attempt's node intervals become rectangles of one `PolyCollection` (rasterised when
there are many), so a window of a 100,000-job run draws in seconds.
"""

from __future__ import annotations

import csv
import logging
import math
import textwrap
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from ckptsim.errors import ConfigError
from ckptsim.plots.trace import check_image_path, save_image
from ckptsim.records.allocations import ENDED
from ckptsim.records.nodesets import parse_nodes

#: Colours of `ended` (--color ended); other values are grey.
ENDED_COLORS = {
    "completed": "#4c9a2a", "checkpointed": "#1f77b4", "suspended": "#17becf",
    "migrated": "#9467bd", "preempted": "#ff7f0e", "failure": "#d62728",
    "eviction": "#8c564b", "killed": "#e377c2", "bad": "#7f7f7f",
}
RASTER_ABOVE = 2000  # rectangles
#: The longest line of a chart's title, in characters (the chart is 11 inches wide).
TITLE_WIDTH = 100


def parse_node_range(text: str) -> tuple[int, int]:
    """``A-B`` (or one node ``A``) -> (A, B); ConfigError naming --nodes otherwise."""
    first, _, last = text.partition("-")
    try:
        a, b = int(first), int(last or first)
    except ValueError:
        raise ConfigError("--nodes", f"{text!r}: expected A-B (node ids, e.g. 0-63)") from None
    if a < 0 or b < a:
        raise ConfigError("--nodes", f"{text!r}: expected 0 <= A <= B")
    return a, b


class Drawn(NamedTuple):
    """What a Gantt chart holds: attempts of jobs, and the boxes they are drawn as."""

    attempts: int
    boxes: int


#: The columns of the files a chart reads, and which of them are times.
_COLUMNS = {"allocations.csv": ("job_id", "attempt", "start", "end", "nodes", "ended"),
            "unavailability.csv": ("reason", "start", "end", "nodes")}


def _rows(path: Path) -> list[list[Any]]:
    """The rows of allocations.csv or unavailability.csv, times as floats and node sets as
    intervals; a damaged line is a ConfigError naming the file, the line and the field."""
    names = _COLUMNS[path.name]
    out: list[list[Any]] = []
    with open(path, newline="") as f:
        reader = csv.reader(f)
        next(reader, None)
        for row in reader:
            line = reader.line_num
            if len(row) != len(names):
                raise ConfigError("DIR", f"{path}, line {line}: {len(row)} fields, expected "
                                         f"{len(names)} ({', '.join(names)})")
            values: list[Any] = list(row)
            for k, name in enumerate(names):
                try:
                    if name in ("start", "end"):
                        values[k] = float(row[k])
                        if math.isnan(values[k]):
                            raise ValueError
                    elif name == "nodes":
                        values[k] = parse_nodes(row[k])
                        if not values[k] or any(a < 0 or b < a for a, b in values[k]):
                            raise ValueError
                except ValueError:
                    what = "a time in seconds" if name != "nodes" else \
                        "node ids as A-B intervals separated by spaces"
                    raise ConfigError("DIR", f"{path}, line {line}, field {name}: "
                                             f"{row[k]!r}, expected {what}") from None
            out.append(values)
    return out


def plot_gantt(run_dir: str | Path, path: str | Path, *, start: float | None = None,
               end: float | None = None, nodes: tuple[int, int] | None = None,
               color: str = "job") -> Drawn:
    """Draw the Gantt chart of the run in `run_dir` into `path`; returns the attempts drawn
    and their boxes (one per run of consecutive nodes an attempt holds).

    Raises:
        ConfigError: no allocations.csv in `run_dir` (key "DIR"), a window with nothing in it
            or --from not below --to, an unknown --color.
        OutputError: the image cannot be written.
    """
    run = Path(run_dir)
    source = run / "allocations.csv"
    if run.is_file():
        raise ConfigError("DIR", f"{run}: a file, not a run's folder (give its folder: "
                                 f"{run.parent})")
    if not run.is_dir():
        raise ConfigError("DIR", f"{run}: no such folder (a run's folder, written by "
                                 "`ckptsim run ... --out DIR`)")
    if not source.is_file():
        raise ConfigError("DIR", f"{run}: no allocations.csv (write one with "
                                 f"`ckptsim run ... --out {run}`)")
    if color not in ("job", "ended"):
        raise ConfigError("--color", f"{color!r}: accepted: job, ended")
    for key, value in (("--from", start), ("--to", end)):
        if value is not None and not math.isfinite(value):
            raise ConfigError(key, f"{value}: expected a finite time in seconds")
    if start is not None and end is not None and not start < end:
        raise ConfigError("--from", f"{start:g} is not before --to {end:g}")
    check_image_path(path)
    rows = _rows(source)
    if not rows:
        raise ConfigError("DIR", f"{source}: no attempts to draw")
    summary = _summary(run)
    t0 = min(r[2] for r in rows) if start is None else start
    t1 = max(r[3] for r in rows) if end is None else end
    if not t0 < t1:
        t1 = t0 + 1.0
    lo, hi = nodes if nodes is not None else (0, math.inf)
    boxes: list[tuple[float, float, float, float]] = []  # x0, x1, y0, y1
    keys: list[str] = []
    top = 0
    attempts = 0  # drawn; an attempt on several runs of nodes is several boxes
    for job_id, _attempt, a, b, intervals, ended in rows:
        if b < t0 or a > t1:
            continue
        drawn = len(boxes)
        for first, last in intervals:
            top = max(top, last)
            first, last = max(first, lo), min(last, hi)
            if first > last:
                continue
            boxes.append((max(a, t0), min(b, t1), first, last + 1))
            keys.append(job_id if color == "job" else ended)
        attempts += len(boxes) > drawn
    if not boxes:
        used = max(last for r in rows for _, last in r[4])
        beyond = nodes is not None and lo > used
        window = start is not None or end is not None
        raise ConfigError("--from" if window and not beyond else "--nodes",
                          f"no attempt in the window [{t0:g}, {t1:g}]"
                          + (f" on nodes {lo}-{hi}" if nodes is not None else "")
                          + (f": the run's attempts use nodes 0-{used}" if beyond else ""))
    down = []
    down_path = run / "unavailability.csv"
    if down_path.is_file():
        for _reason, a, b, intervals in _rows(down_path):
            if b < t0 or a > t1:
                continue
            for first, last in intervals:
                first, last = max(first, lo), min(last, hi)
                if first <= last:
                    down.append((max(a, t0), min(b, t1), first, last + 1))

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import PolyCollection
    from matplotlib.patches import Patch

    box = np.asarray(boxes, dtype=float)
    verts = np.stack([box[:, [0, 2]], box[:, [0, 3]], box[:, [1, 3]], box[:, [1, 2]]], axis=1)
    if color == "job":
        cmap = plt.get_cmap("tab20")
        faces = [cmap((int(k) * 7) % 20) for k in keys]
    else:
        faces = [ENDED_COLORS.get(k, "#bbbbbb") for k in keys]
    many = len(boxes) > RASTER_ABOVE
    fig, ax = plt.subplots(figsize=(11, 5), dpi=150, layout="constrained")
    if down:
        d = np.asarray(down, dtype=float)
        dverts = np.stack([d[:, [0, 2]], d[:, [0, 3]], d[:, [1, 3]], d[:, [1, 2]]], axis=1)
        ax.add_collection(PolyCollection(dverts, facecolors="#000000", alpha=0.25,
                                         edgecolors="none", rasterized=len(down) > RASTER_ABOVE,
                                         zorder=1))
    ax.add_collection(PolyCollection(verts, facecolors=faces,
                                     edgecolors="none" if many else "#333333",
                                     linewidths=0.3, rasterized=many, zorder=2))
    ax.set_xlim(t0, t1)
    if nodes is not None:
        y0, y1 = lo, hi + 1
    else:  # the whole machine, however few of its nodes the window's jobs used
        y0, y1 = 0, max(top + 1, *(d[3] for d in down), _machine_size(summary))
    ax.set_ylim(y0, y1)
    # A multi-cluster platform: each cluster's first node, a line and the cluster's name.
    names = []  # (nodes drawn, the name's annotation)
    for first, last, name in _clusters(summary):
        if first > y0 and first < y1:
            ax.axhline(first, color="#000000", linewidth=0.8, alpha=0.6, zorder=3)
        if last >= y0 and first < y1:
            low, high = max(first, y0), min(last + 1, y1)
            names.append((high - low, ax.annotate(
                name, (1.0, (low + high) / 2), xycoords=("axes fraction", "data"),
                xytext=(-4, 0), textcoords="offset points", ha="right", va="center",
                fontsize=7, bbox={"boxstyle": "round,pad=0.2", "fc": "white", "alpha": 0.8,
                                  "lw": 0}, zorder=4)))
    ax.set_xlabel("time (s)")
    ax.set_ylabel("node")
    # Wrapped: a workload's title (a generator's options) can be wider than the chart.
    ax.set_title(textwrap.fill(f"{_run_title(run, summary)}: {attempts} attempt"
                               f"{'s' * (attempts != 1)}", TITLE_WIDTH))
    handles = []
    if color == "ended":
        seen = sorted(set(keys), key=lambda k: list(ENDED).index(k) if k in ENDED else 99)
        handles += [Patch(color=ENDED_COLORS.get(k, "#bbbbbb"), label=k) for k in seen]
    if down:
        handles.append(Patch(color="#000000", alpha=0.25, label="down"))
    if handles:
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    _leave_out_overlapping(fig, names)
    try:
        save_image(fig, path, png_software=True)
    finally:
        plt.close(fig)
    return Drawn(attempts, len(boxes))


def _leave_out_overlapping(fig: Any, names: list[tuple[int, Any]]) -> None:
    """Remove the cluster names that would cover another one shown (small clusters side by
    side): the names of the clusters with the most nodes drawn are kept first, then in node
    order."""
    if len(names) < 2:
        return
    fig.draw_without_rendering()  # lays the figure out, so that the names have their places
    shown: list[Any] = []
    for _, note in sorted(names, key=lambda n: -n[0]):
        box = note.get_bbox_patch().get_window_extent()
        if any(box.overlaps(other) for other in shown):
            note.remove()
        else:
            shown.append(box)


#: What a chart takes from summary.json (said where the folder has none, or a damaged one).
SUMMARY_GIVES = "the machine's size (the node axis), its clusters and the run's title"


def _summary(run: Path) -> dict[str, Any]:
    """The run's summary.json.  A folder without one is drawn without what it gives, saying
    so in a note; one that cannot be read is refused, as a damaged allocations.csv or
    unavailability.csv is (it was drawn silently without them)."""
    import json

    path = run / "summary.json"
    if not path.exists():
        logging.getLogger(__name__).warning(
            f"{path}: no such file; the chart is drawn without {SUMMARY_GIVES} (the node "
            "axis spans the nodes the attempts use)")
        return {}
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        why = f"cannot be read: {exc.strerror or exc}"
    except UnicodeDecodeError:
        why = "not UTF-8 text"
    except json.JSONDecodeError as exc:
        why = f"not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
    else:
        if isinstance(doc, dict):
            return doc
        why = f"a JSON {type(doc).__name__}, not an object"
    raise ConfigError("DIR", f"{path}: {why}; it gives the chart {SUMMARY_GIVES}: write the "
                             f"run again (`ckptsim run ... --out {run}`), or remove the file "
                             "to draw the chart without them")


def _machine_size(summary: dict[str, Any]) -> int:
    """The simulated machine's nodes (summary.json's options.machine_size; 0 if unknown)."""
    try:
        return max(int(summary["options"]["machine_size"]), 0)
    except (KeyError, TypeError, ValueError):
        return 0


def _clusters(summary: dict[str, Any]) -> list[tuple[int, int, str]]:
    """The (first, last) nodes and the name of each cluster of a multi-cluster run, in node
    order: a co-allocating grid's (summary.json's links: the clusters' sizes), else the groups
    of a platform of several (summary.json's options.platform: its source, a built-in or a
    file, read again and checked against the groups and nodes recorded); none for any other
    run, or when the platform's file cannot be read again."""
    options = summary.get("options")
    if not isinstance(options, dict):
        return []
    names: list[str] = []
    try:
        links = options["links"]
        sizes = links["nodes"]
        if isinstance(sizes, int):
            sizes = [sizes] * int(links["clusters"])
        sizes = [int(n) for n in sizes]
        names = [f"cluster {k}" for k in range(len(sizes))]
    except (KeyError, TypeError, ValueError):
        sizes = _group_sizes(options.get("platform"))
        names = [name for name, _ in sizes]
        sizes = [n for _, n in sizes]
    if not sizes:
        return []
    starts = np.cumsum([0, *sizes[:-1]])
    return [(int(a), int(a) + n - 1, name)
            for a, n, name in zip(starts, sizes, names, strict=True)]


def _group_sizes(recorded: Any) -> list[tuple[str, int]]:
    """Each group's name and engine nodes, in node order, of the platform summary.json
    records (`Description.summary()`), when it has several groups."""
    from ckptsim.errors import CkptsimError
    from ckptsim.platform.description import load_description

    try:
        if int(recorded["groups"]) < 2:
            return []
        described = load_description(str(recorded["source"]))
        if (len(described.groups), described.n_nodes) != (int(recorded["groups"]),
                                                          int(recorded["nodes"])):
            return []  # the file changed since the run
        return [(g.name, g.machines * described.type_of(g.type).cores)
                for g in described.groups]
    except (KeyError, TypeError, ValueError, OSError, CkptsimError):
        return []


def _run_title(run: Path, summary: dict[str, Any]) -> str:
    """The run's scheduler and workload from its summary.json, else the folder's name."""
    try:
        return f"{summary['scheduler']} on {summary['workload']['source']}"
    except (KeyError, TypeError):
        return run.name or str(run)
