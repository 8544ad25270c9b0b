"""Each replication of the prediction figures (6-10): figN-replications.csv beside figN.csv, a
row per configuration (trace, load, failure count, level) and replication (`seed`), so that the
claims pair two levels per replication (the same thinning of the failure log, the same jobs)
instead of combining their intervals as independent."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ckptsim.experiments.papers.common import write_csv

#: The metrics each replication's row holds (the ones figN.csv gives an interval).
METRICS = ("mean_response_bsld", "capacity_utilized", "capacity_unused", "capacity_lost")


def replication_rows(rows: list[dict[str, Any]], x: str, keys: Sequence[str],
                     traces: Sequence[str]) -> list[dict[str, Any]]:
    """One row per (trace, load, `keys`, the x value) and seed, in figN.csv's order (then by
    seed), with figN.csv's column names; the mean of a configuration's rows is its figN.csv
    value."""
    out = []
    for row in rows:
        point: dict[str, Any] = {"trace": row["workload"],
                                 "load_scale": float(row["workload.load_scale"])}
        point.update({k.split(".")[-1]: float(row[k]) for k in keys})
        point[x.split(".")[-1]] = float(row[x])
        point["seed"] = int(row["seed"])
        point.update({m: float(row[m]) for m in METRICS})
        out.append(point)
    order = list(traces)
    rank = {t: i for i, t in enumerate(order)}
    names = [k.split(".")[-1] for k in keys] + [x.split(".")[-1]]
    out.sort(key=lambda p: (rank.get(p["trace"], len(order)), p["trace"], p["load_scale"],
                            *(p[n] for n in names), p["seed"]))
    return out


def write_replications(figure: str, out: Path, runs: list[dict[str, Any]],
                       table: list[dict[str, Any]]) -> None:
    """figN-replications.csv: the replications of the configurations figN.csv shows."""
    shown = {(p["trace"], p["load_scale"]) for p in table}
    write_csv(out / f"{figure}-replications.csv",
              [r for r in runs if (r["trace"], r["load_scale"]) in shown])
