"""Seed 000 (Niu et al., "Employing Checkpoint to Improve Job Scheduling in Large-Scale
Systems"): its figures on real Parallel Workloads Archive traces.

Each figure is an experiment spec (written to the output folder, so it can be rerun or
extended with `ckptsim sweep`) run with the sweep machinery on all cores, followed by the
figure's own reduction of the results into `figN.csv` and `figN.png`.  Fig. 2 (a property of
the traces) and Fig. 5 (daily series) are computed directly.

The seed used ANL-Intrepid, SDSC-Blue, CTC-SP2 and HPC2N; Intrepid is not available here, so
SDSC-SP2 and KTH-SP2 take its place.  Sections 4.1-4.2 (Figs. 4-6) are without checkpoint
overhead, section 5 (Fig. 7) with it; t_thr is 1800 s throughout.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from ckptsim.errors import ConfigError
from ckptsim.experiments.papers.common import FigureOutput, find, plt, run_spec, save, write_csv

TRACES: dict[str, str] = {
    "SDSC-BLUE": "SDSC-BLUE-2000-4.2-cln.swf.gz",
    "CTC-SP2": "CTC-SP2-1996-3.1-cln.swf.gz",
    "HPC2N": "HPC2N-2002-2.2-cln.swf.gz",
    "SDSC-SP2": "SDSC-SP2-1998-4.2-cln.swf.gz",
    "KTH-SP2": "KTH-SP2-1996-2.1-cln.swf.gz",
}
P_VALUES = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
ALPHAS = (0.0, 0.5, 1.0)
T_EXTENDS = (120.0, 430.0, 1200.0, 3600.0)
FIGURES = ("fig2", "fig4", "fig5", "fig6", "fig7")
UTIL_BUCKETS = tuple(round(0.1 * k, 1) for k in range(11))


# ----------------------------------------------------------------------------- specs
def _workloads(traces: Sequence[str], first: int | None, suffix: str = "",
               alpha: float | Sequence[float] | None = None) -> str:
    out = []
    for name in traces:
        out.append(f'[workloads."{name}{suffix}"]\ntrace = "{TRACES[name]}"')
        if first:
            out.append(f"first = {first}")
        if alpha is not None:
            out.append(f"alpha = {list(alpha) if not isinstance(alpha, float) else alpha}")
        out.append("")
    return "\n".join(out)


def spec_text(figure: str, traces: Sequence[str], first: int | None = None) -> str:
    """The experiment spec of a figure (TOML)."""
    head = (f'name = "niu-{figure}"\nmetrics = ["mean_wait", "mean_bsld", "backfill_ratio", '
            f'"preempt_ratio", "checkpoints_per_node_day", "wasted_ratio"]\n\n')
    if figure == "fig4":
        actual = [f'"{t}-actual"' for t in traces]
        plain = [f'"{t}"' for t in traces]
        return (head + _workloads(traces, first) + _workloads(traces, first, "-actual", 0.0)
                + f'[[schedulers]]\nname = "easy"\nlabel = "classical"\n'
                  f'workloads = [{", ".join(plain)}]\n\n'
                  f'[[schedulers]]\nname = "easy"\nlabel = "classical-actual"\n'
                  f'workloads = [{", ".join(actual)}]\n\n'
                  f'[[schedulers]]\nname = "ckpt-backfill"\nlabel = "ckpt"\n'
                  f'workloads = [{", ".join(plain)}]\n'
                  f'params = {{ p = {list(P_VALUES)}, overhead = false }}\n')
    if figure == "fig6":
        return (head + _workloads(traces, first, alpha=list(ALPHAS))
                + '[[schedulers]]\nname = "easy"\nlabel = "classical"\n\n'
                  '[[schedulers]]\nname = "ckpt-backfill"\nlabel = "ckpt"\n'
                  'params = { p = 0.2, overhead = false }\n')
    if figure == "fig7":
        t_ckpt = [t / 2 for t in T_EXTENDS]
        return (head + _workloads(traces, first)
                + '[[schedulers]]\nname = "easy"\nlabel = "classical"\n\n'
                  '[[schedulers]]\nname = "ckpt-backfill"\nlabel = "no-overhead"\n'
                  'params = { p = 0.2, overhead = false }\n\n'
                  '[[schedulers]]\nname = "ckpt-backfill"\nlabel = "ckpt"\n'
                  f'params = {{ p = 0.2, t_extend = {list(T_EXTENDS)}, '
                  f't_checkpoint = {t_ckpt} }}\n'
                  'zip = [["t_extend", "t_checkpoint"]]\n')
    raise ConfigError("figure", f"no spec for {figure!r}; sweeps exist for fig4, fig6, fig7")


# ----------------------------------------------------------------------------- outputs
def _bars(ax: Any, groups: list[str], series: dict[str, list[float]], ylabel: str) -> None:
    width = 0.8 / max(len(series), 1)
    # The first series (the reference variant) in grey, the others along a colour ramp.
    ramp = plt().get_cmap("viridis")(np.linspace(0.0, 0.9, max(len(series) - 1, 1)))
    for k, (label, values) in enumerate(series.items()):
        x = np.arange(len(groups)) + (k - (len(series) - 1) / 2) * width
        ax.bar(x, values, width=width, label=label, color="0.55" if k == 0 else ramp[k - 1])
    ax.set_xticks(np.arange(len(groups)), groups)
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)


def _normalised(row: dict[str, Any], base: dict[str, Any]) -> dict[str, float]:
    """Wait, bounded slowdown and backfill ratio of a run relative to classical EASY's."""
    return {"wait_norm": row["mean_wait"] / base["mean_wait"],
            "bsld_norm": row["mean_bsld"] / base["mean_bsld"],
            "bratio_norm": row["backfill_ratio"] / base["backfill_ratio"]}


