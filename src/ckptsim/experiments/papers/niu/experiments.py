"""Seed 000 (Niu et al., "Employing Checkpoint to Improve Job Scheduling in Large-Scale
Systems"): its figures on real Parallel Workloads Archive traces.

Figs. 4, 6, 7 and `readings` are experiment specs (written to the output folder, so they can
be rerun or extended with `ckptsim sweep`) run with the sweep machinery on all cores, followed
by the figure's own reduction of the results into `figN.csv` and `figN.png`
(`ckptsim.experiments.papers.niu.sweeps`).  Fig. 1 and Fig. 2 (properties of the traces) and
Fig. 5 (daily series of simulated schedules) are computed directly.

The seed used ANL-Intrepid, SDSC-Blue, CTC-SP2 and HPC2N; Intrepid is not available here, so
SDSC-SP2, KTH-SP2 and CEA-Curie (a 93,312-core machine of 2011 with user estimates, the closest
in scale to Intrepid's 40,960 nodes) take its place.  Sections 4.1-4.2 (Figs. 4-6) are without
checkpoint overhead, section 5 (Fig. 7) with it; t_thr is 1800 s throughout.  `readings`
compares the readings of an overdue prediction (docs/schedulers.md) by job size.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ckptsim.errors import ConfigError, did_you_mean
from ckptsim.experiments.papers.common import (
    FigureOutput,
    figure,
    legend_below,
    run_spec,
    save,
    write_csv,
)
from ckptsim.experiments.papers.niu import FIGURES
from ckptsim.experiments.papers.niu.windows import Window, trace_windows
from ckptsim.experiments.papers.niu.windows import name as window_name

TRACES: dict[str, str] = {
    "SDSC-BLUE": "SDSC-BLUE-2000-4.2-cln.swf.gz",
    "CTC-SP2": "CTC-SP2-1996-3.1-cln.swf.gz",
    "HPC2N": "HPC2N-2002-2.2-cln.swf.gz",
    "SDSC-SP2": "SDSC-SP2-1998-4.2-cln.swf.gz",
    "KTH-SP2": "KTH-SP2-1996-2.1-cln.swf.gz",
    "CEA-Curie": "CEA-Curie-2011-2.1-cln.swf.gz",
}
P_VALUES = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
ALPHAS = (0.0, 0.5, 1.0)
T_EXTENDS = (120.0, 430.0, 1200.0, 3600.0)
UTIL_BUCKETS = tuple(round(0.1 * k, 1) for k in range(11))
#: The readings of an overdue prediction compared by `readings` (p = 0.2, no overhead): the
#: run's label, its ckpt-backfill parameters; "classical" is EASY.
READINGS: tuple[tuple[str, dict[str, str]], ...] = (
    ("estimate", {}),
    ("now", {"overdue": "now"}),
    ("now-backfilled", {"overdue": "now", "scaled": "backfilled"}),
    ("reservation", {"overdue": "reservation"}),
    ("reservation-backfilled", {"overdue": "reservation", "scaled": "backfilled"}),
)
#: How the page and the figures name each reading.
READING_NAMES = {
    "estimate": "overdue=estimate (scheduler's default)", "now": "overdue=now",
    "now-backfilled": "overdue=now, scaled=backfilled (literal)",
    "reservation": "overdue=reservation",
    "reservation-backfilled": "overdue=reservation, scaled=backfilled (figures' default)",
}
#: Metrics every sweep of this paper keeps in its spec (the store holds them all anyway).
METRICS = ("mean_wait", "mean_bsld", "backfill_ratio", "preempt_ratio",
           "node_checkpoints_per_node_day", "wasted_ratio")


# ----------------------------------------------------------------------------- specs
def _workloads(traces: Sequence[str], first: int | None, suffix: str = "",
               alpha: float | Sequence[float] | None = None,
               windows: Mapping[str, Sequence[Window]] | None = None) -> str:
    """The whole traces' workloads, then (with `windows`) each trace's windows'."""
    out = []
    blocks = [(name, name, first, None) for name in traces]
    blocks += [(window_name(t, w), t, w.jobs, w) for t in traces
               for w in (windows or {}).get(t, ())]
    for name, trace, n, window in blocks:
        out.append(f'[workloads."{name}{suffix}"]\ntrace = "{TRACES[trace]}"')
        if window is not None:
            out.append(f"window = [{window.start!r}, inf]")
        if n:
            out.append(f"first = {n}")
        if alpha is not None:
            out.append(f"alpha = {list(alpha) if not isinstance(alpha, float) else alpha}")
        out.append("")
    return "\n".join(out)


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return f'"{value}"' if isinstance(value, str) else f"{value:g}"


