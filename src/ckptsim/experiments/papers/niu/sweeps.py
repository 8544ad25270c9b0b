"""Seed 000's swept figures: the reduction of a sweep's rows into `figN.csv` and `figN.png`
for Figs. 4, 6, 7 and the comparison of readings (`ckptsim.experiments.papers.niu`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ckptsim.experiments.papers.common import (
    FigureOutput,
    bars,
    figure,
    find,
    legend_below,
    log_ratio_axis,
    save,
    write_csv,
)
from ckptsim.experiments.papers.niu.experiments import (
    ALPHAS,
    P_VALUES,
    READING_NAMES,
    READINGS,
    T_EXTENDS,
)
from ckptsim.experiments.papers.niu.windows import Window
from ckptsim.experiments.papers.niu.windows import name as window_name
from ckptsim.metrics.core import SIZE_CLASSES

HOUR = 3600.0


def _ratio(value: float, base: float) -> float:
    """value / base, NaN when the base is 0 (e.g. no job waited on a short slice)."""
    return value / base if base else float("nan")


def _normalised(row: dict[str, Any], base: dict[str, Any]) -> dict[str, float]:
    """Wait, bounded slowdown and backfill ratio of a run relative to classical EASY's."""
    return {"wait_norm": _ratio(row["mean_wait"], base["mean_wait"]),
            "bsld_norm": _ratio(row["mean_bsld"], base["mean_bsld"]),
            "bratio_norm": _ratio(row["backfill_ratio"], base["backfill_ratio"])}


def _series(table: list[dict[str, Any]], traces: Sequence[str], labels: Sequence[str],
            key: str, column: str = "variant", scale: float = 1.0) -> dict[str, list[float]]:
    return {lab: [next(r[key] for r in table if r["trace"] == t and r[column] == lab) * scale
                  for t in traces] for lab in labels}


Windows = Mapping[str, Sequence[Window]] | None


def _by_window(out: Path, name: str, traces: Sequence[str], windows: Windows,
               rows_of: Callable[[str, str], list[dict[str, Any]]]) -> None:
    """With `windows`, write NAME_windows.csv: `rows_of(trace, workload)` for each window of
    each trace, after the columns trace, window, first_job (its index in the trace) and jobs."""
    if not windows:
        return
    table = []
    for t in traces:
        for w in windows[t]:
            for row in rows_of(t, window_name(t, w)):
                table.append({"trace": t, "window": w.number, "first_job": w.first_job,
                              "jobs": w.jobs, **{k: v for k, v in row.items() if k != "trace"}})
    write_csv(out / f"{name}_windows.csv", table)


def _fig4_rows(rows: list[dict[str, Any]], t: str, name: str) -> list[dict[str, Any]]:
    base = find(rows, workload=name, scheduler="classical")
    variants = [("classical-actual", find(rows, workload=f"{name}-actual",
                                             scheduler="classical-actual"))]
    variants += [(f"p={p:g}", find(rows, workload=name, scheduler="ckpt", **{"param.p": p}))
                 for p in P_VALUES]
    return [{"trace": t, "variant": label, **_normalised(row, base),
             "mean_wait": row["mean_wait"], "mean_bsld": row["mean_bsld"],
             "backfill_ratio": row["backfill_ratio"], "preempt_ratio": row["preempt_ratio"],
             "easy_mean_wait": base["mean_wait"], "easy_mean_bsld": base["mean_bsld"],
             "easy_backfill_ratio": base["backfill_ratio"]} for label, row in variants]


