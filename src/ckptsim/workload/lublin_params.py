"""The Lublin-Feitelson (2003) model's parameters: a job type's (`TypeParams`, the tables of
the model's reference C generator for batch, interactive and untyped jobs) and a workload's
(`LublinParams`: jobs, machine size, typed or untyped, overrides).  The generator is
`ckptsim.workload.lublin`, which re-exports them."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

import numpy as np

from ckptsim.errors import ConfigError
from ckptsim.limits import MAX_JOBS, check_count, check_nodes

#: Job types as written into SWF field 15 (queue number).
INTERACTIVE = 0
BATCH = 1

BUCKETS = 48  # half-hour buckets in a day
SECONDS_IN_BUCKET = 1800
REFERENCE_MACHINE_SIZE = 128  # the machine the UHI/UMED values of the tables are given for


@dataclass(frozen=True)
class TypeParams:
    """One parameter set of the model (one column of table 1.2 of the addendum).

    Sizes: `serial_prob` = P(1 node); `pow2_prob` = P(parallel and a power of two);
    `ulow`, `umed`, `uhi`, `uprob` = the two-stage uniform on log2(size): with probability
    `uprob` uniform on [ulow, umed], else on [umed, uhi].  `umed` and `uhi` are given for the
    128-node reference machine and are shifted by log2(P / 128) for other machine sizes.
    Runtimes: ln(runtime) ~ gamma(a1, b1) with probability p = clip(pa * nodes + pb, 0, 1),
    else gamma(a2, b2) (shape, scale).
    Arrivals: ln(rush-hour inter-arrival) ~ gamma(aarr * arar, barr); the gamma(anum, bnum) CDF
    gives each half-hour bucket's share of the daily arrivals.
    """

    serial_prob: float
    pow2_prob: float
    ulow: float
    umed: float
    uhi: float
    uprob: float
    a1: float
    b1: float
    a2: float
    b2: float
    pa: float
    pb: float
    aarr: float
    barr: float
    anum: float
    bnum: float
    arar: float

    def validate(self, key: str) -> None:
        """Raise ConfigError (named `key`.field) for values the model cannot use."""
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ConfigError(f"{key}.{f.name}", f"must be a finite number, got {v!r}")
        for name in ("serial_prob", "pow2_prob", "uprob"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ConfigError(f"{key}.{name}",
                                  f"must be a probability in [0, 1], got {getattr(self, name)}")
        if self.serial_prob + self.pow2_prob > 1.0 + 1e-12:
            raise ConfigError(f"{key}.pow2_prob", "serial_prob + pow2_prob must not exceed 1, "
                              f"got {self.serial_prob} + {self.pow2_prob}")
        for name in ("a1", "b1", "a2", "b2", "aarr", "barr", "anum", "bnum", "arar"):
            if getattr(self, name) <= 0:
                raise ConfigError(f"{key}.{name}", f"must be > 0, got {getattr(self, name)}")
        if not self.ulow <= self.umed <= self.uhi:
            raise ConfigError(f"{key}.umed", "need ulow <= umed <= uhi, got "
                              f"{self.ulow}, {self.umed}, {self.uhi}")


#: Batch jobs (typed mode).
BATCH_PARAMS = TypeParams(
    serial_prob=0.2927, pow2_prob=0.6686, ulow=1.2, umed=5.0, uhi=7.0, uprob=0.875,
    a1=6.57, b1=0.823, a2=639.1, b2=0.0156, pa=-0.003, pb=0.6986,
    aarr=6.0415, barr=0.8531, anum=6.1271, bnum=5.2740, arar=1.0519,
)
#: Interactive jobs (typed mode).
INTERACTIVE_PARAMS = TypeParams(
    serial_prob=0.1541, pow2_prob=0.625, ulow=1.0, umed=3.0, uhi=5.5, uprob=0.705,
    a1=3.8351, b1=0.6605, a2=7.073, b2=0.6856, pa=-0.0118, pb=0.9156,
    aarr=6.5510, barr=0.6621, anum=8.9186, bnum=3.6680, arar=0.9797,
)
#: The "whole sample" parameters (untyped mode).
UNTYPED_PARAMS = TypeParams(
    serial_prob=0.244, pow2_prob=0.576, ulow=0.8, umed=4.5, uhi=7.0, uprob=0.86,
    a1=4.2, b1=0.94, a2=312.0, b2=0.03, pa=-0.0054, pb=0.78,
    aarr=10.2303, barr=0.4871, anum=8.1737, bnum=3.9631, arar=1.0225,
)


@dataclass(frozen=True)
class LublinParams:
    """Everything the model needs besides the seed.

    Attributes:
        n_jobs: number of jobs to generate.
        machine_size: P, the number of nodes.  Sizes are capped at P.
        typed: True for the batch/interactive model (the C default), False for the untyped
            "whole sample" model (what the Scojo-PECT thesis used).
        batch, interactive, untyped: the three parameter sets (table 1.2).
        start_hour: hour of the day at time 0 (0 = midnight).
        max_log_runtime: ln(runtime) above this is redrawn (12, so runtime <= e^12 s).
        max_log_interarrival: ln(inter-arrival) above this is redrawn (13, about 5 days).
        cyclic_day_start: the arrival-cycle gamma is evaluated on "hours" shifted cyclically
            to start at this bucket index (11).
    """

    n_jobs: int = 10_000
    machine_size: int = REFERENCE_MACHINE_SIZE
    typed: bool = False
    batch: TypeParams = BATCH_PARAMS
    interactive: TypeParams = INTERACTIVE_PARAMS
    untyped: TypeParams = UNTYPED_PARAMS
    start_hour: int = 0
    max_log_runtime: float = 12.0
    max_log_interarrival: float = 13.0
    cyclic_day_start: int = 11

    def validate(self) -> None:
        """Raise ConfigError naming the first bad parameter."""
        if isinstance(self.n_jobs, bool) or not isinstance(self.n_jobs, (int, np.integer)) \
                or self.n_jobs < 0:
            raise ConfigError("n_jobs", f"must be a non-negative integer, got {self.n_jobs!r}")
        if isinstance(self.machine_size, bool) \
                or not isinstance(self.machine_size, (int, np.integer)) or self.machine_size < 1:
            raise ConfigError("machine_size",
                              f"must be a positive integer, got {self.machine_size!r}")
        check_count("n_jobs", int(self.n_jobs), MAX_JOBS, "MAX_JOBS", "jobs")
        check_nodes("machine_size", self.machine_size)
        if not isinstance(self.typed, (bool, np.bool_)):
            raise ConfigError("typed", f"must be a bool, got {self.typed!r}")
        if isinstance(self.start_hour, bool) or not isinstance(self.start_hour, int) \
                or not 0 <= self.start_hour < 24:
            raise ConfigError("start_hour", f"must be an integer hour 0..23, got "
                              f"{self.start_hour!r}")
        if isinstance(self.cyclic_day_start, bool) or not isinstance(self.cyclic_day_start, int):
            raise ConfigError("cyclic_day_start",
                              f"must be an integer, got {self.cyclic_day_start!r}")
        for name in ("max_log_runtime", "max_log_interarrival"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
                raise ConfigError(name, f"must be a finite number > 0, got {v!r}")
        for name in ("batch", "interactive", "untyped"):
            tp = getattr(self, name)
            if not isinstance(tp, TypeParams):
                raise ConfigError(name, f"must be a TypeParams, got {type(tp).__name__}")
            tp.validate(name)

    def type_params(self, job_type: int) -> TypeParams:
        """The parameter set jobs of `job_type` use, scaled to the machine size.

        Untyped mode uses `untyped` for every job.  For P != 128, `uhi` and `umed` are shifted
        by d = log2(P / 128); for the untyped and interactive sets this is exactly the
        addendum's rule UHI = log2(P), UMED = UHI - 2.5, and batch jobs keep their own
        UMED = UHI - 2 offset.  `ulow` is kept.  On small machines where the shifted `umed`
        falls below `ulow`, `umed` becomes UHI - 1.5 (the top of the allowed range), and both
        are clipped into [ulow, uhi] (lowering `ulow` if `uhi` itself is below it).
        """
        if not self.typed:
            tp = self.untyped
        else:
            tp = self.batch if job_type == BATCH else self.interactive
        d = math.log2(self.machine_size / REFERENCE_MACHINE_SIZE)
        if d == 0.0:
            return tp
        uhi = tp.uhi + d
        ulow = min(tp.ulow, uhi)
        umed = tp.umed + d
        if umed < ulow:
            umed = uhi - 1.5
        umed = min(max(umed, ulow), uhi)
        return replace(tp, ulow=ulow, umed=umed, uhi=uhi)

    def size_cap(self, job_type: int) -> int:
        """Largest size a job of `job_type` may get: min(P, round(2^UHI)), at least 1.

        The C code rounds a power-of-two log size up past UHI when UHI is fractional
        (interactive UHI = 5.5 gives 64 nodes, more than 2^5.5 ~ 45), and never checks P.
        """
        uhi = self.type_params(job_type).uhi
        return max(1, min(int(self.machine_size), int(math.floor(2.0 ** uhi + 0.5))))
