"""Seed 000 (Niu et al., checkpoint-based backfilling): the paper's declaration.  Its figures
are in `experiments` (specs, Figs. 1, 2, 5) and `sweeps` (Figs. 4, 6, 7 and `readings`), the
tables of docs/results/niu.md in `tables`."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ckptsim.errors import ConfigError, did_you_mean
from ckptsim.experiments.papers.base import Between, Claim, Paper, PaperOption, register
from ckptsim.experiments.papers.niu.windows import parse_windows

FIGURES = ("fig1", "fig2", "fig4", "fig5", "fig6", "fig7", "readings")
#: The figures that are sweeps (the others are computed from the traces or runs directly).
SWEPT = ("fig4", "fig6", "fig7", "readings")
#: The overdue reading of the figures' ckpt-backfill runs unless --reading says otherwise: the
#: one the evidence over the traces' sub-periods supports best (docs/results/niu.md), not the
#: scheduler's own default (`overdue=estimate`, the figures' reading before it).
DEFAULT_READING = "reservation-backfilled"
#: Seconds a run of each whole trace takes (the sweep's `run_seconds`, both cores of a quiet
#: two-core machine busy, 28 November 2026): the mean of Fig. 4's twelve runs of the trace
#: (ckpt-backfill at p = 0.1 ... 1 and the two classical EASY runs; Fig. 7's runs with
#: checkpoint costs take as long).  A run of the first N jobs takes its share of the jobs (Fig.
#: 4 at --first 2000: 0.015-0.031 s a run).
RUN_SECONDS = {"SDSC-BLUE": 2.53, "CTC-SP2": 0.74, "HPC2N": 1.43, "SDSC-SP2": 0.43,
               "KTH-SP2": 0.21, "CEA-Curie": 4.42}


@dataclass(frozen=True)
class Options:
    """What a figure command is given (defaults: the six traces, every job)."""

    trace_dir: Path = Path("../shared/data/traces")
    traces: tuple[str, ...] | None = None  # None: every trace of `experiments.TRACES`
    first: int | None = None
    jobs: int | None = None
    freeze: bool = True  # backfilling stops while Algorithm 3's checkpoints are written
    retry: bool = False  # Algorithm 3 may run again at the same instant (once per queue head)
    replan: str = "full"  # which passes run Algorithm 1 in full (`incremental`: easy's shortcut)
    windows: int | None = None  # K sub-periods of each trace besides the whole (`windows`)
    reading: str = DEFAULT_READING  # the overdue reading of the figures' ckpt-backfill runs
    checkpoint_share: float = 0.5  # Fig. 7: the share of t_extend paid at the checkpoint

    def params(self) -> dict[str, bool]:
        """The ckpt-backfill parameters --freeze, --retry and --replan change (none at their
        defaults)."""
        return {k: v for k, v, default in (("freeze", self.freeze, True),
                                           ("retry", self.retry, False),
                                           ("replan", self.replan, "full")) if v != default}

    def figure_params(self, figure: str) -> dict[str, Any]:
        """The ckpt-backfill parameters added to every ckpt-backfill run of `figure`: those of
        `params`, then the reading's (`experiments.READINGS`; none for `estimate`, the
        scheduler's own default).  `readings` runs every reading itself and gets no reading."""
        from ckptsim.experiments.papers.niu.experiments import READINGS

        own = {} if figure == "readings" else dict(READINGS)[self.reading]
        return {**self.params(), **own}


def _bool(flag: str, value: str) -> bool:
    if value not in ("true", "false"):
        raise ConfigError(flag, f"got {value!r}; accepted: true, false")
    return value == "true"


def _replan(value: str) -> str:
    if value not in ("full", "incremental"):
        raise ConfigError("--replan", f"got {value!r}; accepted: full, incremental")
    return value


