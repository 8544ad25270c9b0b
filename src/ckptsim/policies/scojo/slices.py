"""Job classes and the time-slice timeline of Scojo-PECT.

**Classes.** A job is short, medium or long by its estimated runtime (the runtime where the
trace gives no estimate: the workload's estimate is then the runtime) and keeps its class.
Size classes (narrow <= 10%, medium-size, wide >= 50% of the machine) are for reporting only.

**Timeline.** Time is cut into cycles of `cycle` seconds from time 0; a cycle holds one slice
per class, in a fixed order, each as long as its class's share of the cycle.  The shares of a
cycle are those in force at its start: the default vector, or the entry of a time-of-day
schedule (`"08:00=0.3/0.3/0.4;20:00=0.1/0.3/0.6"`, the last entry of the previous day before
the first one of the day) for the cycle's time of day (its start modulo 24 h on the workload's
clock).  The scheduler walks this timeline; what it does with an empty class's slice is its
own rule (`ckptsim.policies.scojo.scheduler`).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from typing import NamedTuple

import numpy as np

from ckptsim.errors import ConfigError

SHORT, MEDIUM, LONG = 0, 1, 2
CLASS_NAMES = ("short", "medium", "long")
NARROW, MIDSIZE, WIDE = 0, 1, 2
SIZE_NAMES = ("narrow", "midsize", "wide")
DAY = 86400.0
#: Tolerance of "the shares sum to 1".
SUM_TOLERANCE = 1e-6


def classify(estimate: np.ndarray, short_limit: float, long_limit: float) -> np.ndarray:
    """0 short (< short_limit), 1 medium, 2 long (>= long_limit)."""
    est = np.asarray(estimate, dtype=np.float64)
    return np.where(est < short_limit, SHORT, np.where(est < long_limit, MEDIUM, LONG))


def size_class(size: np.ndarray, machine: int) -> np.ndarray:
    """0 narrow (<= 10% of the machine), 1 medium-size, 2 wide (>= 50%)."""
    s = np.asarray(size, dtype=np.float64)
    return np.where(s <= 0.1 * machine, NARROW, np.where(s >= 0.5 * machine, WIDE, MIDSIZE))


def parse_order(key: str, text: str) -> tuple[int, ...]:
    """`"short-medium-long"` -> (0, 1, 2): each class once."""
    names = [p.strip() for p in text.replace(",", "-").split("-")]
    if sorted(names) != sorted(CLASS_NAMES):
        raise ConfigError(key, f"got {text!r}; accepted: the three classes short, medium and "
                               f"long once each, joined by '-' (e.g. short-medium-long)")
    return tuple(CLASS_NAMES.index(n) for n in names)


def check_shares(key: str, shares: tuple[float, ...]) -> None:
    if any(not (s > 0.0) or math.isinf(s) for s in shares):
        raise ConfigError(key, f"got {'/'.join(f'{s:g}' for s in shares)}; accepted: three "
                               f"shares > 0 (short/medium/long) that sum to 1")
    total = sum(shares)
    if abs(total - 1.0) > SUM_TOLERANCE:
        raise ConfigError(key, f"the shares sum to {total:g}; accepted: shares > 0 that sum "
                               f"to 1 (short/medium/long)")


def parse_schedule(key: str, text: str) -> list[tuple[float, tuple[float, float, float]]]:
    """`"08:00=0.3/0.3/0.4;20:00=0.1/0.3/0.6"` -> [(28800, (0.3, 0.3, 0.4)), ...], sorted."""
    out: list[tuple[float, tuple[float, float, float]]] = []
    accepted = ("accepted: entries HH:MM=SHORT/MEDIUM/LONG separated by ';', e.g. "
                "08:00=0.3/0.3/0.4;20:00=0.1/0.3/0.6")
    for part in filter(None, (p.strip() for p in text.split(";"))):
        when, sep, vector = part.partition("=")
        hh, colon, mm = when.strip().partition(":")
        try:
            hours, minutes = int(hh), int(mm) if colon else 0
            values = tuple(float(v) for v in vector.split("/"))
        except ValueError:
            raise ConfigError(key, f"cannot read {part!r}; {accepted}") from None
        if not sep or len(values) != 3 or not (0 <= hours < 24 and 0 <= minutes < 60):
            raise ConfigError(key, f"cannot read {part!r}; {accepted}")
        check_shares(key, values)
        at = hours * 3600.0 + minutes * 60.0
        if any(t == at for t, _ in out):
            raise ConfigError(key, f"time {when.strip()} is given twice")
        out.append((at, (values[0], values[1], values[2])))
    return sorted(out)


class Slice(NamedTuple):
    cycle: int  # index of the cycle
    pos: int  # position in the cycle (0, 1, 2)
    cls: int  # the class whose slice it is
    start: float
    end: float


class Timeline:
    """The cycles of slices: which class's slice holds a time, and which comes next."""

    def __init__(self, cycle: float, shares: tuple[float, float, float],
                 schedule: list[tuple[float, tuple[float, float, float]]],
                 order: tuple[int, ...]) -> None:
        self.cycle = float(cycle)
        self.shares = shares
        self.order = order
        self._times = [t for t, _ in schedule]
        self._vectors = [v for _, v in schedule]
        self._bounds: dict[int, list[float]] = {}

    def shares_at(self, k: int) -> tuple[float, float, float]:
        """The share vector of cycle k (by its start's time of day)."""
        if not self._times:
            return self.shares
        tod = math.fmod(k * self.cycle, DAY)
        if tod < 0:
            tod += DAY
        i = bisect_right(self._times, tod) - 1
        return self._vectors[i]  # i = -1: the day's last entry, from the previous day

    def bounds(self, k: int) -> list[float]:
        """The four boundaries of cycle k's slices (start, two inner bounds, end)."""
        b = self._bounds.get(k)
        if b is None:
            base = k * self.cycle
            shares = self.shares_at(k)
            b = [base]
            for pos in range(2):  # lengths summed (not shares), so 0.4 + 0.2 of 3000 is 1800
                b.append(b[-1] + shares[self.order[pos]] * self.cycle)
            b.append((k + 1) * self.cycle)
            if len(self._bounds) > 64:
                self._bounds.clear()
            self._bounds[k] = b
        return b

    def at(self, t: float) -> Slice:
        """The slice holding time t (start <= t < end)."""
        k = math.floor(t / self.cycle)
        b = self.bounds(k)
        if t >= b[3]:  # rounding at a cycle boundary
            k += 1
            b = self.bounds(k)
        elif t < b[0]:
            k -= 1
            b = self.bounds(k)
        pos = 0
        while pos < 2 and t >= b[pos + 1]:
            pos += 1
        return Slice(k, pos, self.order[pos], b[pos], b[pos + 1])

    def after(self, s: Slice) -> Slice:
        """The slice that follows `s`."""
        k, pos = (s.cycle, s.pos + 1) if s.pos < 2 else (s.cycle + 1, 0)
        b = self.bounds(k)
        return Slice(k, pos, self.order[pos], b[pos], b[pos + 1])
