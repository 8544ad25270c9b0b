"""Scheduled daily reboots of a cluster's computers.

A schedule is a fixed time of day (`"05:00"`, the Newcastle practice the addendum cites) or a
window (`"03:00-05:00"`, the seed's "between 3am and 5am") in which the time is drawn uniformly
from a seeded stream, optionally preceded by days (`"mon-fri 05:00"`; every day by default).

Drawing, for a window: with `redraw="cluster"` (default) each cluster draws one time of day
and reboots at it every day; with `redraw="day"` it draws a new time every day.  The draws come
from the stream `reboots.<cluster name>` of `RandomStreams(seed)`: a cluster's reboot times
depend only on the seed, its name and its schedule, never on other clusters or on the order of
queries.  With `redraw="day"` draw k is day k's (day 0 = the epoch's date); there are no
reboots on days before day 0.

All computers of a cluster reboot at the same instant; `duration` (default 300 s, our choice:
the seed gives none) is how long they stay unavailable, for the availability layer to apply.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ckptsim.calendar import Calendar, parse_clock
from ckptsim.errors import ConfigError, shown
from ckptsim.platform.hours import parse_days
from ckptsim.rng import RandomStreams

ACCEPTED = "'HH:MM' or a window 'HH:MM-HH:MM', optionally after days ('mon-fri 05:00')"
REDRAW = ("cluster", "day")
DEFAULT_REBOOT = "05:00"
DEFAULT_DURATION = 300.0


@dataclass(frozen=True)
class RebootSchedule:
    """Daily reboots at `start` seconds after midnight, or uniformly in [start, end)."""

    start: int
    end: int | None = None
    days: frozenset[int] = frozenset(range(7))
    duration: float = DEFAULT_DURATION
    redraw: str = "cluster"

    @classmethod
    def parse(cls, text: str = DEFAULT_REBOOT, key: str = "reboot", *,
              duration: float = DEFAULT_DURATION, redraw: str = "cluster") -> RebootSchedule:
        if not isinstance(text, str) or not text.strip():
            raise ConfigError(key, f"expected {ACCEPTED}, got {shown(text)}")
        words = text.lower().split()
        if len(words) == 2:
            days, clock = frozenset(parse_days(words[0], key)), words[1]
        elif len(words) == 1:
            days, clock = frozenset(range(7)), words[0]
        else:
            raise ConfigError(key, f"expected {ACCEPTED}, got {shown(text)}")
        a, sep, b = clock.partition("-")
        start = parse_clock(a, key)
        end = parse_clock(b, key, allow_24=True) if sep else None
        if end is not None and end <= start:
            raise ConfigError(key, f"the window must end after it starts, within the day, got "
                                   f"{shown(text)}")
        if isinstance(duration, bool) or not isinstance(duration, (int, float)) \
                or not math.isfinite(duration) or duration < 0:
            raise ConfigError(f"{key}.duration", f"expected seconds >= 0, got {shown(duration)}")
        if redraw not in REDRAW:
            raise ConfigError(f"{key}.redraw", f"expected one of {', '.join(REDRAW)}, "
                                               f"got {shown(redraw)}")
        return cls(start, end, days, float(duration), redraw)

    def _offsets(self, cluster: str, seed: int, last_day: int) -> np.ndarray:
        """Time of day of the reboot on days 0 .. last_day."""
        n = max(last_day + 1, 0)
        if self.end is None:
            return np.full(n, float(self.start))
        rng = RandomStreams(seed).stream(f"reboots.{cluster}")
        u = rng.random(n if self.redraw == "day" else 1)
        if self.redraw == "cluster":
            u = np.full(n, u[0])
        return self.start + u * (self.end - self.start)

    def times(self, cal: Calendar, t0: float, t1: float, *, cluster: str,
              seed: int = 0) -> np.ndarray:
        """Reboot instants in [t0, t1), ascending (float64 seconds)."""
        if not t1 > t0:
            return np.empty(0)
        k0, k1 = max(cal.day_index(t0), 0), cal.day_index(t1)
        offsets = self._offsets(cluster, seed, k1)
        out = [cal.day_start(k) + offsets[k] for k in range(k0, k1 + 1)
               if cal.weekday_of_day(k) in self.days]
        arr = np.asarray(out, dtype=np.float64)
        return arr[(arr >= t0) & (arr < t1)]


__all__ = ["DEFAULT_REBOOT", "RebootSchedule"]
