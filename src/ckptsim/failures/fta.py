"""Reader of the Failure Trace Archive's event_trace files: `read_fta` and `fta_event_trace_path`.

FTA times are Unix seconds (UTC).  The shared parts (file text, windows, the returned trace) are
in `ckptsim.failures.logs`; users import the reader from `ckptsim.failures` or
`ckptsim.failures.readers`.  See docs/failures.md.
"""

from __future__ import annotations

import datetime as dt
import fnmatch
import math
import re
from collections.abc import Collection, Iterable
from os import PathLike
from pathlib import Path

import numpy as np

from ckptsim.errors import ConfigError, WorkloadError, shown
from ckptsim.failures.fta_columns import _read_fta_columns
from ckptsim.failures.logs import TimeSpec, _build, _is_number, _parse_bound, _read_text, _window
from ckptsim.failures.model import FailureTrace
from ckptsim.limits import check_times

__all__ = ["fta_event_trace_path", "read_fta"]

def _restrict(keep: np.ndarray, values: np.ndarray, accepted: Iterable[int],
              counts: dict[str, int], key: str, empty_message: str) -> np.ndarray:
    """Keep only the records whose `values` are accepted; count the others under
    `other_<key>s`, and refuse a selection that leaves nothing."""
    inside = np.isin(values, sorted(accepted))
    if not (inside & keep).any():
        raise ConfigError(key, empty_message)
    counts[f"other_{key}s"] = int(np.count_nonzero(keep & ~inside))
    return keep & inside


def fta_event_trace_path(folder_or_file: str | PathLike[str]) -> Path:
    """The event_trace file of an FTA trace: the path itself, or event_trace.tab(.gz) in it."""
    path = Path(folder_or_file)
    if not path.is_dir():
        return path
    for name in ("event_trace.tab", "event_trace.tab.gz", "event_trace1.tab",
                 "event_trace1.tab.gz"):
        if (path / name).is_file():
            return path / name
    names = ", ".join(sorted(p.name for p in path.iterdir())) or "nothing"
    raise WorkloadError(f"no event_trace.tab or event_trace.tab.gz in this folder (it holds "
                        f"{names})", path=str(path))


#: A whole number, for pointing at the bad value of a column numpy refused.
_INT_TEXT = re.compile(r"[+-]?[0-9]+")


def _fta_int_column(values: tuple[str, ...], lines: list[int], where: str,
                    field: str) -> np.ndarray:
    """An id or type column as int64, or a WorkloadError at the first value that is not one.

    numpy parses the whole column at once; only a column it rejects is scanned value by value
    to find the line to report.
    """
    try:
        return np.array(values, dtype=np.int64)
    except (ValueError, OverflowError):
        pass
    for text, line in zip(values, lines, strict=True):
        if not _INT_TEXT.fullmatch(text) or not -2**63 <= int(text) < 2**63:
            raise WorkloadError(f"expected a whole number, got {shown(text)}", path=where,
                                line=line, field=field)
    raise AssertionError("unreachable")  # pragma: no cover


def _fta_time_column(values: tuple[str, ...], lines: list[int], where: str, field: str,
                     allow_null: bool) -> np.ndarray:
    """Unix seconds as float64; NULL (allowed for stop times) becomes NaN."""
    try:
        out = np.array(values, dtype=np.float64)
        bad = ~np.isfinite(out)  # "nan" or "inf" written in the file
    except ValueError:  # NULL or garbage somewhere: the slow path tells them apart
        out = np.fromiter((_fta_seconds(v, allow_null) for v in values), dtype=np.float64,
                          count=len(values))
        bad = np.isinf(out) if allow_null else ~np.isfinite(out)
    if bad.any():
        i = int(np.argmax(bad))
        raise WorkloadError(f"expected Unix seconds{' or NULL' if allow_null else ''}, got "
                            f"{shown(values[i])}", path=where, line=lines[i], field=field)
    return out


def _fta_seconds(text: str, allow_null: bool) -> float:
    """The value of a time field; inf marks a bad one (NaN is kept for NULL stop times)."""
    if text == "NULL":
        return math.nan if allow_null else math.inf
    try:
        x = float(text)
    except ValueError:
        return math.inf
    return x if math.isfinite(x) else math.inf


