"""The boxes of one volume as a bitset, for the MFP heuristic's candidate evaluation.

The candidates of a job of ``s`` supernodes are the free boxes of volume ``s``.  Those boxes
occupy one contiguous span ``[start, end)`` of the box tables, so a set of them is a Python int
with bit ``j`` for box ``start + j``; bit order is the partition finder's order.  For any box
``i`` of the tables, :meth:`VolumeBoxes.meets` is the set of volume-``s`` boxes sharing a
supernode with it (tested once with numpy, then remembered).

With that, the MFP after placing candidate ``j`` -- the volume of the first free box, largest
first, that misses ``j`` -- is answered for every candidate at once by walking the free boxes
largest first: the candidates free box ``b`` misses are ``remaining & ~meets(b)``, one int
operation per free box instead of one per (candidate, free box) pair.
"""

from __future__ import annotations

import numpy as np

from ckptsim.platform.boxes import BoxTables

#: Volumes with at most this many boxes are tested box by box in Python, not with numpy.
SMALL = 64


class VolumeBoxes:
    """The boxes of one volume of a torus: their masks, and which of them each box meets."""

    __slots__ = ("size", "start", "end", "masks", "table", "_rows", "_t", "_n_bytes")

    def __init__(self, t: BoxTables, size: int) -> None:
        start, end = t.span[size]
        self.size = size
        self.start = start
        self.end = end
        self.masks = t.masks[start:end]
        #: meets(i) per box index of the tables, None until first asked
        self.table: list[int | None] = [None] * len(t.masks)
        self._rows = t.words[:, start:end]
        self._t = t
        self._n_bytes = (end - start + 7) // 8

    def meets(self, i: int) -> int:
        """The volume's boxes sharing a supernode with box ``i`` of the tables, as a bitset."""
        m = self.table[i]
        if m is None:
            if len(self.masks) <= SMALL:
                m = self._meets_small(self._t.masks[i])
            else:
                m = self._meets_words(self._t.words[:, i])
            self.table[i] = m
        return m

    def fill(self, boxes: list[int]) -> None:
        """Compute :meth:`meets` for every box of ``boxes`` not known yet, in one numpy pass."""
        table = self.table
        missing = [i for i in boxes if table[i] is None]
        if len(missing) <= 1 or len(self.masks) <= SMALL:
            for i in missing:
                self.meets(i)
            return
        cols = self._t.words[:, missing]
        rows = self._rows
        acc = cols[0][:, None] & rows[0][None, :]
        for w in range(1, rows.shape[0]):
            acc |= cols[w][:, None] & rows[w][None, :]
        packed = np.packbits(acc != 0, axis=1, bitorder="little")
        raw = packed.tobytes()
        n = packed.shape[1]
        for k, i in enumerate(missing):
            table[i] = int.from_bytes(raw[k * n:(k + 1) * n], "little")

    def _meets_small(self, mask: int) -> int:
        out = 0
        for j, m in enumerate(self.masks):
            if m & mask:
                out |= 1 << j
        return out

    def meets_mask(self, mask: int) -> int:
        """The volume's boxes sharing a supernode with any node set ``mask``."""
        i = self._t.index.get(mask)
        if i is not None:
            return self.meets(i)
        if len(self.masks) <= SMALL:
            return self._meets_small(mask)
        n_words = self._rows.shape[0]
        col = np.frombuffer(mask.to_bytes(8 * n_words, "little"), dtype="<u8")
        return self._meets_words(col)

    def _meets_words(self, col: np.ndarray) -> int:
        rows = self._rows
        acc = rows[0] & col[0]
        for w in range(1, rows.shape[0]):
            acc |= rows[w] & col[w]
        return int.from_bytes(np.packbits(acc != 0, bitorder="little").tobytes(), "little")

    def any_within(self, free_mask: int) -> bool:
        """Whether one of the volume's boxes lies within ``free_mask``."""
        if len(self.masks) <= SMALL:
            busy = ~free_mask
            for m in self.masks:
                if not m & busy:
                    return True
            return False
        rows = self._rows
        n_words = rows.shape[0]
        busy = ~free_mask & ((1 << (64 * n_words)) - 1)
        col = np.frombuffer(busy.to_bytes(8 * n_words, "little"), dtype="<u8")
        acc = rows[0] & col[0]
        for w in range(1, n_words):
            acc |= rows[w] & col[w]
        return not acc.all()

    def within_words(self, busy: np.ndarray) -> int:
        """The bitset of the volume's boxes meeting none of the ``busy`` words."""
        rows = self._rows
        acc = rows[0] & busy[0]
        for w in range(1, rows.shape[0]):
            acc |= rows[w] & busy[w]
        return int.from_bytes(np.packbits(acc == 0, bitorder="little").tobytes(), "little")

    def bits(self, local: np.ndarray) -> int:
        """The bitset of the given positions (0-based within the volume)."""
        flags = np.zeros(self.end - self.start, dtype=bool)
        flags[local] = True
        return int.from_bytes(np.packbits(flags, bitorder="little").tobytes(), "little")

    def positions(self, bitset: int) -> list[int]:
        """The positions set in ``bitset``, ascending."""
        if bitset.bit_count() <= 8:
            out = []
            while bitset:
                low = bitset & -bitset
                out.append(low.bit_length() - 1)
                bitset ^= low
            return out
        raw = np.frombuffer(bitset.to_bytes(self._n_bytes, "little"), dtype=np.uint8)
        return np.flatnonzero(np.unpackbits(raw, bitorder="little")).tolist()


