"""Reading benchmark: CPU time of `read_swf` (parse, check every record, apply the loader rules).

    python benchmarks/bench_read.py [--traces DIR] [--repeat 7] [NAME ...]

Reads each trace (default: HPC2N-2002-2.2-cln and CEA-Curie-2011-2.1-cln, the largest ones)
--repeat times in this process and prints the best and median CPU milliseconds (user + sys of
the process, so other work on a shared machine counts less than with wall time) and the jobs
kept.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from ckptsim.workload.swf import read_swf

TRACES = Path(__file__).resolve().parents[2] / "shared" / "data" / "traces"
DEFAULT = ("HPC2N-2002-2.2-cln.swf.gz", "CEA-Curie-2011-2.1-cln.swf.gz")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", default=list(DEFAULT))
    ap.add_argument("--traces", type=Path, default=TRACES)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    for name in args.names:
        path = args.traces / name
        times = []
        for _ in range(args.repeat):
            t0 = time.process_time()
            w = read_swf(path)
            times.append(time.process_time() - t0)
        print(f"{name}: {w.n_jobs:,} jobs; read CPU best {min(times) * 1000:.0f} ms, median "
              f"{statistics.median(times) * 1000:.0f} ms over {args.repeat}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