def spec_text(figure: str, traces: Sequence[str], first: int | None = None,
              params: Mapping[str, Any] | None = None,
              windows: Mapping[str, Sequence[Window]] | None = None,
              share: float = 0.5) -> str:
    """The experiment spec of a figure (TOML); `params`: ckpt-backfill parameters added to
    every ckpt-backfill run (e.g. {"freeze": False, "retry": True}: the modelling choices of
    docs/schedulers.md; a figure's own parameters win); `windows`: each trace's sub-periods,
    run besides the whole traces (`niu.windows`); `share`: Fig. 7's t_checkpoint as a share of
    each t_extend (the restart pays the rest)."""
    if params:
        lines = spec_text(figure, traces, first, windows=windows, share=share).split("\n")
        for i, line in enumerate(lines):
            if line.startswith("params = { p = "):
                own = set(re.findall(r"(\w+) = ", line))
                extra = "".join(f"{k} = {_toml(v)}, " for k, v in params.items()
                                if k not in own)
                lines[i] = "params = { " + extra + line[len("params = { "):]
        return "\n".join(lines)
    names = ", ".join(f'"{m}"' for m in METRICS)
    head = f'name = "niu-{figure}"\nmetrics = [{names}]\n\n'
    if figure == "fig4":
        names = [*traces, *(window_name(t, w) for t in traces for w in (windows or {}).get(t, ()))]
        actual = [f'"{t}-actual"' for t in names]
        plain = [f'"{t}"' for t in names]
        return (head + _workloads(traces, first, windows=windows)
                + _workloads(traces, first, "-actual", 0.0, windows)
                + f'[[schedulers]]\nname = "easy"\nlabel = "classical"\n'
                  f'workloads = [{", ".join(plain)}]\n\n'
                  f'[[schedulers]]\nname = "easy"\nlabel = "classical-actual"\n'
                  f'workloads = [{", ".join(actual)}]\n\n'
                  f'[[schedulers]]\nname = "ckpt-backfill"\nlabel = "ckpt"\n'
                  f'workloads = [{", ".join(plain)}]\n'
                  f'params = {{ p = {list(P_VALUES)}, overhead = false }}\n')
    if figure == "fig6":
        return (head + _workloads(traces, first, alpha=list(ALPHAS), windows=windows)
                + '[[schedulers]]\nname = "easy"\nlabel = "classical"\n\n'
                  '[[schedulers]]\nname = "ckpt-backfill"\nlabel = "ckpt"\n'
                  'params = { p = 0.2, overhead = false }\n')
    if figure == "fig7":
        t_ckpt = [t * share for t in T_EXTENDS]
        return (head + _workloads(traces, first, windows=windows)
                + '[[schedulers]]\nname = "easy"\nlabel = "classical"\n\n'
                  '[[schedulers]]\nname = "ckpt-backfill"\nlabel = "no-overhead"\n'
                  'params = { p = 0.2, overhead = false }\n\n'
                  '[[schedulers]]\nname = "ckpt-backfill"\nlabel = "ckpt"\n'
                  f'params = {{ p = 0.2, t_extend = {list(T_EXTENDS)}, '
                  f't_checkpoint = {t_ckpt} }}\n'
                  'zip = [["t_extend", "t_checkpoint"]]\n')
    if figure == "readings":
        text = (head + _workloads(traces, first, windows=windows)
                + '[[schedulers]]\nname = "easy"\nlabel = "classical"\n')
        for label, params in READINGS:
            extra = "".join(f', {k} = "{v}"' for k, v in params.items())
            text += (f'\n[[schedulers]]\nname = "ckpt-backfill"\nlabel = "{label}"\n'
                     f'params = {{ p = 0.2, overhead = false{extra} }}\n')
        return text
    raise ConfigError("figure", f"no spec for {figure!r}; sweeps exist for fig4, fig6, fig7, "
                                f"readings")


# ----------------------------------------------------------------------------- Fig. 1
def logged_daily(w: Any) -> dict[str, list[float]]:
    """Daily utilisation and mean queue length of the schedule the trace itself records
    (start = submit + the logged wait, end = start + runtime; a missing wait counts as 0)."""
    from ckptsim.metrics.core import daily_series
    from ckptsim.records.jobs import JobTable
    from ckptsim.workload.model import SWF_INDEX

    wait = np.maximum(w.fields[:, SWF_INDEX["wait_time"]], 0.0)
    start = w.submit + wait
    end = start + w.runtime
    n = len(start)
    table = JobTable({"job_id": w.job_id, "submit": w.submit, "start": start, "end": end,
                      "size": w.size},
                     np.arange(n, dtype=np.int64), start, end, w.machine_size)
    return daily_series(table)