def _as_set(key: str, value: int | Iterable[int] | None) -> set[int] | None:
    if value is None:
        return None
    items = [value] if _is_number(value) or isinstance(value, np.integer) else list(
        value)  # type: ignore[arg-type]
    out = set()
    for item in items:
        if isinstance(item, bool) or not isinstance(item, (int, np.integer)):
            raise ConfigError(key, f"must be an id (integer) or a collection of ids, got {item!r}")
        out.add(int(item))
    return out


def read_fta(folder_or_event_trace_path: str | PathLike[str], *,
             platform: int | Iterable[int] | None = None,
             nodes: Collection[int | str] | None = None,
             component: int | Iterable[int] | None = None,
             start: TimeSpec = None, end: TimeSpec = None,
             event_types: Iterable[int] = (0,)) -> FailureTrace:
    """Read the unavailability events of a Failure Trace Archive event_trace.tab(.gz).

    Each event_trace row is one interval of one component's state: `event_type` 0 means
    unavailable (failed), 1 available.  Every row whose type is in `event_types` becomes a
    failure at `event_start_time` with repair `event_stop_time - event_start_time`, on node
    `node_id` (the archive's unique node number; `node_name` can be ambiguous, e.g. lanl05
    writes LANL system 4's nodes 40 and 400 both as "4.400").  A NULL stop time (the interval
    is still open when the trace ends) lasts until the latest time in the file.

    Fields are separated by tabs and/or spaces; the header line (with or without a leading
    `#`) names the columns, so both the archive's files and copies with reordered or padded
    columns are read.

    Args:
        folder_or_event_trace_path: an FTA trace folder or its event_trace file.
        platform, component: keep only these platform_id / component_id values.
        nodes: keep only these nodes: integers are node_id values, strings are shell-style
            patterns over node_name (e.g. "19.*" for LANL system 19 in lanl05,
            "G1/site1/*" for one Grid'5000 site in g5k06).
        start, end: the window [start, end) as seconds after the first selected failure or as
            absolute times (naive datetimes and date strings are UTC).
        event_types: the event types read as failures (0; Notre Dame traces add 2 and 3).

    Raises:
        WorkloadError: unreadable file, no records, or a malformed record (file, line, field).
        ConfigError: a filter or window that keeps no failure (the message says what exists).
    """
    path = fta_event_trace_path(folder_or_event_trace_path)
    platforms = _as_set("platform", platform)
    components = _as_set("component", component)
    node_ids, node_patterns = _node_filter(nodes)
    types = _as_set("event_types", list(event_types))
    start_b = _parse_bound("start", start, _utc_seconds)
    end_b = _parse_bound("end", end, _utc_seconds)

    text, where = _read_text(path)
    cols = _read_fta_columns(text, where)
    # Every rule is counted, 0 when its filter is not given (a summary's keys do not depend on
    # the selection).
    counts: dict[str, int] = {"records": len(cols.lines),
                              "blank_lines": cols.blank + cols.header_line - 1,
                              "comment_lines": cols.comments, "other_platforms": 0,
                              "other_components": 0, "other_nodes": 0}
    if not cols.lines:
        raise WorkloadError("the file holds no events (only a header)", path=where,
                            line=cols.header_line)
    lines = cols.lines
    etype = _fta_int_column(cols.values["event_type"], lines, where, "event_type")
    is_failure = np.isin(etype, sorted(types or ()))
    counts["available_events"] = int(np.count_nonzero((etype == 1) & ~is_failure))
    counts["other_event_types"] = int(np.count_nonzero(~is_failure & (etype != 1)))
    keep = is_failure.copy()
    if not keep.any():
        raise ConfigError("event_types", f"{where} has no events of type "
                                         f"{sorted(types or ())}; its types are "
                                         f"{sorted(set(etype.tolist()))}")
    platform_id = _fta_int_column(cols.values["platform_id"], lines, where, "platform_id")
    node_id = _fta_int_column(cols.values["node_id"], lines, where, "node_id")
    t0 = _fta_time_column(cols.values["event_start_time"], lines, where, "event_start_time",
                          allow_null=False)
    t1 = _fta_time_column(cols.values["event_stop_time"], lines, where, "event_stop_time",
                          allow_null=True)
    check_times(t0, lines, path=where, field="event_start_time")
    check_times(t1, lines, path=where, field="event_stop_time")
    bad = np.flatnonzero(t1 < t0)
    if len(bad):
        i = int(bad[0])
        raise WorkloadError(f"the event stops ({cols.values['event_stop_time'][i]}) before it "
                            f"starts ({cols.values['event_start_time'][i]})", path=where,
                            line=lines[i], field="event_stop_time")
    open_ended = np.isnan(t1)
    t1 = np.where(open_ended, np.nanmax(np.concatenate((t0, t1))), t1)

    if platforms is not None:
        keep = _restrict(keep, platform_id, platforms, counts, "platform",
                         f"no failures on platform {sorted(platforms)} in {where}; its "
                         f"platforms are {_per_key_text(platform_id[keep], node_id[keep])}")
    if components is not None:
        if "component_id" not in cols.values:
            raise ConfigError("component", f"{where} has no component_id column")
        comp = _fta_int_column(cols.values["component_id"], lines, where, "component_id")
        keep = _restrict(keep, comp, components, counts, "component",
                         f"no failures of component {sorted(components)} in {where}; its "
                         f"components are {sorted(set(comp[keep].tolist()))}")
    if node_ids is not None or node_patterns:
        inside = np.zeros(len(keep), dtype=bool)
        if node_ids:
            inside |= np.isin(node_id, sorted(node_ids))
        if node_patterns:
            if "node_name" not in cols.values:
                raise ConfigError("nodes", f"{where} has no node_name column to match "
                                           f"{node_patterns} against")
            names = np.array(cols.values["node_name"], dtype=object)
            unique, inverse = np.unique(names, return_inverse=True)
            hit = np.array([any(fnmatch.fnmatchcase(str(u), p) for p in node_patterns)
                            for u in unique], dtype=bool)
            inside |= hit[inverse]
        if not (inside & keep).any():
            examples = ", ".join(sorted(set(cols.values.get("node_name", ())))[:5])
            raise ConfigError("nodes", f"no failures of the chosen nodes in {where} "
                                       f"({len(np.unique(node_id[keep]))} nodes have failures"
                                       + (f"; names look like {examples}" if examples else "")
                                       + ")")
        counts["other_nodes"] = int(np.count_nonzero(keep & ~inside))
        keep &= inside
    origin, stop, inside, n_before, n_after = _window(
        "start" if start is not None else "end", t0[keep], start_b, end_b, "the selection")
    counts["before_window"] = n_before
    counts["after_window"] = n_after
    idx = np.flatnonzero(keep)[inside]
    counts["open_ended"] = int(np.count_nonzero(open_ended[idx]))
    selection = []
    for key, value in (("platform", platform), ("nodes", nodes), ("component", component),
                       ("start", start), ("end", end)):
        if value is not None:
            selection.append(f"{key}={value!s}")
    source = f"fta:{where}" + (f" ({', '.join(selection)})" if selection else "")
    return _build(t0[idx], node_id[idx], t1[idx] - t0[idx], origin, stop, source, counts)


def _node_filter(nodes: Collection[int | str] | None) -> tuple[set[int] | None, list[str]]:
    if nodes is None:
        return None, []
    if isinstance(nodes, (str, int)):
        nodes = [nodes]
    ids: set[int] = set()
    patterns: list[str] = []
    for item in nodes:
        if isinstance(item, str):
            patterns.append(item)
        elif isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            ids.add(int(item))
        else:
            raise ConfigError("nodes", f"must hold node ids (integers) or node-name patterns "
                                       f"(strings), got {item!r}")
    if not ids and not patterns:
        raise ConfigError("nodes", "is empty: give node ids or name patterns, or None for all")
    return ids, patterns


def _per_key_text(keys: np.ndarray, node_id: np.ndarray) -> str:
    parts = []
    for key in np.unique(keys):
        sel = keys == key
        parts.append(f"{key} ({len(np.unique(node_id[sel]))} nodes, "
                     f"{int(np.count_nonzero(sel))} failures)")
    return ", ".join(parts)


def _utc_seconds(when: dt.datetime) -> float:
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return when.timestamp()
