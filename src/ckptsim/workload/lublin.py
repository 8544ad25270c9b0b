"""The Lublin-Feitelson (2003) workload model of rigid parallel jobs.

Each job gets an arrival time (a gamma-distributed log inter-arrival time stretched by a daily
cycle), a node count (serial, power of two, or a two-stage log-uniform size) and a runtime
(a hyper-gamma on the log scale whose mixing probability falls with the job size, so that
larger jobs run longer).  The algorithm and constants are those of the model's reference C
generator (``m_lublin99.c``), as laid out in the specification addendum, section 1:

* typed mode (the C default): batch and interactive jobs have their own parameters and their
  own arrival streams; the next job is the one whose stream arrives first;
* untyped mode ("whole sample"): one parameter set, every job typed 0 (interactive).

The model has no requested time, so user runtime estimates come from
`ckptsim.workload.estimates` (the Tsafrir-Etsion-Feitelson model by default).

Randomness comes from named streams of `ckptsim.rng.RandomStreams` -- ``arrivals.interactive``,
``arrivals.batch``, ``sizes``, ``runtimes``, ``estimates`` -- so that, for instance, switching
estimate models leaves arrivals, sizes and runtimes unchanged.  Numbers are not bit-identical
to the C program (different generators); only the distributions match.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from ckptsim.errors import ConfigError
from ckptsim.rng import RandomStreams
from ckptsim.workload import estimates as est
from ckptsim.workload.lublin_params import (
    BATCH,
    BATCH_PARAMS,
    BUCKETS,
    INTERACTIVE,
    INTERACTIVE_PARAMS,
    REFERENCE_MACHINE_SIZE,
    SECONDS_IN_BUCKET,
    UNTYPED_PARAMS,
    LublinParams,
    TypeParams,
)
from ckptsim.workload.model import SWF_INDEX, Workload, from_columns

_GAMMA_ITER_MAX = 1000
_GAMMA_EPS = 1e-10
_ARRIVAL_CHUNK = 1024


# --------------------------------------------------------------------------------------------
# gamma CDF (regularised lower incomplete gamma), needed only for the 48 bucket weights
# --------------------------------------------------------------------------------------------

def _gammainc_lower(a: float, x: float) -> float:
    """P(a, x), the regularised lower incomplete gamma function.

    The classic pair: the power series for x < a + 1, the continued fraction for Q = 1 - P
    otherwise (modified Lentz), both to a relative accuracy of 1e-10 -- the same method and
    tolerance as the model's C code, without adding a SciPy dependency for 96 evaluations.
    """
    if x <= 0.0:
        return 0.0
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1.0:
        term = total = 1.0 / a
        ap = a
        for _ in range(_GAMMA_ITER_MAX):
            ap += 1.0
            term *= x / ap
            total += term
            if abs(term) < abs(total) * _GAMMA_EPS:
                break
        return total * math.exp(log_front)
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, _GAMMA_ITER_MAX + 1):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        if abs(d) < tiny:
            d = tiny
        c = b + an / c
        if abs(c) < tiny:
            c = tiny
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _GAMMA_EPS:
            break
    return 1.0 - math.exp(log_front) * h


def gamma_cdf(x: float, shape: float, scale: float) -> float:
    """CDF of gamma(shape, scale) at x (mean shape * scale)."""
    return _gammainc_lower(shape, x / scale)


def bucket_weights(tp: TypeParams, cyclic_day_start: int = 11) -> np.ndarray:
    """The 48 half-hour bucket weights of the daily cycle, normalised to mean 1.

    For i = cyclic_day_start .. cyclic_day_start + 47 the bucket (i - 1) mod 48 gets
    F(i + 0.5) - F(i - 0.5) with F the gamma(anum, bnum) CDF.  A bucket with weight w "costs"
    w rush-hour points per 1800 s, so busy buckets receive more arrivals.
    """
    w = np.zeros(BUCKETS)
    for i in range(cyclic_day_start, cyclic_day_start + BUCKETS):
        w[(i - 1) % BUCKETS] = (gamma_cdf(i + 0.5, tp.anum, tp.bnum)
                                - gamma_cdf(i - 0.5, tp.anum, tp.bnum))
    mean = float(w.mean())
    if not mean > 0.0:
        raise ConfigError("anum", "the arrival-cycle gamma gives every bucket zero weight")
    return w / mean


class _ArrivalStream:
    """The arrival process of one job type, with the state the C code keeps per type.

    `points` (rush-hour inter-arrivals not yet spent, in bucket units) and `reminder` (the
    fraction of the current bucket already elapsed) persist across calls: this sub-bucket
    carry-over is what makes the arrival times continuous.

    `time` is kept exact; only the reported submit times are truncated to whole seconds.  (The
    C code truncates its integer clock after every step, which loses ~0.5 s per job and drifts
    the clock against the bucket index: after ~10^5 jobs the daily cycle is washed out.)
    """

    def __init__(self, tp: TypeParams, params: LublinParams, rng: np.random.Generator) -> None:
        self.weights = bucket_weights(tp, params.cyclic_day_start).tolist()
        self.shape = tp.aarr * tp.arar
        self.scale = tp.barr
        self.limit = params.max_log_interarrival
        self.rng = rng
        self.bucket = params.start_hour * BUCKETS // 24
        self.points = 0.0
        self.reminder = 0.0
        self.time = 0.0
        self.rejected = 0
        self._buffer: list[float] = []
        self._pos = 0
        self.advance()  # the first job arrives one inter-arrival after time 0

    def _log_interarrival(self) -> float:
        while True:
            if self._pos >= len(self._buffer):
                self._buffer = self.rng.gamma(self.shape, self.scale, _ARRIVAL_CHUNK).tolist()
                self._pos = 0
            g = self._buffer[self._pos]
            self._pos += 1
            if g <= self.limit:
                return g
            self.rejected += 1

    def advance(self) -> None:
        """Move this type's next arrival one inter-arrival further."""
        w = self.weights
        self.points += math.exp(self._log_interarrival()) / SECONDS_IN_BUCKET
        b = self.bucket
        nxt = 0.0
        while self.points > w[b]:
            self.points -= w[b]
            b = (b + 1) % BUCKETS
            nxt += SECONDS_IN_BUCKET
        new_reminder = self.points / w[b]
        nxt += SECONDS_IN_BUCKET * (new_reminder - self.reminder)
        self.reminder = new_reminder
        self.time += nxt
        self.bucket = b