def fig1(out: Path, traces: Sequence[str], trace_dir: Path, first: int | None) -> FigureOutput:
    """Mean queue length against utilisation, one point per day of each trace's own log."""
    from ckptsim.workload.source import load_workload

    rows: list[dict[str, Any]] = []
    for t in traces:
        daily = logged_daily(load_workload(str(trace_dir / TRACES[t]), first=first))
        for day, util, qlen in zip(daily["day"], daily["utilization"], daily["queue_length"],
                                   strict=True):
            rows.append({"trace": t, "day": day, "utilization": util, "queue_length": qlen})
    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "fig1.csv", rows)
    ncols = min(len(traces), 3)
    nrows = -(-len(traces) // ncols)
    fig, axes = figure(nrows, ncols, 4.2 * ncols, 3.3 * nrows + 0.5)
    for i, t in enumerate(traces):
        ax = axes[i // ncols][i % ncols]
        util = np.array([r["utilization"] for r in rows if r["trace"] == t]) * 100
        qlen = np.array([r["queue_length"] for r in rows if r["trace"] == t])
        ax.axvspan(20, 80, color="tab:orange", alpha=0.12, lw=0,
                   label="20-80% of the nodes idle" if i == 0 else None)
        ax.scatter(util, qlen, s=5, alpha=0.5, color="tab:blue", lw=0,
                   label="one day of the log" if i == 0 else None)
        ax.set_title(t)
        ax.set_xlabel("daily utilisation (% of the machine)")
        ax.set_ylabel("mean queue length (jobs)")
        ax.set_xlim(0, max(105.0, float(util.max(initial=0.0)) + 5))
        ax.grid(alpha=0.3)
    for j in range(len(traces), nrows * ncols):
        axes[j // ncols][j % ncols].set_visible(False)
    legend_below(fig, axes[0][0], 2)
    save(fig, out / "fig1.png")
    return FigureOutput(out / "fig1.csv", out / "fig1.png", rows)


# ----------------------------------------------------------------------------- Fig. 2
def fig2(out: Path, traces: Sequence[str], trace_dir: Path, first: int | None) -> FigureOutput:
    """Distribution of runtime / estimate per trace (fig2.csv), and the shares the seed quotes
    per trace and over all jobs of the traces together (fig2_shares.csv)."""
    from ckptsim.plots.trace import plot_runtime_estimate_ratio
    from ckptsim.workload.source import load_workload
    from ckptsim.workload.stats import ratio_histogram, runtime_estimate_ratio

    workloads = {t: load_workload(str(trace_dir / TRACES[t]), first=first) for t in traces}
    rows = []
    shares = []
    ratios = {name: runtime_estimate_ratio(w) for name, w in workloads.items()}
    for name, ratio in [*ratios.items(), ("all", np.concatenate(list(ratios.values())))]:
        if name != "all":
            hist = ratio_histogram(ratio)
            for lo, hi, frac in zip(hist["low"], hist["high"], hist["fraction"], strict=True):
                rows.append({"trace": name, "ratio_low": lo, "ratio_high": hi,
                             "fraction": frac})
        n = max(len(ratio), 1)
        shares.append({"trace": name, "jobs": len(ratio),
                       "share_le_0.2": float(np.count_nonzero(ratio <= 0.2)) / n,
                       "share_0.9_to_1.1": float(np.count_nonzero((ratio >= 0.9)
                                                                  & (ratio <= 1.1))) / n,
                       "share_over_1": float(np.count_nonzero(ratio > 1.0)) / n})
    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "fig2.csv", rows)
    write_csv(out / "fig2_shares.csv", shares)
    plot_runtime_estimate_ratio(workloads, out / "fig2.png")
    return FigureOutput(out / "fig2.csv", out / "fig2.png", rows)


# ----------------------------------------------------------------------------- Fig. 5
def _daily_job(args: tuple[str, str, dict[str, Any], float | None, int | None]
               ) -> dict[str, list[float]]:
    from ckptsim.runner import simulate
    from ckptsim.workload.source import load_workload

    path, scheduler, params, alpha, first = args
    w = load_workload(path, first=first, alpha=alpha)
    return simulate(w, scheduler, params).daily


def fig5_variants(params: Mapping[str, Any] | None = None
                  ) -> tuple[tuple[str, str, dict[str, Any], float | None], ...]:
    """Fig. 5's runs of each trace: label, scheduler, parameters (`params` as `spec_text`'s)
    and alpha (None: the trace's estimates)."""
    return (("classical", "easy", {}, None), ("classical-actual", "easy", {}, 0.0),
            ("ckpt p=0.2", "ckpt-backfill", {**(params or {}), "p": 0.2, "overhead": False},
             None))


def fig5(out: Path, traces: Sequence[str], trace_dir: Path, jobs: int | None,
         first: int | None, params: Mapping[str, Any] | None = None) -> FigureOutput:
    """Mean queue length of the days in each daily-utilisation bucket (`params` as
    `spec_text`'s; the command's `--set` values on each run's scheduler)."""
    from ckptsim.experiments.papers.settings import scheduler_params

    variants = fig5_variants(params)
    tasks = [(str(trace_dir / TRACES[t]), s, scheduler_params(s, prm), alpha, first)
             for t in traces for _, s, prm, alpha in variants]
    if jobs == 0:
        dailies = [_daily_job(task) for task in tasks]
    else:
        from ckptsim.experiments.pool import map_processes

        dailies = map_processes(_daily_job, tasks, jobs)
    table: list[dict[str, Any]] = []
    for k, (t, (label, *_)) in enumerate((t, v) for t in traces for v in variants):
        daily = dailies[k]
        util = np.asarray(daily["utilization"])
        qlen = np.asarray(daily["queue_length"])
        for b in range(10):
            lo, hi = UTIL_BUCKETS[b], UTIL_BUCKETS[b + 1]
            sel = (util >= lo) & ((util < hi) if b < 9 else (util <= hi + 1e-9))
            table.append({"trace": t, "scheduler": label, "util_low": lo, "util_high": hi,
                          "days": int(sel.sum()),
                          "mean_queue_length": float(qlen[sel].mean()) if sel.any() else
                          float("nan")})
    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "fig5.csv", table)
    ncols = min(len(traces), 3)
    nrows = -(-len(traces) // ncols)
    fig, axes = figure(nrows, ncols, 4.2 * ncols, 3.3 * nrows + 0.5)
    for i, t in enumerate(traces):
        ax = axes[i // ncols][i % ncols]
        for label, *_ in variants:
            pts = [r for r in table if r["trace"] == t and r["scheduler"] == label]
            ax.plot([(float(r["util_low"]) + float(r["util_high"])) * 50 for r in pts],
                    [r["mean_queue_length"] for r in pts], marker="o", label=label)
        ax.set_title(t)
        ax.set_xlabel("daily utilisation (%), bucket centre")
        ax.set_ylabel("mean queue length (jobs)")
        ax.set_xlim(0, 100)
        ax.grid(alpha=0.3)
    for j in range(len(traces), nrows * ncols):
        axes[j // ncols][j % ncols].set_visible(False)
    legend_below(fig, axes[0][0], 3)
    save(fig, out / "fig5.png")
    return FigureOutput(out / "fig5.csv", out / "fig5.png", table)


# ----------------------------------------------------------------------------- entry point
def run_figure(figure: str, out: str | Path, *, trace_dir: str | Path,
               traces: Sequence[str] | None = None, jobs: int | None = None,
               first: int | None = None,
               on_row: Callable[[dict[str, Any]], None] | None = None,
               params: Mapping[str, Any] | None = None,
               windows: int | None = None, share: float = 0.5) -> FigureOutput:
    """Compute one figure of seed 000 into `out` (figN.csv, figN.png, and the sweep store);
    `params` and `share` as `spec_text`'s; `windows`: K sub-periods of each trace run besides
    the whole traces (swept figures: their rows in figN_windows.csv; the others ignore it)."""
    from ckptsim.experiments.papers.niu import sweeps as niu_sweeps

    if figure not in FIGURES:
        raise ConfigError("figure", f"unknown figure {figure!r}{did_you_mean(figure, FIGURES)}; "
                                    f"accepted: {', '.join(FIGURES)}")
    names = list(traces) if traces else list(TRACES)
    unknown = [t for t in names if t not in TRACES]
    if unknown:
        raise ConfigError("--traces", f"unknown trace {unknown[0]!r}"
                                      f"{did_you_mean(unknown[0], TRACES)}; accepted: "
                                      f"{', '.join(TRACES)}")
    folder = Path(trace_dir)
    missing = [TRACES[t] for t in names if not (folder / TRACES[t]).exists()]
    if missing:
        raise ConfigError("--trace-dir", f"{folder}: missing {', '.join(missing)}")
    out_path = Path(out)
    out_path.mkdir(parents=True, exist_ok=True)
    if figure == "fig1":
        return fig1(out_path, names, folder, first)
    if figure == "fig2":
        return fig2(out_path, names, folder, first)
    if figure == "fig5":
        return fig5(out_path, names, folder, jobs, first, params)
    cuts = trace_windows(folder, TRACES, names, first, windows) if windows else None
    rows = run_spec(figure, spec_text(figure, names, first, params, cuts, share), out_path,
                    folder, jobs, on_row)
    reduce = {"fig4": niu_sweeps.fig4, "fig6": niu_sweeps.fig6, "fig7": niu_sweeps.fig7,
              "readings": niu_sweeps.readings}[figure]
    return reduce(rows, out_path, names, cuts)
