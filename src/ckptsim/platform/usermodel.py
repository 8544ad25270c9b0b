"""A generator of interactive user sessions, calibrated to what seed 003 says of Newcastle.

The Newcastle traces the seed replays are not public, so this model is built on the seed's
qualitative description, and every number below is our choice unless marked otherwise:

* **Seasonality** (seed, Fig. 2): fewer arrivals at weekends than on weekdays, and in holidays
  than in term.  Arrival rates are multiplied by `saturday` / `sunday` and by `holiday`.
* **Daily cycle**: the per-hour factors `hourly` (peak 1.0 late morning and early afternoon,
  near 0 at night).
* **Hour boundaries** (seed, section 4.2, MinuteInHour): in office hours "a large proportion of
  interruptions occur close to hour boundaries", as students arrive ahead of timetabled
  sessions.  A share `boundary_share` of the arrivals of an hour whose closing boundary lies
  in `office_hours` (on term days; also in holidays if `boundary_in_holidays`) falls in its last
  `boundary_minutes` minutes; the rest is uniform over the hour.
* **Open hours only**: arrivals while the cluster is closed are dropped (the rates apply to
  open time), and a session ends at the latest when its cluster closes.
* **One user per computer**: an arrival takes a computer chosen uniformly among the free ones
  of its cluster; if all are taken the user is turned away (counted in `counts`).
* **Cluster popularity**: each cluster's rate is multiplied by a lognormal factor of mean 1 and
  log-sd `popularity_sigma`, drawn from the stream `users.popularity.<cluster>` (or given).
* **Session length**: a configurable distribution (`SessionLength`), lognormal with median
  45 min by default, clipped to [1 min, 8 h].

Arrivals of a cluster in an hour are Poisson with mean
`peak_rate * machines * popularity * day_factor * hourly[hour]`.  Each cluster draws from its
own streams (`users.arrivals.<c>`, `users.lengths.<c>`, `users.machines.<c>`), so a cluster's
sessions depend only on the seed, its own parameters and the calendar.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields

import numpy as np

from ckptsim.calendar import DAY, HOUR, Calendar
from ckptsim.errors import ConfigError, did_you_mean
from ckptsim.limits import MAX_DAYS, check_count
from ckptsim.platform.hours import OpeningHours, WeeklyHours
from ckptsim.platform.users import Sessions, UserCluster
from ckptsim.rng import RandomStreams
from ckptsim.values import option_parts, parse_bool

#: Relative arrival rate by hour of the day, 00:00 .. 23:00 (our choice).
DEFAULT_HOURLY = (0.03, 0.02, 0.02, 0.01, 0.01, 0.02, 0.05, 0.15, 0.45, 0.85, 1.0, 1.0,
                  0.9, 0.95, 1.0, 0.9, 0.75, 0.5, 0.35, 0.3, 0.25, 0.2, 0.12, 0.06)

#: Families of session-length distributions and their parameters (seconds).
SESSION_KINDS: dict[str, tuple[str, ...]] = {
    "lognormal": ("median", "sigma"),
    "exponential": ("mean",),
    "weibull": ("scale", "shape"),
    "uniform": ("low", "high"),
    "fixed": ("value",),
}
DEFAULT_SESSION = "lognormal:median=2700,sigma=0.9,min=60,max=28800"


@dataclass(frozen=True)
class SessionLength:
    """A session-length distribution, `KIND:p=v,...,min=S,max=S` (draws clipped to [min, max])."""

    kind: str
    params: tuple[tuple[str, float], ...]
    low: float = 60.0
    high: float = 8 * HOUR

    @classmethod
    def parse(cls, text: str, key: str = "session") -> SessionLength:
        kind, _, rest = str(text).partition(":")
        kind = kind.strip().lower()
        if kind not in SESSION_KINDS:
            raise ConfigError(key, f"unknown distribution {kind!r}; accepted: "
                                   f"{', '.join(SESSION_KINDS)}")
        values: dict[str, float] = {}
        for part in option_parts(key, rest, text):
            name, sep, value = part.partition("=")
            name = name.strip()
            accepted = (*SESSION_KINDS[kind], "min", "max")
            if not sep or name not in accepted:
                raise ConfigError(f"{key}.{name or part}", f"expected one of "
                                  f"{', '.join(accepted)} as name=value, got {part!r}")
            if name in values:
                raise ConfigError(f"{key}.{name}", f"is given twice in {text!r}: give each "
                                                   f"parameter once")
            try:
                values[name] = float(value)
            except ValueError:
                raise ConfigError(f"{key}.{name}", f"expected a number, got {value!r}") from None
            if not math.isfinite(values[name]) or values[name] < 0:
                raise ConfigError(f"{key}.{name}", f"expected a finite number >= 0, got {value!r}")
        missing = [p for p in SESSION_KINDS[kind] if p not in values]
        if missing:
            raise ConfigError(f"{key}.{missing[0]}", f"{kind} needs "
                              f"{', '.join(SESSION_KINDS[kind])}")
        low, high = values.pop("min", 60.0), values.pop("max", 8 * HOUR)
        if high < low:
            raise ConfigError(f"{key}.max", f"must be >= min ({low:g}), got {high:g}")
        if kind == "uniform" and values["high"] < values["low"]:
            raise ConfigError(f"{key}.high", "must be >= low")
        for name in ("median", "mean", "scale", "shape"):
            if values.get(name, 1.0) <= 0:
                raise ConfigError(f"{key}.{name}", "must be > 0")
        return cls(kind, tuple((p, values[p]) for p in SESSION_KINDS[kind]), low, high)

    def draw(self, rng: np.random.Generator, n: int) -> np.ndarray:
        p = dict(self.params)
        if self.kind == "lognormal":
            x = p["median"] * np.exp(p["sigma"] * rng.standard_normal(n))
        elif self.kind == "exponential":
            x = rng.exponential(p["mean"], n)
        elif self.kind == "weibull":
            x = p["scale"] * rng.weibull(p["shape"], n)
        elif self.kind == "uniform":
            x = rng.uniform(p["low"], p["high"], n)
        else:
            x = np.full(n, p["value"])
        return np.clip(x, self.low, self.high)


@dataclass(frozen=True)
class UserModel:
    """Parameters of the session generator (defaults are our choice; see docs/pool.md)."""

    peak_rate: float = 0.4            # arrivals per computer per hour at hourly = 1 (term weekday)
    hourly: tuple[float, ...] = DEFAULT_HOURLY
    saturday: float = 0.35
    sunday: float = 0.25
    holiday: float = 0.3
    boundary_share: float = 0.5
    boundary_minutes: float = 10.0
    office_hours: str = "mon-fri 09:00-17:00"
    boundary_in_holidays: bool = False
    session: str = DEFAULT_SESSION
    popularity_sigma: float = 0.5

    def validate(self) -> tuple[SessionLength, WeeklyHours]:
        """Check every field (ConfigError names it); returns the parsed session length and
        office hours."""
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name in _NUMBERS:
                if isinstance(v, bool) or not isinstance(v, (int, float)) \
                        or not math.isfinite(v) or v < 0:
                    raise ConfigError(f"users.{f.name}", f"expected a number >= 0, got {v!r}")
        if self.boundary_share > 1:
            raise ConfigError("users.boundary_share", f"expected a share in [0, 1], got "
                                                      f"{self.boundary_share}")
        if not 0 < self.boundary_minutes <= 60:
            raise ConfigError("users.boundary_minutes", f"expected minutes in (0, 60], got "
                                                        f"{self.boundary_minutes}")
        h = self.hourly
        if len(h) != 24 or any(isinstance(x, bool) or not isinstance(x, (int, float))
                               or not math.isfinite(x) or x < 0 for x in h):
            raise ConfigError("users.hourly", "expected 24 numbers >= 0 (00:00 .. 23:00)")
        return (SessionLength.parse(self.session, "users.session"),
                WeeklyHours.parse(self.office_hours, "users.office_hours"))


_NUMBERS = ("peak_rate", "saturday", "sunday", "holiday", "boundary_share", "boundary_minutes",
            "popularity_sigma")
#: The availability component's `owners` value naming this model: `model` (the defaults) or
#: `model:KEY=VALUE,...` (`parse_model`).
MODEL = "model"


def is_model(owners: str) -> bool:
    """Whether an `owners` value names the user model (`model` or `model:KEY=VALUE,...`)."""
    return owners == MODEL or owners.startswith(MODEL + ":")


def parse_model(owners: str, key: str = "availability.owners") -> UserModel:
    """The user model `owners` names: `model` (the defaults) or `model:KEY=VALUE,...`, KEY any
    field of `UserModel` (`hourly`: 24 numbers joined by `/`).  A part that is no `KEY=VALUE`
    of a field continues the value before it (`session=lognormal:median=1800,sigma=0.9`,
    `office_hours=mon,wed 09:00-17:00`).  Errors name `{key}.KEY`."""
    names = [f.name for f in fields(UserModel)]
    given: dict[str, str] = {}
    last = None
    for part in option_parts(key, owners.partition(":")[2], owners):
        name, sep, value = part.partition("=")
        name = name.strip()
        if sep and name in names:
            if name in given:
                raise ConfigError(f"{key}.{name}", f"is given twice in {owners!r}: give each "
                                                   f"parameter once")
            given[name], last = value.strip(), name
        elif last is not None:
            given[last] += "," + part
        else:
            raise ConfigError(f"{key}.{name}", f"not a parameter of the user model in "
                                               f"{owners!r}{did_you_mean(name, names)}; "
                                               f"accepted: {', '.join(names)}")
    values: dict[str, object] = {}
    for name, text in given.items():
        where = f"{key}.{name}"
        if name == "hourly":
            values[name] = tuple(_number(where, x) for x in text.split("/"))
        elif name == "boundary_in_holidays":
            values[name] = parse_bool(where, text)
        elif name in _NUMBERS:
            values[name] = _number(where, text)
        else:
            values[name] = text
    model = UserModel(**values)  # type: ignore[arg-type]
    try:
        model.validate()
    except ConfigError as exc:
        raise ConfigError(f"{key}.{exc.key.removeprefix('users.')}", exc.message) from None
    return model


def model_text(model: UserModel) -> str:
    """The `owners` value of `model`: `model` at the defaults, else `model:` and the fields
    that differ from them, in field order (one run identity whatever order they were given
    in)."""
    default = UserModel()
    parts = []
    for f in fields(UserModel):
        v = getattr(model, f.name)
        if v == getattr(default, f.name):
            continue
        if f.name == "hourly":
            text = "/".join(repr(float(x)) for x in v)
        elif isinstance(v, bool):
            text = "true" if v else "false"
        elif f.name in _NUMBERS:
            text = repr(float(v))
        else:
            text = str(v)
        parts.append(f"{f.name}={text}")
    return MODEL + (":" + ",".join(parts) if parts else "")


def _number(key: str, text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ConfigError(key, f"expected a number, got {text!r}") from None


def _popularity(clusters: Sequence[UserCluster], seed: int, sigma: float,
                given: Mapping[str, float] | None) -> np.ndarray:
    streams = RandomStreams(seed)
    out = []
    for c in clusters:
        if given is not None and c.name in given:
            out.append(float(given[c.name]))
        else:
            z = float(streams.stream(f"users.popularity.{c.name}").standard_normal())
            out.append(math.exp(sigma * z - sigma * sigma / 2))
    return np.asarray(out)


def _assign(login: np.ndarray, logout: np.ndarray, first: int, machines: int,
            u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Seat each arrival (in login order) on a free machine; (kept mask, machine ids)."""
    free = list(range(first, first + machines))
    busy: list[tuple[float, int]] = []
    kept = np.zeros(len(login), dtype=bool)
    chosen = np.full(len(login), -1, dtype=np.int64)
    for i, (t, end, x) in enumerate(zip(login.tolist(), logout.tolist(), u.tolist(),
                                        strict=True)):
        while busy and busy[0][0] <= t:
            free.append(heapq.heappop(busy)[1])
        if not free:
            continue
        j = int(x * len(free))
        m = free[j]
        free[j] = free[-1]
        free.pop()
        heapq.heappush(busy, (end, m))
        kept[i] = True
        chosen[i] = m
    return kept, chosen


