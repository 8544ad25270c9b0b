"""Multi-cluster benchmark: `coalloc` at the seed's size, and what the rate model recomputes.

    python benchmarks/bench_coalloc.py [--n 400000] [--repeat 1] [--only NAME...]
        [--minimal [TRACE]] [--scope-n 20000] [--phases-n 100000] [--json OUT]

``full``: for each configuration, the whole command ``python -m ckptsim run --workload
grid:n=N,... --scheduler coalloc --set ... --out TMP`` in a fresh process (generating the
seed's workload of 4 clusters x N jobs, simulating, writing jobs.csv, summary.json and
schedule.swf).  Times are CPU seconds (user + sys of the child, os.wait4) because the machine
may be shared; wall seconds are reported too, with jobs per CPU second and peak resident
memory.  The configurations: Migration Only, co-allocation with exact estimates at 300 Mbit/s,
with +-100% errors at 400 Mbit/s (saturated links), and the same with the CTMR agent
(10 min overhead).  With ``--minimal`` the minimal EASY loop (benchmarks/minimal_easy.py,
on HPC2N by default) runs in a fresh process before each round of configurations and after
the last, and every configuration's CPU seconds are also given as a multiple of the loop's
(its best of those runs).

``scope``: one in-process run of the heaviest configuration (`--scope-n` jobs per cluster)
counting, at every start or end of a co-allocated job, the jobs whose allotment the links
recomputed (`LinkState.last_scope`) against the co-allocated jobs and all jobs running then:
the rate recomputation touches only the jobs sharing a saturated link with the job that
started or ended, never every running job.

``phases``: where the memory goes.  One fresh process runs the heaviest configuration
(`--phases-n` jobs per cluster) as `ckptsim run` does, printing its resident memory (now and
peak, /proc and getrusage) after each phase: the imports, the workload, the simulator built
(the job objects), the run, the records harvested from the jobs, the run freed and the
records built, the metrics, the outputs written.
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
BASE = "load=0.95,seed=1"
# The shared traces beside the checkout's sources or beside the checkout.
HPC2N = next((p for p in (HERE.parents[k] / "shared" / "data" / "traces" /
                          "HPC2N-2002-2.2-cln.swf.gz" for k in (1, 2)) if p.exists()),
             HERE.parents[1] / "shared" / "data" / "traces" / "HPC2N-2002-2.2-cln.swf.gz")
CONFIGS: dict[str, tuple[str, list[str]]] = {
    "migration-only": ("ppbw=300", ["coalloc=false"]),
    "coalloc-exact-300": ("ppbw=300,error=0", []),
    "coalloc-err100-400": ("ppbw=400,error=1", []),
    "ctmr-err100-400": ("ppbw=400,error=1", ["ctmr=true", "overhead=600"]),
}


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(SRC), env.get("PYTHONPATH")) if p)
    return env


def run_cmd(cmd: list[str]) -> tuple[float, float, float]:
    """(CPU seconds, wall seconds, peak RSS in MB) of one child process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env=child_env())
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    stderr = proc.stderr.read().decode() if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{stderr}")
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024.0


def command(name: str, n: int, out: Path) -> list[str]:
    workload, params = CONFIGS[name]
    cmd = [sys.executable, "-m", "ckptsim", "run", "--workload",
           f"grid:n={n},{workload},{BASE}", "--scheduler", "coalloc", "--out", str(out)]
    for p in params:
        cmd += ["--set", p]
    return cmd


def minimal_cpu(trace: Path) -> float:
    """CPU seconds of the minimal EASY loop on `trace` (a fresh process)."""
    cpu, _, _ = run_cmd([sys.executable, str(HERE / "minimal_easy.py"), str(trace)])
    print(f"{'minimal EASY loop':20s} {trace.name}  CPU {cpu:7.2f} s", flush=True)
    return cpu


def bench_full(names: list[str], n: int, repeat: int,
               trace: Path | None = None) -> dict[str, Any]:
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(SRC)], check=True)
    out: dict[str, Any] = {}
    jobs = 4 * n
    best: dict[str, tuple[float, float, float]] = {}
    minimal: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(repeat):  # rounds, each next to the minimal loop
            if trace is not None:
                minimal.append(minimal_cpu(trace))
            for name in names:
                got = run_cmd(command(name, n, Path(tmp) / name))
                if name not in best or got[0] < best[name][0]:
                    best[name] = got
                print(f"{name:20s} {jobs:>9,} jobs  CPU {got[0]:7.1f} s  wall {got[1]:7.1f} s"
                      f"  peak {got[2]:6.0f} MB", flush=True)
        if trace is not None:
            minimal.append(minimal_cpu(trace))
    for name in names:
        cpu, wall, rss = best[name]
        row: dict[str, Any] = {"jobs": jobs, "cpu_s": round(cpu, 2), "wall_s": round(wall, 2),
                               "jobs_per_cpu_s": round(jobs / cpu), "peak_rss_mb": round(rss)}
        line = (f"best {name:15s} {jobs:>9,} jobs  CPU {cpu:7.1f} s  {jobs / cpu:8,.0f} "
                f"jobs/s  peak {rss:6.0f} MB")
        if minimal:
            row["minimal_cpu_s"] = round(min(minimal), 3)
            row["ratio_to_minimal"] = round(cpu / min(minimal), 1)
            line += f"  {row['ratio_to_minimal']:.1f}x the minimal loop"
        out[name] = row
        print(line, flush=True)
    return out


