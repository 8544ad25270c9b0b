"""Sweep benchmark: the same sweep on this process alone, a pool of 1 and 2 workers, and Dask.

    python benchmarks/bench_sweep.py [--traces DIR] [--repeat 5] [--runs 200]
    python benchmarks/bench_sweep.py --spec scale [--repeat 3]
    python benchmarks/bench_sweep.py --spec scale40 --executors pool1 pool2 pool4 pool8 pool16 \
        dask16 --repeat 2 --json results.json --timeline

Three sweeps:

* `default`: 200 runs under `easy`, each on a 2,000-job slice of SDSC-SP2 (20 start offsets
  x 5 estimate accuracies alpha x 2 load scales); without the trace, 200 seeds of a
  2,000-job Lublin-Feitelson workload.  Executors: this process, pool of 1, pool of 2.
* `scale`: 160 runs, each a 10,000-job slice of one of four traces (SDSC-SP2, CTC-SP2,
  SDSC-BLUE, HPC2N; 4 start offsets x 5 alpha) under `easy` and `ckpt-backfill` (p = 0.2).
  Executors: this process, pool of 1, pool of 2, Dask LocalCluster of 2.
* `scale40`: 64 runs, the `scale` sweep with 40,000-job slices and alpha 0 and 1 (4 traces x
  4 offsets x 2 alpha x 2 schedulers): fewer, longer runs, the spec whose scaling to 16
  workers is the target (80% efficiency).

Executors are `serial` (this process), `poolN` (a local pool of N workers) and `daskN` (a Dask
LocalCluster of N workers), for any N.  `--timeline` keeps, for every run, when the sweep
received its row, its worker and its wall time, so that where workers sat idle (start-up,
the tail of the sweep) can be read from the JSON.

Each measurement is a fresh process running one sweep into a fresh store (as `ckptsim sweep`
does: it starts its pool or cluster, runs, records, compacts), so the times include
everything a real sweep does.  Repetitions are interleaved; the best wall time is kept.

Reported per executor: wall seconds of the sweep, runs per second, the mean run (wall and
CPU), and the time spent per run outside the runs (coordinator, transfer, encoding, disk):

* CPU overhead per run = (CPU of the sweep process + CPU of the workers - CPU inside the
  runs) / runs.  CPU time is not inflated by other programs on the machine, so this is the
  figure to trust on a shared machine.
* wall overhead per run = ((wall - start-up) x workers - wall time inside the runs) / runs,
  with the start-up (pool or cluster start, until every worker is ready) reported apart.

The load average is printed before and after: wall times and the speedup of 2 workers over 1
mean little on a loaded machine.  An estimate from CPU times is printed beside them: start-up
+ (CPU of the sweep process and its workers) / workers, what the sweep would take with a core
per worker and nothing else running (it ignores contention between the workers for memory).
Results go to benchmarks/results/sweep[-SPEC].json (or `--json PATH`).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
DEFAULT_TRACES = HERE.parents[1] / "shared" / "data" / "traces"
TRACE = "SDSC-SP2-1998-4.2-cln.swf.gz"

SCALE = """
name = "scale"
trace_dir = "{traces}"
[workloads.sdsc]
trace = "SDSC-SP2-1998-4.2-cln.swf.gz"
window = [[0, inf], [8000000, inf], [16000000, inf], [24000000, inf]]
first = 10000
alpha = [0.0, 0.25, 0.5, 0.75, 1.0]
[workloads.ctc]
trace = "CTC-SP2-1996-3.1-cln.swf.gz"
window = [[0, inf], [6000000, inf], [12000000, inf], [18000000, inf]]
first = 10000
alpha = [0.0, 0.25, 0.5, 0.75, 1.0]
[workloads.blue]
trace = "SDSC-BLUE-2000-4.2-cln.swf.gz"
window = [[0, inf], [8000000, inf], [16000000, inf], [24000000, inf]]
first = 10000
alpha = [0.0, 0.25, 0.5, 0.75, 1.0]
[workloads.hpc2n]
trace = "HPC2N-2002-2.2-cln.swf.gz"
window = [[0, inf], [20000000, inf], [40000000, inf], [60000000, inf]]
first = 10000
alpha = [0.0, 0.25, 0.5, 0.75, 1.0]
[[schedulers]]
name = "easy"
[[schedulers]]
name = "ckpt-backfill"
params = {{ p = 0.2 }}
"""
SCALE_TRACES = ("SDSC-SP2-1998-4.2-cln.swf.gz", "CTC-SP2-1996-3.1-cln.swf.gz",
                "SDSC-BLUE-2000-4.2-cln.swf.gz", "HPC2N-2002-2.2-cln.swf.gz")

SCALE40 = SCALE.replace("first = 10000", "first = 40000").replace(
    "alpha = [0.0, 0.25, 0.5, 0.75, 1.0]", "alpha = [0.0, 1.0]").replace(
    'name = "scale"', 'name = "scale40"')


def executor_kind(name: str) -> tuple[str, int]:
    """('serial', 1), ('pool', N) or ('dask', N) for `serial`, `poolN`, `daskN`."""
    if name == "serial":
        return "serial", 1
    for kind in ("pool", "dask"):
        if name.startswith(kind) and name[len(kind):].isdigit() and int(name[len(kind):]) > 0:
            return kind, int(name[len(kind):])
    raise argparse.ArgumentTypeError(f"executor {name!r}: accepted: serial, poolN, daskN "
                                     "(N workers, e.g. pool16)")


def executor_label(name: str) -> str:
    kind, n = executor_kind(name)
    workers = f"{n} worker{'s' if n > 1 else ''}"
    return {"serial": "this process (--jobs 0)", "pool": f"pool, {workers}",
            "dask": f"Dask LocalCluster, {workers}"}[kind]


def executor_name(text: str) -> str:
    executor_kind(text)
    return text


def default_spec(traces: Path, runs: int) -> tuple[str, str]:
    """(spec, description) of the default benchmark sweep."""
    if (traces / TRACE).is_file() and runs == 200:
        starts = [i * 2_000_000 for i in range(20)]  # 20 offsets over the first ~15 months
        text = f"""
