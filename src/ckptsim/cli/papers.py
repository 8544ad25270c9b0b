"""The paper command: a seed paper's figures (CSV + PNG) through the sweep machinery."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from ckptsim.cli.common import SweepProgress, output_folder
from ckptsim.errors import ConfigError

#: Options of some papers only: (flag, attribute, the papers that take it).
_OWN_OPTIONS = (("--traces", "traces", ("niu", "oliner", "shi")),
                ("--first", "first", ("niu", "oliner", "shi")),
                ("--full", "full", ("jones", "forshaw")),
                ("--per-cluster", "per_cluster", ("jones",)),
                ("--load", "load", ("jones",)),
                ("--days", "days", ("forshaw",)),
                ("--platform", "platform", ("forshaw",)),
                ("--start", "start", ("forshaw",)),
                ("--availability-trace", "availability_trace", ("forshaw",)))


def cmd_paper(args: argparse.Namespace) -> int:
    if args.first is not None and args.first < 1:
        raise ConfigError("--first", f"expected a number of jobs >= 1, got {args.first}")
    if args.jobs is not None and args.jobs < 0:
        raise ConfigError("--jobs", f"expected a number of processes >= 0 (0: in this "
                                    f"process), got {args.jobs}")
    for flag, attr, papers in _OWN_OPTIONS:
        if getattr(args, attr) not in (None, False) and args.paper not in papers:
            raise ConfigError(flag, f"does not apply to {args.paper}; it is an option of "
                                    f"{' and '.join(papers)}")
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
    else:
        from ckptsim.experiments.papers.niu_tables import TABLES
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
    platform = args.platform or "newcastle"
    if Path(platform).is_file():
        platform = str(Path(platform).resolve())
    opt = forshaw.Options(days=days, replications=reps, jobs=args.jobs, platform=platform,
                          start=args.start or (forshaw.FULL_START if args.full
                                               else forshaw.DEFAULT_START),
                          trace=str(trace.resolve()) if trace.is_file() else None)
    return _run_figures(forshaw, args, opt,
                        f" ({days} days of the {opt.platform} pool, {reps} replications)")


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
    p = sub.add_parser("paper", help="reproduce a seed paper's figure (CSV + PNG)")
    p.add_argument("paper", choices=("niu", "oliner", "shi", "jones", "forshaw"),
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
    p.add_argument("--out", required=True, help="output folder (figN.csv, figN.png, the sweep)")
    p.add_argument("--trace-dir", default="../shared/data/traces",
                   help="folder holding the PWA traces (default ../shared/data/traces)")
    p.add_argument("--traces", nargs="+", default=None,
                   help="trace names (niu default: SDSC-BLUE CTC-SP2 HPC2N SDSC-SP2 KTH-SP2 "
                        "CEA-Curie; oliner default: SDSC NASA LUBLIN-256; shi default: SDSC-SP2 "
                        "KTH-SP2)")
    p.add_argument("--first", type=int, default=None,
                   help="only the first N jobs of each trace (shi: also N jobs per generated "
                        "workload instead of 10,000)")
    p.add_argument("--jobs", type=int, default=None, help="processes (default: all cores)")
    p.add_argument("--estimates", default="exact",
                   help="oliner: exact (default, every workload scheduled with its run times) "
                        "or requested (the requested times where the trace has them: SDSC); "
                        "shi: the generated jobs' estimates, exact (default: the thesis's jobs "
                        "have none and are classified by their runtimes), tsafrir or f")
    g = p.add_argument_group("oliner only")
    g.add_argument("--failure-log", default=None,
                   help="the LANL failure records CSV (default: ../failures/lanl_cfdr/"
                        "LA-UR-05-7318-failure-data-1996-2005.csv.gz beside the trace folder)")
    g.add_argument("--system", type=int, default=20,
                   help="LANL system whose failures are used (default 20: 400 nodes)")
    g.add_argument("--loads", type=float, nargs="+", default=None,
                   help="load scales c (default 1.0 1.2)")
    g.add_argument("--counts", type=int, nargs="+", default=None,
                   help="failure counts of figs 3-5 (default 0 500 ... 4000)")
    g.add_argument("--levels", type=float, nargs="+", default=None,
                   help="confidence / accuracy values of figs 6-10 (default 0.0 0.1 ... 1.0)")
    g.add_argument("--failure-rate", default="seed",
                   help="failures of figs 6-10: seed (default: 4,000 for SDSC and NASA, 1,000 "
                        "for LUBLIN-256) or log (the failure log's own rate per node-day)")
    g.add_argument("--replications", type=int, default=None,
                   help="oliner, jones and forshaw: seeds per point (oliner: each thins the "
                        "failure log differently; jones, forshaw: each draws another "
                        "workload, and forshaw other users); figures show the mean "
                        "(default 1; forshaw 3, with --full 50)")
    g = p.add_argument_group("shi only")
    g.add_argument("--ci-seeds", type=int, default=30, metavar="N",
                   help="fig16: seeds of the confidence intervals, the thesis's five first "
                        "(default 30)")
    g = p.add_argument_group("jones and forshaw")
    g.add_argument("--per-cluster", type=int, default=None, metavar="N",
                   help="jobs per cluster (default 10,000; the seed: 400,000)")
    g.add_argument("--full", action="store_true",
                   help="the seed's size (jones: 400,000 jobs per cluster; forshaw: a year, "
                        "50 replications; hours of runs)")
    g.add_argument("--load", type=float, default=None,
                   help="offered load per cluster (default 0.95)")
    g = p.add_argument_group("forshaw only")
    g.add_argument("--days", type=int, default=None, metavar="N",
                   help="days of users and HTC jobs per run (default 7; the seed: 365)")
    g.add_argument("--start", default=None, metavar="DATE",
                   help="the date of time 0, a Friday (default 2010-01-15, a week of term; "
                        "with --full 2010-01-01, the seed's year)")
    g.add_argument("--platform", default=None, metavar="NAME|FILE",
                   help="the desktop pool (default newcastle: 1,359 computers in 35 clusters; "
                        "smallpool or a platform file, docs/platforms.md)")
    g.add_argument("--availability-trace", default=None, metavar="FILE",
                   help="the Microsoft desktop availability trace of the trace figure "
                        "(default: ../failures/availability_godfrey/microsoft.avt.gz beside "
                        "the trace folder)")
    p.set_defaults(func=cmd_paper)
