"""The paper command: a seed paper's figures (CSV + PNG) through the sweep machinery."""

from __future__ import annotations

import argparse
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ckptsim.cli.common import SweepProgress, output_folder
from ckptsim.errors import ConfigError

PAPERS = ("niu", "oliner", "shi", "jones", "forshaw")


@dataclass(frozen=True)
class PaperOption:
    """One option of `ckptsim paper`: its flag, the papers that use it (every other paper
    refuses it), its help line, the value it takes when not given (None: the paper's own)
    and argparse's other arguments."""

    flag: str
    papers: tuple[str, ...]
    help: str
    default: Any = None
    kwargs: Mapping[str, Any] = field(default_factory=dict)

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")


_INT_N = {"type": int, "metavar": "N"}

#: Every option of the paper command, declared once with the papers that use it.
PAPER_OPTIONS = (
    PaperOption("--out", PAPERS, "output folder (figN.csv, figN.png, the sweep's store); "
                "required", kwargs={"required": True, "metavar": "DIR"}),
    PaperOption("--jobs", PAPERS, "processes (default: all cores; 0: in this process)",
                kwargs=_INT_N),
    PaperOption("--trace-dir", ("niu", "oliner", "shi", "forshaw"),
                "folder holding the PWA traces (default ../shared/data/traces; forshaw: the "
                "Microsoft availability trace is looked for beside it)",
                default="../shared/data/traces", kwargs={"metavar": "DIR"}),
    PaperOption("--traces", ("niu", "oliner", "shi"),
                "trace names (niu default: SDSC-BLUE CTC-SP2 HPC2N SDSC-SP2 KTH-SP2 CEA-Curie; "
                "oliner default: SDSC NASA LUBLIN-256; shi default: SDSC-SP2 KTH-SP2)",
                kwargs={"nargs": "+", "metavar": "NAME"}),
    PaperOption("--first", ("niu", "oliner", "shi"),
                "only the first N jobs of each trace (default: all; shi: also N jobs per "
                "generated workload instead of the default 10,000)", kwargs=_INT_N),
    PaperOption("--estimates", ("oliner", "shi"),
                "oliner: exact (default, every workload scheduled with its run times) or "
                "requested (the requested times where the trace has them: SDSC); shi: the "
                "generated jobs' estimates, exact (default: the thesis's jobs have none and "
                "are classified by their runtimes), tsafrir or f", default="exact",
                kwargs={"metavar": "KIND"}),
    PaperOption("--replications", ("oliner", "jones", "forshaw"),
                "seeds per point (oliner: each thins the failure log differently; jones, "
                "forshaw: each draws another workload, and forshaw other users); figures show "
                "the mean (default 1; forshaw 3, with --full 50)", kwargs=_INT_N),
    PaperOption("--failure-log", ("oliner",),
                "the LANL failure records CSV (default: ../failures/lanl_cfdr/"
                "LA-UR-05-7318-failure-data-1996-2005.csv.gz beside the trace folder)",
                kwargs={"metavar": "FILE"}),
    PaperOption("--system", ("oliner",),
                "LANL system whose failures are used (default 20: 400 nodes)", default=20,
                kwargs=_INT_N),
    PaperOption("--loads", ("oliner",), "load scales c (default 1.0 1.2)",
                kwargs={"type": float, "nargs": "+", "metavar": "C"}),
    PaperOption("--counts", ("oliner",), "failure counts of figs 3-5 (default 0 500 ... 4000)",
                kwargs={"type": int, "nargs": "+", "metavar": "N"}),
    PaperOption("--levels", ("oliner",),
                "confidence / accuracy values of figs 6-10 (default 0.0 0.1 ... 1.0)",
                kwargs={"type": float, "nargs": "+", "metavar": "X"}),
    PaperOption("--failure-rate", ("oliner",),
                "failures of figs 6-10: seed (default: 4,000 for SDSC and NASA, 1,000 for "
                "LUBLIN-256) or log (the failure log's own rate per node-day)",
                default="seed", kwargs={"metavar": "seed|log"}),
    PaperOption("--ci-seeds", ("shi",),
                "fig16: seeds of the confidence intervals, the thesis's five first (default "
                "30; at least 2)", default=30, kwargs=_INT_N),
    PaperOption("--full", ("jones", "forshaw"),
                "the seed's size (default off; jones: 400,000 jobs per cluster; forshaw: a "
                "year, 50 replications; hours of runs)", kwargs={"action": "store_true"}),
    PaperOption("--per-cluster", ("jones",),
                "jobs per cluster (default 10,000; the seed: 400,000)", kwargs=_INT_N),
    PaperOption("--load", ("jones",), "offered load per cluster, > 0 (default 0.95)",
                kwargs={"type": float, "metavar": "L"}),
    PaperOption("--days", ("forshaw",),
                "days of users and HTC jobs per run (default 7; the seed: 365)", kwargs=_INT_N),
    PaperOption("--start", ("forshaw",),
                "the date of time 0, a Friday (default 2010-01-15, a week of term; with "
                "--full 2010-01-01, the seed's year)", kwargs={"metavar": "DATE"}),
    PaperOption("--platform", ("forshaw",),
                "the desktop pool: newcastle (default: 1,359 computers in 35 clusters), "
                "smallpool or a platform file whose node types have power tables "
                "(docs/platforms.md)", kwargs={"metavar": "NAME|FILE"}),
    PaperOption("--availability-trace", ("forshaw",),
                "the Microsoft desktop availability trace of the trace figure (default: "
                "../failures/availability_godfrey/microsoft.avt.gz beside the trace folder)",
                kwargs={"metavar": "FILE"}),
)


