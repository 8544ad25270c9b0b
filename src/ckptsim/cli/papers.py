"""The paper command: a seed paper's figures (CSV + PNG) through the sweep machinery."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ckptsim.cli.common import SweepProgress, output_folder
from ckptsim.cli.common import console as rich_console
from ckptsim.errors import ConfigError, did_you_mean
from ckptsim.experiments.papers.base import (
    EVERY_PAPER,
    SHARED_OPTIONS,
    Paper,
    PaperOption,
    all_papers,
)


def _options_table(papers: list[Paper]) -> tuple[PaperOption, ...]:
    """The shared options, then each paper's own, each with the papers that use it."""
    users: dict[str, list[str]] = {}
    own: list[PaperOption] = []
    for paper in papers:
        for flag in (*EVERY_PAPER, *paper.uses):
            users.setdefault(flag, []).append(paper.name)
        for o in paper.own_options:
            if o.flag in users or any(s.flag == o.flag for s in SHARED_OPTIONS):
                raise ValueError(f"{paper.name}: option {o.flag} is declared twice")
            users[o.flag] = [paper.name]
            own.append(o)
    return tuple(replace(o, papers=tuple(users[o.flag]))
                 for o in (*SHARED_OPTIONS, *own) if o.flag in users)


_PAPERS = {paper.name: paper for paper in all_papers()}
PAPERS = tuple(_PAPERS)
#: Every option of the paper command, declared once (shared ones in
#: ckptsim.experiments.papers.base, a paper's own in its package) with the papers that use it.
PAPER_OPTIONS = _options_table(list(_PAPERS.values()))


#: The pseudo-figures that read a results folder instead of running: `tables` rewrites the
#: page FOLDER.md from the CSVs in FOLDER, `claims` computes the claims' verdicts from them.
READERS = ("tables", "claims")


def accepted_options(paper: str, figure: str | None = None) -> list[str]:
    """The flags `paper` uses (`tables`: --out only; `claims`: --out and --csv)."""
    if figure == "tables":
        return ["--out"]
    if figure == "claims":
        return ["--out", "--csv"]
    return [o.flag for o in PAPER_OPTIONS if paper in o.papers]


def check_options(args: argparse.Namespace) -> None:
    """Refuse an option the paper (or its `tables`) does not use, then give every option
    left out its default."""
    if args.paper not in _PAPERS:
        raise ConfigError("paper", f"unknown paper {args.paper!r}"
                                   f"{did_you_mean(args.paper, PAPERS)}; accepted: "
                                   f"{', '.join(PAPERS)}")
    accepted = accepted_options(args.paper, args.figure)
    given = [(o.flag, getattr(args, o.dest)) for o in PAPER_OPTIONS]
    for flag, value in [*given, ("--csv", getattr(args, "csv", None))]:
        if value is not None and flag not in accepted:
            what = f"{args.paper} {args.figure}" if args.figure in READERS else args.paper
            raise ConfigError(flag, f"does not apply to {what}; {what} accepts "
                                      f"{', '.join(accepted)}")
    if args.figure not in READERS:
        for flag, value in given:
            if value is not None:
                check_figure_option(_PAPERS[args.paper], args.figure, flag)
    for flag, value in given:
        if isinstance(value, list):  # a list option (nargs): each value once
            seen: list[Any] = []
            for v in value:
                if v in seen:
                    shown = f"{v:g}" if isinstance(v, float) else v
                    raise ConfigError(flag, f"{shown} is given twice; give each value once")
                seen.append(v)
    for o in PAPER_OPTIONS:
        if getattr(args, o.dest) is None and o.default is not None:
            setattr(args, o.dest, o.default)


def figure_users(paper: Paper, flag: str) -> list[str] | None:
    """The figures of `paper` that use the option `flag`, with `all` where it runs one of them;
    None: every figure uses it (`Paper.used_by` names it not)."""
    figures = paper.used_by.get(flag)
    if figures is None:
        return None
    runs_one = any(f in figures for f in paper.wanted("all"))
    return [*figures, *(["all"] if runs_one else [])]


def check_figure_option(paper: Paper, figure: str, flag: str) -> None:
    """Refuse the option `flag`, given, when none of the figures `figure` runs (a figure, a
    family or `all`: `Paper.wanted`) uses it, naming the figures that do."""
    users = figure_users(paper, flag)
    if users is None or any(f in users for f in paper.wanted(figure)):
        return
    named = users[0] if len(users) == 1 else f"{', '.join(users[:-1])} and {users[-1]}"
    raise ConfigError(flag, f"does not apply to {paper.name} {figure}; {flag} is used by "
                            f"{paper.name} {named}")