def fig4(rows: list[dict[str, Any]], out: Path, traces: Sequence[str],
         windows: Windows = None) -> FigureOutput:
    """Wait, bounded slowdown and backfill ratio for p = 0.1 ... 1.0, normalised to EASY."""
    table = [r for t in traces for r in _fig4_rows(rows, t, t)]
    _by_window(out, "fig4", traces, windows, lambda t, name: _fig4_rows(rows, t, name))
    write_csv(out / "fig4.csv", table)
    fig, axes = figure(3, 1, 11, 9.5)
    labels = ["classical-actual"] + [f"p={p:g}" for p in P_VALUES]
    for ax, (key, name) in zip(axes[:, 0], (
            ("wait_norm", "mean wait / classical's"),
            ("bsld_norm", "mean bounded slowdown\n/ classical's"),
            ("bratio_norm", "backfill ratio / classical's")), strict=True):
        bars(ax, list(traces), _series(table, traces, labels, key), name, reference=1.0)
    legend_below(fig, axes[0][0], 11)
    fig.suptitle("Checkpoint-based backfilling, normalised to classical EASY (dotted: 1.0) "
                 "(Fig. 4)", fontsize="medium")
    save(fig, out / "fig4.png")
    return FigureOutput(out / "fig4.csv", out / "fig4.png", table)


def _fig6_rows(rows: list[dict[str, Any]], t: str, name: str) -> list[dict[str, Any]]:
    out = []
    for label in ("classical", "ckpt"):
        for alpha in ALPHAS:
            row = find(rows, workload=name, scheduler=label, **{"workload.alpha": alpha})
            out.append({"trace": t, "scheduler": label, "alpha": alpha,
                        "mean_wait": row["mean_wait"], "mean_bsld": row["mean_bsld"],
                        "backfill_ratio": row["backfill_ratio"]})
    return out


def _fig6_window_rows(rows: list[dict[str, Any]], t: str, name: str) -> list[dict[str, Any]]:
    """A window's Fig. 6 rows with the slowdowns its claims compare each row to: the same
    scheduler's with exact estimates (`exact_mean_bsld`, alpha = 0) and classical EASY's with
    exact estimates (`classical_exact_mean_bsld`), both on the same window."""
    table = _fig6_rows(rows, t, name)
    exact = {r["scheduler"]: r["mean_bsld"] for r in table if r["alpha"] == 0.0}
    return [{**r, "exact_mean_bsld": exact[r["scheduler"]],
             "classical_exact_mean_bsld": exact["classical"]} for r in table]


def fig6(rows: list[dict[str, Any]], out: Path, traces: Sequence[str],
         windows: Windows = None) -> FigureOutput:
    """Wait, slowdown and backfill ratio for alpha in {0, 0.5, 1}; with `windows`, each
    window's rows in fig6_windows.csv (`_fig6_window_rows`)."""
    table = [r for t in traces for r in _fig6_rows(rows, t, t)]
    _by_window(out, "fig6", traces, windows, lambda t, name: _fig6_window_rows(rows, t, name))
    write_csv(out / "fig6.csv", table)
    fig, axes = figure(3, 2, 13, 9.5, sharey="row")
    for col, label in enumerate(("classical", "ckpt")):
        for row_i, (key, name, scale) in enumerate((
                ("mean_wait", "mean wait (h)", 1 / HOUR),
                ("mean_bsld", "mean bounded slowdown", 1.0),
                ("backfill_ratio", "backfill ratio (% of jobs)", 100.0))):
            series = {f"alpha = {a:g}": [next(r[key] for r in table if r["trace"] == t and
                                              r["scheduler"] == label and r["alpha"] == a)
                                         * scale for t in traces] for a in ALPHAS}
            bars(axes[row_i][col], list(traces), series, name)
            axes[row_i][col].tick_params(axis="x", labelsize="small")
        axes[0][col].set_title("classical EASY" if label == "classical"
                               else "ckpt-backfill, p = 0.2")
    legend_below(fig, axes[0][0], 3)
    save(fig, out / "fig6.png")
    return FigureOutput(out / "fig6.csv", out / "fig6.png", table)


