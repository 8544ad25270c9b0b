"""Seed 001 (Jones, network-aware co-allocation and CTMR): the paper's declaration.  Its specs,
runs and reduction are in `experiments`, its figures in `figures`."""

from __future__ import annotations

from typing import Any

from ckptsim.errors import ConfigError
from ckptsim.experiments.papers.base import Claim, FamilyPaper, PaperOption, register

_IDEAL = "ideal (0% error)"
_CTMR = ("no CTMR", "CTMR 10 min")

CLAIMS = (
    Claim("improvement over Migration Only, ideal case (0% error, all informed), 150 / 300 / "
          "400 Mbit/s", (0.22, 0.16, 0.125), "fig16", ("improvement",), "within-factor",
          rows={"variant": _IDEAL},
          verdict="same order, same ranking; ours about 4 points lower"),
    Claim("at +-100% error, 150 Mbit/s", (0.16,), "fig1", ("improvement",), "within-factor",
          rows={"error": 1, "info": 1}, verdict="agrees"),
    Claim("at +-80% error, 300 / 400 Mbit/s", (0.08, 0.04), ("fig3", "fig5"), ("improvement",),
          "within-factor", rows={"error": 0.8, "info": 1},
          verdict="same trend, 400 Mbit/s worse here"),
    Claim("CTMR at 10 min, +-100% error, 150 Mbit/s", (0.16, 0.19), "fig16", ("improvement",),
          "same-direction", rows={"ppbw": 150, "variant": _CTMR}, verdict="agrees"),
    Claim("CTMR at 10 min, +-100% error, 300 Mbit/s", (0.008, 0.105), "fig16",
          ("improvement",), "same-direction", rows={"ppbw": 300, "variant": _CTMR},
          verdict="agrees"),
    Claim("CTMR at 10 min, +-100% error, 400 Mbit/s", (-0.04, 0.06), "fig16", ("improvement",),
          "same-direction", rows={"ppbw": 400, "variant": _CTMR}, verdict="agrees"),
    Claim("CTMR never worse than without it, 0-90 min", "yes", ("fig17", "fig18", "fig19"),
          ("turnaround_h", "without_ctmr_h"), "ordering-holds-share",
          verdict="agrees, but for two points within 0.4%, each after a single checkpoint"),
    Claim("400 Mbit/s, +-100%: CTMR passes Migration Only at", (30.6,), "fig19",
          ("overhead_min", "improvement"), "crossing-point", rows={"error": 1},
          verdict="agrees: between 25 and 30 min"),
    Claim("slowdown factor of co-allocated jobs at -95% error", (1.12,), "fig9",
          ("coalloc_slowdown",), "within-factor", rows={"error": -0.95},
          verdict="agrees: 1.013 / 1.074 / 1.142"),
)


@register
class Jones(FamilyPaper):
    name = "jones"
    seed = "001"
    about = "multi-cluster co-allocation and CTMR"
    figure_help = ("fig1 ... fig19, a family (info = figs 1-6 and 8, fixed = 7 and 9, ctmr = "
                   "10-16, overhead = 17-19) or all")
    uses = ("--replications", "--full")
    own_options = (
        PaperOption("--per-cluster", "jobs per cluster (default 10,000; the seed: 400,000)",
                    kwargs={"type": int, "metavar": "N"}),
        PaperOption("--load", "offered load per cluster, > 0 (default 0.95)",
                    kwargs={"type": float, "metavar": "L"}),
    )
    claims = CLAIMS

    def figures(self) -> tuple[str, ...]:
        from ckptsim.experiments.papers.jones.experiments import FIGURES

        return FIGURES

    def wanted(self, figure: str) -> list[str]:
        from ckptsim.experiments.papers.jones import experiments as jones

        if figure == "all":
            return list(jones.FIGURES)
        family = jones.family_of(figure)
        return list(jones.FAMILIES[family]) if figure == family else [figure]

    def options(self, given: Any) -> Any:
        from ckptsim.experiments.papers.jones import experiments as jones

        if given.full and given.per_cluster is not None:
            raise ConfigError("--full", "give --full (the seed's 400,000 jobs per cluster) or "
                                        "--per-cluster N, not both")
        n = jones.FULL_N if given.full else (
            jones.DEFAULT_N if given.per_cluster is None else given.per_cluster)
        return jones.Options(n=n, load=given.load if given.load is not None else jones.LOAD,
                             replications=1 if given.replications is None
                             else int(given.replications), jobs=given.jobs)


    def detail(self, opt: Any) -> str:
        return f" ({opt.n:,} jobs per cluster, load {opt.load:g})"
