"""Rows of a store as tables: filter by parameter values, group with mean and 95% CI.

Rows are plain dicts (one per run, as stored); the functions here return plain data and the
command line prints it.  Column names may be written short (`alpha` for `workload.alpha`).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Sequence
from typing import Any

from ckptsim.errors import ConfigError
from ckptsim.experiments.columns import first_unmatched, resolve
from ckptsim.experiments.stats import mean_ci


def all_columns(rows: Iterable[dict[str, Any]]) -> list[str]:
    cols: list[str] = []
    seen: set[str] = set()
    for r in rows:
        for k in r:
            if k not in seen:
                seen.add(k)
                cols.append(k)
    return cols


def parse_where(items: Sequence[str] | None, columns: Sequence[str],
                rows: Sequence[dict[str, Any]] = ()) -> dict[str, tuple[str, ...]]:
    """`key=value` or `key=v1,v2` filters, keys resolved to columns.  A value holding commas
    (a checkpoint plan, a failure source) is one value where a run of `rows` holds it: see
    `split_values`.

    Raises:
        ConfigError: (key --where) a filter is not key=value, names no column, or names a
            column another filter names (they would have to hold together: one value of a
            column cannot equal two; the values go in one filter, `key=v1,v2`).
    """
    out: dict[str, tuple[str, ...]] = {}
    given: dict[str, str] = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError("--where", f"expected key=value, got {item!r}")
        column = _resolve("--where", key.strip(), columns)
        if column in out:
            both = f"{key.strip()}={given[column].partition('=')[2]},{value}"
            raise ConfigError("--where", f"{column} is filtered twice ({given[column]!r} and "
                                         f"{item!r}): filters must all hold; for runs with "
                                         f"any of its values, give them in one: {both}")
        given[column] = item
        out[column] = split_values(value, {v for r in rows if isinstance(v := r.get(column),
                                                                          str) and "," in v})
    return out


def split_values(text: str, held: set[str] | frozenset[str] = frozenset()) -> tuple[str, ...]:
    """The values of a filter's `v1,v2,...`: split at commas, except where consecutive parts
    joined by commas are a value the column holds (`held`: its values with a comma), the
    longest first -- so `fixed:interval=3600,cost=60` is one value, and so is each of two
    such values listed with a comma between them."""
    parts = text.split(",")
    out: list[str] = []
    i = 0
    while i < len(parts):
        for j in range(len(parts) if held else i + 1, i + 1, -1):
            whole = ",".join(parts[i:j]).strip()
            if whole in held:
                out.append(whole)
                i = j
                break
        else:
            out.append(parts[i].strip())
            i += 1
    return tuple(out)


def _resolve(option: str, name: str, columns: Sequence[str]) -> str:
    try:
        return resolve(name, columns)
    except KeyError as exc:
        raise ConfigError(option, str(exc.args[0])) from None


def resolve_columns(option: str, names: Sequence[str] | None, columns: Sequence[str]
                    ) -> list[str]:
    return [_resolve(option, n, columns) for n in names or ()]


def value_matches(value: Any, text: str) -> bool:
    """Does a stored value equal a value typed on the command line?"""
    if value is None:
        return text.lower() in ("", "none", "null")
    if isinstance(value, bool):
        return text.lower() in (("true", "1", "yes") if value else ("false", "0", "no"))
    if isinstance(value, (int, float)):
        try:
            return float(text) == float(value)
        except ValueError:
            return False
    return str(value) == text


def filter_rows(rows: Iterable[dict[str, Any]], where: dict[str, tuple[str, ...]]
                ) -> list[dict[str, Any]]:
    return [r for r in rows
            if all(any(value_matches(r.get(k), t) for t in texts) for k, texts in where.items())]


def why_none_match(rows: Sequence[dict[str, Any]], where: dict[str, tuple[str, ...]],
                   most: int = 12) -> str:
    """Why `filter_rows(rows, where)` is empty though `rows` is not: the first filter no run
    matches, with the values the column holds, or that the filters only fail together."""
    found = first_unmatched(rows, where, value_matches)
    if found is None:
        return "each --where filter matches some runs, but no run matches them all"
    key, seen = found
    # Values that hold commas are listed with semicolons between them, and alternatives
    # with "or", so that the note reads one way.
    sep = "; " if any("," in v for v in seen) else ", "
    shown = sep.join(seen[:most]) + (f"{sep}... ({len(seen)} values)" if len(seen) > most
                                     else "")
    wanted = where[key]
    asked = " or ".join(wanted) if any("," in v for v in wanted) else ",".join(wanted)
    return f"no run has {key}={asked}; its values: {shown}"


def varying(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> list[str]:
    """The columns among `columns` that take more than one value over `rows`."""
    return [c for c in columns if len({repr(r.get(c)) for r in rows}) > 1]


#: Inputs that do not make two runs different configurations: replications differ by seed;
#: the experiment name is a label.
NOT_CONFIGURATION = ("seed", "experiment")


def _groups(rows: Sequence[dict[str, Any]], by: Sequence[str]
            ) -> dict[tuple[str, ...], list[dict[str, Any]]]:
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault(tuple(repr(r.get(c)) for c in by), []).append(r)
    return groups


def pooled_inputs(rows: Sequence[dict[str, Any]], by: Sequence[str], inputs: Sequence[str]
                  ) -> list[str]:
    """The inputs (other than the seed) that vary inside some group of the `by` columns: a
    group that pools them mixes configurations, not only replications."""
    config = [c for c in inputs if c not in by and c not in NOT_CONFIGURATION]
    out: list[str] = []
    for members in _groups(rows, by).values():
        out += [c for c in varying(members, config) if c not in out]
    return [c for c in config if c in out]


def group(rows: Sequence[dict[str, Any]], by: Sequence[str], metrics: Sequence[str],
          inputs: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """One row per distinct value of the `by` columns (in order of first appearance): the
    number of runs, failures, and each metric's mean over the successful runs (`<metric>`),
    the half-width of its 95% confidence interval (`<metric>_ci95`) and the number of runs
    they are over (`<metric>_n`): the successful runs where the metric has a value
    (a metric may be NaN in some runs, e.g. a job class none of a run's jobs is in); an
    infinite value counts, making the mean infinite without an interval.

    The interval is over replications: a group whose runs differ in one of `inputs` (other
    than the seed) pools different configurations, and gets NaN instead of an interval --
    their spread says how the configurations differ, not how sure the mean is."""
    config = [c for c in inputs or () if c not in by and c not in NOT_CONFIGURATION]
    out = []
    for members in _groups(rows, by).values():
        ok = [r for r in members if r.get("status") == "ok"]
        agg: dict[str, Any] = {c: members[0].get(c) for c in by}
        agg["runs"] = len(members)
        agg["failed"] = len(members) - len(ok)
        mixed = bool(varying(members, config))
        for m in metrics:
            mean, half, n = mean_ci([r.get(m) for r in ok], infinite=True)
            agg[m] = mean
            agg[f"{m}_ci95"] = math.nan if mixed else half
            agg[f"{m}_n"] = n
        out.append(agg)
    return out


def grouped_columns(by: Sequence[str], metrics: Sequence[str]) -> list[str]:
    """The columns of `group`'s rows, in the order a CSV gives them."""
    return [*by, "runs", "failed"] + [c for m in metrics for c in (m, f"{m}_ci95", f"{m}_n")]


def partial(g: dict[str, Any], metric: str) -> bool:
    """Is the group's mean of `metric` over fewer runs than its successful ones (the metric
    missing or NaN in the others)?"""
    return 0 < g[f"{metric}_n"] < g["runs"] - g["failed"]


#: Said under a table whose means are marked `(n=N)`.
PARTIAL_NOTE = ("(n=N): that metric's mean and interval are over the N runs of the group "
                "where it has a value; it is missing or NaN in the group's other successful "
                "runs (e.g. none of their jobs is in the metric's class)")


def shown_inputs(rows: Sequence[dict[str, Any]], inputs: Sequence[str]) -> list[str]:
    """Inputs worth a column in a table: those that vary, except the seed and the registry
    name of the scheduler (its label, in `scheduler`, says the same in the user's words)."""
    return [c for c in varying(rows, inputs) if c not in ("seed", "scheduler_name")]


def run_rows(rows: Sequence[dict[str, Any]], inputs: Sequence[str], metrics: Sequence[str]
             ) -> tuple[list[str], list[dict[str, Any]]]:
    """Per-run table: the inputs that vary, the seed, the status and the metrics."""
    shown = [*shown_inputs(rows, inputs), "seed", "status", *metrics]
    return shown, [{c: r.get(c) for c in shown} for r in rows]


def to_csv(columns: Sequence[str], rows: Iterable[dict[str, Any]]) -> str:
    """CSV text; floats with repr precision, missing values empty."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for r in rows:
        w.writerow(["" if r.get(c) is None else _csv_value(r.get(c)) for c in columns])
    return buf.getvalue()


def _csv_value(v: Any) -> str:
    if isinstance(v, float):
        return "" if math.isnan(v) else repr(v)
    return str(v)


def export_columns(rows: Sequence[dict[str, Any]]) -> list[str]:
    """Every column, with the long traceback last."""
    cols = all_columns(rows)
    return [c for c in cols if c != "error"] + (["error"] if "error" in cols else [])

