"""Cluster opening hours: parsing, and "is it open at t / when does it next open or close".

**Format** (case-insensitive; the `hours` key of a platform group):

- `"24h"` (or `"always"`): always open; `"closed"` (or `"never"`): never open;
- otherwise clauses separated by `;`, each `DAYS TIMES`:
  - DAYS: a comma list of days (`mon` ... `sun`) and day ranges (`mon-fri`, `fri-mon` wraps
    over the weekend), or `daily`; omitted means every day;
  - TIMES: a comma list of `HH:MM-HH:MM` ranges, or `24h` for the whole day.  The end may be
    `24:00`.  An end before the start crosses midnight into the next day (`22:00-02:00` on a
    Friday is open until Saturday 02:00).

Examples: `"mon-fri 08:00-18:00"`, `"mon-fri 08:00-21:00; sat,sun 10:00-18:00"`,
`"mon-fri 08:00-12:00,13:00-17:00"`, `"daily 07:00-23:00"`.

An `OpeningHours` may give other hours for holidays (days out of term, see
`ckptsim.calendar`).  Open intervals are half-open, `[opening, closing)`: at the
closing instant the cluster is closed.  Times are DST-free (every day has 86,400 s).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ckptsim.calendar import DAY, WEEK, WEEKDAYS, Calendar, parse_clock
from ckptsim.errors import ConfigError, shown

ACCEPTED = ("'24h', 'closed', or clauses 'DAYS HH:MM-HH:MM[,HH:MM-HH:MM]' separated by ';' "
            "(DAYS such as mon-fri, sat,sun or daily)")

#: How far `next_opening` / `next_closing` look ahead before answering inf.
DEFAULT_LOOKAHEAD_DAYS = 400

Interval = tuple[int, int]


def parse_days(text: str, key: str) -> list[int]:
    if text == "daily":
        return list(range(7))
    out: list[int] = []
    for item in text.split(","):
        a, sep, b = item.partition("-")
        if a not in WEEKDAYS or (sep and b not in WEEKDAYS):
            raise ConfigError(key, f"unknown day {shown(item)}; accepted: {', '.join(WEEKDAYS)}, "
                                   f"ranges such as mon-fri, or daily")
        i = WEEKDAYS.index(a)
        j = WEEKDAYS.index(b) if sep else i
        out.extend((i + d) % 7 for d in range((j - i) % 7 + 1))
    return out


def _times(text: str, key: str) -> list[Interval]:
    out: list[Interval] = []
    for item in text.split(","):
        if item == "24h":
            out.append((0, DAY))
            continue
        a, sep, b = item.partition("-")
        if not sep:
            raise ConfigError(key, f"expected a time range HH:MM-HH:MM, got {shown(item)}")
        start = parse_clock(a, key)
        end = parse_clock(b, key, allow_24=True)
        if end == start:
            raise ConfigError(key, f"empty time range {shown(item)} (use 24h for a whole day)")
        out.append((start, end if end > start else end + DAY))
    return out


def _merge(intervals: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Sorted union; touching intervals are joined."""
    out: list[tuple[float, float]] = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
    return out


@dataclass(frozen=True)
class WeeklyHours:
    """Opening hours that repeat every week.

    `by_weekday[w]` holds the ranges starting on weekday w (0 = Monday) as (start, end)
    seconds after that day's midnight, merged; an end past 86,400 runs into the next day.
    """

    spec: str
    by_weekday: tuple[tuple[Interval, ...], ...]

    @classmethod
    def parse(cls, text: str, key: str = "hours") -> WeeklyHours:
        if not isinstance(text, str) or not text.strip():
            raise ConfigError(key, f"expected {ACCEPTED}, got {shown(text)}")
        norm = " ".join(text.lower().split())
        days: list[list[tuple[float, float]]] = [[] for _ in range(7)]
        if norm in ("24h", "always"):
            norm = "daily 24h"
        if norm not in ("closed", "never"):
            for clause in filter(None, (c.strip() for c in norm.split(";"))):
                first, _, rest = clause.partition(" ")
                if first[:1].isascii() and first[:1].isdigit() or first == "24h":
                    day_list, times = list(range(7)), clause
                else:
                    day_list, times = parse_days(first, key), rest
                if not times.strip():
                    raise ConfigError(key, f"clause {shown(clause)} gives no times; expected "
                                           f"{ACCEPTED}")
                for w in day_list:
                    days[w].extend(_times(times.replace(" ", ""), key))
        by = tuple(tuple((int(s), int(e)) for s, e in _merge(d)) for d in days)
        return cls(spec=text, by_weekday=by)

    def weekly_intervals(self) -> list[tuple[float, float]]:
        """The open intervals of a week starting Monday 00:00, wrapped onto [0, WEEK)."""
        raw: list[tuple[float, float]] = []
        for w, ranges in enumerate(self.by_weekday):
            for s, e in ranges:
                a, b = w * DAY + s, w * DAY + e
                if b > WEEK:
                    raw.extend([(a, WEEK), (0, b - WEEK)])
                else:
                    raw.append((a, b))
        return _merge(raw)

    @property
    def always(self) -> bool:
        return self.weekly_intervals() == [(0, WEEK)]

    @property
    def never(self) -> bool:
        return not any(self.by_weekday)

    def open_seconds_per_week(self) -> float:
        return float(sum(e - s for s, e in self.weekly_intervals()))


