"""Interactive user sessions of a pool: the data, a CSV reader and writer, arrival counts.

A session is (machine, login, logout): a user sits at one computer from login to logout.
`Sessions` holds them as numpy columns sorted by login time (then machine).  Machines are
numbered 0 .. n-1 in the pool's order (clusters in order, each cluster's machines
consecutive) and named `<cluster>:<i>` with i counted from 0 in the cluster
(`machine_names`).

**CSV format** (plain or gzip-compressed, UTF-8; lines starting with `#` and blank lines are
ignored): a header line naming the columns, in any order, of which `machine`, `login` and
`logout` are required (other columns are ignored); then one session per line.

- `machine`: a machine name (`library:12`) or its 0-based index in the pool;
- `login`, `logout`: seconds from time 0 (a number), or a local date-time in ISO form
  (`2010-06-03 09:55:00`), converted with the calendar's epoch (no daylight saving).

A line is refused, naming the file, the line and the field, when a field is missing or
malformed, a time is negative or not finite, the logout is before the login, or the machine is
unknown.  Two sessions overlapping on one machine are refused too (the seed's model has one
user per computer at a time), unless `overlap="merge"` joins them into one session.
"""

from __future__ import annotations

import csv
import datetime as dt
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from os import PathLike

import numpy as np

from ckptsim.calendar import Calendar
from ckptsim.errors import ConfigError, WorkloadError, shown
from ckptsim.files import read_bytes
from ckptsim.limits import check_time
from ckptsim.platform.hours import OpeningHours

COLUMNS = ("machine", "login", "logout")
OVERLAP = ("error", "merge")


@dataclass(frozen=True)
class UserCluster:
    """What the user model needs of a cluster: its name, machine count and hours."""

    name: str
    machines: int
    hours: OpeningHours


def machine_names(clusters: Sequence[UserCluster]) -> list[str]:
    """`<cluster>:<i>` for every machine, in pool order."""
    return [f"{c.name}:{i}" for c in clusters for i in range(c.machines)]


def cluster_of_machine(clusters: Sequence[UserCluster]) -> np.ndarray:
    """The cluster index of every machine (int64)."""
    return np.repeat(np.arange(len(clusters), dtype=np.int64),
                     [c.machines for c in clusters])


@dataclass(frozen=True, eq=False)
class Sessions:
    """Sessions as columns sorted by (login, machine, logout): `machine` int64,
    `login`/`logout` float64 seconds; a session occupies its machine over [login, logout).
    `counts` says what the reader or generator did (merged overlaps, users turned away by a
    full cluster...)."""

    machine: np.ndarray
    login: np.ndarray
    logout: np.ndarray
    n_machines: int
    source: str = ""
    counts: dict[str, int] = field(default_factory=dict)

    @classmethod
    def build(cls, machine: object, login: object, logout: object, n_machines: int,
              source: str = "", counts: dict[str, int] | None = None) -> Sessions:
        m = np.asarray(machine, dtype=np.int64)
        a = np.asarray(login, dtype=np.float64)
        b = np.asarray(logout, dtype=np.float64)
        order = np.lexsort((b, m, a))
        return cls(m[order], a[order], b[order], int(n_machines), source, dict(counts or {}))

    def __len__(self) -> int:
        return len(self.machine)

    def overlapping(self) -> np.ndarray:
        """Indices (into the sorted columns) of sessions whose login falls in an earlier (or
        equal-login, shorter) session on the same machine, i.e. before its logout; empty when
        every machine has one user at a time.  An empty session (logout = login) overlaps
        nothing that starts at or after it."""
        if len(self) == 0:
            return np.empty(0, dtype=np.int64)
        order = np.lexsort((self.logout, self.login, self.machine))
        m, a, b = self.machine[order], self.login[order], self.logout[order]
        same = np.zeros(len(m), dtype=bool)
        same[1:] = m[1:] == m[:-1]
        # Within one machine, sessions sorted by login; compare with the latest earlier end.
        bad = np.zeros(len(m), dtype=bool)
        starts = np.flatnonzero(~same)
        for lo, hi in zip(starts, [*starts[1:], len(m)], strict=True):
            if hi - lo > 1:
                prev_end = np.maximum.accumulate(b[lo:hi])
                bad[lo + 1:hi] = a[lo + 1:hi] < prev_end[:-1]
        return np.sort(order[bad])


