"""Inter-cluster links of a multi-cluster grid: a co-allocated job's traffic, the max-min
fair bandwidth allotment, the resulting job speed, and admission with estimated demands.

The grid (seed 001): C clusters of single-processor nodes, each joined to a central switch by
one dedicated full-duplex link of capacity Cap_c (1 Gbps); cluster backplanes are never the
bottleneck, so a job placed on one cluster uses no link.  A job of n nodes with per-processor
bandwidth PPBW split as k_c nodes on cluster c puts traffic on every link c with 0 < k_c < n.
The seed only sketches the model (its reference, Jones et al. 2005, is not available); this
module implements the reconstruction of the specification addendum, section 4.2:

* **Demand** (`split_demand`).  All-to-all personalized: every node spreads PPBW evenly over
  its n - 1 peers, so k_c (n - k_c) / (n - 1) * PPBW leaves cluster c, and as much enters it.
  2-D mesh nearest neighbour: ranks 0..n-1 laid out row-major on a mesh ceil(sqrt(n)) wide,
  given to the clusters in contiguous blocks in cluster order; every node sends PPBW / 4 to
  each mesh neighbour, so each mesh edge cut by c's block carries PPBW / 4 each way.
  Combined: D(c) = phi * D_a2a(c) + (1 - phi) * D_nn(c), phi = 0.5.  Both patterns are
  symmetric, so the outgoing and incoming traffic of a link are equal and the larger
  direction, which is what a full-duplex link compares with its capacity, is either one.
* **Allotment** (`allot`; incrementally, `ckptsim.platform.linkstate.LinkState`).  A job's
  communication progresses at a fraction f_j in (0, 1] of its dedicated speed and then uses
  f_j * D_j(c) on each link.  The f_j are max-min fair subject to sum_j f_j D_j(c) <= Cap_c
  (progressive filling: raise every unfrozen f together, freeze the jobs of a link when it
  fills, stop at 1).  With one bottleneck every job on it gets f = Cap / sum D (a share in
  proportion to demand); a job's f is set by its tightest link; a job with no link traffic
  has f = 1.
* **Speed** (`progress_rate`).  T_E = T_P + T_C on a dedicated cluster, kappa = T_C / T_E.
  Computation and (non-overlapped) communication advance together in the proportion
  T_P : T_C, so one second of dedicated work needs (1 - kappa) s of computing and kappa / f s
  of communicating: rate = 1 / ((1 - kappa) + kappa / f) dedicated seconds per second.
* **Admission** (`fits`, `coalloc_intervals`).  The scheduler places a job only if its
  *estimated* demand fits the residual capacity of every link; "Module 1" gives, per link,
  the node counts whose demand fits whatever the block's place in the mesh.

Bandwidths are in Mbit/s throughout.  A link whose demand exceeds its capacity by no more
than a relative `REL_TOL` (float rounding of sums) counts as not saturated.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ckptsim.errors import ConfigError

#: Weight of the all-to-all pattern in a job's traffic (the nearest-neighbour part gets 1 - PHI).
PHI = 0.5
#: Link capacity of seed 001, Mbit/s (1 Gbps).
DEFAULT_CAPACITY = 1000.0
#: Relative slack of a link's capacity below which a demand still counts as fitting.
REL_TOL = 1e-9

__all__ = ["DEFAULT_CAPACITY", "PHI", "REL_TOL", "GridShape", "a2a_demand", "allot",
           "block_cut", "coalloc_intervals", "fits", "max_block_cut", "mesh_width",
           "progress_rate", "split_demand"]


def _positive(key: str, value: Any, integer: bool = False) -> float:
    ok = not isinstance(value, bool) and isinstance(value, (int, float, np.integer, np.floating))
    if ok and integer:
        ok = float(value).is_integer()
    if not ok or not math.isfinite(float(value)) or float(value) <= 0:
        kind = "an integer >= 1" if integer else "a finite number > 0"
        raise ConfigError(key, f"must be {kind}, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class GridShape:
    """C clusters of `nodes` nodes, each with one link of `capacity` Mbit/s to the switch."""

    clusters: int = 4
    nodes: int = 100
    capacity: float = DEFAULT_CAPACITY

    def __post_init__(self) -> None:
        _positive("grid.clusters", self.clusters, integer=True)
        _positive("grid.nodes", self.nodes, integer=True)
        _positive("grid.capacity", self.capacity)

    @property
    def total_nodes(self) -> int:
        return int(self.clusters) * int(self.nodes)

    def capacities(self) -> tuple[float, ...]:
        return (float(self.capacity),) * int(self.clusters)


# --------------------------------------------------------------------------------- demand
def mesh_width(n: int) -> int:
    """Width ceil(sqrt(n)) of the row-major 2-D mesh an n-node job is laid out on."""
    w = math.isqrt(n)
    return w if w * w == n else w + 1


def block_cut(n: int, a: int, b: int) -> int:
    """Mesh edges with exactly one end in the ranks [a, b) of an n-node job's mesh.

    Rank r sits at row r // W, column r % W (W = `mesh_width(n)`); its neighbours are r + 1
    (same row) and r + W (next row), when they exist.
    """
    if not 0 <= a < b <= n:
        return 0
    w = mesh_width(n)
    cut = (a > 0 and a % w != 0) + (b < n and b % w != 0)  # row edges across the ends
    cut += max(0, min(b, n - w) - max(a, b - w))  # column edges leaving downwards
    cut += max(0, min(a, b - w) - max(0, a - w))  # column edges entering from above
    return int(cut)


def a2a_demand(n: int, k: int, ppbw: float) -> float:
    """All-to-all personalized traffic one way across the link of a cluster holding k of
    the job's n nodes: ppbw * k (n - k) / (n - 1)."""
    if k <= 0 or k >= n:
        return 0.0
    return ppbw * k * (n - k) / (n - 1)


