"""Seed 001's headline points alone, so that they can be run at the seed's size
(`ckptsim paper jones headline --full --replications 3`): the ideal case (0% error, every job
informed), co-allocation at +-100% uniform error without CTMR, and with CTMR at 10 min and
at 0 min, at 150 / 300 / 400 Mbit/s, against Migration Only -- 13 runs per workload seed,
where `all` has 301.  The runs are the other families' runs of the same size (a run they
share has one id).

Figure `headline` (family `headline`, not part of `all`): one row per PPBW and variant with the
mean turnaround and its 95% half-width over the workload seeds, the improvement over Migration
Only paired by seed, and for CTMR the gain over co-allocation without it (`vs_no_ctmr`) and
over the ideal case (`vs_ideal`), paired by seed (differences of improvements).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ckptsim.experiments.papers.common import FigureOutput, plt, save, write_csv
from ckptsim.experiments.stats import mean_ci

HOUR = 3600.0
PPBWS = (150.0, 300.0, 400.0)
CTMR_OVERHEADS = (600.0, 0.0)  # 10 min (the seed's headline), 0 min (a checkpoint for free)
#: Variants: label -> (scheduler label, error, overhead)
VARIANTS = {"ideal (0% error)": ("coalloc", 0.0, 600.0),
            "+-100%, no CTMR": ("coalloc", 1.0, 600.0),
            "+-100%, CTMR 10 min": ("ctmr", 1.0, 600.0),
            "+-100%, CTMR 0 min": ("ctmr", 1.0, 0.0)}
FAMILIES = {"headline": ("headline",)}
FIGURES = ("headline",)

Spec = Callable[..., list[str]]


def spec_lines(family: str, workload: Spec, scheduler: Spec) -> list[str]:
    """The workloads and schedulers of the family, with the caller's TOML writers
    (`workload(name, ppbw, errors)`, `scheduler(label, workloads, **params)`)."""
    lines = workload("base", 300.0, (0.0,))
    lines += scheduler("migration-only", ["base"], coalloc=False)
    both, errs = [], []
    for p in PPBWS:
        lines += workload(f"ppbw{p:g}", p, (0.0, 1.0)) + workload(f"ppbw{p:g}e", p, (1.0,))
        both.append(f"ppbw{p:g}")
        errs.append(f"ppbw{p:g}e")
    lines += scheduler("coalloc", both, coalloc=True, ctmr=False)
    lines += scheduler("ctmr", errs, ctmr=True, overhead=list(CTMR_OVERHEADS))
    return lines


def runs_of(family: str) -> int:
    """Runs of one replication."""
    return 1 + (2 + len(CTMR_OVERHEADS)) * len(PPBWS)


def headline_figure(rows: list[dict[str, Any]], out: Path) -> FigureOutput:
    """Improvement over Migration Only of each variant at each PPBW."""
    ok = [r for r in rows if r.get("status") == "ok"]
    base = {int(r["seed"]): float(r["mean_response"]) for r in ok
            if r["scheduler"] == "migration-only"}
    by: dict[tuple[str, float, float, float], dict[int, float]] = {}
    for r in ok:
        if r["scheduler"] == "migration-only":
            continue
        key = (r["scheduler"], float(r["workload.ppbw"]), float(r["workload.error"]),
               float(r["param.overhead"]))
        by.setdefault(key, {})[int(r["seed"])] = float(r["mean_response"])
    table = []
    for p in PPBWS:
        without = by.get(("coalloc", p, 1.0, 600.0), {})
        ideal = by.get(("coalloc", p, 0.0, 600.0), {})
        for variant, (label, error, overhead) in VARIANTS.items():
            runs = by.get((label, p, error, overhead), {})
            if not runs:
                continue
            turnaround, half, n = mean_ci([t / HOUR for t in runs.values()])
            improvement, ihalf, _ = mean_ci([1.0 - t / base[s] for s, t in runs.items()
                                             if s in base])
            row = {"ppbw": p, "variant": variant, "error": error,
                   "overhead_min": overhead / 60.0 if label == "ctmr" else 0.0,
                   "turnaround_h": turnaround, "turnaround_ci": half,
                   "improvement": improvement, "improvement_ci": ihalf,
                   "vs_no_ctmr": math.nan, "vs_no_ctmr_ci": math.nan,
                   "vs_ideal": math.nan, "vs_ideal_ci": math.nan, "seeds": n}
            if label == "ctmr":
                row["vs_no_ctmr"], row["vs_no_ctmr_ci"], _ = mean_ci(
                    [(without[s] - t) / base[s] for s, t in runs.items()
                     if s in without and s in base])
                row["vs_ideal"], row["vs_ideal_ci"], _ = mean_ci(
                    [(ideal[s] - t) / base[s] for s, t in runs.items()
                     if s in ideal and s in base])
            table.append(row)
    base_h = mean_ci([t / HOUR for t in base.values()])
    fig = plt().figure(figsize=(6.5, 4.2), dpi=130)
    ax = fig.add_subplot(1, 1, 1)
    width = 0.8 / len(VARIANTS)
    for k, variant in enumerate(VARIANTS):
        line = [r for r in table if r["variant"] == variant]
        xs = [PPBWS.index(r["ppbw"]) + (k - (len(VARIANTS) - 1) / 2) * width for r in line]
        ax.bar(xs, [100 * r["improvement"] for r in line], width,
               yerr=[0.0 if math.isnan(r["improvement_ci"]) else 100 * r["improvement_ci"]
                     for r in line], capsize=2, label=variant)
    ax.set_xticks(range(len(PPBWS)), [f"{p:g} Mbit/s" for p in PPBWS])
    ax.axhline(0, color="k", lw=0.8)
    ax.set_ylabel("improvement over Migration Only (%)")
    seeds = len(base)
    ax.set_title(f"Headline points ({seeds} workload seed{'s' if seeds != 1 else ''}; "
                 f"Migration Only {base_h[0]:.2f} h)", fontsize="medium")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize="x-small")
    fig.tight_layout()
    save(fig, out / "headline.png")
    write_csv(out / "headline.csv", table)
    return FigureOutput(out / "headline.csv", out / "headline.png", table)


FIGURE_MAKERS: dict[str, Callable[[list[dict[str, Any]], Path], FigureOutput]] = {
    "headline": headline_figure}