def generate_sessions(clusters: Sequence[UserCluster], *, days: int, seed: int,
                      calendar: Calendar | None = None, model: UserModel | None = None,
                      popularity: Mapping[str, float] | None = None) -> Sessions:
    """Sessions of `days` days from time 0 on the clusters (machines numbered in order)."""
    model = model or UserModel()
    length, office_weekly = model.validate()
    if isinstance(days, bool) or not isinstance(days, int) or days < 1:
        raise ConfigError("users.days", f"expected a whole number of days >= 1, got {days!r}")
    check_count("users.days", days, MAX_DAYS, "MAX_DAYS", "days")
    cal = calendar or Calendar()
    horizon = float(days * DAY)
    k0, k1 = cal.day_index(0.0), cal.day_index(horizon)
    weekday, term = cal.days(k0, k1 + 1)
    season = np.where(term, 1.0, model.holiday)
    week = np.ones(7)
    week[5], week[6] = model.saturday, model.sunday
    day_factor = season * week[weekday]
    n_buckets = 24 * len(day_factor)
    bucket_start = cal.day_start(k0) + HOUR * np.arange(n_buckets, dtype=np.float64)
    hour_rate = model.peak_rate * np.repeat(day_factor, 24) * np.tile(model.hourly, len(term))
    office = OpeningHours(office_weekly).timeline(cal, bucket_start[0], bucket_start[-1] + 2 * HOUR)
    boundary = office.open_mask(bucket_start + HOUR)
    if not model.boundary_in_holidays:
        boundary &= np.repeat(term, 24)
    pop = _popularity(clusters, seed, model.popularity_sigma, popularity)
    streams = RandomStreams(seed)
    cols: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    arrivals = lost = 0
    first = 0
    for c, p in zip(clusters, pop, strict=True):
        if c.machines < 1:
            raise ConfigError(f"clusters.{c.name}.machines", f"expected >= 1, got {c.machines}")
        rng = streams.stream(f"users.arrivals.{c.name}")
        counts = rng.poisson(hour_rate * c.machines * p)
        bucket = np.repeat(np.arange(n_buckets), counts)
        n = len(bucket)
        late = boundary[bucket] & (rng.random(n) < model.boundary_share)
        u = rng.random(n)
        offset = np.where(late, HOUR - u * model.boundary_minutes * 60.0, u * HOUR)
        login = bucket_start[bucket] + offset
        dur = length.draw(streams.stream(f"users.lengths.{c.name}"), n)
        order = np.argsort(login, kind="stable")
        login, dur = login[order], dur[order]
        timeline = c.hours.timeline(cal, 0.0, horizon)
        ok = (login >= 0) & (login < horizon)
        ok[ok] = timeline.open_mask(login[ok])
        login, dur = login[ok], dur[ok]
        logout = np.minimum(login + dur, timeline.next_closings(login))
        kept, machine = _assign(login, logout, first, c.machines,
                                streams.stream(f"users.machines.{c.name}").random(len(login)))
        arrivals += len(login)
        lost += int(np.count_nonzero(~kept))
        cols.append((machine[kept], login[kept], logout[kept]))
        first += c.machines
    machine = np.concatenate([m for m, _, _ in cols]) if cols else np.empty(0, np.int64)
    login = np.concatenate([a for _, a, _ in cols]) if cols else np.empty(0)
    logout = np.concatenate([b for _, _, b in cols]) if cols else np.empty(0)
    source = f"users(days={days}, seed={seed}, clusters={len(clusters)}, machines={first})"
    return Sessions.build(machine, login, logout, first, source,
                          {"arrivals": arrivals, "turned_away": lost, "sessions": len(login)})


__all__ = ["DEFAULT_HOURLY", "DEFAULT_SESSION", "MODEL", "SESSION_KINDS", "SessionLength",
           "UserModel", "generate_sessions", "is_model", "model_text", "parse_model"]