def split_demand(split: Sequence[int], ppbw: float, phi: float = PHI) -> tuple[float, ...]:
    """Traffic (Mbit/s, the larger direction) of a job on each link, `split[c]` of its nodes
    being on cluster c; mesh blocks are assigned in cluster order."""
    n = 0
    for k in split:
        if k < 0:
            raise ConfigError("split", f"node counts must be >= 0, got {list(split)}")
        n += k
    nn = (1.0 - phi) * ppbw / 4.0
    out = []
    start = 0
    for k in split:
        if 0 < k < n:
            out.append(phi * a2a_demand(n, k, ppbw) + nn * block_cut(n, start, start + k))
        else:
            out.append(0.0)
        start += k
    return tuple(out)


@lru_cache(maxsize=1024)
def _max_cut(n: int) -> tuple[int, ...]:
    return tuple(max((block_cut(n, a, a + k) for a in range(n - k + 1)), default=0)
                 for k in range(n + 1))


def max_block_cut(n: int) -> np.ndarray:
    """For k = 0..n, the largest number of mesh edges a block of k contiguous ranks can cut,
    over every place the block can take in an n-node job's mesh."""
    return np.array(_max_cut(int(n)), dtype=np.int64)


def coalloc_intervals(n: int, ppbw: float, free: Sequence[float],
                      phi: float = PHI) -> list[list[tuple[int, int]]]:
    """"Module 1": per link c, the node counts k (0..n, as inclusive intervals) that an n-node
    job with per-processor bandwidth `ppbw` may place on cluster c within the link's free
    bandwidth `free[c]`, wherever its block falls in the mesh.

    The bound uses the exact all-to-all traffic and the largest mesh cut of a k-block, so any
    split whose counts all lie in their link's intervals fits every link (`split_demand` <=
    free); k = 0 and k = n need no bandwidth and are always included.
    """
    k = np.arange(n + 1)
    a2a = ppbw * k * (n - k) / max(n - 1, 1)
    bound = phi * a2a + (1.0 - phi) * ppbw / 4.0 * max_block_cut(n)
    out = []
    for f in free:
        ok = bound <= f
        ok[0] = ok[-1] = True
        edges = np.flatnonzero(np.diff(np.concatenate(([0], ok.astype(np.int8), [0]))))
        out.append([(int(lo), int(hi) - 1) for lo, hi in zip(edges[::2], edges[1::2],
                                                              strict=True)])
    return out


def fits(demand: Sequence[float], residual: Sequence[float]) -> bool:
    """True when every link's demand is at most its residual (free) bandwidth."""
    return all(d <= r or d == 0.0 for d, r in zip(demand, residual, strict=True))


# ------------------------------------------------------------------------------- allotment
def allot(demand: Any, capacity: Any) -> np.ndarray:
    """Max-min fair rate fractions f (one per job) for an (m jobs, L links) demand matrix.

    Progressive filling: all unfrozen fractions rise together; a link binds at the level
    (Cap - frozen use) / (unfrozen demand) and freezes its unfrozen jobs there; a link whose
    whole demand fits (within `REL_TOL`) never binds; the rest stop at 1.
    """
    d = np.asarray(demand, dtype=np.float64)
    cap = np.asarray(capacity, dtype=np.float64)
    if d.ndim != 2 or d.shape[1] != cap.shape[0]:
        raise ValueError(f"demand must be (jobs, {cap.shape[0]}), got {d.shape}")
    f = np.ones(d.shape[0])
    binding = d.sum(axis=0) > cap * (1.0 + REL_TOL)
    active = (d[:, binding] > 0).any(axis=1)
    used = np.zeros_like(cap)
    while active.any():
        rest = d[active].sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            level = np.where(binding & (rest > 0), (cap - used) / rest, np.inf)
        t = float(level.min())
        if t >= 1.0:
            break
        tight = level <= t * (1.0 + 1e-12)
        freeze = active & (d[:, tight] > 0).any(axis=1)
        f[freeze] = t
        used += t * d[freeze].sum(axis=0)
        active &= ~freeze
    return f


def progress_rate(f: Any, kappa: Any) -> Any:
    """Dedicated-cluster seconds of work done per second: 1 / ((1 - kappa) + kappa / f).

    f is the job's bandwidth fraction, kappa = T_C / T_E its communication share; f = 1 or
    kappa = 0 give 1, f = 0 with kappa > 0 gives 0.  Works on numbers and numpy arrays.
    """
    if isinstance(f, np.ndarray) or isinstance(kappa, np.ndarray):
        fa = np.asarray(f, dtype=np.float64)
        ka = np.asarray(kappa, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            stretch = (1.0 - ka) + np.where(ka > 0, ka / fa, 0.0)
            return 1.0 / stretch
    if kappa <= 0:
        return 1.0
    if f <= 0:
        return 0.0
    return 1.0 / ((1.0 - kappa) + kappa / f)