def cmd_paper(args: argparse.Namespace) -> int:
    check_options(args)
    if getattr(args, "first", None) is not None and args.first < 1:
        raise ConfigError("--first", f"expected a number of jobs >= 1, got {args.first}")
    if args.dask_timeout is not None and not args.dask_timeout > 0:
        raise ConfigError("--dask-timeout", f"expected seconds > 0, got {args.dask_timeout}")
    if args.jobs is not None and args.jobs < 0:
        raise ConfigError("--jobs", f"expected a number of processes >= 0 (0: in this "
                                    f"process), got {args.jobs}")
    if args.figure == "tables":
        return _paper_tables(args)
    if args.figure == "claims":
        return _paper_claims(args)
    output_folder(args.out, own="store")
    paper = _PAPERS[args.paper]
    paper.wanted(args.figure)
    opt = paper.options(args)
    return _run_figures(paper, args, opt)


def _paper_tables(args: argparse.Namespace) -> int:
    """Rewrite the tables of the results page FOLDER.md from the CSVs in FOLDER (--out)."""
    from ckptsim.experiments.papers import manifest
    from ckptsim.experiments.papers.tables import MissingCsv, marked, render_page

    tables = _PAPERS[args.paper].page_tables()
    folder = Path(args.out)
    page = folder.with_suffix(".md")
    if not page.is_file():
        raise ConfigError("--out", f"{page} does not exist: 'tables' rewrites the page "
                                   f"FOLDER.md from the CSVs in FOLDER")
    made, mixed = manifest.check(folder, args.paper)
    text = page.read_text()
    try:
        rendered = render_page(text, folder, tables)
    except MissingCsv as exc:
        raise exc.naming(args.paper) from None
    page.write_text(rendered)
    _warn_mixed(mixed)
    print(f"{page}: {len(marked(text))} tables from the CSVs in {folder}")
    print(made)
    return 0


def _warn_mixed(warning: str | None) -> None:
    """A folder whose figures were made with different options, named on stderr."""
    if warning is not None:
        print(f"ckptsim: warning: {warning}", file=sys.stderr)


#: The narrowest a claim's column of `paper NAME claims` is drawn (else one claim a line).
CLAIM_WIDTH = 28


def _paper_claims(args: argparse.Namespace) -> int:
    """Compute every claim's verdict from the CSVs in FOLDER (--out), print them as a table
    and, with --csv FILE, write them as CSV."""
    from rich.table import Table

    from ckptsim.experiments.papers import manifest
    from ckptsim.experiments.papers.claims_table import COLUMNS, cells, evaluate, write_csv

    folder = Path(args.out)
    if not folder.is_dir():
        raise ConfigError("--out", f"{folder} is not a folder: 'claims' reads the CSVs of a "
                                   f"results folder (e.g. docs/results/{args.paper})")
    if args.csv:  # checked before the table is computed and printed
        csv_path = Path(args.csv)
        if csv_path.is_dir():
            raise ConfigError("--csv", f"{csv_path} is a folder; give the file to write the "
                                       f"claims into (e.g. {args.paper}-claims.csv)")
        if not csv_path.parent.is_dir():
            raise ConfigError("--csv", f"{csv_path.parent} is not a folder: the claims CSV is "
                                       f"written into an existing folder")
    # What the CSVs were made with (a claims CSV written into the folder is no figure).
    made, mixed = manifest.check(folder, args.paper, skip=[Path(args.csv)] if args.csv else [])
    _warn_mixed(mixed)
    try:
        lines = evaluate(_PAPERS[args.paper].claims, folder)
    except ValueError as exc:
        raise ConfigError("claims", f"{args.paper}: {exc}") from None
    rows = [cells(line) for line in lines]
    console = rich_console()
    title = f"{args.paper}: the seed's claims against {folder}"
    # A claim keeps at least CLAIM_WIDTH characters a line; where the other columns leave
    # it less (a narrow terminal, or output into a file: 80 columns), each claim is printed
    # as a line of its own with its figures and verdict indented below it.
    others = sum(max(len(c), *(len(r[i]) for r in rows)) if rows else len(c)
                 for i, c in enumerate(COLUMNS) if c != "claim")
    if console.width >= CLAIM_WIDTH + others + 3 * len(COLUMNS) + 1:
        table = Table(title=title)
        for column in COLUMNS:  # the claim wraps; the figures and the verdict keep one line
            table.add_column(column, overflow="fold", no_wrap=column != "claim",
                             ratio=1 if column == "claim" else None,
                             min_width=CLAIM_WIDTH if column == "claim" else None,
                             justify="right" if column in ("ours", "n", "ci_low", "ci_high")
                             else "left")
        for row in rows:
            table.add_row(*row)
        console.print(table)
    else:
        console.print(title, markup=False, highlight=False)
        for claim, seed, ours, n, low, high, rule, verdict in rows:
            interval = f", 95% CI {low} ... {high}" if low or high else ""
            console.print(f"{claim}\n    {verdict}: ours {ours or '-'} (n {n}{interval}), "
                          f"seed {seed or '-'}, rule {rule}", markup=False, highlight=False)
    console.print(made, markup=False, highlight=False)
    if args.csv:
        write_csv(lines, Path(args.csv))
        print(f"{args.csv}: {len(lines)} rows")
    return 0


