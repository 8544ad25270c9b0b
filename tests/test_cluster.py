"""The node pool against a plain model: a set of free node ids.

Machines of one block and of several blocks (`BLOCK_BITS` nodes each) go through the same
random sequences of allocations, releases, explicit takes and node failures / repairs written
through `free_mask` as the failure layer does.
"""

from __future__ import annotations

from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from ckptsim.platform.cluster import BLOCK_BITS, Cluster


def lowest(free: set[int], k: int) -> set[int]:
    return set(sorted(free)[:k])


def test_first_fit_spans_blocks():
    c = Cluster(3 * BLOCK_BITS + 5)
    # Free: every third node of the first block, all of the others.
    busy = Cluster.mask_of([i for i in range(BLOCK_BITS) if i % 3])
    c.take(busy, busy.bit_count())
    k = (BLOCK_BITS + 2) // 3 + 10  # all free nodes of block 0 and ten of block 1
    expected = {i for i in range(BLOCK_BITS) if i % 3 == 0} | set(range(BLOCK_BITS,
                                                                         BLOCK_BITS + 10))
    assert set(Cluster.node_ids(c.first_fit(k))) == expected
    mask = c.allocate(k)
    assert set(Cluster.node_ids(mask)) == expected
    assert c.n_free == 3 * BLOCK_BITS + 5 - busy.bit_count() - k
    assert c.block_counts_consistent()
    c.give(mask, k)
    assert c.block_counts_consistent() and c.first_fit(k) == mask


ops = st.lists(st.tuples(st.sampled_from(["alloc", "free", "take", "fail", "repair"]),
                         st.integers(0, 10**9)), max_size=60)


@settings(max_examples=examples(150))
@given(n=st.sampled_from([1, 7, 200, BLOCK_BITS, BLOCK_BITS + 1, 3 * BLOCK_BITS + 17]),
       script=ops)
def test_cluster_matches_a_set_of_free_nodes(n, script):
    c = Cluster(n)
    free = set(range(n))
    down: set[int] = set()
    held: list[tuple[int, set[int]]] = []  # (mask, nodes) of live allocations
    for op, r in script:
        if op == "alloc" and free:
            k = 1 + r % len(free) if r % 4 else min(len(free), 1 + r % 3)
            assert c.first_fit(k) == Cluster.mask_of(sorted(lowest(free, k)))
            mask = c.allocate(k)
            nodes = lowest(free, k)
            assert set(Cluster.node_ids(mask)) == nodes
            free -= nodes
            held.append((mask, nodes))
        elif op == "free" and held:
            mask, nodes = held.pop(r % len(held))
            c.give(mask, len(nodes))
            free |= nodes - down
        elif op == "take" and free:
            ids = sorted(free)
            nodes = {ids[(r >> s) % len(ids)] for s in range(0, 30, 6)}
            mask = Cluster.mask_of(sorted(nodes))
            c.take(mask, len(nodes))
            free -= nodes
            held.append((mask, nodes))
        elif op == "fail":
            node = r % n
            if node not in down:  # as ckptsim.components.failures does
                down.add(node)
                c.down_mask |= 1 << node
                if c.free_mask & (1 << node):
                    c.free_mask &= ~(1 << node)
                    c.n_free -= 1
                    free.discard(node)
        elif op == "repair" and down:
            node = sorted(down)[r % len(down)]
            down.discard(node)
            c.down_mask &= ~(1 << node)
            if not any(node in nodes for _, nodes in held):
                c.free_mask |= 1 << node
                c.n_free += 1
                free.add(node)
        assert set(Cluster.node_ids(c.free_mask)) == free
        assert c.n_free == len(free)
        assert c.block_counts_consistent()


def _nth_bit_by_hand(word: int, k: int) -> int:
    """The k-th lowest set bit of `word`, one bit at a time."""
    seen = 0
    for p in range(word.bit_length()):
        if word >> p & 1:
            seen += 1
            if seen == k:
                return p
    raise AssertionError("fewer than k bits set")


@settings(max_examples=examples(200), deadline=None)
@given(width=st.sampled_from([1, 7, 64, BLOCK_BITS - 1, BLOCK_BITS, BLOCK_BITS + 1,
                              2 * BLOCK_BITS, 3 * BLOCK_BITS + 17, 5000]),
       density=st.sampled_from([0.02, 0.5, 0.98, 1.0]), seed=st.integers(0, 2**32 - 1),
       data=st.data())
def test_nth_bit_of_a_word_of_any_length(width, density, seed, data):
    """`_nth_bit` on words of one block and of many (the htc scheduler searches a whole
    machine's free set: it indexed a table of one block's prefixes past its end)."""
    import random

    from ckptsim.platform.cluster import _nth_bit

    rng = random.Random(seed)
    word = sum(1 << p for p in range(width) if rng.random() < density) | 1 << (width - 1)
    n = word.bit_count()
    for k in {1, 2, 5, n, data.draw(st.integers(1, n))}:
        if k <= n:
            assert _nth_bit(word, k) == _nth_bit_by_hand(word, k)


def test_htc_places_wide_jobs_on_a_machine_of_many_blocks(tmp_path):
    """A job of two cores on 2,048 (it crashed with an IndexError in _nth_bit)."""
    from ckptsim.cli import main

    swf = tmp_path / "two.swf"
    swf.write_text("; MaxProcs: 5000\n1 0 -1 100 2 -1 -1 2 200 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
                   "2 10 -1 100 700 -1 -1 700 200 -1 1 -1 -1 -1 -1 -1 -1 -1\n")
    assert main(["run", "--workload", str(swf), "--scheduler", "htc",
                 "--machine-size", "2048"]) == 0
