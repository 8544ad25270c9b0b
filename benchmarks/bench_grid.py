"""Grid model micro-benchmark: the link allotment under churn and the seed-001 workload size.

    python benchmarks/bench_grid.py [--jobs 10 20 40] [--ops 100000] [--n 400000] [--json OUT]

``links``: a LinkState on 4 links of 1 Gbps holding about K co-allocated jobs (widths 5..20
split over 2-4 clusters, PPBW uniform on 150..450 Mbit/s); each step removes a random job
and adds a new one.  Two regimes: ``admitted`` (a job is added only if its demand fits, as
with accurate estimates: links never saturate) and ``oversubscribed`` (every job is added,
links stay saturated and every change runs the progressive filling).  Reports CPU
microseconds per add and per remove, the mean number of jobs recomputed per call, and the
cost of one `split_demand`.

``workload``: generating the seed's 400,000 jobs per cluster (1.6 million) in a fresh
process: CPU seconds (user + sys from os.wait4) and peak resident memory.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

from ckptsim.platform.links import split_demand
from ckptsim.platform.linkstate import LinkState

ROOT = Path(__file__).resolve().parents[1]


def random_split(rng: random.Random) -> list[int]:
    n = rng.randint(5, 20)
    parts = rng.randint(2, 4)
    clusters = rng.sample(range(4), parts)
    cuts = sorted(rng.sample(range(1, n), parts - 1))
    sizes = [b - a for a, b in zip([0, *cuts], [*cuts, n], strict=True)]
    split = [0] * 4
    for c, k in zip(clusters, sizes, strict=True):
        split[c] = k
    return split


def bench_links(k: int, ops: int, admitted: bool, seed: int = 1) -> dict[str, float]:
    rng = random.Random(seed)
    demands = [split_demand(random_split(rng), rng.uniform(150, 450)) for _ in range(4096)]
    if admitted:  # scale demands so that about k jobs fit on the links together
        mean = sum(sum(d) for d in demands) / (4 * len(demands))
        demands = [tuple(v * 700.0 / (k * mean) for v in d) for d in demands]
    state = LinkState([1000.0] * 4)
    running: list[int] = []
    next_id = 0
    while len(running) < k:
        d = demands[next_id % len(demands)]
        if not admitted or state.fits(d):
            state.add(next_id, d)
            running.append(next_id)
        next_id += 1
        if next_id > 100 * k:
            break
    t_add = t_remove = 0.0
    n_add = n_remove = 0
    scope = 0
    for _ in range(ops):
        gone = running.pop(rng.randrange(len(running)))
        t0 = time.process_time()
        state.remove(gone)
        t_remove += time.process_time() - t0
        n_remove += 1
        scope += len(state.last_scope)
        for _ in range(8):  # try a few candidates, as a scheduler would
            d = demands[next_id % len(demands)]
            next_id += 1
            if not admitted or state.fits(d):
                t0 = time.process_time()
                state.add(next_id, d)
                t_add += time.process_time() - t0
                n_add += 1
                scope += len(state.last_scope)
                running.append(next_id)
                break
    n_calls = 20_000
    splits = [random_split(rng) for _ in range(n_calls)]
    t0 = time.process_time()
    for split in splits:
        split_demand(split, 300.0)
    t_demand = time.process_time() - t0
    return {"jobs": k, "regime": "admitted" if admitted else "oversubscribed",
            "running_at_end": len(running), "saturated_links": len(state.saturated_links()),
            "add_us": 1e6 * t_add / max(n_add, 1), "remove_us": 1e6 * t_remove / n_remove,
            "scope_per_call": scope / (n_add + n_remove),
            "split_demand_us": 1e6 * t_demand / n_calls}


def bench_workload(n: int) -> dict[str, float]:
    code = ("from ckptsim.workload.grid import GridParams, generate_grid\n"
            f"w = generate_grid(GridParams(n={n}), seed=1)\nprint(w.n_jobs)\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    out = proc.stdout.read().decode().strip() if proc.stdout else ""
    if status != 0:
        raise SystemExit(f"workload generation failed (status {status})")
    return {"jobs": int(out), "cpu_s": usage.ru_utime + usage.ru_stime,
            "peak_mb": usage.ru_maxrss / 1024}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, nargs="+", default=[10, 20, 40])
    ap.add_argument("--ops", type=int, default=100_000)
    ap.add_argument("--n", type=int, default=400_000, help="jobs per cluster (0: skip)")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    rows = []
    for k in args.jobs:
        for admitted in (True, False):
            r = bench_links(k, args.ops, admitted)
            rows.append(r)
            print(f"links {r['regime']:>14} K={k:>3}: add {r['add_us']:6.1f} us, remove "
                  f"{r['remove_us']:6.1f} us, {r['scope_per_call']:5.1f} jobs recomputed/call, "
                  f"{r['running_at_end']} running, {r['saturated_links']} links saturated; "
                  f"split_demand {r['split_demand_us']:.1f} us")
    doc: dict[str, object] = {"links": rows}
    if args.n:
        wl = bench_workload(args.n)
        doc["workload"] = wl
        print(f"workload: {wl['jobs']:,} jobs generated in {wl['cpu_s']:.2f} s CPU, "
              f"peak {wl['peak_mb']:.0f} MB")
    if args.json:
        Path(args.json).write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    main()