def _fig7_rows(rows: list[dict[str, Any]], t: str, name: str) -> list[dict[str, Any]]:
    base = find(rows, workload=name, scheduler="classical")
    variants = [("no overhead", find(rows, workload=name, scheduler="no-overhead"))]
    variants += [(f"t_extend={x:g}", find(rows, workload=name, scheduler="ckpt",
                                             **{"param.t_extend": x})) for x in T_EXTENDS]
    return [{"trace": t, "variant": label, **_normalised(row, base),
             "preempt_ratio": row["preempt_ratio"],
             "checkpoints_per_node_day": row["checkpoints_per_node_day"],
             "node_checkpoints_per_node_day": row["node_checkpoints_per_node_day"],
             "wasted_ratio": row["wasted_ratio"]} for label, row in variants]


def fig7(rows: list[dict[str, Any]], out: Path, traces: Sequence[str],
         windows: Windows = None) -> FigureOutput:
    """Checkpoint overhead: t_extend in {120, 430, 1200, 3600} s and the zero-overhead case."""
    table = [r for t in traces for r in _fig7_rows(rows, t, t)]
    _by_window(out, "fig7", traces, windows, lambda t, name: _fig7_rows(rows, t, name))
    write_csv(out / "fig7.csv", table)
    fig, axes = figure(3, 2, 13, 9.5)
    labels = ["no overhead"] + [f"t_extend={x:g}" for x in T_EXTENDS]
    keys = (("wait_norm", "mean wait / classical's", 1.0, 1.0),
            ("bsld_norm", "mean bounded slowdown\n/ classical's", 1.0, 1.0),
            ("bratio_norm", "backfill ratio / classical's", 1.0, 1.0),
            ("preempt_ratio", "jobs preempted (%)", 100.0, None),
            ("node_checkpoints_per_node_day", "node-checkpoints per node-day", 1.0, None),
            ("wasted_ratio", "capacity spent on overheads (%)", 100.0, None))
    for ax, (key, name, scale, ref) in zip(axes.flat, keys, strict=True):
        bars(ax, list(traces), _series(table, traces, labels, key, scale=scale), name,
             reference=ref)
        ax.tick_params(axis="x", labelsize="small")
    legend_below(fig, axes[0][0], 5)
    fig.suptitle("Checkpoint overhead, p = 0.2 (t_extend in s; dotted: classical EASY = 1.0) "
                 "(Fig. 7)", fontsize="medium")
    save(fig, out / "fig7.png")
    return FigureOutput(out / "fig7.csv", out / "fig7.png", table)


READING_METRICS = ("mean_wait", "median_wait", "p95_wait", "p99_wait", "max_wait", "mean_bsld",
                   "max_bsld", "backfill_ratio", "preempt_ratio", "checkpoints_per_node_day",
                   "node_checkpoints_per_node_day",
                   *(f"{m}_{c}" for c, _ in SIZE_CLASSES
                     for m in ("jobs", "mean_wait", "mean_bsld")))


def _reading_rows(rows: list[dict[str, Any]], t: str, name: str) -> list[dict[str, Any]]:
    labels = ["classical"] + [label for label, _ in READINGS]
    return [{"trace": t, "reading": label,
             **{m: find(rows, workload=name, scheduler=label)[m] for m in READING_METRICS}}
            for label in labels]


