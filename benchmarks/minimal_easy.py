"""A minimal EASY backfilling replay: the reference loop `ckptsim run --scheduler easy` is
measured against (benchmarks/bench_replay.py).

    python benchmarks/minimal_easy.py TRACE.swf[.gz] [--out starts.csv]

Same jobs and same rules as ckptsim's default loader and `easy` scheduler, nothing else:

- loader: records with a run time < 0 are dropped; the size is the requested processors
  (field 8), or the allocated ones (field 5) when unknown; sizes <= 0 or larger than the
  machine (header MaxProcs, else MaxNodes) are dropped; the estimate is the requested time
  (field 9), or the run time when unknown; jobs are stably sorted by submit time;
- events: at each timestamp all job ends first, then all submissions, then one pass;
- pass: start jobs from the queue head while they fit; for a blocked head, walk the running
  jobs by (predicted end = start + estimate, start order) until the head fits: the shadow
  time is that job's predicted end (or now if past), the extra nodes what is left over; then
  every later job that fits the free nodes is backfilled if now + estimate <= shadow, or if
  it uses no more than the extra nodes (which it then consumes).

It prints its wall and CPU seconds and, with --out, writes `job_id,start` lines in workload
order.  Its start times equal the `start` column of ckptsim's jobs.csv on
HPC2N-2002-2.2-cln (202,871 jobs): checked with --check JOBS_CSV, which exits 1 on any
difference.
"""

from __future__ import annotations

import argparse
import gzip
import re
import sys
import time
from bisect import insort
from heapq import heappop, heappush


def load(path: str) -> tuple[list[tuple[float, int, float, float, int]], int]:
    """(submit, job id, runtime, estimate, size) rows in submit order, and the machine size."""
    opener = gzip.open if path.endswith(".gz") else open
    rows = []
    header: dict[str, str] = {}
    with opener(path, "rt") as f:
        for line in f:
            s = line.strip()
            if not s:
                continue
            if s[0] == ";":
                key, sep, value = s[1:].partition(":")
                if sep:
                    header.setdefault(key.strip(), value.strip())
                continue
            v = s.split()
            runtime = float(v[3])
            if runtime < 0:
                continue
            size = int(float(v[7]))
            if size < 0:
                size = int(float(v[4]))
            req = float(v[8])
            rows.append((float(v[1]), int(float(v[0])), runtime, req if req >= 0 else runtime,
                         size))
    machine = 0
    for key in ("MaxProcs", "MaxNodes"):
        m = re.match(r"\s*(\d+)", header.get(key, ""))
        if m and int(m.group(1)) >= 1:
            machine = int(m.group(1))
            break
    rows = [r for r in rows if 0 < r[4] <= machine]
    rows.sort(key=lambda r: r[0])  # stable
    return rows, machine


def simulate(rows: list[tuple[float, int, float, float, int]], machine: int) -> list[float]:
    n = len(rows)
    start = [0.0] * n
    size = [r[4] for r in rows]
    est = [r[3] for r in rows]
    runtime = [r[2] for r in rows]
    submit = [r[0] for r in rows]
    free = machine
    ends: list[tuple[float, int]] = []  # (end time, start order... via index) heap
    running: list[tuple[float, int, int]] = []  # sorted (predicted end, start seq, job)
    queue: list[int] = []
    seq = 0
    i = 0
    inf = float("inf")
    while ends or i < n:
        t = ends[0][0] if ends else inf
        if i < n and submit[i] < t:
            t = submit[i]
        while ends and ends[0][0] == t:
            _, _, j = heappop(ends)
            free += size[j]
            for k, key in enumerate(running):  # noqa: B007 (small list)
                if key[2] == j:
                    del running[k]
                    break
        while i < n and submit[i] == t:
            queue.append(i)
            i += 1
        if not queue:
            continue
        # 1. start from the head
        k = 0
        while k < len(queue) and size[queue[k]] <= free:
            j = queue[k]
            free -= size[j]
            start[j] = t
            seq += 1
            heappush(ends, (t + runtime[j], seq, j))
            insort(running, (t + est[j], seq, j))
            k += 1
        del queue[:k]
        if not queue:
            continue
        # 2. reservation for the head
        need = size[queue[0]]
        future = free
        shadow_end = inf
        for pe, _, j in running:
            future += size[j]
            if future >= need:
                shadow_end = pe
                break
        extra = future - need if shadow_end < inf else 0
        shadow = shadow_end if shadow_end > t else t
        # 3. backfill
        k = 1
        while k < len(queue) and free > 0:
            j = queue[k]
            s = size[j]
            if s <= free:
                if t + est[j] <= shadow:
                    pass
                elif s <= extra:
                    extra -= s
                else:
                    k += 1
                    continue
                del queue[k]
                free -= s
                start[j] = t
                seq += 1
                heappush(ends, (t + runtime[j], seq, j))
                insort(running, (t + est[j], seq, j))
            else:
                k += 1
    return start


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--out", help="write job_id,start lines here")
    ap.add_argument("--check", help="compare the start times with this ckptsim jobs.csv")
    args = ap.parse_args()
    t0, c0 = time.perf_counter(), time.process_time()
    rows, machine = load(args.trace)
    t1 = time.perf_counter()
    start = simulate(rows, machine)
    t2, c2 = time.perf_counter(), time.process_time()
    print(f"minimal EASY: {len(rows)} jobs, {machine} nodes; load {t1 - t0:.2f} s, simulate "
          f"{t2 - t1:.2f} s, total {t2 - t0:.2f} s wall, {c2 - c0:.2f} s CPU")
    if args.out:
        with open(args.out, "w") as f:
            f.write("job_id,start\n")
            f.writelines(f"{r[1]},{s:g}\n" for r, s in zip(rows, start, strict=True))
    if args.check:
        with open(args.check) as f:
            cols = next(f).rstrip("\n").split(",")
            ij, ist = cols.index("job_id"), cols.index("start")
            theirs = [(int(v[ij]), float(v[ist])) for v in (ln.split(",") for ln in f)]
        mine = [(r[1], s) for r, s in zip(rows, start, strict=True)]
        diff = [(a, b) for a, b in zip(mine, theirs, strict=False) if a != b]
        if diff or len(mine) != len(theirs):
            print(f"MISMATCH: {len(diff)} of {len(mine)} start times differ "
                  f"({len(theirs)} rows in {args.check}); first: {diff[:3]}")
            return 1
        print(f"start times identical to {args.check} ({len(mine)} jobs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
