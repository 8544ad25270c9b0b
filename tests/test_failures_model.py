"""FailureTrace: the value type the failure layer hands to the engine."""

from __future__ import annotations

import numpy as np
import pytest

from ckptsim.errors import ConfigError
from ckptsim.failures import FailureTrace


def trace() -> FailureTrace:
    return FailureTrace(time=[30.0, 10.0, 10.0, 50.0], node=[2, 7, 3, 2],
                        repair=[5.0, 0.0, 100.0, 0.0], source="hand")


def test_sorted_by_time_then_node_and_read_only() -> None:
    times = np.array([30.0, 10.0, 10.0, 50.0])
    tr = FailureTrace(time=times, node=[2, 7, 3, 2], repair=[5.0, 0.0, 100.0, 0.0])
    assert tr.time.tolist() == [10.0, 10.0, 30.0, 50.0]
    assert tr.node.tolist() == [3, 7, 2, 2]
    assert tr.repair.tolist() == [100.0, 0.0, 5.0, 0.0]
    assert tr.time.dtype == np.float64 and tr.node.dtype == np.int64
    assert tr.span == 50.0 and len(tr) == 4
    with pytest.raises(ValueError):
        tr.time[0] = 1.0
    times[0] = 99.0  # the caller's array stays its own
    assert tr.time.max() == 50.0


def test_validation() -> None:
    with pytest.raises(ValueError, match="length"):
        FailureTrace(time=[1.0], node=[1, 2], repair=[0.0])
    with pytest.raises(ValueError, match="times"):
        FailureTrace(time=[-1.0], node=[1], repair=[0.0])
    with pytest.raises(ValueError, match="times"):
        FailureTrace(time=[np.nan], node=[1], repair=[0.0])
    with pytest.raises(ValueError, match="repair"):
        FailureTrace(time=[1.0], node=[1], repair=[-2.0])
    with pytest.raises(ValueError, match="span"):
        FailureTrace(time=[10.0], node=[1], repair=[0.0], span=5.0)
    with pytest.raises(ValueError, match="one-dimensional"):
        FailureTrace(time=[[1.0]], node=[[1]], repair=[[0.0]])


def test_empty_trace() -> None:
    tr = FailureTrace(time=[], node=[], repair=[], span=100.0)
    assert len(tr) == 0 and tr.span == 100.0 and tr.transient
    assert FailureTrace(time=[], node=[], repair=[]).span == 0.0
    assert tr.failing_nodes(0, 100).size == 0 and tr.duplicates() == 0


def test_equality_and_repr() -> None:
    assert trace() == trace()
    assert trace() != trace().with_columns("transient", repair=np.zeros(4))
    assert "4 failures on 3 nodes" in repr(trace())
    with pytest.raises(TypeError):
        hash(trace())


def test_subset_keeps_span_and_metadata() -> None:
    tr = trace()
    sub = tr.subset(tr.node == 2, note="node 2", counts={"kept": 2})
    assert sub.time.tolist() == [30.0, 50.0] and sub.span == 50.0
    assert sub.notes == ("node 2",) and sub.counts == {"kept": 2} and sub.source == "hand"
    assert tr.subset([0, 3]).node.tolist() == [3, 2]
    with pytest.raises(ValueError, match="mask"):
        tr.subset(np.ones(3, dtype=bool))


def test_window_rebases_by_default() -> None:
    w = trace().window(10.0, 50.0)
    assert w.time.tolist() == [0.0, 0.0, 20.0] and w.span == 40.0
    assert w.notes == ("window(10, 50)",)
    kept = trace().window(20.0, 60.0, rebase=False)
    assert kept.time.tolist() == [30.0, 50.0] and kept.span == 50.0
    assert len(trace().window(50.0)) == 1  # without an end, to the end of the trace
    late = trace().window(80.0)
    assert len(late) == 0 and late.span == 0.0
    assert trace().window(0.0).time.tolist() == trace().time.tolist()
    assert len(trace().window(0.0, 50.0)) == 3  # with one, half-open
    with pytest.raises(ConfigError, match="end"):
        trace().window(30.0, 20.0)
    with pytest.raises(ConfigError, match="start"):
        trace().window(-1.0, 20.0)


def test_shifted_moves_failures_and_period() -> None:
    moved = trace().shifted(100.0)
    assert moved.time.tolist() == [110.0, 110.0, 130.0, 150.0] and moved.span == 150.0
    assert moved.node.tolist() == trace().node.tolist()
    assert moved.repair.tolist() == trace().repair.tolist()
    assert moved.notes == ("shifted(100)",)
    with pytest.raises(ConfigError, match="offset"):
        trace().shifted(-1.0)


def test_derived_values() -> None:
    tr = trace()
    assert tr.nodes.tolist() == [2, 3, 7]
    assert tr.end.tolist() == [110.0, 10.0, 35.0, 50.0]
    assert not tr.transient
    assert tr.failing_nodes(10.0, 30.0).tolist() == [3, 7]
    assert tr.failing_nodes(10.0, 30.1).tolist() == [2, 3, 7]


def test_duplicates_and_overlapping() -> None:
    tr = FailureTrace(time=[0.0, 0.0, 5.0, 10.0, 12.0, 3.0], node=[1, 1, 1, 1, 2, 2],
                      repair=[10.0, 10.0, 0.0, 1.0, 0.0, 20.0])
    assert tr.duplicates() == 1
    # Node 1: the copy at 0 and the failure at 5 start while it is down (until 10); the one at
    # 10 starts as the repair ends.  Node 2: 12 falls in the outage 3..23.
    mask = tr.overlapping()
    flagged = sorted(zip(tr.time[mask].tolist(), tr.node[mask].tolist(), strict=True))
    assert flagged == [(0.0, 1), (5.0, 1), (12.0, 2)]
