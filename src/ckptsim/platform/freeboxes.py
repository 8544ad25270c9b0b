"""The boxes free under one free mask, found lazily.

Answers about one occupancy need different parts of the boxes: whether a job of size ``s``
fits, and its free partitions, need only the boxes of volume ``s``; the MFP and the MFP
heuristic's evaluation of candidates need the list of free boxes, largest volume first.
:class:`FreeBoxes` tests each part against the busy nodes with numpy when it is first needed
and remembers it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ckptsim.platform import placement
from ckptsim.platform.boxes import BoxTables
from ckptsim.platform.placement import VolumeBoxes


class Mfp(NamedTuple):
    """A maximal free partition: its volume and one box achieving it (0, 0 when none)."""

    volume: int
    mask: int


_NO_MFP = Mfp(0, 0)


class FreeBoxes:
    """The free boxes of one occupancy: indices into the box tables, largest volume first."""

    __slots__ = ("_t", "n_free", "busy", "_bw", "_lo", "_idx", "_scan", "_order", "_head",
                 "_mfp", "_within", "parts", "sets")

    def __init__(self, t: BoxTables, free_mask: int, all_mask: int, scan: int) -> None:
        self._t = t
        n = free_mask.bit_count()
        self.n_free = n
        self.busy = all_mask & ~free_mask
        n_words = t.words.shape[0]
        self._bw = np.frombuffer(self.busy.to_bytes(8 * n_words, "little"), dtype="<u8")
        # No box larger than the free count can be free: the list starts at that volume.
        self._lo = int(t.first_at_most[n]) if n else len(t.masks)
        self._idx: np.ndarray | None = None
        self._scan = scan
        self._order: list[int] | None = None
        self._head: list[int] = []
        self._mfp = _NO_MFP
        self._within: dict[int, tuple[list[int], np.ndarray, int]] = {}
        self.parts: dict[int, list[int]] = {}  # size -> free partitions, filled on demand
        self.sets: dict[int, int] = {}  # size -> free boxes of that volume as a bitset

    def _first(self) -> list[int]:
        want = max(self._scan, 1)
        t = self._t
        first = self.idx()[:want].tolist()
        self._order = first[:self._scan]
        self._head = [t.masks[i] for i in self._order]
        if first:
            self._mfp = Mfp(t.volumes[first[0]], t.masks[first[0]])
        return self._order

    def order(self) -> list[int]:
        """Indices of the first few free boxes (the scan length of the torus)."""
        return self._order if self._order is not None else self._first()

    def head(self) -> list[int]:
        """The masks of :meth:`order`."""
        if self._order is None:
            self._first()
        return self._head

    def mfp(self) -> Mfp:
        """The first free box: the maximal free partition."""
        if self._order is None:
            self._first()
        return self._mfp

    def within(self, cap: int) -> tuple[list[int], np.ndarray, int]:
        """``(order, idx, end)``: the free boxes of volume at most ``cap`` (``idx``, largest
        first), the first few of them (``order``, the scan length of the torus) and the
        position in ``idx`` after those.

        A box missing a partition of ``s`` free nodes lies in the other ``n_free - s``, so
        the MFP heuristic need not look at larger free boxes: they meet every candidate, and
        they are not even tested unless the whole list is already known.
        """
        got = self._within.get(cap)
        if got is None:
            start = int(self._t.first_at_most[max(cap, 0)])
            if self._idx is not None:
                idx = self._idx[int(self._idx.searchsorted(start)):]
            else:
                idx = self._test(max(start, self._lo))
            if cap < 0:
                idx = idx[:0]
            got = self._within[cap] = (idx[:self._scan].tolist(), idx, min(self._scan, len(idx)))
        return got

    def idx(self) -> np.ndarray:
        """Every free box, largest volume first (one vectorised test, then remembered)."""
        if self._idx is None:
            self._idx = self._test(self._lo)
        return self._idx

    def _test(self, lo: int) -> np.ndarray:
        """The free boxes among boxes ``lo`` onwards."""
        w = self._t.words
        bw = self._bw
        acc = w[0, lo:] & bw[0]
        for k in range(1, len(bw)):
            acc |= w[k, lo:] & bw[k]
        return np.flatnonzero(acc == 0) + lo

    def set_of(self, vb: VolumeBoxes) -> int:
        """The free boxes of ``vb``'s volume as a bitset over that volume's boxes."""
        c = self.sets.get(vb.size)
        if c is None:
            if vb.size > self.n_free:
                c = 0
            elif len(vb.masks) <= placement.SMALL:
                busy = self.busy
                c = 0
                for j, m in enumerate(vb.masks):
                    if not m & busy:
                        c |= 1 << j
            else:
                c = vb.within_words(self._bw)
            self.sets[vb.size] = c
        return c
