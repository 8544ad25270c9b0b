"""Seed 004's figures as drawn: bounded slowdown (log axis) and capacity against the number of
failures or the prediction level, with the spread over replications shown as a band."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ckptsim.experiments.papers.common import figure, legend_below, save

CAPACITY = (("capacity_utilized", "utilised", "tab:green"),
            ("capacity_unused", "unused", "0.45"), ("capacity_lost", "lost", "tab:red"))


def _select(points: list[dict[str, Any]], trace: str, select: dict[str, float]
            ) -> list[dict[str, Any]]:
    return [p for p in points if p["trace"] == trace
            and all(abs(p[k] - v) < 1e-9 for k, v in select.items())]


def line_figure(points: list[dict[str, Any]], traces: Sequence[str], x: str, xlabel: str,
                series: Sequence[tuple[str, dict[str, float], dict[str, Any]]], title: str,
                path: Path) -> None:
    """One panel per trace: bounded slowdown vs `x`, one line per (label, selection, style),
    with the 95% interval over replications as a band when there are several.  The axis is
    logarithmic and spans every band; where an interval reaches 0 or below, its band runs down
    to the bottom edge of the panel (hatched), so a reader sees that the interval says nothing
    there."""
    fig, axes = figure(1, len(traces), 4.4 * len(traces), 4.0)
    for ax, t in zip(axes[0], traces, strict=True):
        drawn = []
        for label, select, style in series:
            pts = _select(points, t, select)
            xs = np.array([p[x] for p in pts], dtype=float)
            ys = np.array([p["mean_response_bsld"] for p in pts], dtype=float)
            half = np.array([p["mean_response_bsld_ci95"] for p in pts], dtype=float)
            (line,) = ax.plot(xs, ys, label=label, marker="o", ms=3, **style)
            if len(half) and np.isfinite(half).all():
                drawn.append((xs, ys, half, line.get_color()))
        ax.set_yscale("log")  # from ~1 without failures to ~10^4 with thousands
        positive = [v for xs, ys, half, _ in drawn for v in np.concatenate((ys, ys - half))
                    if v > 0] + [float(p["mean_response_bsld"]) for p in points
                                 if p["trace"] == t and p["mean_response_bsld"] > 0]
        if positive:
            # Both ends from the bands too: a band is never cut off at the panel's edge.
            bottom = min(positive) / 2
            top = max([*positive, *(v for _, ys, half, _ in drawn for v in ys + half)]) * 1.25
            ax.set_ylim(bottom, top)
            for xs, ys, half, color in drawn:
                low = ys - half
                open_low = low <= 0
                ax.fill_between(xs, np.where(open_low, bottom, low), ys + half, color=color,
                                alpha=0.13, lw=0)
                if open_low.any():
                    ax.fill_between(xs, bottom, ys + half, where=open_low, color=color,
                                    alpha=0.0, hatch="///", edgecolor=color, lw=0,
                                    interpolate=True)
        _plain_log_ticks(ax)
        ax.set_title(t)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("average bounded slowdown (log)")
        ax.grid(alpha=0.3)
    legend_below(fig, axes[0][0], min(len(series), 4))
    fig.suptitle(title, fontsize="medium")
    save(fig, path)


def _plain_log_ticks(ax: Any) -> None:
    """Ticks of a log axis at 1, 2, 5 x 10^k, written as plain numbers (2,000, not 2x10^3)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())


def capacity_figure(points: list[dict[str, Any]], trace: str, x: str, xlabel: str,
                    loads: Sequence[float], select: dict[str, float], title: str,
                    path: Path) -> None:
    """Capacity utilised, unused and lost vs `x` (fractions adding up to 1), one panel per
    load scale, each with its 95% interval over replications as a band."""
    fig, axes = figure(1, len(loads), 4.6 * len(loads), 3.9)
    for ax, c in zip(axes[0], loads, strict=True):
        pts = _select(points, trace, {"load_scale": c, **select})
        xs = np.array([p[x] for p in pts], dtype=float)
        for metric, label, color in CAPACITY:
            ys = np.array([p[metric] for p in pts], dtype=float)
            ax.plot(xs, ys, marker="o", ms=3, color=color, label=label)
            half = np.array([p.get(f"{metric}_ci95", np.nan) for p in pts], dtype=float)
            if len(half) and np.isfinite(half).all():
                ax.fill_between(xs, np.clip(ys - half, 0.0, None), np.clip(ys + half, None, 1.0),
                                color=color, alpha=0.18, lw=0)  # a fraction: within [0, 1]
        ax.set_ylim(0, 1)
        if len(xs) and xs.min() < xs.max():
            ax.set_xlim(xs.min(), xs.max())
        ax.set_title(f"{trace}, c = {c:g}")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("fraction of capacity N x T")
        ax.grid(alpha=0.3)
    legend_below(fig, axes[0][0], 3)
    fig.suptitle(title, fontsize="medium")
    save(fig, path)
