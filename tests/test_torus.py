"""The BG/L torus: ids, boxes, the partition finder, the MFP and size rounding.

Small cases are checked against boxes enumerated by hand; random occupancies of small tori
are checked against a deliberately naive enumeration of every (base, shape) box.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from ckptsim.errors import ConfigError
from ckptsim.platform.torus import CACHE_SIZE, Mfp, Torus, scale_sizes


def bits(*ids: int) -> int:
    return sum(1 << i for i in set(ids))


# ----------------------------------------------------------------------------- naive reference


def naive_boxes(dims: tuple[int, int, int], wrap: bool) -> set[frozenset[int]]:
    """Every box as a set of ids: all extents at all base corners, cells taken modulo the dims
    with wrap-around and boxes leaving the mesh dropped without it.  Duplicates collapse."""
    X, Y, Z = dims
    out = set()
    for a, b, c in itertools.product(range(1, X + 1), range(1, Y + 1), range(1, Z + 1)):
        for x0, y0, z0 in itertools.product(range(X), range(Y), range(Z)):
            if not wrap and (x0 + a > X or y0 + b > Y or z0 + c > Z):
                continue
            cells = frozenset(
                (x0 + i) % X + X * ((y0 + j) % Y + Y * ((z0 + k) % Z))
                for i in range(a) for j in range(b) for k in range(c))
            out.add(cells)
    return out


def to_mask(cells: frozenset[int]) -> int:
    return bits(*cells)


def naive_free(dims, wrap, free: int, size: int) -> set[int]:
    return {to_mask(b) for b in naive_boxes(dims, wrap)
            if len(b) == size and to_mask(b) & ~free == 0}


def naive_mfp(dims, wrap, free: int) -> int:
    return max((len(b) for b in naive_boxes(dims, wrap) if to_mask(b) & ~free == 0), default=0)


# ----------------------------------------------------------------------------- construction


@pytest.mark.parametrize("dims", [(0, 4, 8), (4, 4), (4, 4, 8, 1), ("a", 4, 8), (4.5, 4, 8),
                                  (True, 4, 8), 7])
def test_bad_dims_are_refused(dims):
    with pytest.raises(ConfigError, match="dims"):
        Torus(dims)


def test_bad_wraparound_is_refused():
    with pytest.raises(ConfigError, match="wraparound"):
        Torus((2, 2, 2), wraparound="yes")  # type: ignore[arg-type]


def test_default_is_the_4x4x8_bgl_torus():
    t = Torus()
    assert t.dims == (4, 4, 8) and t.wraparound and t.n_nodes == 128
    assert t.all_mask == (1 << 128) - 1


# ----------------------------------------------------------------------------- ids and boxes


def test_ids_and_coords_round_trip():
    t = Torus((4, 4, 8))
    assert t.id(1, 2, 3) == 1 + 4 * (2 + 4 * 3) == 57
    assert t.coords(57) == (1, 2, 3)
    assert t.coords(1) == (1, 0, 0) and t.coords(4) == (0, 1, 0) and t.coords(16) == (0, 0, 1)
    for i in range(t.n_nodes):
        assert t.id(*t.coords(i)) == i
    with pytest.raises(ConfigError):
        t.id(4, 0, 0)
    with pytest.raises(ConfigError):
        t.coords(128)


def test_box_mask_wraps_on_a_torus_and_is_refused_on_a_mesh():
    torus, mesh = Torus((2, 2, 4)), Torus((2, 2, 4), wraparound=False)
    # (0,0,3) and (0,0,0): ids 12 and 0.
    assert torus.box_mask((0, 0, 3), (1, 1, 2)) == bits(0, 12)
    with pytest.raises(ConfigError, match="leaves"):
        mesh.box_mask((0, 0, 3), (1, 1, 2))
    assert mesh.box_mask((1, 0, 1), (1, 2, 2)) == bits(5, 7, 9, 11)
    assert torus.box_mask((1, 1, 2), (2, 2, 4)) == torus.all_mask
    with pytest.raises(ConfigError, match="shape"):
        torus.box_mask((0, 0, 0), (3, 1, 1))
    with pytest.raises(ConfigError, match="base"):
        torus.box_mask((0, 2, 0), (1, 1, 1))


def test_describe_names_base_and_shape():
    t = Torus((2, 2, 4))
    assert t.describe(bits(0, 12)) == ((0, 0, 3), (1, 1, 2))
    assert t.describe(t.all_mask) == ((0, 0, 0), (2, 2, 4))
    assert t.describe(bits(0, 3)) is None  # a diagonal pair is not a box
    assert Torus((2, 2, 4), wraparound=False).describe(bits(0, 12)) is None


# ----------------------------------------------------------------------------- finder, by hand


def test_ring_partitions_with_and_without_wraparound():
    torus, mesh = Torus((1, 1, 4)), Torus((1, 1, 4), wraparound=False)
    full = 0b1111
    assert torus.free_partitions(full, 2) == [0b0011, 0b0110, 0b1100, 0b1001]
    assert mesh.free_partitions(full, 2) == [0b0011, 0b0110, 0b1100]
    assert torus.free_partitions(full, 3) == [0b0111, 0b1110, 0b1101, 0b1011]
    assert mesh.free_partitions(full, 3) == [0b0111, 0b1110]
    assert torus.free_partitions(full, 4) == [0b1111]  # the whole ring once, not four times
    free = 0b1101  # node 1 busy
    assert torus.free_partitions(free, 2) == [0b1100, 0b1001]
    assert mesh.free_partitions(free, 2) == [0b1100]
    assert torus.free_partitions(free, 3) == [0b1101]
    assert mesh.free_partitions(free, 3) == []
    assert torus.maximal_free_partition(free) == Mfp(3, 0b1101)
    assert mesh.maximal_free_partition(free) == Mfp(2, 0b1100)


def test_bases_in_increasing_x_then_y_then_z():
    t = Torus((2, 2, 1))
    # (0,0), (0,1), (1,0), (1,1) -> ids 0, 2, 1, 3.
    assert t.free_partitions(t.all_mask, 1) == [bits(0), bits(2), bits(1), bits(3)]
    assert t.free_partitions(t.all_mask, 2) == [bits(0, 2), bits(1, 3), bits(0, 1), bits(2, 3)]


def test_2x2x4_pair_counts():
    torus, mesh = Torus((2, 2, 4)), Torus((2, 2, 4), wraparound=False)
    assert torus.shapes(2) == [(1, 1, 2), (1, 2, 1), (2, 1, 1)]
    # (1,1,2): 2*2*4 bases on the torus, 2*2*3 on the mesh; (1,2,1) and (2,1,1): 2*4 each.
    assert len(torus.free_partitions(torus.all_mask, 2)) == 16 + 8 + 8
    assert len(mesh.free_partitions(mesh.all_mask, 2)) == 12 + 8 + 8
    wrap_only = set(torus.free_partitions(torus.all_mask, 2)) - set(
        mesh.free_partitions(mesh.all_mask, 2))
    assert wrap_only == {bits(c, c + 12) for c in range(4)}  # the z pairs {3, 0}


def test_2x2x2_halves_mfp_and_loss():
    t = Torus((2, 2, 2))
    free = t.all_mask & ~bits(0)
    # The three halves missing (0,0,0), in shape order (1,2,2), (2,1,2), (2,2,1).
    halves = [bits(1, 3, 5, 7), bits(2, 3, 6, 7), bits(4, 5, 6, 7)]
    assert t.free_partitions(free, 4) == halves
    assert t.maximal_free_partition(free) == Mfp(4, halves[0])
    for half in halves:
        # What is left is an L of three nodes: its biggest box is a pair.
        assert t.mfp_after(free, half) == 2
        assert t.loss(free, half) == 2
    assert t.losses(free, halves) == [2, 2, 2]
    assert t.free_partitions(free, 8) == []
    assert t.free_partitions(free, 3) == []  # 3 has no shape on 2x2x2


def test_mfp_of_empty_and_full_machines():
    for wrap in (True, False):
        t = Torus((4, 4, 8), wraparound=wrap)
        assert t.maximal_free_partition(t.all_mask) == Mfp(128, t.all_mask)
        assert t.maximal_free_partition(0) == Mfp(0, 0)
        assert t.free_partitions(0, 1) == []
        assert t.mfp_after(t.all_mask, t.all_mask) == 0
        assert t.loss(t.all_mask, t.all_mask) == 128


def test_mfp_before_and_after_a_placement_4x4x8():
    torus, mesh = Torus(), Torus(wraparound=False)
    full = torus.all_mask
    half = torus.box_mask((0, 0, 0), (4, 4, 4))
    for t in (torus, mesh):
        assert t.mfp_after(full, half) == 64 and t.loss(full, half) == 64
        mfp = t.maximal_free_partition(full & ~half)
        assert mfp == Mfp(64, t.box_mask((0, 0, 4), (4, 4, 4)))
    # One busy supernode in the middle of the long axis, (0, 0, 3) = id 48.
    node = bits(torus.id(0, 0, 3))
    assert torus.mfp_after(full, node) == 112  # 4x4x7 from z=4 wrapping to z=2
    assert torus.maximal_free_partition(full & ~node) == Mfp(
        112, torus.box_mask((0, 0, 4), (4, 4, 7)))
    assert mesh.mfp_after(full, node) == 96  # 3x4x8 or 4x3x8 beside it
    assert mesh.maximal_free_partition(full & ~node) == Mfp(
        96, mesh.box_mask((1, 0, 0), (3, 4, 8)))
    assert mesh.loss(full, node) == 32 and torus.loss(full, node) == 16


def test_mfp_after_past_the_first_free_boxes():
    """A partition meeting every large free box exercises the blockwise search."""
    t = Torus()
    full = t.all_mask
    planes = 0
    for z in (0, 2, 4, 6):
        planes |= t.box_mask((0, 0, z), (4, 4, 1))
    assert t.mfp_after(full, planes) == 16
    assert t.losses(full, [planes, bits(0), full]) == [112, 16, 128]
    assert t.mfp_after(full, full & ~bits(5)) == 1
    # Bits above the machine in a candidate are ignored, as in free masks.
    assert t.mfp_after(full, planes | (1 << 200)) == 16
    t._scan = 0
    t.clear_cache()
    assert t.mfp_after(full, planes | (1 << 200)) == 16


# ----------------------------------------------------------------------------- 4x4x8 counts


def test_4x4x8_shapes_and_counts():
    torus, mesh = Torus(), Torus(wraparound=False)
    assert torus.shapes(8) == [(1, 1, 8), (1, 2, 4), (1, 4, 2), (2, 1, 4), (2, 2, 2), (2, 4, 1),
                               (4, 1, 2), (4, 2, 1)]
    assert torus.shapes(64) == [(2, 4, 8), (4, 2, 8), (4, 4, 4)]
    full = torus.all_mask
    # Bases per axis: extent < length -> length bases on the torus, length - extent + 1 on
    # the mesh; extent == length -> 1.
    assert len(torus.free_partitions(full, 8)) == 16 + 128 + 32 + 128 + 128 + 32 + 32 + 32
    assert len(mesh.free_partitions(full, 8)) == 16 + 60 + 28 + 60 + 63 + 24 + 28 + 24
    assert len(torus.free_partitions(full, 64)) == 4 + 4 + 8
    assert len(mesh.free_partitions(full, 64)) == 3 + 3 + 5
    assert len(torus.free_partitions(full, 1)) == len(mesh.free_partitions(full, 1)) == 128
    assert torus.free_partitions(full, 128) == mesh.free_partitions(full, 128) == [full]
    # All boxes: 13 x-runs * 13 y-runs * 57 z-runs on the torus, 10 * 10 * 36 on the mesh.
    assert sum(len(torus.free_partitions(full, s)) for s in range(1, 129)) == 13 * 13 * 57
    assert sum(len(mesh.free_partitions(full, s)) for s in range(1, 129)) == 10 * 10 * 36
    for t in (torus, mesh):
        parts = t.free_partitions(full, 12)
        assert len(parts) == len(set(parts))
        assert all(p.bit_count() == 12 for p in parts)


# ----------------------------------------------------------------------------- sizes


def test_infeasible_sizes_round_up():
    t = Torus()
    assert t.shapes(11) == [] and t.shapes(13) == []
    assert t.feasible_size(11) == 12 and t.feasible_size(13) == 14
    assert t.feasible_size(12) == 12 and t.feasible_size(1) == 1 and t.feasible_size(128) == 128
    assert t.feasible_size(113) == 128 and t.feasible_size(65) == 72
    assert t.free_partitions(t.all_mask, 11) == []
    infeasible = [s for s in range(1, 129) if not any(
        a * b * c == s for a in range(1, 5) for b in range(1, 5) for c in range(1, 9))]
    assert infeasible[:6] == [11, 13, 17, 19, 22, 23]
    assert sorted(set(range(1, 129)) - set(t.feasible_sizes)) == infeasible
    for bad in (0, 129, -3):
        with pytest.raises(ConfigError, match="size"):
            t.feasible_size(bad)
        with pytest.raises(ConfigError, match="size"):
            t.free_partitions(t.all_mask, bad)


def test_round_sizes_counts_changed_jobs():
    t = Torus()
    rounded, changed = t.round_sizes([1, 11, 13, 128, 12, 113])
    assert rounded.tolist() == [1, 12, 14, 128, 12, 128] and changed == 3
    assert rounded.dtype == np.int64
    empty, none = t.round_sizes(np.zeros(0, dtype=np.int64))
    assert empty.tolist() == [] and none == 0
    with pytest.raises(ConfigError, match="1 job"):
        t.round_sizes([4, 129])
    with pytest.raises(ConfigError, match="sizes"):
        t.round_sizes([0])
    with pytest.raises(ConfigError, match="whole"):
        t.round_sizes([1.5])


def test_scale_sizes_256_to_128():
    sizes, factor = scale_sizes([1, 2, 3, 64, 255, 256], 256, 128)
    assert factor == 0.5
    assert sizes.tolist() == [1, 1, 2, 32, 128, 128]
    same, one = scale_sizes(np.array([5, 7]), 128, 128)
    assert same.tolist() == [5, 7] and one == 1.0
    up, two = scale_sizes([3], 64, 128)
    assert up.tolist() == [6] and two == 2.0
    # ceil(100 * 128 / 430) = ceil(29.77) = 30, computed without floating point.
    assert scale_sizes([100], 430, 128)[0].tolist() == [30]
    with pytest.raises(ConfigError, match="machine_size"):
        scale_sizes([1], 0, 128)
    with pytest.raises(ConfigError, match="sizes"):
        scale_sizes([0, 4], 256, 128)


# ----------------------------------------------------------------------------- cache


def test_cached_answers_do_not_leak_between_masks_or_callers():
    t = Torus((2, 2, 4))
    rng = np.random.default_rng(7)
    masks = [int(m) for m in rng.integers(0, 1 << 16, size=3 * CACHE_SIZE)]
    first = {m: (t.maximal_free_partition(m), t.free_partitions(m, 2)) for m in masks}
    fresh = Torus((2, 2, 4))
    for m in reversed(masks):
        assert first[m] == (fresh.maximal_free_partition(m), fresh.free_partitions(m, 2))
        assert first[m] == (t.maximal_free_partition(m), t.free_partitions(m, 2))
    parts = t.free_partitions(t.all_mask, 2)
    parts.clear()
    assert len(t.free_partitions(t.all_mask, 2)) == 32
    # Bits above the machine are ignored rather than mistaken for free nodes.
    assert t.maximal_free_partition(t.all_mask | (1 << 40)) == Mfp(16, t.all_mask)


# ----------------------------------------------------------------------------- against naive


@st.composite
def occupancies(draw, max_side=(3, 3, 5)):
    dims = (draw(st.integers(1, max_side[0])), draw(st.integers(1, max_side[1])),
            draw(st.integers(1, max_side[2])))
    wrap = draw(st.booleans())
    n = dims[0] * dims[1] * dims[2]
    density = draw(st.sampled_from([0.0, 0.2, 0.5, 0.8, 1.0]))
    free = 0
    for i in range(n):
        if draw(st.floats(0, 1)) >= density:
            free |= 1 << i
    return dims, wrap, free


PROPERTY = settings(max_examples=examples(150), deadline=None)


@PROPERTY
@given(case=occupancies(), data=st.data())
def test_free_partitions_match_naive(case, data):
    dims, wrap, free = case
    t = Torus(dims, wraparound=wrap)
    size = data.draw(st.integers(1, t.n_nodes))
    got = t.free_partitions(free, size)
    assert len(got) == len(set(got))
    assert set(got) == naive_free(dims, wrap, free, size)
    expected_shapes = sorted((a, b, c) for a in range(1, dims[0] + 1)
                             for b in range(1, dims[1] + 1) for c in range(1, dims[2] + 1)
                             if a * b * c == size)
    assert t.shapes(size) == expected_shapes


@PROPERTY
@given(case=occupancies())
def test_mfp_matches_naive(case):
    dims, wrap, free = case
    t = Torus(dims, wraparound=wrap)
    mfp = t.maximal_free_partition(free)
    assert mfp.volume == naive_mfp(dims, wrap, free)
    assert mfp.mask.bit_count() == mfp.volume and mfp.mask & ~free == 0
    assert (mfp.mask == 0) == (mfp.volume == 0) or t.describe(mfp.mask) is not None


@PROPERTY
@given(case=occupancies(), data=st.data())
def test_mfp_after_matches_naive(case, data):
    dims, wrap, free = case
    t = Torus(dims, wraparound=wrap)
    if data.draw(st.booleans()):
        t._scan = 0  # skip the early-exit scan: every candidate goes to the blockwise search
    n = t.n_nodes
    cands = []
    for size in sorted(set(data.draw(st.lists(st.integers(1, n), min_size=1, max_size=3)))):
        cands += t.free_partitions(free, size)
    cands += [data.draw(st.integers(0, t.all_mask)) for _ in range(2)]  # any node set
    afters = t.mfp_after_many(free, cands)
    before = naive_mfp(dims, wrap, free)
    assert t.losses(free, cands) == [before - a for a in afters]
    for p, after in zip(cands, afters, strict=True):
        assert after == naive_mfp(dims, wrap, free & ~p)
        assert t.mfp_after(free, p) == after


def test_a_4x4x8_sample_matches_naive():
    """The production dims, on a few occupancies (the naive search is slow here)."""
    rng = np.random.default_rng(3)
    for wrap in (True, False):
        t = Torus((4, 4, 8), wraparound=wrap)
        boxes = naive_boxes((4, 4, 8), wrap)
        assert len(boxes) == (13 * 13 * 57 if wrap else 10 * 10 * 36)
        masks = [to_mask(b) for b in boxes]
        for density in (0.05, 0.3):
            free = sum(1 << i for i in range(128) if rng.random() >= density)
            free_boxes = [m for m in masks if m & ~free == 0]
            assert t.maximal_free_partition(free).volume == max(
                (m.bit_count() for m in free_boxes), default=0)
            for size in (1, 4, 8, 12, 16):
                assert set(t.free_partitions(free, size)) == {
                    m for m in free_boxes if m.bit_count() == size}


# ----------------------------------------------------------------------------- placement fast paths


def straightforward_best(t, free, size, avoid):
    """The MFP heuristic as written in the seed: list the candidates, their losses, the first
    with the smallest loss."""
    parts = [m for m in t.free_partitions(free, size) if not m & avoid]
    losses = t.losses(free, parts)
    return parts, losses, (parts[losses.index(min(losses))] if parts else None)


@PROPERTY
@given(case=occupancies(), data=st.data(), scan=st.sampled_from([48, 3, 0]),
       small=st.sampled_from([64, 0]))
def test_placement_queries_match_the_straightforward_ones(case, data, scan, small):
    """best_partition, partition_losses and has_free_box against free_partitions + losses,
    with and without a box or any node set to avoid, through the Python and the numpy paths
    and walks that hand over to the blockwise search at once (scan 0) or early (scan 3)."""
    from unittest.mock import patch

    from ckptsim.platform import placement

    dims, wrap, free = case
    with patch.object(placement, "SMALL", small):
        t = Torus(dims, wraparound=wrap)
        t._scan = scan
        for _ in range(3):
            size = data.draw(st.sampled_from(t.feasible_sizes))
            avoid = data.draw(st.one_of(
                st.just(0), st.integers(0, t.all_mask),
                st.sampled_from(t.free_partitions(t.all_mask, size))))
            parts, losses, best = straightforward_best(t, free, size, avoid)
            assert t.best_partition(free, size, avoid) == best
            assert t.best_partition(free, size, avoid) == best  # remembered answer
            assert t.partition_losses(free, size, avoid) == (parts, losses)
            assert t.has_free_box(free, size, avoid) == bool(parts)
            fresh = Torus(dims, wraparound=wrap)  # a mask never seen before
            assert fresh.has_free_box(free, size) == bool(t.free_partitions(free, size))
            assert t.fit_test(free)(size) == bool(t.free_partitions(free, size))
        # Releasing node sets one by one until a box of the size is free.
        size = data.draw(st.integers(1, t.n_nodes))
        releases = data.draw(st.lists(st.integers(0, t.all_mask), max_size=4))
        expected, grown = (-1, free)
        for k, m in enumerate(releases, 1):
            grown |= m
            if t.free_partitions(grown, size):
                expected = k
                break
        assert t.release_until_free(free, iter(releases), size) == (expected, grown)


def test_placement_on_4x4x8_matches_the_straightforward_ones():
    """The production torus, on occupancies met while packing jobs, for sizes with many
    candidates (the bitset walk) and few (large boxes, the blockwise search), and with walks
    cut short so that ties are settled by the blockwise search."""
    rng = np.random.default_rng(11)
    for wrap, scan in ((True, 48), (False, 48), (True, 2)):
        t = Torus((4, 4, 8), wraparound=wrap)
        t._scan = scan  # 2: most walks hand over to the blockwise search
        free = t.all_mask
        for _ in range(150):
            size = int(rng.choice([1, 2, 4, 6, 8, 16, 24, 32, 48, 64, 96, 128]))
            avoid = 0 if rng.random() < 0.5 else t.best_partition(t.all_mask, 16) or 0
            parts, losses, best = straightforward_best(t, free, size, avoid)
            assert t.best_partition(free, size, avoid) == best
            assert t.partition_losses(free, size, avoid) == (parts, losses)
            assert t.has_free_box(free, size, avoid) == bool(parts)
            chosen = t.best_partition(free, size)
            if chosen is not None and rng.random() < 0.7:
                free &= ~chosen
            else:  # free a random node set
                free |= int(rng.integers(0, 1 << 62)) << int(rng.integers(0, 66))
                free &= t.all_mask