name = "bench-sweep"
trace_dir = "{traces}"

[workloads.sdsc]
trace = "{TRACE}"
window = [{", ".join(f"[{s}, inf]" for s in starts)}]
first = 2000
alpha = [0.0, 0.25, 0.5, 0.75, 1.0]
load_scale = [1.0, 1.2]

[[schedulers]]
name = "easy"
"""
        return text, f"{TRACE}: 20 windows x 5 alpha x 2 load scales, first 2000 jobs"
    text = f"""
name = "bench-sweep"
replications = {runs}

[workloads.model]
generator = "lublin"
n = 2000

[[schedulers]]
name = "easy"
"""
    return text, f"Lublin-Feitelson, 2000 jobs, {runs} seeds"


def children_cpu() -> float | None:
    """CPU seconds of every process this one started, start-ups included: the fork server
    (stopped here, so that it and the workers it forked are accounted) and its workers."""
    import multiprocessing.forkserver
    import resource

    server = getattr(multiprocessing.forkserver, "_forkserver", None)
    stop = getattr(server, "_stop", None)  # the fork server has no public way to stop
    if server is not None and getattr(server, "_forkserver_pid", None) is not None:
        if stop is None:
            return None
        stop()
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def child(executor: str, spec: Path, out: Path) -> dict[str, Any]:
    """One sweep in this process (a fresh one per measurement); what it cost."""
    from ckptsim.experiments.execute import make_executor
    from ckptsim.experiments.store import load_results
    from ckptsim.experiments.sweep import plan_sweep, run_sweep

    kind, workers = executor_kind(executor)
    jobs = 0 if kind == "serial" else workers
    c0, t0 = time.process_time(), time.perf_counter()
    # From the executor's creation: a Dask executor starts its workers' fork server there.
    ex = make_executor(jobs, "local" if kind == "dask" else None)
    plan = plan_sweep(spec, out)
    timeline: list[dict[str, Any]] = []

    def on_row(row: dict[str, Any]) -> None:
        timeline.append({"at_s": round(time.perf_counter() - t0, 4), "pid": row.get("pid"),
                         "run_s": row.get("run_seconds"), "run_id": row["run_id"]})

    result = run_sweep(plan, out, ex, on_row)
    wall = time.perf_counter() - t0
    cpu = time.process_time() - c0
    kids = children_cpu()
    tree_cpu = None if kids is None else cpu + kids
    if result.failed:
        raise SystemExit(f"{result.failed} runs failed: {result.failures[0]['error']}")
    rows, _ = load_results(out)
    st = ex.stats
    return {"runs": len(rows), "wall_s": wall, "parent_cpu_s": cpu,
            "worker_cpu_s": st.worker_cpu, "run_cpu_s": st.run_cpu,
            "startup_s": st.startup_seconds, "total_cpu_s": tree_cpu,
            "run_wall_s": sum(r["run_seconds"] for r in rows),
            "sim_wall_s": sum(r["sim_seconds"] for r in rows),
            "rows": [{"run_id": r["run_id"], "workload": r.get("workload"),
                      "scheduler": r.get("scheduler"), "run_s": r["run_seconds"]}
                     for r in rows],
            "timeline": timeline}


def child_env(src: Path = SRC) -> dict[str, str]:
    """This environment with `src` first on PYTHONPATH: a child process measures that code."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(src.resolve())] + [p for p in [os.environ.get("PYTHONPATH")] if p])}


