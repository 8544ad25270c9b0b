"""Node sets as allocations.csv writes them (``0-3 8 10-11``), from the int bitmasks the
engine holds: the same text for any mask whether it is cut into intervals bit run by bit run
or, for a set spanning many nodes, as an array; and what a recorder keeps of them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ckptsim.records.allocations import AllocationLog, AllocationRecorder
from ckptsim.records.nodesets import WIDE_SPAN, mask_of, node_text, parse_nodes


def by_hand(mask: int) -> str:
    """The interval-set form, one node at a time."""
    nodes = [k for k in range(mask.bit_length()) if mask >> k & 1]
    parts: list[str] = []
    for k in nodes:
        if parts and parts[-1][1] == k - 1:
            parts[-1][1] = k
        else:
            parts.append([k, k])
    return " ".join(f"{a}-{b}" if b > a else str(a) for a, b in parts)


intervals = st.lists(st.tuples(st.integers(0, 3 * WIDE_SPAN), st.integers(1, 300)),
                     max_size=25)


@given(intervals)
def test_node_text_is_the_interval_set(spans: list[tuple[int, int]]) -> None:
    mask = 0
    for first, length in spans:
        mask |= ((1 << length) - 1) << first
    text = node_text(mask)
    assert text == by_hand(mask)
    assert mask_of(text) == mask
    assert sum(b - a + 1 for a, b in parse_nodes(text)) == mask.bit_count()


def test_wide_sets_are_read_by_bytes() -> None:
    """Sets spanning more than WIDE_SPAN nodes, one interval or many, at a large offset."""
    many = sum(0b11 << k for k in range(0, 10 * WIDE_SPAN, 5)) << 90_000
    assert (many >> 90_000).bit_length() > WIDE_SPAN
    assert node_text(many) == by_hand(many)
    one = ((1 << (2 * WIDE_SPAN)) - 1) << 77
    assert node_text(one) == f"77-{77 + 2 * WIDE_SPAN - 1}"
    assert node_text(one | 1) == f"0 77-{77 + 2 * WIDE_SPAN - 1}"


def test_the_recorder_keeps_text_and_masks_read_back() -> None:
    """A run's rows hold each attempt's node set as text, one object per distinct set, and
    `masks` gives the int bitmasks back; a row given an int bitmask is read as before."""
    import ckptsim

    log = AllocationLog()
    ckptsim.simulate(ckptsim.workload("lublin:n=300,seed=3,machine=64"), "easy",
                     recorders=[AllocationRecorder(log)])
    texts = log.column(4)
    assert len(texts) == 300 and all(type(t) is str for t in texts)
    assert log.node_texts() == texts
    masks = log.masks
    assert all(m.bit_count() == sum(b - a + 1 for a, b in parse_nodes(t))
               for m, t in zip(masks, texts, strict=True))
    same = {}
    for t in texts:  # equal texts are one object
        assert same.setdefault(t, t) is t
    by_int = AllocationLog()
    by_int.rows.append((1, 1, 0.0, 1.0, 0b1011, "completed"))
    assert by_int.node_texts() == ["0-1 3"] and by_int.masks == [0b1011]


def test_a_recorder_drops_its_bookkeeping_when_the_run_ends() -> None:
    """A recorder the caller made outlives the run (its log is the caller's); what it kept
    to follow jobs through the run (attempt counts, last rows, open attempts, node-set texts)
    is freed at the run's end, leaving only the log."""
    import ckptsim

    log = AllocationLog()
    recorder = AllocationRecorder(log)
    ckptsim.simulate(ckptsim.workload("lublin:n=200,seed=1,machine=32"), "ckpt-backfill",
                     {"p": 0.2}, failures="synthetic:mtbf=20000,repair_mean=3600",
                     recorders=[recorder])
    assert len(log.rows) > 200  # jobs ran more than once
    assert (recorder.open, recorder.count, recorder.last, recorder.texts, recorder.same) == (
        {}, {}, {}, {}, {})
