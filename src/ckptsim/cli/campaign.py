"""Commands on campaigns: sweep, results, report (the paper command: cli/papers.py)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ckptsim.cli import INTERRUPTED
from ckptsim.cli.common import SweepProgress, check_folder_path, fmt, print_table
from ckptsim.cli.storenotes import (
    note_not_run,
    note_pooled,
    note_shadowed,
    note_unchecked,
    warn_damaged_jobs,
    warn_damaged_runs,
)
from ckptsim.errors import ConfigError


def _describe_runs(runs: Any, inputs: list[str]) -> tuple[list[str], list[list[str]]]:
    from ckptsim.experiments.columns import short_names
    from ckptsim.experiments.results import shown_inputs

    shown = shown_inputs([r.columns for r in runs], inputs)
    labels = short_names([*shown, *inputs])[:len(shown)]
    rows = [[str(i + 1), r.run_id[:12], *[fmt(r.columns.get(c)) for c in shown],
             str(r.seed)] for i, r in enumerate(runs)]
    return ["#", "run", *labels, "seed"], rows


def cmd_sweep(args: argparse.Namespace) -> int:
    from ckptsim.experiments.store import Store

    if not args.dry_run and not args.out:
        raise ConfigError("--out", "a sweep needs a results folder: --out DIR (or --dry-run)")
    if args.jobs is not None and args.jobs < 0:
        raise ConfigError("--jobs", f"expected a number of processes >= 0, got {args.jobs}")
    if args.dask_timeout is not None and not args.dask_timeout > 0:
        raise ConfigError("--dask-timeout", f"expected seconds > 0, got {args.dask_timeout}")
    if args.max_runs is not None and args.max_runs < 1:
        raise ConfigError("--max-runs", f"expected a number of runs >= 1, got {args.max_runs}")
    if args.out:
        check_folder_path(args.out, own="runs")
    if args.dry_run or not Path(args.out).is_dir():
        return _sweep(args, locked=False)  # a new store: run_sweep takes its lock
    with Store(args.out).lock():  # another sweep writing it: refused before anything else
        return _sweep(args, locked=True)


def _sweep(args: argparse.Namespace, locked: bool) -> int:
    from ckptsim.experiments.execute import make_executor
    from ckptsim.experiments.matrix import MAX_RUNS, MatrixTooLarge
    from ckptsim.experiments.sweep import manifest, plan_sweep, run_sweep

    # Before planning: `--dask local` starts its workers' fork server here, which imports Dask
    # and ckptsim while the spec is checked and the store read.
    executor = None if args.dry_run else make_executor(args.jobs, args.dask,
                                                        dask_timeout=args.dask_timeout)
    try:
        plan = plan_sweep(args.spec, args.out, trace_dir=args.trace_dir,
                          keep_jobs=args.keep_jobs, max_runs=args.max_runs or MAX_RUNS)
    except MatrixTooLarge as exc:
        if args.dry_run:  # the count, then the refusal a sweep would give
            print(f"{exc.runs} runs ({_shape(exc.spec)}): too many to list")
        raise
    spec = plan.spec
    shape = _shape(spec)
    for path, why in plan.corrupt:
        what = "per-job file" if Path(path).parent.name == "jobs" else "store file"
        again = "a sweep would run its runs again" if args.dry_run else "its runs are run again"
        print(f"ckptsim: damaged {what} {path} ({why}): {again}", file=sys.stderr)
    note_unchecked(plan.unchecked, "the next sweep records them" if args.dry_run else
                    "this sweep records them")
    if args.dry_run:
        inputs = manifest(spec, plan.runs)["inputs"]
        columns, rows = _describe_runs(plan.runs, inputs)
        (print_table if len(rows) <= PLAIN_ABOVE else _print_plain)(
            f"Run matrix of {spec.name}", columns, rows)
        status = (f"; in {args.out}: {plan.done} finished, {len(plan.todo)} to run"
                  if args.out else "")
        print(f"{len(plan.runs)} runs ({shape}){status}")
        return 0
    assert executor is not None
    from ckptsim.experiments.preflight import preflight

    checked = preflight(plan.todo, str(spec.path))  # refused: nothing runs
    if checked.configurations:
        print(checked.line(), file=sys.stderr)
    where = (f"a Dask LocalCluster of {executor.workers} workers" if args.dask == "local" else
             f"the Dask scheduler at {args.dask}" if args.dask else
             "this process" if args.jobs == 0 else f"{executor.workers} local processes")
    print(f"{spec.name}: {len(plan.runs)} runs ({shape}); {plan.done} already in {args.out}, "
          f"{len(plan.todo)} to run on {where}", file=sys.stderr)
    bar = SweepProgress(len(plan.runs), plan.done)
    try:
        result = run_sweep(plan, args.out, executor, on_row=bar.update, locked=locked)
    except KeyboardInterrupt:
        bar.close()
        print(f"ckptsim: interrupted after {bar.count} runs; the store keeps every finished "
              "run: run the same command to resume", file=sys.stderr)
        return INTERRUPTED
    finally:
        bar.close()
    _print_failures(result.failures, args.out)
    ran = result.ok + result.failed
    rate = f" ({ran / result.seconds:.1f} runs/s)" if result.seconds > 0 and ran else ""
    print(f"{result.ok} succeeded, {result.failed} failed, {result.skipped} already done; "
          f"{ran} runs in {result.seconds:.1f} s{rate}; results in {args.out}")
    return 1 if result.failed else 0


def _print_failures(failed: list[dict[str, Any]], root: str, most: int = 10) -> None:
    """The first `most` failed runs with their error, on stderr, and where the rest and the
    tracebacks are."""
    # The parameters that tell the failed runs apart (a workload's, a scheduler's).
    shown = [c for c in (failed[0] if failed else {}) if c.startswith(("workload.", "param."))
             and len({repr(r.get(c)) for r in failed}) > 1]
    for row in failed[:most]:
        params = "".join(f" {c.partition('.')[2]}={row.get(c)}" for c in shown)
        print(f"failed: {row['run_id'][:12]} {row.get('workload')} x {row.get('scheduler')}"
              f"{params} seed={row.get('seed')}: {row.get('error_message')}", file=sys.stderr)
    if failed:
        more = f"{len(failed) - most} more failures and " if len(failed) > most else ""
        print(f"({more}the tracebacks: ckptsim results {root} --where status=failed --csv -, "
              "column error)", file=sys.stderr)


#: A dry run lists a matrix of more runs than this as plain columns (a rich table takes about
#: a millisecond a row: a minute for 100,000 runs).
PLAIN_ABOVE = 2000


def _print_plain(title: str, columns: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(columns)]

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths, strict=True)))

    lines = [title, line(columns), "  ".join("-" * w for w in widths), *map(line, rows)]
    sys.stdout.write("\n".join(lines) + "\n")


def _shape(spec: Any) -> str:
    return (f"{len(spec.workloads)} workload(s), {len(spec.schedulers)} scheduler "
            f"entr{'y' if len(spec.schedulers) == 1 else 'ies'}, {len(spec.seeds)} seed(s)")


def cmd_results(args: argparse.Namespace) -> int:
    from ckptsim.experiments import results as res
    from ckptsim.experiments.columns import short_names
    from ckptsim.experiments.spec import DEFAULT_METRICS
    from ckptsim.experiments.store import load_store

    loaded = load_store(args.dir, all_runs=args.all, keep_damaged=True)
    rows, manifest = loaded.rows, loaded.manifest
    warn_damaged_jobs(loaded.damaged_jobs)
    status = warn_damaged_runs(args.dir, loaded.damaged_runs)
    note_unchecked(loaded.unchecked, "the next sweep records them")
    note_not_run(rows, manifest, args.dir)
    columns = res.all_columns(rows) or list(manifest.get("inputs", []))
    where = res.parse_where(args.where, columns, rows)
    everything, rows = rows, res.filter_rows(rows, where)
    if everything and not rows:
        print(f"note: {res.why_none_match(everything, where)}", file=sys.stderr)
    by = res.resolve_columns("--group-by", args.group_by, columns)
    metrics = (res.resolve_columns("--metrics", args.metrics, columns) if args.metrics
               else [m for m in manifest.get("metrics", DEFAULT_METRICS) if m in columns])
    unreported = [m for m in manifest.get("metrics", []) if m not in columns]
    if unreported and any(r.get("status") == "ok" for r in rows):
        print(f"note: the spec's metric(s) {', '.join(unreported)}: no run here reports them "
              "(a metric of some schedulers or components only), so they are not shown",
              file=sys.stderr)
    inputs = [c for c in manifest.get("inputs", []) if c in columns]
    note_shadowed(args, columns)
    if args.versus is not None:
        return _versus(args, rows, columns, inputs, by, metrics, manifest) or status
    if args.relative:
        raise ConfigError("--relative", "goes with --versus KEY=BASE,OTHER")
    pooled: list[str] = []
    if by:
        mixed = res.pooled_inputs(rows, by, inputs)
        pooled = short_names([*mixed, *columns])[:len(mixed)]
        table = res.group(rows, by, metrics, inputs)
        shown = res.grouped_columns(by, metrics)
    else:
        shown, table = res.run_rows(rows, inputs, metrics)
    if args.csv is not None:
        # No run matched: the header of the store's columns all the same (a file pandas reads).
        export = shown if by else res.export_columns(rows or everything)
        text = res.to_csv(export, table if by else rows)
        note_pooled(pooled)
        if args.csv == "-":
            sys.stdout.write(text)
        else:
            Path(args.csv).write_text(text, encoding="utf-8")
            print(f"{len(table if by else rows)} rows written to {args.csv}")
        return status
    if by:
        labels = short_names([*by, *columns])[:len(by)] + ["runs", "failed", *metrics]
        body = [[fmt(g[c]) for c in by] + [str(g["runs"]), str(g["failed"])]
                + [_pm(g[m], g[f"{m}_ci95"]) + (f" (n={g[f'{m}_n']})" if res.partial(g, m)
                                                 else "") for m in metrics] for g in table]
    else:
        labels = short_names([*shown, *columns])[:len(shown)]
        body = [[fmt(r[c]) for c in shown] for r in table]
    title = f"{manifest.get('experiment', args.dir)}: {len(rows)} runs"
    if by and not pooled:
        title += " (mean ± 95% CI over replications)"
    elif by:
        title += (f" (mean over runs that differ in {', '.join(pooled)}: no confidence "
                  "interval)")
    print_table(title, labels, body)
    if by and any(res.partial(g, m) for g in table for m in metrics):
        print(f"note: {res.PARTIAL_NOTE}", file=sys.stderr)
    note_pooled(pooled)
    _print_failures([r for r in rows if r.get("status") == "failed"], args.dir)
    return status


def _versus(args: argparse.Namespace, rows: list[dict[str, Any]], columns: list[str],
            inputs: list[str], by: list[str], metrics: list[str], manifest: dict[str, Any]
            ) -> int:
    from ckptsim.experiments import paired as pr
    from ckptsim.experiments.columns import short_names
    from ckptsim.experiments.results import shown_inputs, to_csv

    versus = pr.parse_versus(args.versus, columns, rows, inputs)
    result = pr.paired(rows, versus, inputs, by, metrics, relative=args.relative,
                       filtered=bool(args.where))
    shown = [c for c in shown_inputs(rows, result.matched_on) if c not in by]
    notes = pr.notes(result, versus, [*shown, "seed"], columns)
    if args.csv is not None:
        text = to_csv(pr.paired_columns(by, metrics), result.rows)
        if args.csv == "-":
            sys.stdout.write(text)
        else:
            Path(args.csv).write_text(text, encoding="utf-8")
            print(f"{len(result.rows)} rows written to {args.csv}")
    else:
        what = (f"{versus.other} / {versus.base} − 1" if args.relative
                else f"{versus.other} − {versus.base}")
        count = f"{result.pairs} pair{'' if result.pairs == 1 else 's'}"
        title = (f"{manifest.get('experiment', args.dir)}: {versus.key} {what} over {count} "
                 "(mean ± 95% CI over the pairs)")
        body = [[fmt(g[c]) for c in by] + [str(g["pairs"])]
                + [(_percent if args.relative else _pm)(g[m], g[f"{m}_ci95"])
                   + (f" (n={g[f'{m}_n']})" if 0 < g[f"{m}_n"] < g["pairs"] else "")
                   for m in metrics] for g in result.rows]
        print_table(title, [*short_names([*by, *columns])[:len(by)], "pairs", *metrics], body)
        if any(0 < g[f"{m}_n"] < g["pairs"] for g in result.rows for m in metrics):
            notes.append("(n=N): that metric's difference is a number in N of the group's "
                         "pairs only (missing or NaN in a run, a ratio over 0, or infinite in "
                         "both runs)")
    for line in notes:
        print(f"note: {line}", file=sys.stderr)
    return 0


def _pm(mean: float, half: float) -> str:
    if mean != mean:
        return "-"
    return fmt(mean) if half != half else f"{fmt(mean)} ± {fmt(half)}"


def _percent(mean: float, half: float) -> str:
    if mean != mean:
        return "-"
    return f"{100 * mean:.1f}%" + ("" if half != half else f" ± {100 * half:.1f}")


def cmd_report(args: argparse.Namespace) -> int:
    from ckptsim.experiments.report import make_report

    if args.out:
        check_folder_path(args.out)
    report = make_report(args.dir, args.out, gantt=args.gantt)
    warn_damaged_jobs(report.damaged_jobs)
    note_unchecked(report.unchecked, "the next sweep records them")
    for note in report.notes:
        print(f"ckptsim: {note}", file=sys.stderr)
    charts = [p.stem[len("gantt-"):] for p in report.figures if p.stem.startswith("gantt-")]
    drawn = f"{(len(report.figures) - len(charts)) // 2} figure(s) (PNG and SVG)"
    if charts:
        drawn += f", the Gantt chart of run {charts[0]}"
    print(f"{drawn} and the page {report.html}")
    return 0


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("sweep", help="run every run of an experiment spec (resumable)")
    p.add_argument("spec", help="experiment spec (TOML); see docs/experiments.md")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="results store; an existing one is resumed (finished runs skipped)")
    p.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="local worker processes (default: all cores; 0: in this process)")
    p.add_argument("--dask", default=None, metavar="ADDRESS",
                   help="run on the Dask scheduler at ADDRESS (e.g. tcp://host:8786), or "
                        "'local' for a LocalCluster of --jobs workers (all cores without --jobs "
                        "or with 0)")
    p.add_argument("--dask-timeout", type=float, default=None, metavar="SECONDS",
                   help="give up when the Dask scheduler does not answer within SECONDS "
                        "(default 5)")
    p.add_argument("--dry-run", action="store_true",
                   help="validate the spec and print the run matrix without running it")
    p.add_argument("--trace-dir", default=None, metavar="DIR",
                   help="folder that relative trace paths resolve against (default: the "
                        "spec's trace_dir, else the spec's folder)")
    p.add_argument("--keep-jobs", action="store_true",
                   help="also store every run's per-job records (DIR/jobs/RUN.parquet)")
    p.add_argument("--max-runs", type=int, default=None, metavar="N",
                   help="allow a matrix of up to N runs (default 100000; a larger one is "
                        "refused before it is expanded)")
    p.set_defaults(func=cmd_sweep)

    p = sub.add_parser("results", help="table of a results store (filter, group, CSV)")
    p.add_argument("dir", help="results store (the --out of a sweep)")
    p.add_argument("--where", action="extend", nargs="+", metavar="KEY=VALUE",
                   help="keep runs whose column KEY equals VALUE (VALUE may be v1,v2,...); "
                        "several filters must all hold")
    p.add_argument("--group-by", nargs="+", metavar="KEY",
                   help="one row per value of these columns: mean of the metrics, ± 95%% CI "
                        "over replications when a group holds one configuration")
    p.add_argument("--metrics", nargs="+", metavar="METRIC",
                   help="metrics to show (default: the spec's metrics)")
    p.add_argument("--csv", nargs="?", const="-", default=None, metavar="FILE",
                   help="write CSV to FILE (no FILE or '-': standard output) instead of a "
                        "table; without --group-by every column of every run")
    p.add_argument("--versus", default=None, metavar="KEY=BASE,OTHER",
                   help="mean difference OTHER - BASE of the metrics over pairs of runs that "
                        "agree on every other input (the seed included), ± 95%% CI over the "
                        "pairs; rows as with --group-by (default: one over all pairs)")
    p.add_argument("--relative", action="store_true",
                   help="with --versus: OTHER / BASE - 1 instead of OTHER - BASE (shown in %%)")
    p.add_argument("--all", action="store_true",
                   help="include runs that are not in the latest sweep's matrix")
    p.set_defaults(func=cmd_results)

    p = sub.add_parser("report", help="figures and an HTML page of a results store")
    p.add_argument("dir", help="results store (the --out of a sweep)")
    p.add_argument("--out", default=None, metavar="HTMLDIR",
                   help="where to write index.html and figures/ (default: DIR/report)")
    p.add_argument("--gantt", default=None, metavar="RUN",
                   help="also the Gantt chart of run RUN of the store (its run id, or a "
                        "unique prefix: the run_id column of `ckptsim results DIR --csv -`), "
                        "simulated again to record its nodes")
    p.set_defaults(func=cmd_report)
