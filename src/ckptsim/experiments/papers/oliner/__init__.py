"""Seed 004 (Oliner et al., fault-aware BG/L scheduling): the paper's declaration.  Its specs,
runs and reductions are in `experiments`, its plots in `plots`, the seed's readings as
scheduler options in `variants`, the tables of docs/results/oliner.md in `tables`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ckptsim.errors import ConfigError
from ckptsim.experiments.papers.base import Claim, FamilyPaper, PaperOption, register

_BSLD = ("mean_response_bsld",)

#: The figures that sweep the confidence or accuracy levels (`--levels`).
_LEVEL_FIGURES = ("fig6", "fig7", "fig8", "fig9", "fig10", "options")

_LEVELS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1)

# Every row of figN.csv carries the mean of its 10 replications (`seeds`) and its 95% half-width
# (`_ci95`).  The prediction figures' figN-replications.csv hold each replication (`seed`: the
# same thinning of the failure log and the same jobs at every level), so that a difference
# between two levels of Figs. 6-10 is paired per replication, on every trace; Figs. 3-5's
# differences combine their two rows' intervals as independent (their replications were not
# kept).
CLAIMS = (
    Claim("~70% more slowdown at ~1,000 failures without fault awareness (SDSC)", 0.7, "fig3",
          _BSLD, "factor-2", rows={"trace": "SDSC", "confidence": 0},
          versus=("failure_count", 0, 1000), relative=True),
    Claim("failures' effect saturates (3,000 -> 4,000 failures: under +25% slowdown)", 0.25,
          "fig3", _BSLD, "at-most", rows={"confidence": 0},
          versus=("failure_count", 3000, 4000), relative=True, by="trace"),
    Claim("up to 50% better slowdown at a = 0.1 (1,000 failures)", -0.5, "fig4", _BSLD,
          "factor-2", rows={"failure_count": 1000, "load_scale": 1},
          versus=("confidence", 0, 0.1), relative=True, by="trace"),
    Claim("20% more load: no impact on slowdown equivalent to failures' (under +70%, no "
          "failures, a = 0.1)", 0.7, "fig5", _BSLD, "at-most", rows={"failure_count": 0},
          versus=("load_scale", 1, 1.2), relative=True),
    Claim("balancing: 70-80% better at c = 1.2 (Fig. 6; a = 0 against 0.1, paired per "
          "replication)", -0.75, "fig6-replications", _BSLD, "factor-2",
          rows={"load_scale": 1.2}, versus=("confidence", 0, 0.1), relative=True, by="trace",
          unit="seed"),
    Claim("confidence level matters little once prediction is on (a = 0.1-1, within 10%, "
          "paired per replication)", 0.1, "fig6-replications", _BSLD, "flat",
          rows={"load_scale": 1, "confidence": _LEVELS}, param="confidence", relative=True,
          by="trace", unit="seed"),
    Claim("prediction converts lost work to useful work (Fig. 7, NASA: a = 0 against 0.1, "
          "paired per replication)", (1.0, -1.0), "fig7-replications",
          ("capacity_utilized", "capacity_lost"), "same-sign",
          rows={"load_scale": 1, "trace": "NASA"}, versus=("confidence", 0, 0.1), unit="seed"),
    Claim("prediction converts lost work to useful work (Fig. 8, LUBLIN-256: a = 0 against "
          "0.1, paired per replication)", (1.0, -1.0), "fig8-replications",
          ("capacity_utilized", "capacity_lost"), "same-sign", rows={"load_scale": 1},
          versus=("confidence", 0, 0.1), unit="seed"),
    Claim("prediction converts lost work to useful work (Fig. 10: accuracy 0 against 1, paired "
          "per replication)", (1.0, -1.0), "fig10-replications",
          ("capacity_utilized", "capacity_lost"), "same-sign", rows={"load_scale": 1},
          versus=("accuracy", 0, 1), unit="seed"),
    Claim("tie-breaking: 60-70% (SDSC), 20% (NASA), 50% (LLNL; here LUBLIN-256) better (Fig. "
          "9, load 1; paired per replication)", (-0.65, -0.2, -0.5), "fig9-replications",
          _BSLD, "factor-2", rows={"load_scale": 1}, versus=("accuracy", 0, 1), relative=True,
          by="trace", by_values=("SDSC", "NASA", "LUBLIN-256"), unit="seed"),
)


def jitter(value: str) -> str | None:
    """`--jitter`'s value as `Options.jitter`: None for auto (the specs the default runs
    wrote), else the seconds as given, checked."""
    if value == "auto":
        return None
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0 or seconds == float("inf"):
        raise ConfigError("--jitter", f"got {value!r}; accepted: auto or a number of seconds "
                                      ">= 0")
    return value


#: Seconds a run of each workload took at the seed's failure counts, both cores of a quiet
#: two-core machine busy: the mean `run_seconds` of the `options` runs (SDSC 84, NASA 84,
#: LUBLIN-256 84), Fig. 3's at 4,000 failures (SDSC and NASA, 15 each) and the 30-replication
#: balancing runs (NASA and LUBLIN-256, 660 each) of docs/results/oliner.md.
RUN_SECONDS = {"SDSC": 3.4, "NASA": 0.67, "LUBLIN-256": 0.93}
#: What a run costs whatever its jobs (reading the trace's slice, the failures, the torus):
#: the mean `run_seconds` of Fig. 3's runs of the first 300 jobs (counts 0-4,000, failures
#: kept), both cores of the same machine busy, 28 November 2026.
FIXED_SECONDS = {"SDSC": 0.14, "NASA": 0.057, "LUBLIN-256": 0.11}


def run_seconds(trace: str, first: int | None) -> float:
    """Seconds a run of `trace`'s first `first` jobs (None: all) is expected to take: its fixed
    part plus the rest of a whole-trace run in proportion to the jobs."""
    from ckptsim.experiments.estimate import cut_to
    from ckptsim.experiments.papers.oliner.experiments import TRACES

    return cut_to(RUN_SECONDS[trace], TRACES[trace], first, FIXED_SECONDS[trace])


@register
class Oliner(FamilyPaper):
    has_tables = True
    name = "oliner"
    seed = "004"
    about = "fault-aware BG/L scheduling"
    figure_help = ("fig3 ... fig10, a family (failures = figs 3-5, balancing = 6-8, tiebreak = "
                   "9-10), options (the seed's readings as scheduler options) or all")
    uses = ("--trace-dir", "--traces", "--first", "--estimates", "--replications")
    own_options = (
        PaperOption("--failure-log", "the LANL failure records CSV (default: ../failures/"
                    "lanl_cfdr/LA-UR-05-7318-failure-data-1996-2005.csv.gz beside the trace "
                    "folder)", kwargs={"metavar": "FILE"}, recorded=False),
        PaperOption("--system", "LANL system whose failures are used (default 20: 512 nodes, "
                    "400 of which fail)",
                    default=20, kwargs={"type": int, "metavar": "N"}),
        PaperOption("--loads", "load scales c (default 1.0 1.2)",
                    kwargs={"type": float, "nargs": "+", "metavar": "C"}),
        PaperOption("--counts", "failure counts of figs 3-5 (default 0 500 ... 4000)",
                    kwargs={"type": int, "nargs": "+", "metavar": "N"}),
        PaperOption("--levels", "confidence / accuracy values of figs 6-10 (default 0.0 0.1 "
                    "... 1.0)", kwargs={"type": float, "nargs": "+", "metavar": "X"}),
        PaperOption("--failure-rate", "failures of figs 6-10: seed (default: 4,000 for SDSC "
                    "and NASA, 1,000 for LUBLIN-256) or log (the failure log's own rate per "
                    "node-day)", default="seed", kwargs={"metavar": "seed|log"}),
        PaperOption("--slice-failures", "what a --first slice does to the failure counts: "
                    "keep (default keep: every failure on the slice's shorter span) or scale "
                    "(by the slice's share of the workload's span)", default="keep",
                    kwargs={"metavar": "keep|scale"}),
        PaperOption("--jitter", "half-width in seconds of the uniform shift of each copy of a "
                    "log failure (counts above the log's 2,478): auto (default auto: span / "
                    "(2 sqrt(2,478))) or S >= 0 (0: copies at their originals' instants)",
                    default="auto", kwargs={"metavar": "auto|S"}),
        PaperOption("--failure-span", "over what the failures are injected at their count: "
                    "submit (default submit: the workload's first to last arrival; the jobs "
                    "still running after it meet none) or run (continued past the last arrival "
                    "at the same rate per node and day until the last job ends)",
                    default="submit", kwargs={"metavar": "submit|run"}),
        PaperOption("--rounding", "what capacity counts the supernodes a job's box holds "
                    "beyond its requested size as: utilized (default utilized: the size the "
                    "job ran at) or lost (the spec addendum's reading: the runs get the "
                    "rounding component)", default="utilized",
                    kwargs={"metavar": "utilized|lost"}),
        PaperOption("--predictor-draws", "what seeds bgl-tiebreak's predictor draws (figs 9-10, "
                    "options): fixed (default fixed: its seed 0, the same draws in every "
                    "replication) or replication (each replication's own seed)",
                    default="fixed", kwargs={"metavar": "fixed|replication"}),
    )
    #: As `experiments.spec_text` reads them: the failure counts only in the failures family
    #: (Figs. 3-5), the levels and the failure rate only in the others, which sweep the
    #: levels at one count, the predictor draws only where bgl-tiebreak runs (the other
    #: options are every figure's).
    used_by = {"--counts": ("fig3", "fig4", "fig5"),
               "--levels": (*_LEVEL_FIGURES,), "--failure-rate": (*_LEVEL_FIGURES,),
               "--predictor-draws": ("fig9", "fig10", "options")}
    option_fields = {"--failure-rate": "rate"}
    claims = CLAIMS
    set_flags = {"seed": "--predictor-draws", "rounding.count_as": "--rounding"}

    def figures(self) -> tuple[str, ...]:
        from ckptsim.experiments.papers.oliner.experiments import FIGURES

        return FIGURES

    def wanted(self, figure: str) -> list[str]:
        from ckptsim.experiments.papers.oliner.experiments import FAMILIES, FIGURES, family_of

        if figure == "all":
            return list(FIGURES)
        family = family_of(figure)
        return list(FAMILIES[family]) if figure == family else [figure]

    def options(self, given: Any) -> Any:
        from ckptsim.experiments.papers.oliner.experiments import Options

        defaults = Options()  # the other choices are checked with the rest (`check`)
        if given.slice_failures not in ("keep", "scale"):
            raise ConfigError("--slice-failures", f"unknown {given.slice_failures!r}; "
                                                  "accepted: keep, scale")
        return Options(
            traces=tuple(given.traces) if given.traces else defaults.traces,
            trace_dir=Path(given.trace_dir),
            failure_log=Path(given.failure_log) if given.failure_log else None,
            system=given.system, first=given.first,
            loads=tuple(given.loads) if given.loads else defaults.loads,
            counts=tuple(given.counts) if given.counts else defaults.counts,
            levels=tuple(given.levels) if given.levels else defaults.levels,
            replications=1 if given.replications is None else int(given.replications),
            jobs=given.jobs, estimates=given.estimates, rate=given.failure_rate,
            slice_failures=given.slice_failures, jitter=jitter(given.jitter),
            failure_span=given.failure_span, rounding=given.rounding,
            predictor_draws=given.predictor_draws)

    def seconds_per_run(self, opt: Any) -> tuple[float, str] | None:
        # The mean over the workloads run (each family gives every workload as many runs),
        # each scaled to --first.
        per = [run_seconds(t, opt.first) for t in opt.traces]
        what = ", ".join(f"{t} {RUN_SECONDS[t]:g} s" for t in opt.traces)
        return (sum(per) / len(per),
                f"a whole-trace run: {what}" + (", scaled to --first above a fixed part"
                                                    if opt.first else ""))