def _run_figures(paper: Paper, args: argparse.Namespace, opt: Any) -> int:
    """Run a paper's figures and print what was written: with a progress bar, how many runs
    were simulated (the paper's detail after the time) and how many were already in the store;
    a paper that does not count its runs ahead, each figure with its own time."""
    from ckptsim.experiments.papers import settings
    from ckptsim.experiments.papers.common import dask_cluster
    from ckptsim.experiments.papers.manifest import check_paper, recording

    out = Path(args.out)
    check_paper(out, paper.name)  # a folder of another paper's figures is refused first
    t0 = time.perf_counter()
    paper.check(args.figure, opt)  # a bad option is refused before anything is counted
    sets = settings.resolve(paper, args.figure, opt, args.set)
    total = paper.runs_of(args.figure, opt)
    if total is not None:
        from ckptsim.experiments.estimate import planned, spec_names, survey
        from ckptsim.experiments.preflight import preflight

        specs = {name: settings.apply(text, sets)
                 for name, text in paper.specs(args.figure, opt).items()}
        plans = planned(specs, paper.trace_folder(opt, out))
        found = survey(specs, paper.trace_folder(opt, out), out / "store", plans)
        # Every configuration left to run, checked before the first run of any figure.
        checked = preflight([r for p in plans.values() for r in p.todo],
                            f"{paper.name} {args.figure}")
        if checked.configurations:
            print(checked.line(), file=sys.stderr)
        total = found.runs or total  # a run two families share is run, and counted, once
        if not confirm_cost(paper, args, opt, total, found.done, spec_names(specs),
                            known=(found.known_runs, found.known_seconds)):
            return 1
    given = {f: settings.applied(paper, f, opt, sets) for f in paper.wanted(args.figure)}
    with dask_cluster(args.dask, args.dask_timeout), settings.using(sets), \
            recording(paper, args.figure, opt, out, given) as written:
        return _figures(paper, args, opt, out, t0, total, written)


def _figures(paper: Paper, args: argparse.Namespace, opt: Any, out: Path, t0: float,
             total: int | None, written: list[Path]) -> int:
    if total is None:
        for figure in paper.run(args.figure, out, opt):
            written.append(figure.csv)
            print(f"{figure.csv.stem}: {figure.csv} and {figure.png} ({len(figure.rows)} rows, "
                  f"{time.perf_counter() - t0:.1f} s)")
            t0 = time.perf_counter()
        return 0
    bar = SweepProgress(total, 0)
    try:
        outputs = list(paper.run(args.figure, out, opt, on_row=bar.update))
    finally:
        bar.close()
    written.extend(figure.csv for figure in outputs)
    for figure in outputs:
        print(f"{figure.csv.stem}: {figure.csv} and {figure.png} ({len(figure.rows)} rows)")
    reused = total - bar.count
    runs = f"{bar.count} run{'' if bar.count == 1 else 's'}"
    print(f"{runs} simulated in {time.perf_counter() - t0:.1f} s{paper.detail(opt)}"
          + (f"; {reused} {'run was' if reused == 1 else 'runs were'} already in "
             f"{out / 'store'}" if reused > 0 else ""))
    return 0


#: Above this estimate of CPU seconds a paper command asks before it starts (--yes: never).
ASK_ABOVE = 3600.0


