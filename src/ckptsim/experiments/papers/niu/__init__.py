"""Seed 000 (Niu et al., checkpoint-based backfilling): the paper's declaration.  Its figures
are in `experiments` (specs, Figs. 1, 2, 5) and `sweeps` (Figs. 4, 6, 7 and `readings`), the
tables of docs/results/niu.md in `tables`."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ckptsim.errors import ConfigError
from ckptsim.experiments.papers.base import Claim, Paper, register

FIGURES = ("fig1", "fig2", "fig4", "fig5", "fig6", "fig7", "readings")
#: The figures that are sweeps (the others are computed from the traces or runs directly).
SWEPT = ("fig4", "fig6", "fig7", "readings")


@dataclass(frozen=True)
class Options:
    """What a figure command is given (defaults: the six traces, every job)."""

    trace_dir: Path = Path("../shared/data/traces")
    traces: tuple[str, ...] | None = None  # None: every trace of `experiments.TRACES`
    first: int | None = None
    jobs: int | None = None


_SEED_LOGS = ("SDSC-BLUE", "CTC-SP2", "HPC2N")

CLAIMS = (
    Claim("Fig. 1: 20-80% of nodes often idle while jobs wait", "often", "fig1",
          ("utilization", "queue_length"), "ordering-holds-share",
          verdict="agrees on all six logs (25-83% of the days with jobs waiting)"),
    Claim("Fig. 2: ~40% of jobs within 20% of their estimate, 17% within 0.9-1.1",
          (0.40, 0.17), "fig2_shares", ("share_le_0.2", "share_0.9_to_1.1"), "both-metrics",
          rows={"trace": "all"}, each="within-factor",
          verdict="agrees in shape; 57% and 13% over our six logs, 38-57% and 10-24% on the "
                  "seed's three"),
    Claim("Fig. 3: the top queue job is not affected", "no wait added to wide jobs",
          "readings", ("mean_wait_wide",), "same-direction",
          rows={"reading": ("classical", "estimate")},
          verdict="differs under the default reading: wide jobs wait 1.2-4.9 times as long as "
                  "under EASY"),
    Claim("up to 40% better wait, p = 0.1-0.2 best", (-0.40,), "fig4", ("wait_norm",),
          "best-point", rows={"variant": ("p=0.1", "p=0.2")},
          verdict="agrees (-48% CTC-SP2; -5% HPC2N)"),
    Claim("better than exact-estimate EASY in wait and backfill ratio", "better", "fig4",
          ("wait_norm", "bratio_norm"), "both-metrics",
          rows={"variant": ("classical-actual", "p=0.1", "p=0.2")}, each="same-direction",
          verdict="agrees"),
    Claim("exact-estimate EASY has the better slowdown except on HPC2N", "exact better",
          "fig4", ("mean_bsld",), "ordering-holds-share",
          rows={"trace": _SEED_LOGS, "variant": ("classical-actual", "p=0.1", "p=0.2")},
          verdict="differs, reversed on the seed's logs"),
    Claim("slowdown -50% and more on CTC and HPC2N", (-0.50,), "fig4", ("bsld_norm",),
          "within-factor", rows={"trace": ("CTC-SP2", "HPC2N"), "variant": ("p=0.1", "p=0.2")},
          verdict="agrees on CTC-SP2 (-50%); differs on HPC2N (-2%)"),
    Claim("classical slowdown more than doubles from exact to user estimates (CTC, HPC2N)",
          (2.0,), "fig6", ("mean_bsld",), "within-factor",
          rows={"trace": ("CTC-SP2", "HPC2N"), "scheduler": "classical", "alpha": (0.0, 1.0)},
          verdict="differs: +45% and +18%"),
    Claim("about 4% of jobs checkpointed, wasted resources <= 1.5%", (0.04, 0.015), "fig7",
          ("preempt_ratio", "wasted_ratio"), "both-metrics", rows={"variant": "t_extend=430"},
          each="within-factor",
          verdict="agrees (1.6-4.8%, <= 0.17% at 430 s) under the reading that delays wide "
                  "jobs"),
    Claim("about 0.4 checkpoints per node per day (Intrepid)", (0.4,), "fig7",
          ("node_checkpoints_per_node_day",), "within-factor",
          rows={"variant": "t_extend=430"},
          verdict="same order: 0.11-0.34 node-checkpoints per node-day"),
)


@register
class Niu(Paper):
    name = "niu"
    seed = "000"
    about = "checkpoint-based backfilling"
    figure_help = "fig1 fig2 fig4 fig5 fig6 fig7 readings all"
    uses = ("--trace-dir", "--traces", "--first")
    claims = CLAIMS

    def figures(self) -> tuple[str, ...]:
        return FIGURES

    def wanted(self, figure: str) -> list[str]:
        if figure == "all":
            return list(FIGURES)
        if figure not in FIGURES:
            raise ConfigError("figure", f"unknown figure {figure!r} of niu; accepted: "
                                        f"{', '.join(FIGURES)}, all")
        return [figure]

    def options(self, given: Any) -> Options:
        return Options(trace_dir=Path(given.trace_dir),
                       traces=tuple(given.traces) if given.traces else None,
                       first=given.first, jobs=given.jobs)

    def specs(self, figure: str, opt: Options) -> dict[str, str]:
        from ckptsim.experiments.papers.niu.experiments import TRACES, spec_text

        traces = list(opt.traces) if opt.traces else list(TRACES)
        return {f: spec_text(f, traces, opt.first) for f in self.wanted(figure)
                if f in SWEPT}

    def run(self, figure: str, out: Path, opt: Options,
            on_row: Any = None) -> Iterator[Any]:
        from ckptsim.experiments.papers.niu.experiments import run_figure

        figures = self.wanted(figure)
        for name in figures:
            yield run_figure(name, out / name if len(figures) > 1 else out,
                             trace_dir=opt.trace_dir, traces=opt.traces, jobs=opt.jobs,
                             first=opt.first, on_row=on_row)

    def tables(self) -> Mapping[str, Any]:
        from ckptsim.experiments.papers.niu.tables import TABLES

        return TABLES
