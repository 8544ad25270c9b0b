"""Energy benchmark: the cost of the energy meter and the power manager on a real trace.

    python benchmarks/bench_energy.py [--trace HPC2N-2002-2.2-cln.swf.gz] [--repeat 3]
        [--scheduler easy] [--base DIR]

Runs, alternately and each in a fresh process, `ckptsim run --workload TRACE --scheduler S
--out TMP` with the sources of --base (another checkout's src, e.g. the main branch: the time
before), with this checkout's src unchanged (energy off: must stay within 5% of the base), with
the energy meter (`--component energy:active=200,idle=100,sleep=5`), with the meter and the
idle-timeout power manager (`--component power:idle_timeout=900`; target: within 1.5x of
energy off), and with a 60 s, 6 kJ wake-up on top (`wake_time=60,wake_energy=6000`: every
job started on a sleeping machine is delayed).  Times are CPU seconds (user + sys of the
child, os.wait4), best of --repeat rounds.  Results go to benchmarks/results/energy.json.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_replay import DEFAULT_TRACES, SRC, child_env, run_cmd

HERE = Path(__file__).resolve().parent
POWER = ["--component", "energy:active=200,idle=100,sleep=5", "--component",
         "power:idle_timeout=900"]
METER = ["--component", "energy:active=200,idle=100,sleep=5"]
WAKE = ["--component", "energy:active=200,idle=100,sleep=5,wake_time=60,wake_energy=6000",
        "--component", "power:idle_timeout=900"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", default="HPC2N-2002-2.2-cln.swf.gz")
    ap.add_argument("--traces", type=Path, default=DEFAULT_TRACES)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--scheduler", default="easy")
    ap.add_argument("--base", type=Path, default=None,
                    help="sources to compare with (default: none, only this checkout)")
    args = ap.parse_args()
    trace = args.traces / args.trace
    if not trace.exists():
        print(f"skip {args.trace}: not found in {args.traces}")
        return 0
    configs: list[tuple[str, Path, list[str]]] = []
    if args.base is not None:
        configs.append(("base", args.base, []))
    configs += [("energy off", SRC, []), ("meter", SRC, METER), ("meter + power", SRC, POWER),
                ("+ wake 60 s", SRC, WAKE)]
    for _, src, _ in configs:
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(src / "ckptsim")],
                       env=child_env(src), check=True, stdout=subprocess.DEVNULL)
    best: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.repeat):
            for name, src, extra in configs:  # alternate, so load changes hit all alike
                cmd = [sys.executable, "-m", "ckptsim", "run", "--workload", str(trace),
                       "--scheduler", args.scheduler, "--out", str(Path(tmp) / "o"), *extra]
                cpu, wall, _ = run_cmd(cmd, src)
                old = best.get(name)
                best[name] = (min(cpu, old[0]), min(wall, old[1])) if old else (cpu, wall)
    rows = []
    off = best["energy off"][0]
    for name, _, _ in configs:
        cpu, wall = best[name]
        row = {"trace": args.trace, "scheduler": args.scheduler, "config": name,
               "cpu_best_s": round(cpu, 3), "wall_best_s": round(wall, 3),
               "ratio_to_energy_off": round(cpu / off, 3)}
        if "base" in best:
            row["ratio_to_base"] = round(cpu / best["base"][0], 3)
        rows.append(row)
        print(f"{name:16s} cpu {cpu:7.2f} s  wall {wall:7.2f} s  "
              + "  ".join(f"{k} {v:.3f}" for k, v in row.items() if k.startswith("ratio")),
              flush=True)
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    (out / "energy.json").write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
