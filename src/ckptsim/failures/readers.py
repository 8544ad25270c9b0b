"""Readers of real failure logs: the LANL failure data (CFDR) and Failure Trace Archive files.

Both readers return a `FailureTrace` of failure starts relative to the start of the chosen
window, with the repair duration the log records, and count in `counts` every record they
skipped or found odd, so that a summary can say what happened to the log.  They never return an
empty trace: a file without records, or a selection (system, platform, nodes, window) that keeps
no failure, is an error that says what the file holds instead.  A malformed record is an error
naming the file, the line and the field; nothing is silently dropped.

Windows.  `start` and `end` accept either a number, read as seconds after the first failure of
the selection, or an absolute time: a `datetime`, a `date`, or a string in ISO form
(`2004-01-01`, `2004-01-01 12:00`) or in the LANL form (`1/1/2004 12:00`).  The window is
[start, end); times in the result are seconds from `start`, or from the first selected failure
when no start is given, and the trace's span is `end - start` (or runs to the last failure).

LANL times are local wall-clock times at Los Alamos (US Mountain time), which jump by an hour at
daylight-saving changes; FTA times are Unix seconds (UTC).  See docs/failures.md.
"""

from __future__ import annotations

import csv
import datetime as dt
import fnmatch
import math
import operator
import re
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, replace
from functools import cache
from numbers import Real
from os import PathLike
from pathlib import Path

import numpy as np

from ckptsim.errors import ConfigError, WorkloadError
from ckptsim.failures.model import FailureTrace
from ckptsim.limits import check_time, check_times

__all__ = ["LANL_NODE_COLUMNS", "TimeSpec", "fta_event_trace_path", "lanl_systems",
           "read_fta", "read_lanl_cfdr"]

#: A window bound: seconds after the first selected failure, or an absolute time.
TimeSpec = float | int | str | dt.datetime | dt.date | None

#: The two node-number columns of the LANL data: `nodenumz` counts from zero in every system,
#: `nodenum` is the number "as it existed" (from 0 or 1; system 19 uses 1024..2047).
LANL_NODE_COLUMNS = ("nodenumz", "nodenum")

#: Node ids of all LANL systems read together: system * LANL_SYSTEM_STRIDE + node number, so that
#: node 0 of system 2 and node 0 of system 3 stay different nodes (no system has 100,000 nodes).
LANL_SYSTEM_STRIDE = 100_000

_EPOCH_ORDINAL = dt.date(1970, 1, 1).toordinal()
_LANL_TIME = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4}|\d{2})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?")


# -- common helpers ----------------------------------------------------------------------------


def _read_text(path: str | PathLike[str]) -> tuple[str, str]:
    """(text, where) of a plain or gzip-compressed file, or a WorkloadError naming it."""
    from ckptsim.files import read_bytes

    where = str(path)
    raw = read_bytes(path)
    from ckptsim.workload.swf import not_text

    what = not_text(raw)
    if what is None and b"\0" in raw[:65536]:
        what = "binary data (NUL bytes), not text"
    if what is not None:
        raise WorkloadError(f"not a failure log: the file is {what}", path=where)
    # Undecodable bytes become U+FFFD, which then fails the field's check with a line number.
    return raw.decode("utf-8-sig", errors="replace"), where


def _norm(name: str) -> str:
    """Header names compared without case, spaces or underscores ("Prob Started" ~ prob_started)."""
    return re.sub(r"[\s_]+", "", name.strip().lower())


def _is_float(text: str) -> bool:
    """True for a finite decimal number (float() alone would also take "nan" and "inf")."""
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def _is_number(value: object) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


@dataclass(frozen=True)
class _Bound:
    """A window bound before it is resolved: an offset in seconds or an absolute time."""

    offset: float | None = None
    absolute: float | None = None

    def resolve(self, first: float) -> float:
        return first + self.offset if self.offset is not None else float(self.absolute or 0.0)


