"""A generator of bursty high-throughput (HTC) submissions shaped like seed 003's 2010 trace.

The seed gives the daily shape of Newcastle's HTCondor submissions: a mean of 1,454 jobs a day,
half the days with fewer than 65, periods of extremely large batch submissions (tens of
thousands), among them about 93,000 jobs on 3 June 2010.  The trace itself is not public; this
model reproduces those numbers and is otherwise our choice (docs/pool.md):

* **Daily counts.**  Every day has a *background* of single submissions, lognormal with median
  `background_median` on weekdays (times `weekend` at weekends) and log-sd
  `background_sigma`.  A day is a *burst day* with probability `burst_prob` (times `weekend` at
  weekends); its burst adds a lognormal number of jobs with log-sd `burst_sigma` whose median is
  solved so that the expected mean over the generated days is `mean`.  With `anchor`, day
  `anchor_day` (3 June when the epoch is 1 January 2010) carries a burst of `anchor_jobs`.
  With the defaults about 51% of the days have fewer than 65 jobs.
* **Submit times.**  Background jobs are spread over the day by `hourly` (by default
  `SUBMIT_HOURLY`); a burst is cut
  into 1 + Poisson(`extra_batches`) batches (shares uniform on the simplex), each starting at a
  time drawn the same way and submitting `submit_rate` jobs per second (faster if needed so
  that a day's jobs are all submitted that day).  Times are whole seconds.
* **Durations.**  Lognormal around `duration_median` (45 min): short jobs dominate (the seed's
  Start Delay results fall off beyond ~90 min "due to the relatively short execution time of
  the jobs") with a long tail, an expected 1.3% beyond the seed's 24 h bound.  Jobs of one
  batch are alike (one application): log-duration = log(median) + `duration_batch_sigma` *
  Z_batch + `duration_job_sigma` * Z_job.  The expected mean is then ~2.5 h, so ~1,454 jobs a
  day keep about 11% of the default pool's 1,359 computers busy (5% of its cores), near the
  seed's "approximately 12%" load for 2010.  These are the lognormal's values; a generated
  year departs from them, its bursts' jobs sharing one batch factor: over seeds 1-5 the mean
  is 1.91-2.68 h, the median 38.8-46.4 min, 0.55-1.56% above 24 h (seed 1: 1.95 h, 41.0 min,
  0.80%; docs/pool.md).
* **Memory** (the footprint a checkpoint saves): lognormal, median `memory_median` MB, the
  same batch/job split, clipped to [`memory_min`, `memory_max`] MB (a footprint beyond a
  float's range, from a median such as 1e308, is `memory_max` too, without numpy's overflow
  warning; both bounds at most `limits.MAX_MEMORY_MB`); written in KB into `used_memory`.

Every job needs one core (size 1).  The estimate is the duration (`estimates="exact"`, also in
the SWF requested time) or unknown (`"none"`: requested time -1, estimate column = duration as
the SWF reader does).  The batch number is in the SWF `executable` field.  Streams:
`htc.days`, `htc.times`, `htc.durations`, `htc.memory`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from ckptsim.calendar import DAY, HOUR, Calendar
from ckptsim.errors import ConfigError, did_you_mean, shown_key
from ckptsim.limits import (
    MAX_DAYS,
    MAX_JOBS,
    MAX_MEMORY_MB,
    check_count,
    check_generated,
    check_nodes,
)
from ckptsim.rng import RandomStreams
from ckptsim.values import parse_bool, parse_int
from ckptsim.workload.model import SWF_INDEX, Workload, from_columns

#: Cores of the default pool (ckptsim/platform/data/newcastle.toml): 1,359 computers.
NEWCASTLE_CORES = 3018

#: Relative submission rate by hour of day, 00:00 .. 23:00 (our choice: working hours and
#: evenings, little at night).
SUBMIT_HOURLY = (0.2, 0.15, 0.1, 0.1, 0.1, 0.1, 0.2, 0.4, 0.8, 1.0, 1.0, 1.0,
                 0.9, 1.0, 1.0, 1.0, 1.0, 0.9, 0.7, 0.6, 0.6, 0.5, 0.4, 0.3)

ESTIMATES = ("none", "exact")


@dataclass(frozen=True)
class HTCParams:
    """Parameters of the HTC generator (sources in docs/pool.md)."""

    days: int = 365
    mean: float = 1454.0               # seed: mean submissions per day
    background_median: float = 60.0    # calibrated: ~half the days under 65 (seed)
    background_sigma: float = 1.0
    weekend: float = 0.5
    burst_prob: float = 0.18
    burst_sigma: float = 1.2
    anchor: bool = True
    anchor_day: int = 153              # 3 June 2010 from 1 January 2010
    anchor_jobs: int = 93_000          # seed: ~93,000 submissions that day
    extra_batches: float = 2.0
    submit_rate: float = 10.0          # jobs per second within a batch
    hourly: tuple[float, ...] = SUBMIT_HOURLY  # relative submission rate by hour of day
    duration_median: float = 2700.0
    duration_batch_sigma: float = 1.2
    duration_job_sigma: float = 1.0
    memory_median: float = 128.0       # MB
    memory_batch_sigma: float = 0.8
    memory_job_sigma: float = 0.5
    memory_min: float = 1.0
    memory_max: float = 4096.0
    estimates: str = "none"
    machine: int = NEWCASTLE_CORES

    def validate(self) -> None:
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name == "estimates":
                if v not in ESTIMATES:
                    raise ConfigError("htc.estimates", f"expected one of {', '.join(ESTIMATES)}, "
                                                       f"got {v!r}")
            elif f.name == "anchor":
                if not isinstance(v, bool):
                    raise ConfigError("htc.anchor", f"expected true or false, got {v!r}")
            elif f.name == "hourly":
                if len(v) != 24 or any(isinstance(x, bool) or not isinstance(x, (int, float))
                                       or not math.isfinite(x) or x < 0 for x in v) \
                        or not sum(v) > 0:
                    raise ConfigError("htc.hourly", "expected 24 numbers >= 0, not all 0, "
                                                    "joined by '/' (00:00 .. 23:00)")
            elif isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) \
                    or v < 0:
                raise ConfigError(f"htc.{f.name}", f"expected a number >= 0, got {v!r}")
        for name in ("days", "machine"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                raise ConfigError(f"htc.{name}", f"expected an integer >= 1, got "
                                                 f"{getattr(self, name)!r}")
        for name in ("burst_prob", "weekend"):
            if getattr(self, name) > 1:
                raise ConfigError(f"htc.{name}", f"expected a value in [0, 1], got "
                                                 f"{getattr(self, name)}")
        for name in _SIGMAS:  # exp(sigma * z) of a larger one overflows
            if getattr(self, name) > MAX_SIGMA:
                raise ConfigError(f"htc.{name}", f"expected a log-normal sigma in [0, "
                                                 f"{MAX_SIGMA:g}], got {getattr(self, name)}")
        for name in ("submit_rate", "duration_median", "memory_median"):
            if getattr(self, name) <= 0:
                raise ConfigError(f"htc.{name}", f"expected a number > 0, got "
                                                 f"{getattr(self, name)}")
        for name in ("memory_min", "memory_max"):  # x 1024 into used_memory's KB
            if not 0 <= getattr(self, name) <= MAX_MEMORY_MB:
                raise ConfigError(f"htc.{name}", f"expected MB in [0, {MAX_MEMORY_MB:g}], got "
                                                 f"{getattr(self, name)}")
        if self.memory_max < self.memory_min:
            raise ConfigError("htc.memory_max", f"must be >= memory_min ({self.memory_min})")
        check_count("htc.days", self.days, MAX_DAYS, "MAX_DAYS", "days")
        check_nodes("htc.machine", self.machine)
        anchored = self.anchor and 0 <= self.anchor_day < self.days
        expected = self.mean * self.days + (self.anchor_jobs if anchored else 0)
        if expected > MAX_JOBS:
            key = "htc.mean" if self.mean > MAX_JOBS else "htc.days"
            shown = f"{expected:.0f}" if expected < 1e12 else f"{expected:.3g}"
            raise ConfigError(key, f"{self.days} days at a mean of {self.mean:g} jobs a day "
                                   f"make about {shown} jobs, more than the limit, {MAX_JOBS} "
                                   f"(MAX_JOBS)")


def _day_counts(params: HTCParams, seed: int, cal: Calendar) -> tuple[np.ndarray, np.ndarray]:
    """(background, burst) submissions of each day 0 .. days - 1 (int64 each)."""
    params.validate()
    rng = RandomStreams(seed).stream("htc.days")
    weekday, _ = cal.days(0, params.days)
    weekend = np.where(weekday >= 5, params.weekend, 1.0)
    bg_median = params.background_median * weekend
    background = np.rint(bg_median * np.exp(params.background_sigma
                                            * rng.standard_normal(params.days)))
    burst_p = params.burst_prob * weekend
    anchored = params.anchor and 0 <= params.anchor_day < params.days
    if anchored:
        burst_p[params.anchor_day] = 0.0
    expected_bg = float(np.sum(bg_median)) * math.exp(params.background_sigma ** 2 / 2)
    rest = params.mean * params.days - expected_bg - (params.anchor_jobs if anchored else 0)
    q = float(np.sum(burst_p))
    if rest < 0 or (rest > 0 and q == 0):
        raise ConfigError("htc.mean", f"{params.mean:g} jobs a day cannot be reached over "
                                      f"{params.days} days with this background, anchor burst "
                                      f"and burst probability")
    burst_median = rest / q / math.exp(params.burst_sigma ** 2 / 2) if q else 0.0
    is_burst = rng.random(params.days) < burst_p
    size = np.rint(burst_median * np.exp(params.burst_sigma * rng.standard_normal(params.days)))
    burst = np.where(is_burst, size, 0.0)
    if anchored:
        burst[params.anchor_day] += params.anchor_jobs
    drawn = float(background.sum() + burst.sum())
    if drawn > MAX_JOBS:  # the lognormal tail of a mean near the limit
        raise ConfigError("htc.days", f"the {params.days} days drawn hold {drawn:.0f} jobs, "
                                      f"more than the limit, {MAX_JOBS} (MAX_JOBS)")
    return background.astype(np.int64), burst.astype(np.int64)


def daily_counts(params: HTCParams, seed: int, calendar: Calendar | None = None) -> np.ndarray:
    """The number of submissions on each day 0 .. days - 1 (int64), as `generate_htc` with
    the same parameters and seed submits them."""
    background, burst = _day_counts(params, seed, calendar or Calendar())
    return background + burst


def _submit_hours(rng: np.random.Generator, n: int, profile: tuple[float, ...]) -> np.ndarray:
    hourly = np.asarray(profile) / sum(profile)
    return HOUR * (rng.choice(24, n, p=hourly) + rng.random(n))


def _batches(params: HTCParams, background: np.ndarray, burst: np.ndarray,
             rng: np.random.Generator, cal: Calendar) -> tuple[np.ndarray, np.ndarray]:
    """Submit times and batch numbers of every job, day by day."""
    times: list[np.ndarray] = []
    batch_of: list[np.ndarray] = []
    next_batch = 0
    for k, (n_single, rest) in enumerate(zip(background.tolist(), burst.tolist(), strict=True)):
        day0 = cal.day_start(k)
        # Single submissions, each its own batch.
        times.append(np.floor(day0 + _submit_hours(rng, n_single, params.hourly)))
        batch_of.append(np.arange(next_batch, next_batch + n_single))
        next_batch += n_single
        if rest == 0:
            continue
        parts = 1 + int(rng.poisson(params.extra_batches))
        sizes = rng.multinomial(rest, rng.dirichlet(np.ones(parts)))
        starts = day0 + _submit_hours(rng, parts, params.hourly)
        for size, start in zip(sizes.tolist(), starts.tolist(), strict=True):
            if size == 0:
                continue
            rate = max(params.submit_rate, size / max(day0 + DAY - start, 1.0))
            t = np.floor(start + np.arange(size) / rate)
            times.append(np.minimum(t, day0 + DAY - 1))
            batch_of.append(np.full(size, next_batch))
            next_batch += 1
    if not times:
        return np.empty(0), np.empty(0, np.int64)
    return np.concatenate(times), np.concatenate(batch_of).astype(np.int64)


def _lognormal_by_batch(rng: np.random.Generator, batch: np.ndarray, median: float,
                        batch_sigma: float, job_sigma: float) -> np.ndarray:
    n_batches = int(batch.max()) + 1 if len(batch) else 0
    z_batch = rng.standard_normal(n_batches)
    z_job = rng.standard_normal(len(batch))
    return median * np.exp(batch_sigma * z_batch[batch] + job_sigma * z_job)


def generate_htc(params: HTCParams | None = None, *, seed: int = 1,
                 calendar: Calendar | None = None) -> Workload:
    """The HTC workload of `params.days` days from time 0 (the calendar's epoch)."""
    p = params or HTCParams()
    cal = calendar or Calendar()
    background, burst = _day_counts(p, seed, cal)
    streams = RandomStreams(seed)
    submit, batch = _batches(p, background, burst, streams.stream("htc.times"), cal)
    with np.errstate(over="ignore"):  # durations beyond MAX_SECONDS are refused below
        duration = np.maximum(1.0, np.rint(_lognormal_by_batch(
            streams.stream("htc.durations"), batch, p.duration_median, p.duration_batch_sigma,
            p.duration_job_sigma)))
    check_generated("htc.duration_median", duration, f"duration_median="
                    f"{p.duration_median:g}", "the longest duration", "a median duration that "
                    "keeps every duration within it")
    # A footprint beyond a float's range (memory_median=1e308) is inf, clipped to memory_max
    # as any footprint above it: numpy's overflow warning said nothing the clip does not.
    with np.errstate(over="ignore"):
        memory_mb = np.clip(_lognormal_by_batch(streams.stream("htc.memory"), batch,
                                                p.memory_median, p.memory_batch_sigma,
                                                p.memory_job_sigma), p.memory_min,
                            p.memory_max)
    source = f"htc(days={p.days}, mean={p.mean:g}, seed={seed})"
    header = {"Version": "2", "MaxJobs": str(len(submit)), "MaxRecords": str(len(submit)),
              "MaxProcs": str(p.machine), "Note": source}
    w = from_columns(submit=submit, runtime=duration, size=np.ones(len(submit), np.int64),
                     estimate=duration, machine_size=p.machine, source=source, header=header)
    order = w.job_id - 1  # ids 1..n in generation order; from_columns sorted by submit
    w.fields[:, SWF_INDEX["used_memory"]] = np.rint(memory_mb[order] * 1024.0)
    w.fields[:, SWF_INDEX["executable"]] = batch[order] + 1
    if p.estimates == "none":
        w.fields[:, SWF_INDEX["requested_time"]] = -1.0
    return replace(w, counts={"htc_days": p.days, "htc_burst_days": int(np.count_nonzero(burst)),
                              "jobs": len(submit)})


#: The log-normal sigmas (log-sd) of the model, at most MAX_SIGMA.
_SIGMAS = ("background_sigma", "burst_sigma", "duration_batch_sigma", "duration_job_sigma",
           "memory_batch_sigma", "memory_job_sigma")
MAX_SIGMA = 10.0

#: `htc:KEY=VALUE,...` options (CLI `--workload`, specs): the seed and every HTCParams field.
OPTIONS = ("days", "seed", "mean", "machine", "estimates", "anchor", "duration_median",
           "memory_median", "burst_prob", "weekend", "background_median", "background_sigma",
           "burst_sigma", "anchor_day", "anchor_jobs", "extra_batches", "submit_rate", "hourly",
           "duration_batch_sigma", "duration_job_sigma", "memory_batch_sigma",
           "memory_job_sigma", "memory_min", "memory_max")
#: Integer options, each with its least value.
_INTEGERS = {"days": 1, "machine": 1, "anchor_day": 0, "anchor_jobs": 0}


def generate_from_options(options: Mapping[str, Any]) -> Workload:
    """`htc:days=30,seed=2,...` options -> the workload (errors name `htc.<option>`)."""
    params, seed = params_from_options(options)
    return generate_htc(params, seed=seed).with_generator("htc", used_options(params, seed))


def used_options(params: HTCParams, seed: int) -> dict[str, Any]:
    """Every `htc:` option with the value a workload was generated with (summary.json's
    `workload.generator.options`; `hourly` as a list)."""
    return {key: seed if key == "seed" else list(params.hourly) if key == "hourly"
            else getattr(params, key) for key in OPTIONS}


def check_options(options: Mapping[str, Any]) -> None:
    """Validate `htc:` options without generating (experiment specs): raises ConfigError
    naming `htc.<option>`."""
    params, _ = params_from_options(options)
    params.validate()


def params_from_options(options: Mapping[str, Any]) -> tuple[HTCParams, int]:
    """`htc:` options -> (parameters, seed)."""
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise ConfigError(f"htc.{shown_key(unknown[0])}", f"unknown option"
                                               f"{did_you_mean(unknown[0], OPTIONS)}; "
                                               f"accepted: {', '.join(sorted(OPTIONS))}")
    kw: dict[str, Any] = {}
    for key, value in options.items():
        if key in _INTEGERS:
            kw[key] = parse_int(f"htc.{key}", value, low=_INTEGERS[key])
        elif key == "anchor":
            kw[key] = parse_bool("htc.anchor", value)
        elif key == "estimates":
            kw[key] = str(value)
        elif key == "hourly":
            kw[key] = tuple(_number("htc.hourly", x) for x in str(value).split("/"))
        elif key != "seed":
            kw[key] = _number(f"htc.{key}", value)
    seed = parse_int("htc.seed", options.get("seed", 1), low=0)
    return HTCParams(**kw), seed


def _number(key: str, value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ConfigError(key, f"expected a number, got {value!r}") from None


__all__ = ["ESTIMATES", "NEWCASTLE_CORES", "OPTIONS", "SUBMIT_HOURLY", "HTCParams",
           "check_options", "daily_counts", "generate_from_options", "generate_htc",
           "params_from_options", "used_options"]
