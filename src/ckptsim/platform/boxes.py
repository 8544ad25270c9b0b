"""Every box of a 3-D torus (or mesh), enumerated once per (dims, wraparound).

A box is a contiguous run along each axis (modulo the length with wrap-around).  The tables
list every distinct box as a bitmask over the supernode ids ``x + X*(y + Y*z)``: volume
descending, then the seed's shape order, then base corners in increasing x, y, z.  They are
shared by every :class:`~ckptsim.platform.torus.Torus` of the same kind.  Also here: scaling
the job sizes of a trace from a machine of another size (:func:`scale_sizes`).
"""

from __future__ import annotations

import functools
import math
import operator
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ckptsim.errors import ConfigError

Coord = tuple[int, int, int]
Shape = tuple[int, int, int]

#: Largest number of boxes a torus may have: every box is kept in memory (4x4x8: 9,633).
MAX_BOXES = 1_000_000


def arcs(length: int, wraparound: bool) -> list[tuple[int, int, tuple[int, ...]]]:
    """Every (extent, start, cells) run along one dimension, in the appendix's base order.

    With wrap-around a run of extent ``a < length`` may start anywhere and continues modulo
    the length; a run covering the whole ring is the same set whatever its start, so only
    start 0 is kept (the partitions returned are distinct masks).  Without wrap-around a run
    must end inside the dimension: starts stop at ``length - a``, the appendix's early exit.
    """
    runs = []
    for a in range(1, length + 1):
        if wraparound:
            starts = range(1) if a == length else range(length)
        else:
            starts = range(length - a + 1)
        for b in starts:
            runs.append((a, b, tuple((b + i) % length for i in range(a))))
    return runs


def box_shapes(dims: Coord, size: int) -> list[Shape]:
    """All (a, b, c) with a*b*c == size fitting the dims, as the appendix enumerates them:
    three nested loops over the divisors of ``size`` in increasing order."""
    divisors = [d for d in range(1, size + 1) if size % d == 0]
    out = []
    for a in divisors:
        if a > dims[0]:
            break
        for b in divisors:
            if b > dims[1] or a * b > size:
                break
            if size % (a * b):
                continue
            c = size // (a * b)
            if c <= dims[2]:
                out.append((a, b, c))
    return out


@dataclass(frozen=True)
class BoxTables:
    """Every box of a torus, largest volume first (shared by all Torus objects of one kind)."""

    masks: list[int]                  # box masks, volume descending, then shape, then base
    objects: np.ndarray               # the same masks as an object array, for fancy indexing
    words: np.ndarray                 # (n_words, n_boxes) uint64: the same masks, 64 bits a word
    volume: np.ndarray                # (n_boxes,) int64
    volumes: list[int]                # the same volumes as Python ints
    base: list[Coord]
    shape: list[Shape]
    shapes: dict[int, list[Shape]]    # feasible volume -> shapes in appendix order
    span: dict[int, tuple[int, int]]  # feasible volume -> [start, end) in the box arrays
    index: dict[int, int]             # box mask -> its index
    feasible: np.ndarray              # (n + 1,) smallest feasible volume >= s (index s)
    first_at_most: np.ndarray         # (n + 1,) index of the first box of volume <= v (index v)


@functools.lru_cache(maxsize=16)
def box_tables(dims: Coord, wraparound: bool) -> BoxTables:
    X, Y, Z = dims
    n = X * Y * Z
    runs = [arcs(length, wraparound) for length in dims]
    by_extent: list[dict[int, list[tuple[int, tuple[int, ...]]]]] = []
    for dim_runs in runs:
        table: dict[int, list[tuple[int, tuple[int, ...]]]] = {}
        for a, b, cells in dim_runs:
            table.setdefault(a, []).append((b, cells))
        by_extent.append(table)

    # Masks are built separably: a run along x, repeated along y into a plane, then along z.
    line = {(a, b): sum(1 << x for x in cells) for a, b, cells in runs[0]}
    plane: dict[tuple[int, int, int, int], int] = {}
    for (a, bx), xs in line.items():
        for b, by, ys in runs[1]:
            plane[(a, bx, b, by)] = sum(xs << (X * y) for y in ys)

    masks: list[int] = []
    volume: list[int] = []
    base: list[Coord] = []
    shape: list[Shape] = []
    shapes: dict[int, list[Shape]] = {}
    span: dict[int, tuple[int, int]] = {}
    for v in range(n, 0, -1):
        vs = box_shapes(dims, v)
        if not vs:
            continue
        shapes[v] = vs
        start = len(masks)
        for a, b, c in vs:
            for bx, _ in by_extent[0][a]:
                for by, _ in by_extent[1][b]:
                    p = plane[(a, bx, b, by)]
                    for bz, zs in by_extent[2][c]:
                        masks.append(sum(p << (X * Y * z) for z in zs))
                        volume.append(v)
                        base.append((bx, by, bz))
                        shape.append((a, b, c))
        span[v] = (start, len(masks))

    n_words = (n + 63) // 64
    raw = b"".join(m.to_bytes(8 * n_words, "little") for m in masks)
    words = np.frombuffer(raw, dtype="<u8").reshape(len(masks), n_words).T.copy()
    feasible = np.zeros(n + 1, dtype=np.int64)
    nxt = 0
    for s in range(n, 0, -1):
        if s in shapes:
            nxt = s
        feasible[s] = nxt
    vol = np.asarray(volume, dtype=np.int64)
    first_at_most = np.searchsorted(-vol, -np.arange(n + 1), side="left").astype(np.int64)
    objects = np.empty(len(masks), dtype=object)
    objects[:] = masks
    return BoxTables(
        masks=masks,
        objects=objects,
        words=words,
        volume=vol,
        volumes=volume,
        base=base,
        shape=shape,
        shapes=shapes,
        span=span,
        index={m: i for i, m in enumerate(masks)},
        feasible=feasible,
        first_at_most=first_at_most,
    )


def scale_sizes(sizes: ArrayLike, from_machine: int, to_machine: int) -> tuple[np.ndarray, float]:
    """Job sizes of a trace recorded on ``from_machine`` nodes, scaled to ``to_machine``.

    Each size becomes ``ceil(size * to / from)``, at least 1, computed in integers so that a
    256-node job lands on exactly 128 supernodes.  Returns the new sizes and the factor
    ``to / from``.  Sizes beyond the recorded machine stay proportionally beyond the new one
    (round_sizes then refuses them) instead of being silently clipped.
    """
    try:
        f, t = operator.index(from_machine), operator.index(to_machine)
    except TypeError:
        raise ConfigError("machine_size", f"expected whole node counts, got {from_machine!r}, "
                                          f"{to_machine!r}") from None
    if f < 1 or t < 1:
        raise ConfigError("machine_size", f"machine sizes must be >= 1, got {f} and {t}")
    arr = np.asarray(sizes)
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.floor(arr)):
            raise ConfigError("sizes", "job sizes must be whole numbers")
    arr = arr.astype(np.int64)
    if arr.size and int(arr.min()) < 1:
        raise ConfigError("sizes", f"job sizes must be >= 1, got {int(arr.min())}")
    g = math.gcd(f, t)
    num, den = t // g, f // g
    scaled = np.maximum(1, -((-arr * num) // den))
    return scaled.astype(np.int64), t / f
