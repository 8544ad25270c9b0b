"""Pool model benchmark: generating a year of the default pool's inputs, or simulating it.

    python benchmarks/bench_pool.py [--repeat 3] [--days 365]
    python benchmarks/bench_pool.py --simulate [--repeat 1] [--days 365] [--no-power]
    python benchmarks/bench_pool.py --simulate --full [--seed 1] [--minimal TRACE]

Each round runs, in a fresh process, the user-session generator on the shipped `newcastle`
pool (1,359 computers in 35 clusters) and the HTC submission generator, for `--days` days,
with seeds 1, 2, 3... (one per round).  It prints per round the sessions and jobs generated,
the CPU seconds of each part (measured in the child), and the child's whole-process CPU
seconds (user + sys, os.wait4) and peak resident memory.

With `--simulate` each round is instead the whole `ckptsim run` command of seed 003's
experiments on the pool, in a fresh process:

    ckptsim run --workload htc:days=D,seed=S --platform newcastle --scheduler fcfs
        --component availability:owners=model,reboot=05:00
        --checkpoint fixed:interval=3600,cost=120 --component power:idle_timeout=900
        --out TMP

(the energy meter is on by itself: newcastle has power tables; `--no-power` leaves out the
power manager).  It prints the events and jobs per CPU second of `simulate` (the owners'
sessions it generates, the simulation, its records and metrics; not the HTC workload), the
whole process's CPU seconds and wall seconds, and its peak resident memory.

With `--simulate --full` each round is seed 003's whole set-up instead (docs/performance.md):

    ckptsim run --workload htc:days=D,seed=S --platform newcastle --scheduler htc
        --component availability:owners=model,reboot=03:00-05:00,lead=600,days=D+3
        --component energy:htc=true,owners=active --component power:idle_timeout=900
        --component bound:limit=86400 --checkpoint fixed:interval=3600,cost=60 --out TMP

and, with `--minimal TRACE` (an SWF trace, e.g. HPC2N-2002-2.2-cln.swf.gz), each round also
runs the minimal EASY loop `benchmarks/minimal_easy.py` on TRACE right after it, in a fresh
process, and prints the pool's whole-process CPU over the loop's (the best of the rounds of
each: the machine may be shared).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

CHILD = """
import sys, time, tomllib
from ckptsim.platform.pools import pool_file, user_clusters
from ckptsim.platform.usermodel import generate_sessions
from ckptsim.workload.htc import HTCParams, generate_htc
days, seed = int(sys.argv[1]), int(sys.argv[2])
clusters = user_clusters(tomllib.loads(pool_file("newcastle").read_text()))
t0 = time.process_time()
s = generate_sessions(clusters, days=days, seed=seed)
t1 = time.process_time()
w = generate_htc(HTCParams(days=days), seed=seed)
t2 = time.process_time()
print(len(s), t1 - t0, len(w), t2 - t1)
"""


SIMULATE = """
import json, sys, time
import ckptsim.runner as runner
from ckptsim.cli import main
got = {}
plain = runner.simulate
def simulate(*a, **k):
    t0 = time.process_time()
    r = plain(*a, **k)
    got.update(events=r.events, sim_cpu=time.process_time() - t0, jobs=len(r.table))
    return r
runner.simulate = simulate
code = main(sys.argv[1:])
print("BENCH " + json.dumps(got))
sys.exit(code)
"""


def seed003_arguments(days: int, seed: int, power: bool = True) -> list[str]:
    """`ckptsim run`'s arguments for seed 003's set-up (htc, owners, reboots, HTC energy, the
    power manager, the 24 h bound, C(60)) over `days` (docs/performance.md)."""
    args = ["run", "--workload", f"htc:days={days},seed={seed}", "--platform", "newcastle",
            "--scheduler", "htc", "--component",
            f"availability:owners=model,reboot=03:00-05:00,lead=600,days={days + 3}",
            "--component", "energy:htc=true,owners=active"]
    if power:
        args += ["--component", "power:idle_timeout=900"]
    return args + ["--component", "bound:limit=86400", "--checkpoint",
                   "fixed:interval=3600,cost=60"]


def run_year(days: int, seed: int, power: bool, full: bool = False) -> dict[str, float]:
    """One whole `ckptsim run` of the pool in a fresh process (`full`: seed 003's set-up)."""
    with tempfile.TemporaryDirectory() as tmp:
        if full:
            cmd = [sys.executable, "-c", SIMULATE, *seed003_arguments(days, seed, power),
                   "--out", tmp]
        else:
            cmd = [sys.executable, "-c", SIMULATE, "run", "--workload",
                   f"htc:days={days},seed={seed}", "--platform", "newcastle"]
            cmd += ["--scheduler", "fcfs", "--component",
                    "availability:owners=model,reboot=05:00", "--checkpoint",
                    "fixed:interval=3600,cost=120", "--out", tmp]
            if power:
                cmd += ["--component", "power:idle_timeout=900"]
        t0 = time.perf_counter()
        # The command prints a short table: the pipes' buffers hold it until wait4 returns.
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        out = proc.stdout.read().decode() if proc.stdout else ""
        err = proc.stderr.read().decode() if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"simulation failed:\n{err}")
    line = [x for x in out.splitlines() if x.startswith("BENCH ")][-1]
    got = json.loads(line[6:])
    return {"days": days, "seed": seed, "power": power, "jobs": got["jobs"],
            "events": got["events"], "simulate_cpu_s": got["sim_cpu"],
            "events_per_s": got["events"] / got["sim_cpu"],
            "jobs_per_s": got["jobs"] / got["sim_cpu"],
            "process_cpu_s": usage.ru_utime + usage.ru_stime, "wall_s": wall,
            "peak_mb": usage.ru_maxrss / 1024.0}


