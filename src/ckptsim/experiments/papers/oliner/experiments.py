"""Seed 004 (Oliner et al., "Fault-Aware Job Scheduling for BlueGene/L Systems"): its figures on
a 4x4x8 torus with failures from a real failure log.

Three families, each one experiment spec (written to the output folder as FAMILY.toml, so it
can be rerun or extended with `ckptsim sweep`) run with the sweep machinery on all cores into
one store shared by the families:

- `failures` (Figs. 3-5): bounded slowdown and capacity vs the number of failures (0 ... 4,000
  in steps of 500) under `bgl-balancing` with confidence a = 0 (no prediction: the `bgl-fcfs`
  schedule), 0.1 and 0.9;
- `balancing` (Figs. 6-8): bounded slowdown and capacity vs the confidence a = 0.0 ... 1.0;
- `tiebreak` (Figs. 9-10): the same vs the accuracy of `bgl-tiebreak`.

Each runs for load scales c = 1.0 and 1.2 (run times multiplied by c).  The seed's workloads
are NASA iPSC/860, SDSC SP2 and LLNL T3D; the LLNL T3D log is not available here, so the
Lublin-Feitelson model output `lublin_256` (256 nodes) takes its place, its sizes scaled to the
128 supernodes by 1/2 (the seed does not say how it fit LLNL's 256 nodes onto 128 supernodes).
The failures are the LANL failure records of
one system (default 20: 512 nodes, 400 of which fail, the closest to the seed's 350-node
log), rescaled to the count over each workload's submit span keeping the log's timings, mapped
onto the supernodes by node number modulo 128, and transient (the seed's model); the seed's
counts are 4,000 for NASA and SDSC and 1,000 for LLNL (here: lublin_256), or (`rate="log"`)
the log's own rate per node and day; over the submit span, or (`failure_span="run"`)
continued at the same rate until the last job ends.  Capacity counts the supernodes a job's box
holds beyond its requested size as utilised, or (`rounding="lost"`, the `rounding` component)
as lost.  Every workload is scheduled with exact
estimates (its run times) by default, as the seed's utilisation formula implies, or with its
requested times (`estimates="requested"`).  The sweep's seed is the rescaling's seed, so
replications (`replications`) draw different thinnings of the log; `bgl-tiebreak`'s predictor
draws from its own seed, 0, in every replication, or (`predictor_draws="replication"`) from
the replication's seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ckptsim.errors import ConfigError
from ckptsim.experiments.papers.common import FigureOutput, OnRow, find_family, run_spec
from ckptsim.failures.source import SPANS

TRACES: dict[str, str] = {
    "SDSC": "SDSC-SP2-1998-4.2-cln.swf.gz",
    "NASA": "NASA-iPSC-1993-3.1-cln.swf.gz",
    "LUBLIN-256": "lublin_256.swf.gz",
}
#: The seed's failure counts per workload (LLNL's 1,000 for its stand-in).
FAILURE_COUNTS = {"SDSC": 4000, "NASA": 4000, "LUBLIN-256": 1000}
#: The failure log, relative to the trace folder (../shared/data/traces -> ../failures/...).
FAILURE_LOG = "../failures/lanl_cfdr/LA-UR-05-7318-failure-data-1996-2005.csv.gz"
FAILURE_SYSTEM = 20
LOADS = (1.0, 1.2)
COUNTS = tuple(range(0, 4001, 500))
PREDICTION = (0.0, 0.1, 0.9)
LEVELS = tuple(round(0.1 * k, 1) for k in range(11))
FAMILIES = {"failures": ("fig3", "fig4", "fig5"), "balancing": ("fig6", "fig7", "fig8"),
            "tiebreak": ("fig9", "fig10"), "options": ("options",)}
#: The seed's figures (`all`); `options` compares the seed's readings offered as options.
FIGURES = tuple(f for family, figs in FAMILIES.items() if family != "options" for f in figs)
#: The workload each capacity figure shows, as in the seed.
CAPACITY_TRACE = {"fig7": "NASA", "fig8": "LUBLIN-256", "fig10": "LUBLIN-256"}
METRICS = ("mean_response_bsld", "mean_wait", "mean_response", "capacity_utilized",
           "capacity_unused", "capacity_lost", "failures", "jobs_killed_by_failures",
           "mean_restarts", "makespan")
#: Metrics whose 95% half-width over replications each figure's CSV also holds.
SPREAD = ("mean_response_bsld", "capacity_utilized", "capacity_unused", "capacity_lost")
#: The estimates every workload is scheduled with: the run times (the seed's utilisation
#: formula, with t_j^e as each job's work, implies exact estimates), or the trace's requested
#: times where it has them (SDSC; NASA and LUBLIN-256 have none and use the run times anyway).
ESTIMATES = ("exact", "requested")
#: How many failures the prediction figures (6-10) inject: the seed's counts, or the failure
#: log's own rate per node and day over each workload's span on the 128 supernodes.
RATES = ("seed", "log")
#: What a `first` slice does to the failure counts: keep them (the default: all 4,000 failures
#: on the slice's shorter span) or scale them by the slice's share of the workload's span.
SLICES = ("keep", "scale")
#: Over what the failures are injected: the workload's submit span (the default: the jobs
#: still waiting or running after the last arrival meet none) or the whole run (the submit
#: span's failures continued at the same rate until the last job ends: a source's span=run).
FAILURE_SPANS = SPANS
#: What capacity counts the supernodes of a job's box beyond its requested size as: utilised
#: (the default: the size the job ran at) or lost (the spec addendum; the `rounding` component).
ROUNDINGS = ("utilized", "lost")
#: What seeds `bgl-tiebreak`'s predictor draws (section 4.2: "yes" with probability a): its
#: `seed` parameter, 0, in every replication (fixed, the default: each replication's draws
#: are the same stream) or each run's own seed (replication: `seed="none"`, the draws of
#: `seed` set to the replication's seed).  `bgl-balancing`'s predictor draws nothing.
PREDICTOR_DRAWS = ("fixed", "replication")


@dataclass(frozen=True)
class Options:
    """What a figure command is given (defaults: the seed's experiment)."""

    traces: tuple[str, ...] = tuple(TRACES)
    trace_dir: Path = Path("../shared/data/traces")
    failure_log: Path | None = None  # default: FAILURE_LOG under the trace folder
    system: int = FAILURE_SYSTEM
    first: int | None = None
    loads: tuple[float, ...] = LOADS
    counts: tuple[int, ...] = COUNTS
    levels: tuple[float, ...] = LEVELS
    replications: int = 1
    jobs: int | None = None
    estimates: str = "exact"
    rate: str = "seed"
    slice_failures: str = "keep"  # SLICES: a `first` slice keeps the counts or scales them
    jitter: str | None = None  # the failure copies' jitter (auto, or seconds; None: auto)
    failure_span: str = "submit"  # FAILURE_SPANS: the submit span, or continued to the end
    rounding: str = "utilized"  # ROUNDINGS: a box's extra supernodes utilised, or lost
    predictor_draws: str = "fixed"  # PREDICTOR_DRAWS: the tie-break draws' seed

    def log(self) -> Path:
        return (self.failure_log if self.failure_log is not None
                else self.trace_dir / FAILURE_LOG).resolve()


def family_of(figure: str) -> str:
    return find_family(figure, FAMILIES, [*FAMILIES, *FIGURES], "oliner")


# ----------------------------------------------------------------------------- specs
def _list(values: Sequence[Any]) -> str:
    return "[" + ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in values) + "]"


