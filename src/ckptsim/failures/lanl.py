"""Reader of the LANL failure data (LA-UR-05-7318, CFDR): `read_lanl_cfdr` and `lanl_systems`.

LANL times are local wall-clock times at Los Alamos (US Mountain time), which jump by an hour at
daylight-saving changes; the reader moves daylight-saving times back an hour by the US rules.
The shared parts (file text, windows, the returned trace) are in `ckptsim.failures.logs`; users
import the reader from `ckptsim.failures` or `ckptsim.failures.readers`.  See docs/failures.md.
"""

from __future__ import annotations

import csv
import datetime as dt
import re
from dataclasses import dataclass
from functools import cache
from os import PathLike

import numpy as np

from ckptsim.errors import ConfigError, WorkloadError, shown
from ckptsim.failures.logs import (
    _LANL_TIME,
    TimeSpec,
    _build,
    _full_year,
    _is_float,
    _norm,
    _parse_bound,
    _read_text,
    _window,
)
from ckptsim.failures.model import FailureTrace
from ckptsim.limits import check_time

__all__ = ["LANL_NODE_COLUMNS", "LANL_SYSTEM_STRIDE", "lanl_systems", "read_lanl_cfdr"]

#: The two node-number columns of the LANL data: `nodenumz` counts from zero in every system,
#: `nodenum` is the number "as it existed" (from 0 or 1; system 19 uses 1024..2047).
LANL_NODE_COLUMNS = ("nodenumz", "nodenum")

#: Node ids of all LANL systems read together: system * LANL_SYSTEM_STRIDE + node number, so that
#: node 0 of system 2 and node 0 of system 3 stay different nodes (no system has 100,000 nodes).
LANL_SYSTEM_STRIDE = 100_000

_EPOCH_ORDINAL = dt.date(1970, 1, 1).toordinal()
#: A system or node number as written: ASCII digits (int() would also take other scripts').
_DIGITS = re.compile(r"[+-]?[0-9]+")


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
        raise WorkloadError(f"expected a time as M/D/YYYY H:MM, got {shown(text)}",
                            path=where, line=line, field=field)
    month, day, year, hour, minute = (int(g) for g in m.groups()[:5])
    second = int(m.group(6) or 0)
    year = _full_year(year, m.group(3))
    if not (hour < 24 and minute < 60 and second < 60):
        raise WorkloadError(f"time of day out of range in {shown(text)}", path=where, line=line,
                            field=field)
    try:
        return _lanl_seconds(year, month, day, hour, minute, second, dst)
    except ValueError:
        raise WorkloadError(f"no such date in {shown(text)}", path=where, line=line,
                            field=field) from None


def _lanl_int(text: str, where: str, line: int, field: str) -> int:
    """A system or node number: a whole number in [0, LANL_SYSTEM_STRIDE), so that the node
    ids of all systems read together, system * LANL_SYSTEM_STRIDE + node, stay apart."""
    digits = text.strip()
    if not _DIGITS.fullmatch(digits):
        raise WorkloadError(f"expected a whole number, got {shown(text)}", path=where, line=line,
                            field=field)
    value = int(digits)
    if value < 0:
        raise WorkloadError(f"must be >= 0, got {value}", path=where, line=line, field=field)
    if value >= LANL_SYSTEM_STRIDE:
        raise WorkloadError(f"must be below {LANL_SYSTEM_STRIDE}, got {digits} (the node ids "
                            f"of all systems read together are system * {LANL_SYSTEM_STRIDE} "
                            "+ node)", path=where, line=line, field=field)
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
                raise WorkloadError(f"expected minutes, got {shown(down)}", path=where, line=line,
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
            system_nodes[system] = int(size) if size.isascii() and size.isdigit() else None
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
            absolute local times (see the docstring of `ckptsim.failures.readers`).
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
