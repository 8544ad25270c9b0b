"""Where the CPU time of one `ckptsim run` goes, phase by phase, without a profiler.

    python benchmarks/run_phases.py TRACE [--scheduler easy] [--first N] [--repeat 3] [--src DIR]
        [--no-record]

Runs, in a fresh process per repeat, the steps of `ckptsim run --workload TRACE --scheduler S
--out TMP` one after another and prints the process CPU seconds of each (best of --repeat):
imports, reading the trace, building the jobs, the event loop, freezing the records, metrics
(summary and daily series), writing jobs.csv, summary.json, schedule.swf and (sources that
record them, as `--out` does) allocations.csv and out_jobs.csv, with the peak
resident memory reached by the end of each and its minor page faults (first touches of memory
the process got from the system, a large part of the system time).  The sum is close
to the whole command's CPU time (interpreter start-up is not included).  `--no-record`: the run
without the allocation recorder (as `ckptsim.simulate` runs it, without `--out`'s
allocations.csv and out_jobs.csv), to see what recording costs the event loop.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"


def phases(trace: str, scheduler: str, first: int | None, out: Path,
           record: bool = True) -> dict[str, float]:
    """One run in this process: CPU seconds per phase."""
    import resource

    clock = time.process_time
    times: dict[str, float] = {}
    faults = [resource.getrusage(resource.RUSAGE_SELF).ru_minflt]
    t = clock()

    def lap(name: str) -> None:
        nonlocal t
        now = clock()
        times[name] = times.get(name, 0.0) + now - t
        usage = resource.getrusage(resource.RUSAGE_SELF)
        times["peak MB after " + name] = usage.ru_maxrss / 1024
        times["faults " + name] = usage.ru_minflt - faults[0]
        faults[0] = usage.ru_minflt
        t = now

    import gc

    from ckptsim.engine.simulator import Simulator
    from ckptsim.metrics.core import daily_series, summary
    from ckptsim.policies.base import scheduler_factory
    from ckptsim.records.io import write_jobs_csv, write_schedule_swf, write_summary_json
    from ckptsim.records.jobs import from_simulation
    from ckptsim.runner import RunResult
    from ckptsim.workload.source import load_workload

    lap("imports")
    w = load_workload(trace, first=first)
    lap("read trace")
    factory = scheduler_factory(scheduler, {})
    w = factory.prepare(w)
    gc.disable()
    log: Any = None
    try:  # the allocations `--out` records (sources from before them: none)
        from ckptsim.records.allocations import AllocationLog, AllocationRecorder
    except ImportError:
        record = False
    if record:
        log = AllocationLog()
        sim = Simulator(w, factory, components=[AllocationRecorder(log)])
    else:
        sim = Simulator(w, factory)
    lap("build jobs")
    sim.run()
    lap("event loop")
    table = from_simulation(sim)
    gc.freeze()
    gc.enable()
    lap("records")
    metrics = summary(table)
    if hasattr(sim, "components"):  # counters of the run's components (none here)
        from ckptsim.engine.components import merge_counters

        merge_counters(sim.components, metrics)
    else:  # sources from before components (--src)
        metrics.update(sim.counters())
    daily = daily_series(table)
    lap("metrics")
    import dataclasses

    result = RunResult(workload=w, scheduler=scheduler,
                       params=dataclasses.asdict(sim.policy.params),
                       options={"machine_size": sim.platform.n_nodes, "overrun": "extend"},
                       table=table, summary=metrics, daily=daily)
    out.mkdir(parents=True, exist_ok=True)
    write_jobs_csv(table, out / "jobs.csv")
    lap("jobs.csv")
    write_summary_json(result.summary_document(), out / "summary.json")
    lap("summary.json")
    write_schedule_swf(w, table, out / "schedule.swf", scheduler=scheduler)
    lap("schedule.swf")
    if log is not None:
        from ckptsim.records.allocations import write_allocations
        from ckptsim.records.batsim_jobs import write_batsim_jobs
        from ckptsim.workload.model import SWF_INDEX

        write_allocations(log, out / "allocations.csv")
        lap("allocations")
        write_batsim_jobs(table, log, out / "out_jobs.csv",
                          requested=w.fields[:, SWF_INDEX["requested_time"]])
        lap("out_jobs.csv")
    return times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--scheduler", default="easy")
    ap.add_argument("--first", type=int, default=None)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--src", type=Path, default=SRC,
                    help="the package sources to run (default: this checkout's src)")
    ap.add_argument("--no-record", action="store_true",
                    help="run without the allocation recorder (no allocations.csv, out_jobs.csv)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        with tempfile.TemporaryDirectory() as tmp:
            print(json.dumps(phases(args.trace, args.scheduler, args.first, Path(tmp),
                                    record=not args.no_record)))
        return 0
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode cached, as an installed package's is
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(args.src), env.get("PYTHONPATH")) if p)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(args.src / "ckptsim")],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    best: dict[str, float] = {}
    peak: dict[str, float] = {}
    faults: dict[str, float] = {}
    cmd = [sys.executable, __file__, args.trace, "--scheduler", args.scheduler, "--child"]
    if args.first:
        cmd += ["--first", str(args.first)]
    if args.no_record:
        cmd.append("--no-record")
    for _ in range(args.repeat):
        res = json.loads(subprocess.run(cmd, env=env, check=True, capture_output=True,
                                        text=True).stdout)
        for k, v in res.items():
            if k.startswith("peak MB after "):
                peak[k[14:]] = max(v, peak.get(k[14:], v))
            elif k.startswith("faults "):
                faults[k[7:]] = v
            else:
                best[k] = min(v, best.get(k, v))
    total = sum(best.values())
    for k, v in best.items():
        print(f"{k:14s} {v:6.2f} s  {100 * v / total:4.0f}%   peak {peak[k]:6.0f} MB  "
              f"{faults[k]:7.0f} page faults")
    print(f"{'total':14s} {total:6.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
