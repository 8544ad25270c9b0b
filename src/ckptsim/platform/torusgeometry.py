"""The geometry of the BlueGene/L torus of supernodes: ids and coordinates, boxes and the
volumes a box can have (a part of `ckptsim.platform.torus.Torus`, which adds the free-box
queries the schedulers ask).

Supernode ``(x, y, z)`` has id ``x + X*(y + Y*z)`` (x varies fastest); a set of supernodes is a
Python int bitmask with bit ``id`` set.  Every box of every volume is enumerated once per
(dims, wraparound) by ``platform/boxes.py``.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from ckptsim.errors import ConfigError
from ckptsim.platform.boxes import MAX_BOXES, Coord, Shape, box_tables


class TorusGeometry:
    """A 3-D torus (or mesh) of ``X*Y*Z`` supernodes with id ``x + X*(y + Y*z)``.

    ``wraparound=True`` lets a box continue past an edge and re-enter on the opposite side
    (indices modulo the dims), as BG/L can close a partition through its link chips; with
    ``False`` the machine is a mesh and boxes must lie inside it.
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
        # Runs per dimension, counted rather than listed (arcs(d) has ~d**2 of them): a
        # wrap-around ring has d per extent below d and one whole ring, a line d - a + 1.
        n_boxes = math.prod(d * (d - 1) + 1 if wraparound else d * (d + 1) // 2
                            for d in values)
        if n_boxes > MAX_BOXES:
            raise ConfigError("dims", f"{dims!r} has {n_boxes} boxes; the torus is meant for "
                                      f"supernodes (BG/L: 4x4x8) and keeps every box, at most "
                                      f"{MAX_BOXES}")
        self.dims: Coord = (values[0], values[1], values[2])
        self.wraparound = bool(wraparound)
        self.n_nodes = values[0] * values[1] * values[2]
        self.all_mask = (1 << self.n_nodes) - 1
        self._t = box_tables(self.dims, self.wraparound)

    def __repr__(self) -> str:
        X, Y, Z = self.dims
        return f"{type(self).__name__}(({X}, {Y}, {Z}), wraparound={self.wraparound})"

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
