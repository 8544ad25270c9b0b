"""A homogeneous cluster of N nodes with identities 0..N-1.

Node sets are Python ints used as bitmasks (bit i set = node i).  Union, intersection and
counting are then single big-int operations, which keeps allocation cheap even on machines
with tens of thousands of processors, and lets later capabilities fail, suspend or migrate
specific nodes.

On machines larger than one block (`BLOCK_BITS` nodes) the cluster also keeps the number of
free nodes in every block of `BLOCK_BITS` consecutive node ids.  First fit then walks these
counts to the block holding the k-th free node and searches only that block, instead of
popcounting ever longer prefixes of the machine-wide mask (a popcount costs time in proportion
to the length of the int, which dominated on a 93,312-node machine).
"""

from __future__ import annotations

from itertools import repeat
from operator import add

from ckptsim.errors import ConfigError
from ckptsim.limits import check_nodes

#: log2 of the nodes per block of free counts.
BLOCK_SHIFT = 10
BLOCK_BITS = 1 << BLOCK_SHIFT
_BLOCK_MASK = (1 << BLOCK_BITS) - 1  # the nodes of one block, shifted to 0


#: _LOW[p]: the p lowest bits set (p = 0..BLOCK_BITS), to mask prefixes of one block's word.
_LOW = [(1 << p) - 1 for p in range(BLOCK_BITS + 1)]


def _zeros(n: int) -> repeat[int]:
    return repeat(0, n)


def _lowest(word: int, k: int) -> int:
    """The k lowest set bits of `word` (1 <= k <= word.bit_count())."""
    low = word & -word
    run = (low << k) - low  # k bits from the lowest set one: often all set
    if word & run == run:
        return run
    return word & _LOW[_nth_bit(word, k) + 1]


def _nth_bit(word: int, k: int) -> int:
    """Position of the k-th lowest set bit of `word` (1 <= k <= word.bit_count()), for a
    word of any length (one block's, or a whole machine's: the htc scheduler's free set)."""
    if k <= 4:
        for _ in range(k - 1):
            word &= word - 1  # clear the lowest set bit
        return (word & -word).bit_length() - 1
    lo = k - 1
    hi = word.bit_length() - 1
    low = _LOW
    while lo < hi:  # smallest p with popcount(word & bits 0..p) >= k
        mid = (lo + hi) >> 1
        prefix = low[mid + 1] if mid < BLOCK_BITS else (1 << (mid + 1)) - 1
        if (word & prefix).bit_count() >= k:
            hi = mid
        else:
            lo = mid + 1
    return lo


def bad_mask(mask: int, n_nodes: int) -> str | None:
    """Why `mask` is not a set of nodes of a machine of `n_nodes` (a non-negative int whose
    bit i is node i < n_nodes), or None when it is one."""
    if not isinstance(mask, int):
        return not_an_int(mask)
    if mask < 0:
        return (f"the node mask is negative ({mask}): a node set is an int >= 0 whose bit i is "
                f"node i (~mask is negative in Python: write all_mask & ~mask, e.g. "
                f"platform.all_mask & ~platform.free_mask)")
    if mask >> n_nodes:
        return (f"the node mask holds nodes {Cluster.node_ids(mask >> n_nodes << n_nodes)[:8]}, "
                f"beyond the machine's {n_nodes} nodes (0..{n_nodes - 1})")
    return None


def not_an_int(mask: object) -> str:
    """Why a node mask that is no int is refused, with the way to write it as one."""
    kind = type(mask)
    name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
    text = repr(mask)
    if len(text) > 60:
        text = text[:57] + "..."
    if isinstance(mask, (list, tuple, set, frozenset, range)):
        how = "; from node ids, sum(1 << i for i in set(ids))"
    elif hasattr(mask, "__index__"):  # a numpy integer
        how = "; int(mask) converts it"
    else:
        how = ""
    return (f"the node mask is a {name} ({text}); accepted: an int >= 0 whose bit i is node i "
            f"(docs/plugins.md){how}")


