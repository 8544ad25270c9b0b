"""Stored runs under the latest spec's names and columns.

A run's id is its identity, not the way a spec writes it: another spec that contains the same
run reuses its row, though the row was recorded with the columns of the spec that ran it.
Renamed workloads, labels and experiments are one case (`sweep.json`'s `names`); a checkpoint
plan written as a table in one spec and as its equivalent string in the next is another (the
row holds `workload.checkpoint.policy.cost`, the latest spec's runs `workload.checkpoint`).
`results`, `report` and `load_results` show each run of the latest sweep under the columns
that sweep gives it, so that grouping, filtering and the pooling check see the inputs the
latest spec varies.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ckptsim.experiments.columns import PARAM_PREFIX, WORKLOAD_PREFIX

#: The columns of a run that name it (not part of its identity), as `sweep.json`'s `names`.
NAME_COLUMNS = ("experiment", "workload", "scheduler")

#: Input columns of a row other than its names and the prefixed options and parameters.
OTHER_INPUTS = ("scheduler_name", "overrun", "seed")


def is_input(column: str) -> bool:
    """Is `column` one of a run's inputs (as `Run.columns` holds them), not a metric?"""
    return (column.startswith((WORKLOAD_PREFIX, PARAM_PREFIX)) or column in NAME_COLUMNS
            or column in OTHER_INPUTS)


def changed_inputs(runs: Iterable[Any], stored: Mapping[str, Mapping[str, Any]]
                   ) -> dict[str, dict[str, Any]]:
    """The runs whose stored row (in `stored`, by run id) holds other input columns than the
    run has in this spec (names aside: `sweep.json`'s `names` say how the latest spec names
    each run): run id -> the run's columns, for `sweep.json`'s `columns`.  Empty when every
    stored row matches (the usual case: nothing is recorded)."""
    out: dict[str, dict[str, Any]] = {}
    keys: dict[tuple[str, ...], tuple[str, ...]] = {}  # a row's columns -> its inputs

    def inputs(columns: Mapping[str, Any]) -> tuple[str, ...]:
        # Rows of one sweep share their columns: each set is sorted out once (a resumed
        # sweep of 100,000 runs compares them in a fraction of a second).
        names = tuple(columns)
        found = keys.get(names)
        if found is None:
            found = keys[names] = tuple(k for k in names if is_input(k)
                                        and k not in NAME_COLUMNS)
        return found

    for run in runs:
        row = stored.get(run.run_id)
        if row is None:
            continue
        now, then = inputs(run.columns), inputs(row)
        same = (then == now or set(then) == set(now)) and all(
            row[k] == run.columns[k] for k in now)
        if not same:
            out[run.run_id] = dict(run.columns)
    return out


def as_current(rows: list[dict[str, Any]], manifest: Mapping[str, Any]
               ) -> list[dict[str, Any]]:
    """`rows` with the names and input columns the latest sweep (its `manifest`) gives each
    of its runs; runs outside its matrix are left as stored."""
    columns = manifest.get("columns")
    if isinstance(columns, dict) and columns:
        rows = [_replace_inputs(row, columns[row["run_id"]]) if row["run_id"] in columns
                else row for row in rows]
    order, names = manifest.get("runs", []), manifest.get("names")
    if isinstance(names, list) and len(names) == len(order):
        # A run keeps its id when its workload, label or experiment is renamed: it is shown
        # under the names the latest spec gives it.
        now = dict(zip(order, names, strict=True))
        rows = [{**row, **dict(zip(NAME_COLUMNS, now[row["run_id"]], strict=True))}
                if row["run_id"] in now else row for row in rows]
    return rows


def _replace_inputs(row: dict[str, Any], columns: Mapping[str, Any]) -> dict[str, Any]:
    """The row with its input columns replaced by the run's `columns` (in their order, after
    the run id, as a sweep records a row)."""
    return {"run_id": row["run_id"], **columns,
            **{k: v for k, v in row.items() if k != "run_id" and not is_input(k)}}