def _share(value: str | float) -> float:
    """`--checkpoint-share`'s value: a number from 0 to 1."""
    try:
        share = float(value)
    except (TypeError, ValueError):
        share = float("nan")
    if not 0.0 <= share <= 1.0:
        raise ConfigError("--checkpoint-share", f"got {value!r}; accepted: a number from 0 to 1 "
                                                f"(the share of t_extend paid at the checkpoint)")
    return share


def _reading(value: str) -> str:
    accepted = sorted(label for label, _ in _READINGS)
    if value not in accepted:
        raise ConfigError("--reading", f"got {value!r}; accepted: {', '.join(accepted)}")
    return value


_SEED_LOGS = ("SDSC-BLUE", "CTC-SP2", "HPC2N")

#: The readings of an overdue prediction (`readings.csv`) and what each is called in the claims,
#: in the claims' order: the figures' default reading first, `overdue=now` next.
_READINGS = (("reservation-backfilled", "overdue=reservation, scaled=backfilled"),
             ("now", "overdue=now"), ("estimate", "overdue=estimate"),
             ("now-backfilled", "overdue=now, scaled=backfilled"),
             ("reservation", "overdue=reservation"))
_P = tuple(f"p={p}" for p in ("0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1"))

# Every run is one deterministic whole-trace run: a figure over several traces is their mean
# with its t interval (unit "trace"); a figure on one trace has n = 1 and cannot agree (Fig. 6's
# claims, on one trace each, are graded over its windows only: `WINDOW_CLAIMS`).
CLAIMS = (
    Claim("Fig. 1: 20-80% of nodes often idle while jobs wait (at least 20% idle on a fifth "
          "of the days with jobs waiting)", 0.2, "fig1", ("utilization - 0.8",), "share",
          rows={"queue_length": Between(1.0, math.inf)}, by="trace"),
    Claim("Fig. 2: ~40% of jobs within 20% of their estimate, 17% within 0.9-1.1 (the seed's "
          "three logs)", (0.40, 0.17), "fig2_shares", ("share_le_0.2", "share_0.9_to_1.1"),
          "factor-2", rows={"trace": _SEED_LOGS}, unit="trace"),
    *(Claim(f"Fig. 3: the top queue job is not affected: wide jobs wait no longer than under "
            f"EASY ({page})", 0.0, "readings", ("mean_wait_wide",), "at-most",
            versus=("reading", "classical", reading), relative=True, unit="trace")
      for reading, page in _READINGS),
    *(Claim(f"up to 40% better wait than EASY at p = 0.2 ({page})", -0.40, "readings",
            ("mean_wait",), "factor-2", versus=("reading", "classical", reading),
            relative=True, unit="trace")
      for reading, page in _READINGS),
    Claim("p = 0.1-0.2 best in wait", 0.15, "fig4", ("wait_norm",), "best-at",
          rows={"variant": _P}, by="trace", param="variant"),
    Claim("better than exact-estimate EASY in wait and backfill ratio (p = 0.2)", (-1.0, 1.0),
          "fig4", ("mean_wait", "backfill_ratio"), "same-sign",
          versus=("variant", "classical-actual", "p=0.2"), relative=True, unit="trace"),
    Claim("better than exact-estimate EASY in wait at every p", 1.0, "fig4", ("wait_norm",),
          "share", versus=("variant", "classical-actual", _P), unit="trace"),
    Claim("exact-estimate EASY has the better slowdown except on HPC2N (p = 0.2)", 1.0, "fig4",
          ("mean_bsld",), "share", rows={"trace": ("SDSC-BLUE", "CTC-SP2")},
          versus=("variant", "classical-actual", "p=0.2"), unit="trace", higher=True),
    Claim("slowdown -50% and more on CTC and HPC2N (p = 0.2)", -0.5, "fig4",
          ("bsld_norm - 1",), "at-most", rows={"trace": ("CTC-SP2", "HPC2N"),
                                              "variant": "p=0.2"}, by="trace"),
    *(Claim(f"about 4% of jobs checkpointed ({page})", 0.04, "readings", ("preempt_ratio",),
            "factor-2", rows={"reading": reading}, unit="trace")
      for reading, page in _READINGS),
    Claim("wasted resources <= 1.5% (t_extend = 430 s)", 0.015, "fig7", ("wasted_ratio",),
          "at-most", rows={"variant": "t_extend=430"}, unit="trace"),
    Claim("about 0.4 checkpoints per node per day (Intrepid; t_extend = 430 s)", 0.4, "fig7",
          ("node_checkpoints_per_node_day",), "factor-2", rows={"variant": "t_extend=430"},
          unit="trace"),
)

