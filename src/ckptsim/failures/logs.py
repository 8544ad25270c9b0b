"""Shared parts of the failure-log readers (`ckptsim.failures.lanl`, `ckptsim.failures.fta`).

A log's text (plain or gzip-compressed, refused with a clear error when it is not text), the
window bounds `start` and `end` (seconds after the first selected failure, or an absolute time;
see `ckptsim.failures.readers`), the window over a selection's failure times, and the
`FailureTrace` a reader returns with its counts.  `ckptsim.failures.readers` gathers the
readers' public names.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from numbers import Real
from os import PathLike

import numpy as np

from ckptsim.errors import ConfigError, WorkloadError
from ckptsim.failures.model import FailureTrace

__all__ = ["TimeSpec"]

#: A window bound: seconds after the first selected failure, or an absolute time.
TimeSpec = float | int | str | dt.datetime | dt.date | None

_LANL_TIME = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4}|\d{2})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?")


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
    return replace(trace, counts=counts, loader=dict(counts))
