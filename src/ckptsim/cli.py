"""The command line: the only place that prints or exits."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ckptsim import __version__
from ckptsim.errors import CkptsimError, ConfigError

DEMO_JOBS = 3000  # the built-in workload: see ckptsim.workload.source.BUILTIN
DEMO_SEED = 1
DEMO_MACHINE = 128
PROGRESS_AFTER = 2.0  # seconds before a progress bar appears


# ----------------------------------------------------------------------------- helpers
def parse_set(items: Sequence[str] | None) -> dict[str, str]:
    """`--set key=value` options into a dict (values converted by the policy's types)."""
    out: dict[str, str] = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError("--set", f"expected key=value, got {item!r}")
        out[key.strip()] = value.strip()
    return out


def load_workload(args: argparse.Namespace) -> Any:
    """The workload named on the command line, with the requested transforms applied."""
    from ckptsim.workload.source import load_workload as load

    try:
        return load(args.workload, machine_size=args.machine_size, oversize=args.oversize,
                    size_from=args.size_from, skip_bad_lines=args.skip_bad_lines,
                    window=args.window, first=args.first, alpha=args.alpha,
                    load_scale=args.load_scale)
    except ConfigError as exc:
        if exc.key.startswith("lublin.") or exc.key == "workload":
            raise ConfigError(f"--workload {exc.key}", str(exc).partition(": ")[2]) from None
        raise


class _Progress:
    """A progress bar that appears only when a run lasts more than a couple of seconds."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.t0 = time.perf_counter()
        self.bar: Any = None
        self.task: Any = None

    def __call__(self, done: int, total: int, now: float) -> None:
        if self.bar is None:
            if time.perf_counter() - self.t0 < PROGRESS_AFTER or not sys.stderr.isatty():
                return
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeRemainingColumn,
            )

            self.bar = Progress(TextColumn(self.label), BarColumn(), MofNCompleteColumn(),
                                TimeRemainingColumn(), transient=True)
            self.bar.start()
            self.task = self.bar.add_task(self.label, total=total)
        self.bar.update(self.task, completed=done)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        if value != value:
            return "-"
        if abs(value) >= 1e5:
            return f"{value:,.0f}"
        return f"{value:.4g}" if abs(value) < 10 else f"{value:,.1f}"
    return str(value)


SUMMARY_ROWS = (
    ("jobs", "jobs"), ("jobs_killed", "jobs killed"), ("mean_wait", "mean wait (s)"),
    ("max_wait", "max wait (s)"), ("mean_response", "mean response (s)"),
    ("mean_bsld", "mean bounded slowdown"), ("mean_queue_length", "mean queue length"),
    ("utilization", "utilisation"), ("makespan", "makespan (s)"),
    ("backfill_ratio", "backfill ratio"),
)


def print_table(title: str, columns: list[str], rows: list[list[str]]) -> None:
    from rich.console import Console
    from rich.table import Table

    # On a terminal the table fits its width; into a pipe or a file it is as wide as it needs
    # (rich would otherwise cut it to 80 columns).
    console = Console() if sys.stdout.isatty() else Console(width=10_000)
    table = Table(title=title)
    for i, c in enumerate(columns):
        table.add_column(c, justify="left" if i == 0 else "right")
    for r in rows:
        table.add_row(*r)
    console.print(table)


def write_outputs(result: Any, out: Path) -> None:
    from ckptsim.records.io import write_jobs_csv, write_schedule_swf, write_summary_json

    out.mkdir(parents=True, exist_ok=True)
    write_jobs_csv(result.table, out / "jobs.csv")
    write_summary_json(result.summary_document(), out / "summary.json")
    write_schedule_swf(result.workload, result.table, out / "schedule.swf",
                       scheduler=result.scheduler)


def _loader_line(w: Any) -> str:
    skipped = {k: v for k, v in sorted(w.counts.items())
               if v and (k.startswith("skipped") or k.endswith("missing")
                         or k in ("unsorted_submits", "clamped_too_large"))}
    return ", ".join(f"{k}={v}" for k, v in skipped.items()) or "no records dropped or changed"


# ----------------------------------------------------------------------------- commands
def cmd_run(args: argparse.Namespace) -> int:
    from ckptsim.runner import simulate

    t0 = time.perf_counter()
    w = load_workload(args)
    params = parse_set(args.set)
    progress = _Progress(f"{args.scheduler}")
    try:
        result = simulate(w, args.scheduler, params, machine_size=args.machine_size,
                          overrun=args.overrun, check=args.check, progress=progress,
                          failures=args.failures)
    finally:
        progress.close()
    if args.out:
        write_outputs(result, Path(args.out))
    wall = time.perf_counter() - t0
    s = result.summary
    shown = list(SUMMARY_ROWS)
    if "failures" in s:
        shown += [("failures", "failures"), ("failures_hitting_jobs", "failures hitting jobs"),
                  ("jobs_killed_by_failures", "jobs killed by failures"),
                  ("lost_ratio", "capacity lost to failures")]
    if s.get("checkpoints"):
        shown += [("preempt_ratio", "preempt ratio"), ("checkpoints", "checkpoints"),
                  ("wasted_ratio", "wasted ratio")]
    rows = [[label, _fmt(s[key])] for key, label in shown]
    print_table(f"{args.scheduler} on {w.source} ({w.n_jobs} jobs, {w.machine_size} nodes)",
                ["metric", "value"], rows)
    print(f"loader: {_loader_line(w)}")
    print(f"simulated {w.n_jobs} jobs in {result.wall_seconds:.2f} s "
          f"({w.n_jobs / max(result.wall_seconds, 1e-9):,.0f} jobs/s); whole command "
          f"{wall:.2f} s" + (f"; outputs in {args.out}" if args.out else ""))
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from ckptsim.runner import simulate
    from ckptsim.workload.lublin import generate_lublin

    w = generate_lublin(args.jobs, machine_size=args.machine_size, seed=args.seed)
    results = {}
    for name in ("fcfs", "easy", "conservative"):
        results[name] = simulate(w, name, check=args.check)
        if args.out:
            write_outputs(results[name], Path(args.out) / name)
    rows = [[label] + [_fmt(results[n].summary[key]) for n in results]
            for key, label in SUMMARY_ROWS]
    print_table(f"Built-in workload: Lublin-Feitelson model, {w.n_jobs} jobs, "
                f"{w.machine_size} nodes, seed {args.seed}", ["metric", *results], rows)
    if args.out:
        print(f"per-job records and summaries in {args.out}/<scheduler>/")
    return 0


def cmd_inspect(args: argparse.Namespace) -> int:
    from ckptsim.workload.stats import trace_statistics
    from ckptsim.workload.swf import read_swf

    w = read_swf(args.path, machine_size=args.machine_size, oversize=args.oversize,
                 skip_bad_lines=args.skip_bad_lines, size_from=args.size_from)
    stats = trace_statistics(w)
    rows = [[k, _fmt(v)] for k, v in stats.items() if not isinstance(v, (list, dict))]
    print_table(f"{args.path}", ["statistic", "value"], rows)
    hist = stats["ratio_histogram"]
    rows = [[f"{lo:.1f}-{hi:.1f}" if hi != float("inf") else f">{lo:.1f}",
             f"{frac * 100:.1f}%"] for lo, hi, frac in zip(hist["low"], hist["high"],
                                                            hist["fraction"], strict=True)]
    print_table("runtime / estimate (seed 000 Fig. 2)", ["ratio", "jobs"], rows)
    print(f"loader: {_loader_line(w)}")
    if args.plot:
        from ckptsim.plots.trace import plot_runtime_estimate_ratio

        plot_runtime_estimate_ratio({Path(args.path).name: w}, args.plot)
        print(f"plot written to {args.plot}")
    return 0


def cmd_schedulers(args: argparse.Namespace) -> int:
    import dataclasses

    from ckptsim.policies.base import describe_range, get_scheduler, scheduler_names

    for name in scheduler_names():
        cls = get_scheduler(name)
        print(f"{name}: {cls.description}")
        for f in dataclasses.fields(cls.Params):
            print(f"    {f.name} = {f.default!r}  ({describe_range(f.metadata)}) "
                  f"{f.metadata.get('help', '')}")
    return 0


# ----------------------------------------------------------------------------- campaigns
def _describe_runs(runs: Any, inputs: list[str]) -> tuple[list[str], list[list[str]]]:
    from ckptsim.experiments.columns import short_names
    from ckptsim.experiments.results import shown_inputs

    shown = shown_inputs([r.columns for r in runs], inputs)
    labels = short_names([*shown, *inputs])[:len(shown)]
    rows = [[str(i + 1), r.run_id[:12], *[_fmt(r.columns.get(c)) for c in shown],
             str(r.seed)] for i, r in enumerate(runs)]
    return ["#", "run", *labels, "seed"], rows


def cmd_sweep(args: argparse.Namespace) -> int:
    from ckptsim.experiments.execute import make_executor
    from ckptsim.experiments.sweep import manifest, plan_sweep, run_sweep

    if not args.dry_run and not args.out:
        raise ConfigError("--out", "a sweep needs a results folder: --out DIR (or --dry-run)")
    if args.jobs is not None and args.jobs < 0:
        raise ConfigError("--jobs", f"expected a number of processes >= 0, got {args.jobs}")
    plan = plan_sweep(args.spec, args.out, trace_dir=args.trace_dir, keep_jobs=args.keep_jobs)
    spec = plan.spec
    shape = (f"{len(spec.workloads)} workload(s), {len(spec.schedulers)} scheduler "
             f"entr{'y' if len(spec.schedulers) == 1 else 'ies'}, {len(spec.seeds)} seed(s)")
    for path, why in plan.corrupt:
        print(f"ckptsim: damaged run file {path} ({why}): its run is run again",
              file=sys.stderr)
    if args.dry_run:
        inputs = manifest(spec, plan.runs)["inputs"]
        columns, rows = _describe_runs(plan.runs, inputs)
        print_table(f"Run matrix of {spec.name}", columns, rows)
        status = (f"; in {args.out}: {plan.done} finished, {len(plan.todo)} to run"
                  if args.out else "")
        print(f"{len(plan.runs)} runs ({shape}){status}")
        return 0
    executor = make_executor(args.jobs, args.dask)
    where = (f"a Dask LocalCluster of {executor.workers} workers" if args.dask == "local" else
             f"the Dask scheduler at {args.dask}" if args.dask else
             "this process" if args.jobs == 0 else f"{executor.workers} local processes")
    print(f"{spec.name}: {len(plan.runs)} runs ({shape}); {plan.done} already in {args.out}, "
          f"{len(plan.todo)} to run on {where}", file=sys.stderr)
    bar = _SweepProgress(len(plan.runs), plan.done)
    try:
        result = run_sweep(plan, args.out, executor, on_row=bar.update)
    except KeyboardInterrupt:
        bar.close()
        print(f"ckptsim: interrupted after {bar.count} runs; the store keeps every finished "
              "run: run the same command to resume", file=sys.stderr)
        return 130
    finally:
        bar.close()
    for row in result.failures[:10]:
        print(f"failed: {row['run_id'][:12]} {row.get('workload')} x {row.get('scheduler')} "
              f"seed={row.get('seed')}: {row.get('error_message')}", file=sys.stderr)
    if len(result.failures) > 10:
        print(f"... and {len(result.failures) - 10} more failures (ckptsim results "
              f"{args.out} --where status=failed)", file=sys.stderr)
    ran = result.ok + result.failed
    rate = f" ({ran / result.seconds:.1f} runs/s)" if result.seconds > 0 and ran else ""
    print(f"{result.ok} succeeded, {result.failed} failed, {result.skipped} already done; "
          f"{ran} runs in {result.seconds:.1f} s{rate}; results in {args.out}")
    return 1 if result.failed else 0


class _SweepProgress:
    """Runs done / total, failures and an ETA, on stderr when it is a terminal."""

    def __init__(self, total: int, done: int) -> None:
        self.bar: Any = None
        self.failed = 0
        self.count = 0
        if not sys.stderr.isatty() or total == done:
            return
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.bar = Progress(TextColumn("runs"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("[red]{task.fields[failed]} failed"),
                            TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                            console=Console(stderr=True), transient=True)
        self.bar.start()
        self.task = self.bar.add_task("runs", total=total, completed=done, failed=0)

    def update(self, row: dict[str, Any]) -> None:
        self.count += 1
        if row.get("status") != "ok":
            self.failed += 1
        if self.bar is not None:
            self.bar.update(self.task, advance=1, failed=self.failed)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


def cmd_results(args: argparse.Namespace) -> int:
    from ckptsim.experiments import results as res
    from ckptsim.experiments.columns import short_names
    from ckptsim.experiments.spec import DEFAULT_METRICS
    from ckptsim.experiments.store import load_results

    rows, manifest = load_results(args.dir, all_runs=args.all)
    columns = res.all_columns(rows) or list(manifest.get("inputs", []))
    where = res.parse_where(args.where, columns)
    rows = res.filter_rows(rows, where)
    by = res.resolve_columns("--group-by", args.group_by, columns)
    metrics = (res.resolve_columns("--metrics", args.metrics, columns) if args.metrics
               else [m for m in manifest.get("metrics", DEFAULT_METRICS) if m in columns])
    if by:
        table = res.group(rows, by, metrics)
        shown = [*by, "runs", "failed"] + [c for m in metrics for c in (m, f"{m}_ci95")]
    else:
        inputs = [c for c in manifest.get("inputs", []) if c in columns]
        shown, table = res.run_rows(rows, inputs, metrics)
    if args.csv is not None:
        export = shown if by else res.export_columns(rows)
        text = res.to_csv(export, table if by else rows)
        if args.csv == "-":
            sys.stdout.write(text)
        else:
            Path(args.csv).write_text(text, encoding="utf-8")
            print(f"{len(table if by else rows)} rows written to {args.csv}")
        return 0
    if by:
        labels = short_names([*by, *columns])[:len(by)] + ["runs", "failed", *metrics]
        body = [[_fmt(g[c]) for c in by] + [str(g["runs"]), str(g["failed"])]
                + [_pm(g[m], g[f"{m}_ci95"]) for m in metrics] for g in table]
    else:
        labels = short_names([*shown, *columns])[:len(shown)]
        body = [[_fmt(r[c]) for c in shown] for r in table]
    title = f"{manifest.get('experiment', args.dir)}: {len(rows)} runs"
    if by:
        title += " (mean ± 95% CI over replications)"
    print_table(title, labels, body)
    return 0


def _pm(mean: float, half: float) -> str:
    if mean != mean:
        return "-"
    return _fmt(mean) if half != half else f"{_fmt(mean)} ± {_fmt(half)}"


def cmd_report(args: argparse.Namespace) -> int:
    from ckptsim.experiments.report import make_report

    report = make_report(args.dir, args.out)
    for note in report.notes:
        print(f"ckptsim: {note}", file=sys.stderr)
    print(f"{len(report.figures) // 2} figure(s) (PNG and SVG) and the page {report.html}")
    return 0


def cmd_paper(args: argparse.Namespace) -> int:
    if args.paper == "oliner":
        return _paper_oliner(args)
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
        replications=args.replications, jobs=args.jobs)
    t0 = time.perf_counter()
    bar = _SweepProgress(oliner.runs_of(args.figure, opt), 0)
    try:
        outputs = oliner.run_figures(args.figure, args.out, opt, on_row=bar.update)
    finally:
        bar.close()
    for out in outputs:
        print(f"{out.csv.stem}: {out.csv} and {out.png} ({len(out.rows)} rows)")
    print(f"{bar.count} runs simulated in {time.perf_counter() - t0:.1f} s; the others were "
          f"already in {Path(args.out) / 'store'}")
    return 0


# ----------------------------------------------------------------------------- parser
def _add_workload_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--machine-size", type=int, default=None,
                   help="nodes of the simulated machine (default: the trace's MaxProcs, "
                        "else MaxNodes)")
    p.add_argument("--oversize", choices=("skip", "clamp"), default="skip",
                   help="jobs larger than the machine: skip them (default) or clamp their size")
    p.add_argument("--size-from", choices=("requested", "allocated"), default="requested",
                   help="job size from requested processors (default; allocated when -1) or "
                        "allocated processors")
    p.add_argument("--skip-bad-lines", action="store_true",
                   help="skip malformed trace lines (counted) instead of stopping")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ckptsim", description="Simulate parallel job scheduling with checkpointing, "
                                    "preemption, migration, failures and energy.")
    parser.add_argument("--version", action="version", version=f"ckptsim {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("demo", help="run the built-in workload under fcfs, easy and "
                                    "conservative and compare them")
    p.add_argument("--jobs", type=int, default=DEMO_JOBS, help="number of jobs (default "
                                                                f"{DEMO_JOBS})")
    p.add_argument("--seed", type=int, default=DEMO_SEED, help="random seed")
    p.add_argument("--machine-size", type=int, default=DEMO_MACHINE, help="nodes")
    p.add_argument("--out", default=None, help="write each scheduler's outputs under DIR")
    p.add_argument("--check", action="store_true", help="run the invariant checker")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("run", help="simulate one workload under one scheduler")
    p.add_argument("--workload", required=True,
                   help="an SWF trace (.swf or .swf.gz), 'builtin', or "
                        "'lublin:n=N,seed=S,machine=P,typed=false,estimates=tsafrir'")
    p.add_argument("--scheduler", default="easy", help="scheduler name (see `ckptsim "
                                                        "schedulers`)")
    p.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="scheduler parameter (repeatable)")
    p.add_argument("--alpha", type=float, default=None,
                   help="estimate interpolation: estimate = runtime + alpha (requested - "
                        "runtime)")
    p.add_argument("--load-scale", type=float, default=None,
                   help="multiply runtimes and estimates by C")
    p.add_argument("--first", type=int, default=None, help="keep only the first N jobs")
    p.add_argument("--window", type=float, nargs=2, metavar=("START", "END"), default=None,
                   help="keep jobs submitted in [START, END) seconds")
    p.add_argument("--overrun", choices=("extend", "kill"), default="extend",
                   help="jobs running past their estimate: run to completion (default) or "
                        "kill at start + estimate")
    p.add_argument("--check", action="store_true", help="run the invariant checker")
    p.add_argument("--failures", default=None, metavar="KIND:OPTIONS",
                   help="node failures: lanl:path=FILE,system=20[,count=4000][,map=modulo|"
                        "random][,transient=true], fta:path=..., or synthetic:mtbf=S[,dist="
                        "weibull|exponential][,shape=0.7][,repair_mean=S]")
    p.add_argument("--out", default=None, help="write jobs.csv, summary.json, schedule.swf")
    _add_workload_options(p)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("inspect", help="statistics of an SWF trace")
    p.add_argument("path")
    p.add_argument("--plot", default=None, metavar="FILE.png",
                   help="draw the runtime / estimate distribution")
    _add_workload_options(p)
    p.set_defaults(func=cmd_inspect)

    p = sub.add_parser("sweep", help="run every run of an experiment spec (resumable)")
    p.add_argument("spec", help="experiment spec (TOML); see docs/experiments.md")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="results store; an existing one is resumed (finished runs skipped)")
    p.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="local worker processes (default: all cores; 0: in this process)")
    p.add_argument("--dask", default=None, metavar="ADDRESS",
                   help="run on the Dask scheduler at ADDRESS (e.g. tcp://host:8786), or "
                        "'local' for a LocalCluster of --jobs workers")
    p.add_argument("--dry-run", action="store_true",
                   help="validate the spec and print the run matrix without running it")
    p.add_argument("--trace-dir", default=None, metavar="DIR",
                   help="folder that relative trace paths resolve against (default: the "
                        "spec's trace_dir, else the spec's folder)")
    p.add_argument("--keep-jobs", action="store_true",
                   help="also store every run's per-job records (DIR/jobs/RUN.parquet)")
    p.set_defaults(func=cmd_sweep)

    p = sub.add_parser("results", help="table of a results store (filter, group, CSV)")
    p.add_argument("dir", help="results store (the --out of a sweep)")
    p.add_argument("--where", action="extend", nargs="+", metavar="KEY=VALUE",
                   help="keep runs whose column KEY equals VALUE (VALUE may be v1,v2,...); "
                        "several filters must all hold")
    p.add_argument("--group-by", nargs="+", metavar="KEY",
                   help="one row per value of these columns: mean ± 95%% CI of the metrics")
    p.add_argument("--metrics", nargs="+", metavar="METRIC",
                   help="metrics to show (default: the spec's metrics)")
    p.add_argument("--csv", nargs="?", const="-", default=None, metavar="FILE",
                   help="write CSV to FILE (no FILE or '-': standard output) instead of a "
                        "table; without --group-by every column of every run")
    p.add_argument("--all", action="store_true",
                   help="include runs that are not in the latest sweep's matrix")
    p.set_defaults(func=cmd_results)

    p = sub.add_parser("report", help="figures and an HTML page of a results store")
    p.add_argument("dir", help="results store (the --out of a sweep)")
    p.add_argument("--out", default=None, metavar="HTMLDIR",
                   help="where to write index.html and figures/ (default: DIR/report)")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("paper", help="reproduce a seed paper's figure (CSV + PNG)")
    p.add_argument("paper", choices=("niu", "oliner"),
                   help="niu: seed 000, checkpoint-based backfilling; oliner: seed 004, "
                        "fault-aware BG/L scheduling")
    p.add_argument("figure", help="niu: fig2 fig4 fig5 fig6 fig7 all; oliner: fig3 ... fig10, "
                                  "a family (failures = figs 3-5, balancing = 6-8, tiebreak = "
                                  "9-10) or all")
    p.add_argument("--out", required=True, help="output folder (figN.csv, figN.png, the sweep)")
    p.add_argument("--trace-dir", default="../shared/data/traces",
                   help="folder holding the PWA traces (default ../shared/data/traces)")
    p.add_argument("--traces", nargs="+", default=None,
                   help="trace names (niu default: SDSC-BLUE CTC-SP2 HPC2N SDSC-SP2 KTH-SP2; "
                        "oliner default: SDSC NASA LUBLIN-256)")
    p.add_argument("--first", type=int, default=None, help="only the first N jobs of each trace")
    p.add_argument("--jobs", type=int, default=None, help="processes (default: all cores)")
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
    g.add_argument("--replications", type=int, default=1,
                   help="seeds per point (each thins the failure log differently); figures "
                        "show the mean")
    p.set_defaults(func=cmd_paper)

    p = sub.add_parser("schedulers", help="list schedulers and their parameters")
    p.set_defaults(func=cmd_schedulers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except CkptsimError as exc:
        print(f"ckptsim: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("ckptsim: interrupted", file=sys.stderr)
        return 130