# -- reading and writing ----------------------------------------------------------------------

def _text(path: str | PathLike[str]) -> str:
    where = str(path)
    raw = read_bytes(path)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise WorkloadError(f"not UTF-8 text (byte {exc.start})", path=where) from None


def _time(value: str, cal: Calendar, where: str, line: int, name: str) -> float:
    text = value.strip()
    try:
        t = float(text)
    except ValueError:
        try:
            t = cal.seconds(dt.datetime.fromisoformat(text))
        except (ValueError, ConfigError):
            raise WorkloadError(f"expected seconds or a date-time such as 2010-06-03 09:55:00, "
                                f"got {shown(value)}", path=where, line=line, field=name) from None
    if not math.isfinite(t):
        raise WorkloadError(f"not a finite time: {shown(value)}", path=where, line=line, field=name)
    if t < 0:
        raise WorkloadError(f"before time 0 ({cal.epoch.isoformat(sep=' ')}): {shown(value)}",
                            path=where, line=line, field=name)
    check_time(t, path=where, line=line, field=name)
    return t


def _machine(value: str, index: dict[str, int], n: int, where: str, line: int) -> int:
    text = value.strip()
    hit = index.get(text)
    if hit is not None:
        return hit
    if text.isascii() and text.isdigit():
        if int(text) < n:
            return int(text)
        raise WorkloadError(f"machine index {text} out of range: the pool has {n} machines "
                            f"(0..{n - 1})", path=where, line=line, field="machine")
    example = next(iter(index), "cluster:0")
    raise WorkloadError(f"unknown machine {shown(text)}; expected a name such as {example!r} or an "
                        f"index 0..{n - 1}", path=where, line=line, field="machine")


def read_sessions(path: str | PathLike[str], machines: Sequence[str] | int, *,
                  calendar: Calendar | None = None, overlap: str = "error") -> Sessions:
    """Read a session trace (format in the module docstring).

    Args:
        machines: the pool's machine names in order (`machine_names`), or just their number
            (then only indices are accepted).
        calendar: converts date-times (default `Calendar()`, epoch 1 January 2010).
        overlap: "error" (default) or "merge" for sessions overlapping on one machine.
    """
    if overlap not in OVERLAP:
        raise ConfigError("overlap", f"expected one of {', '.join(OVERLAP)}, got {overlap!r}")
    names = [] if isinstance(machines, int) else list(machines)
    n = machines if isinstance(machines, int) else len(names)
    index = {name: i for i, name in enumerate(names)}
    cal = calendar or Calendar()
    where = str(path)
    rows: list[tuple[int, float, float, int]] = []
    header: dict[str, int] | None = None
    blank = comment = 0
    reader = csv.reader(_text(path).splitlines())
    for fields in reader:
        number = reader.line_num
        if not fields or not "".join(fields).strip():
            blank += 1
            continue
        if fields[0].lstrip().startswith("#"):
            comment += 1
            continue
        if header is None:
            header = {f.strip().lower(): i for i, f in enumerate(fields)}
            missing = [c for c in COLUMNS if c not in header]
            if missing:
                raise WorkloadError(f"the header must name the columns {', '.join(COLUMNS)}; "
                                    f"missing: {', '.join(missing)}", path=where, line=number)
            continue
        values = {}
        for col in COLUMNS:
            i = header[col]
            if i >= len(fields) or not fields[i].strip():
                raise WorkloadError("missing value", path=where, line=number, field=col)
            values[col] = fields[i]
        m = _machine(values["machine"], index, n, where, number)
        login = _time(values["login"], cal, where, number, "login")
        logout = _time(values["logout"], cal, where, number, "logout")
        if logout < login:
            raise WorkloadError(f"logout {values['logout'].strip()} is before login "
                                f"{values['login'].strip()}", path=where, line=number,
                                field="logout")
        rows.append((m, login, logout, number))
    if header is None:
        raise WorkloadError(f"no header line; expected {','.join(COLUMNS)}", path=where)
    arr = np.array([r[:3] for r in rows], dtype=np.float64).reshape(-1, 3)
    line_of = np.array([r[3] for r in rows], dtype=np.int64)
    s = Sessions.build(arr[:, 0], arr[:, 1], arr[:, 2], n, source=where,
                       counts={"sessions_read": len(rows), "blank_lines": blank,
                               "comment_lines": comment})
    bad = s.overlapping()
    if len(bad) == 0:
        return s
    if overlap == "error":
        order = np.lexsort((arr[:, 0], arr[:, 1]))
        i = int(bad[0])
        m = int(s.machine[i])
        earlier = [j for j in range(len(s)) if j != i and s.machine[j] == m
                   and s.login[j] <= s.login[i] < s.logout[j]]
        raise WorkloadError(f"session overlaps the one on line {int(line_of[order[earlier[0]]])} "
                            f"on machine {names[m] if names else m} (one user per machine at a "
                            f"time; overlap='merge' joins them)", path=where,
                            line=int(line_of[order[i]]), field="login")
    return _merge_overlaps(s)


