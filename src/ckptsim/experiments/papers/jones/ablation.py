"""Runs of seed 001 beyond its figures: the CPfrac sweep the seed takes its 4% from, the agent
that does not know the overhead ("assume 30 min"), and the readings of the model that drive
the results, one at a time (docs/grid.md, "Model options").  All at 300 Mbit/s and +-100%
uniform error, every job informed, on the workloads of the other families (a run they share
has one id).

- family `cpfrac-sweep`: figure `cpfrac` (turnaround vs CPfrac, CTMR at 10 min) and figure
  `unknown` (CTMR at 0-30 min, the agent knowing the overhead or assuming 30 min);
- family `readings`: figure `ablation`, the ideal case (0% error), co-allocation without CTMR
  and CTMR at 0 and 10 min under today's readings and under each of `admit_cut=real`,
  `ctmr_waiting=dispatch`, `ctmr_steps=seed`, all three at once, and a fixed kappa
  (`grid:kappa=`, `ABLATION_KAPPA`).

Each row gives the mean over the replications (workload seeds) and, from two replications
on, the half-width of its 95% interval; the improvement over Migration Only is paired by seed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ckptsim.experiments.papers.common import FigureOutput, plt, save, write_csv
from ckptsim.experiments.stats import mean_ci

HOUR = 3600.0
PPBW = 300.0
CPFRACS = (0.005, 0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 1.0)
CPFRAC_OVERHEAD = 600.0  # the seed's "modest" 10 min
DEFAULT_CPFRAC = 0.04  # the seed's
DEFAULT_OVERHEAD = 600.0  # `overhead` of the runs without CTMR (the parameter's default)
UNKNOWN_MINUTES = (0, 5, 10, 20, 30)
ABLATION_KAPPA = 0.5
ABLATION_MINUTES = (0, 10)
#: Families (named apart from their figures: a command names the figures) and figures.
FAMILIES = {"cpfrac-sweep": ("cpfrac", "unknown"), "readings": ("ablation",)}
FIGURES = ("cpfrac", "unknown", "ablation")
#: Readings of the ablation: label -> (what it changes, its `coalloc` parameters).
READINGS: dict[str, tuple[str, dict[str, Any]]] = {
    "": ("today's readings", {}),
    "-real-cut": ("admit_cut=real", {"admit_cut": "real"}),
    "-dispatch": ("ctmr_waiting=dispatch", {"ctmr_waiting": "dispatch"}),
    "-seed-steps": ("ctmr_steps=seed", {"ctmr_steps": "seed"}),
    "-seed-readings": ("all three", {"admit_cut": "real", "ctmr_waiting": "dispatch",
                                     "ctmr_steps": "seed"}),
}
#: Variants without CTMR that a reading can change (the others only change the agent).
NO_AGENT_READINGS = ("", "-real-cut")

Spec = Callable[..., list[str]]


def spec_lines(family: str, workload: Spec, scheduler: Spec) -> list[str]:
    """The workloads and schedulers of a family, with the caller's TOML writers
    (`workload(name, ppbw, errors, kappa=None)`, `scheduler(label, workloads, **params)`)."""
    lines = workload("base", PPBW, (0.0,)) + workload("err", PPBW, (1.0,))
    lines += scheduler("migration-only", ["base"], coalloc=False)
    lines += scheduler("coalloc", ["err"], coalloc=True, ctmr=False)
    if family == "cpfrac-sweep":
        # 4% at 10 min is a point of the overhead line below (one run).
        lines += scheduler("ctmr", ["err"], ctmr=True, overhead=CPFRAC_OVERHEAD,
                           cpfrac=[c for c in CPFRACS if c != DEFAULT_CPFRAC])
        minutes = [60.0 * m for m in UNKNOWN_MINUTES]
        lines += scheduler("ctmr", ["err"], ctmr=True, overhead=minutes)
        lines += scheduler("ctmr-unknown", ["err"], ctmr=True, overhead=minutes,
                           overhead_known=False)
        return lines
    lines += workload("ideal", PPBW, (0.0,)) + workload("kappa", PPBW, (0.0,),
                                                        kappa=ABLATION_KAPPA)
    lines += workload("kappa-err", PPBW, (1.0,), kappa=ABLATION_KAPPA)
    lines += scheduler("coalloc", ["ideal", "kappa", "kappa-err"], coalloc=True, ctmr=False)
    overheads = [60.0 * m for m in ABLATION_MINUTES]
    lines += scheduler("ctmr", ["kappa-err"], ctmr=True, overhead=overheads)
    for suffix, (_, params) in READINGS.items():
        if suffix in NO_AGENT_READINGS and suffix:
            lines += scheduler(f"coalloc{suffix}", ["ideal", "err"], coalloc=True, ctmr=False,
                               **params)
        lines += scheduler(f"ctmr{suffix}", ["err"], ctmr=True, overhead=overheads, **params)
    return lines


def runs_of(family: str) -> int:
    """Runs of one replication of a family."""
    if family == "cpfrac-sweep":  # CPfrac 4% at 10 min is also the known overhead's 10 min
        return 2 + len(CPFRACS) + 2 * len(UNKNOWN_MINUTES) - 1
    readings = len(READINGS) * len(ABLATION_MINUTES) + 2 * (len(NO_AGENT_READINGS) - 1)
    return 2 + 3 + len(ABLATION_MINUTES) + readings


# ----------------------------------------------------------------------------- reduction
def groups(rows: list[dict[str, Any]]) -> dict[tuple[Any, ...], dict[int, dict[str, Any]]]:
    """Rows by configuration (label, error, kappa, overhead, cpfrac, overhead_known), each a
    map seed -> row."""
    out: dict[tuple[Any, ...], dict[int, dict[str, Any]]] = {}
    for r in rows:
        if r.get("status") != "ok":
            continue
        key = (r["scheduler"], float(r.get("workload.error") or 0.0), r.get("workload.kappa"),
               float(r["param.overhead"]), float(r["param.cpfrac"]),
               bool(r["param.overhead_known"]))
        out.setdefault(key, {})[int(r["seed"])] = r
    return out


def _stats(runs: dict[int, dict[str, Any]], base: dict[int, float]) -> dict[str, Any]:
    turnaround, half, n = mean_ci([r["mean_response"] / HOUR for r in runs.values()])
    improvement, ihalf, _ = mean_ci([1.0 - r["mean_response"] / base[s]
                                     for s, r in runs.items() if s in base])
    return {"turnaround_h": turnaround, "turnaround_ci": half,
            "improvement": improvement, "improvement_ci": ihalf,
            "ctmr_checkpoints": mean_ci([r["ctmr_checkpoints"] for r in runs.values()])[0],
            "coalloc_starts": mean_ci([r["coalloc_starts"] for r in runs.values()])[0],
            "saturated_time": mean_ci([r["saturated_time"] for r in runs.values()])[0],
            "coalloc_slowdown": mean_ci([r["coalloc_slowdown"] for r in runs.values()])[0],
            "seeds": n}


def _base(by: dict[tuple[Any, ...], dict[int, dict[str, Any]]]) -> dict[int, float]:
    runs = next(v for k, v in by.items() if k[0] == "migration-only")
    return {s: float(r["mean_response"]) for s, r in runs.items()}


# ----------------------------------------------------------------------------- figures
def cpfrac_figure(rows: list[dict[str, Any]], out: Path) -> FigureOutput:
    """Turnaround vs CPfrac, CTMR at 10 min."""
    by = groups(rows)
    base = _base(by)
    table = []
    for cp in CPFRACS:
        runs = by.get(("ctmr", 1.0, None, CPFRAC_OVERHEAD, cp, True), {})
        table.append({"ppbw": PPBW, "error": 1.0, "overhead_min": CPFRAC_OVERHEAD / 60.0,
                      "cpfrac": cp, **_stats(runs, base)})
    without = _stats(by[("coalloc", 1.0, None, DEFAULT_OVERHEAD, DEFAULT_CPFRAC, True)], base)
    fig = plt().figure(figsize=(6.0, 4.2), dpi=130)
    ax = fig.add_subplot(1, 1, 1)
    ax.errorbar([r["cpfrac"] * 100 for r in table], [r["turnaround_h"] for r in table],
                yerr=[_bar(r["turnaround_ci"]) for r in table], marker="o", ms=3, capsize=2,
                label="CTMR, 10 min")
    ax.axhline(without["turnaround_h"], color="0.4", ls=":", label="without CTMR")
    ax.axhline(_mean(base) / HOUR, color="k", ls="--", lw=1, label="Migration Only")
    ax.set_xscale("log")
    ax.set_xticks([r["cpfrac"] * 100 for r in table], [f"{r['cpfrac'] * 100:g}" for r in table])
    _finish(ax, "CPfrac (% of the remaining time)",
            f"CTMR vs CPfrac, {PPBW:g} Mbit/s, +-100% error")
    return _write("cpfrac", out, table, fig)


def unknown_figure(rows: list[dict[str, Any]], out: Path) -> FigureOutput:
    """CTMR at 0-30 min, knowing the overhead or assuming 30 min."""
    by = groups(rows)
    base = _base(by)
    table = []
    fig = plt().figure(figsize=(6.0, 4.2), dpi=130)
    ax = fig.add_subplot(1, 1, 1)
    for label, known in (("ctmr", True), ("ctmr-unknown", False)):
        line = []
        for m in UNKNOWN_MINUTES:
            runs = by.get((label, 1.0, None, 60.0 * m, DEFAULT_CPFRAC, known), {})
            line.append({"ppbw": PPBW, "error": 1.0, "overhead_known": known,
                         "overhead_min": float(m), **_stats(runs, base)})
        table += line
        ax.errorbar([r["overhead_min"] for r in line], [r["turnaround_h"] for r in line],
                    yerr=[_bar(r["turnaround_ci"]) for r in line], marker="o", ms=3,
                    capsize=2, label="overhead known" if known else "unknown: 30 min assumed")
    ax.axhline(_mean(base) / HOUR, color="k", ls="--", lw=1, label="Migration Only")
    _finish(ax, "checkpoint / restart overhead (min)",
            f"CTMR when the overhead is unknown, {PPBW:g} Mbit/s, +-100% error")
    return _write("unknown", out, table, fig)


def ablation_figure(rows: list[dict[str, Any]], out: Path) -> FigureOutput:
    """Improvement over Migration Only of every variant, under each reading."""
    by = groups(rows)
    base = _base(by)
    table = []

    def add(variant: str, reading: str, label: str, error: float, kappa: float | None,
            minutes: float | None = None) -> None:
        overhead = DEFAULT_OVERHEAD if minutes is None else 60.0 * minutes
        key = (label, error, kappa, overhead, DEFAULT_CPFRAC, True)
        if key in by:
            runs = by[key]
            # Turnaround gained over the ideal case of the same reading (the agent's readings
            # leave it as it is; admit_cut=real changes it), paired by seed.
            cut = "-real-cut" if "real-cut" in label or "seed-readings" in label else ""
            ideal = by.get((f"coalloc{cut}", 0.0, kappa, DEFAULT_OVERHEAD, DEFAULT_CPFRAC,
                            True), {})
            gain, half, _ = mean_ci([(float(ideal[s]["mean_response"])
                                      - float(r["mean_response"])) / HOUR
                                     for s, r in runs.items() if s in ideal])
            table.append({"ppbw": PPBW, "variant": variant, "reading": reading,
                          "kappa": "min(0.9, PPBW/1000)" if kappa is None else f"{kappa:g}",
                          "error": error, "overhead_min": overhead / 60.0 if minutes is not None
                          else 0.0, **_stats(runs, base), "vs_ideal_h": gain,
                          "vs_ideal_ci": half})

    for suffix, (reading, _) in READINGS.items():
        kappas: tuple[float | None, ...] = (None, ABLATION_KAPPA) if not suffix else (None,)
        for kappa in kappas:
            text = reading if kappa is None else f"kappa = {kappa:g}"
            add("ideal (0% error)", text, f"coalloc{suffix}", 0.0, kappa)
            add("no CTMR", text, f"coalloc{suffix}", 1.0, kappa)
            for m in ABLATION_MINUTES:
                add(f"CTMR {m} min", text, f"ctmr{suffix}", 1.0, kappa, m)
    fig = plt().figure(figsize=(7.5, 0.28 * len(table) + 1.5), dpi=130)
    ax = fig.add_subplot(1, 1, 1)
    names = [f"{r['variant']}; {r['reading']}" for r in table]
    ys = list(range(len(table)))[::-1]
    ax.barh(ys, [100 * r["improvement"] for r in table],
            xerr=[100 * _bar(r["improvement_ci"]) for r in table], capsize=2, color="tab:blue")
    ax.set_yticks(ys, names, fontsize="x-small")
    ax.axvline(0, color="k", lw=0.8)
    ax.set_xlabel("improvement over Migration Only (%)")
    ax.set_title(f"Readings of the model, {PPBW:g} Mbit/s", fontsize="medium")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    save(fig, out / "ablation.png")
    write_csv(out / "ablation.csv", table)
    return FigureOutput(out / "ablation.csv", out / "ablation.png", table)


FIGURE_MAKERS: dict[str, Callable[[list[dict[str, Any]], Path], FigureOutput]] = {
    "cpfrac": cpfrac_figure, "unknown": unknown_figure, "ablation": ablation_figure}


def _bar(half: float) -> float:
    return 0.0 if math.isnan(half) else half


def _mean(values: dict[int, float]) -> float:
    return sum(values.values()) / len(values)


def _finish(ax: Any, xlabel: str, title: str) -> None:
    ax.set_xlabel(xlabel)
    ax.set_ylabel("mean turnaround (h)")
    ax.set_title(title, fontsize="medium")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="x-small")


def _write(name: str, out: Path, rows: Sequence[dict[str, Any]], fig: Any) -> FigureOutput:
    save(fig, out / f"{name}.png")
    write_csv(out / f"{name}.csv", list(rows))
    return FigureOutput(out / f"{name}.csv", out / f"{name}.png", list(rows))