def log_rate(opt: Options) -> float:
    """Failures per node and day of the failure log's system: its failures over its nodes (the
    system's node count in the log, failing or not) and the period the records cover."""
    from ckptsim.failures.readers import lanl_systems, read_lanl_cfdr

    trace = read_lanl_cfdr(opt.log(), system=opt.system)
    nodes = lanl_systems(opt.log())[opt.system][0] or len(np.unique(trace.node))
    return len(trace.time) / (nodes * trace.span / 86400.0)


def slice_shares(opt: Options) -> dict[str, float]:
    """Each workload's factor on the seed's failure counts: with `first` and
    `slice_failures="scale"` the slice's submit span over the whole workload's, else 1."""
    if not opt.first or opt.slice_failures == "keep":
        return dict.fromkeys(opt.traces, 1.0)
    from dataclasses import replace

    sliced, whole = _span_days(opt), _span_days(replace(opt, first=None))
    return {t: sliced[t] / whole[t] if whole[t] else 1.0 for t in opt.traces}


def level_counts(opt: Options) -> dict[str, int]:
    """The failure count of each workload in the prediction figures (6-10)."""
    if opt.rate == "seed":
        share = slice_shares(opt)
        return {t: round(FAILURE_COUNTS[t] * share[t]) for t in opt.traces}
    rate = log_rate(opt) * 128
    return {t: round(rate * d) for t, d in _span_days(opt).items()}


