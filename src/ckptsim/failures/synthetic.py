"""Synthetic failures: an independent failure process per node.

Schroeder and Gibson (DSN'06), on the LANL data this package also reads, found times between
failures well described by a Weibull distribution with a decreasing hazard (shape about
0.7-0.8) and repair times by a lognormal distribution (means from under an hour to over a day).
The exponential distribution is offered too, because Young's and Daly's checkpoint intervals
assume it: with it a simulation can check a policy against the formulas.

Each node alternates between up and down.  Its up times (from a repair to the next failure) are
drawn from the chosen distribution with mean `mtbf`; its down times are the repair times (0 =
transient: the node never stays down, seed 004's model).  With transient failures `mtbf` is
exactly the mean time between failures of a node; with repairs a node's mean cycle is
mtbf + repair mean.  For a machine-level MTBF M on N independent nodes use mtbf = M * N.

Every node starts freshly repaired at time 0 (a renewal process, not a stationary one): with a
decreasing hazard the first failures then come a little sooner than in a long-running machine,
as they do after a machine's installation.

Draws come from two streams of `RandomStreams`: "failures.interarrival" for up times and
"failures.repair" for repair times, so changing the repair model never moves the failure
times.  Draws are made in blocks of whole rows (one row per node), so the same seed and
parameters give the same trace.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ckptsim.errors import ConfigError
from ckptsim.failures.model import FailureTrace
from ckptsim.rng import RandomStreams

__all__ = ["DISTRIBUTIONS", "SyntheticFailures", "lognormal_params", "synthetic_failures",
           "weibull_scale"]

DISTRIBUTIONS = ("weibull", "exponential")

#: Largest Weibull shape accepted: beyond it the up times are nearly constant, which no failure
#: study reports; below 0.05 the variance is astronomically large (cv > 10^6).
_SHAPE_RANGE = (0.05, 20.0)


def weibull_scale(mtbf: float, shape: float) -> float:
    """The Weibull scale with mean `mtbf`: mtbf / Gamma(1 + 1/shape)."""
    return mtbf / math.gamma(1.0 + 1.0 / shape)


def lognormal_params(mean: float, cv: float) -> tuple[float, float]:
    """(mu, sigma) of the lognormal with this mean and coefficient of variation.

    sigma^2 = ln(1 + cv^2) and mu = ln(mean) - sigma^2 / 2, from mean = exp(mu + sigma^2 / 2)
    and cv^2 = exp(sigma^2) - 1.
    """
    sigma2 = math.log1p(cv * cv)
    return math.log(mean) - sigma2 / 2.0, math.sqrt(sigma2)


def _number(key: str, value: Any, *, low: float, high: float = math.inf,
            low_open: bool = False, accepted: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ConfigError(key, f"must be {accepted}, got {value!r}")
    x = float(value)
    if not math.isfinite(x) or x < low or (low_open and x == low) or x > high:
        raise ConfigError(key, f"must be {accepted}, got {value!r}")
    return x


@dataclass(frozen=True)
class SyntheticFailures:
    """Parameters of the per-node failure process, validated when created.

    Attributes:
        mtbf: mean up time of one node in seconds (> 0).
        distribution: "weibull" (default) or "exponential".
        shape: Weibull shape k (0.05..20; default 0.7, a decreasing hazard as in the LANL data);
            ignored for "exponential".
        repair_mean: mean repair time in seconds (>= 0; 0 = transient failures).
        repair_cv: coefficient of variation of the repair time (> 0; default 1).
        repair_mu, repair_sigma: the lognormal's own parameters (log-seconds), instead of
            repair_mean / repair_cv; sigma 0 gives a fixed repair of exp(mu).
    """

    mtbf: float
    distribution: str = "weibull"
    shape: float = 0.7
    repair_mean: float = 0.0
    repair_cv: float = 1.0
    repair_mu: float | None = None
    repair_sigma: float | None = None

    def __post_init__(self) -> None:
        _number("mtbf", self.mtbf, low=0.0, low_open=True,
                accepted="a positive finite number of seconds")
        if self.distribution not in DISTRIBUTIONS:
            raise ConfigError("distribution", f"must be one of {', '.join(DISTRIBUTIONS)}, got "
                                              f"{self.distribution!r}")
        _number("shape", self.shape, low=_SHAPE_RANGE[0], high=_SHAPE_RANGE[1],
                accepted=f"a Weibull shape in [{_SHAPE_RANGE[0]}, {_SHAPE_RANGE[1]}] "
                         f"(about 0.7-0.8 for HPC failures; 1 is exponential)")
        _number("repair_mean", self.repair_mean, low=0.0,
                accepted="a finite number of seconds >= 0 (0 = transient failures)")
        _number("repair_cv", self.repair_cv, low=0.0, low_open=True, high=100.0,
                accepted="a coefficient of variation in (0, 100]")
        given = (self.repair_mu is not None, self.repair_sigma is not None)
        if any(given):
            if not all(given):
                missing = "repair_sigma" if given[0] else "repair_mu"
                raise ConfigError(missing, "give repair_mu and repair_sigma together")
            if self.repair_mean != 0.0 or self.repair_cv != 1.0:
                raise ConfigError("repair_mu", "give either repair_mean/repair_cv or "
                                               "repair_mu/repair_sigma, not both")
            _number("repair_mu", self.repair_mu, low=-50.0, high=50.0,
                    accepted="a lognormal mu in [-50, 50] (log-seconds)")
            _number("repair_sigma", self.repair_sigma, low=0.0, high=10.0,
                    accepted="a lognormal sigma in [0, 10]")

    # -- derived --------------------------------------------------------------------------

    @property
    def transient(self) -> bool:
        """True when failures have no repair time."""
        return self.repair_mu is None and self.repair_mean == 0.0

    def repair_lognormal(self) -> tuple[float, float] | None:
        """(mu, sigma) of the repair time, or None for transient failures."""
        if self.repair_mu is not None and self.repair_sigma is not None:
            return float(self.repair_mu), float(self.repair_sigma)
        if self.repair_mean == 0.0:
            return None
        return lognormal_params(float(self.repair_mean), float(self.repair_cv))

    def describe(self) -> str:
        law = (f"weibull(k={self.shape:g})" if self.distribution == "weibull"
               else "exponential")
        repair = self.repair_lognormal()
        rep = ("transient" if repair is None
               else f"lognormal repair(mu={repair[0]:.4g}, sigma={repair[1]:.4g})")
        return f"{law} up times, mtbf={self.mtbf:g} s, {rep}"

    # -- sampling -------------------------------------------------------------------------

    def _up_times(self, rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
        if self.distribution == "exponential":
            return rng.exponential(float(self.mtbf), size=shape)
        k = float(self.shape)
        return weibull_scale(float(self.mtbf), k) * rng.weibull(k, size=shape)

    def generate(self, n_nodes: int, horizon: float, *,
                 seed: int | RandomStreams = 0) -> FailureTrace:
        """The failures of `n_nodes` nodes (ids 0..n_nodes-1) starting in [0, horizon).

        A run passes its RandomStreams as `seed` (the streams continue); a bare integer seed
        gets fresh streams, so the same call always gives the same trace.
        """
        if isinstance(n_nodes, bool) or not isinstance(n_nodes, (int, np.integer)) \
                or n_nodes < 1:
            raise ConfigError("n_nodes", f"must be an integer >= 1, got {n_nodes!r}")
        horizon = _number("horizon", horizon, low=0.0, low_open=True,
                          accepted="a positive finite number of seconds")
        streams = seed if isinstance(seed, RandomStreams) else RandomStreams(seed)
        up_rng = streams.stream("failures.interarrival")
        repair_rng = streams.stream("failures.repair")
        repair = self.repair_lognormal()
        n = int(n_nodes)
        # Columns per block: enough for most nodes to pass the horizon in one block (mean
        # count plus a margin for the spread), capped so a block stays a few MB.  It depends on
        # the up times only, so that a different repair model draws the same up times.
        expected = horizon / float(self.mtbf)
        width = int(min(max(expected + 4.0 * math.sqrt(expected) + 8.0, 8.0),
                        max(8.0, 2e6 / n)))
        starts: list[np.ndarray] = []
        nodes: list[np.ndarray] = []
        repairs: list[np.ndarray] = []
        clock = np.zeros(n)  # when each node is next up (end of its last repair)
        alive = np.arange(n)  # nodes whose next failure may still fall before the horizon
        while len(alive):
            shape = (n, width)  # always whole rows for every node: draws do not depend on
            up = self._up_times(up_rng, shape)  # which nodes are still alive
            down = (np.zeros(shape) if repair is None
                    else repair_rng.lognormal(repair[0], repair[1], size=shape))
            up, down = up[alive], down[alive]
            fail = clock[alive, None] + np.cumsum(up + down, axis=1) - down
            inside = fail < horizon
            rows, cols = np.nonzero(inside)
            starts.append(fail[rows, cols])
            nodes.append(alive[rows])
            repairs.append(down[rows, cols])
            clock[alive] = fail[:, -1] + down[:, -1]
            alive = alive[inside[:, -1]]
        trace = FailureTrace(time=np.concatenate(starts), node=np.concatenate(nodes),
                             repair=np.concatenate(repairs), span=horizon,
                             source=f"synthetic: {self.describe()}, {n} nodes, "
                                    f"seed={streams.seed}")
        return trace.with_columns(f"synthetic({self.describe()})",
                                  counts={"failures": len(trace)})


def synthetic_failures(n_nodes: int, horizon: float, *, mtbf: float,
                       distribution: str = "weibull", shape: float = 0.7,
                       repair_mean: float = 0.0, repair_cv: float = 1.0,
                       repair_mu: float | None = None, repair_sigma: float | None = None,
                       seed: int | RandomStreams = 0) -> FailureTrace:
    """`SyntheticFailures(...).generate(n_nodes, horizon, seed=seed)` in one call."""
    model = SyntheticFailures(mtbf=mtbf, distribution=distribution, shape=shape,
                              repair_mean=repair_mean, repair_cv=repair_cv,
                              repair_mu=repair_mu, repair_sigma=repair_sigma)
    return model.generate(n_nodes, horizon, seed=seed)