def run_minimal(trace: str) -> dict[str, float]:
    """The minimal EASY loop on `trace` in a fresh process: its CPU seconds and peak memory."""
    script = pathlib.Path(__file__).resolve().parent / "minimal_easy.py"
    proc = subprocess.Popen([sys.executable, str(script), trace], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        err = proc.stderr.read().decode() if proc.stderr else ""
        raise SystemExit(f"minimal loop failed:\n{err}")
    return {"minimal_cpu_s": usage.ru_utime + usage.ru_stime,
            "minimal_peak_mb": usage.ru_maxrss / 1024.0}


def simulate_rounds(args: argparse.Namespace) -> int:
    rows = []
    for k in range(args.repeat):
        seed = args.seed if args.seed is not None else k + 1
        row = run_year(args.days, seed, not args.no_power, args.full)
        print(f"seed {seed}: {row['jobs']:,} jobs, {row['events']:,} events; simulation "
              f"{row['events_per_s']:,.0f} events/s, {row['jobs_per_s']:,.0f} jobs/s; whole "
              f"process {row['process_cpu_s']:.1f} s CPU, {row['wall_s']:.1f} s wall, "
              f"{row['peak_mb']:.0f} MB peak", flush=True)
        if args.minimal:
            row.update(run_minimal(args.minimal))
            print(f"  minimal EASY loop: {row['minimal_cpu_s']:.2f} s CPU, "
                  f"{row['minimal_peak_mb']:.0f} MB peak", flush=True)
        rows.append(row)
    if args.minimal:
        pool = min(r["process_cpu_s"] for r in rows)
        loop = min(r["minimal_cpu_s"] for r in rows)
        print(f"best of {len(rows)}: pool {pool:.1f} s CPU, minimal loop {loop:.2f} s CPU, "
              f"ratio {pool / loop:.1f}x; peak {max(r['peak_mb'] for r in rows):.0f} MB")
    print(json.dumps(rows))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=None,
                    help="rounds, one seed each (default 3; 1 with --simulate)")
    ap.add_argument("--days", type=int, default=365)
    ap.add_argument("--simulate", action="store_true",
                    help="time the whole simulation of the pool instead of its inputs")
    ap.add_argument("--no-power", action="store_true",
                    help="with --simulate: without the power manager")
    ap.add_argument("--full", action="store_true",
                    help="with --simulate: seed 003's whole set-up (htc scheduler, reboots "
                         "03:00-05:00, HTC energy, the 24 h bound, C(60))")
    ap.add_argument("--seed", type=int, default=None,
                    help="with --simulate: this seed in every round (default: 1, 2, 3...)")
    ap.add_argument("--minimal", metavar="TRACE", default=None,
                    help="with --simulate: the minimal EASY loop on TRACE after each round")
    args = ap.parse_args()
    if args.repeat is None:
        args.repeat = 1 if args.simulate else 3
    if args.simulate:
        return simulate_rounds(args)
    rows = []
    for seed in range(1, args.repeat + 1):
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", CHILD, str(args.days), str(seed)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        out = proc.stdout.read().decode() if proc.stdout else ""
        if os.waitstatus_to_exitcode(status) != 0:
            err = proc.stderr.read().decode() if proc.stderr else ""
            raise SystemExit(f"generation failed:\n{err}")
        n_sessions, cpu_sessions, n_jobs, cpu_jobs = out.split()
        row = {"seed": seed, "sessions": int(n_sessions), "sessions_cpu_s": float(cpu_sessions),
               "htc_jobs": int(n_jobs), "htc_cpu_s": float(cpu_jobs),
               "process_cpu_s": usage.ru_utime + usage.ru_stime, "wall_s": wall,
               "peak_mb": usage.ru_maxrss / 1024.0}
        rows.append(row)
        print(f"seed {seed}: {row['sessions']:,} sessions in {row['sessions_cpu_s']:.2f} s CPU, "
              f"{row['htc_jobs']:,} HTC jobs in {row['htc_cpu_s']:.2f} s CPU; whole process "
              f"{row['process_cpu_s']:.2f} s CPU, {wall:.2f} s wall, {row['peak_mb']:.0f} MB peak")
    print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