def spec_text(family: str, opt: Options, counts: dict[str, int] | None = None) -> str:
    """The experiment spec of a family (TOML); `counts`: the failure count per workload of the
    prediction families (default `level_counts`)."""
    source = f"lanl:path={opt.log()},system={opt.system},map=modulo,transient=true"
    if opt.jitter is not None:
        source += f",jitter={opt.jitter}"
    if opt.failure_span != "submit":
        source += f",span={opt.failure_span}"
    share = slice_shares(opt) if family == "failures" else {}
    lines = [f'name = "oliner-{family}"',
             f"replications = {opt.replications}",
             "metrics = [" + ", ".join(f'"{m}"' for m in METRICS) + "]", ""]
    if family != "failures" and counts is None:
        counts = level_counts(opt)
    loads = opt.loads[:1] if family == "options" else opt.loads
    for t in opt.traces:
        sweep = (tuple(round(c * share[t]) for c in opt.counts) if family == "failures"
                 else (counts[t],))  # type: ignore[index]
        lines += [f'[workloads."{t}"]', f'trace = "{TRACES[t]}"']
        if opt.first:
            lines.append(f"first = {opt.first}")
        if opt.estimates == "exact":
            lines.append("alpha = 0.0")
        lines += [f"load_scale = {_list(loads)}", f'failures = "{source}"',
                  f"failure_count = {_list(sweep)}"]
        if opt.rounding != "utilized":
            lines.append(f'components.rounding = {{ count_as = "{opt.rounding}" }}')
        lines.append("")
    if family == "options":
        from ckptsim.experiments.papers.oliner.variants import schedulers_text

        return "\n".join(lines) + "\n" + schedulers_text(_list(opt.levels),
                                                          tiebreak_draws(opt))
    lines += ["[[schedulers]]"]
    if family == "failures":
        lines += ['name = "bgl-balancing"', f"params = {{ confidence = {_list(PREDICTION)} }}"]
    elif family == "balancing":
        lines += ['name = "bgl-balancing"', f"params = {{ confidence = {_list(opt.levels)} }}"]
    else:
        draws = "".join(f', {k} = "{v}"' for k, v in tiebreak_draws(opt).items())
        lines += ['name = "bgl-tiebreak"',
                  f"params = {{ accuracy = {_list(opt.levels)}{draws} }}"]
    return "\n".join(lines) + "\n"


def tiebreak_draws(opt: Options) -> dict[str, str]:
    """The `bgl-tiebreak` parameters `predictor_draws` sets (none by default: the committed
    runs' specs)."""
    return {"seed": "none"} if opt.predictor_draws == "replication" else {}


# ----------------------------------------------------------------------------- reduction
def _span_days(opt: Options) -> dict[str, float]:
    """Each workload's submit span in days (what the failure count is spread over)."""
    from ckptsim.workload.source import load_workload

    out = {}
    for t in opt.traces:
        w = load_workload(str(opt.trace_dir / TRACES[t]), first=opt.first)
        out[t] = float(w.submit[-1] - w.submit[0]) / 86400.0 if len(w) else 0.0
    return out


