"""Torus micro-benchmark: the partition finder and the MFP on random 4x4x8 occupancies.

    python benchmarks/bench_torus.py [--dims 4 4 8] [--mesh] [--calls 2000] [--json OUT]

Two kinds of occupancy are measured:

* ``random-D``: every supernode busy independently with probability D;
* ``packed``: the states met while filling the torus with jobs placed by the MFP heuristic
  (sizes drawn like the SDSC-SP2 trace: mostly powers of two, some odd) and freeing random
  ones, i.e. box-shaped occupancies like a scheduler sees.

For each, per-call microseconds of: ``mfp`` (maximal_free_partition on a free mask not seen
before), ``mfp_hit`` (a mask asked before, from the cache), ``parts`` (free_partitions of a
random feasible size on a new mask), ``losses`` (L_MFP of every candidate of that size once
the mask's free boxes are known, per call and per candidate), ``place`` (one whole
MFP-heuristic decision on a new mask the straightforward way: candidates, their losses, the
best one) and ``best`` (the same decision by ``Torus.best_partition``, the schedulers' path;
``best_hit`` when the same decision was asked before).  Best of --repeat passes.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable
from pathlib import Path

from ckptsim.platform.torus import CACHE_SIZE, Torus

SIZES = [1] * 20 + [2] * 10 + [4] * 15 + [8] * 15 + [16] * 12 + [32] * 8 + [64] * 4 + [128] * 1 \
    + [3, 5, 6, 12, 24, 48, 11, 13, 20, 40]


def random_masks(t: Torus, density: float, n: int, rng: random.Random) -> list[int]:
    out = []
    for _ in range(n):
        free = 0
        for i in range(t.n_nodes):
            if rng.random() >= density:
                free |= 1 << i
        out.append(free)
    return out


def place(t: Torus, free: int, size: int) -> int | None:
    """The MFP heuristic: the free partition of the job's size leaving the largest MFP."""
    cands = t.free_partitions(free, t.feasible_size(size))
    if not cands:
        return None
    losses = t.losses(free, cands)
    return cands[losses.index(min(losses))]


def packed_masks(t: Torus, n: int, rng: random.Random) -> list[int]:
    """Free masks met while jobs arrive (placed by the MFP heuristic) and leave at random."""
    free, running, out = t.all_mask, [], []
    while len(out) < n:
        size = min(rng.choice(SIZES), t.n_nodes)
        p = place(t, free, size)
        if p is None or rng.random() < 0.3 and running:
            if running:
                free |= running.pop(rng.randrange(len(running)))
        else:
            free &= ~p
            running.append(p)
        out.append(free)
    return out


def timed(fn: Callable[[], object], calls: int, repeat: int) -> float:
    """Best per-call microseconds of `fn` over `repeat` passes of `calls` calls."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best / calls * 1e6


def bench(t: Torus, masks: list[int], sizes: list[int], repeat: int) -> dict[str, float]:
    calls = len(masks)
    pairs = list(zip(masks, sizes, strict=True))
    # Cache hits and losses are timed on a subset that fits the per-mask cache, warmed first.
    warm = pairs[:CACHE_SIZE // 2]
    cands = [(m, t.free_partitions(m, s)) for m, s in warm]
    n_cands = sum(len(c) for _, c in cands)
    laps = max(1, calls // len(warm))

    def mfp_cold() -> None:
        for m in masks:
            t.clear_cache()
            t.maximal_free_partition(m)

    def mfp_hit() -> None:
        for _ in range(laps):
            for m, _s in warm:
                t.maximal_free_partition(m)

    def parts_cold() -> None:
        for m, s in pairs:
            t.clear_cache()
            t.free_partitions(m, s)

    def losses_warm() -> None:
        for m, c in cands:
            t.losses(m, c)

    def place_cold() -> None:
        for m, s in pairs:
            t.clear_cache()
            place(t, m, s)

    def best_cold() -> None:
        for m, s in pairs:
            t.clear_cache()
            t.best_partition(m, s)

    def best_hit() -> None:
        for _ in range(laps):
            for m, s in warm:
                t.best_partition(m, s)

    for m, s in pairs:  # the fast path must agree with the straightforward one
        assert t.best_partition(m, s) == place(t, m, s)

    row = {
        "mfp_us": timed(mfp_cold, calls, repeat),
        "mfp_hit_us": timed(mfp_hit, laps * len(warm), repeat),
        "parts_us": timed(parts_cold, calls, repeat),
        "place_us": timed(place_cold, calls, repeat),
        "best_us": timed(best_cold, calls, repeat),
    }
    for m, s in warm:
        t.best_partition(m, s)
    row["best_hit_us"] = timed(best_hit, laps * len(warm), repeat)
    for m, _c in cands:
        t.maximal_free_partition(m)
    losses_us = timed(losses_warm, len(cands), repeat)
    row["losses_us"] = losses_us
    row["losses_per_cand_us"] = losses_us * len(cands) / max(n_cands, 1)
    row["cands"] = n_cands / len(cands)
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dims", type=int, nargs=3, default=(4, 4, 8))
    ap.add_argument("--mesh", action="store_true", help="no wrap-around")
    ap.add_argument("--calls", type=int, default=2000, help="occupancies per scenario")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", type=Path, default=None, help="also write the table here")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    t0 = time.perf_counter()
    t = Torus(tuple(args.dims), wraparound=not args.mesh)
    build_ms = (time.perf_counter() - t0) * 1e3
    print(f"{t!r}: tables built in {build_ms:.1f} ms")
    scenarios: dict[str, list[int]] = {
        f"random-{d:g}": random_masks(t, d, args.calls, rng) for d in (0.0, 0.1, 0.3, 0.5, 0.8)
    }
    scenarios["packed"] = packed_masks(t, args.calls, rng)
    feasible = [s for s in SIZES if s <= t.n_nodes]
    cols = ["mfp_us", "mfp_hit_us", "parts_us", "losses_us", "losses_per_cand_us", "cands",
            "place_us", "best_us", "best_hit_us"]
    print(f"{'scenario':<12}" + "".join(f"{c:>19}" for c in cols))
    rows = {}
    for name, masks in scenarios.items():
        sizes = [t.feasible_size(rng.choice(feasible)) for _ in masks]
        row = bench(t, masks, sizes, args.repeat)
        rows[name] = row
        print(f"{name:<12}" + "".join(f"{row[c]:>19.2f}" for c in cols))
    if args.json:
        args.json.write_text(json.dumps({"torus": repr(t), "build_ms": build_ms,
                                         "calls": args.calls, "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
