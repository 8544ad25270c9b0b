"""Figures of a sweep: one metric against one parameter, lines or bars, mean and 95% CI.

A figure point is the mean of its metric over the runs that share its facet, group and x
values (the replications: seeds), with the Student t 95% interval as an error bar.  Spec
validation has already made sure that no other input varies inside a point.

Files are deterministic: no creation date or software version in the PNG or SVG, and a fixed
SVG hash salt, so the same results give byte-identical figures.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ckptsim.experiments.columns import short_names
from ckptsim.experiments.spec import FigureSpec
from ckptsim.experiments.stats import mean_ci
from ckptsim.metrics.labels import metric_label, nonnegative


def _matches(value: Any, accepted: Sequence[Any]) -> bool:
    return any(value == a or str(value) == str(a) for a in accepted)


def _ordered(values: list[Any]) -> list[Any]:
    """Distinct values: numbers ascending, anything else in order of first appearance."""
    distinct: list[Any] = []
    for v in values:
        if v not in distinct:
            distinct.append(v)
    if distinct and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                        for v in distinct):
        return sorted(distinct)
    return distinct


#: Values longer than this (a failure source, a checkpoint plan) are written on several lines
#: in tick labels, panel titles and the legend, so that they neither overlap nor squeeze the
#: axes to nothing.
WRAP = 24


def _wrap(value: Any, width: int = WRAP) -> str:
    """`value` as text, broken into lines of at most about `width` characters after its
    commas, plus signs, colons and semicolons (a part still too long is cut at `width`)."""
    text = str(value)
    if len(text) <= width:
        return text
    lines = [""]
    for part in re.split(r"(?<=[,+:;])", text):
        while len(part) > width:
            if lines[-1]:
                lines.append("")
            lines[-1], part = part[:width], part[width:]
            lines.append("")
        if lines[-1] and len(lines[-1]) + len(part) > width:
            lines.append("")
        lines[-1] += part
    return "\n".join(line for line in lines if line)


def _label(column: str, columns: Sequence[str]) -> str:
    return short_names([column, *columns])[0] if column in columns else column


#: A figure's points: {facet: {group: [(x, mean, ci95, n), ...]}}.
Points = dict[Any, dict[Any, list[tuple[Any, float, float, int]]]]


def figure_data(fig: FigureSpec, rows: Sequence[dict[str, Any]]) -> Points:
    """{facet: {group: [(x, mean, ci95, n), ...]}} over the successful runs it selects."""
    chosen = [r for r in rows if r.get("status") == "ok"
              and all(_matches(r.get(k), v) for k, v in fig.where.items())]
    out: dict[Any, dict[Any, list[tuple[Any, float, float, int]]]] = {}
    facets = _ordered([r.get(fig.facet_by) for r in chosen]) if fig.facet_by else [None]
    for facet in facets:
        in_facet = [r for r in chosen if not fig.facet_by or r.get(fig.facet_by) == facet]
        groups = _ordered([r.get(fig.group_by) for r in in_facet]) if fig.group_by else [None]
        out[facet] = {}
        for g in groups:
            members = [r for r in in_facet if not fig.group_by or r.get(fig.group_by) == g]
            points = []
            for x in _ordered([r.get(fig.x) for r in members]):
                values = [r.get(fig.y) for r in members if r.get(fig.x) == x]
                points.append((x, *mean_ci(values, infinite=True)))
            out[facet][g] = points
    return out


def without_value(fig: FigureSpec, rows: Sequence[dict[str, Any]]) -> tuple[int, int]:
    """(runs without a finite value of the figure's metric, runs it selects): the points are
    means over the runs that have one (`mean_ci` leaves missing and NaN values out)."""
    data = figure_data(fig, rows)
    counted = sum(p[3] for groups in data.values() for pts in groups.values() for p in pts)
    chosen = sum(1 for r in rows if r.get("status") == "ok"
                 and all(_matches(r.get(k), v) for k, v in fig.where.items()))
    return chosen - counted, chosen


def failed_points(fig: FigureSpec, rows: Sequence[dict[str, Any]],
                  data: Points | None = None) -> tuple[int, list[tuple[Any, Any, Any]]]:
    """(failed runs the figure selects, (facet, group, x) of the points they leave without
    any successful run): failed runs are left out of the points, so such a point is absent
    from the figure (`data`: `figure_data(fig, rows)`, when already computed)."""
    failed = [r for r in rows if r.get("status") != "ok"
              and all(_matches(r.get(k), v) for k, v in fig.where.items())]
    if data is None:
        data = figure_data(fig, rows)
    drawn = [(facet, g, p[0]) for facet, groups in data.items()
             for g, pts in groups.items() for p in pts]
    absent: list[tuple[Any, Any, Any]] = []
    for r in failed:
        point = (r.get(fig.facet_by) if fig.facet_by else None,
                 r.get(fig.group_by) if fig.group_by else None, r.get(fig.x))
        if point not in drawn and point not in absent:
            absent.append(point)
    return len(failed), absent


def infinite_points(fig: FigureSpec, rows: Sequence[dict[str, Any]],
                    data: Points | None = None) -> list[tuple[Any, Any, Any, float]]:
    """(facet, group, x, mean) of the points whose mean is not a finite number though some
    of their runs have a value (a run's value is infinite): such a point cannot be drawn
    (`data`: `figure_data(fig, rows)`, when already computed)."""
    if data is None:
        data = figure_data(fig, rows)
    return [(facet, g, p[0], p[1]) for facet, groups in data.items()
            for g, pts in groups.items() for p in pts if p[3] and not math.isfinite(p[1])]


def single_points(data: Points) -> tuple[list[tuple[Any, Any, Any]], int]:
    """((facet, group, x) of the drawn points that are one run each: they have no interval,
    and no error bar; the number of drawn points)."""
    drawn = [(facet, g, p) for facet, groups in data.items() for g, pts in groups.items()
             for p in pts if p[3] and math.isfinite(p[1])]
    return [(facet, g, p[0]) for facet, g, p in drawn if p[3] == 1], len(drawn)


def draw(fig: FigureSpec, rows: Sequence[dict[str, Any]], folder: Path,
         columns: Sequence[str] = (), data: Points | None = None) -> list[Path]:
    """Draw `fig` as PNG and SVG in `folder`; return the two paths (`data`:
    `figure_data(fig, rows)`, when already computed)."""
    import matplotlib
    from matplotlib.figure import Figure

    data = data if data is not None else figure_data(fig, rows)
    facets = [f for f in data if any(data[f].values())]
    if not facets:
        raise ValueError("no successful run is selected by this figure")
    ncols = min(len(facets), 3)
    nrows = math.ceil(len(facets) / ncols)
    with matplotlib.rc_context({"svg.hashsalt": "ckptsim", "svg.fonttype": "path"}):
        width = 4.6 * ncols + (1.4 if fig.group_by else 0.0)
        figure = Figure(figsize=(width, 3.6 * nrows), dpi=150, layout="constrained")
        axes = figure.subplots(nrows, ncols, squeeze=False)
        floor = 0.0 if nonnegative(fig.y) else None
        xlabel = fig.xlabel or _label(fig.x, columns)
        ylabel = fig.ylabel or metric_label(fig.y)
        # A group keeps its colour in every panel, though a panel may lack some groups, and
        # each group is named in the legend (runs without the column as "None", as a panel's
        # title names them).
        groups = _ordered([g for f in facets for g in data[f]])
        style = {g: (f"C{k % 10}", _wrap(g) if fig.group_by else None)
                   for k, g in enumerate(groups)}
        for i, facet in enumerate(facets):
            ax = axes[i // ncols][i % ncols]
            (_bars if fig.kind == "bar" else _lines)(ax, data[facet], style, floor)
            ax.set_xlabel(xlabel)
            ax.set_ylabel(ylabel)
            if fig.logy:
                ax.set_yscale("log")
                ax.yaxis.set_major_formatter(_plain())
            if fig.logx and fig.kind == "line":
                ax.set_xscale("log")
                ax.xaxis.set_major_formatter(_plain())
            if fig.facet_by:
                ax.set_title(f"{_label(fig.facet_by, columns)} = {_wrap(facet)}",
                             fontsize="medium")
            ax.grid(True, alpha=0.3)
            ax.set_axisbelow(True)
        for j in range(len(facets), nrows * ncols):
            axes[j // ncols][j % ncols].set_visible(False)
        if fig.group_by:
            # One legend for all panels, outside them, so that it never hides a point; it
            # names every group of every panel.
            first: dict[str, Any] = {}
            for ax in axes.flat:
                for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
                    first.setdefault(label, handle)
            labels = sorted(first, key=[_wrap(g) for g in groups].index)
            handles = [first[lab] for lab in labels]
            figure.legend(handles, labels, title=_label(fig.group_by, columns),
                          loc="outside right center", fontsize="small")
        # Every figure is titled: the spec's title, else what it shows.
        title = fig.title or f"{ylabel} against {xlabel}"
        figure.suptitle(textwrap.fill(title, int(width * 9)))
        folder.mkdir(parents=True, exist_ok=True)
        png, svg = folder / f"{fig.name}.png", folder / f"{fig.name}.svg"
        figure.savefig(png, metadata={"Software": None})
        figure.savefig(svg, metadata={"Date": None, "Creator": None})
    return [png, svg]


def _plain() -> Any:
    """Tick labels of a log axis as plain numbers (0.1, 1, 10, 1000), not powers of ten."""
    from matplotlib.ticker import FuncFormatter

    return FuncFormatter(lambda v, _pos: f"{v:g}")


def _errors(points: list[tuple[Any, float, float, int]],
            floor: float | None = None) -> np.ndarray | None:
    """Error bar half-widths (below, above); NaN, which draws no bar (no caps either, which a
    zero-length bar would draw as if the mean were certain), where a point has a single run,
    and None when every point has.  With `floor` (0 for a quantity that cannot be negative) a
    bar stops there: the interval's part below it is not drawn."""
    half = np.array([p[2] for p in points], dtype=np.float64)
    if np.isnan(half).all():
        return None
    below = half.copy()
    if floor is not None:
        means = np.array([p[1] for p in points], dtype=np.float64)
        below = np.clip(np.minimum(half, means - floor), 0.0, None)
    return np.vstack([below, half])


def _heights(points: list[tuple[Any, float, float, int]]) -> list[float]:
    """The points' means, an infinite one as NaN (not drawn: `infinite_points` names it)."""
    return [p[1] if math.isfinite(p[1]) else math.nan for p in points]


def _lines(ax: Any, groups: dict[Any, list[tuple[Any, float, float, int]]],
           style: dict[Any, tuple[str, str | None]], floor: float | None = None) -> None:
    xs_all = _ordered([p[0] for pts in groups.values() for p in pts])
    numeric = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in xs_all)
    for g, pts in groups.items():
        xs = [p[0] if numeric else xs_all.index(p[0]) for p in pts]
        ax.errorbar(xs, _heights(pts), yerr=_errors(pts, floor), marker="o", capsize=3,
                    color=style[g][0], label=style[g][1])
    if not numeric:
        ax.set_xticks(range(len(xs_all)), [_wrap(x) for x in xs_all])


def _bars(ax: Any, groups: dict[Any, list[tuple[Any, float, float, int]]],
          style: dict[Any, tuple[str, str | None]], floor: float | None = None) -> None:
    xs_all = _ordered([p[0] for pts in groups.values() for p in pts])
    width = 0.8 / max(len(groups), 1)
    for k, (g, pts) in enumerate(groups.items()):
        pos = np.array([xs_all.index(p[0]) for p in pts], dtype=float)
        pos += (k - (len(groups) - 1) / 2) * width
        ax.bar(pos, _heights(pts), width=width, yerr=_errors(pts, floor), capsize=3,
               color=style[g][0], label=style[g][1])
    ax.set_xticks(range(len(xs_all)), [_wrap(x) for x in xs_all])