def _arrivals(params: LublinParams, streams: RandomStreams) -> tuple[np.ndarray, np.ndarray, int]:
    """Submit times (s) and types of `params.n_jobs` jobs, and the number of redrawn IATs."""
    n = params.n_jobs
    submit = np.empty(n, dtype=np.int64)
    types = np.full(n, INTERACTIVE, dtype=np.int64)
    inter = _ArrivalStream(params.type_params(INTERACTIVE), params,
                           streams.stream("arrivals.interactive"))
    if not params.typed:
        for i in range(n):
            submit[i] = math.floor(inter.time)
            inter.advance()
        return submit, types, inter.rejected
    batch = _ArrivalStream(params.type_params(BATCH), params, streams.stream("arrivals.batch"))
    for i in range(n):
        if batch.time < inter.time:  # ties go to interactive, as in the C code
            submit[i] = math.floor(batch.time)
            types[i] = BATCH
            batch.advance()
        else:
            submit[i] = math.floor(inter.time)
            inter.advance()
    return submit, types, inter.rejected + batch.rejected


def _per_type(params: LublinParams, types: np.ndarray, name: str) -> np.ndarray:
    """Column `name` of the (scaled) parameter set of each job's type."""
    values = np.array([getattr(params.type_params(t), name) for t in (INTERACTIVE, BATCH)])
    return values[types]


