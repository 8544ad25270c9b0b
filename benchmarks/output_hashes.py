"""Hashes of the outputs of `ckptsim run` on real traces, to prove that a change of the engine
or the policies leaves every output byte-identical.

    python benchmarks/output_hashes.py [--traces DIR] [--only NAME...] [--save FILE]
    python benchmarks/output_hashes.py --check benchmarks/output_hashes.json

Each case runs `python -m ckptsim run --workload TRACE --scheduler S [--set ...] [--first N]
--out TMP` in a fresh process (the code of this checkout: its `src` goes first on
PYTHONPATH; `--src DIR` runs other sources, e.g. an unmodified export) and prints the sha256
of jobs.csv, summary.json and schedule.swf, the files' bytes as the run wrote them.  The run
starts in the trace folder and is given the trace's file name (TRACE is e.g.
`SDSC-SP2-1998-4.2-cln.swf.gz`), so that summary.json, which records the trace path as given
(`workload.source`), is the same wherever the checkout and the traces are.  The cases are
easy, fcfs, conservative and ckpt-backfill (p = 0.2) on HPC2N-2002-2.2-cln,
CEA-Curie-2011-2.1-cln, SDSC-SP2-1998-4.2-cln and CTC-SP2-1996-3.1-cln, bgl-fcfs on the first
5,000 jobs of SDSC-SP2, then a few runs through the engine's rarer paths (overrun=kill,
failures on SDSC-SP2 and on the first jobs of CEA-Curie, the invariant checker).  `--save`
writes the hashes as JSON; `--check` compares them with a saved file (only the cases run) and
exits 1 on any difference.
"""

from __future__ import annotations

import argparse
import hashlib
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
TRACES = ("HPC2N-2002-2.2-cln.swf.gz", "CEA-Curie-2011-2.1-cln.swf.gz",
          "SDSC-SP2-1998-4.2-cln.swf.gz", "CTC-SP2-1996-3.1-cln.swf.gz")
SCHEDULERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("easy", ()), ("fcfs", ()), ("conservative", ()), ("ckpt-backfill", ("--set", "p=0.2")))
OUTPUTS = ("jobs.csv", "summary.json", "schedule.swf")


def cases() -> list[tuple[str, str, str, tuple[str, ...]]]:
    """(case name, trace file, scheduler, extra arguments)."""
    out = [(f"{t.split('-cln')[0]}/{s}", t, s, extra) for t in TRACES for s, extra in SCHEDULERS]
    out.append(("SDSC-SP2-1998-4.2/bgl-fcfs/first5000", "SDSC-SP2-1998-4.2-cln.swf.gz",
                "bgl-fcfs", ("--first", "5000")))
    # The engine's less travelled paths: run-time limits, failures (kills, requeues, nodes
    # down, on a machine of one block and of many), the invariant checker.
    sdsc, cea = "SDSC-SP2-1998-4.2-cln.swf.gz", "CEA-Curie-2011-2.1-cln.swf.gz"
    fail = ("--failures", "synthetic:mtbf=20000000,repair_mean=3600")
    out += [
        ("SDSC-SP2-1998-4.2/easy/overrun-kill", sdsc, "easy", ("--overrun", "kill")),
        ("SDSC-SP2-1998-4.2/easy/failures", sdsc, "easy", fail),
        ("SDSC-SP2-1998-4.2/ckpt-backfill/failures", sdsc, "ckpt-backfill", fail),
        ("SDSC-SP2-1998-4.2/ckpt-backfill/check", sdsc, "ckpt-backfill", ("--check",)),
        ("CEA-Curie-2011-2.1/easy/failures/first30000", cea, "easy",
         ("--first", "30000", "--failures", "synthetic:mtbf=1000000000,repair_mean=36000")),
        ("CEA-Curie-2011-2.1/ckpt-backfill/failures/first30000", cea, "ckpt-backfill",
         ("--first", "30000", "--failures", "synthetic:mtbf=1000000000,repair_mean=36000")),
    ]
    return out


def run_case(trace: Path, scheduler: str, extra: tuple[str, ...],
             src: Path = SRC) -> tuple[dict[str, str], float]:
    """The hashes of a case's outputs, run from the trace's folder on the trace's file name
    (summary.json records the path as given: the same from any checkout)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(src.resolve()), env.get("PYTHONPATH"))
                                        if p)
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "ckptsim", "run", "--workload", trace.name, "--scheduler",
               scheduler, *extra, "--out", tmp]
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, env=env, cwd=trace.parent, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stderr}")
        return {name: hashlib.sha256((Path(tmp) / name).read_bytes()).hexdigest()
                for name in OUTPUTS}, wall


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--traces", type=Path, default=DEFAULT_TRACES,
                    help="the folder of the traces (default: ../shared/data/traces beside the "
                         "checkout); summary.json names a trace by its file name alone, so "
                         "the hashes do not depend on it")
    ap.add_argument("--only", nargs="*", default=None,
                    help="case names (or parts of them, e.g. HPC2N or /easy) to run")
    ap.add_argument("--save", type=Path, default=None, help="write the hashes here (JSON)")
    ap.add_argument("--check", type=Path, default=None,
                    help="compare with these hashes: jobs.csv, summary.json and schedule.swf "
                         "byte for byte, from any checkout")
    ap.add_argument("--src", type=Path, default=SRC,
                    help="the package sources to run (default: this checkout's src)")
    args = ap.parse_args()
    expected = json.loads(args.check.read_text()) if args.check else {}
    got: dict[str, dict[str, str]] = {}
    bad = 0
    for name, tname, scheduler, extra in cases():
        if args.only and not any(part in name for part in args.only):
            continue
        trace = args.traces / tname
        if not trace.exists():
            print(f"skip {name}: {trace} not found")
            continue
        hashes, wall = run_case(trace, scheduler, extra, args.src)
        got[name] = hashes
        verdict = ""
        if args.check:
            if name not in expected:
                verdict = "  (no saved hashes)"
            elif expected[name] != hashes:
                verdict = "  DIFFERENT: " + ", ".join(
                    k for k in OUTPUTS if expected[name].get(k) != hashes[k])
                bad += 1
            else:
                verdict = "  same"
        short = " ".join(f"{k}={v[:12]}" for k, v in hashes.items())
        print(f"{name:42s} {short}  ({wall:.1f} s){verdict}", flush=True)
    if args.save:
        args.save.parent.mkdir(parents=True, exist_ok=True)
        args.save.write_text(json.dumps(got, indent=2, sort_keys=True) + "\n")
    if args.check:
        print(f"{len(got) - bad} of {len(got)} cases identical to {args.check}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