# ----------------------------------------------------------------------------- figures
def fig2(out: Path, traces: Sequence[str], trace_dir: Path, first: int | None) -> FigureOutput:
    """Distribution of runtime / estimate per trace."""
    from ckptsim.plots.trace import plot_runtime_estimate_ratio
    from ckptsim.workload.source import load_workload
    from ckptsim.workload.stats import ratio_histogram, runtime_estimate_ratio

    workloads = {t: load_workload(str(trace_dir / TRACES[t]), first=first) for t in traces}
    rows = []
    for name, w in workloads.items():
        hist = ratio_histogram(runtime_estimate_ratio(w))
        for lo, hi, frac in zip(hist["low"], hist["high"], hist["fraction"], strict=True):
            rows.append({"trace": name, "ratio_low": lo, "ratio_high": hi, "fraction": frac})
    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "fig2.csv", rows)
    plot_runtime_estimate_ratio(workloads, out / "fig2.png")
    return FigureOutput(out / "fig2.csv", out / "fig2.png", rows)


def fig4(rows: list[dict[str, Any]], out: Path, traces: Sequence[str]) -> FigureOutput:
    """Wait, bounded slowdown and backfill ratio for p = 0.1 ... 1.0, normalised to EASY."""
    table = []
    for t in traces:
        base = find(rows, workload=t, scheduler="classical")
        variants = [("classical-actual", find(rows, workload=f"{t}-actual",
                                                 scheduler="classical-actual"))]
        variants += [(f"p={p:g}", find(rows, workload=t, scheduler="ckpt", **{"param.p": p}))
                     for p in P_VALUES]
        for label, row in variants:
            table.append({
                "trace": t, "variant": label, **_normalised(row, base),
                "mean_wait": row["mean_wait"], "mean_bsld": row["mean_bsld"],
                "backfill_ratio": row["backfill_ratio"],
                "preempt_ratio": row["preempt_ratio"],
                "easy_mean_wait": base["mean_wait"], "easy_mean_bsld": base["mean_bsld"],
                "easy_backfill_ratio": base["backfill_ratio"]})
    write_csv(out / "fig4.csv", table)
    pyplot = plt()
    fig, axes = pyplot.subplots(3, 1, figsize=(10, 9), dpi=130)
    labels = ["classical-actual"] + [f"p={p:g}" for p in P_VALUES]
    for ax, (key, name) in zip(axes, (("wait_norm", "wait"), ("bsld_norm", "slowdown"),
                                      ("bratio_norm", "backfill ratio")), strict=True):
        series = {lab: [next(r[key] for r in table if r["trace"] == t and r["variant"] == lab)
                        for t in traces] for lab in labels}
        _bars(ax, list(traces), series, f"{name} / classical")
        ax.axhline(1.0, color="k", ls=":", lw=1)
    axes[0].legend(ncol=6, fontsize="x-small")
    axes[0].set_title("Checkpoint-based backfilling, normalised to classical EASY (Fig. 4)")
    save(fig, out / "fig4.png")
    return FigureOutput(out / "fig4.csv", out / "fig4.png", table)


