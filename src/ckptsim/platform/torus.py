"""The BlueGene/L torus of supernodes: rectangular partitions and the maximal free partition.

BlueGene/L jobs run on electrically isolated, contiguous, rectangular 3-D boxes of 8x8x8-node
blocks, so the scheduler sees a 4x4x8 torus of 128 supernodes (Oliner et al., after Krevat et
al.).  This module answers the questions the fault-aware schedulers ask at every decision:

* which free boxes of exactly ``s`` supernodes exist (:meth:`Torus.free_partitions`),
* how large the biggest free box is (:meth:`Torus.maximal_free_partition`, the MFP),
* how much a placement shrinks it (:meth:`Torus.loss`, the seed's L_MFP), and
* which free box of a size the MFP heuristic picks (:meth:`Torus.best_partition`, the same
  choice as listing the candidates and their losses, computed on bitsets of candidates).

Supernode ``(x, y, z)`` has id ``x + X*(y + Y*z)`` (x varies fastest), and a set of supernodes
is a Python int bitmask with bit ``id`` set, exactly like the engine's node masks, so a
partition can be handed to ``sim.start(job, mask=...)`` unchanged.

Every box of every volume is enumerated once per (dims, wraparound) -- shapes in the order of
the seed's appendix, base corners in increasing x, then y, then z -- and kept both as Python
ints and as a ``(words, boxes)`` uint64 array (``platform/boxes.py``).  Testing boxes against
an occupancy is a vectorised ``box & busy == 0`` pass, made when a query first needs it and
remembered per free mask (``platform/freeboxes.py``); the MFP heuristic's evaluation of
candidates is in ``platform/placement.py``.  See docs/torus.md for the algorithms and the
interpretations chosen.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence

from ckptsim.platform.boxes import MAX_BOXES, scale_sizes
from ckptsim.platform.freeboxes import FreeBoxes, Mfp
from ckptsim.platform.placement import VolumeBoxes, afters_from, walk_afters, walk_best
from ckptsim.platform.torusgeometry import TorusGeometry

__all__ = ["BEST_CACHE_SIZE", "CACHE_SIZE", "MAX_BOXES", "Mfp", "Torus", "scale_sizes"]

#: Free masks whose box tests are remembered (a scheduling pass revisits the same few).
CACHE_SIZE = 256
#: MFP-heuristic choices remembered per (free mask, size) (a re-packing repeats many).
BEST_CACHE_SIZE = 1 << 15
#: Free boxes tried one by one, largest first, before a vectorised search takes over.
_SCAN = 48


class Torus(TorusGeometry):
    """A 3-D torus (or mesh) of supernodes (`TorusGeometry`: ids, boxes, volumes) and the
    free-box queries of the schedulers.

    The MFP is computed under the same wrap-around rule as the partitions.  Queries are exact
    for any small dims and tuned for 4x4x8.  A Torus holds no occupancy of its own: every
    query takes the free mask, so the engine's ``Cluster.free_mask`` can be passed directly.
    """

    def __init__(self, dims: Sequence[int] = (4, 4, 8), *, wraparound: bool = True) -> None:
        super().__init__(dims, wraparound=wraparound)
        self._cache: OrderedDict[int, FreeBoxes] = OrderedDict()
        self._best: dict[tuple[int, int], int] = {}
        self._volumes: dict[int, VolumeBoxes] = {}
        self._scan = _SCAN

    def clear_cache(self) -> None:
        """Forget the free-box lists and choices remembered per free mask (answers do not
        change)."""
        self._cache.clear()
        self._best.clear()

    # ----------------------------------------------------------------- free boxes
    def _free_boxes(self, free_mask: int) -> FreeBoxes:
        """The free boxes under ``free_mask`` (already within the machine), cached per mask;
        they are tested lazily, as the queries need them."""
        hit = self._cache.get(free_mask)
        if hit is not None:
            self._cache.move_to_end(free_mask)
            return hit
        entry = FreeBoxes(self._t, free_mask, self.all_mask, self._scan)
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
            vb = self._volume(s)
            parts = fb.parts[s] = [vb.masks[j] for j in vb.positions(fb.set_of(vb))]
        return list(parts)

    def maximal_free_partition(self, free_mask: int) -> Mfp:
        """The largest free box: its volume and the first box of that volume in finder order.

        (0, 0) when no supernode is free.
        """
        return self._free_boxes(free_mask & self.all_mask).mfp()

    def mfp_after(self, free_mask: int, partition_mask: int) -> int:
        """MFP volume once ``partition_mask`` is taken out of ``free_mask``.

        A box is free afterwards iff it was free before and misses the partition, so the
        answer is the first box of the cached free list that misses it: no new box test.
        """
        return self.mfp_after_many(free_mask, [partition_mask])[0]

    def loss(self, free_mask: int, partition_mask: int) -> int:
        """L_MFP = MFP before - MFP after placing a job on ``partition_mask``."""
        return self.maximal_free_partition(free_mask).volume - self.mfp_after(free_mask,
                                                                             partition_mask)

    def mfp_after_many(self, free_mask: int, partitions: Iterable[int]) -> list[int]:
        """:meth:`mfp_after` for many candidate partitions at once (any node sets), sharing
        one free-box list: each is tried against the first few free boxes, the rest of the
        list is searched with numpy."""
        fb = self._free_boxes(free_mask & self.all_mask)
        everything = self.all_mask
        cands = [p & everything for p in partitions]
        out = [0] * len(cands)
        rest: list[int] = []
        head = fb.head()
        for k, p in enumerate(cands):
            # The largest free boxes usually include one that misses a small partition.
            for m in head:
                if not m & p:
                    out[k] = m.bit_count()
                    break
            else:
                rest.append(k)
        if rest:
            afters = afters_from(self._t, fb.idx(), len(head), [cands[k] for k in rest])
            for k, v in zip(rest, afters, strict=True):
                out[k] = v
        return out

    def losses(self, free_mask: int, partitions: Iterable[int]) -> list[int]:
        """:meth:`loss` for many candidate partitions at once."""
        before = self.maximal_free_partition(free_mask).volume
        return [before - after for after in self.mfp_after_many(free_mask, partitions)]

    # ----------------------------------------------------------------- placement

    def _volume(self, s: int) -> VolumeBoxes:
        vb = self._volumes.get(s)
        if vb is None:
            vb = self._volumes[s] = VolumeBoxes(self._t, s)
        return vb

    def fit_test(self, free_mask: int) -> Callable[[int], bool]:
        """``fits(size)``: whether a box of exactly ``size`` supernodes is free under
        ``free_mask``, for asking about many sizes under one mask (answers remembered)."""
        fb = self._free_boxes(free_mask & self.all_mask)
        sets = fb.sets
        check = self._check_size
        span = self._t.span

        def fits(size: int) -> bool:
            c = sets.get(size)
            if c is None:
                s = check(size)
                c = fb.set_of(self._volume(s)) if s in span else 0
                sets[s] = c
            return c != 0

        return fits

    def release_until_free(self, free_mask: int, releases: Iterable[int],
                           size: int) -> tuple[int, int]:
        """Add the node sets ``releases`` to ``free_mask`` one by one until a box of ``size``
        supernodes is free: ``(how many were added, free mask then)``, tested after each
        addition; ``(-1, free mask with all of them)`` if none is free even then."""
        s = self._check_size(size)
        free_mask &= self.all_mask
        if s not in self._t.span:
            for m in releases:
                free_mask |= m
            return -1, free_mask & self.all_mask
        vb = self._volume(s)
        k = 0
        for m in releases:
            k += 1
            free_mask |= m
            if free_mask.bit_count() >= s and vb.any_within(free_mask & self.all_mask):
                return k, free_mask & self.all_mask
        return -1, free_mask & self.all_mask

    def has_free_box(self, free_mask: int, size: int, avoid: int = 0) -> bool:
        """Whether some box of exactly ``size`` supernodes not meeting ``avoid`` is free
        (``free_partitions`` filtered is not empty); without ``avoid`` and on a mask not seen
        before, only the boxes of that volume are tested."""
        s = self._check_size(size)
        free_mask &= self.all_mask
        if s not in self._t.span or s > free_mask.bit_count():
            return False
        vb = self._volume(s)
        if not avoid and free_mask not in self._cache:
            return vb.any_within(free_mask)  # no need to remember a mask asked once
        cands = self._free_boxes(free_mask).set_of(vb)
        if avoid and cands:
            cands &= ~vb.meets_mask(avoid & self.all_mask)
        return bool(cands)

    def best_partition(self, free_mask: int, size: int, avoid: int = 0) -> int | None:
        """The MFP heuristic: the free box of ``size`` supernodes, not meeting ``avoid``,
        that leaves the largest MFP; ties go to the first in finder order.  None if none.

        The same choice as ``parts[losses.index(min(losses))]`` over ``free_partitions``
        (filtered), computed by peeling candidates off the free boxes largest first.
        """
        s = self._check_size(size)
        free_mask &= self.all_mask
        if s not in self._t.span or s > free_mask.bit_count():
            return None
        key = (free_mask, s)
        if not avoid:
            got = self._best.get(key)
            if got is not None:
                return got or None
        fb = self._free_boxes(free_mask)
        vb = self._volume(s)
        cands = fb.set_of(vb)
        if avoid and cands:
            cands &= ~vb.meets_mask(avoid & self.all_mask)
        mask = vb.masks[self._best_position(fb, vb, cands)] if cands else 0
        if not avoid:
            if len(self._best) >= BEST_CACHE_SIZE:
                self._best.clear()
            self._best[key] = mask
        return mask or None

    def _best_position(self, fb: FreeBoxes, vb: VolumeBoxes, cands: int) -> int:
        order, idx, end = fb.within(fb.n_free - vb.size)
        best, volume, pending = walk_best(order, self._t.volumes, vb, cands)
        if pending:
            # Candidates that missed none of the first free boxes: the rest of the list.
            js = vb.positions(pending)
            afters = afters_from(self._t, idx, end, [vb.masks[j] for j in js])
            top = max(afters)
            if best < 0 or top == volume:  # js are all below best
                return js[afters.index(top)]
        if best < 0:
            return (cands & -cands).bit_length() - 1  # every candidate leaves an MFP of 0
        return best

    def partition_losses(self, free_mask: int, size: int,
                         avoid: int = 0) -> tuple[list[int], list[int]]:
        """``(parts, losses)``: the free boxes of ``size`` supernodes not meeting ``avoid``,
        in finder order, and the L_MFP of each (``free_partitions`` then ``losses``)."""
        s = self._check_size(size)
        free_mask &= self.all_mask
        if s not in self._t.span or s > free_mask.bit_count():
            return [], []
        fb = self._free_boxes(free_mask)
        vb = self._volume(s)
        cands = fb.set_of(vb)
        if avoid and cands:
            cands &= ~vb.meets_mask(avoid & self.all_mask)
        after: dict[int, int] = {}
        order, idx, end = fb.within(fb.n_free - vb.size)
        rest = walk_afters(order, self._t.volumes, vb, cands, after)
        if rest:
            js = vb.positions(rest)
            afters = afters_from(self._t, idx, end, [vb.masks[j] for j in js])
            after.update(zip(js, afters, strict=True))
        before = fb.mfp()[0]
        js = vb.positions(cands)
        return [vb.masks[j] for j in js], [before - after.get(j, 0) for j in js]