def _parse_bound(key: str, value: TimeSpec,
                 to_seconds: Callable[[dt.datetime], float]) -> _Bound | None:
    """Turn a user's window bound into an offset or an absolute time on the file's clock."""
    if value is None:
        return None
    if _is_number(value):
        x = float(value)  # type: ignore[arg-type]
        if not math.isfinite(x):
            raise ConfigError(key, f"must be a finite number of seconds or a date, got {value!r}")
        return _Bound(offset=x)
    if isinstance(value, str):
        text = value.strip()
        try:
            return _Bound(offset=_finite(float(text), key, value))
        except ValueError:
            pass
        when = _parse_date_text(text)
        if when is None:
            raise ConfigError(key, f"cannot read {value!r} as seconds or a date; use e.g. "
                                   f"3600, '2004-01-31', '2004-01-31 12:00' or '1/31/2004 12:00'")
    elif isinstance(value, dt.datetime):
        when = value
    elif isinstance(value, dt.date):
        when = dt.datetime(value.year, value.month, value.day)
    else:
        raise ConfigError(key, f"must be seconds (a number) or a date, got "
                               f"{type(value).__name__}")
    try:
        return _Bound(absolute=to_seconds(when))
    except ValueError as exc:  # a date the file's clock cannot express
        raise ConfigError(key, str(exc)) from None


def _finite(x: float, key: str, value: object) -> float:
    if not math.isfinite(x):
        raise ConfigError(key, f"must be a finite number of seconds or a date, got {value!r}")
    return x


def _parse_date_text(text: str) -> dt.datetime | None:
    try:
        return dt.datetime.fromisoformat(text)
    except ValueError:
        pass
    m = _LANL_TIME.fullmatch(text)
    if m is None:
        return None
    month, day, year, hour, minute = (int(g) for g in m.groups()[:5])
    second = int(m.group(6) or 0)
    try:
        return dt.datetime(_full_year(year, m.group(3)), month, day, hour, minute, second)
    except ValueError:
        return None


def _full_year(year: int, text: str) -> int:
    """Two-digit years (the README's mm/dd/yy) pivot at 70: 96 -> 1996, 05 -> 2005."""
    if len(text) == 2:
        return 1900 + year if year >= 70 else 2000 + year
    return year


def _window(key_hint: str, times: np.ndarray, start: _Bound | None, end: _Bound | None,
            what: str) -> tuple[float, float | None, np.ndarray, int, int]:
    """(origin, stop, keep mask, n before, n after) of a window over absolute `times`."""
    first = float(times.min())
    origin = start.resolve(first) if start is not None else first
    stop = end.resolve(first) if end is not None else None
    if stop is not None and stop <= origin:
        raise ConfigError("end", f"the window end ({_fmt_span(stop - first)} after the first "
                                 f"failure) must be after its start "
                                 f"({_fmt_span(origin - first)} after it)")
    before = times < origin
    after = times >= stop if stop is not None else np.zeros(len(times), dtype=bool)
    keep = ~(before | after)
    if not keep.any():
        last = float(times.max())
        raise ConfigError(key_hint, f"the window keeps no failure of {what}: its failures start "
                                    f"from {_fmt_span(0)} to {_fmt_span(last - first)} after the "
                                    f"first one, the window is [{_fmt_span(origin - first)}, "
                                    f"{'end' if stop is None else _fmt_span(stop - first)})")
    return origin, stop, keep, int(before.sum()), int(after.sum())


def _fmt_span(seconds: float) -> str:
    if abs(seconds) < 86400:
        return f"{seconds:g} s"
    return f"{seconds:g} s ({seconds / 86400:.1f} days)"


def _build(times: np.ndarray, nodes: np.ndarray, repairs: np.ndarray, origin: float,
           stop: float | None, source: str, counts: dict[str, int]) -> FailureTrace:
    rel = times - origin
    span = (stop - origin) if stop is not None else float(rel.max())
    trace = FailureTrace(time=rel, node=nodes, repair=repairs, span=span, source=source)
    counts["failures"] = len(trace)
    counts["zero_repair"] = int(np.count_nonzero(trace.repair == 0))
    counts["duplicates"] = trace.duplicates()
    counts["overlapping"] = int(np.count_nonzero(trace.overlapping()))
    return replace(trace, counts=counts)


# -- LANL failure data (CFDR) --------------------------------------------------------------------


@dataclass
class _LanlRecords:
    system: np.ndarray
    node: np.ndarray
    started: np.ndarray
    fixed: np.ndarray
    flags: dict[str, np.ndarray]  # per-record flags, counted over the selection
    system_nodes: dict[int, int | None]
    counts: dict[str, int]