#: The headlines again, per trace over its `--windows` sub-periods (unit "window": n = K per
#: trace; not-run where the windows' CSVs are absent).
_WINDOW = ("trace", "window")
WINDOW_CLAIMS = (
    *(Claim(f"per trace, over its windows: up to 40% better wait than EASY at p = 0.2 ({page})",
            -0.40, "readings_windows", ("mean_wait",), "factor-2",
            versus=("reading", "classical", reading), relative=True, by="trace", unit=_WINDOW)
      for reading, page in _READINGS),
    *(Claim(f"per trace, over its windows: about 4% of jobs checkpointed ({page})", 0.04,
            "readings_windows", ("preempt_ratio",), "factor-2", rows={"reading": reading},
            by="trace", unit=_WINDOW)
      for reading, page in _READINGS),
    Claim("per trace, over its windows: p = 0.1-0.2 best in wait", 0.15, "fig4_windows",
          ("wait_norm",), "best-at", rows={"variant": _P}, by="trace", param="variant",
          unit=_WINDOW),
    Claim("per trace, over its windows: better than exact-estimate EASY in wait and backfill "
          "ratio (p = 0.2)", (-1.0, 1.0), "fig4_windows", ("mean_wait", "backfill_ratio"),
          "same-sign", versus=("variant", "classical-actual", "p=0.2"), relative=True,
          by="trace", unit=_WINDOW),
    Claim("per trace, over its windows: slowdown -50% and more on CTC and HPC2N (p = 0.2)",
          -0.5, "fig4_windows", ("bsld_norm - 1",), "at-most",
          rows={"trace": ("CTC-SP2", "HPC2N"), "variant": "p=0.2"}, by="trace", unit=_WINDOW),
    Claim("per trace, over its windows: wasted resources <= 1.5% (t_extend = 430 s)", 0.015,
          "fig7_windows", ("wasted_ratio",), "at-most", rows={"variant": "t_extend=430"},
          by="trace", unit=_WINDOW),
    *(Claim(f"per trace, over its windows: Fig. 3: the top queue job is not affected: wide "
            f"jobs wait no longer than under EASY ({page})", 0.0, "readings_windows",
            ("mean_wait_wide",), "at-most", versus=("reading", "classical", reading),
            relative=True, by="trace", unit=_WINDOW)
      for reading, page in _READINGS),
    # Fig. 6 (section 4.2), on `fig6 --windows K`: slowdown from exact (alpha = 0) to the
    # users' estimates (alpha = 1); `exact_mean_bsld` is the row's scheduler's at alpha = 0.
    Claim("per trace, over its windows: Fig. 6: classical slowdown more than doubles from "
          "exact to user estimates (CTC, HPC2N)", 1.0, "fig6_windows", ("mean_bsld",),
          "at-least", rows={"trace": ("CTC-SP2", "HPC2N"), "scheduler": "classical"},
          versus=("alpha", 0.0, 1.0), relative=True, by="trace", unit=_WINDOW),
    Claim("per trace, over its windows: Fig. 6: ckpt-backfill (p = 0.2) is more stable than "
          "classical from exact to user estimates (its slowdown grows less)", -1.0,
          "fig6_windows", ("mean_bsld / exact_mean_bsld",), "same-sign",
          rows={"alpha": 1.0}, versus=("scheduler", "classical", "ckpt"), by="trace",
          unit=_WINDOW),
    Claim("per trace, over its windows: Fig. 6: classical with exact estimates does no better "
          "than ckpt-backfill with the users' (slowdown)", 0.0, "fig6_windows",
          ("mean_bsld / classical_exact_mean_bsld",), "at-most",
          rows={"scheduler": "ckpt", "alpha": 1.0}, by="trace", unit=_WINDOW),
)