def accepted_options(paper: str, figure: str | None = None) -> list[str]:
    """The flags `paper` uses (`tables` rewrites a page from CSVs: --out only)."""
    if figure == "tables":
        return ["--out"]
    return [o.flag for o in PAPER_OPTIONS if paper in o.papers]


def check_options(args: argparse.Namespace) -> None:
    """Refuse an option the paper (or its `tables`) does not use, then give every option
    left out its default."""
    accepted = accepted_options(args.paper, args.figure)
    for o in PAPER_OPTIONS:
        if getattr(args, o.dest) is not None and o.flag not in accepted:
            what = f"{args.paper} tables" if args.figure == "tables" else args.paper
            raise ConfigError(o.flag, f"does not apply to {what}; {what} accepts "
                                      f"{', '.join(accepted)}")
    for o in PAPER_OPTIONS:
        if getattr(args, o.dest) is None and o.default is not None:
            setattr(args, o.dest, o.default)


def cmd_paper(args: argparse.Namespace) -> int:
    check_options(args)
    if args.first is not None and args.first < 1:
        raise ConfigError("--first", f"expected a number of jobs >= 1, got {args.first}")
    if args.jobs is not None and args.jobs < 0:
        raise ConfigError("--jobs", f"expected a number of processes >= 0 (0: in this "
                                    f"process), got {args.jobs}")
    if args.figure == "tables":
        return _paper_tables(args)
    output_folder(args.out)
    if args.paper == "oliner":
        return _paper_oliner(args)
    if args.paper == "shi":
        return _paper_shi(args)
    if args.paper == "jones":
        return _paper_jones(args)
    if args.paper == "forshaw":
        return _paper_forshaw(args)
    from ckptsim.experiments.papers import niu

    if args.figure not in (*niu.FIGURES, "all"):
        raise ConfigError("figure", f"unknown figure {args.figure!r} of niu; accepted: "
                                    f"{', '.join(niu.FIGURES)}, all")
    figures = list(niu.FIGURES) if args.figure == "all" else [args.figure]
    for figure in figures:
        t0 = time.perf_counter()
        out = niu.run_figure(figure, Path(args.out) / figure if len(figures) > 1 else args.out,
                             trace_dir=args.trace_dir, traces=args.traces, jobs=args.jobs,
                             first=args.first)
        print(f"{figure}: {out.csv} and {out.png} ({len(out.rows)} rows, "
              f"{time.perf_counter() - t0:.1f} s)")
    return 0