@cache
def _us_dst_bounds(year: int) -> tuple[float, float]:
    """Wall-clock seconds of the US daylight-saving start and end of `year` (2:00 local).

    Rules: 2007 on, second Sunday of March to first Sunday of November; 1987-2006, first Sunday
    of April to last Sunday of October; earlier years use the 1976-1986 rule, last Sunday of
    April to last Sunday of October.
    """

    def nth_sunday(month: int, n: int) -> dt.date:
        first = dt.date(year, month, 1)
        return first + dt.timedelta(days=(6 - first.weekday()) % 7 + 7 * (n - 1))

    def last_sunday(month: int) -> dt.date:
        last = dt.date(year + (month == 12), month % 12 + 1, 1) - dt.timedelta(days=1)
        return last - dt.timedelta(days=(last.weekday() + 1) % 7)

    if year >= 2007:
        begin, finish = nth_sunday(3, 2), nth_sunday(11, 1)
    elif year >= 1987:
        begin, finish = nth_sunday(4, 1), last_sunday(10)
    else:
        begin, finish = last_sunday(4), last_sunday(10)
    return (_day_seconds(begin) + 7200.0, _day_seconds(finish) + 7200.0)


def _day_seconds(day: dt.date) -> float:
    return float((day.toordinal() - _EPOCH_ORDINAL) * 86400)


def _lanl_seconds(year: int, month: int, day: int, hour: int, minute: int, second: int,
                  dst: bool) -> float:
    """Seconds since 1970-01-01 00:00 on LANL's clock (Mountain Standard Time with `dst`).

    With `dst`, a wall-clock time inside daylight-saving time is moved back an hour, so that
    differences of times are elapsed times.  The repeated hour of the autumn change (1:00-1:59)
    is read as standard time: the two LANL records that fall in it then agree with their Down
    Time column, and read the other way they would not.
    """
    wall = (dt.date(year, month, day).toordinal() - _EPOCH_ORDINAL) * 86400.0 + (
        hour * 3600 + minute * 60 + second)
    if dst:
        begin, finish = _us_dst_bounds(year)
        if begin <= wall < finish - 3600.0:
            return wall - 3600.0
    return wall


def _lanl_datetime_seconds(when: dt.datetime, dst: bool) -> float:
    if when.tzinfo is not None:
        raise ValueError(f"LANL times are local (US Mountain) wall-clock times: give "
                         f"{when.isoformat()} without a timezone")
    return _lanl_seconds(when.year, when.month, when.day, when.hour, when.minute, when.second,
                         dst)


def _parse_lanl_time(text: str, dst: bool, where: str, line: int, field: str) -> float:
    m = _LANL_TIME.fullmatch(text.strip())
    if m is None:
        raise WorkloadError(f"expected a time as M/D/YYYY H:MM, got {text!r}",
                            path=where, line=line, field=field)
    month, day, year, hour, minute = (int(g) for g in m.groups()[:5])
    second = int(m.group(6) or 0)
    year = _full_year(year, m.group(3))
    if not (hour < 24 and minute < 60 and second < 60):
        raise WorkloadError(f"time of day out of range in {text!r}", path=where, line=line,
                            field=field)
    try:
        return _lanl_seconds(year, month, day, hour, minute, second, dst)
    except ValueError:
        raise WorkloadError(f"no such date in {text!r}", path=where, line=line,
                            field=field) from None


def _lanl_int(text: str, where: str, line: int, field: str) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        raise WorkloadError(f"expected a whole number, got {text!r}", path=where, line=line,
                            field=field) from None
    if value < 0:
        raise WorkloadError(f"must be >= 0, got {value}", path=where, line=line, field=field)
    return value


#: Per-record observations of the LANL reader, counted over the selected failures: node number
#: empty (read as 0), Down Time disagreeing with the times, repair taken from Down Time, no
#: repair time at all.
_LANL_FLAGS = ("missing_node", "down_time_mismatch", "repair_from_down_time", "no_repair_time")


@dataclass(frozen=True)
class _LanlColumns:
    """Positions (and header spellings) of the columns the LANL reader uses."""

    names: list[str]
    system: int
    node: int
    started: int
    fixed: int | None
    down: int | None
    size: int | None

    @classmethod
    def from_header(cls, row: list[str], node_column: str, where: str,
                    line: int) -> _LanlColumns:
        idx = {_norm(name): i for i, name in enumerate(row)}
        absent = [name for name in ("System", "Prob Started", node_column)
                  if _norm(name) not in idx]
        if absent:
            raise WorkloadError(f"the header has no {', '.join(absent)} column (columns: "
                                f"{', '.join(row)}); is this the LANL failure data CSV?",
                                path=where, line=line)
        return cls(row, idx["system"], idx[_norm(node_column)], idx["probstarted"],
                   idx.get("probfixed"), idx.get("downtime"), idx.get("nodes"))