def readings(rows: list[dict[str, Any]], out: Path, traces: Sequence[str],
             windows: Windows = None) -> FigureOutput:
    """The readings of an overdue prediction by job size, against classical EASY."""
    table = [r for t in traces for r in _reading_rows(rows, t, t)]
    _by_window(out, "readings", traces, windows, lambda t, name: _reading_rows(rows, t, name))
    if windows:
        _readings_windows_png(out, traces, windows,
                              lambda t, w: _reading_rows(rows, t, window_name(t, w)))
    write_csv(out / "readings.csv", table)
    ncols = min(len(traces), 3)
    nrows = -(-len(traces) // ncols)
    fig, axes = figure(nrows, ncols, 4.4 * ncols, 3.3 * nrows + 0.8)
    classes = [c for c, _ in SIZE_CLASSES]
    groups = ["all", *classes]
    for i, t in enumerate(traces):
        ax = axes[i // ncols][i % ncols]
        base = next(r for r in table if r["trace"] == t and r["reading"] == "classical")

        def ratio(r: dict[str, Any], g: str, base: dict[str, Any] = base) -> float:
            key = "mean_wait" if g == "all" else f"mean_wait_{g}"
            return _ratio(r[key], base[key])

        series = {READING_NAMES[label]: [ratio(r, g) for g in groups]
                  for label, _ in READINGS
                  for r in table if r["trace"] == t and r["reading"] == label}
        bars(ax, groups, series, "mean wait / classical EASY's (log)", reference=1.0)
        log_ratio_axis(ax)
        ax.set_title(t)
        ax.set_xlabel("job size (all jobs, then by fraction of the machine)")
    for j in range(len(traces), nrows * ncols):
        axes[j // ncols][j % ncols].set_visible(False)
    legend_below(fig, axes[0][0], 3)
    fig.suptitle("Mean wait by job size under the readings of an overdue prediction, "
                 "p = 0.2 (small <= 1/16 of the machine, medium <= 1/4, large <= 1/2, wide "
                 "> 1/2)", fontsize="medium")
    save(fig, out / "readings.png")
    return FigureOutput(out / "readings.csv", out / "readings.png", table)


def _readings_windows_png(out: Path, traces: Sequence[str],
                          windows: Mapping[str, Sequence[Window]],
                          rows_of: Callable[[str, Window], list[dict[str, Any]]]) -> None:
    """readings_windows.png: each window's wait change against EASY (dots) and their mean with
    its 95% t interval (bars, clipped at -100%), per trace and reading."""
    import numpy as np

    from ckptsim.experiments.stats import mean_ci

    ncols = min(len(traces), 3)
    nrows = -(-len(traces) // ncols)
    fig, axes = figure(nrows, ncols, 4.4 * ncols, 3.3 * nrows + 0.8)
    for i, t in enumerate(traces):
        ax = axes[i // ncols][i % ncols]
        changes: dict[str, list[float]] = {label: [] for label, _ in READINGS}
        for w in windows[t]:
            table = rows_of(t, w)
            base = next(r for r in table if r["reading"] == "classical")["mean_wait"]
            for r in table:
                if r["reading"] in changes:
                    changes[r["reading"]].append(100 * (_ratio(r["mean_wait"], base) - 1))
        for x, values in enumerate(changes.values()):
            mean, half, _ = mean_ci(values)
            low = max(mean - half, -100.0) if np.isfinite(half) else mean
            high = mean + half if np.isfinite(half) else mean
            ax.scatter([x] * len(values), values, s=12, color="tab:blue", alpha=0.6, lw=0,
                       label="one window" if x == 0 and i == 0 else None)
            ax.errorbar([x + 0.2], [mean], yerr=[[mean - low], [high - mean]], fmt="o",
                        color="black", ms=4, capsize=3,
                        label="mean, 95% interval" if x == 0 and i == 0 else None)
        ax.axhline(0.0, color="grey", ls=":", lw=1)
        ax.set_xticks(range(len(changes)), [label.replace("-", ",\n") for label in changes],
                      fontsize="x-small")
        ax.set_xlabel("overdue reading (\"backfilled\": scaled=backfilled)", fontsize="small")
        ax.set_ylabel("mean wait vs classical EASY (%)")
        ax.set_title(f"{t} ({len(windows[t])} windows)")
        ax.grid(alpha=0.3, axis="y")
    for j in range(len(traces), nrows * ncols):
        axes[j // ncols][j % ncols].set_visible(False)
    legend_below(fig, axes[0][0], 2)
    fig.suptitle("Wait against classical EASY over sub-periods of each trace (windows of equal "
                 "job count), p = 0.2", fontsize="medium")
    save(fig, out / "readings_windows.png")
