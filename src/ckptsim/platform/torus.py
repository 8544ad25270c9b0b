"""The BlueGene/L torus of supernodes: rectangular partitions and the maximal free partition.

BlueGene/L jobs run on electrically isolated, contiguous, rectangular 3-D boxes of 8x8x8-node
blocks, so the scheduler sees a 4x4x8 torus of 128 supernodes (Oliner et al., after Krevat et
al.).  This module answers the questions the fault-aware schedulers ask at every decision:

* which free boxes of exactly ``s`` supernodes exist (:meth:`Torus.free_partitions`),
* how large the biggest free box is (:meth:`Torus.maximal_free_partition`, the MFP), and
* how much a placement shrinks it (:meth:`Torus.loss`, the seed's L_MFP).

Supernode ``(x, y, z)`` has id ``x + X*(y + Y*z)`` (x varies fastest), and a set of supernodes
is a Python int bitmask with bit ``id`` set, exactly like the engine's node masks, so a
partition can be handed to ``sim.start(job, mask=...)`` unchanged.

Every box of every volume is enumerated once per (dims, wraparound) -- shapes in the order of
the seed's appendix, base corners in increasing x, then y, then z -- and kept both as Python
ints and as a ``(words, boxes)`` uint64 array.  Testing all boxes against an occupancy is then
one vectorised ``box & busy == 0`` pass whose result is cached by free mask; the queries
slice it.  See docs/torus.md for the algorithms and the interpretations chosen.
"""

from __future__ import annotations

import functools
import math
import operator
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ckptsim.errors import ConfigError

Coord = tuple[int, int, int]
Shape = tuple[int, int, int]

#: Free masks whose box tests are remembered (a scheduling pass revisits the same few).
CACHE_SIZE = 256
#: Largest number of boxes a torus may have: every box is kept in memory (4x4x8: 9,633).
MAX_BOXES = 1_000_000
#: Free boxes tried one by one, largest first, before a vectorised search takes over.
_SCAN = 48


class Mfp(NamedTuple):
    """A maximal free partition: its volume and one box achieving it (0, 0 when none)."""

    volume: int
    mask: int


def _arcs(length: int, wraparound: bool) -> list[tuple[int, int, tuple[int, ...]]]:
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


def _shapes(dims: Coord, size: int) -> list[Shape]:
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
class _Tables:
    """Every box of a torus, largest volume first (shared by all Torus objects of one kind)."""

    masks: list[int]                  # box masks, volume descending, then shape, then base
    objects: np.ndarray               # the same masks as an object array, for fancy indexing
    words: np.ndarray                 # (n_words, n_boxes) uint64: the same masks, 64 bits a word
    volume: np.ndarray                # (n_boxes,) int64
    base: list[Coord]
    shape: list[Shape]
    shapes: dict[int, list[Shape]]    # feasible volume -> shapes in appendix order
    span: dict[int, tuple[int, int]]  # feasible volume -> [start, end) in the box arrays
    index: dict[int, int]             # box mask -> its index
    feasible: np.ndarray              # (n + 1,) smallest feasible volume >= s (index s)
    first_at_most: np.ndarray         # (n + 1,) index of the first box of volume <= v (index v)


@functools.lru_cache(maxsize=16)
def _tables(dims: Coord, wraparound: bool) -> _Tables:
    X, Y, Z = dims
    n = X * Y * Z
    runs = [_arcs(length, wraparound) for length in dims]
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
        vs = _shapes(dims, v)
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
    return _Tables(
        masks=masks,
        objects=objects,
        words=words,
        volume=vol,
        base=base,
        shape=shape,
        shapes=shapes,
        span=span,
        index={m: i for i, m in enumerate(masks)},
        feasible=feasible,
        first_at_most=first_at_most,
    )


class _FreeBoxes:
    """The boxes free under one free mask: indices into the tables, largest volume first."""

    __slots__ = ("idx", "head", "mfp", "parts")

    def __init__(self, idx: np.ndarray, head: list[int], mfp: Mfp) -> None:
        self.idx = idx
        self.head = head  # masks of the first few free boxes, for early-exit scans
        self.mfp = mfp
        self.parts: dict[int, list[int]] = {}  # size -> free partitions, filled on demand