def _read_lanl_records(path: str | PathLike[str], node_column: str, dst: bool) -> _LanlRecords:
    text, where = _read_text(path)
    reader = csv.reader(text.splitlines())
    cols: _LanlColumns | None = None
    header_line = 0
    systems: list[int] = []
    nodes: list[int] = []
    started: list[float] = []
    fixed: list[float] = []
    flags: dict[str, list[bool]] = {name: [] for name in _LANL_FLAGS}
    system_nodes: dict[int, int | None] = {}
    counts = {"records": 0, "blank_lines": 0}
    # Many records share a timestamp (multi-node events, a start that is another's fix).
    seconds: dict[str, float] = {}

    def when(row: list[str], i: int, line: int, names: list[str]) -> float:
        t = seconds.get(row[i])
        if t is None:
            t = seconds[row[i]] = _parse_lanl_time(row[i], dst, where, line, names[i])
            check_time(t, path=where, line=line, field=names[i], what="date, in seconds since "
                       "1970,", hint="dates run from 1653 to 2286")
        return t

    for row in reader:
        line = reader.line_num
        if not any(cell.strip() for cell in row):
            counts["blank_lines"] += 1
            continue
        if cols is None:
            cols, header_line = _LanlColumns.from_header(row, node_column, where, line), line
            continue
        names = cols.names
        if len(row) != len(names):
            raise WorkloadError(f"record has {len(row)} fields, the header has {len(names)}",
                                path=where, line=line,
                                field=names[len(row)] if len(row) < len(names) else None)
        counts["records"] += 1
        system = _lanl_int(row[cols.system], where, line, names[cols.system])
        node_text = row[cols.node].strip()
        # System 17 records carry no node data at all; the FTA lanl05 copy of the same records
        # calls that machine node 0, and so does this reader.
        node = _lanl_int(node_text, where, line, names[cols.node]) if node_text else 0
        t0 = when(row, cols.started, line, names)
        i_fixed, i_down = cols.fixed, cols.down
        fixed_text = row[i_fixed].strip() if i_fixed is not None else ""
        down = row[i_down].strip() if i_down is not None else ""
        minutes = None
        if down and i_down is not None:
            minutes = float(down) if _is_float(down) else -1.0
            if minutes < 0:
                raise WorkloadError(f"expected minutes, got {down!r}", path=where, line=line,
                                    field=names[i_down])
            check_time(minutes * 60.0, path=where, line=line, field=names[i_down],
                       what="down time")
        mismatch = from_down = unknown = False
        if fixed_text and i_fixed is not None:
            t1 = when(row, i_fixed, line, names)
            if t1 < t0:
                raise WorkloadError(f"the problem is fixed ({fixed_text}) before it started "
                                    f"({row[cols.started]})", path=where, line=line,
                                    field=names[i_fixed])
            mismatch = minutes is not None and abs(minutes * 60.0 - (t1 - t0)) > 60.0
        elif minutes is not None:  # no fix time: the recorded down time is the repair
            t1 = t0 + minutes * 60.0
            from_down = True
        else:  # neither: a failure without a known repair, taken as transient
            t1 = t0
            unknown = True
        if system not in system_nodes:
            size = row[cols.size].strip() if cols.size is not None else ""
            system_nodes[system] = int(size) if size.isdigit() else None
        systems.append(system)
        nodes.append(node)
        started.append(t0)
        fixed.append(t1)
        for name, flag in zip(_LANL_FLAGS, (not node_text, mismatch, from_down, unknown),
                              strict=True):
            flags[name].append(flag)
    if cols is None:
        raise WorkloadError("the file is empty (no header, no failure records)", path=where)
    if not systems:
        raise WorkloadError("the file holds no failure records (only a header)", path=where,
                            line=header_line)
    return _LanlRecords(np.array(systems, dtype=np.int64), np.array(nodes, dtype=np.int64),
                        np.array(started), np.array(fixed),
                        {name: np.array(v, dtype=bool) for name, v in flags.items()},
                        system_nodes, counts)


def lanl_systems(path: str | PathLike[str]) -> dict[int, tuple[int | None, int]]:
    """The systems of a LANL failure-data CSV: {system: (nodes column or None, records)}."""
    rec = _read_lanl_records(path, "nodenumz", dst=False)
    ids, n = np.unique(rec.system, return_counts=True)
    return {int(s): (rec.system_nodes.get(int(s)), int(c)) for s, c in zip(ids, n, strict=True)}


