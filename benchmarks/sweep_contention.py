"""What running many simulations at once costs each of them, without any sweep machinery.

    python benchmarks/sweep_contention.py [--traces DIR] [--spec scale40] [--procs 1 2 4 8 16]
                                          [--runs 8] [--repeat 2] [--split] [--json OUT]

Starts N independent processes at once (no pool, no store, no pipes between them).  They
import and plan first, wait for each other, then all start together.  Two measurements:

* **same work**: each process executes the same `--runs` runs of bench_sweep.py's `scale40`
  (or `scale`) spec one after the other, a stratified choice (every trace, window, alpha and
  scheduler in turn).  The mean run's wall time at N processes over its wall time at 1 is what
  the machine (shared caches, memory bandwidth, the clock under load) adds to a run when N
  run at once: a sweep of N workers cannot do better than 1 / that ratio, whatever its
  dispatch, start-up and tail.
* **split** (`--split`): the spec's whole matrix, once in one process (which also measures
  every run), then shared among N processes by those measured times (longest first, each to
  the least loaded process: an oracle's dispatch); the wall time from the start signal to
  the last process's end.  This is the sweep with nothing of a sweep's machinery (no pool
  start, no store, no dispatch by estimates), so its efficiency (1 process's wall over N x
  wall) is what `ckptsim sweep` on N workers is measured against.

docs/performance.md compares the sweeps of `benchmarks/sweep_scaling.sh` with both.
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_sweep  # noqa: E402  (the specs and the traces' folder)


def child(spec: Path) -> None:
    """Plan, say ready, read the indices of the runs to execute, execute them; print each
    run's times as JSON."""
    from ckptsim.experiments.execute import execute_run
    from ckptsim.experiments.sweep import plan_sweep

    plan = plan_sweep(spec, None)
    print(len(plan.runs), flush=True)
    chosen = [plan.runs[i] for i in json.loads(sys.stdin.readline())]
    times = []
    for run in chosen:
        c0, t0 = time.process_time(), time.perf_counter()
        outcome = execute_run(run)
        if outcome.row["status"] != "ok":
            raise SystemExit(f"run {run.run_id} failed: {outcome.row['error_message']}")
        times.append({"run_id": run.run_id, "wall_s": time.perf_counter() - t0,
                      "cpu_s": time.process_time() - c0})
    print(json.dumps(times), flush=True)