def _merge_overlaps(s: Sessions) -> Sessions:
    order = np.lexsort((s.logout, s.login, s.machine))
    out: list[list[float]] = []
    for m, a, b in zip(s.machine[order], s.login[order], s.logout[order], strict=True):
        if out and out[-1][0] == m and a < out[-1][2]:
            out[-1][2] = max(out[-1][2], b)
        else:
            out.append([m, a, b])
    arr = np.array(out, dtype=np.float64).reshape(-1, 3)
    counts = {**s.counts, "merged_overlaps": len(s) - len(out)}
    return Sessions.build(arr[:, 0], arr[:, 1], arr[:, 2], s.n_machines, s.source, counts)


def write_sessions(path: str | PathLike[str], sessions: Sessions,
                   machines: Sequence[str] | None = None) -> None:
    """Write sessions in the CSV format (times as seconds with `repr` precision, so reading
    the file back gives the same floats)."""
    names = list(machines) if machines is not None else None
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(COLUMNS)
        for m, a, b in zip(sessions.machine.tolist(), sessions.login.tolist(),
                           sessions.logout.tolist(), strict=True):
            w.writerow((names[m] if names else m, repr(a), repr(b)))


# -- arrivals in sliding windows (the Interarrival skip policy) -------------------------------

class ArrivalCounter:
    """User arrivals (logins) per cluster and in the whole pool, counted in windows.

    `count(t, w, cluster)` is |{logins e : t - w <= T(e) <= t}| (both ends included, as the
    seed's equation 4), in one cluster or, with `cluster=None`, system-wide.
    """

    __slots__ = ("system", "by_cluster")

    def __init__(self, sessions: Sessions, cluster_of: np.ndarray) -> None:
        self.system = np.sort(sessions.login)
        clusters = np.asarray(cluster_of)[sessions.machine] if len(sessions) else np.empty(0, int)
        n = int(np.max(cluster_of)) + 1 if len(cluster_of) else 0
        self.by_cluster = [np.sort(sessions.login[clusters == c]) for c in range(n)]

    def _arrivals(self, cluster: int | None) -> np.ndarray:
        return self.system if cluster is None else self.by_cluster[cluster]

    def counts(self, times: np.ndarray, window: float, cluster: int | None = None) -> np.ndarray:
        """Arrivals in [t - window, t] for every t of `times` (int64)."""
        a = self._arrivals(cluster)
        times = np.asarray(times, dtype=np.float64)
        right = np.searchsorted(a, times, side="right")
        left = np.searchsorted(a, times - window, side="left")
        return (right - left).astype(np.int64)

    def count(self, t: float, window: float, cluster: int | None = None) -> int:
        return int(self.counts(np.asarray([t]), window, cluster)[0])


__all__ = ["COLUMNS", "ArrivalCounter", "Sessions", "UserCluster", "cluster_of_machine",
           "machine_names", "read_sessions", "write_sessions"]