def _systems_text(rec: _LanlRecords) -> str:
    ids, n = np.unique(rec.system, return_counts=True)
    parts = []
    for s, c in zip(ids, n, strict=True):
        size = rec.system_nodes.get(int(s))
        parts.append(f"{s} ({size if size is not None else '?'} nodes, {c} records)")
    return ", ".join(parts)


def read_lanl_cfdr(path: str | PathLike[str], *, system: int | None = None,
                   start: TimeSpec = None, end: TimeSpec = None,
                   node_column: str = "nodenumz", dst: bool = True) -> FailureTrace:
    """Read the LANL failure data (LA-UR-05-7318, CFDR) CSV, plain or gzip-compressed.

    One failure per record: `time` from the `Prob Started` column, `repair` = `Prob Fixed` -
    `Prob Started` (both `M/D/YYYY H:MM`, local time at Los Alamos), `node` from `node_column`
    ("nodenumz", the number counting from zero, by default; or "nodenum").  The `Down Time`
    column (minutes) is checked against the two times (records where they differ by more than
    a minute are counted in `counts["down_time_mismatch"]`), and is the repair of a record
    without a `Prob Fixed` time (`repair_from_down_time`); a record with neither is a
    transient failure (`no_repair_time`).  Every record of the 1996-2005 file has both times.

    Args:
        system: the LANL system number (2..24 in the 1996-2005 file); None reads every system,
            and node ids then become system * 100000 + node number.
        start, end: the window [start, end), as seconds after the system's first failure or as
            absolute local times (see the module docstring).
        dst: move daylight-saving wall-clock times back an hour (US rules), so that time
            differences are elapsed times and repairs agree with the `Down Time` column.

    Raises:
        WorkloadError: unreadable file, no records, or a malformed record (file, line, field).
        ConfigError: no such system (the message lists the systems), or an empty window.
    """
    if node_column not in LANL_NODE_COLUMNS:
        raise ConfigError("node_column", f"must be one of {', '.join(LANL_NODE_COLUMNS)}, "
                                         f"got {node_column!r}")
    if system is not None and (not isinstance(system, (int, np.integer))
                               or isinstance(system, bool)):
        raise ConfigError("system", f"must be a LANL system number (an integer), got {system!r}")
    start_b = _parse_bound("start", start, lambda d: _lanl_datetime_seconds(d, dst))
    end_b = _parse_bound("end", end, lambda d: _lanl_datetime_seconds(d, dst))
    rec = _read_lanl_records(path, node_column, dst)
    counts = dict(rec.counts)
    if system is None:
        keep = np.ones(len(rec.system), dtype=bool)
        nodes = rec.system * LANL_SYSTEM_STRIDE + rec.node
        what = "any system"
    else:
        keep = rec.system == int(system)
        if not keep.any():
            raise ConfigError("system", f"no system {system} in {path}; its systems are "
                                        f"{_systems_text(rec)}")
        nodes = rec.node
        what = f"system {system}"
    counts["other_systems"] = int(np.count_nonzero(~keep))
    started, fixed, nodes = rec.started[keep], rec.fixed[keep], nodes[keep]
    origin, stop, inside, n_before, n_after = _window("start" if start is not None else "end",
                                                      started, start_b, end_b, what)
    counts["before_window"] = n_before
    counts["after_window"] = n_after
    selection = [] if system is None else [f"system={system}"]
    if start is not None:
        selection.append(f"start={start!s}")
    if end is not None:
        selection.append(f"end={end!s}")
    source = f"lanl_cfdr:{path}" + (f" ({', '.join(selection)})" if selection else "")
    for name in _LANL_FLAGS:
        counts[name] = int(np.count_nonzero(rec.flags[name][keep][inside]))
    return _build(started[inside], nodes[inside], fixed[inside] - started[inside], origin, stop,
                  source, counts)


# -- Failure Trace Archive ------------------------------------------------------------------------

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
                            f"{', '.join(names) or 'nothing'}); is this an FTA event_trace "
                            f"file?", path=where, line=lineno)
    return names


def _picker(positions: list[int]) -> Callable[[list[str]], tuple[str, ...]]:
    """itemgetter always returning a tuple (it returns a bare item for one position)."""
    get = operator.itemgetter(*positions)
    if len(positions) == 1:
        return lambda parts: (get(parts),)
    return get  # type: ignore[return-value]