def _sizes(params: LublinParams, types: np.ndarray,
           rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """Node counts (calc_number_of_nodes) and how many were cut to the size cap.

    One uniform u decides serial (u <= serial_prob), then -- reused -- power of two
    (u <= serial_prob + pow2_prob, log size rounded half up); two more uniforms pick the branch
    and the value of the two-stage uniform.  All three are drawn for every job so that each
    job consumes the same amount of the stream.
    """
    n = len(types)
    u = rng.random(n)
    branch = rng.random(n)
    v = rng.random(n)
    g = {name: _per_type(params, types, name)
         for name in ("serial_prob", "pow2_prob", "ulow", "umed", "uhi", "uprob")}
    par = np.where(branch <= g["uprob"],
                   g["ulow"] + (g["umed"] - g["ulow"]) * v,
                   g["umed"] + (g["uhi"] - g["umed"]) * v)
    pow2 = u <= g["serial_prob"] + g["pow2_prob"]
    par = np.where(pow2, np.floor(par + 0.5), par)
    size = np.floor(2.0 ** par + 0.5).astype(np.int64)
    size[u <= g["serial_prob"]] = 1
    cap = np.array([params.size_cap(INTERACTIVE), params.size_cap(BATCH)])[types]
    capped = size > cap
    size[capped] = cap[capped]
    return size, int(np.count_nonzero(capped))


def _runtimes(params: LublinParams, types: np.ndarray, size: np.ndarray,
              rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """Runtimes (time_from_nodes) in whole seconds, and how many log-runtimes were redrawn.

    ln(runtime) is hyper-gamma with p = clip(pa * nodes + pb, 0, 1); a draw above
    `max_log_runtime` is redrawn, branch choice included, until it fits.
    """
    n = len(types)
    p = np.clip(_per_type(params, types, "pa") * size + _per_type(params, types, "pb"), 0.0, 1.0)
    shapes = (_per_type(params, types, "a1"), _per_type(params, types, "a2"))
    scales = (_per_type(params, types, "b1"), _per_type(params, types, "b2"))
    log_rt = np.empty(n)
    todo = np.arange(n)
    redrawn = 0
    while todo.size:
        first = rng.random(todo.size) <= p[todo]
        shape = np.where(first, shapes[0][todo], shapes[1][todo])
        scale = np.where(first, scales[0][todo], scales[1][todo])
        hg = rng.gamma(shape, scale)
        ok = hg <= params.max_log_runtime
        log_rt[todo[ok]] = hg[ok]
        todo = todo[~ok]
        redrawn += int(todo.size)
    return np.floor(np.exp(log_rt)), redrawn


def generate_lublin(
    n_jobs: int,
    *,
    machine_size: int = REFERENCE_MACHINE_SIZE,
    typed: bool = False,
    seed: int = 0,
    params: LublinParams | None = None,
    estimates: str = "tsafrir",
    estimate_params: Mapping[str, Any] | None = None,
) -> Workload:
    """A Lublin-Feitelson workload of `n_jobs` jobs for a machine of `machine_size` nodes.

    `params` supplies the model constants (default: `LublinParams()`); `n_jobs`,
    `machine_size` and `typed` always override its fields of the same name.  `estimates` names
    the estimate model (`ckptsim.workload.estimates.ESTIMATE_MODELS`) and `estimate_params` its
    parameters (for "tsafrir": max_est, default 18 h).  With "tsafrir", runtimes above max_est
    are truncated to it, as the estimate model requires.

    The workload's SWF fields carry the job type (0 interactive, 1 batch) in field 15
    (queue); `counts` reports the size caps, the redrawn log-runtimes and log-inter-arrivals,
    and the runtimes truncated / estimates raised by the estimate model.
    """
    base = params if params is not None else LublinParams()
    if not isinstance(base, LublinParams):
        raise ConfigError("params", f"must be a LublinParams, got {type(base).__name__}")
    p = replace(base, n_jobs=n_jobs, machine_size=machine_size, typed=typed)
    p.validate()
    if estimates not in est.ESTIMATE_MODELS:
        raise ConfigError("estimates", f"unknown estimate model {estimates!r}; accepted: "
                          + ", ".join(repr(m) for m in est.ESTIMATE_MODELS))
    streams = RandomStreams(seed)

    submit, types, iat_redrawn = _arrivals(p, streams)
    size, n_capped = _sizes(p, types, streams.stream("sizes"))
    runtime, rt_redrawn = _runtimes(p, types, size, streams.stream("runtimes"))

    counts: dict[str, int] = {
        "lublin_size_capped": n_capped,
        "lublin_runtime_redrawn": rt_redrawn,
        "lublin_interarrival_redrawn": iat_redrawn,
    }
    eparams = dict(estimate_params or {})
    erng = streams.stream("estimates")
    if estimates == "tsafrir":
        for key in eparams:
            if key not in ("max_est", "n_bins", "bin_model", "head_share"):
                raise ConfigError(key, "not a parameter of the 'tsafrir' estimate model "
                                  "(accepted: max_est, n_bins, bin_model, head_share)")
        res = est.tsafrir_estimates(runtime, erng, **eparams)
        runtime, estimate = res.runtime, res.estimate
        counts["estimate_runtime_truncated"] = res.n_truncated
        counts["estimate_raised"] = res.n_raised
    else:
        estimate = est.assign_estimates(runtime, estimates, erng, **eparams)

    source = (f"lublin(n={p.n_jobs}, P={p.machine_size}, typed={bool(p.typed)}, seed={seed}, "
              f"estimates={estimates})")
    header = {
        "Version": "2",
        "Acknowledge": "Uri Lublin, Hebrew University",
        "Information": "http://www.cs.huji.ac.il/labs/parallel/workload",
        "MaxJobs": str(p.n_jobs),
        "MaxRecords": str(p.n_jobs),
        "MaxNodes": str(p.machine_size),
        "MaxRuntime": str(int(math.exp(p.max_log_runtime))),
        "Note": source,
    }
    wl = from_columns(submit=submit, runtime=runtime, size=size, estimate=estimate,
                      machine_size=p.machine_size, source=source, header=header)
    # Jobs come out in submit order with ids 1..n, so job_id - 1 indexes the generated arrays.
    wl.fields[:, SWF_INDEX["queue"]] = types[wl.job_id - 1]
    return replace(wl, counts=counts)


__all__ = [
    "BATCH",
    "BATCH_PARAMS",
    "INTERACTIVE",
    "INTERACTIVE_PARAMS",
    "UNTYPED_PARAMS",
    "LublinParams",
    "TypeParams",
    "bucket_weights",
    "gamma_cdf",
    "generate_lublin",
]
