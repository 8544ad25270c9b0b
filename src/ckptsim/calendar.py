"""Simulated time against the wall clock: the epoch, days, weekdays, and term / holiday seasons.

Simulated time is seconds from an **epoch**, a naive local date and time (default
`DEFAULT_EPOCH`, Friday 1 January 2010 00:00, the start of the year the seed's Newcastle traces
cover).  Time 0 is the epoch; day 0 is the epoch's date, so when the epoch is not a midnight,
day 0 starts before time 0 (at `-offset`).

**No daylight saving.** Every day has exactly 86,400 s and wall-clock times never jump: the
model's "09:00" is always 9 hours after midnight.  (UK clocks moved by an hour twice in 2010;
the pool model ignores it, as real traces stored in local time would have to be corrected to
be used here.)

**Terms.** A day is in *term* when its date falls in one of the calendar's term ranges, in
*holiday* otherwise.  A range is either yearly (`"01-11..03-26"`, month-day pairs, repeated
every year, may wrap over the new year) or absolute (`"2010-01-11..2010-03-26"`); both ends
are included.  `DEFAULT_TERMS` is our construction of a UK academic year resembling
Newcastle's 2009/10 and 2010/11 semesters (the seed does not publish them).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ckptsim.errors import ConfigError, shown

DAY = 86_400
HOUR = 3_600
WEEK = 7 * DAY
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")

#: Time 0 unless told otherwise: Friday 1 January 2010, 00:00 (the seed's year of traces).
DEFAULT_EPOCH = dt.datetime(2010, 1, 1)

#: Our construction of the academic year (yearly ranges): semester 2 teaching, then after an
#: Easter break the rest of semester 2 with exams, then semester 1.
DEFAULT_TERM_SPECS = ("01-11..03-26", "04-19..06-11", "09-27..12-17")

ACCEPTED_TERM = "'MM-DD..MM-DD' (every year) or 'YYYY-MM-DD..YYYY-MM-DD'"


@dataclass(frozen=True)
class TermRange:
    """Dates from `start` to `end`, both included: yearly (month, day) pairs or absolute dates."""

    start: tuple[int, int] | dt.date
    end: tuple[int, int] | dt.date

    @classmethod
    def parse(cls, text: str, key: str = "terms") -> TermRange:
        """`"01-11..03-26"` (yearly) or `"2010-01-11..2010-03-26"` (absolute)."""
        if not isinstance(text, str):
            raise ConfigError(key, f"expected {ACCEPTED_TERM}, got {shown(text)}")
        a, sep, b = text.strip().partition("..")
        if not sep:
            raise ConfigError(key, f"expected {ACCEPTED_TERM}, got {shown(text)}")
        a, b = a.strip(), b.strip()
        try:
            if len(a) == 5 and len(b) == 5:
                start_md = (int(a[:2]), int(a[3:]))
                end_md = (int(b[:2]), int(b[3:]))
                if a[2] != "-" or b[2] != "-":
                    raise ValueError
                for m, d in (start_md, end_md):  # 2000 is a leap year: 02-29 is a valid day
                    dt.date(2000, m, d)
                return cls(start_md, end_md)
            start, end = dt.date.fromisoformat(a), dt.date.fromisoformat(b)
        except ValueError:
            raise ConfigError(key, f"expected {ACCEPTED_TERM}, got {shown(text)}") from None
        if end < start:
            raise ConfigError(key, f"the range ends before it starts: {shown(text)}")
        return cls(start, end)

    def contains(self, day: dt.date) -> bool:
        if isinstance(self.start, dt.date) and isinstance(self.end, dt.date):
            return self.start <= day <= self.end
        md = (day.month, day.day)
        lo, hi = self.start, self.end
        if lo <= hi:  # type: ignore[operator]
            return lo <= md <= hi  # type: ignore[operator]
        return md >= lo or md <= hi  # type: ignore[operator]  # wraps over the new year


def _epoch(value: object, key: str) -> dt.datetime:
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            raise ConfigError(key, "expected a naive local date and time (no time zone: the "
                                   f"model has no daylight saving), got {shown(value)}")
        return value
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day)
    if isinstance(value, str):
        try:
            return _epoch(dt.datetime.fromisoformat(value.strip()), key)
        except ValueError:
            pass
    raise ConfigError(key, f"expected a date or date-time such as '2010-01-01' or "
                           f"'2010-01-04 00:00', got {shown(value)}")


class Calendar:
    """The epoch and the term calendar; answers "which day / weekday / season is time t".

    Args:
        epoch: the wall-clock time of simulated time 0 (a `datetime`, a `date` meaning its
            midnight, or an ISO string).
        terms: term ranges (strings or `TermRange`); `DEFAULT_TERM_SPECS` by default; an empty
            sequence makes every day a holiday.
    """

    __slots__ = ("epoch", "terms", "offset", "_date0", "_weekday0", "_term_cache")

    def __init__(self, epoch: object = DEFAULT_EPOCH,
                 terms: Iterable[str | TermRange] = DEFAULT_TERM_SPECS) -> None:
        self.epoch = _epoch(epoch, "epoch")
        if isinstance(terms, str):
            terms = (terms,)
        self.terms = tuple(t if isinstance(t, TermRange) else TermRange.parse(t, f"terms[{i}]")
                           for i, t in enumerate(terms))
        midnight = dt.datetime(self.epoch.year, self.epoch.month, self.epoch.day)
        #: Seconds from the midnight of the epoch's date to the epoch.
        self.offset = int((self.epoch - midnight).total_seconds())
        self._date0 = self.epoch.date()
        self._weekday0 = self._date0.weekday()
        self._term_cache: dict[int, bool] = {}

    def __repr__(self) -> str:
        return f"Calendar(epoch={self.epoch.isoformat(sep=' ')!r}, terms={len(self.terms)})"

    # -- days --------------------------------------------------------------------------------
    def day_index(self, t: float) -> int:
        """The day containing time t (day 0 = the epoch's date; negative before it)."""
        return math.floor((t + self.offset) / DAY)

    def day_start(self, k: int) -> float:
        """The time of midnight starting day k."""
        return float(k * DAY - self.offset)

    def date(self, k: int) -> dt.date:
        """The calendar date of day k."""
        return self._date0 + dt.timedelta(days=k)

    def weekday_of_day(self, k: int) -> int:
        """0 = Monday ... 6 = Sunday."""
        return (self._weekday0 + k) % 7

    def weekday(self, t: float) -> int:
        return self.weekday_of_day(self.day_index(t))

    def is_term_day(self, k: int) -> bool:
        hit = self._term_cache.get(k)
        if hit is None:
            day = self.date(k)
            hit = any(r.contains(day) for r in self.terms)
            self._term_cache[k] = hit
        return hit

    def is_term(self, t: float) -> bool:
        return self.is_term_day(self.day_index(t))

    def days(self, k0: int, k1: int) -> tuple[np.ndarray, np.ndarray]:
        """(weekday, in_term) arrays of the days k0 .. k1 - 1."""
        ks = range(k0, k1)
        weekday = np.array([self.weekday_of_day(k) for k in ks], dtype=np.int64)
        term = np.array([self.is_term_day(k) for k in ks], dtype=bool)
        return weekday, term

    # -- converting wall-clock times ---------------------------------------------------------
    def seconds(self, when: dt.datetime | dt.date) -> float:
        """Simulated time of a naive local date-time (a date means its midnight)."""
        return (_epoch(when, "time") - self.epoch).total_seconds()

    def datetime(self, t: float) -> dt.datetime:
        """The wall-clock date-time of simulated time t."""
        return self.epoch + dt.timedelta(seconds=float(t))


def parse_clock(text: str, key: str, *, allow_24: bool = False) -> int:
    """`"HH:MM"` (or `"HH:MM:SS"`) -> seconds after midnight; `"24:00"` only if `allow_24`."""
    parts = text.strip().split(":")
    # ASCII digits only: str.isdigit() also takes "²" or "٣", which int() then refuses.
    if len(parts) not in (2, 3) or not all(p.isascii() and p.isdigit() and len(p) == 2
                                           for p in parts):
        raise ConfigError(key, f"expected a time of day HH:MM, got {shown(text)}")
    h, m = int(parts[0]), int(parts[1])
    s = int(parts[2]) if len(parts) == 3 else 0
    if m > 59 or s > 59 or h > 24 or (h == 24 and (m or s)):
        raise ConfigError(key, f"not a time of day: {shown(text)}")
    if h == 24 and not allow_24:
        raise ConfigError(key, f"24:00 may only end a range, got {shown(text)}")
    return h * HOUR + m * 60 + s


__all__ = ["DAY", "DEFAULT_EPOCH", "DEFAULT_TERM_SPECS", "HOUR", "WEEK", "WEEKDAYS", "Calendar",
           "TermRange", "parse_clock"]