def measure(executor: str, spec: Path, out: Path, src: Path = SRC) -> dict[str, Any]:
    shutil.rmtree(out, ignore_errors=True)
    env = child_env(src)
    proc = subprocess.run([sys.executable, __file__, "--child", executor, str(spec), str(out)],
                          capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{executor}: {proc.stderr.strip() or proc.stdout.strip()}")
    doc: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return doc


def summarise(name: str, workers: int, ms: list[dict[str, Any]]) -> dict[str, Any]:
    best = min(ms, key=lambda m: m["wall_s"])
    n = best["runs"]

    def cpu_overhead(m: dict[str, Any]) -> float:
        spent = m["parent_cpu_s"] + (m["worker_cpu_s"] or 0.0)
        return (spent - m["run_cpu_s"]) / m["runs"]

    def wall_overhead(m: dict[str, Any]) -> float:
        return ((m["wall_s"] - m["startup_s"]) * workers - m["run_wall_s"]) / m["runs"]

    def cpu_wall(m: dict[str, Any]) -> float:
        # What the sweep would take with a core per worker and nothing else running: the
        # start-up, then all CPU of runs and overhead spread over the workers.
        spent = m["parent_cpu_s"] + (m["worker_cpu_s"] or m["run_cpu_s"])
        return m["startup_s"] + spent / workers

    totals = [m["total_cpu_s"] for m in ms if m.get("total_cpu_s") is not None]
    return {"executor": name, "workers": workers, "runs": n, "wall_s": round(best["wall_s"], 3),
            "cpu_estimate_wall_s": round(statistics.median(map(cpu_wall, ms)), 3),
            "total_cpu_s": round(statistics.median(totals), 3) if totals else None,
            "runs_per_s": round(n / best["wall_s"], 2),
            "mean_run_wall_ms": round(best["run_wall_s"] / n * 1000, 1),
            "mean_run_cpu_ms": round(best["run_cpu_s"] / n * 1000, 1),
            "startup_s": round(best["startup_s"], 3),
            "cpu_overhead_per_run_ms": round(statistics.median(map(cpu_overhead, ms)) * 1000, 2),
            "wall_overhead_per_run_ms": round(wall_overhead(best) * 1000, 2),
            "walls_s": [round(m["wall_s"], 2) for m in ms]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", choices=("default", "scale", "scale40"), default="default")
    ap.add_argument("--traces", type=Path, default=DEFAULT_TRACES)
    ap.add_argument("--repeat", type=int, default=None,
                    help="repetitions of each executor (default 5, scale and scale40: 3)")
    ap.add_argument("--runs", type=int, default=200, help="runs of the default sweep")
    ap.add_argument("--executors", nargs="+", type=executor_name, default=None,
                    help="serial, poolN, daskN (default: serial pool1 pool2; scale and "
                         "scale40: and dask2)")
    ap.add_argument("--json", type=Path, default=None,
                    help="where the results go (default benchmarks/results/sweep[-SPEC].json)")
    ap.add_argument("--src", type=Path, default=SRC,
                    help="the ckptsim source folder to measure (default: this checkout's "
                         "src), e.g. an older version unpacked with `git archive`")
    ap.add_argument("--timeline", action="store_true",
                    help="keep each run's row arrival, worker and wall time in the JSON")
    ap.add_argument("--child", nargs=3, metavar=("EXECUTOR", "SPEC", "OUT"),
                    help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], Path(args.child[1]), Path(args.child[2]))))
        return 0
    args.traces = args.traces.resolve()  # the spec is written in a temporary folder
    scale = args.spec != "default"
    repeat = args.repeat or (3 if scale else 5)
    names = args.executors or (["serial", "pool1", "pool2"] + (["dask2"] if scale else []))
    if any(executor_kind(n)[0] == "dask" for n in names):
        try:
            import distributed  # noqa: F401
        except ImportError:
            print("distributed is not installed: Dask is left out")
            names = [n for n in names if executor_kind(n)[0] != "dask"]
    if scale:
        missing = [t for t in SCALE_TRACES if not (args.traces / t).is_file()]
        if missing:
            raise SystemExit(f"--spec {args.spec} needs {', '.join(missing)} in {args.traces}")
        if args.spec == "scale":
            text, what = SCALE.format(traces=args.traces), (
                "160 runs: 4 traces x 4 windows x 5 alpha, first 10000 jobs, easy and "
                "ckpt-backfill")
        else:
            text, what = SCALE40.format(traces=args.traces), (
                "64 runs: 4 traces x 4 windows x 2 alpha, first 40000 jobs, easy and "
                "ckpt-backfill")
    else:
        text, what = default_spec(args.traces, args.runs)
    load0 = os.getloadavg()
    print(f"cores: {os.cpu_count()}; load average before: {load0[0]:.2f} {load0[1]:.2f}")
    print(f"sweep ({args.spec}): {what}; {repeat} interleaved repetitions")
    measured: dict[str, list[dict[str, Any]]] = {n: [] for n in names}
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "bench.toml"
        spec.write_text(text)
        for _ in range(repeat):
            for name in names:
                measured[name].append(measure(name, spec, Path(tmp) / "store", args.src))
    results = {}
    print(f"{'executor':30s} {'wall s':>7s} {'runs/s':>7s} {'run ms':>7s} {'run cpu':>8s} "
          f"{'start s':>7s} {'ovh cpu ms':>10s} {'ovh wall ms':>11s} {'all cpu s':>9s}")
    for name in names:
        label, workers = executor_label(name), executor_kind(name)[1]
        r = summarise(label, workers, measured[name])
        results[name] = r
        total = "-" if r["total_cpu_s"] is None else f"{r['total_cpu_s']:.2f}"
        print(f"{label:30s} {r['wall_s']:7.2f} {r['runs_per_s']:7.2f} "
              f"{r['mean_run_wall_ms']:7.1f} {r['mean_run_cpu_ms']:8.1f} {r['startup_s']:7.2f} "
              f"{r['cpu_overhead_per_run_ms']:10.2f} {r['wall_overhead_per_run_ms']:11.2f} "
              f"{total:>9s}")
    doc: dict[str, Any] = {"spec": args.spec, "sweep": what, "repeat": repeat,
                           "load_before": load0[:2], "executors": results}
    if "pool1" in results and "pool2" in results:
        doc["speedup_2_over_1"] = round(results["pool1"]["wall_s"] / results["pool2"]["wall_s"],
                                        2)
        doc["cpu_estimate_speedup_2_over_1"] = round(
            results["pool1"]["cpu_estimate_wall_s"] / results["pool2"]["cpu_estimate_wall_s"], 2)
        print(f"speedup, pool of 2 over pool of 1: {doc['speedup_2_over_1']:.2f}x (wall); "
              f"{doc['cpu_estimate_speedup_2_over_1']:.2f}x (estimate from CPU times: start-up "
              "+ CPU / workers, as on an idle machine)")
    if "dask2" in results and "pool2" in results:
        doc["dask_over_pool_wall"] = round(results["dask2"]["wall_s"]
                                           / results["pool2"]["wall_s"], 2)
        doc["dask_over_pool_cpu_estimate"] = round(
            results["dask2"]["cpu_estimate_wall_s"] / results["pool2"]["cpu_estimate_wall_s"], 2)
        # Each Dask sweep ran right after a pool sweep: the ratio within each pair is less
        # affected by the load drifting over the benchmark than the ratio of the best walls.
        pairs = [d["wall_s"] / p["wall_s"]
                 for p, d in zip(measured["pool2"], measured["dask2"], strict=True)]
        doc["dask_over_pool_wall_paired"] = [round(x, 2) for x in pairs]
        print(f"Dask LocalCluster / pool, 2 workers each: {doc['dask_over_pool_wall']:.2f} "
              f"(best walls; per pair {', '.join(f'{x:.2f}' for x in pairs)}), "
              f"{doc['dask_over_pool_cpu_estimate']:.2f} (estimate from CPU times)")
        p_cpu, d_cpu = results["pool2"]["total_cpu_s"], results["dask2"]["total_cpu_s"]
        if p_cpu and d_cpu:
            doc["dask_over_pool_total_cpu"] = round(d_cpu / p_cpu, 3)
            print(f"Dask LocalCluster / pool, CPU of all processes (start-ups included): "
                  f"{doc['dask_over_pool_total_cpu']:.3f}")
    load1 = os.getloadavg()
    doc["load_after"] = load1[:2]
    print(f"load average after: {load1[0]:.2f} {load1[1]:.2f}")
    if "pool1" in results:
        base = results["pool1"]["wall_s"]
        doc["efficiency_over_pool1"] = {
            n: round(base / (r["wall_s"] * r["workers"]), 3) for n, r in results.items()
            if n != "serial"}
        print("efficiency (pool of 1's wall / (wall x workers)): " + ", ".join(
            f"{n} {e:.0%}" for n, e in doc["efficiency_over_pool1"].items()))
    if args.timeline:
        doc["measurements"] = {n: [{k: m[k] for k in ("wall_s", "startup_s", "rows",
                                                       "timeline")} for m in ms]
                               for n, ms in measured.items()}
    if args.json is None:
        (HERE / "results").mkdir(exist_ok=True)
        name = "sweep.json" if not scale else f"sweep-{args.spec}.json"
        args.json = HERE / "results" / name
    args.json.write_text(json.dumps(doc, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
