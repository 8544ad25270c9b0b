"""Seed 002 (Shi, "Extending Scojo-PECT by migration based on application level
checkpointing"): Table 3 and Figs. 11-16, and the same three cases on two real traces.

The thesis runs `scojo-pect` in three cases -- original (no checkpoints), periodic
application-level checkpoints without migration, and with migration -- on Lublin-Feitelson
workloads of 10,000 jobs on 128 nodes for the seeds 71, 31, 7, 23 and 13, and reports the
average relative response time (ARRT) of long and medium jobs by size class.  Each family of
runs is one experiment spec (written to the output folder as FAMILY.toml, so it can be rerun or
extended with `ckptsim sweep`) run with the sweep machinery on all cores into one store
(out/store) shared by the figures:

- `lublin`: the cases on the thesis's seeds and on further seeds (Fig. 16's confidence
  intervals are over `ci_seeds` seeds, the thesis's five first);
- `traces`: the cases on SDSC-SP2 and KTH-SP2 (classes by the users' estimates);
- `readings` (figure `readings`, not part of `all`): the cases under each reading of the model
  the thesis leaves open, on the thesis's seeds (`ckptsim.experiments.papers.shi.readings`).

Table 3 (workload characteristics) and `arrivals` (the mean inter-arrival time and offered
load of every seed of Fig. 16) are computed from the generated workloads directly.

The thesis's Lublin jobs have no user estimates, so it classified and scheduled them by their
runtimes: the default `estimates = "exact"` does the same (`tsafrir` gives them modelled
estimates).  "Gain from migration" is the thesis's "benefit purely from the migration stage":
(ARRT without migration - ARRT with migration) / ARRT without migration, both with
checkpoints.  The thesis does not say what a checkpoint without migration does to the job, so
both readings are cases: `checkpoint` (the job stops and restarts only on its own nodes) and
`checkpoint-keep` (the checkpoint costs its time and the job keeps its nodes).  The gains over
`checkpoint-keep` and over the original are reported beside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ckptsim.errors import ConfigError, did_you_mean
from ckptsim.experiments.papers.common import FigureOutput, OnRow, run_spec
from ckptsim.experiments.papers.shi import readings
from ckptsim.experiments.papers.shi.figures import (
    CASES,
    SEED_FIGURES,
    arrivals_figure,
    case_figure,
    gain_figure,
    table3_figure,
    trace_figure,
)

TRACES: dict[str, str] = {
    "SDSC-SP2": "SDSC-SP2-1998-4.2-cln.swf.gz",
    "KTH-SP2": "KTH-SP2-1996-2.1-cln.swf.gz",
}
#: The thesis's seeds, in Table 3's order.
THESIS_SEEDS = (71, 23, 31, 13, 7)
FIGURES = ("table3", "arrivals", *SEED_FIGURES, "fig16", "traces")  # `all`
#: Figures run only when named.
EXTRA_FIGURES = ("readings",)
#: The case parameters of `scojo-pect` (label -> params).
CASE_PARAMS = {"original": 'checkpoint = "off"',
               "checkpoint": 'checkpoint = "alc", migration = false',
               "checkpoint-keep": 'checkpoint = "alc", migration = false, '
                                  'without_migration = "continue"',
               "migration": 'checkpoint = "alc", migration = true'}
METRICS = ("arrt_medium", "arrt_long", "arrt_medium_long", "arrt_pooled_medium",
           "arrt_pooled_long",
           *(f"arrt_{c}_{s}" for c in ("medium", "long") for s in ("narrow", "midsize", "wide")),
           "jobs_short", "jobs_medium", "jobs_long", "utilization", "mean_response",
           "slice_suspensions", "alc_checkpoints", "alc_migrations")


@dataclass(frozen=True)
class Options:
    """What a figure command is given (defaults: the thesis's experiment)."""

    n: int = 10000  # jobs per Lublin workload
    machine: int = 128
    estimates: str = "exact"
    ci_seeds: int = 30  # Fig. 16: seeds of the confidence intervals (the thesis's five first)
    traces: tuple[str, ...] = tuple(TRACES)
    trace_dir: Path = Path("../shared/data/traces")
    first: int | None = None  # only the first N jobs of each trace
    jobs: int | None = None
    figure: str = "all"  # the command's figure (for its estimate)

    def seeds(self, figures: Sequence[str]) -> list[int]:
        """The Lublin seeds the figures need."""
        if "fig16" in figures:
            return self.ci_seed_list()
        return [SEED_FIGURES[f] for f in figures if f in SEED_FIGURES]

    def ci_seed_list(self) -> list[int]:
        """The seeds of Fig. 16's intervals and of `arrivals`: the thesis's five first."""
        extra = [s for s in range(1, 10 * self.ci_seeds) if s not in THESIS_SEEDS]
        return list(THESIS_SEEDS) + extra[:max(self.ci_seeds - len(THESIS_SEEDS), 0)]


def wanted_figures(figure: str) -> list[str]:
    if figure == "all":
        return list(FIGURES)
    if figure not in FIGURES + EXTRA_FIGURES:
        raise ConfigError("figure", f"unknown figure {figure!r} of shi"
                                    f"{did_you_mean(figure, FIGURES + EXTRA_FIGURES)}; accepted: "
                                    f"{', '.join(FIGURES + EXTRA_FIGURES)}, all")
    return [figure]


# ----------------------------------------------------------------------------- specs
def _schedulers() -> list[str]:
    lines = []
    for label, params in CASE_PARAMS.items():
        lines += ["[[schedulers]]", 'name = "scojo-pect"', f'label = "{label}"',
                  f"params = {{ {params} }}", ""]
    return lines


def spec_text(family: str, opt: Options, seeds: Sequence[int] = ()) -> str:
    """The experiment spec of a family (TOML): `lublin` on `seeds`, or `traces`."""
    metrics = "metrics = [" + ", ".join(f'"{m}"' for m in METRICS) + "]"
    if family == "lublin":
        lines = ['name = "shi-lublin"', f"seeds = {list(seeds)}", metrics, "",
                 "[workloads.lublin]", 'generator = "lublin"', f"n = {opt.n}",
                 f"machine = {opt.machine}", f'estimates = "{opt.estimates}"', ""]
    elif family == "traces":
        lines = ['name = "shi-traces"', metrics, ""]
        for t in opt.traces:
            lines += [f'[workloads."{t}"]', f'trace = "{TRACES[t]}"']
            if opt.first:
                lines.append(f"first = {opt.first}")
            lines.append("")
    else:
        raise ConfigError("family", f"unknown family {family!r}; accepted: lublin, traces")
    return "\n".join(lines + _schedulers())


def runs_of(figure: str, opt: Options) -> int:
    """How many runs a figure needs (for progress bars)."""
    wanted = wanted_figures(figure)
    n = len(opt.seeds(wanted)) * len(CASES)
    if "traces" in wanted:
        n += len(opt.traces) * len(CASES)
    if "readings" in wanted:
        n += readings.runs_of(THESIS_SEEDS)
    return n


#: Seconds a run takes (the sweep's `run_seconds`, both cores of a quiet two-core machine busy,
#: 28 November 2026), the mean of the four cases: a Lublin workload of 10,000 jobs (Fig. 16 on
#: five seeds: 0.44 s original, 0.99 s checkpoint, 0.76 s checkpoint-keep, 0.96 s migration),
#: and each trace whole (SDSC-SP2 1.8 / 13.3 / 4.2 / 7.0 s, KTH-SP2 1.0 / 7.2 / 2.5 / 3.2 s).
LUBLIN_SECONDS = 0.79
TRACE_SECONDS = {"SDSC-SP2": 6.56, "KTH-SP2": 3.46}


def seconds_per_run(figure: str, opt: Options) -> float:
    """The mean seconds of a run of `figure` at `opt`'s size: Lublin runs in proportion to
    their jobs (`--first` sets them), trace runs to the share of the trace they replay."""
    wanted = wanted_figures(figure)
    lublin = len(opt.seeds(wanted)) * len(CASES)
    if "readings" in wanted:
        lublin += readings.runs_of(THESIS_SEEDS)
    runs, seconds = lublin, lublin * LUBLIN_SECONDS * opt.n / 10_000
    if "traces" in wanted:
        from ckptsim.experiments.estimate import cut_to

        for t in opt.traces:
            runs += len(CASES)
            seconds += len(CASES) * cut_to(TRACE_SECONDS[t], TRACES[t], opt.first)
    return seconds / runs if runs else 0.0


# ----------------------------------------------------------------------------- running
def run_figures(figure: str, out: str | Path, opt: Options,
                on_row: OnRow | None = None) -> list[FigureOutput]:
    """Compute a figure or `all` into `out`: FIGURE.csv and FIGURE.png, the families'
    specs and the shared sweep store out/store."""
    check(opt)
    wanted = wanted_figures(figure)
    if "traces" in wanted:
        check_traces(opt)
    out_path = Path(out)
    out_path.mkdir(parents=True, exist_ok=True)
    outputs: list[FigureOutput] = []
    if "table3" in wanted:
        outputs.append(table3_figure(table3_rows(opt), out_path, opt.n))
    if "arrivals" in wanted:
        outputs.append(arrivals_figure(table3_rows(opt, opt.ci_seed_list()), out_path,
                                       opt.n, opt.machine))
    seeds = opt.seeds(wanted)
    # The generated workloads' specs name no file: their trace folder is the output folder,
    # not --trace-dir (which they do not take, and which need not exist where they run).
    if seeds:
        rows = run_spec("lublin", spec_text("lublin", opt, seeds), out_path, out_path,
                        opt.jobs, on_row)
        for fig in wanted:
            if fig in SEED_FIGURES:
                outputs.append(case_figure(fig, rows, out_path))
        if "fig16" in wanted:
            outputs.append(gain_figure(rows, seeds, out_path))
    if "traces" in wanted:
        rows = run_spec("traces", spec_text("traces", opt), out_path, opt.trace_dir,
                        opt.jobs, on_row)
        outputs.append(trace_figure(rows, opt.traces, out_path))
    if "readings" in wanted:
        text = readings.spec_text(opt.n, opt.machine, opt.estimates, THESIS_SEEDS)
        rows = run_spec("readings", text, out_path, out_path, opt.jobs, on_row)
        outputs.append(readings.readings_figure(rows, out_path))
    return outputs


def table3_rows(opt: Options, seeds: Sequence[int] = THESIS_SEEDS) -> list[dict[str, Any]]:
    """Table 3: per seed, % of jobs, % of work (runtime x size) and mean size by class (by
    runtime, as the thesis), the mean inter-arrival time and the offered load (the work over
    the machine's node-seconds from the first submission to the last)."""
    from ckptsim.workload.source import load_workload

    rows = []
    for seed in seeds:
        w = load_workload(f"lublin:n={opt.n},seed={seed},machine={opt.machine},"
                          f"estimates={opt.estimates}")
        runtime = np.asarray(w.runtime, dtype=np.float64)
        size = np.asarray(w.size, dtype=np.float64)
        work = runtime * size
        cls = np.where(runtime < 600.0, 0, np.where(runtime < 10800.0, 1, 2))
        row: dict[str, Any] = {"seed": seed}
        for k, name in enumerate(("short", "medium", "long")):
            sel = cls == k
            row[f"jobs_{name}_pct"] = 100.0 * float(sel.mean())
            row[f"work_{name}_pct"] = 100.0 * float(work[sel].sum() / work.sum())
            row[f"size_{name}"] = float(size[sel].mean()) if sel.any() else float("nan")
        submit = np.asarray(w.submit, dtype=np.float64)
        row["interarrival_s"] = float(np.mean(np.diff(submit))) if len(submit) > 1 else 0.0
        span = float(submit[-1] - submit[0]) if len(submit) > 1 else 0.0
        row["load"] = float(work.sum() / (opt.machine * span)) if span > 0 else float("nan")
        rows.append(row)
    return rows


def check(opt: Options) -> None:
    if opt.n < 1:
        raise ConfigError("--first", f"expected a number of jobs >= 1, got {opt.n}")
    if opt.ci_seeds < 2:
        raise ConfigError("--ci-seeds", f"expected at least 2 seeds (a confidence interval "
                                        f"needs a spread), got {opt.ci_seeds}")
    if opt.estimates not in ("exact", "tsafrir", "f"):
        raise ConfigError("--estimates", f"got {opt.estimates!r}; accepted: exact, tsafrir, f")
    unknown = [t for t in opt.traces if t not in TRACES]
    if unknown:
        raise ConfigError("--traces", f"unknown trace {unknown[0]!r} of shi"
                                      f"{did_you_mean(unknown[0], TRACES)}; accepted: "
                                      f"{', '.join(TRACES)}")


def check_traces(opt: Options) -> None:
    """The traces of the `traces` figure exist."""
    if not opt.traces:
        raise ConfigError("--traces", "give at least one trace")
    missing = [TRACES[t] for t in opt.traces if not (opt.trace_dir / TRACES[t]).exists()]
    if missing:
        raise ConfigError("--trace-dir", f"{opt.trace_dir}: missing {', '.join(missing)}")
