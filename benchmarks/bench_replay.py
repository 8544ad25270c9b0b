"""Replay benchmark: the whole `ckptsim run` command on large real traces.

    python benchmarks/bench_replay.py [--traces DIR] [--repeat 3] [--scheduler easy]

For each trace it runs `python -m ckptsim run --workload TRACE --scheduler easy --out TMP`
in a fresh process (reading the trace, simulating, writing jobs.csv, summary.json and
schedule.swf) and reports wall seconds (best and median of --repeat runs), jobs per second
and the peak resident memory of that process.  Results are printed as a table and written to
benchmarks/results/replay.json.  Needs the traces of ../shared/data/traces.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_TRACES = HERE.parents[1] / "shared" / "data" / "traces"
TRACES = ("SDSC-SP2-1998-4.2-cln.swf.gz", "CTC-SP2-1996-3.1-cln.swf.gz",
          "HPC2N-2002-2.2-cln.swf.gz")


def run_once(trace: Path, scheduler: str, out: Path) -> tuple[float, float, int]:
    """(wall seconds, peak RSS in MB, jobs) of one `ckptsim run` process."""
    cmd = [sys.executable, "-m", "ckptsim", "run", "--workload", str(trace), "--scheduler",
           scheduler, "--out", str(out)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    stdout = proc.stdout.read().decode() if proc.stdout else ""
    stderr = proc.stderr.read().decode() if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{stderr}")
    jobs = int(json.loads((out / "summary.json").read_text())["metrics"]["jobs"])
    del stdout
    return wall, usage.ru_maxrss / 1024.0, jobs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--traces", type=Path, default=DEFAULT_TRACES)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--scheduler", default="easy")
    ap.add_argument("--only", nargs="*", default=None, help="trace file names to run")
    args = ap.parse_args()
    names = args.only or TRACES
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            trace = args.traces / name
            if not trace.exists():
                print(f"skip {name}: not found in {args.traces}")
                continue
            walls, rss = [], []
            for _ in range(args.repeat):
                wall, mem, jobs = run_once(trace, args.scheduler, Path(tmp))
                walls.append(wall)
                rss.append(mem)
            best = min(walls)
            rows.append({"trace": name, "scheduler": args.scheduler, "jobs": jobs,
                         "wall_best_s": round(best, 3),
                         "wall_median_s": round(statistics.median(walls), 3),
                         "jobs_per_s": round(jobs / best),
                         "peak_rss_mb": round(max(rss), 1)})
            r = rows[-1]
            print(f"{name:34s} {args.scheduler:12s} {jobs:7d} jobs  best {r['wall_best_s']:6.2f} s"
                  f"  median {r['wall_median_s']:6.2f} s  {r['jobs_per_s']:8,d} jobs/s  "
                  f"peak {r['peak_rss_mb']:6.1f} MB")
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    (out / f"replay-{args.scheduler}.json").write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
