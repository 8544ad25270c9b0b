"""Seed 003 (Forshaw, McGough, Thomas, "Energy-efficient Checkpointing in High-throughput
Cycle-stealing Distributed Systems"): its figures on a desktop pool of interactive users, nightly
reboots and power states, under the `htc` scheduler (random placement).

The Newcastle traces are not public: every run uses the generated pool (`newcastle`: 1,359
computers in 35 clusters), the generated user sessions (the availability component's owner
model) and the generated HTC workload (`generator = "htc"`), all drawn from the run's seed, so
that a replication is another year of users and jobs as well as another random placement.  The
`trace` family replaces the users by the Microsoft desktop availability trace.

Families, each one experiment spec (FAMILY.toml in the output folder) run through one sweep
store shared by all (a run two families need, e.g. None or Opt, is run once):

- `baseline` (Figs. 4-5): None and Opt for checkpoint durations of 1-4 min;
- `fixed` (Fig. 6): C(n) for checkpoint durations 1-4 min;
- `ccsr` (Fig. 7): C(n), Scheduled (SR) and ClosedCluster + Scheduled (CCSR), 1 and 4 min;
- `geometric` (Fig. 8), `minuteinhour` (Fig. 9), `ratio` (Fig. 10), `startdelay` (Fig. 11),
  `interarrival` (Fig. 12);
- `trace`: None, Opt, C(60), C(180) and Ratio(4%) with the Microsoft trace as the interruptions.

Every figure shows the seed's benefit (equation 5) for task overhead, energy and checkpoint
utilisation, computed per replication against that replication's None and Opt runs (paired by
seed: the same users and jobs), with the mean and its 95% interval over the replications.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ckptsim.errors import ConfigError
from ckptsim.experiments.papers.common import FigureOutput, OnRow, find_family, run_spec
from ckptsim.platform.power import DRAWS

MIN = 60.0
DURATIONS = (1, 2, 3, 4)  # checkpoint durations, minutes (seed: 1-4 min)
PAIR = (1, 4)  # the durations of Figs. 7-9 and 11
INTERVALS = (10, 20, 30, 45, 60, 90, 120, 180)  # C(n), minutes
GEOMETRIC_A = 30  # minutes (seed: "a 30 minute checkpoint interval")
GEOMETRIC_R = (0.5, 1.0, 1.5, 2.0, 3.0, 4.0)
MINUTES = (0, 15, 30, 45, 50, 55)  # MinuteInHour's m
JITTERS = (0, 5)  # MinuteInHour's r, minutes (seed: "a deliberately conservative r = 5")
RATIOS = (0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.15, 0.2)
DELAYS = (0, 30, 60, 90, 120, 180)  # StartDelay's d, minutes
DELAY_INTERVALS = (30, 60)  # StartDelay's n, minutes
WINDOWS = (1, 10, 20)  # Interarrival's w, minutes (seed)
THRESHOLDS = (1, 2, 5, 10, 20)  # Interarrival's l
SCOPES = ("cluster", "system")
EVALUATE = 10  # Interarrival's m, minutes (the seed gives none)
RECENT = 60  # Interarrival's d, minutes (the seed gives none)
TRACE_POLICIES = ("none", "opt", "fixed60", "fixed180", "ratio4")

DEFAULT_DAYS = 7
DEFAULT_REPLICATIONS = 10  # the page's headline families (docs/results/forshaw.md)
DEFAULT_START = "2010-01-15"  # a Friday in the first term (the year's first days are holidays)
FULL_DAYS = 365
FULL_START = "2010-01-01"  # the seed's year
FULL_REPLICATIONS = 50
TRACE_DAYS = 35  # the Microsoft trace's length
LEAD = 600  # seconds a reboot is announced ahead (Scheduled checkpoints in this time)
REBOOT_DURATION = 300.0  # seconds a reboot keeps the machines down (the availability default)
FIRSTS = ("interval", "delay")  # StartDelay's first checkpoint: at d + n, or at d
SPEEDS = ("off", "slowest", "mean")  # the machines' speeds: not applied, or the speed rule
TAIL_DAYS = 3  # days of users and reboots after the last submission (the last jobs finish)

FAMILIES = {"baseline": ("fig4", "fig5"), "fixed": ("fig6",), "ccsr": ("fig7",),
            "geometric": ("fig8",), "minuteinhour": ("fig9",), "ratio": ("fig10",),
            "startdelay": ("fig11",), "interarrival": ("fig12",), "trace": ("trace",)}
FIGURES = tuple(f for figs in FAMILIES.values() for f in figs)

#: The pool's run metrics (the figures read these from the store rows).
OVERHEAD = "mean_task_overhead"
ENERGY = "energy_htc_kwh"
UTILISATION = "checkpoint_utilisation"
METRICS = (OVERHEAD, ENERGY, "energy_kwh", UTILISATION, "checkpoints_completed",
           "checkpoints_interrupted", "evictions", "lost_work_s", "jobs_bad", "mean_wait")


@dataclass(frozen=True)
class Options:
    """What a figure command is given (defaults: a smaller version of the seed's runs)."""

    days: int = DEFAULT_DAYS
    start: str = DEFAULT_START  # the date of time 0 (a Friday, as the HTC generator's day 0)
    replications: int = DEFAULT_REPLICATIONS
    platform: str = "newcastle"
    reboot: str = "03:00-05:00"
    on_unavailable: str = "suspend"
    idle_timeout: float = 900.0
    bound: float = 86400.0
    trace: str | None = None  # the Microsoft .avt trace (absolute path), for `trace`
    #: The trace folder the default .avt was found beside (absolute): the spec then names the
    #: trace relative to it, as a sweep resolves it (None: a trace given by its own path).
    trace_dir: str | None = None
    jobs: int | None = None
    # Modelling choices the seed leaves open (defaults: the runs of docs/results/forshaw.md).
    startdelay_first: str = "interval"  # StartDelay's first checkpoint at d + n, or at d
    resume_after: float = 0.0  # idle seconds before a suspended job resumes (HTCondor's wait)
    speeds: str = "off"  # the machines' speeds: not applied, or the speed component's rule
    #: Where the Legacy computers' power ranges are drawn: per computer, or once per cluster
    #: (the energy component's `power_draw`).
    power_draw: str = "machine"
    lead: float = LEAD  # seconds a reboot is announced (Scheduled's drain holds the machines)
    reboot_duration: float = REBOOT_DURATION
    #: The checkpoint durations (minutes) every family runs, instead of its own (the seed's
    #: 1-4, or 1 and 4 for Figs. 7-9 and 11); None: the family's own.
    durations: tuple[int, ...] | None = None
    #: The figure or family the command was given (its runs' length: the trace's 35 days).
    figure: str = ""


def family_of(figure: str) -> str:
    return find_family(figure, FAMILIES, [*FIGURES, *FAMILIES], "forshaw")


def wanted(figure: str) -> list[str]:
    if figure == "all":
        return list(FIGURES)
    family = family_of(figure)
    return list(FAMILIES[family]) if figure == family else [figure]


# ----------------------------------------------------------------------------- policies
def _cost(d: int) -> str:
    return f"cost={d * MIN:g}"


def policy(kind: str, d: int, value: float | None = None, variant: Any = None,
           first: str = "interval") -> str:
    """The checkpoint component's policy string of one configuration (`kind` as in the
    figures' CSVs; `d` the checkpoint duration in minutes; `value` the swept parameter;
    `first` StartDelay's first checkpoint, `Options.startdelay_first`)."""
    cost = _cost(d)
    if kind == "none":
        return "none"
    if kind == "opt":
        return f"opt:{cost}"
    if kind in ("fixed", "sr", "ccsr"):
        base = f"fixed:interval={value * MIN:g},{cost}"
        return {"fixed": base, "sr": f"{base}+scheduled",
                "ccsr": f"{base}+closedcluster+scheduled"}[kind]
    if kind == "geometric":
        return f"geometric:a={GEOMETRIC_A * MIN:g},r={value:g},{cost}"
    if kind == "minuteinhour":
        return f"minuteinhour:m={value:g},r={variant:g},{cost}"
    if kind == "ratio":
        return f"ratio:p={value:g},{cost}"
    if kind == "startdelay":
        tail = "" if first == "interval" else f",first={first}"
        return f"startdelay:interval={variant * MIN:g},delay={value * MIN:g},{cost}{tail}"
    if kind == "interarrival":
        w, scope = variant
        return (f"interarrival:w={w:g},m={EVALUATE:g},l={value:g},d={RECENT:g},"
                f"scope={scope},{cost}")
    raise ValueError(kind)


def configurations(family: str, only: Sequence[int] | None = None) -> list[dict[str, Any]]:
    """Every configuration a family's figures need besides None and Opt: kind, duration,
    swept value and variant (a second parameter drawn as separate lines); `only`: these
    checkpoint durations instead of the family's own (`Options.durations`)."""
    out: list[dict[str, Any]] = []

    def add(kind: str, durations: Sequence[int], values: Sequence[float],
            variants: Sequence[Any] = (None,)) -> None:
        for d in (durations if only is None else only):
            for variant in variants:
                for v in values:
                    out.append({"kind": kind, "d": d, "value": v, "variant": variant})

    if family == "fixed":
        add("fixed", DURATIONS, INTERVALS)
    elif family == "ccsr":
        for kind in ("fixed", "sr", "ccsr"):
            add(kind, PAIR, INTERVALS)
    elif family == "geometric":
        add("geometric", PAIR, GEOMETRIC_R)
    elif family == "minuteinhour":
        add("minuteinhour", PAIR, MINUTES, JITTERS)
    elif family == "ratio":
        add("ratio", DURATIONS, RATIOS)
    elif family == "startdelay":
        add("startdelay", PAIR, DELAYS, DELAY_INTERVALS)
    elif family == "interarrival":
        add("interarrival", (1,), THRESHOLDS, [(w, s) for s in SCOPES for w in WINDOWS])
    elif family == "trace":
        add("fixed", PAIR, (60, 180))
        add("ratio", PAIR, (0.04,))
    return out


def durations_of(family: str, only: Sequence[int] | None = None) -> tuple[int, ...]:
    """The checkpoint durations whose Opt runs a family's benefits need."""
    return (tuple(sorted({c["d"] for c in configurations(family, only)}))
            or (DURATIONS if only is None else tuple(sorted(only))))


def policies_of(family: str, first: str = "interval",
                only: Sequence[int] | None = None) -> list[str]:
    """The policy strings of a family's runs: None, Opt at each duration, its configurations."""
    strings = ["none", *(policy("opt", d) for d in durations_of(family, only))]
    for c in configurations(family, only):
        s = policy(c["kind"], c["d"], c["value"], c["variant"], first)
        if s not in strings:
            strings.append(s)
    return strings


# ----------------------------------------------------------------------------- specs
def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def spec_text(family: str, opt: Options) -> str:
    """The experiment spec of a family (TOML)."""
    trace = family == "trace"
    days = TRACE_DAYS if trace else opt.days
    lines = [f'name = "forshaw-{family}"', f"replications = {opt.replications}",
             "metrics = [" + ", ".join(_quote(m) for m in METRICS) + "]", "",
             "[workloads.pool]", 'generator = "htc"', f"days = {days}",
             f"platform = {_quote(opt.platform)}", "",
             "[workloads.pool.components.availability]"]
    if trace:
        if not opt.trace:
            raise ConfigError("--availability-trace", "the trace family needs the Microsoft "
                                                      "availability trace (microsoft.avt.gz)")
        path = os.path.relpath(opt.trace, opt.trace_dir) if opt.trace_dir else opt.trace
        lines.append(f"trace = {_quote(f'avt:path={path},map=random')}")
    else:
        lines.append('owners = "model"')
    lines += [f"days = {days + TAIL_DAYS}", f"reboot = {_quote(opt.reboot)}",
              f"lead = {opt.lead:g}", f"epoch = {_quote(opt.start)}",
              f"on_unavailable = {_quote(opt.on_unavailable)}"]
    if opt.resume_after:
        lines.append(f"resume_after = {opt.resume_after:g}")
    if opt.reboot_duration != REBOOT_DURATION:
        lines.append(f"reboot_duration = {opt.reboot_duration:g}")
    policies = policies_of(family, opt.startdelay_first, opt.durations)
    if opt.speeds != "off":
        lines += ["", "[workloads.pool.components.speed]", f"rule = {_quote(opt.speeds)}"]
    lines += ["", "[workloads.pool.components.energy]", "htc = true", 'owners = "active"',
              *([f"power_draw = {_quote(opt.power_draw)}"] if opt.power_draw != "machine"
                else []),
              "", "[workloads.pool.components.power]", f"idle_timeout = {opt.idle_timeout:g}",
              "", "[workloads.pool.components.bound]", f"limit = {opt.bound:g}",
              "", "[workloads.pool.components.checkpoint]",
              "policy = [" + ", ".join(_quote(p) for p in policies) + "]", "",
              "[[schedulers]]", 'name = "htc"', ""]
    return "\n".join(lines)


def runs_of(figure: str, opt: Options) -> int:
    """How many runs a figure's families hold (runs two families share counted in each)."""
    families = {family_of(f) for f in wanted(figure)}
    return sum(len(policies_of(f, opt.startdelay_first, opt.durations)) * opt.replications
               for f in families)


def run_figures(figure: str, out: str | Path, opt: Options,
                on_row: OnRow | None = None) -> list[FigureOutput]:
    """Compute a figure, a family or `all` into `out`: figN.csv and figN.png, FAMILY.toml and
    the shared sweep store out/store."""
    from ckptsim.experiments.papers.forshaw.figures import FIGURE_MAKERS, reduce

    check(opt)
    figs = wanted(figure)
    families = [f for f in FAMILIES if any(fig in FAMILIES[f] for fig in figs)]
    out_path = Path(out)
    outputs: list[FigureOutput] = []
    for family in families:
        # A trace named relative to the trace folder resolves there; nothing else is a file.
        folder = opt.trace_dir if family == "trace" and opt.trace_dir else out_path
        rows = run_spec(family, spec_text(family, opt), out_path, folder, opt.jobs, on_row)
        pts = reduce(rows, family, opt.startdelay_first, opt.durations)
        for fig in FAMILIES[family]:
            if fig in figs:
                outputs.append(FIGURE_MAKERS[fig](pts, out_path))
    return outputs


def check(opt: Options) -> None:
    import datetime as dt

    try:
        day = dt.date.fromisoformat(opt.start)
    except ValueError:
        raise ConfigError("--start", f"expected a date YYYY-MM-DD, got {opt.start!r}") from None
    if day.weekday() != 4:
        raise ConfigError("--start", f"expected a Friday (the HTC generator's day 0 is a "
                                     f"Friday, as 1 January 2010), got {opt.start} "
                                     f"({day.strftime('%A')})")
    if opt.days < 1:
        raise ConfigError("--days", f"expected a number of days >= 1, got {opt.days}")
    if opt.speeds not in SPEEDS:
        raise ConfigError("speeds", f"expected one of {', '.join(SPEEDS)}, got {opt.speeds!r}")
    if opt.power_draw not in DRAWS:
        raise ConfigError("power_draw", f"expected one of {', '.join(DRAWS)}, got "
                                        f"{opt.power_draw!r}")
    if opt.startdelay_first not in FIRSTS:
        raise ConfigError("startdelay_first", f"expected one of {', '.join(FIRSTS)}, got "
                                              f"{opt.startdelay_first!r}")
    for key in ("resume_after", "lead", "reboot_duration"):
        value = getattr(opt, key)
        if not value >= 0:
            raise ConfigError(key, f"expected a number of seconds >= 0, got {value!r}")
    if opt.durations is not None and (not opt.durations or any(
            not isinstance(d, int) or isinstance(d, bool) or d < 1 for d in opt.durations)):
        raise ConfigError("--durations", f"expected whole minutes >= 1, got "
                                         f"{list(opt.durations)}")
    if opt.replications < 2:
        raise ConfigError("--replications", f"expected >= 2 (the figures show a 95% interval "
                                            f"over replications), got {opt.replications}")