def _daily_job(args: tuple[str, str, dict[str, Any], float | None, int | None]
               ) -> dict[str, list[float]]:
    from ckptsim.runner import simulate
    from ckptsim.workload.source import load_workload

    path, scheduler, params, alpha, first = args
    w = load_workload(path, first=first, alpha=alpha)
    return simulate(w, scheduler, params).daily


def fig5(out: Path, traces: Sequence[str], trace_dir: Path, jobs: int | None,
         first: int | None) -> FigureOutput:
    """Mean queue length of the days in each daily-utilisation bucket."""
    variants: tuple[tuple[str, str, dict[str, Any], float | None], ...] = (
        ("classical", "easy", {}, None), ("classical-actual", "easy", {}, 0.0),
                ("ckpt p=0.2", "ckpt-backfill", {"p": 0.2, "overhead": False}, None))
    tasks = [(str(trace_dir / TRACES[t]), s, prm, alpha, first)
             for t in traces for _, s, prm, alpha in variants]
    with ProcessPoolExecutor(max_workers=jobs or None) as pool:
        dailies = list(pool.map(_daily_job, tasks))
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
    pyplot = plt()
    fig, axes = pyplot.subplots(1, len(traces), figsize=(4 * len(traces), 3.5), dpi=130,
                             squeeze=False)
    for ax, t in zip(axes[0], traces, strict=True):
        for label, *_ in variants:
            pts = [r for r in table if r["trace"] == t and r["scheduler"] == label]
            ax.plot([float(r["util_high"]) * 100 for r in pts],
                    [r["mean_queue_length"] for r in pts],
                    marker="o", label=label)
        ax.set_title(t)
        ax.set_xlabel("daily utilisation (%), bucket upper bound")
        ax.set_ylabel("mean queue length")
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize="x-small")
    save(fig, out / "fig5.png")
    return FigureOutput(out / "fig5.csv", out / "fig5.png", table)


def fig6(rows: list[dict[str, Any]], out: Path, traces: Sequence[str]) -> FigureOutput:
    """Wait, slowdown and backfill ratio for alpha in {0, 0.5, 1}."""
    table = []
    for t in traces:
        for label in ("classical", "ckpt"):
            for alpha in ALPHAS:
                row = find(rows, workload=t, scheduler=label, **{"workload.alpha": alpha})
                table.append({"trace": t, "scheduler": label, "alpha": alpha,
                              "mean_wait": row["mean_wait"], "mean_bsld": row["mean_bsld"],
                              "backfill_ratio": row["backfill_ratio"]})
    write_csv(out / "fig6.csv", table)
    pyplot = plt()
    fig, axes = pyplot.subplots(3, 2, figsize=(10, 9), dpi=130, sharey="row")
    for col, label in enumerate(("classical", "ckpt")):
        for row_i, key in enumerate(("mean_wait", "mean_bsld", "backfill_ratio")):
            series = {f"alpha={a:g}": [next(r[key] for r in table if r["trace"] == t and
                                            r["scheduler"] == label and r["alpha"] == a)
                                       for t in traces] for a in ALPHAS}
            _bars(axes[row_i][col], list(traces), series, key)
        axes[0][col].set_title(label if label == "classical" else "ckpt-backfill p = 0.2")
    axes[0][0].legend(fontsize="x-small")
    save(fig, out / "fig6.png")
    return FigureOutput(out / "fig6.csv", out / "fig6.png", table)