PHASES = r"""
import json, resource, sys
def rss():
    with open("/proc/self/statm") as f:
        now = int(f.read().split()[1]) * resource.getpagesize() / 2**20
    return round(now), round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
out = []
def note(label):
    out.append((label, *rss()))
from pathlib import Path
import ckptsim.records.jobs as records
import ckptsim.runner as runner
from ckptsim.engine.simulator import Simulator
from ckptsim.cli.common import write_outputs
from ckptsim.workload.source import load_workload
note("imports")
w = load_workload(sys.argv[1])
note("workload")
run, harvest, table = Simulator.run, records.harvest, records.Harvest.table
def run_(self):
    note("simulator built (jobs)")
    got = run(self)
    note("run")
    return got
def harvest_(sim):
    got = harvest(sim)
    note("records harvested")
    return got
def table_(self):
    note("run freed")
    got = table(self)
    note("records built")
    return got
Simulator.run, runner.harvest, records.Harvest.table = run_, harvest_, table_
result = runner.simulate(w, "coalloc", {"ctmr": True, "overhead": 600.0})
note("metrics")
write_outputs(result, Path(sys.argv[2]))
note("outputs written")
print(json.dumps(out))
"""


def bench_phases(n: int) -> dict[str, Any]:
    workload, _ = CONFIGS["ctmr-err100-400"]
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run([sys.executable, "-c", PHASES, f"grid:n={n},{workload},{BASE}",
                               str(Path(tmp) / "out")], capture_output=True, text=True,
                              env=child_env(), check=True)
    rows = json.loads(done.stdout.strip().splitlines()[-1])
    jobs = 4 * n
    print(f"phases ({jobs:,} jobs, CTMR at 400 Mbit/s, +-100%): resident MB now / peak",
          flush=True)
    before = 0
    for label, now, peak in rows:
        print(f"  {label:24s} {now:6d} {peak:6d}   {(now - before) * 2**20 / jobs:+7.0f} B/job",
              flush=True)
        before = now
    return {"jobs": jobs, "phases": [{"phase": a, "rss_mb": b, "peak_mb": c}
                                     for a, b, c in rows]}


def bench_scope(n: int) -> dict[str, Any]:
    sys.path.insert(0, str(SRC))
    from ckptsim.engine.simulator import Simulator
    from ckptsim.platform.linkstate import LinkState
    from ckptsim.policies.base import scheduler_factory
    from ckptsim.workload.grid import GridParams, generate_grid

    calls = [0, 0, 0, 0]  # changes, jobs recomputed, co-allocated jobs, running jobs
    sim: Any = None

    class Counting(LinkState):
        __slots__ = ()

        def _note(self) -> None:
            calls[0] += 1
            calls[1] += len(self.last_scope)
            calls[2] += len(self._links)
            calls[3] += len(sim.active)

        def add(self, *a: Any, **k: Any) -> Any:
            got = super().add(*a, **k)
            self._note()
            return got

        def remove(self, *a: Any, **k: Any) -> Any:
            got = super().remove(*a, **k)
            self._note()
            return got

    w = generate_grid(GridParams(n=n, ppbw=400.0, error=1.0, load=0.95), seed=1)
    factory = scheduler_factory("coalloc", {"ctmr": True, "overhead": 600.0})
    sim = Simulator(factory.prepare(w), factory)
    rates = sim.policy.rates
    rates.links = Counting(rates.links.capacity)
    sim.run()
    c = max(calls[0], 1)
    out = {"jobs": w.n_jobs, "changes": calls[0], "recomputed_per_change": calls[1] / c,
           "coallocated_per_change": calls[2] / c, "running_per_change": calls[3] / c}
    print(f"scope ({w.n_jobs:,} jobs, 400 Mbit/s, +-100%, CTMR): {calls[0]:,} link changes; "
          f"per change {out['recomputed_per_change']:.2f} jobs recomputed, "
          f"{out['coallocated_per_change']:.2f} co-allocated and "
          f"{out['running_per_change']:.1f} running", flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=400_000, help="jobs per cluster (seed: 400,000)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per configuration (best CPU)")
    ap.add_argument("--only", nargs="+", choices=[*CONFIGS, "scope", "phases"], default=None)
    ap.add_argument("--minimal", nargs="?", type=Path, default=None, const=HPC2N,
                    metavar="TRACE", help="also time the minimal EASY loop on TRACE "
                    "(default HPC2N) before each round and after the last")
    ap.add_argument("--scope-n", type=int, default=20_000)
    ap.add_argument("--phases-n", type=int, default=100_000)
    ap.add_argument("--json", type=Path, default=HERE / "results" / "coalloc.json")
    args = ap.parse_args()
    names = args.only or [*CONFIGS, "scope"]
    result: dict[str, Any] = {"n": args.n}
    full = [x for x in names if x in CONFIGS]
    if full:
        if args.minimal is not None and not args.minimal.exists():
            raise SystemExit(f"--minimal: no trace {args.minimal}")
        result["full"] = bench_full(full, args.n, args.repeat, args.minimal)
    if "scope" in names:
        result["scope"] = bench_scope(args.scope_n)
    if "phases" in names:
        result["phases"] = bench_phases(args.phases_n)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=2) + "\n")
    print(f"results in {args.json}")


if __name__ == "__main__":
    main()
