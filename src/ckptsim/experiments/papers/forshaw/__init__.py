"""Seed 003 (Forshaw et al., energy-aware checkpointing in a desktop pool): the paper's
declaration.  Its policies, specs and runs are in `experiments`, its reduction and figures in
`figures`, the tables of docs/results/forshaw.md in `tables`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ckptsim.errors import ConfigError
from ckptsim.experiments.papers.base import Claim, FamilyPaper, PaperOption, register

_BENEFITS = ("benefit_energy_mwh", "benefit_overhead_min")
_OPT = ("Opt 1 min", "Opt 2 min", "Opt 3 min", "Opt 4 min")

CLAIMS = (
    Claim("None vs Opt: overhead", (12.94, 3.48), "fig4", ("overhead_min",), "same-direction",
          rows={"policy": ("None", "Opt 1 min")},
          verdict="same direction; levels set by the workload (one burst week dominates)"),
    Claim("None vs Opt: energy", (112.0, 54.6), "fig5", ("energy_mwh",), "same-direction",
          rows={"policy": ("None", "Opt 1 min")},
          verdict="same direction, smaller saving (-21% against -51%)"),
    Claim("checkpoint duration matters little under Opt", "yes", ("fig4", "fig5"),
          ("relative_to_none",), "spread-within-ci", rows={"policy": _OPT}, verdict="agrees"),
    Claim("C(n): best interval grows with the duration", (30.0, 55.0), "fig6",
          ("value", "benefit_overhead_min"), "best-point", rows={"duration_min": (1, 4)},
          verdict="agrees: 30 min (1 min), 45-60 min (3-4 min)"),
    Claim("C(n): up to ~60% of the optimal saving", (0.6, 0.6), "fig6", _BENEFITS,
          "both-metrics", each="within-factor",
          verdict="agrees in energy; overhead lower for costly checkpoints"),
    Claim("C(180), HTCondor's default, of little benefit", (0.0,), "fig6",
          ("benefit_overhead_min",), "seed-value-in-ci", rows={"value": 180},
          verdict="agrees: overhead benefit 0.02 to -0.06"),
    Claim("CCSR beats Fixed at every interval; best 0.6 -> 0.7", (0.6, 0.7), "fig7",
          ("benefit_overhead_min",), "ordering-holds-share", rows={"kind": ("fixed", "ccsr")},
          verdict="agrees: 0.69 -> 0.82 (1 min), 0.26 -> 0.52 (4 min), at every interval"),
    Claim("Geometric: best r = 1 (1 min), = 2 (4 min)", (1.0, 2.0), "fig8",
          ("value", "benefit_overhead_min"), "best-point", rows={"duration_min": (1, 4)},
          verdict="partly: 1 and 1-1.5"),
    Claim("MinuteInHour: m = 55 about 20% better than the hour", (0.2,), "fig9",
          ("benefit_overhead_min",), "same-direction", rows={"value": (0, 55)},
          verdict="differs: +5% (1 min), worse (4 min) (user model's arrival shape)"),
    Claim("Ratio: best near 4%, harmful beyond ~15%", (0.04,), "fig10",
          ("value", "benefit_overhead_min"), "best-point",
          verdict="agrees: 4% (1-2 min), 8% (3-4 min); about 0 or below at 15-20%"),
    Claim("Ratio: equivalent benefit whatever the duration", "yes", "fig10",
          ("benefit_overhead_min",), "spread-within-ci", rows={"value": 0.04},
          verdict="differs: 0.70 (1 min) to 0.31 (4 min)"),
    Claim("StartDelay: modest benefit in the first hour", "yes", "fig11",
          ("benefit_overhead_min",), "same-sign-ci-excludes-zero",
          verdict="differs: no benefit at any delay (durations)"),
    Claim("Interarrival: system-wide better, lower utilisation, small l best, w = 1 most "
          "sensitive", "yes", "fig12", ("benefit_overhead_min", "utilisation"), "both-metrics",
          each="ordering-holds-share", verdict="agrees: all four"),
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
                    "beside the trace folder)", kwargs={"metavar": "FILE"}),
    )
    claims = CLAIMS

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
        return forshaw.Options(days=days, replications=reps, jobs=given.jobs, platform=platform,
                               start=given.start or (forshaw.FULL_START if given.full
                                                     else forshaw.DEFAULT_START),
                               trace=str(trace.resolve()) if trace.is_file() else None)



    def detail(self, opt: Any) -> str:
        return f" ({opt.days} days of the {opt.platform} pool, {opt.replications} replications)"
