"""The grid's fast paths give what the plain definitions give: `lowest_nodes` a run of bits
at a time, and the links' cached views (saturation, residuals, the most saturated link)
after any sequence of adds and removes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ckptsim.platform.linkstate import LinkState
from ckptsim.policies.coalloc_place import lowest_nodes


def lowest_bit_by_bit(free: int, k: int) -> int:
    out = 0
    for _ in range(k):
        low = free & -free
        out |= low
        free ^= low
    return out


def test_lowest_nodes_by_hand():
    assert lowest_nodes(0b1011_0110, 0) == 0
    assert lowest_nodes(0b1011_0110, 1) == 0b10
    assert lowest_nodes(0b1011_0110, 2) == 0b110
    assert lowest_nodes(0b1011_0110, 3) == 0b1_0110
    assert lowest_nodes(0b1011_0110, 5) == 0b1011_0110
    assert lowest_nodes((1 << 300) - 1 << 7, 200) == (1 << 200) - 1 << 7


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=(1 << 200) - 1), st.integers(0, 200))
def test_lowest_nodes_as_bit_by_bit(free, k):
    k = min(k, free.bit_count())
    got = lowest_nodes(free, k)
    assert got == lowest_bit_by_bit(free, k)
    assert got.bit_count() == k and got & ~free == 0


def plain_views(s: LinkState) -> tuple:
    sat = tuple(s.load(c) > s.capacity[c] * (1 + 1e-9) for c in range(len(s.capacity)))
    best = None
    for c in range(len(s.capacity)):
        if s.saturated(c) and (best is None or s.subscription(c) > s.subscription(best)):
            best = c
    residuals = tuple(s.residual(c) for c in range(len(s.capacity)))
    return sat, residuals, best


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.lists(st.integers(0, 700), min_size=3,
                                                   max_size=3)), max_size=40))
def test_link_views_follow_every_change(steps):
    s = LinkState([1000.0, 800.0, 1200.0])
    held: list[int] = []
    for n, (remove, demand) in enumerate(steps):
        if remove and held:
            s.remove(held.pop(len(held) // 2))
        else:
            s.add(n, [float(v) for v in demand], [v / 2.0 for v in demand])
            held.append(n)
        sat, residuals, best = plain_views(s)
        assert s.saturation() == tuple(s.saturated(c) for c in range(3))
        assert s.residuals() == residuals
        assert s.most_saturated() == best
        assert s.saturated_links() == tuple(c for c in range(3) if sat[c])