@register
class Niu(Paper):
    name = "niu"
    seed = "000"
    about = "checkpoint-based backfilling"
    figure_help = "fig1 fig2 fig4 fig5 fig6 fig7 readings all"
    uses = ("--trace-dir", "--traces", "--first")
    own_options = (
        PaperOption("--freeze", "ckpt-backfill runs (fig4-fig7, readings): true (default true: "
                    "no backfilling while Algorithm 3's checkpoints are written) or false",
                    default="true", kwargs={"metavar": "true|false"}),
        PaperOption("--retry", "ckpt-backfill runs (fig4-fig7, readings): false (default "
                    "false: Algorithm 3 at most once per instant) or true (again at the same "
                    "instant, once per queue head)", default="false",
                    kwargs={"metavar": "true|false"}),
        PaperOption("--replan", "ckpt-backfill runs (fig4-fig7, readings): full (default "
                    "full: Algorithm 1 in full after every arrival and end, as the seed runs "
                    "it) or incremental (easy's arrival-only passes, the reading of runs "
                    "recorded before the option)", default="full",
                    kwargs={"metavar": "full|incremental"}),
        PaperOption("--reading", "ckpt-backfill runs (fig4-fig7): the reading of an overdue "
                    "prediction, one of estimate (the scheduler's default), now, "
                    "now-backfilled, reservation, reservation-backfilled (default "
                    "reservation-backfilled: overdue=reservation, scaled=backfilled); "
                    "readings runs them all", default=DEFAULT_READING,
                    kwargs={"metavar": "READING"}),
        PaperOption("--windows", "swept figures (fig4, fig6, fig7, readings): also cut each "
                    "trace into K consecutive sub-periods of equal job count, each run as a "
                    "replication (rows in figN_windows.csv); default: whole traces only",
                    kwargs={"metavar": "K"}),
        PaperOption("--checkpoint-share", "fig7: the share of each t_extend paid when the job "
                    "is checkpointed (t_checkpoint), the rest when it restarts (t_restart); "
                    "default 0.5: the seed's 215 s checkpoint and 215 s restart at t_extend = "
                    "430 s; 1: free restarts, 0: free checkpoints", default="0.5",
                    kwargs={"metavar": "S"}),
    )
    #: As `run` reads them (`Options.figure_params`, `experiments.run_figure`): Figs. 1 and 2
    #: run no scheduler; Fig. 5 runs ckpt-backfill on whole traces; `readings` runs every
    #: reading; only Fig. 7 pays checkpoint costs.
    used_by = {"--freeze": ("fig4", "fig5", "fig6", "fig7", "readings"),
               "--retry": ("fig4", "fig5", "fig6", "fig7", "readings"),
               "--replan": ("fig4", "fig5", "fig6", "fig7", "readings"),
               "--reading": ("fig4", "fig5", "fig6", "fig7"),
               "--windows": SWEPT, "--checkpoint-share": ("fig7",)}
    claims = CLAIMS + WINDOW_CLAIMS
    set_flags = {"freeze": "--freeze", "retry": "--retry", "replan": "--replan",
                 "overdue": "--reading", "scaled": "--reading"}
    no_runs = ("fig1", "fig2")

    def figures(self) -> tuple[str, ...]:
        return FIGURES

    def wanted(self, figure: str) -> list[str]:
        if figure == "all":
            return list(FIGURES)
        if figure not in FIGURES:
            raise ConfigError("figure", f"unknown figure {figure!r} of niu"
                                        f"{did_you_mean(figure, FIGURES)}; accepted: "
                                        f"{', '.join(FIGURES)}, all")
        return [figure]

    def options(self, given: Any) -> Options:
        return Options(trace_dir=Path(given.trace_dir), traces=_traces(given.traces),
                       first=given.first, jobs=given.jobs,
                       freeze=_bool("--freeze", given.freeze),
                       retry=_bool("--retry", given.retry),
                       replan=_replan(given.replan),
                       windows=parse_windows(given.windows),
                       reading=_reading(given.reading),
                       checkpoint_share=_share(given.checkpoint_share))

    def specs(self, figure: str, opt: Options) -> dict[str, str]:
        from ckptsim.experiments.papers.niu.experiments import TRACES, spec_text
        from ckptsim.experiments.papers.niu.windows import trace_windows

        traces = list(opt.traces) if opt.traces else list(TRACES)
        cuts = (trace_windows(opt.trace_dir, TRACES, traces, opt.first, opt.windows)
                if opt.windows else None)
        return {f: spec_text(f, traces, opt.first, opt.figure_params(f), cuts,
                             opt.checkpoint_share)
                for f in self.wanted(figure) if f in SWEPT}

    def direct_runs(self, figure: str, opt: Options) -> list[tuple[str, str, dict[str, Any]]]:
        from ckptsim.experiments.papers.niu.experiments import fig5_variants

        return ([(s, label, prm) for label, s, prm, _ in fig5_variants(opt.figure_params("fig5"))]
                if "fig5" in self.wanted(figure) else [])

    def runs_of(self, figure: str, opt: Options) -> int | None:
        """The runs of the figure's sweeps (Figs. 1, 2 and 5 are computed directly: None for
        them alone, each is then reported with its own time, as when a trace is missing)."""
        from ckptsim.experiments.estimate import planned

        specs = self.specs(figure, opt)
        plans = planned(specs, opt.trace_dir)
        if not specs or len(plans) < len(specs):
            return None  # (a spec that cannot be planned: the figure's run says why)
        return sum(len(plan.runs) for plan in plans.values())

    def seconds_per_run(self, opt: Options) -> tuple[float, str] | None:
        from ckptsim.experiments.estimate import cut_to
        from ckptsim.experiments.papers.niu.experiments import TRACES

        traces = list(opt.traces) if opt.traces else list(TRACES)
        per = [cut_to(RUN_SECONDS[t], TRACES[t], opt.first) for t in traces]
        # A trace's K windows share its jobs: K + 1 runs where there was one, of twice its time.
        share = 1.0 if not opt.windows else 2.0 / (1 + opt.windows)
        what = ", ".join(f"{t} {RUN_SECONDS[t]:g} s" for t in traces)
        return (share * sum(per) / len(per),
                f"a whole-trace run: {what}"
                + (", scaled to --first" if opt.first else "")
                + (", with its windows" if opt.windows else ""))

    def run(self, figure: str, out: Path, opt: Options,
            on_row: Any = None) -> Iterator[Any]:
        from ckptsim.experiments.papers.niu.experiments import run_figure

        for name in self.wanted(figure):  # every figure into `out`, its runs into out/store
            yield run_figure(name, out,
                             trace_dir=opt.trace_dir, traces=opt.traces, jobs=opt.jobs,
                             first=opt.first, on_row=on_row,
                             params=opt.figure_params(name),
                             windows=opt.windows, share=opt.checkpoint_share)

    def tables(self) -> Mapping[str, Any]:
        from ckptsim.experiments.papers.niu.tables import TABLES

        return TABLES


def _traces(names: Any) -> tuple[str, ...] | None:
    """`--traces`, checked before any figure plans its runs (names as the page writes them:
    CTC-SP2, ...)."""
    from ckptsim.experiments.papers.niu.experiments import TRACES

    if not names:
        return None
    unknown = [t for t in names if t not in TRACES]
    if unknown:
        raise ConfigError("--traces", f"unknown trace {unknown[0]!r}"
                                      f"{did_you_mean(unknown[0], TRACES)}; accepted: "
                                      f"{', '.join(TRACES)}")
    return tuple(names)