class Cluster:
    """Node pool with first-fit allocation by lowest free node id.

    `free_mask` may be assigned (e.g. by `Platform.hold` taking a node out of service); the
    per-block counts follow.  `n_free` is a plain counter kept by whoever changes the free set.
    """

    __slots__ = ("n_nodes", "all_mask", "_free", "n_free", "down_mask", "down_idle", "_counts",
                 "_prefix", "_lo", "_split")

    def __init__(self, n_nodes: int) -> None:
        if int(n_nodes) < 1:
            raise ConfigError("machine_size", f"must be a positive number of nodes, got {n_nodes}")
        self.n_nodes = check_nodes("machine_size", n_nodes)  # the masks below grow with it
        self.all_mask = (1 << self.n_nodes) - 1
        self._free = self.all_mask
        self.n_free = self.n_nodes
        self.down_mask = 0  # nodes out of service (see `Platform.hold`)
        self.down_idle = 0  # nodes out of service that no job holds
        n_blocks = (self.n_nodes + BLOCK_BITS - 1) >> BLOCK_SHIFT
        # Free nodes per block, and the masks of the first b blocks (b = 0..n_blocks), only
        # on machines of more than one block.
        self._counts: list[int] | None = None
        self._prefix: list[int] = []
        self._lo = 0  # no block below this one has a free node
        # How each live mask returned by `allocate` splits over the blocks, by its highest
        # node + 1 (live allocations are disjoint, so that is unique): (mask, first block,
        # nodes in each block from there).  `give` of the same int object uses it instead of
        # counting the mask's nodes block by block.
        self._split: dict[int, tuple[int, int, list[int]]] = {}
        if n_blocks > 1:
            self._counts = [BLOCK_BITS] * n_blocks
            self._counts[-1] = self.n_nodes - ((n_blocks - 1) << BLOCK_SHIFT)
            self._prefix = [(1 << (b << BLOCK_SHIFT)) - 1 for b in range(n_blocks)]
            self._prefix.append(self.all_mask)

    # --- the free set -----------------------------------------------------------------------
    @property
    def free_mask(self) -> int:
        return self._free

    @free_mask.setter
    def free_mask(self, mask: int) -> None:
        old = self._free
        self._free = mask
        if self._counts is not None and mask != old:
            self._recount(old ^ mask)

    def _recount(self, changed: int) -> None:
        """Recompute the free counts of the blocks holding a node of `changed`."""
        counts = self._counts
        assert counts is not None
        free = self._free
        prefix = self._prefix
        b = (changed.bit_length() - 1) >> BLOCK_SHIFT
        while changed:
            base = b << BLOCK_SHIFT
            if (changed >> base) & _BLOCK_MASK:
                counts[b] = ((free & prefix[b + 1]) >> base).bit_count()
            changed &= prefix[b]
            b -= 1
        if b + 1 < self._lo:
            self._lo = b + 1

    def _count_blocks(self, mask: int, count: int, sign: int) -> None:
        """Add `sign` times the nodes of `mask` (`count` of them) to the blocks' counts."""
        counts = self._counts
        assert counts is not None
        prefix = self._prefix
        b = (mask.bit_length() - 1) >> BLOCK_SHIFT
        while count > 0 and b >= 0:
            base = b << BLOCK_SHIFT
            c = (mask >> base).bit_count()
            if c:
                counts[b] += sign * c
                count -= c
                mask &= prefix[b]
            b -= 1
        if sign > 0 and b + 1 < self._lo:
            self._lo = b + 1

    # --- allocation ---------------------------------------------------------------------------
    def _search(self, k: int) -> tuple[int, int]:
        """(block, free nodes wanted in it) of the k-th lowest free node (machines of several
        blocks; 1 <= k < n_free)."""
        counts = self._counts
        assert counts is not None
        b = self._lo
        c = counts[b]
        while c < k:
            k -= c
            b += 1
            c = counts[b]
        return b, k

    def first_fit(self, k: int) -> int:
        """The k free nodes with the lowest ids, as a mask (k <= n_free)."""
        free = self._free
        if k >= self.n_free:
            return free
        if k <= 0:
            return 0
        if self._counts is None:
            return _lowest(free, k)
        b, part = self._search(k)
        base = b << BLOCK_SHIFT
        word = (free & self._prefix[b + 1]) >> base
        return (free & self._prefix[b]) | (_lowest(word, part) << base)

    def allocate(self, k: int) -> int:
        """Take the k free nodes with the lowest ids (k <= n_free) and return their mask:
        `first_fit` and `take` in one step."""
        free = self._free
        counts = self._counts
        if k >= self.n_free or k <= 0:
            mask = free if k > 0 else 0
            self.take(mask, self.n_free if k > 0 else 0)
            return mask
        if counts is None:
            low = free & -free  # the first run of free nodes often holds them all
            mask = (low << k) - low
            if free & mask != mask:
                mask = free & _LOW[_nth_bit(free, k) + 1]
        else:
            # Every free node of the blocks below b is taken, and `part` of block b.
            b, part = self._search(k)
            base = b << BLOCK_SHIFT
            word = (free & self._prefix[b + 1]) >> base
            mask = (free & self._prefix[b]) | (_lowest(word, part) << base)
            lo = self._lo
            split = counts[lo:b]
            split.append(part)
            self._split[mask.bit_length()] = (mask, lo, split)
            if b > lo:
                counts[lo:b] = _zeros(b - lo)
            counts[b] -= part
            self._lo = b
        self._free = free ^ mask
        self.n_free -= k
        return mask

    def kth_free(self, k: int) -> int:
        """The id of the free node of rank k (0-based, by ascending id; 0 <= k < n_free):
        a walk over the per-block free counts and a search in one block's word."""
        free = self._free
        counts = self._counts
        if counts is None:
            return _nth_bit(free, k + 1)
        b = self._lo
        c = counts[b]
        while c <= k:
            k -= c
            b += 1
            c = counts[b]
        base = b << BLOCK_SHIFT
        return base + _nth_bit((free >> base) & _BLOCK_MASK, k + 1)

    def is_free(self, mask: int) -> bool:
        return mask & ~self._free == 0

    def take(self, mask: int, count: int) -> None:
        """Mark nodes busy (the engine checked they are free; `count` = nodes in `mask`)."""
        self._free ^= self._free & mask  # = free & ~mask, without negating a long int
        self.n_free -= count
        if self._counts is not None and mask:
            self._count_blocks(mask, count, -1)

    def give(self, mask: int, count: int) -> None:
        """Mark nodes free again (down nodes stay out of the free set, idle)."""
        if self.down_mask:
            back = mask & ~self.down_mask
            if back != mask:
                self.down_idle |= mask ^ back
                count = back.bit_count()
                mask = back
        self._free |= mask
        self.n_free += count
        counts = self._counts
        if counts is not None and mask:
            known = self._split.pop(mask.bit_length(), None)
            if known is not None and known[0] is mask:
                lo = known[1]
                split = known[2]
                hi = lo + len(split)
                counts[lo:hi] = map(add, counts[lo:hi], split)
                if lo < self._lo:
                    self._lo = lo
            else:
                self._count_blocks(mask, count, 1)

    def block_counts_consistent(self) -> bool:
        """The per-block free counts match the free set (checked by the invariant checker)."""
        counts = self._counts
        if counts is None:
            return True
        free = self._free
        for b, c in enumerate(counts):
            if c != ((free & self._prefix[b + 1]) >> (b << BLOCK_SHIFT)).bit_count():
                return False
            if c and b < self._lo:
                return False
        return True

    @staticmethod
    def node_ids(mask: int) -> list[int]:
        """The node ids in a mask, ascending (a negative mask, which has no end, is refused)."""
        if mask < 0:
            raise ValueError(f"a node mask is an int >= 0, got {mask}")
        ids = []
        while mask:
            low = mask & -mask
            ids.append(low.bit_length() - 1)
            mask ^= low
        return ids

    @staticmethod
    def mask_of(ids: list[int] | tuple[int, ...] | range) -> int:
        mask = 0
        for i in ids:
            mask |= 1 << i
        return mask
