"""Seed 001 (Jones, network-aware co-allocation and CTMR): the paper's declaration.  Its specs,
runs and reduction are in `experiments`, its figures in `figures`."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from ckptsim.errors import ConfigError
from ckptsim.experiments.papers.base import Claim, FamilyPaper, PaperOption, register

_IDEAL = "ideal (0% error)"
_CTMR = ("no CTMR", "CTMR 10 min")

# Every point of the committed figures is the mean of 5 workload seeds (`seeds`), with its 95%
# half-width (`X_ci`); comparisons between two configurations are paired by seed (the figures'
# `vs_opposite` and `vs_no_ctmr` columns).
CLAIMS = (
    Claim("improvement over Migration Only, ideal case (0% error, all informed), 150 / 300 / "
          "400 Mbit/s", (0.22, 0.16, 0.125), "fig16", ("improvement",), "factor-2",
          rows={"variant": _IDEAL}, by="ppbw"),
    Claim("at +-100% error, 150 Mbit/s: 16% with 20% information or more", 0.16, "fig1",
          ("improvement",), "factor-2", rows={"error": 1, "info": (0.2, 0.4, 0.6, 0.8, 1)},
          by="info"),
    Claim("at +-80% error, 300 / 400 Mbit/s", (0.08, 0.04), ("fig3", "fig5"), ("improvement",),
          "factor-2", rows={"error": 0.8, "info": 1}, by="ppbw"),
    Claim("Fig. 7: underestimating (-100%) is worse than overestimating (+100%), at every "
          "PPBW", -1.0, "fig7", ("vs_opposite",), "same-sign", rows={"error": -1}, by="ppbw"),
    Claim("CTMR at 10 min, +-100% error, 150 / 300 / 400 Mbit/s: improvement 16 -> 19%, "
          "0.8 -> 10.5%, -4 -> 6%", (0.03, 0.097, 0.10), "fig16", ("vs_no_ctmr",), "same-sign",
          rows={"variant": "CTMR 10 min"}, by="ppbw"),
    Claim("CTMR never worse than without it, 0-90 min (every point of Figs. 17-19)", 1.0,
          ("fig17", "fig18", "fig19"), ("turnaround_h - without_ctmr_h",), "share"),
    Claim("400 Mbit/s, +-100%: CTMR passes Migration Only at 30.6 min", 30.6, "fig19",
          ("improvement",), "crossing", rows={"error": 1}, param="overhead_min"),
    Claim("slowdown factor of co-allocated jobs at -95% error up to 1.12", 1.12, "fig9",
          ("coalloc_slowdown",), "at-most", rows={"error": -0.95}, by="ppbw"),
    # The same headline points at the seed's size (figure `headline`, run with --full).
    Claim("at the seed's size: improvement over Migration Only, ideal case, 150 / 300 / 400 "
          "Mbit/s", (0.22, 0.16, 0.125), "headline", ("improvement",), "factor-2",
          rows={"variant": "ideal (0% error)"}, by="ppbw"),
    Claim("at the seed's size: +-100% error without CTMR, 150 / 300 / 400 Mbit/s",
          (0.16, 0.008, -0.04), "headline", ("improvement",), "factor-2",
          rows={"variant": "+-100%, no CTMR"}, by="ppbw"),
    Claim("at the seed's size: CTMR at 10 min helps at +-100% error, 150 / 300 / 400 Mbit/s",
          (0.03, 0.097, 0.10), "headline", ("vs_no_ctmr",), "same-sign",
          rows={"variant": "+-100%, CTMR 10 min"}, by="ppbw"),
)


@register
class Jones(FamilyPaper):
    name = "jones"
    seed = "001"
    about = "multi-cluster co-allocation and CTMR"
    figure_help = ("fig1 ... fig19, a family (info = figs 1-6 and 8, fixed = 7 and 9, ctmr = "
                   "10-16, overhead = 17-19) or all (the seed's figures); beyond them, not in "
                   "all: cpfrac (CPfrac sweep), unknown (the agent assuming 30 min), "
                   "ablation (the model's readings, docs/grid.md) and headline (the seed's "
                   "headline points alone, for --full)")
    uses = ("--replications", "--full")
    own_options = (
        PaperOption("--per-cluster", "jobs per cluster (default 2,000; the seed: 400,000)",
                    kwargs={"type": int, "metavar": "N"}),
        PaperOption("--load", "offered load per cluster, > 0 (default 0.95)",
                    kwargs={"type": float, "metavar": "L"}),
        PaperOption("--paired", "the paired comparisons of two configurations (vs_opposite, "
                    "vs_no_ctmr): seed (default: each seed's turnaround gain over that seed's "
                    "Migration Only turnaround, the difference of the improvements, seed by "
                    "seed) or mean (over Migration Only's turnaround averaged over the seeds)",
                    default="seed",
                    kwargs={"metavar": "mean|seed"}),
    )
    used_by = {"--paired": ("fig7", "fig16", "fig17", "fig18", "fig19")}
    option_fields = {"--per-cluster": "n"}
    claims = CLAIMS

    def figures(self) -> tuple[str, ...]:
        from ckptsim.experiments.papers.jones.experiments import FIGURES

        return FIGURES

    def wanted(self, figure: str) -> list[str]:
        from ckptsim.experiments.papers.jones import experiments as jones

        if figure == "all":
            return list(jones.FIGURES)
        family = jones.family_of(figure)
        return list(jones.ALL_FAMILIES[family]) if figure == family else [figure]

    def options(self, given: Any) -> Any:
        from ckptsim.experiments.papers.jones import experiments as jones

        if given.full and given.per_cluster is not None:
            raise ConfigError("--full", "give --full (the seed's 400,000 jobs per cluster) or "
                                        "--per-cluster N, not both")
        n = jones.FULL_N if given.full else (
            jones.DEFAULT_N if given.per_cluster is None else given.per_cluster)
        default = 1 if given.full else jones.REPLICATIONS
        return jones.Options(n=n, load=given.load if given.load is not None else jones.LOAD,
                             replications=default if given.replications is None
                             else int(given.replications), jobs=given.jobs,
                             paired=str(given.paired))


    def detail(self, opt: Any) -> str:
        return f" ({opt.n:,} jobs per cluster, load {opt.load:g})"

    def seconds_per_run(self, opt: Any) -> tuple[float, str] | None:
        # The mean of the two kinds of run, interpolated between the measured sizes.
        each = sum(_at(opt.n, i) for i in (0, 1)) / 2
        return each, ("co-allocation and CTMR runs measured at 500 to 400,000 jobs per "
                      "cluster, interpolated")


#: Seconds a run takes (the sweep's `run_seconds`: the simulation and its summary, one process
#: on a quiet two-core machine, 28 November 2026) by jobs per cluster, at load 0.95, +-100%
#: errors and 400 Mbit/s: co-allocation without CTMR, then CTMR at 10 min, the two kinds of
#: run the figures are made of (Migration Only takes about half the first).  A run's time is
#: about linear in its jobs (36-37 and 44-46 us a job up to 100,000 jobs per cluster), a little
#: more at the seed's size (50 us a job with CTMR).
RUN_SECONDS = ((500, 0.067, 0.086), (2_000, 0.293, 0.362), (10_000, 1.473, 1.758),
               (100_000, 14.885, 18.208), (400_000, 63.55, 79.64))


def _at(n: int, kind: int) -> float:
    """Seconds of a run of `n` jobs per cluster of `kind` (0: co-allocation, 1: CTMR): linear
    between the two measured sizes around it, at the nearest one's seconds per job outside
    them."""
    points = [(row[0], row[1 + kind]) for row in RUN_SECONDS]
    if n <= points[0][0]:
        return points[0][1] * n / points[0][0]
    for (a, ta), (b, tb) in pairwise(points):
        if n <= b:
            return ta + (tb - ta) * (n - a) / (b - a)
    return points[-1][1] * n / points[-1][0]
