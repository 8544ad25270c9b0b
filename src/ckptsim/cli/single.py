"""Commands on one workload: demo, run, gantt, inspect (`listing` lists what they can use)."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from ckptsim.cli.common import (
    GANTT_IMAGE,
    SIMULATION_FLAGS,
    Progress,
    component_flags,
    component_rows,
    failure_flags,
    flag_names,
    fmt,
    load_workload,
    note,
    output_folder,
    parse_components,
    parse_set,
    print_table,
    write_outputs,
)
from ckptsim.cli.readerlines import loader_line, reader_lines
from ckptsim.errors import ConfigError
from ckptsim.metrics.labels import CHECKPOINT_ROWS, CLASS_ROWS, HTC_ROWS, SUMMARY_ROWS

DEMO_JOBS = 3000  # the built-in workload: see ckptsim.workload.source.BUILTIN
DEMO_SEED = 1
DEMO_MACHINE = 128
PLATFORM_HELP = ("the platform: machine (the trace's homogeneous machine, the default), bgl, "
                 "grid:clusters=4,nodes=100[,link=1e9], newcastle, smallpool, or a platform "
                 "file (.toml, see docs/platforms.md)")


def cmd_run(args: argparse.Namespace) -> int:
    from ckptsim.runner import simulate

    t0 = time.perf_counter()
    params = parse_set(args.set)
    if args.seed < 0:
        raise ConfigError("--seed", f"expected an integer >= 0, got {args.seed}")
    out = output_folder(args.out)
    if out is None and args.out_jobs != "job":
        raise ConfigError("--out-jobs", "shapes out_jobs.csv, a file of --out DIR: give --out")
    # Checked before reading a trace that may take seconds.
    components = parse_components(args.component)
    if args.failures is not None:
        from ckptsim.failures.source import check_failure_spec

        with flag_names(SIMULATION_FLAGS, {"failures.": "--failures "}):
            check_failure_spec(args.failures)
        if "failures" in components:
            raise ConfigError("--failures", "failures are also given with --component "
                                            "failures:...; keep one of them")
    platform = None
    if args.platform is not None:
        from ckptsim.platform.description import load_description

        with flag_names({"platform": "--platform"}):
            platform = load_description(args.platform)
    if args.checkpoint is not None:
        if "checkpoint" in components:
            raise ConfigError("--checkpoint", "also given with --component checkpoint:...; "
                                              "keep one of them")
        from ckptsim.checkpointing.plan import parse_plan

        # Parsed here, once: the plan travels inward as the structured value.
        with flag_names({"checkpoint": "--checkpoint"}, {"checkpoint.": "--checkpoint "}):
            plan = parse_plan(args.checkpoint)
        components["checkpoint"] = {"policy": plan}
    w = load_workload(args)
    if args.alpha is not None and args.alpha > 1:
        note(alpha_note(w, args.alpha, args.overrun))
    recorders: list[Any] = []
    log = None
    if out is not None:
        from ckptsim.records.allocations import AllocationLog, AllocationRecorder

        log = AllocationLog()
        recorders.append(AllocationRecorder(log))
    progress = Progress(f"{args.scheduler}")
    try:
        failure_keys, failure_prefixes = failure_flags(components)
        given = {f"components.{name}": f"--component {name}" for name in components}
        component_keys, component_prefixes = component_flags(components)
        if args.checkpoint is not None:  # the checkpoint component is --checkpoint's
            component_keys["checkpoint"] = "--checkpoint"
            component_prefixes["checkpoint."] = "--checkpoint "
        with flag_names({**SIMULATION_FLAGS, **failure_keys, **given, **component_keys},
                        {f"{args.scheduler}.": "--set ", **component_prefixes,
                         **failure_prefixes}):
            result = simulate(w, args.scheduler, params, machine_size=args.machine_size,
                              overrun=args.overrun, check=args.check, progress=progress,
                              components=components, failures=args.failures,
                              platform=platform, recorders=recorders, seed=args.seed)
    finally:
        progress.close()
    if out is not None:
        write_outputs(result, out, log, per=args.out_jobs)
    wall = time.perf_counter() - t0
    s = result.summary
    shown = list(SUMMARY_ROWS)
    for component in component_rows(result):
        shown += [row for row in component if row[0] in s and row not in shown]
    if s.get("checkpoints"):
        shown += CHECKPOINT_ROWS
    if "arrt" in s:
        shown += CLASS_ROWS
    if "mean_task_overhead" in s:
        shown += HTC_ROWS
    from ckptsim.policies.base import get_scheduler

    policy = get_scheduler(args.scheduler)
    own = policy.rows or tuple((c, c.replace("_", " ")) for c in policy.counter_names)
    shown += [row for row in own if row[0] in s and row not in shown]
    rows = [[label, fmt(s[key])] for key, label in shown]
    print_table(f"{args.scheduler} on {w.source} ({_size_text(w, result)})", ["metric", "value"],
                rows)
    print(f"loader: {loader_line(result.workload)}")
    for line in reader_lines(result.options):
        print(line)
    if result.workload.transforms:
        print(f"workload: {'; '.join(result.workload.transforms)}")
    if result.daily.get("omitted"):
        note(f"no daily series in summary.json: {result.daily['omitted']}")
    print(f"simulated {w.n_jobs} jobs in {result.wall_seconds:.2f} s "
          f"({w.n_jobs / max(result.wall_seconds, 1e-9):,.0f} jobs/s); whole command "
          f"{wall:.2f} s" + (f"; outputs in {args.out}" if args.out else ""))
    return 0


def _size_text(w: Any, result: Any) -> str:
    """Jobs and nodes of the simulated machine, and the trace's own machine when it differs
    (the BG/L schedulers simulate 128 supernodes whatever the trace's size)."""
    simulated = result.options["machine_size"]
    text = f"{result.workload.n_jobs} jobs, {simulated} nodes"
    if w.machine_size != simulated:
        text += f"; the trace's machine has {w.machine_size}"
    return text


def alpha_note(w: Any, alpha: float, overrun: str | None) -> str:
    """What `--alpha` > 1 did to the jobs that requested less time than they ran, and what
    happens to them: under `run`'s `--overrun`, or (None, `convert`) in a run of the file."""
    from ckptsim.workload.transforms import underestimates

    under, clamped = underestimates(w, alpha)
    if overrun is None:
        fate = ("the file holds those estimates (SWF requested time, Batsim walltime): a run "
                "of it lets them run on past their estimates to completion (ckptsim run "
                "--overrun extend, the default) or kills them when their estimate runs out "
                "(--overrun kill)")
    elif overrun == "extend":
        fate = "they run on past their estimates to completion (--overrun extend)"
    else:
        fate = "they are killed when their estimate runs out (--overrun kill)"
    return (f"--alpha {alpha:g} > 1 exaggerates the users' errors: the {under} jobs that "
            f"requested less time than they ran get estimates further below their run time "
            f"({clamped} of them clamped to 0 s); {fate}")


def cmd_gantt(args: argparse.Namespace) -> int:
    from ckptsim.plots.gantt import parse_node_range, plot_gantt

    nodes = parse_node_range(args.nodes) if args.nodes is not None else None
    path = args.out if args.out is not None else str(Path(args.dir) / GANTT_IMAGE)
    with flag_names({"path": "--out"}):
        drawn = plot_gantt(args.dir, path, start=args.start, end=args.end, nodes=nodes,
                           color=args.color)
    attempts = f"{drawn.attempts} attempt" + ("s" if drawn.attempts != 1 else "")
    boxes = f"{drawn.boxes} box" + ("es" if drawn.boxes != 1 else "")
    print(f"{attempts} drawn ({boxes}, one per run of consecutive nodes) in {path}")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from ckptsim.runner import simulate
    from ckptsim.workload.lublin import generate_lublin

    if args.jobs < 1:
        raise ConfigError("--jobs", f"expected a number of jobs >= 1, got {args.jobs}")
    out = output_folder(args.out)
    with flag_names({"n_jobs": "--jobs", "machine_size": "--machine-size", "seed": "--seed"}):
        w = generate_lublin(args.jobs, machine_size=args.machine_size, seed=args.seed)
    platform = None
    if args.platform is not None:
        from ckptsim.platform.description import load_description

        with flag_names({"platform": "--platform"}):
            platform = load_description(args.platform)
    results = {}
    for name in ("fcfs", "easy", "conservative"):
        with flag_names({"platform": "--platform", "machine_size": "--machine-size"}):
            results[name] = simulate(w, name, check=args.check, platform=platform)
        if out is not None:
            write_outputs(results[name], out / name)
    rows = [[label] + [fmt(results[n].summary[key]) for n in results]
            for key, label in SUMMARY_ROWS]
    print_table(f"Built-in workload: Lublin-Feitelson model, {w.n_jobs} jobs, "
                f"{w.machine_size} nodes, seed {args.seed}", ["metric", *results], rows)
    if args.out:
        print(f"per-job records and summaries in {args.out}/<scheduler>/")
    return 0


def cmd_inspect(args: argparse.Namespace) -> int:
    from ckptsim.workload.stats import trace_statistics

    if args.plot:
        from ckptsim.plots.trace import check_image_path

        with flag_names({"path": "--plot"}):
            check_image_path(args.plot)
    args.workload = args.path  # anything --workload takes
    w = load_workload(args)
    stats = trace_statistics(w)
    rows = [[k, fmt(v)] for k, v in stats.items() if not isinstance(v, (list, dict))]
    print_table(f"{args.path}", ["statistic", "value"], rows)
    hist = stats["ratio_histogram"]
    rows = [[f"{lo:.1f}-{hi:.1f}" if hi != float("inf") else f">{lo:.1f}",
             f"{frac * 100:.1f}%"] for lo, hi, frac in zip(hist["low"], hist["high"],
                                                            hist["fraction"], strict=True)]
    print_table("runtime / estimate (seed 000 Fig. 2)", ["ratio", "jobs"], rows)
    print(f"loader: {loader_line(w)}")
    if args.plot:
        from ckptsim.plots.trace import plot_runtime_estimate_ratio

        plot_runtime_estimate_ratio({Path(args.path).name: w}, args.plot)
        print(f"plot written to {args.plot}")
    return 0


def add_transform_options(p: argparse.ArgumentParser) -> None:
    """--alpha, --load-scale, --first and --window: run's transforms of a workload (convert
    takes them too)."""
    p.add_argument("--alpha", type=float, default=None, metavar="A",
                   help="estimate interpolation: estimate = runtime + A (requested - "
                        "runtime) (default: the trace's estimates as they are)")
    p.add_argument("--load-scale", type=float, default=None, metavar="C",
                   help="multiply runtimes and estimates by C > 0 (default: unscaled)")
    p.add_argument("--first", type=int, default=None, metavar="N",
                   help="keep only the first N jobs (default: all)")
    p.add_argument("--window", type=float, nargs=2, metavar=("START", "END"), default=None,
                   help="keep jobs submitted in [START, END) seconds (default: all)")


def _add_workload_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--machine-size", type=int, default=None, metavar="N",
                   help="nodes of the simulated machine (default: the trace's MaxProcs, "
                        "else MaxNodes; a Batsim file's nb_res; a generator's machine)")
    p.add_argument("--oversize", choices=("skip", "clamp"), default="skip",
                   help="jobs larger than the machine (a trace's, or a generator's with "
                        "--machine-size): skip them (default) or clamp their size")
    p.add_argument("--size-from", choices=("requested", "allocated"), default=None,
                   help="an SWF trace's job sizes: from requested processors (default; "
                        "allocated when -1) or allocated processors")
    p.add_argument("--skip-bad-lines", action="store_true",
                   help="skip an SWF trace's malformed lines (counted) instead of stopping "
                        "(default: stop at the first)")


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("demo", help="run the built-in workload under fcfs, easy and "
                                    "conservative and compare them")
    p.add_argument("--jobs", type=int, default=DEMO_JOBS, help="number of jobs (default "
                                                                f"{DEMO_JOBS})")
    p.add_argument("--seed", type=int, default=DEMO_SEED,
                   help=f"random seed of the generated workload (default {DEMO_SEED})")
    p.add_argument("--machine-size", type=int, default=DEMO_MACHINE,
                   help=f"nodes of the machine (default {DEMO_MACHINE})")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="write each scheduler's outputs under DIR (default: none written)")
    p.add_argument("--check", action="store_true",
                   help="run the invariant checker after every event (slower; default off)")
    p.add_argument("--platform", default=None, metavar="NAME|FILE", help=PLATFORM_HELP)
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("run", help="simulate one workload under one scheduler")
    p.add_argument("--workload", required=True,
                   help="an SWF trace (.swf or .swf.gz), 'builtin', "
                        "'lublin:n=N,seed=S,machine=P,typed=false,estimates=tsafrir', "
                        "'grid:n=N,ppbw=300,error=0.5,info=1.0,load=0.7,seed=S' (docs/grid.md) "
                        "or 'htc:days=D,seed=S,...' (a desktop pool's HTC jobs, "
                        "docs/pool.md); required")
    p.add_argument("--scheduler", default="easy", metavar="NAME",
                   help="scheduler: fcfs, easy (default), conservative, ckpt-backfill, htc, "
                        "bgl-fcfs, bgl-balancing, bgl-tiebreak, scojo-pect, coalloc (`ckptsim "
                        "schedulers` lists them with their parameters), or a plug-in: "
                        "FILE.py:CLASS or MODULE:CLASS (docs/plugins.md)")
    p.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="scheduler parameter (repeatable; default: the scheduler's own)")
    add_transform_options(p)
    p.add_argument("--overrun", choices=("extend", "kill"), default="extend",
                   help="jobs running past their estimate: extend (default: run to "
                        "completion) or kill (at start + estimate)")
    p.add_argument("--check", action="store_true",
                   help="run the invariant checker after every event (slower; default off)")
    p.add_argument("--failures", default=None, metavar="KIND:OPTIONS",
                   help="node failures: lanl:path=FILE,system=20[,count=4000][,map=modulo|"
                        "random][,transient=true], fta:path=..., or synthetic:mtbf=S[,dist="
                        "weibull|exponential][,shape=0.7][,repair_mean=S] (the failures "
                        "component; default: none)")
    p.add_argument("--checkpoint", default=None, metavar="POLICY:OPTIONS",
                   help="checkpoints of every job: an interval policy (none, fixed:interval=S,"
                        "cost=S, young:cost=S[,mtbf=S], daly, ratio, startdelay, geometric, "
                        "minuteinhour, multi) with cost=S or bandwidth=GB/s[,memory=GB,"
                        "constant=S] and restart=S, plus skip (closedcluster, interarrival) "
                        "and proactive (scheduled, clusteropening) policies joined by +, e.g. "
                        "fixed:interval=1800,cost=60+closedcluster+scheduled; or opt (the "
                        "checkpoint component; see docs/energy.md; default: none)")
    p.add_argument("--component", action="append", metavar="NAME:KEY=VALUE,...",
                   help="a component of the run with its parameters (repeatable; see "
                        "`ckptsim components`; default: none)")
    p.add_argument("--platform", default=None, metavar="NAME|FILE", help=PLATFORM_HELP)
    p.add_argument("--out", default=None, metavar="DIR",
                   help="write DIR/jobs.csv, DIR/summary.json, DIR/schedule.swf, "
                        "DIR/allocations.csv, DIR/out_jobs.csv (Batsim's format) and, when "
                        "nodes left service, DIR/unavailability.csv (default: only the table "
                        "is printed)")
    p.add_argument("--seed", type=int, default=0, metavar="S",
                   help="the run's seed: what the run's components and policies draw at random "
                        "when their own options name no seed (owners' sessions, reboot times, "
                        "a failure source's node mapping or synthetic failures, power draws, "
                        "htc's random placement); a sweep passes each replication's seed, so "
                        "--seed S with the generator's seed=S reruns replication S (default 0)")
    p.add_argument("--out-jobs", default="job", choices=("job", "attempt"),
                   help="out_jobs.csv with a row per job (its first start to its end, on its "
                        "last nodes; default) or per attempt (ID#K, each on its own nodes: "
                        "what evalys needs to count node time exactly when jobs ran more than "
                        "once)")
    _add_workload_options(p)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("gantt", help="the Gantt chart of a run written with --out")
    p.add_argument("dir", metavar="DIR", help="a run's --out folder (its allocations.csv)")
    p.add_argument("--out", default=None, metavar="FILE.png|.svg",
                   help="the image to write (default: DIR/gantt.png, which the next run "
                        "into DIR removes)")
    p.add_argument("--from", dest="start", type=float, default=None, metavar="T",
                   help="window start, s (default: the first attempt's start)")
    p.add_argument("--to", dest="end", type=float, default=None, metavar="T",
                   help="window end, s (default: the last attempt's end)")
    p.add_argument("--nodes", default=None, metavar="A-B",
                   help="draw only nodes A to B (default: all)")
    p.add_argument("--color", choices=("job", "ended"), default="job",
                   help="colour boxes by job (default) or by how the attempt ended, with a "
                        "legend")
    p.set_defaults(func=cmd_gantt)

    p = sub.add_parser("inspect", help="statistics of a workload: an SWF trace, a Batsim JSON "
                                       "workload or a generator")
    p.add_argument("path", help="what --workload takes: an SWF trace (.swf or .swf.gz), a "
                                "Batsim JSON workload (.json), builtin or a generator string "
                                "(lublin:..., grid:..., htc:...)")
    p.add_argument("--plot", default=None, metavar="FILE.png",
                   help="draw the runtime / estimate distribution into FILE.png (default: "
                        "no plot)")
    _add_workload_options(p)
    add_transform_options(p)
    p.set_defaults(func=cmd_inspect)