@dataclass(frozen=True)
class OpeningHours:
    """A cluster's hours in term, and optionally other hours in holidays."""

    term: WeeklyHours
    holiday: WeeklyHours | None = None

    @classmethod
    def parse(cls, hours: str = "24h", holiday: str | None = None,
              key: str = "hours") -> OpeningHours:
        return cls(WeeklyHours.parse(hours, key),
                   None if holiday is None else WeeklyHours.parse(holiday, f"{key}.holiday"))

    @property
    def always(self) -> bool:
        return self.term.always and (self.holiday is None or self.holiday.always)

    def weekly(self, cal: Calendar, k: int) -> WeeklyHours:
        """The hours that apply on day k."""
        if self.holiday is None or cal.is_term_day(k):
            return self.term
        return self.holiday

    def day_intervals(self, cal: Calendar, k: int) -> list[tuple[float, float]]:
        """Absolute [open, close) intervals of the ranges starting on day k (unmerged)."""
        base = cal.day_start(k)
        ranges = self.weekly(cal, k).by_weekday[cal.weekday_of_day(k)]
        return [(base + s, base + e) for s, e in ranges]

    def timeline(self, cal: Calendar, t0: float, t1: float) -> OpenTimeline:
        """The open intervals answering queries for times in [t0, t1)."""
        if not t1 > t0:
            raise ValueError(f"empty horizon [{t0}, {t1})")
        k0, k1 = cal.day_index(t0), cal.day_index(t1)
        raw: list[tuple[float, float]] = []
        for k in range(k0 - 1, k1 + 1):  # the day before t0 may run past midnight into t0
            raw.extend(self.day_intervals(cal, k))
        # Ranges of day k1 + 1 (not computed) start at or after its midnight, so an interval
        # ending there or later may continue: its closing time is unknown.
        return OpenTimeline(_merge(raw), t0, t1, known_until=cal.day_start(k1 + 1))

    # -- scalar conveniences (the engine should query a precomputed timeline) ------------------
    def is_open(self, cal: Calendar, t: float) -> bool:
        return self.timeline(cal, t, t + 1.0).is_open(t)

    def next_opening(self, cal: Calendar, t: float,
                     lookahead_days: int = DEFAULT_LOOKAHEAD_DAYS) -> float:
        """The first instant after t (strictly) at which the cluster opens; inf if none."""
        return self.timeline(cal, t, t + lookahead_days * DAY).next_opening(t)

    def next_closing(self, cal: Calendar, t: float,
                     lookahead_days: int = DEFAULT_LOOKAHEAD_DAYS) -> float:
        """The first instant after t (strictly) at which the cluster closes; inf if none."""
        return self.timeline(cal, t, t + lookahead_days * DAY).next_closing(t)


class OpenTimeline:
    """Merged open intervals over a horizon [t0, t1), with fast (vectorised) queries.

    `starts[i]` is a real opening and `ends[i]` a real closing, except that a closing at or
    after `known_until` (where the computed days end) is unknown and reported as inf.
    Queries must lie in [t0, t1).
    """

    __slots__ = ("starts", "ends", "t0", "t1", "known_until")

    def __init__(self, intervals: list[tuple[float, float]], t0: float, t1: float,
                 known_until: float) -> None:
        arr = np.asarray(intervals, dtype=np.float64).reshape(-1, 2)
        self.starts = arr[:, 0].copy()
        self.ends = arr[:, 1].copy()
        self.ends[self.ends >= known_until] = math.inf
        self.t0, self.t1, self.known_until = float(t0), float(t1), float(known_until)

    def _check(self, t: float) -> None:
        if not self.t0 <= t < self.t1:
            raise ValueError(f"time {t} outside the timeline's horizon [{self.t0}, {self.t1})")

    def _index(self, times: np.ndarray) -> np.ndarray:
        return np.searchsorted(self.starts, times, side="right") - 1

    def is_open(self, t: float) -> bool:
        self._check(t)
        i = int(self._index(np.asarray(t)))
        return i >= 0 and t < self.ends[i]

    def open_mask(self, times: np.ndarray) -> np.ndarray:
        """Element-wise `is_open` of an array of times."""
        times = np.asarray(times, dtype=np.float64)
        i = self._index(times)
        ok = i >= 0
        out = np.zeros(times.shape, dtype=bool)
        out[ok] = times[ok] < self.ends[i[ok]]
        return out

    def next_opening(self, t: float) -> float:
        self._check(t)
        i = int(np.searchsorted(self.starts, t, side="right"))
        return float(self.starts[i]) if i < len(self.starts) else math.inf

    def next_closing(self, t: float) -> float:
        self._check(t)
        return float(self.next_closings(np.asarray([t]))[0])

    def next_closings(self, times: np.ndarray) -> np.ndarray:
        """Element-wise `next_closing` (inf where unknown within the computed days)."""
        times = np.asarray(times, dtype=np.float64)
        if len(self.ends) == 0:
            return np.full(times.shape, math.inf)
        # The first end strictly after t: ends are sorted (intervals are disjoint).
        i = np.searchsorted(self.ends, times, side="right")
        out = np.full(times.shape, math.inf)
        ok = i < len(self.ends)
        out[ok] = self.ends[i[ok]]
        return out

    def intervals(self) -> np.ndarray:
        """The open intervals clipped to the horizon, shape (k, 2)."""
        s = np.maximum(self.starts, self.t0)
        e = np.minimum(self.ends, self.t1)
        keep = e > s
        return np.column_stack([s[keep], e[keep]])

    def open_seconds(self) -> float:
        iv = self.intervals()
        return float(np.sum(iv[:, 1] - iv[:, 0])) if len(iv) else 0.0


__all__ = ["ACCEPTED", "OpenTimeline", "OpeningHours", "WeeklyHours", "parse_days"]