def fig7(rows: list[dict[str, Any]], out: Path, traces: Sequence[str]) -> FigureOutput:
    """Checkpoint overhead: t_extend in {120, 430, 1200, 3600} s and the zero-overhead case."""
    table = []
    for t in traces:
        base = find(rows, workload=t, scheduler="classical")
        variants = [("no overhead", find(rows, workload=t, scheduler="no-overhead"))]
        variants += [(f"t_extend={x:g}", find(rows, workload=t, scheduler="ckpt",
                                                 **{"param.t_extend": x})) for x in T_EXTENDS]
        for label, row in variants:
            table.append({"trace": t, "variant": label, **_normalised(row, base),
                          "preempt_ratio": row["preempt_ratio"],
                          "checkpoints_per_node_day": row["checkpoints_per_node_day"],
                          "wasted_ratio": row["wasted_ratio"]})
    write_csv(out / "fig7.csv", table)
    pyplot = plt()
    fig, axes = pyplot.subplots(3, 2, figsize=(11, 9), dpi=130)
    labels = ["no overhead"] + [f"t_extend={x:g}" for x in T_EXTENDS]
    keys = (("wait_norm", "wait / classical"), ("bsld_norm", "slowdown / classical"),
            ("bratio_norm", "bRatio / classical"), ("preempt_ratio", "pRatio"),
            ("checkpoints_per_node_day", "cNum (per node-day)"),
            ("wasted_ratio", "wRatio"))
    for ax, (key, name) in zip(axes.flat, keys, strict=True):
        series = {lab: [next(r[key] for r in table if r["trace"] == t and r["variant"] == lab)
                        for t in traces] for lab in labels}
        _bars(ax, list(traces), series, name)
    axes[0][0].legend(fontsize="x-small")
    save(fig, out / "fig7.png")
    return FigureOutput(out / "fig7.csv", out / "fig7.png", table)


def run_figure(figure: str, out: str | Path, *, trace_dir: str | Path,
               traces: Sequence[str] | None = None, jobs: int | None = None,
               first: int | None = None,
               on_row: Callable[[dict[str, Any]], None] | None = None) -> FigureOutput:
    """Compute one figure of seed 000 into `out` (figN.csv, figN.png, and the sweep store)."""
    if figure not in FIGURES:
        raise ConfigError("figure", f"unknown figure {figure!r}; accepted: {', '.join(FIGURES)}")
    names = list(traces) if traces else list(TRACES)
    unknown = [t for t in names if t not in TRACES]
    if unknown:
        raise ConfigError("--traces", f"unknown trace {unknown[0]!r}; accepted: "
                                      f"{', '.join(TRACES)}")
    folder = Path(trace_dir)
    missing = [TRACES[t] for t in names if not (folder / TRACES[t]).exists()]
    if missing:
        raise ConfigError("--trace-dir", f"{folder}: missing {', '.join(missing)}")
    out_path = Path(out)
    out_path.mkdir(parents=True, exist_ok=True)
    if figure == "fig2":
        return fig2(out_path, names, folder, first)
    if figure == "fig5":
        return fig5(out_path, names, folder, jobs, first)
    rows = run_spec(figure, spec_text(figure, names, first), out_path, folder, jobs, on_row)
    return {"fig4": fig4, "fig6": fig6, "fig7": fig7}[figure](rows, out_path, names)
