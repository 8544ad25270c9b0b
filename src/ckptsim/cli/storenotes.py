"""What `sweep`, `results` and `report` say on stderr about a store: damaged or unchecked run
files, runs of the latest sweep not in it, groups pooling configurations, a bare name that
means a run column or metric rather than an input."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def note_not_run(rows: list[dict[str, Any]], manifest: dict[str, Any], store: str) -> None:
    """Say so when runs of the latest sweep's matrix are not in the store (the sweep was
    interrupted, or their file was damaged): its table is then not the whole experiment."""
    matrix = manifest.get("runs", [])
    present = {r.get("run_id") for r in rows}
    missing = sum(rid not in present for rid in matrix)
    if missing:
        print(f"note: {missing} of the {len(matrix)} runs of the latest sweep are not in the "
              f"store (not run yet: an interrupted sweep?); run the same sweep again with --out "
              f"{store} to finish them", file=sys.stderr)


def warn_damaged_runs(root: str, damaged: list[tuple[str, str]]) -> int:
    """Name every damaged run file on stderr; exit status 2 when there is one (the readable
    runs are still shown)."""
    for path, why in damaged:
        print(f"ckptsim: error: {root}: damaged run file {path} ({why}); its runs are not "
              "shown: rerun the sweep to recompute them (it sets damaged files aside in "
              "DIR/damaged)", file=sys.stderr)
    return 2 if damaged else 0


def note_shadowed(args: argparse.Namespace, columns: list[str]) -> None:
    """Say which column a bare name means where an input has the same name after its prefix
    (`--group-by failures` is the metric `failures`, not the input `workload.failures`)."""
    from ckptsim.experiments.columns import RUN_COLUMNS, shadowed

    typed = [*(args.group_by or ()), *(w.partition("=")[0].strip() for w in args.where or ()),
             *([args.versus.partition("=")[0].strip()] if args.versus else [])]
    for name in dict.fromkeys(typed):
        other = shadowed(name, columns)
        if other:
            kind = ("run column" if name in (*RUN_COLUMNS, "workload", "scheduler", "seed")
                    else "metric")
            print(f"note: {name} is the {kind} {name}; for the input of that name, write "
                  f"{' or '.join(other)}", file=sys.stderr)


def note_pooled(pooled: list[str]) -> None:
    if pooled:
        print(f"note: the groups pool runs of different configurations ({', '.join(pooled)} "
              f"vary within them), so their spread is not a confidence interval over "
              f"replications; add {' '.join(pooled)} to --group-by, or filter with --where, "
              "for one row per configuration", file=sys.stderr)


def warn_damaged_jobs(damaged: list[tuple[str, str]]) -> None:
    for path, why in damaged:
        print(f"ckptsim: warning: damaged per-job file {path} ({why}); rerun the sweep "
              "to recompute its run", file=sys.stderr)


def note_unchecked(paths: list[str], then: str) -> None:
    if paths:
        more = f" and {len(paths) - 3} more" if len(paths) > 3 else ""
        print(f"ckptsim: note: {len(paths)} run table(s) without a recorded SHA-256 (written "
              f"by an earlier version; checked by their own checksums only): "
              f"{', '.join(paths[:3])}{more}; {then}", file=sys.stderr)