def _paper_tables(args: argparse.Namespace) -> int:
    """Rewrite the tables of the results page FOLDER.md from the CSVs in FOLDER (--out)."""
    from ckptsim.experiments.papers.tables import marked, render_page

    if args.paper == "oliner":
        from ckptsim.experiments.papers.oliner_tables import TABLES
    elif args.paper == "forshaw":
        from ckptsim.experiments.papers.forshaw_tables import TABLES
    elif args.paper == "niu":
        from ckptsim.experiments.papers.niu_tables import TABLES
    else:
        raise ConfigError("figure", f"{args.paper}'s results page has no tables generated from "
                                    "its CSVs; 'tables' applies to niu, oliner, forshaw")
    folder = Path(args.out)
    page = folder.with_suffix(".md")
    if not page.is_file():
        raise ConfigError("--out", f"{page} does not exist: 'tables' rewrites the page "
                                   f"FOLDER.md from the CSVs in FOLDER")
    text = page.read_text()
    page.write_text(render_page(text, folder, TABLES))
    print(f"{page}: {len(marked(text))} tables from the CSVs in {folder}")
    return 0


def _paper_oliner(args: argparse.Namespace) -> int:
    from ckptsim.experiments.papers import oliner

    if args.figure != "all":
        oliner.family_of(args.figure)
    defaults = oliner.Options()
    opt = oliner.Options(
        traces=tuple(args.traces) if args.traces else defaults.traces,
        trace_dir=Path(args.trace_dir),
        failure_log=Path(args.failure_log) if args.failure_log else None,
        system=args.system, first=args.first,
        loads=tuple(args.loads) if args.loads else defaults.loads,
        counts=tuple(args.counts) if args.counts else defaults.counts,
        levels=tuple(args.levels) if args.levels else defaults.levels,
        replications=_replications(args), jobs=args.jobs, estimates=args.estimates,
        rate=args.failure_rate)
    return _run_figures(oliner, args, opt)


SHI_ESTIMATES = ("exact", "tsafrir", "f")


def _paper_shi(args: argparse.Namespace) -> int:
    from ckptsim.experiments.papers import shi

    shi.wanted_figures(args.figure)
    if args.estimates not in SHI_ESTIMATES:
        raise ConfigError("--estimates", f"unknown value {args.estimates!r} for shi; accepted: "
                                         f"{', '.join(SHI_ESTIMATES)}")
    defaults = shi.Options()
    opt = shi.Options(
        n=args.first if args.first is not None else defaults.n,
        estimates=args.estimates, ci_seeds=args.ci_seeds,
        traces=tuple(args.traces) if args.traces else defaults.traces,
        trace_dir=Path(args.trace_dir), first=args.first, jobs=args.jobs)
    return _run_figures(shi, args, opt)


def _paper_jones(args: argparse.Namespace) -> int:
    from ckptsim.experiments.papers import jones

    if args.figure != "all":
        jones.family_of(args.figure)
    if args.full and args.per_cluster is not None:
        raise ConfigError("--full", "give --full (the seed's 400,000 jobs per cluster) or "
                                    "--per-cluster N, not both")
    n = jones.FULL_N if args.full else (
        jones.DEFAULT_N if args.per_cluster is None else args.per_cluster)
    opt = jones.Options(n=n, load=args.load if args.load is not None else jones.LOAD,
                        replications=_replications(args), jobs=args.jobs)
    return _run_figures(jones, args, opt, f" ({n:,} jobs per cluster, load {opt.load:g})")