def confirm_cost(paper: Paper, args: argparse.Namespace, opt: Any, runs: int,
                 stored: int = 0, experiments: Sequence[str] = (),
                 known: tuple[int, float] = (0, 0.0)) -> bool:
    """Print the number of runs, how many of them the store already holds (`stored`: reused,
    not run again) and the CPU time the others are estimated to take: `known` (runs, seconds)
    for those whose configuration the store has measured on other seeds (`estimate.survey`),
    the rest at a seconds per run (the median of the stored runs of `experiments`, the
    command's specs, else of the whole store, else the paper's own measurement); above an
    hour, ask before starting (--yes: do not ask).  Returns whether to start.

    Raises:
        ConfigError: over an hour, without --yes, and no terminal to ask on.
    """
    import os

    from ckptsim.experiments.estimate import about, format_seconds, measured_seconds

    stored = min(max(stored, 0), runs)
    count = f"{runs:,} run{'' if runs == 1 else 's'}"
    if stored:
        count += f" ({stored:,} already in {args.out}/store, reused; {runs - stored:,} to run)"
    measured = measured_seconds(Path(args.out) / "store", experiments)
    each = measured or paper.seconds_per_run(opt)
    known_runs = min(max(known[0], 0), runs - stored)
    if each is None and known_runs and known_runs == runs - stored:
        each = (0.0, "")  # every run left is timed by its configuration's runs
    if each is None or stored == runs:
        print(count if stored else f"{count} (runs already in {args.out}/store are reused)")
        return True
    seconds, source = each
    cpu = (runs - stored - known_runs) * seconds + (known[1] if known_runs else 0.0)
    # As the executors run them (`execute.make_executor`): --jobs 0 in this process, else
    # --jobs processes or LocalCluster workers (all cores without --jobs; --dask local, as
    # `ckptsim sweep`'s, also with 0), which share the cores when they are more.
    cores = os.cpu_count() or 1
    procs = max(1, args.jobs or cores)
    many = f" ({cores} core{'' if cores == 1 else 's'})" if procs > cores else ""
    per = about(cpu / min(procs, cores))
    if args.dask == "local":
        where = (f"{per} on a Dask LocalCluster of {procs} "
                 f"worker{'' if procs == 1 else 's'}{many}")
    elif args.dask:
        where = f"on the Dask cluster at {args.dask}: that CPU time over its workers"
    elif args.jobs == 0:
        where = f"{about(cpu)} in this process"
    else:
        where = f"{per} on {procs} process{'' if procs == 1 else 'es'}{many}"
    reuse = "" if stored else f"; runs already in {args.out}/store are reused"
    basis = f"{seconds:.3g} s a run, {source}"
    if known_runs:
        basis = (f"{known_runs:,} of them as their configurations took on other seeds in "
                 f"{args.out}/store, " + (f"the other {runs - stored - known_runs:,} at "
                                          f"{basis}" if known_runs < runs - stored else
                                          "every one"))
    print(f"{count}, {about(cpu)} of CPU ({basis}); {where}{reuse}")
    if cpu <= ASK_ABOVE or args.yes:
        return True
    if not sys.stdin.isatty():
        raise ConfigError("--yes", f"{paper.name} {args.figure} is estimated at "
                                   f"{format_seconds(cpu)} of CPU; give --yes to start it "
                                   "without being asked")
    answer = input("Start? [y/N] ").strip().lower()
    if answer in ("y", "yes"):
        return True
    print("not started")
    return False


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("paper", help="reproduce a seed paper's figure (CSV + PNG)",
                       description="Reproduce a seed paper's figures (CSV + PNG). A paper "
                                   "refuses the options it does not use, and a figure (a "
                                   "family, all) those none of its figures uses, as each "
                                   "option's help scopes it. --set KEY=VALUE reruns the "
                                   "figures under another value of a scheduler's (or, "
                                   "COMPONENT.KEY=VALUE, a component's; "
                                   "checkpoint.policy.KEY=VALUE, a checkpoint policy's) "
                                   "parameter "
                                   "(docs/experiments.md). Two pseudo-figures "
                                   "read a results folder instead: tables (rewrite its page) "
                                   "and claims (every claim's verdict, computed from its CSVs; "
                                   "--csv FILE also writes them).")
    papers = _PAPERS.values()
    p.add_argument("paper", metavar="PAPER", help="one of " + "; ".join(
        f"{x.name}: seed {x.seed}, {x.about}" for x in papers))
    p.add_argument("figure", help="; ".join(f"{x.name}: {x.figure_help}" for x in papers)
                   + "; tables: rewrite the tables of the page OUT.md from the CSVs in OUT; "
                     "claims: every claim of the seed with its verdict computed from the CSVs "
                     "in OUT (agrees, differs, inconclusive, not-run)")
    p.add_argument("--csv", default=None, metavar="FILE",
                   help="claims only: also write the claims table as CSV (claim, seed, ours, "
                        "n, ci_low, ci_high, rule, verdict)")
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
