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

_SUMMARY = ("thesis seeds", "30 seeds")  # fig16.csv's rows of means, not seeds
_TABLE3 = tuple(f"{what}_{cls}" for what in ("jobs", "work", "size")
                for cls in ("short", "medium", "long"))

CLAIMS = (
    Claim("Table 3: the class mix, shares of work and mean sizes (ours less the thesis's, per "
          "seed)", 0.0, "table3",
          tuple(f"{c}{'_pct' if not c.startswith('size') else ''} - thesis_"
                f"{c}{'_pct' if not c.startswith('size') else ''}" for c in _TABLE3),
          "in-ci", unit="seed"),
    Claim("Table 3: mean inter-arrival time 869 s", 869.0, "table3", ("interarrival_s",),
          "in-ci", unit="seed"),
    Claim("Figs. 11-15: with migration, ARRT of long and medium jobs is lower than with "
          "checkpoints alone for every seed", 1.0, _CASE_FIGURES,
          ("arrt_migration - arrt_checkpoint",), "share",
          rows={"class": ("long", "medium"), "size_class": "all"}, by="class"),
    Claim("Figs. 11-15: the wide long jobs perform very badly with migration (worse than the "
          "original) on every seed", 1.0, _CASE_FIGURES, ("arrt_migration - arrt_original",),
          "share", rows={"class": "long", "size_class": "wide"}, higher=True),
    Claim("Figs. 11-15: narrow and midsize jobs gain most from migration, wide jobs least "
          "(narrow jobs gain at least as much as wide ones, every seed and class)", 1.0,
          _CASE_FIGURES,
          ("gain_migration_pct",), "share", rows={"size_class": ("narrow", "wide")},
          versus=("size_class", "wide", "narrow"), unit=("seed", "class"), higher=True),
    Claim("Figs. 11-15: gain from migration, long / medium, per seed (ours less the thesis's)",
          0.0, "fig16", ("gain_long_pct - thesis_gain_long_pct",
                         "gain_medium_pct - thesis_gain_medium_pct"), "in-ci",
          rows={"seed": _THESIS_SEEDS}, unit="seed"),
    Claim("Fig. 16: mean gain over the thesis's five seeds, long about 1.5%, medium about 4%",
          (1.5, 4.0), "fig16", ("gain_long_pct", "gain_medium_pct"), "in-ci",
          rows={"seed": _THESIS_SEEDS}, unit="seed"),
    Claim("Fig. 16: migration improves ARRT over checkpoints alone for both classes (30 seeds)",
          (1.5, 4.0), "fig16", ("gain_long_pct", "gain_medium_pct"), "same-sign",
          exclude={"seed": _SUMMARY}, unit="seed"),
    Claim("Fig. 16: medium jobs gain more than long ones (4% against 1.5%; 30 seeds)", 2.5,
          "fig16", ("gain_medium_pct - gain_long_pct",), "same-sign",
          exclude={"seed": _SUMMARY}, unit="seed"),
    Claim("the conclusion: migration improves ARRT over the original scheduler, long and "
          "medium jobs (30 seeds)", (1.5, 4.0), "fig16",
          ("gain_long_vs_original_pct", "gain_medium_vs_original_pct"), "same-sign",
          exclude={"seed": _SUMMARY}, unit="seed"),
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
