"""A homogeneous cluster of N nodes with identities 0..N-1.

Node sets are Python ints used as bitmasks (bit i set = node i).  Union, intersection and
counting are then single big-int operations, which keeps allocation cheap even on machines
with tens of thousands of processors, and lets later capabilities fail, suspend or migrate
specific nodes.
"""

from __future__ import annotations

from ckptsim.errors import ConfigError


class Cluster:
    """Node pool with first-fit allocation by lowest free node id."""

    __slots__ = ("n_nodes", "all_mask", "free_mask", "n_free", "down_mask", "down_idle")

    def __init__(self, n_nodes: int) -> None:
        if int(n_nodes) < 1:
            raise ConfigError("machine_size", f"must be a positive number of nodes, got {n_nodes}")
        self.n_nodes = int(n_nodes)
        self.all_mask = (1 << self.n_nodes) - 1
        self.free_mask = self.all_mask
        self.n_free = self.n_nodes
        self.down_mask = 0  # nodes out of service (see `Platform.hold`)
        self.down_idle = 0  # nodes out of service that no job holds

    def first_fit(self, k: int) -> int:
        """The k free nodes with the lowest ids, as a mask (k <= n_free)."""
        free = self.free_mask
        if k >= self.n_free:
            return free
        if k <= 8:
            mask = 0
            for _ in range(k):
                low = free & -free
                mask |= low
                free ^= low
            return mask
        # Smallest prefix of node ids holding k free nodes.  It is at least k past the lowest
        # free node; gallop up from there, then bisect on popcounts, so the big-int work
        # follows the length of that prefix rather than the machine size.
        n = self.n_nodes
        lo = (free & -free).bit_length() - 1 + k
        hi = lo
        step = k
        while hi < n and (free & ((1 << hi) - 1)).bit_count() < k:
            lo = hi + 1
            hi = min(hi + step, n)
            step <<= 1
        while lo < hi:
            mid = (lo + hi) >> 1
            if (free & ((1 << mid) - 1)).bit_count() >= k:
                hi = mid
            else:
                lo = mid + 1
        return free & ((1 << lo) - 1)

    def is_free(self, mask: int) -> bool:
        return mask & ~self.free_mask == 0

    def take(self, mask: int, count: int) -> None:
        """Mark nodes busy (the engine checked they are free)."""
        self.free_mask &= ~mask
        self.n_free -= count

    def give(self, mask: int, count: int) -> None:
        """Mark nodes free again (down nodes stay out of the free set, idle)."""
        back = mask & ~self.down_mask
        self.free_mask |= back
        if back == mask:
            self.n_free += count
        else:
            self.n_free += back.bit_count()
            self.down_idle |= mask ^ back

    @staticmethod
    def node_ids(mask: int) -> list[int]:
        """The node ids in a mask, ascending."""
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
