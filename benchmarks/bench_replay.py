"""Replay benchmark: the whole `ckptsim run` command on large real traces, against a minimal
EASY loop (benchmarks/minimal_easy.py).

    python benchmarks/bench_replay.py [--traces DIR] [--repeat 3]
        [--schedulers easy conservative ckpt-backfill] [--only TRACE...] [--first N] [--src DIR]

For each trace and each round it runs, alternately, `python -m ckptsim run --workload TRACE
--scheduler S --out TMP` for every scheduler S (reading the trace, simulating, writing
jobs.csv, summary.json and schedule.swf) and `python benchmarks/minimal_easy.py TRACE`, each
in a fresh process, with this checkout's `src` first on PYTHONPATH and its bytecode compiled
beforehand as an installed package's is.  Times are CPU seconds (user + sys of the child,
from os.wait4) because the machine may be shared; wall seconds are reported too.  Per trace
it prints, for each scheduler, the best CPU and wall seconds over --repeat rounds, jobs per
CPU second, peak resident memory, the ratio to the minimal loop (ckptsim easy / minimal is
the headline number) and the ratio to `easy`.  Results go to benchmarks/results/replay.json.
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

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
DEFAULT_TRACES = HERE.parents[1] / "shared" / "data" / "traces"
TRACES = ("SDSC-SP2-1998-4.2-cln.swf.gz", "CTC-SP2-1996-3.1-cln.swf.gz",
          "HPC2N-2002-2.2-cln.swf.gz")
MINIMAL = "minimal-easy"


def child_env(src: Path = SRC) -> dict[str, str]:
    """The children run the code under `src` with its bytecode cached, as an installed package
    is (pip compiles it at install time): PYTHONDONTWRITEBYTECODE, if set, would make every
    run compile every module again (about 0.05 s)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(src), env.get("PYTHONPATH")) if p)
    return env


def run_cmd(cmd: list[str], src: Path = SRC) -> tuple[float, float, float]:
    """(CPU seconds, wall seconds, peak RSS in MB) of one child process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env=child_env(src))
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    stderr = proc.stderr.read().decode() if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{stderr}")
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024.0


def command(name: str, trace: Path, out: Path, first: int | None) -> list[str]:
    if name == MINIMAL:
        return [sys.executable, str(HERE / "minimal_easy.py"), str(trace)]
    cmd = [sys.executable, "-m", "ckptsim", "run", "--workload", str(trace), "--scheduler",
           name, "--out", str(out / name)]
    if first:
        cmd += ["--first", str(first)]
    return cmd


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--traces", type=Path, default=DEFAULT_TRACES)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--schedulers", nargs="+", default=["easy"])
    ap.add_argument("--no-minimal", action="store_true", help="skip the minimal EASY loop")
    ap.add_argument("--first", type=int, default=None,
                    help="only the first N jobs (ckptsim --first; disables the minimal loop)")
    ap.add_argument("--only", nargs="*", default=None, help="trace file names to run")
    ap.add_argument("--src", type=Path, default=SRC,
                    help="the package sources to run (default: this checkout's src)")
    args = ap.parse_args()
    names = list(args.schedulers)
    if not args.no_minimal and not args.first:
        names.append(MINIMAL)
    # Cache the package's bytecode first, as installing it does.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(args.src / "ckptsim")],
                   env=child_env(args.src), check=True, stdout=subprocess.DEVNULL)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for tname in args.only or TRACES:
            trace = args.traces / tname
            if not trace.exists():
                print(f"skip {tname}: not found in {args.traces}")
                continue
            best: dict[str, tuple[float, float, float]] = {}
            for _ in range(args.repeat):
                for name in names:  # alternate, so that load changes hit all alike
                    cpu, wall, mem = run_cmd(command(name, trace, Path(tmp), args.first),
                                             args.src)
                    old = best.get(name)
                    best[name] = (min(cpu, old[0]) if old else cpu,
                                  min(wall, old[1]) if old else wall,
                                  max(mem, old[2]) if old else mem)
            jobs = None
            for name in names:
                if name != MINIMAL:
                    summary = json.loads((Path(tmp) / name / "summary.json").read_text())
                    jobs = int(summary["metrics"]["jobs"])
            for name in names:
                cpu, wall, mem = best[name]
                row = {"trace": tname, "program": name, "jobs": jobs, "first": args.first,
                       "cpu_best_s": round(cpu, 3), "wall_best_s": round(wall, 3),
                       "jobs_per_cpu_s": round(jobs / cpu) if jobs else None,
                       "peak_rss_mb": round(mem, 1)}
                if MINIMAL in best:
                    row["ratio_to_minimal"] = round(cpu / best[MINIMAL][0], 2)
                if "easy" in best:
                    row["ratio_to_easy"] = round(cpu / best["easy"][0], 2)
                rows.append(row)
                extra = "".join(f"  {k.split('_', 1)[1]} {row[k]:.2f}x"
                                for k in ("ratio_to_minimal", "ratio_to_easy") if k in row)
                print(f"{tname:34s} {name:14s} {jobs or 0:7d} jobs  cpu {cpu:7.2f} s  "
                      f"wall {wall:7.2f} s  {row['jobs_per_cpu_s'] or 0:8,d} jobs/cpu-s  "
                      f"peak {mem:6.1f} MB{extra}", flush=True)
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    (out / "replay.json").write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