def together(spec: Path, shares: list[list[int]]
             ) -> tuple[float, list[list[dict[str, Any]]], int]:
    """One process per share of run indices, started together: the wall time from the start
    signal to the last one's end, each process's run times and the matrix's size."""
    env = bench_sweep.child_env()
    procs = [subprocess.Popen([sys.executable, __file__, "--child", str(spec)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
             for _ in shares]
    for p in procs:
        assert p.stdout is not None
        line = p.stdout.readline()
        if not line.strip().isdigit():
            raise SystemExit(f"a process did not start: {line!r} {p.communicate()}")
        total = int(line)
    t0 = time.perf_counter()
    for p, share in zip(procs, shares, strict=True):
        assert p.stdin is not None
        p.stdin.write(json.dumps(share) + "\n")
        p.stdin.flush()
    out = []
    for p in procs:
        stdout, _ = p.communicate()
        if p.returncode != 0:
            raise SystemExit(f"a process failed (exit {p.returncode})")
        out.append(json.loads(stdout.strip().splitlines()[-1]))
    return time.perf_counter() - t0, out, total


def stratified(total: int, runs: int) -> list[int]:
    """`runs` indices spread over the matrix, each from its own block and at a different
    offset in it, so that the innermost axes (scheduler, alpha) vary too."""
    step = max(1, total // runs)
    return [min(total - 1, i * step + i % step) for i in range(min(runs, total))]


def lpt(times: list[float], n: int) -> list[list[int]]:
    """Longest first, each to the least loaded of n processes."""
    heap = [(0.0, k) for k in range(n)]
    shares: list[list[int]] = [[] for _ in range(n)]
    for i in sorted(range(len(times)), key=lambda i: -times[i]):
        load, k = heapq.heappop(heap)
        shares[k].append(i)
        heapq.heappush(heap, (load + times[i], k))
    return shares


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", choices=("scale", "scale40"), default="scale40")
    ap.add_argument("--traces", type=Path, default=bench_sweep.DEFAULT_TRACES)
    ap.add_argument("--procs", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    ap.add_argument("--runs", type=int, default=8, help="runs each process executes")
    ap.add_argument("--repeat", type=int, default=2,
                    help="repetitions of each N, interleaved; the lowest mean is kept")
    ap.add_argument("--split", action="store_true",
                    help="also the whole matrix shared among N processes by measured times")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--child", nargs=1, metavar="SPEC", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(Path(args.child[0]))
        return 0
    traces = args.traces.resolve()
    missing = [t for t in bench_sweep.SCALE_TRACES if not (traces / t).is_file()]
    if missing:
        raise SystemExit(f"--spec {args.spec} needs {', '.join(missing)} in {traces}")
    text = (bench_sweep.SCALE if args.spec == "scale" else bench_sweep.SCALE40).format(
        traces=traces)
    print(f"cores: {os.cpu_count()}; load average before: {os.getloadavg()[0]:.2f}; "
          f"{args.runs} runs of {args.spec} per process")
    means: dict[int, list[float]] = {n: [] for n in args.procs}
    cpus: dict[int, list[float]] = {n: [] for n in args.procs}
    doc: dict[str, Any] = {"spec": args.spec, "runs_per_process": args.runs,
                           "repeat": args.repeat, "cores": os.cpu_count()}
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "contention.toml"
        spec.write_text(text)
        # Fills the trace cache, so that no N pays for it; reads the matrix's size.
        _, _, total = together(spec, [[0]])
        sample = stratified(total, args.runs)
        for _ in range(args.repeat):
            for n in args.procs:
                _, res, _ = together(spec, [sample] * n)
                means[n].append(statistics.fmean(t["wall_s"] for proc in res for t in proc))
                cpus[n].append(statistics.fmean(t["cpu_s"] for proc in res for t in proc))
        base = min(means[args.procs[0]]) if args.procs[0] == 1 else None
        rows = {}
        print("same work in every process:")
        print(f"{'processes':>9s} {'mean run (ms)':>13s} {'cpu (ms)':>9s} {'over 1':>7s} "
              f"{'efficiency cap':>14s}")
        for n in args.procs:
            best = min(means[n])
            ratio = None if base is None else best / base
            rows[n] = {"mean_run_ms": round(best * 1000, 1),
                       "mean_run_cpu_ms": round(min(cpus[n]) * 1000, 1),
                       "means_ms": [round(m * 1000, 1) for m in means[n]],
                       "over_1": None if ratio is None else round(ratio, 3),
                       "efficiency_cap": None if ratio is None else round(1 / ratio, 3)}
            print(f"{n:9d} {best * 1000:13.1f} {min(cpus[n]) * 1000:9.1f} "
                  + (f"{ratio:7.2f} {1 / ratio:14.0%}" if ratio else f"{'-':>7s} {'-':>14s}"))
        doc["same_work"] = rows
        if args.split:
            doc["split"] = split(spec, total, [n for n in args.procs if n > 1], args.repeat)
    if args.json:
        args.json.write_text(json.dumps(doc, indent=2) + "\n")
    return 0


def split(spec: Path, total: int, procs: list[int], repeat: int) -> dict[str, Any]:
    """The whole matrix in one process, then shared among each N by the measured times."""
    wall1, res, _ = together(spec, [list(range(total))])
    times = [t["wall_s"] for t in res[0]]
    out: dict[str, Any] = {"1": {"wall_s": round(wall1, 3),
                                 "mean_run_ms": round(statistics.fmean(times) * 1000, 1)}}
    print(f"the whole matrix ({total} runs), shared by measured times (an oracle's dispatch):")
    print(f"{'processes':>9s} {'wall (s)':>9s} {'ideal (s)':>9s} {'mean run (ms)':>13s} "
          f"{'efficiency':>10s}")
    print(f"{1:9d} {wall1:9.2f} {wall1:9.2f} {statistics.fmean(times) * 1000:13.1f} "
          f"{1:10.0%}")
    for n in procs:
        shares = lpt(times, n)
        ideal = max(sum(times[i] for i in s) for s in shares)
        walls, runs_ms = [], []
        for _ in range(repeat):
            wall, res, _ = together(spec, shares)
            walls.append(wall)
            runs_ms.append(statistics.fmean(t["wall_s"] for proc in res for t in proc) * 1000)
        best = min(walls)
        out[str(n)] = {"wall_s": round(best, 3), "walls_s": [round(w, 3) for w in walls],
                       "ideal_s": round(ideal, 3),
                       "mean_run_ms": round(runs_ms[walls.index(best)], 1),
                       "efficiency": round(wall1 / (n * best), 3)}
        print(f"{n:9d} {best:9.2f} {ideal:9.2f} {runs_ms[walls.index(best)]:13.1f} "
              f"{wall1 / (n * best):10.0%}")
    return out


if __name__ == "__main__":
    raise SystemExit(main())