class Torus:
    """A 3-D torus (or mesh) of ``X*Y*Z`` supernodes with id ``x + X*(y + Y*z)``.

    ``wraparound=True`` lets a box continue past an edge and re-enter on the opposite side
    (indices modulo the dims), as BG/L can close a partition through its link chips; with
    ``False`` the machine is a mesh and boxes must lie inside it.  The MFP is computed under
    the same rule as the partitions.  Queries are exact for any small dims and tuned for
    4x4x8.  A Torus holds no occupancy of its own: every query takes the free mask, so the
    engine's ``Cluster.free_mask`` can be passed directly.
    """

    def __init__(self, dims: Sequence[int] = (4, 4, 8), *, wraparound: bool = True) -> None:
        try:
            values = tuple(operator.index(d) for d in dims)
        except TypeError:
            raise ConfigError("dims", f"expected three positive integers, got {dims!r}") from None
        if len(values) != 3 or any(d < 1 for d in values) or any(
                isinstance(d, bool) for d in dims):
            raise ConfigError("dims", f"expected three positive integers, got {dims!r}")
        if not isinstance(wraparound, bool | np.bool_):
            raise ConfigError("wraparound", f"expected true or false, got {wraparound!r}")
        n_boxes = math.prod(len(_arcs(d, bool(wraparound))) for d in values)
        if n_boxes > MAX_BOXES:
            raise ConfigError("dims", f"{dims!r} has {n_boxes} boxes; the torus is meant for "
                                      f"supernodes (BG/L: 4x4x8) and keeps every box, at most "
                                      f"{MAX_BOXES}")
        self.dims: Coord = (values[0], values[1], values[2])
        self.wraparound = bool(wraparound)
        self.n_nodes = values[0] * values[1] * values[2]
        self.all_mask = (1 << self.n_nodes) - 1
        self._t = _tables(self.dims, self.wraparound)
        self._cache: OrderedDict[int, _FreeBoxes] = OrderedDict()
        self._scan = _SCAN

    def __repr__(self) -> str:
        X, Y, Z = self.dims
        return f"Torus(({X}, {Y}, {Z}), wraparound={self.wraparound})"

    def clear_cache(self) -> None:
        """Forget the free-box lists remembered per free mask (answers do not change)."""
        self._cache.clear()

    # ----------------------------------------------------------------- ids and boxes

    def id(self, x: int, y: int, z: int) -> int:
        """The id of supernode (x, y, z): ``x + X*(y + Y*z)``."""
        X, Y, Z = self.dims
        if not (0 <= x < X and 0 <= y < Y and 0 <= z < Z):
            raise ConfigError("coords", f"({x}, {y}, {z}) is outside the {X}x{Y}x{Z} torus")
        return x + X * (y + Y * z)

    def coords(self, node: int) -> Coord:
        """The (x, y, z) of supernode ``node``, inverse of :meth:`id`."""
        if not 0 <= node < self.n_nodes:
            raise ConfigError("id", f"{node} is not a supernode id (0..{self.n_nodes - 1})")
        X, Y, _ = self.dims
        yz, x = divmod(node, X)
        z, y = divmod(yz, Y)
        return (x, y, z)

    def box_mask(self, base: Sequence[int], shape: Sequence[int]) -> int:
        """The mask of the box with lowest corner ``base`` and extents ``shape``.

        With wrap-around the box continues modulo the dims; on a mesh a box that would leave
        the machine is refused rather than clipped, since a clipped box is a different job
        partition.
        """
        if len(base) != 3 or len(shape) != 3:
            raise ConfigError("box", f"base and shape need three values, got {base}, {shape}")
        X, Y, Z = self.dims
        for axis, (b, a, d) in enumerate(zip(base, shape, self.dims, strict=True)):
            if not 0 <= b < d:
                raise ConfigError("box", f"base {tuple(base)} is outside the {X}x{Y}x{Z} torus")
            if not 1 <= a <= d:
                raise ConfigError("box", f"shape {tuple(shape)} does not fit {X}x{Y}x{Z} "
                                         f"(axis {'xyz'[axis]})")
            if not self.wraparound and b + a > d:
                raise ConfigError("box", f"box at {tuple(base)} of shape {tuple(shape)} leaves "
                                         f"the {X}x{Y}x{Z} mesh (no wrap-around)")
        mask = 0
        for k in range(shape[2]):
            z = (base[2] + k) % Z
            for j in range(shape[1]):
                y = (base[1] + j) % Y
                for i in range(shape[0]):
                    mask |= 1 << ((base[0] + i) % X + X * (y + Y * z))
        return mask

    def describe(self, mask: int) -> tuple[Coord, Shape] | None:
        """(base, shape) of a box mask as the finder names it, or None if it is not a box."""
        i = self._t.index.get(mask)
        if i is None:
            return None
        return self._t.base[i], self._t.shape[i]

    # ----------------------------------------------------------------- sizes

    def _check_size(self, size: int) -> int:
        try:
            s = operator.index(size)
        except TypeError:
            raise ConfigError("size", f"expected a whole number of supernodes, got {size!r}") \
                from None
        if not 1 <= s <= self.n_nodes:
            raise ConfigError("size", f"{size} supernodes requested; the "
                                      f"{'x'.join(map(str, self.dims))} torus has 1.."
                                      f"{self.n_nodes}")
        return s

    def shapes(self, size: int) -> list[Shape]:
        """Every (a, b, c) with a*b*c == size and a <= X, b <= Y, c <= Z, in the appendix's
        order (lexicographic over increasing divisors); empty when no box has that volume."""
        return list(self._t.shapes.get(self._check_size(size), ()))

    def feasible_size(self, size: int) -> int:
        """The smallest volume >= size that some box has (11 and 13 become 12 and 14 on 4x4x8).

        Jobs whose size has no box shape are given the next feasible volume (internal
        fragmentation) rather than being refused; a job larger than the machine cannot run
        at all and is an error.
        """
        return int(self._t.feasible[self._check_size(size)])

    @property
    def feasible_sizes(self) -> tuple[int, ...]:
        """All volumes that some box has, ascending."""
        return tuple(sorted(self._t.shapes))

    def round_sizes(self, sizes: ArrayLike) -> tuple[np.ndarray, int]:
        """(sizes rounded up to feasible volumes, how many changed), for a whole trace."""
        arr = np.asarray(sizes)
        if arr.size and not np.issubdtype(arr.dtype, np.integer):
            if not np.all(np.isfinite(arr)) or not np.all(arr == np.floor(arr)):
                raise ConfigError("sizes", "job sizes must be whole numbers")
        arr = arr.astype(np.int64)
        if arr.size:
            low, high = int(arr.min()), int(arr.max())
            if low < 1 or high > self.n_nodes:
                bad = low if low < 1 else high
                count = int(np.count_nonzero((arr < 1) | (arr > self.n_nodes)))
                raise ConfigError("sizes", f"{count} job(s) outside 1..{self.n_nodes} "
                                           f"supernodes (e.g. {bad}); scale the trace first")
        rounded = self._t.feasible[arr]
        return rounded, int(np.count_nonzero(rounded != arr))

    # ----------------------------------------------------------------- free boxes

    def _free_boxes(self, free_mask: int) -> _FreeBoxes:
        """Every free box under ``free_mask``, tested in one vectorised pass and cached."""
        free_mask &= self.all_mask
        hit = self._cache.get(free_mask)
        if hit is not None:
            self._cache.move_to_end(free_mask)
            return hit
        t = self._t
        n_free = free_mask.bit_count()
        if n_free == 0:
            entry = _FreeBoxes(np.zeros(0, dtype=np.int64), [], Mfp(0, 0))
        else:
            # No box larger than the free count can be free: start at that volume.
            lo = int(t.first_at_most[n_free])
            busy = self.all_mask & ~free_mask
            n_words = t.words.shape[0]
            bw = np.frombuffer(busy.to_bytes(8 * n_words, "little"), dtype="<u8")
            acc = t.words[0, lo:] & bw[0]
            for w in range(1, n_words):
                acc |= t.words[w, lo:] & bw[w]
            idx = np.flatnonzero(acc == 0) + lo
            head = t.objects[idx[:self._scan]].tolist()
            first = int(idx[0])  # a free supernode is a free 1x1x1 box, so idx is not empty
            mfp = Mfp(int(t.volume[first]), t.masks[first])
            entry = _FreeBoxes(idx, head, mfp)
        self._cache[free_mask] = entry
        if len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)
        return entry

    def free_partitions(self, free_mask: int, size: int) -> list[int]:
        """Every free box of exactly ``size`` supernodes, as distinct masks.

        Order: shapes as :meth:`shapes`, then base corners in increasing x, y, z (the
        appendix's traversal).  Empty when nothing fits or no box has that volume.
        """
        s = self._check_size(size)
        t = self._t
        free_mask &= self.all_mask
        if s not in t.span or s > free_mask.bit_count():
            return []
        fb = self._free_boxes(free_mask)
        parts = fb.parts.get(s)
        if parts is None:
            start, end = t.span[s]
            parts = t.objects[fb.idx[fb.idx.searchsorted(start):fb.idx.searchsorted(end)]].tolist()
            fb.parts[s] = parts
        return list(parts)

    def maximal_free_partition(self, free_mask: int) -> Mfp:
        """The largest free box: its volume and the first box of that volume in finder order.

        (0, 0) when no supernode is free.
        """
        return self._free_boxes(free_mask).mfp

    def mfp_after(self, free_mask: int, partition_mask: int) -> int:
        """MFP volume once ``partition_mask`` is taken out of ``free_mask``.

        A box is free afterwards iff it was free before and misses the partition, so the
        answer is the first box of the cached free list that misses it: no new box test.
        """
        return self.mfp_after_many(free_mask, [partition_mask])[0]

    def loss(self, free_mask: int, partition_mask: int) -> int:
        """L_MFP = MFP before - MFP after placing a job on ``partition_mask``."""
        return self._free_boxes(free_mask).mfp.volume - self.mfp_after(free_mask, partition_mask)

    def mfp_after_many(self, free_mask: int, partitions: Iterable[int]) -> list[int]:
        """:meth:`mfp_after` for many candidate partitions at once (the MFP heuristic asks it
        for every candidate of a job), sharing one free-box list."""
        fb = self._free_boxes(free_mask)
        everything = self.all_mask
        cands = [p & everything for p in partitions]
        out = [0] * len(cands)
        rest: list[int] = []
        for k, p in enumerate(cands):
            # The largest free boxes usually include one that misses a small partition.
            for m in fb.head:
                if not m & p:
                    out[k] = m.bit_count()
                    break
            else:
                if len(fb.idx) > len(fb.head):
                    rest.append(k)
        if rest:
            self._mfp_after_vectorised(fb, cands, rest, out)
        return out

    def losses(self, free_mask: int, partitions: Iterable[int]) -> list[int]:
        """:meth:`loss` for many candidate partitions at once."""
        before = self._free_boxes(free_mask).mfp.volume
        return [before - after for after in self.mfp_after_many(free_mask, partitions)]

    def _mfp_after_vectorised(self, fb: _FreeBoxes, cands: list[int], rest: list[int],
                              out: list[int]) -> None:
        """First free box missing each remaining candidate, in doubling blocks of the list."""
        t = self._t
        n_words = t.words.shape[0]
        raw = b"".join(cands[k].to_bytes(8 * n_words, "little") for k in rest)
        cw = np.frombuffer(raw, dtype="<u8").reshape(len(rest), n_words)
        pending = np.asarray(rest, dtype=np.int64)
        rows = np.arange(len(rest))
        pos = len(fb.head)
        block = 256
        while len(rows) and pos < len(fb.idx):
            blk = fb.idx[pos:pos + block]
            hit = t.words[0, blk][None, :] & cw[rows, 0][:, None]
            for w in range(1, n_words):
                hit |= t.words[w, blk][None, :] & cw[rows, w][:, None]
            miss = hit == 0
            found = miss.any(axis=1)
            if found.any():
                first = miss.argmax(axis=1)[found]
                vols = t.volume[blk[first]]
                for k, v in zip(pending[found].tolist(), vols.tolist(), strict=True):
                    out[k] = v
                rows = rows[~found]
                pending = pending[~found]
            pos += block
            # Grow the blocks, but keep a block's candidates x boxes matrix near a million.
            block = max(256, min(2 * block, (1 << 20) // max(len(rows), 1)))


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