def walk_best(order: list[int], volumes: list[int], vb: VolumeBoxes,
              cands: int) -> tuple[int, int, int]:
    """The MFP heuristic's choice among ``cands`` from the first free boxes ``order``.

    Returns ``(best, volume, open)``: ``best`` is the lowest candidate missing a free box of
    the largest volume any candidate misses among ``order`` (-1 if none misses any), and
    ``open`` the candidates below ``best`` (all of them if none) that missed every box of
    ``order``: they may still tie with ``best`` at a free box after ``order``.  ``open`` is 0
    when the walk settled the answer (a box of smaller volume was reached).
    """
    table = vb.table
    lower = cands
    best = -1
    volume = 0
    for k, i in enumerate(order):
        v = volumes[i]
        if v < volume:
            return best, volume, 0  # every box of the best volume was tried
        m = table[i]
        if m is None:
            vb.fill(order[k:])
            m = vb.meets(i)
        g = lower & ~m
        if g:
            best = (g & -g).bit_length() - 1
            volume = v
            lower &= (1 << best) - 1
            if not lower:
                return best, volume, 0
    return best, volume, lower


def walk_afters(order: list[int], volumes: list[int], vb: VolumeBoxes, cands: int,
                after: dict[int, int]) -> int:
    """Fill ``after[j]`` (MFP after placing candidate ``j``) from the free boxes ``order``;
    returns the candidates that missed none of them."""
    table = vb.table
    rest = cands
    for k, i in enumerate(order):
        m = table[i]
        if m is None:
            vb.fill(order[k:])
            m = vb.meets(i)
        g = rest & ~m
        if g:
            v = volumes[i]
            rest ^= g
            while g:
                low = g & -g
                after[low.bit_length() - 1] = v
                g ^= low
            if not rest:
                break
    return rest


def afters_from(t: BoxTables, idx: np.ndarray, pos: int, masks: list[int]) -> list[int]:
    """For each of ``masks``, the volume of the first box of ``idx[pos:]`` (free boxes,
    largest first) that misses it, or 0: numpy over doubling blocks of the list."""
    out = [0] * len(masks)
    if not masks or pos >= len(idx):
        return out
    n_words = t.words.shape[0]
    raw = b"".join(m.to_bytes(8 * n_words, "little") for m in masks)
    cw = np.frombuffer(raw, dtype="<u8").reshape(len(masks), n_words)
    pending = np.arange(len(masks))
    block = 256
    while len(pending) and pos < len(idx):
        blk = idx[pos:pos + block]
        hit = t.words[0, blk][None, :] & cw[pending, 0][:, None]
        for w in range(1, n_words):
            hit |= t.words[w, blk][None, :] & cw[pending, w][:, None]
        miss = hit == 0
        found = miss.any(axis=1)
        if found.any():
            first = miss.argmax(axis=1)[found]
            vols = t.volume[blk[first]]
            for k, v in zip(pending[found].tolist(), vols.tolist(), strict=True):
                out[k] = v
            pending = pending[~found]
        pos += block
        # Grow the blocks, but keep a block's candidates x boxes matrix near a million.
        block = max(256, min(2 * block, (1 << 20) // max(len(pending), 1)))
    return out
