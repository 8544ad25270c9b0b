"""Seed 001 (Jones, "Network-aware Selective Job Checkpoint and Migration to Enhance
Co-allocation in Multi-cluster Systems"): its figures on the seed's grid of 4 clusters of 100
nodes joined by 1 Gbps links, under the `coalloc` meta-scheduler.

Four families, each one experiment spec (FAMILY.toml in the output folder, so it can be rerun
or extended with `ckptsim sweep`) run with the sweep machinery on all cores into one store
shared by the families (a run two families need is run once):

- `info` (Figs. 1-6, 8): turnaround vs the uniform PPBW error (+-A) and the information
  availability, at 150 / 300 / 400 Mbit/s;
- `fixed` (Figs. 7, 9): every job with the same signed error, -100% ... +100%; slowdown factor
  and time-averaged number of co-allocated jobs;
- `ctmr` (Figs. 10-16): with the CTMR agent, vs the error and the checkpoint/restart overhead
  0-30 min;
- `overhead` (Figs. 17-19): overhead 0-90 min at two error levels;
- beyond the seed's figures, named by their figures only and not part of `all`
  (`ckptsim.experiments.papers.jones.ablation`): `cpfrac-sweep` (figures `cpfrac`,
  `unknown`: the CPfrac sweep and the agent assuming 30 min), `readings` (figure
  `ablation`: the model's readings one at a time) and `headline` (figure `headline`: the
  seed's headline points alone, `ckptsim.experiments.papers.jones.headline`, to run them at
  the seed's size).

Every family also runs "Migration Only" (`coalloc=false`), the seed's baseline, whose schedule
does not depend on the bandwidths, and the plain co-allocation without CTMR where it compares.
The workload is the seed's (`grid:`): Poisson arrivals, exponential runtimes of mean 4 h,
widths 5-20, PPBW uniform on +-50% around the mean; the seed does not give its load, so it is
an option (default `LOAD`, see docs/results/jones.md).  The seed's size, 400,000 jobs per
cluster, is `--full`; the default is `DEFAULT_N`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ckptsim.errors import ConfigError
from ckptsim.experiments.papers.common import FigureOutput, OnRow, find_family, run_spec
from ckptsim.experiments.papers.jones import ablation, headline
from ckptsim.experiments.papers.jones.figures import FIGURE_MAKERS
from ckptsim.experiments.stats import mean_ci

PPBWS = (150.0, 300.0, 400.0)
INFO_ERRORS = (0.0, 0.5, 0.8, 1.0)  # Figs. 1-6: the seed's four error levels of Figs. 2, 4, 6
INFOS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
UNIFORM_ERRORS = tuple(round(0.1 * k, 1) for k in range(11))  # Fig. 8, at info = 1
FIG8_ONLY = tuple(e for e in UNIFORM_ERRORS if e not in INFO_ERRORS)
FIXED_ERRORS = tuple(sorted({round(0.1 * k, 1) for k in range(-10, 11)} | {-0.95}))
CTMR_ERRORS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
CTMR_MINUTES = (0, 5, 10, 20, 30)
LONG_MINUTES = (0, 5, 10, 15, 20, 25, 30, 45, 60, 75, 90)
LONG_ERRORS = (0.5, 1.0)
FULL_N = 400_000
DEFAULT_N = 2_000  # the committed page's size (5 workload seeds fit minutes of CPU)
REPLICATIONS = 5  # workload seeds per point by default (with --full: 1)
LOAD = 0.95
#: Readings of the paired comparisons between two configurations (`--paired`): each seed's
#: turnaround difference over that seed's Migration Only turnaround (`seed`, the default: the
#: difference of the `improvement` column), or over Migration Only's mean turnaround (`mean`).
PAIRED = ("seed", "mean")
FAMILIES = {"info": ("fig1", "fig2", "fig3", "fig4", "fig5", "fig6", "fig8"),
            "fixed": ("fig7", "fig9"),
            "ctmr": ("fig10", "fig11", "fig12", "fig13", "fig14", "fig15", "fig16"),
            "overhead": ("fig17", "fig18", "fig19")}
#: Families beyond the four of the seed's figures (named by their figures only), by module.
EXTRA = {family: module for module in (ablation, headline) for family in module.FAMILIES}
#: Every family, the seed's and those beyond its figures.
ALL_FAMILIES = {**FAMILIES, **ablation.FAMILIES, **headline.FAMILIES}
EXTRA_FIGURES = (*ablation.FIGURES, *headline.FIGURES)
FIGURES = tuple(f"fig{k}" for k in range(1, 20))  # `all` (the seed's figures)
METRICS = ("mean_response", "mean_wait", "coalloc_slowdown", "mean_coallocated",
           "coalloc_starts", "saturated_time", "link_utilization", "ctmr_checkpoints",
           "ctmr_jobs", "ctmr_barred", "remote_starts", "utilization", "makespan")


@dataclass(frozen=True)
class Options:
    """What a figure command is given (defaults: a smaller version of the seed's runs)."""

    n: int = DEFAULT_N
    load: float = LOAD
    replications: int = 1
    jobs: int | None = None
    paired: str = "seed"


def family_of(figure: str) -> str:
    for family, module in EXTRA.items():
        if figure in module.FAMILIES[family]:
            return family
    return find_family(figure, FAMILIES, [*FIGURES, *FAMILIES, *EXTRA_FIGURES], "jones")


# ----------------------------------------------------------------------------- specs
def _list(values: Sequence[float]) -> str:
    return "[" + ", ".join(f"{v:g}" for v in values) + "]"


def _workload(name: str, opt: Options, ppbw: float, errors: Sequence[float], mode: str,
              infos: Sequence[float] = (1.0,), kappa: float | None = None) -> list[str]:
    # Every workload names the same options, so that a run two families share has one id
    # (a fixed kappa is named only where it is given).
    fixed = [] if kappa is None else [f"kappa = {kappa:g}"]
    return [f'[workloads.{name}]', 'generator = "grid"', f"n = {opt.n}",
            f"load = {opt.load:g}", f"ppbw = {ppbw:g}", f"error = {_list(errors)}",
            f'error_mode = "{mode}"', f"info = {_list(infos)}", *fixed, ""]


def _scheduler(label: str, workloads: Sequence[str], **params: Any) -> list[str]:
    values = ", ".join(f"{k} = {_list(v) if isinstance(v, (list, tuple)) else _value(v)}"
                       for k, v in params.items())
    names = ", ".join(f'"{w}"' for w in workloads)
    return ["[[schedulers]]", 'name = "coalloc"', f'label = "{label}"',
            f"workloads = [{names}]", f"params = {{ {values} }}", ""]


def _value(v: Any) -> str:
    if isinstance(v, str):
        return f'"{v}"'
    return ("true" if v else "false") if isinstance(v, bool) else f"{v:g}"


def spec_text(family: str, opt: Options) -> str:
    """The experiment spec of a family (TOML)."""
    lines = [f'name = "jones-{family}"', f"replications = {opt.replications}",
             "metrics = [" + ", ".join(f'"{m}"' for m in METRICS) + "]", ""]
    if family in EXTRA:
        def workload(name: str, ppbw: float, errors: Sequence[float],
                     kappa: float | None = None) -> list[str]:
            return _workload(name, opt, ppbw, errors, "uniform", kappa=kappa)

        return "\n".join(lines + EXTRA[family].spec_lines(family, workload, _scheduler)) + "\n"
    lines += _workload("base", opt, 300.0, (0.0,), "uniform")
    names = [f"ppbw{p:g}" for p in PPBWS]
    coalloc = list(names)
    for name, p in zip(names, PPBWS, strict=True):
        if family == "info":
            lines += _workload(name, opt, p, INFO_ERRORS, "uniform", INFOS)
            # Fig. 8's finer error steps at info = 1 (the others are in the grid above).
            lines += _workload(f"{name}u", opt, p, FIG8_ONLY, "uniform")
            coalloc.append(f"{name}u")
        elif family == "fixed":
            lines += _workload(name, opt, p, FIXED_ERRORS, "fixed")
        elif family == "ctmr":
            lines += _workload(name, opt, p, CTMR_ERRORS, "uniform")
        else:
            lines += _workload(name, opt, p, LONG_ERRORS, "uniform")
    lines += _scheduler("migration-only", ["base"], coalloc=False)
    lines += _scheduler("coalloc", coalloc, coalloc=True, ctmr=False)
    if family == "ctmr":
        lines += _scheduler("ctmr", names, ctmr=True,
                            overhead=[60.0 * m for m in CTMR_MINUTES])
    elif family == "overhead":
        lines += _scheduler("ctmr", names, ctmr=True,
                            overhead=[60.0 * m for m in LONG_MINUTES])
    return "\n".join(lines) + "\n"


def runs_of(figure: str, opt: Options) -> int:
    """How many runs a figure's families hold (for progress bars; runs two families share
    are counted in each)."""
    wanted = list(FIGURES) if figure == "all" else [figure]
    families = {family_of(f) for f in wanted}
    per_ppbw = {"info": len(INFO_ERRORS) * len(INFOS) + len(FIG8_ONLY),
                "fixed": len(FIXED_ERRORS),
                "ctmr": len(CTMR_ERRORS) * (1 + len(CTMR_MINUTES)),
                "overhead": len(LONG_ERRORS) * (1 + len(LONG_MINUTES))}
    return sum((EXTRA[f].runs_of(f) if f in EXTRA
                else 1 + len(PPBWS) * per_ppbw[f]) * opt.replications for f in families)


# ----------------------------------------------------------------------------- reduction
def points(rows: list[dict[str, Any]], pairing: str = "seed") -> list[dict[str, Any]]:
    """The runs averaged over replications (workload seeds), one per configuration: each
    metric's mean; the turnaround's and the co-allocation slowdown's 95% half-widths
    (`mean_response_ci`, `coalloc_slowdown_ci`); the improvement over Migration Only paired by
    seed (`improvement`, `improvement_ci`: the mean of 1 - turnaround / Migration Only's of the
    same seed); `by_seed` (seed -> turnaround) for other paired comparisons; `seeds`.  With
    `pairing="seed"` (`--paired seed`) each point also holds `pair_base` (seed -> Migration
    Only's turnaround), over which `figures.paired` divides each seed's difference."""
    keys = ("workload.ppbw", "workload.error", "workload.error_mode", "workload.info",
            "param.coalloc", "param.ctmr", "param.overhead")
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in rows:
        if row.get("status") != "ok":
            continue
        groups.setdefault(tuple(row.get(k) for k in keys), []).append(row)
    base = {int(r["seed"]): float(r["mean_response"]) for r in rows
            if r.get("status") == "ok" and not r.get("param.coalloc")}
    out = []
    for key, members in groups.items():
        point: dict[str, Any] = {k.split(".")[-1]: v for k, v in zip(keys, key, strict=True)}
        for m in METRICS:
            point[m] = float(np.mean([float(r[m]) for r in members]))
        point["mean_response_ci"] = mean_ci([float(r["mean_response"]) for r in members])[1]
        point["coalloc_slowdown_ci"] = mean_ci([float(r["coalloc_slowdown"])
                                                for r in members])[1]
        point["by_seed"] = {int(r["seed"]): float(r["mean_response"]) for r in members}
        paired = [1.0 - t / base[s] for s, t in point["by_seed"].items() if s in base]
        point["improvement"], point["improvement_ci"], _ = mean_ci(paired)
        point["seeds"] = len(members)
        if pairing == "seed":
            point["pair_base"] = base
        out.append(point)
    return out


def run_figures(figure: str, out: str | Path, opt: Options,
                on_row: OnRow | None = None) -> list[FigureOutput]:
    """Compute a figure, a family or `all` into `out`: figN.csv and figN.png, FAMILY.toml
    and the shared sweep store out/store."""
    check(opt)
    wanted = list(FIGURES) if figure == "all" else (
        list(FAMILIES[figure]) if figure in FAMILIES else [figure])
    if figure != "all":
        family_of(figure)
    families = [f for f in ALL_FAMILIES if any(fig in ALL_FAMILIES[f] for fig in wanted)]
    out_path = Path(out)
    outputs: list[FigureOutput] = []
    for family in families:
        rows = run_spec(family, spec_text(family, opt), out_path, out_path, opt.jobs, on_row)
        if family in EXTRA:
            outputs += [EXTRA[family].FIGURE_MAKERS[fig](rows, out_path)
                        for fig in ALL_FAMILIES[family] if fig in wanted]
            continue
        pts = points(rows, opt.paired)
        for fig in FAMILIES[family]:
            if fig in wanted:
                outputs.append(FIGURE_MAKERS[fig](pts, out_path))
    return outputs


def check(opt: Options) -> None:
    if opt.n < 1:
        raise ConfigError("--per-cluster", f"expected a number of jobs >= 1, got {opt.n}")
    if not 0 < opt.load < 10:
        raise ConfigError("--load", f"expected an offered load in (0, 10), got {opt.load}")
    if opt.replications < 1:
        raise ConfigError("--replications", f"must be >= 1, got {opt.replications}")
    if opt.paired not in PAIRED:
        raise ConfigError("--paired", f"got {opt.paired!r}; accepted: {', '.join(PAIRED)}")