# ----------------------------------------------------------------------------- plots
def run_figures(figure: str, out: str | Path, opt: Options,
                on_row: OnRow | None = None) -> list[FigureOutput]:
    """Compute a figure, a family (`failures`, `balancing`, `tiebreak`) or `all` into `out`:
    figN.csv and figN.png, FAMILY.toml and the shared sweep store out/store."""
    from ckptsim.experiments.papers.oliner.figures import failures_figures, level_figures

    check(opt)
    wanted = list(FIGURES) if figure == "all" else (
        list(FAMILIES[figure]) if figure in FAMILIES else [figure])
    families = [f for f in FAMILIES if any(fig in FAMILIES[f] for fig in wanted)]
    if figure != "all":
        family_of(figure)
    out_path = Path(out)
    outputs: list[FigureOutput] = []
    for family in families:
        rows = run_spec(family, spec_text(family, opt), out_path, opt.trace_dir, opt.jobs,
                        on_row)
        if family == "failures":
            outputs += failures_figures(rows, out_path, opt, wanted)
        elif family == "options":
            from ckptsim.experiments.papers.oliner.variants import options_figure

            outputs.append(options_figure(rows, out_path, opt))
        else:
            outputs += level_figures(family, rows, out_path, opt, wanted)
    return outputs


def runs_of(figure: str, opt: Options) -> int:
    """How many runs a figure's families hold, family by family (for progress bars; the
    command counts a run two families share once, from the specs: `estimate.survey`)."""
    from ckptsim.experiments.papers.oliner.variants import VARIANTS

    wanted = list(FIGURES) if figure == "all" else [figure]
    families = {family_of(f) for f in wanted}
    n = 0
    for family in families:
        if family == "options":
            per_trace = opt.replications * len(opt.levels) * len(VARIANTS)
        else:
            per_trace = len(opt.loads) * opt.replications * (
                len(opt.counts) * len(PREDICTION) if family == "failures"
                else len(opt.levels))
        n += per_trace * len(opt.traces)
    return n


def check(opt: Options) -> None:
    # The modelling choices first: a bad one is named before any file is looked for.
    for flag, value, accepted in (("--estimates", opt.estimates, ESTIMATES),
                                  ("--failure-rate", opt.rate, RATES),
                                  ("slice_failures", opt.slice_failures, SLICES),
                                  ("--failure-span", opt.failure_span, FAILURE_SPANS),
                                  ("--rounding", opt.rounding, ROUNDINGS),
                                  ("--predictor-draws", opt.predictor_draws,
                                   PREDICTOR_DRAWS)):
        if value not in accepted:
            raise ConfigError(flag, f"unknown {value!r}; accepted: {', '.join(accepted)}")
    unknown = [t for t in opt.traces if t not in TRACES]
    if unknown:
        raise ConfigError("--traces", f"unknown trace {unknown[0]!r}; accepted: "
                                      f"{', '.join(TRACES)}")
    if not opt.traces:
        raise ConfigError("--traces", "give at least one trace")
    missing = [TRACES[t] for t in opt.traces if not (opt.trace_dir / TRACES[t]).exists()]
    if missing:
        raise ConfigError("--trace-dir", f"{opt.trace_dir}: missing {', '.join(missing)}")
    if not opt.log().exists():
        raise ConfigError("--failure-log", f"no such file: {opt.log()} (the LANL failure "
                                           "records; default: ../failures/lanl_cfdr/... "
                                           "beside the trace folder)")
    if opt.jitter is not None:
        from ckptsim.failures.source import parse_jitter

        parse_jitter(str(opt.jitter))
    if opt.replications < 1:
        raise ConfigError("--replications", f"must be >= 1, got {opt.replications}")
    for key, values, low, high in (("--loads", opt.loads, 0.0, 1000.0),
                                   ("--levels", opt.levels, 0.0, 1.0)):
        bad = [v for v in values if not (low < v <= high if key == "--loads"
                                         else low <= v <= high)]
        if bad or not values:
            accepted = "(0, 1000]" if key == "--loads" else "[0, 1]"
            raise ConfigError(key, f"values must lie in {accepted}"
                                   f", got {list(values)}")
    if not opt.counts or min(opt.counts) < 0:
        raise ConfigError("--counts", f"must be integers >= 0, got {list(opt.counts)}")
    # Last, as it reads the failure log (the values above are checked without it).
    from ckptsim.failures.readers import lanl_systems

    systems = lanl_systems(opt.log())
    if opt.system not in systems:
        accepted = ", ".join(f"{s} ({'?' if nodes is None else nodes} "
                             f"node{'' if nodes == 1 else 's'})"
                             for s, (nodes, _) in systems.items())
        raise ConfigError("--system", f"no system {opt.system} in the failure log {opt.log()}; "
                                      f"accepted: {accepted}")
