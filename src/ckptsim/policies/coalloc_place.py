"""Placing a job across clusters: "Module 1" of the bandwidth-aware co-allocation (addendum 4.1)
and the choice of nodes inside a cluster.

A job of n nodes with (estimated) per-processor bandwidth e may put k of its nodes on cluster
c when, wherever its block of k ranks falls in the job's mesh, the traffic it would put on c's
link fits the link's residual bandwidth r_c: e * u_n(k) <= r_c, with
u_n(k) = phi * k (n - k) / (n - 1) + (1 - phi) / 4 * (largest mesh cut of a k-block), the
demand per Mbit/s of PPBW (`ckptsim.platform.links.coalloc_intervals`, here one value at a
time and cached per n).  The split is chosen greedily: the clusters in order of the largest
piece they can take (ties: lower cluster), each taking the largest admissible piece of what
is left; if nodes remain, the job is not co-allocated.  Any split found this way fits every
link with the estimated demand, whatever order the blocks take.

With `cut="real"` (the scheduler's `admit_cut=real`) a job that this worst-case rule refuses
gets a second chance: the same greedy choice with the *least* cut a k-block can make (the
all-to-all part is exact either way), accepted when the split's actual traffic
(`ckptsim.platform.links.split_demand`: blocks in cluster order, as the links book it) fits
every link's residual.  A split the worst case admits is kept as it is, so the real cut only
adds co-allocations.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from ckptsim.platform.links import PHI, block_cut, fits, max_block_cut, split_demand

#: How Module 1 counts a block's mesh cut (`greedy_split`'s `cut`).
CUTS = ("worst", "real")


@lru_cache(maxsize=4096)
def unit_demand(n: int, phi: float = PHI) -> tuple[float, ...]:
    """u_n(k) for k = 0..n: the largest traffic per unit of PPBW that k of an n-node job's
    nodes put on their cluster's link (0 for k = 0 and k = n); `phi` the all-to-all share."""
    return _unit(n, max_block_cut(n).tolist(), phi)


@lru_cache(maxsize=4096)
def least_unit_demand(n: int, phi: float = PHI) -> tuple[float, ...]:
    """Like `unit_demand` with the least mesh cut a block of k ranks can make."""
    return _unit(n, [min((block_cut(n, a, a + k) for a in range(n - k + 1)), default=0)
                     for k in range(n + 1)], phi)


def _unit(n: int, cut: list[int], phi: float) -> tuple[float, ...]:
    out = []
    for k in range(n + 1):
        a2a = k * (n - k) / (n - 1) if 0 < k < n else 0.0
        nn = cut[k] if 0 < k < n else 0
        out.append(phi * a2a + (1.0 - phi) / 4.0 * nn)
    return tuple(out)


def largest_piece(unit: Sequence[float], limit: int, estimate: float, residual: float) -> int:
    """The largest k <= limit (k >= 0) with estimate * unit[k] <= residual (0 always fits)."""
    k = limit
    while k > 0 and estimate * unit[k] > residual:
        k -= 1
    return k


def greedy_split(n: int, estimate: float, avail: Sequence[int],
                 residual: Sequence[float], cut: str = "worst",
                 phi: float = PHI) -> list[int] | None:
    """Nodes per cluster for an n-node job across at least two clusters, at most `avail[c]`
    on cluster c and within each link's residual bandwidth for PPBW `estimate`; None when
    the greedy choice leaves nodes unplaced (`cut`: see the module's docstring; `phi`: the
    all-to-all share of the traffic, `coalloc`'s `phi`)."""
    if n < 2 or sum(avail) < n:
        return None
    split = _greedy(n, estimate, avail, residual, unit_demand(n, phi))
    if split is not None or cut == "worst":
        return split
    split = _greedy(n, estimate, avail, residual, least_unit_demand(n, phi))
    if split is None or not fits(split_demand(split, estimate, phi), residual):
        return None
    return split


def _greedy(n: int, estimate: float, avail: Sequence[int], residual: Sequence[float],
            unit: Sequence[float]) -> list[int] | None:
    top = n - 1  # a piece of n would not be a co-allocation
    best = [largest_piece(unit, min(a, top), estimate, r) for a, r in zip(avail, residual,
                                                                          strict=True)]
    if sum(best) < n:
        return None
    order = sorted(range(len(avail)), key=lambda c: (-best[c], c))
    split = [0] * len(avail)
    rest = n
    for c in order:
        if rest == 0 or best[c] == 0:
            break
        k = largest_piece(unit, min(best[c], rest), estimate, residual[c])
        split[c] = k
        rest -= k
    if rest:
        return None
    return split


def lowest_nodes(free: int, k: int) -> int:
    """The k lowest set bits of `free` (k <= its count), a run of consecutive bits at a
    time."""
    out = 0
    while k > 0:
        low = free & -free
        run = free & ~(free + low)  # the lowest run of consecutive set bits
        n = run.bit_count()
        if n >= k:
            return out | (low * ((1 << k) - 1))
        out |= run
        free ^= run
        k -= n
    return out