def _paper_forshaw(args: argparse.Namespace) -> int:
    from ckptsim.experiments.papers import forshaw

    forshaw.wanted(args.figure)
    if args.full and args.days is not None:
        raise ConfigError("--full", "give --full (the seed's year and 50 replications) or "
                                    "--days N, not both")
    days = forshaw.FULL_DAYS if args.full else (
        forshaw.DEFAULT_DAYS if args.days is None else args.days)
    reps = args.replications if args.replications is not None else (
        forshaw.FULL_REPLICATIONS if args.full else forshaw.DEFAULT_REPLICATIONS)
    trace = Path(args.availability_trace) if args.availability_trace else (
        Path(args.trace_dir).parent / "failures" / "availability_godfrey" / "microsoft.avt.gz")
    family = "all" if args.figure == "all" else forshaw.family_of(args.figure)
    if family in ("all", "trace") and not trace.is_file():
        raise ConfigError("--availability-trace", f"no such file: {trace} (the Microsoft "
                                                  "desktop availability trace, needed by "
                                                  "the trace figure)")
    platform = _pool_platform(args.platform or "newcastle")
    opt = forshaw.Options(days=days, replications=reps, jobs=args.jobs, platform=platform,
                          start=args.start or (forshaw.FULL_START if args.full
                                               else forshaw.DEFAULT_START),
                          trace=str(trace.resolve()) if trace.is_file() else None)
    return _run_figures(forshaw, args, opt,
                        f" ({days} days of the {opt.platform} pool, {reps} replications)")


_POOLS = "accepted: newcastle, smallpool or a platform file (.toml) whose node types have " \
          "power tables (docs/platforms.md)"


def _pool_platform(value: str) -> str:
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


def _replications(args: argparse.Namespace) -> int:
    return 1 if args.replications is None else int(args.replications)


def _run_figures(paper: Any, args: argparse.Namespace, opt: Any, detail: str = "") -> int:
    """Run a paper module's figures (`runs_of`, `run_figures`) with a progress bar and print
    what was written, how many runs were simulated (`detail` after the time) and how many
    were already in the store."""
    t0 = time.perf_counter()
    total = paper.runs_of(args.figure, opt)
    bar = SweepProgress(total, 0)
    try:
        outputs = paper.run_figures(args.figure, args.out, opt, on_row=bar.update)
    finally:
        bar.close()
    for out in outputs:
        print(f"{out.csv.stem}: {out.csv} and {out.png} ({len(out.rows)} rows)")
    reused = total - bar.count
    runs = f"{bar.count} run{'' if bar.count == 1 else 's'}"
    print(f"{runs} simulated in {time.perf_counter() - t0:.1f} s{detail}"
          + (f"; {reused} {'run was' if reused == 1 else 'runs were'} already in "
             f"{Path(args.out) / 'store'}" if reused > 0 else ""))
    return 0


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("paper", help="reproduce a seed paper's figure (CSV + PNG)",
                       description="Reproduce a seed paper's figures (CSV + PNG). A paper "
                                   "refuses the options it does not use.")
    p.add_argument("paper", choices=PAPERS,
                   help="niu: seed 000, checkpoint-based backfilling; jones: seed 001, "
                        "multi-cluster co-allocation and CTMR; shi: seed 002, Scojo-PECT with "
                        "checkpoints and migration; forshaw: seed 003, energy-aware "
                        "checkpointing in a desktop pool; oliner: seed 004, fault-aware BG/L "
                        "scheduling")
    p.add_argument("figure", help="niu: fig1 fig2 fig4 fig5 fig6 fig7 readings all; oliner: "
                                  "fig3 ... fig10, a family (failures = figs 3-5, balancing = "
                                  "6-8, tiebreak = 9-10), options (the seed's readings as "
                                  "scheduler options) or all; shi: table3 fig11 ... fig16 "
                                  "traces all; jones: fig1 ... fig19, a family (info = figs "
                                  "1-6 and 8, fixed = 7 and 9, ctmr = 10-16, overhead = 17-19) "
                                  "or all; forshaw: fig4 ... fig12, trace (the Microsoft "
                                  "availability trace), a family or all; tables: rewrite the "
                                  "tables of the page OUT.md from the CSVs in OUT")
    groups: dict[tuple[str, ...], Any] = {}
    for o in PAPER_OPTIONS:
        if o.papers not in groups:
            names = list(o.papers)
            title = ("every paper" if o.papers == PAPERS else
                     f"{names[0]} only" if len(names) == 1 else
                     f"{', '.join(names[:-1])} and {names[-1]}")
            groups[o.papers] = p.add_argument_group(title)
        # Every default is None here, so that an option given can be told from one left out
        # (check_options refuses the first and fills in the second).
        groups[o.papers].add_argument(o.flag, default=None, help=o.help, **o.kwargs)
    p.set_defaults(func=cmd_paper)
