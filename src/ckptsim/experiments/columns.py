"""Column names of the results store, and how short names given by a user resolve to them.

A row of the store has three kinds of columns:

- run columns with bare names: `run_id`, `experiment`, `workload`, `scheduler`, `seed`,
  `status`, ... (see `RUN_COLUMNS`);
- parameter columns with a prefix, so a scheduler parameter can never collide with a workload
  option or a metric: `workload.alpha`, `workload.first`, `param.requeue`, ...;
- the summary metrics with their bare names (`mean_wait`, `mean_bsld`, ...), as in
  `summary.json`.

Users may write `alpha` for `workload.alpha` and `requeue` for `param.requeue` wherever a
column is named (figures, `--where`, `--group-by`) as long as the short name is unambiguous.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ckptsim.errors import did_you_mean

WORKLOAD_PREFIX = "workload."
PARAM_PREFIX = "param."
PREFIXES = (WORKLOAD_PREFIX, PARAM_PREFIX)

#: Columns describing a run that are not parameters or metrics.
RUN_COLUMNS: tuple[str, ...] = (
    "run_id", "experiment", "status", "error", "error_message", "events", "sim_seconds",
    "run_seconds", "finished_at", "host", "pid", "ckptsim_version",
)

#: Columns that differ between two executions of the same run (timing and placement).
TIMING_COLUMNS: tuple[str, ...] = ("sim_seconds", "run_seconds", "finished_at", "host", "pid")


def resolve(name: str, available: Iterable[str]) -> str:
    """The column `name` designates among `available`.

    Raises:
        KeyError: with a message naming the accepted columns, when `name` matches none or is
            ambiguous.
    """
    cols = list(available)
    if name in cols:
        return name
    matches = [p + name for p in PREFIXES if p + name in cols]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise KeyError(f"{name!r} is ambiguous: write {' or '.join(matches)}")
    shown = short_names(cols)
    raise KeyError(f"unknown column {name!r}{did_you_mean(name, shown)}; accepted: "
                   f"{', '.join(shown)}")


def shadowed(name: str, columns: Iterable[str]) -> list[str]:
    """The prefixed columns a bare `name` does not designate because a column has that very
    name (the metric `failures` and the input `workload.failures`): `resolve` picks the bare
    one, which a user grouping or filtering by the input may not expect."""
    cols = list(columns)
    return [p + name for p in PREFIXES if p + name in cols] if name in cols else []


def short_names(columns: Iterable[str]) -> list[str]:
    """Columns as a user may write them: without prefix where that is unambiguous."""
    cols = list(columns)
    out = []
    for c in cols:
        short = c
        for p in PREFIXES:
            if c.startswith(p):
                stem = c[len(p):]
                clash = stem in cols or sum(q + stem in cols for q in PREFIXES) > 1
                short = c if clash else stem
        out.append(short)
    return out


def first_unmatched(rows: Sequence[Mapping[str, Any]], where: Mapping[str, Sequence[Any]],
                    matches: Callable[[Any, Any], bool]) -> tuple[str, list[str]] | None:
    """Why a filter selects no row: the first `where` key whose accepted values no row
    holds (`matches(value, accepted)`), with the distinct values the rows hold there, as
    text in order of appearance; None when every key matches some rows (they fail only
    together)."""
    for key, accepted in where.items():
        if not any(any(matches(r.get(key), a) for a in accepted) for r in rows):
            return key, list(dict.fromkeys(str(r.get(key)) for r in rows))
    return None
