"""Seed 002 (Shi, Scojo-PECT with checkpoints and migration): the paper's declaration.  Its
specs, runs and Table 3 are in `experiments`, its figures in `figures`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ckptsim.errors import ConfigError
from ckptsim.experiments.papers.base import Claim, Paper, PaperOption, register

ESTIMATES = ("exact", "tsafrir", "f")
_THESIS_SEEDS = (71, 31, 7, 23, 13)
_CASE_FIGURES = ("fig11", "fig12", "fig13", "fig14", "fig15")

CLAIMS = (
    Claim("Table 3: the class mix, shares of work and mean sizes of the Lublin workloads",
          "the thesis's Table 3 (the CSV's thesis_ columns)", "table3",
          ("jobs_short_pct", "jobs_medium_pct", "jobs_long_pct"), "both-metrics",
          each="within-factor",
          verdict="agrees: class mix within 1.3 points, work within 3.1, sizes within 2 nodes"),
    Claim("Table 3: mean inter-arrival time", (869.0,), "table3", ("interarrival_s",),
          "within-factor",
          verdict="differs: 904-1,147 s here (mean 1,020 s), about 15% lighter workloads"),
    Claim("Figs. 11-15: with migration, ARRT of long and medium jobs is lower than with "
          "checkpoints alone for every seed", "yes", _CASE_FIGURES,
          ("arrt_checkpoint", "arrt_migration"), "ordering-holds-share",
          rows={"class": ("long", "medium"), "size_class": "all"}, verdict="agrees"),
    Claim("Fig. 11: the wide jobs perform very badly with migration", "yes", "fig11",
          ("arrt_original", "arrt_migration"), "ordering-holds-share",
          rows={"class": "long", "size_class": "wide"},
          verdict="agrees (seed 71: long wide 17.9 against 8.4)"),
    Claim("Figs. 11-15: gain from migration, long / medium, per seed (1-4.6%)",
          "the thesis's gains (the CSV's thesis_gain_ columns)", "fig16",
          ("gain_long_pct", "gain_medium_pct"), "both-metrics", rows={"seed": _THESIS_SEEDS},
          each="within-factor", verdict="differs: ten to thirty times the thesis's gains"),
    Claim("Fig. 16: mean gain over the thesis's five seeds, long about 1.5%, medium about 4%",
          (1.5, 4.0), "fig16", ("gain_long_pct", "gain_medium_pct"), "both-metrics",
          rows={"seed": "thesis seeds"}, each="seed-value-in-ci",
          verdict="differs: 49.1% +- 8.0 and 40.4% +- 8.8"),
    Claim("Fig. 16: migration improves ARRT over checkpoints alone for both classes",
          (1.5, 4.0), "fig16", ("gain_long_pct", "gain_medium_pct"), "both-metrics",
          rows={"seed": "30 seeds"}, each="same-sign-ci-excludes-zero",
          verdict="agrees: the 30-seed intervals exclude zero"),
    Claim("Fig. 16: medium jobs gain more than long ones (4% against 1.5%)", (4.0, 1.5),
          "fig16", ("gain_medium_pct", "gain_long_pct"), "ordering-holds-share",
          rows={"seed": "30 seeds"}, verdict="differs: long jobs gain more (55% against 50%)"),
)


@register
class Shi(Paper):
    name = "shi"
    seed = "002"
    about = "Scojo-PECT with checkpoints and migration"
    figure_help = "table3 fig11 ... fig16 traces all"
    uses = ("--trace-dir", "--traces", "--first", "--estimates")
    own_options = (
        PaperOption("--ci-seeds", "fig16: seeds of the confidence intervals, the thesis's five "
                    "first (default 30; at least 2)", default=30,
                    kwargs={"type": int, "metavar": "N"}),
    )
    claims = CLAIMS

    def figures(self) -> tuple[str, ...]:
        from ckptsim.experiments.papers.shi.experiments import FIGURES

        return FIGURES

    def wanted(self, figure: str) -> list[str]:
        from ckptsim.experiments.papers.shi.experiments import wanted_figures

        return wanted_figures(figure)

    def options(self, given: Any) -> Any:
        from ckptsim.experiments.papers.shi.experiments import Options

        if given.estimates not in ESTIMATES:
            raise ConfigError("--estimates", f"unknown value {given.estimates!r} for shi; "
                                             f"accepted: {', '.join(ESTIMATES)}")
        defaults = Options()
        return Options(n=given.first if given.first is not None else defaults.n,
                       estimates=given.estimates, ci_seeds=given.ci_seeds,
                       traces=tuple(given.traces) if given.traces else defaults.traces,
                       trace_dir=Path(given.trace_dir), first=given.first, jobs=given.jobs)

    def specs(self, figure: str, opt: Any) -> dict[str, str]:
        from ckptsim.experiments.papers.shi.experiments import spec_text

        figures = self.wanted(figure)
        seeds = opt.seeds(figures)
        out = {"lublin": spec_text("lublin", opt, seeds)} if seeds else {}
        if "traces" in figures:
            out["traces"] = spec_text("traces", opt)
        return out

    def runs_of(self, figure: str, opt: Any) -> int:
        from ckptsim.experiments.papers.shi.experiments import runs_of

        return runs_of(figure, opt)

    def run(self, figure: str, out: Path, opt: Any, on_row: Any = None) -> list[Any]:
        from ckptsim.experiments.papers.shi.experiments import run_figures

        return run_figures(figure, out, opt, on_row=on_row)
