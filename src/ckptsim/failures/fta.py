"""Reader of the Failure Trace Archive's event_trace files: `read_fta` and `fta_event_trace_path`.

FTA times are Unix seconds (UTC).  The shared parts (file text, windows, the returned trace) are
in `ckptsim.failures.logs`; users import the reader from `ckptsim.failures` or
`ckptsim.failures.readers`.  See docs/failures.md.
"""

from __future__ import annotations

import datetime as dt
import fnmatch
import math
import operator
import re
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from os import PathLike
from pathlib import Path

import numpy as np

from ckptsim.errors import ConfigError, WorkloadError
from ckptsim.failures.logs import TimeSpec, _build, _is_number, _parse_bound, _read_text, _window
from ckptsim.failures.model import FailureTrace
from ckptsim.limits import check_times

__all__ = ["fta_event_trace_path", "read_fta"]

#: event_trace columns the reader needs, and the optional ones it uses when present.
_FTA_REQUIRED = ("node_id", "platform_id", "event_type", "event_start_time", "event_stop_time")
_FTA_OPTIONAL = ("component_id", "node_name")


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
            raise WorkloadError(f"expected a whole number, got {text!r}", path=where,
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
                            f"{values[i]!r}", path=where, line=lines[i], field=field)
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
    counts: dict[str, int] = {"records": len(cols.lines), "blank_lines": cols.blank,
                              "comment_lines": cols.comments}
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


@dataclass
class _FtaColumns:
    values: dict[str, tuple[str, ...]]
    lines: list[int]
    header_line: int
    blank: int
    comments: int


def _read_fta_columns(text: str, where: str) -> _FtaColumns:
    """The needed columns of an event_trace file as strings, with each record's line number.

    The Grid'5000 trace has 600,000 lines, so a regular file (ASCII, every non-blank line after
    the header a record of the header's width) is cut into fields by numpy in one pass; any
    other file goes through the line-by-line reader, which names the first line that is wrong.
    """
    header_end = 0
    header_line = 0
    while True:  # the header is the first non-blank line
        if header_end >= len(text):
            raise WorkloadError("the file is empty (no header, no events)", path=where)
        stop = text.find("\n", header_end)
        stop = len(text) if stop < 0 else stop + 1
        header_line += 1
        line, header_end = text[header_end:stop], stop
        if line.strip():
            break
    header = _fta_header(line, where, header_line)
    fast = _fast_fta_columns(text[header_end:], header, header_line)
    if fast is not None:
        return fast
    return _slow_fta_columns(text, header, header_line, where)


def _wanted(header: list[str]) -> tuple[list[str], list[int]]:
    index = {name: i for i, name in enumerate(header)}
    names = [name for name in _FTA_REQUIRED + _FTA_OPTIONAL if name in index]
    return names, [index[name] for name in names]


#: Bytes str.split() treats as whitespace in ASCII text.
_ASCII_SPACE = np.zeros(256, dtype=bool)
_ASCII_SPACE[[9, 10, 11, 12, 13, 28, 29, 30, 31, 32]] = True


def _fast_fta_columns(body: str, header: list[str], header_line: int) -> _FtaColumns | None:
    """Columns of a regular file, or None when the line-by-line reader must decide."""
    data = np.frombuffer(body.encode("utf-8"), dtype=np.uint8)
    if data.size == 0 or data.max() >= 128:
        return None
    space = _ASCII_SPACE[data]
    newline = data == 10
    starts = np.flatnonzero(~space & np.concatenate(([True], space[:-1])))  # field starts
    breaks = np.flatnonzero(newline)
    # The 0-based line (within the body) of every field: how many newlines come before it.
    line_of = np.searchsorted(breaks, starts)
    per_line = np.bincount(line_of, minlength=len(breaks) + 1)
    records = per_line > 0
    n_fields = len(header)
    if np.any(per_line[records] != n_fields) or np.any(data[starts] == ord("#")):
        return None
    tokens = body.split()
    names, positions = _wanted(header)
    values = {name: tuple(tokens[i::n_fields]) for name, i in zip(names, positions, strict=True)}
    lines = (np.flatnonzero(records) + header_line + 1).tolist()
    blank = int(np.count_nonzero(~records[: _count_lines(body)]))
    return _FtaColumns(values, lines, header_line, blank, 0)


def _count_lines(body: str) -> int:
    """Lines as splitlines() sees them in ASCII text without stray \r: one per newline, plus a
    last unterminated one."""
    n = body.count("\n")
    return n + (0 if body.endswith("\n") or not body else 1)


def _slow_fta_columns(text: str, header: list[str], header_line: int,
                      where: str) -> _FtaColumns:
    names, positions = _wanted(header)
    pick = _picker(positions)
    n_fields = len(header)
    blank = comments = 0
    lines: list[int] = []
    rows: list[tuple[str, ...]] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        if lineno <= header_line:
            continue
        parts = raw.split()
        if not parts:
            blank += 1
        elif parts[0].startswith("#"):
            comments += 1
        elif len(parts) == n_fields:
            rows.append(pick(parts))
            lines.append(lineno)
        else:
            raise WorkloadError(f"record has {len(parts)} fields, the header has {n_fields} "
                                f"(values must not contain spaces)", path=where, line=lineno,
                                field=header[len(parts)] if len(parts) < n_fields else None)
    columns = list(zip(*rows, strict=True)) if rows else [() for _ in names]
    return _FtaColumns(dict(zip(names, columns, strict=True)), lines, header_line, blank,
                       comments)


def _fta_header(raw: str, where: str, lineno: int) -> list[str]:
    names = raw.strip().lstrip("#").split()
    missing = [name for name in _FTA_REQUIRED if name not in names]
    if missing:
        raise WorkloadError(f"the header has no {', '.join(missing)} column(s) (found "
                            f"{_found(names)}); is this an FTA event_trace file?",
                            path=where, line=lineno)
    return names


#: Fields of a header shown in its error (a file of another format has thousands on a line).
SHOWN_FIELDS = 8


def _found(names: list[str]) -> str:
    """The first fields of a header, each cut to 40 characters, and how many there are."""
    if not names:
        return "nothing"
    shown = [n if len(n) <= 40 else n[:37] + "..." for n in names[:SHOWN_FIELDS]]
    more = len(names) - SHOWN_FIELDS
    return ", ".join(shown) + (f", ... ({len(names)} fields)" if more > 0 else "")


def _picker(positions: list[int]) -> Callable[[list[str]], tuple[str, ...]]:
    """itemgetter always returning a tuple (it returns a bare item for one position)."""
    get = operator.itemgetter(*positions)
    if len(positions) == 1:
        return lambda parts: (get(parts),)
    return get  # type: ignore[return-value]
