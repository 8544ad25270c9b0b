"""Cutting a Failure Trace Archive event_trace file into the columns `read_fta` needs, with
each record's line number: numpy over a regular file in one pass, line by line (naming the
first wrong line) otherwise."""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ckptsim.errors import WorkloadError

#: event_trace columns the reader needs, and the optional ones it uses when present.
_FTA_REQUIRED = ("node_id", "platform_id", "event_type", "event_start_time", "event_stop_time")
_FTA_OPTIONAL = ("component_id", "node_name")


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
