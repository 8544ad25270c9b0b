"""Seed 003 (Forshaw et al., energy-aware checkpointing in a desktop pool): the paper's
declaration.  Its policies, specs and runs are in `experiments`, its reduction and figures in
`figures`, the tables of docs/results/forshaw.md in `tables`."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from ckptsim.errors import ConfigError
from ckptsim.experiments.papers.base import Claim, FamilyPaper, PaperOption, register

_BENEFITS = ("benefit_energy_mwh", "benefit_overhead_min")
_OPT = ("Opt 1 min", "Opt 2 min", "Opt 3 min", "Opt 4 min")

def _and_at_a_year(*claims: Claim, **changes: Any) -> tuple[Claim, ...]:
    """The claims as graded on the weeks, then the same claims at the seed's horizon: a year
    (the family's `--full` run, at 5 replications; its CSVs in full/),
    `changes` (e.g. another CSV) applied to the year's."""
    return claims + tuple(
        replace(c, **{"statement": f"at a year: {c.statement}", "csv": f"full/{c.csv}",
                      **changes})
        for c in claims)


def _on_the_trace(claim: Claim, **changes: Any) -> Claim:
    """A claim graded again on the Microsoft availability trace (the trace figure's
    replications, paired per replication; its rows are named by `policy`)."""
    return replace(claim, **{"statement": f"on the Microsoft trace: {claim.statement}",
                             "csv": "trace-replications", "unit": "seed", **changes})


_NONE_VS_OPT = Claim(
    "None vs Opt: overhead 12.94 -> 3.48 min (-73%), energy 112 -> 54.6 MWh (-51%)",
    (-0.73, -0.51), "fig4-replications", ("overhead_min", "energy_mwh"), "same-sign",
    versus=("policy", "None", "Opt 1 min"), relative=True, unit="seed")
_DURATION = Claim(
    "checkpoint duration (1-4 min) matters little under Opt (4 min within 10% of 1 min)", 0.1,
    "fig4-replications", ("overhead_min", "energy_mwh"), "at-most",
    versus=("policy", "Opt 1 min", "Opt 4 min"), relative=True, unit="seed")
_C180 = Claim("C(180), HTCondor's default, of little benefit (below 0.2)", 0.2, "fig6",
              _BENEFITS, "at-most", rows={"value": 180}, by="duration_min")

# Every row of figN.csv carries the mean of its replications (`seeds`) and its 95% half-width
# (`_ci`); figN-replications.csv holds each replication (`seed`), so that a difference between
# two configurations is paired per replication (the same users and jobs): None against Opt,
# Opt's duration, MinuteInHour's m, StartDelay's delay and Interarrival's scope.  Each claim is
# graded on both metrics, energy and overhead.  The families run at a year repeat their claims
# with `at a year: ` (`_and_at_a_year`).
CLAIMS = (
    *_and_at_a_year(_NONE_VS_OPT, _DURATION),
    # At a year C(n) is paired per replication (full/fig6-replications).
    *_and_at_a_year(
        Claim("C(n): best interval ~30 min (1 min), ~55 min (4 min)", (30.0, 55.0, 30.0, 55.0),
              "fig6", _BENEFITS, "best-at", rows={"duration_min": (1, 4)}, by="duration_min",
              param="value", higher=True),
        Claim("C(n): up to ~60% of the optimal saving (at C(30))", 0.6, "fig6", _BENEFITS,
              "factor-2", rows={"value": 30}, by="duration_min"),
        # The seed's "as much as 60% ... when correctly parameterised" is the benefit at the
        # best interval, which it puts near 55 min for 4-minute checkpoints: C(60), the
        # nearest interval run (C(30), above, is its best for 1-minute ones).
        Claim("C(n): up to ~60% of the optimal saving at the seed's best interval for 4-minute "
              "checkpoints (~55 min: C(60))", 0.6, "fig6", _BENEFITS, "factor-2",
              rows={"value": 60, "duration_min": 4}),
        _C180,
        csv="full/fig6-replications", unit="seed"),
    *_and_at_a_year(
        Claim("CCSR beats Fixed at every interval", 1.0, "fig7", _BENEFITS, "share",
              rows={"kind": ("fixed", "ccsr")}, versus=("kind", "fixed", "ccsr"),
              unit=("duration_min", "value"), higher=True)),
    *_and_at_a_year(
        Claim("Geometric: best r = 1 (1 min), = 2 (4 min)", (1.0, 2.0, 1.0, 2.0),
              "fig8-replications", _BENEFITS, "best-at", rows={"duration_min": (1, 4)},
              by="duration_min", param="value", higher=True, unit="seed"),
        Claim("Geometric: a benefit for every r (here r = 0.5, the smallest run)", 0.0,
              "fig8-replications", _BENEFITS, "at-least", rows={"value": 0.5},
              by="duration_min", unit="seed")),
    *_and_at_a_year(
        Claim("MinuteInHour: m = 55 about 20% better than the hour (r = 0)", 0.2,
              "fig9-replications", _BENEFITS, "factor-2", rows={"variant": 0},
              versus=("value", 0, 55), relative=True, by="duration_min", unit="seed")),
    *_and_at_a_year(
        Claim("Ratio: best near 4%", 0.04, "fig10", _BENEFITS, "best-at", by="duration_min",
              param="value", higher=True),
        Claim("Ratio: harmful beyond ~15% (no benefit at 15%)", 0.0, "fig10", _BENEFITS,
              "at-most", rows={"value": 0.15}, by="duration_min"),
        Claim("Ratio: equivalent benefit whatever the duration (at 4%, within 0.1)", 0.1,
              "fig10", _BENEFITS, "flat", rows={"value": 0.04}, param="duration_min")),
    *_and_at_a_year(
        Claim("StartDelay: modest benefit in the first hour (delay 60 min against none, "
              "C(30))", 1.0, "fig11-replications", _BENEFITS, "same-sign",
              rows={"variant": 30}, versus=("value", 0, 60), by="duration_min", unit="seed"),
        # The seed excepts only C(60) with 1-minute checkpoints: C(60) with 4-minute ones is
        # claimed too.
        Claim("StartDelay: modest benefit in the first hour (delay 60 min against none, "
              "C(60), 4-minute checkpoints)", 1.0, "fig11-replications", _BENEFITS,
              "same-sign", rows={"variant": 60, "duration_min": 4}, versus=("value", 0, 60),
              unit="seed")),
    *_and_at_a_year(
        *(Claim(f"Interarrival: system-wide beats per-cluster, at a lower utilisation (w = {w} "
                f"min, l = 1)", (1.0, 1.0, -1.0), "fig12-replications",
                (*_BENEFITS, "utilisation"), "same-sign", rows={"value": 1},
                versus=("variant", f"{w}/cluster", f"{w}/system"), unit="seed")
          for w in (1, 10, 20)),
        Claim("Interarrival, system scope: small l best (l = 1)", 1.0, "fig12-replications",
              _BENEFITS, "best-at", rows={"variant": ("1/system", "10/system", "20/system")},
              by="variant", param="value", higher=True, unit="seed")),
    # The seed's findings that the trace figure's policies (None, Opt, C(60), C(180) and
    # Ratio(4%), 1- and 4-minute checkpoints) can test, on a real interruption trace.
    _on_the_trace(_NONE_VS_OPT),
    _on_the_trace(_DURATION),
    _on_the_trace(_C180, rows={"policy": ("C(180) 1 min", "C(180) 4 min")}, by="policy"),
)

_POOLS = "accepted: newcastle, smallpool or a platform file (.toml) whose node types have " \
          "power tables (docs/platforms.md)"


def pool_platform(value: str) -> str:
    """The desktop pool `--platform` names (a file as an absolute path), checked now: the
    spec the command writes would otherwise report the problem at one of its own lines."""
    from ckptsim.platform.description import load_description

    path = Path(value).expanduser()
    if value not in ("newcastle", "smallpool") and path.suffix.lower() != ".toml" \
            and not path.exists():
        raise ConfigError("--platform", f"unknown desktop pool {value!r}; {_POOLS}")
    try:
        desc = load_description(value)
    except ConfigError as exc:
        problem = exc.message if exc.key == "platform" else str(exc)
        raise ConfigError("--platform", f"{problem.split('; accepted:')[0]}; {_POOLS}") from None
    if not desc.types or any(t.power is None for t in desc.types):
        raise ConfigError("--platform", f"{value}: not a desktop pool (a node type without "
                                        f"a power table); {_POOLS}")
    return str(path.resolve()) if path.is_file() else value


#: Seconds a run takes, by family, at a year: the mean `run_seconds` of each family's year-long
#: runs at 5 replications, two at a time on the 2-core machine (docs/results/forshaw.md,
#: "Machine time" under each figure at the seed's horizon; a family's new runs only): its
#: policies' checkpoints make the difference (Interarrival 106-223 s a year, None 49-79 s).
YEAR_SECONDS = {"baseline": 65.0, "fixed": 93.0, "ccsr": 115.0, "geometric": 183.0,
                "minuteinhour": 122.0, "ratio": 118.0, "startdelay": 91.0,
                "interarrival": 166.0}
#: ... and at 2 days: the mean `run_seconds` of `ckptsim paper forshaw all --days 2
#: --replications 2` (400 runs, both cores of the machine busy, 28 November 2026).  A short
#: run is not a year in proportion: setting up the pool, its owners and its power states
#: costs about 0.6 s a run, and the checkpointing policies most in the first days.
SHORT_DAYS = 2
SHORT_SECONDS = {"baseline": 0.96, "fixed": 2.63, "ccsr": 2.37, "geometric": 5.97,
                 "minuteinhour": 2.31, "ratio": 1.85, "startdelay": 1.49,
                 "interarrival": 2.87}
#: A run of the trace figure, always the trace's 35 days: the mean `run_seconds` of `ckptsim
#: paper forshaw trace --replications 10 --jobs 0` (90 runs, 370 s, 1.5-28 s each, one process
#: on a quiet two-core machine; the page's own 90 runs took 291 s two at a time).
TRACE_SECONDS = 4.11


def run_seconds(family: str, days: int) -> float:
    """Seconds a run of `family` over `days` is expected to take: linear in the days between
    the measurements at 2 days and at a year (at the 2 days' below them, on the same line
    beyond a year); the trace figure's at its own measurement."""
    if family == "trace":
        return TRACE_SECONDS
    short, year = SHORT_SECONDS[family], YEAR_SECONDS[family]
    if days <= SHORT_DAYS:
        return short
    return short + (year - short) * (days - SHORT_DAYS) / (365 - SHORT_DAYS)


@register
class Forshaw(FamilyPaper):
    has_tables = True
    name = "forshaw"
    seed = "003"
    about = "energy-aware checkpointing in a desktop pool"
    figure_help = "fig4 ... fig12, trace (the Microsoft availability trace), a family or all"
    uses = ("--trace-dir", "--replications", "--full")
    own_options = (
        PaperOption("--days", "days of users and HTC jobs per run (default 7; the seed: 365)",
                    kwargs={"type": int, "metavar": "N"}),
        PaperOption("--start", "the date of time 0, a Friday (default 2010-01-15, a week of "
                    "term; with --full 2010-01-01, the seed's year)", kwargs={"metavar": "DATE"}),
        PaperOption("--platform", "the desktop pool: newcastle (default: 1,359 computers in 35 "
                    "clusters), smallpool or a platform file whose node types have power tables "
                    "(docs/platforms.md)", kwargs={"metavar": "NAME|FILE"}),
        PaperOption("--availability-trace", "the Microsoft desktop availability trace of the "
                    "trace figure (default: ../failures/availability_godfrey/microsoft.avt.gz "
                    "beside the trace folder)", kwargs={"metavar": "FILE"},
                    recorded=False),
        PaperOption("--startdelay-first", "StartDelay's first checkpoint: interval (default "
                    "interval: at d + n) or delay (at d)", default="interval",
                    kwargs={"metavar": "interval|delay"}),
        PaperOption("--resume-after", "seconds a machine's user must have been away before a "
                    "suspended job resumes (default 0: at once; HTCondor waits for idleness)",
                    default=0, kwargs={"type": float, "metavar": "S"}),
        PaperOption("--speeds", "the pool's machine speeds (Table 1: Legacy ~2 GHz against "
                    "~3 GHz, speed 0.67): off (default off: every job runs its generated runtime "
                    "on any machine), slowest or mean (applied: the speed component, "
                    "docs/platforms.md#speeds)", default="off",
                    kwargs={"metavar": "off|slowest|mean"}),
        PaperOption("--power-draw", "where the Legacy computers' power ranges (Table 1: "
                    "100-180 W active, 50-80 W idle) are drawn: machine (default: for every "
                    "computer) or group (once for every cluster, its computers alike)",
                    default="machine", kwargs={"metavar": "machine|group"}),
        PaperOption("--lead", "seconds a reboot is announced ahead: Scheduled checkpoints, and "
                    "the machines are held out of service, in this time (default 600)",
                    default=600, kwargs={"type": float, "metavar": "S"}),
        PaperOption("--reboot-duration", "seconds a nightly reboot keeps a machine down "
                    "(default 300)", default=300, kwargs={"type": float, "metavar": "S"}),
        PaperOption("--durations", "checkpoint durations in minutes every family runs "
                    "(default: the seed's, 1 2 3 4 for Figs. 5-6 and 10, 1 4 for Figs. 7-9 "
                    "and 11); a subset runs a family in parts, the store keeping each run",
                    kwargs={"type": int, "nargs": "+", "metavar": "MIN"}),
    )
    #: As `options` and `experiments.spec_text` read them: the Microsoft trace (and the trace
    #: folder it is found beside) only in the trace figure, whose runs always span the trace's
    #: days; StartDelay's first checkpoint only in Fig. 11 (the other options are every
    #: figure's).
    used_by = {"--trace-dir": ("trace",), "--availability-trace": ("trace",),
               "--days": tuple(f"fig{k}" for k in range(4, 13)),
               "--startdelay-first": ("fig11",)}
    claims = CLAIMS
    set_flags = {"availability.lead": "--lead", "availability.epoch": "--start",
                 "availability.resume_after": "--resume-after",
                 "availability.reboot_duration": "--reboot-duration",
                 "availability.days": "--days", "availability.trace": "--availability-trace",
                 "speed.rule": "--speeds", "energy.power_draw": "--power-draw",
                 "checkpoint.policy": "--durations", "checkpoint.policy.cost": "--durations",
                 "checkpoint.policy.first": "--startdelay-first"}

    def figures(self) -> tuple[str, ...]:
        from ckptsim.experiments.papers.forshaw.experiments import FIGURES

        return FIGURES

    def wanted(self, figure: str) -> list[str]:
        from ckptsim.experiments.papers.forshaw.experiments import wanted

        return wanted(figure)

    def options(self, given: Any) -> Any:
        from ckptsim.experiments.papers.forshaw import experiments as forshaw

        if given.full and given.days is not None:
            raise ConfigError("--full", "give --full (the seed's year and 50 replications) or "
                                        "--days N, not both")
        days = forshaw.FULL_DAYS if given.full else (
            forshaw.DEFAULT_DAYS if given.days is None else given.days)
        reps = given.replications if given.replications is not None else (
            forshaw.FULL_REPLICATIONS if given.full else forshaw.DEFAULT_REPLICATIONS)
        trace = Path(given.availability_trace) if given.availability_trace else (
            Path(given.trace_dir).parent / "failures" / "availability_godfrey"
            / "microsoft.avt.gz")
        family = "all" if given.figure == "all" else forshaw.family_of(given.figure)
        if family in ("all", "trace") and not trace.is_file():
            raise ConfigError("--availability-trace", f"no such file: {trace} (the Microsoft "
                                                      "desktop availability trace, needed by "
                                                      "the trace figure)")
        platform = pool_platform(given.platform or "newcastle")
        if given.startdelay_first not in forshaw.FIRSTS:
            raise ConfigError("--startdelay-first", f"unknown {given.startdelay_first!r}; "
                                                    f"accepted: {', '.join(forshaw.FIRSTS)}")
        if given.speeds not in forshaw.SPEEDS:
            raise ConfigError("--speeds", f"unknown {given.speeds!r}; accepted: "
                                          f"{', '.join(forshaw.SPEEDS)}")
        if given.power_draw not in forshaw.DRAWS:
            raise ConfigError("--power-draw", f"unknown {given.power_draw!r}; accepted: "
                                              f"{', '.join(forshaw.DRAWS)}")
        for flag in ("--resume-after", "--lead", "--reboot-duration"):
            value = getattr(given, flag[2:].replace("-", "_"))
            if not 0 <= value < float("inf"):
                raise ConfigError(flag, f"expected a number of seconds >= 0, got {value:g}")
        return forshaw.Options(days=days, replications=reps, jobs=given.jobs, platform=platform,
                               start=given.start or (forshaw.FULL_START if given.full
                                                     else forshaw.DEFAULT_START),
                               trace=str(trace.resolve()) if trace.is_file() else None,
                               trace_dir=(None if given.availability_trace
                                          or not trace.is_file()
                                          else str(Path(given.trace_dir).resolve())),
                               startdelay_first=given.startdelay_first,
                               resume_after=given.resume_after, speeds=given.speeds,
                               power_draw=given.power_draw,
                               lead=given.lead,
                               reboot_duration=given.reboot_duration,
                               durations=tuple(given.durations) if given.durations else None,
                               figure=given.figure)

    @staticmethod
    def _days(opt: Any) -> int:
        """The days of the command's runs: the trace figure's are the trace's."""
        from ckptsim.experiments.papers.forshaw import experiments as forshaw

        return forshaw.TRACE_DAYS if opt.figure == "trace" else opt.days

    def detail(self, opt: Any) -> str:
        days = self._days(opt)
        return (f" ({days} day{'' if days == 1 else 's'} of the {opt.platform} pool, "
                f"{opt.replications} replications)")

    def seconds_per_run(self, opt: Any) -> tuple[float, str] | None:
        # The family's run at the command's days (the families' mean over their runs, for
        # several): runs grow with the days, and with how often their policies checkpoint.
        from ckptsim.experiments.papers.forshaw import experiments as forshaw

        families = (list(forshaw.FAMILIES) if opt.figure in ("", "all")
                    else [forshaw.family_of(opt.figure)])
        runs = {f: forshaw.runs_of(f, opt) or 1 for f in families}
        each = sum(run_seconds(f, opt.days) * n for f, n in runs.items()) / sum(runs.values())
        days = self._days(opt)
        if families == ["trace"]:  # always the trace's days: measured at them
            return each, f"the trace figure's runs, measured at its {days} days"
        what = (f"{families[0]}'s runs" if len(families) == 1 else "the families' runs together")
        trace = (f" (the trace figure's at its {forshaw.TRACE_DAYS} days)"
                 if "trace" in families else "")
        return each, (f"{what}, measured at 2 days and at a year{trace}, at {days} "
                      f"day{'' if days == 1 else 's'}")
