"""LinkState: the allotment kept up to date as co-allocated jobs start and end, recomputing
only the jobs coupled to the changed one, and admission with estimated demands."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from ckptsim.errors import ConfigError, DecisionError
from ckptsim.platform.links import allot, progress_rate, split_demand
from ckptsim.platform.linkstate import LinkState


def fractions(s: LinkState) -> dict[int, float]:
    return {j: s.fraction(j) for j in sorted({j for c in range(4) for j in s.jobs_on(c)})}


def test_two_links_two_then_three_jobs():
    s = LinkState([1000.0, 1000.0])
    assert s.add(1, [600, 600]) == (1,)
    assert s.fraction(1) == 1.0 and not s.saturated_links()
    assert s.add(2, [600, 0]) == (1, 2)  # link 0 now carries 1200: both at 5/6
    assert s.fraction(1) == pytest.approx(5 / 6) and s.fraction(2) == pytest.approx(5 / 6)
    assert s.saturated_links() == (0,) and s.most_saturated() == 0
    assert s.allotted(0) == pytest.approx(1000.0) and s.allotted(1) == pytest.approx(500.0)
    assert s.subscription(0) == pytest.approx(1.2)
    assert s.add(3, [0, 300]) == (3,)  # link 1: 900 of 1000, nobody else moves
    assert s.fraction(3) == 1.0
    assert s.remove(2) == (1,)  # link 0 back to 600: job 1 at full speed
    assert s.fraction(1) == 1.0 and not s.saturated_links() and s.most_saturated() is None
    assert s.remove(1) == () and s.remove(3) == ()
    assert len(s) == 0 and s.load(0) == 0.0 and s.residual(1) == 1000.0


def test_second_bottleneck_and_release():
    s = LinkState([1000.0, 1000.0])
    s.add(1, [400, 400])
    s.add(2, [800, 0])
    # Link 0: 1200 -> 5/6 for jobs 1 and 2.
    assert (s.fraction(1), s.fraction(2)) == pytest.approx((5 / 6, 5 / 6))
    assert s.add(3, [0, 1200]) == (1, 2, 3)
    # Link 1 binds first at 1000 / 1600; link 0 then leaves 750 for job 2's 800.
    assert (s.fraction(1), s.fraction(2), s.fraction(3)) == pytest.approx((0.625, 0.9375, 0.625))
    assert s.most_saturated() == 1  # 1.6 > 1.2
    assert s.rate(3, 0.3) == pytest.approx(progress_rate(0.625, 0.3))


def test_disjoint_links_are_not_recomputed():
    s = LinkState([1000.0] * 4)
    s.add(1, [700, 700, 0, 0])
    s.add(2, [0, 0, 900, 900])
    s.add(3, [0, 0, 900, 0])  # saturates link 2: jobs 2 and 3 at 1000 / 1800
    before = s.recomputed
    changed = s.add(4, [500, 0, 0, 0])  # link 0 now 1200: only jobs 1 and 4 can change
    assert set(s.last_scope) == {1, 4}
    assert s.recomputed - before == 2
    assert changed == (1, 4)
    assert s.fraction(2) == pytest.approx(1000 / 1800) and s.fraction(3) == s.fraction(2)
    assert s.remove(4) == (1,) and set(s.last_scope) == {1}
    s.add(5, [0, 0, 0, 0])  # no link traffic: its own component
    assert s.last_scope == (5,) and s.fraction(5) == 1.0


def test_coupling_through_a_shared_job_is_recomputed():
    # Jobs 1 and 3 share no link but are coupled through job 2 (links 0 and 1 both bind).
    s = LinkState([1000.0] * 4)
    s.add(1, [800, 0, 0, 0])
    s.add(2, [400, 400, 0, 0])
    s.add(3, [0, 800, 0, 0])
    s.add(4, [0, 0, 300, 300])
    # Before: links 0 and 1 carry 1200 each, jobs 1-3 at 1000/1200.  Job 5 brings link 1 to
    # 1700, which binds first at 1000/1700 for jobs 2, 3, 5; link 0 then leaves
    # 1000 - 400 * 1000/1700 for job 1's 800: job 1, two links away, speeds up.
    assert s.add(5, [0, 500, 0, 0]) == (1, 2, 3, 5)
    assert set(s.last_scope) == {1, 2, 3, 5}
    assert s.fraction(3) == pytest.approx(1000 / 1700)
    assert s.fraction(1) == pytest.approx((1000 - 400 * 1000 / 1700) / 800)
    assert s.remove(2) == (1, 3, 5)
    assert set(s.last_scope) == {1, 3, 5}  # the pieces the component splits into
    assert s.fraction(1) == 1.0 and s.fraction(5) == pytest.approx(1000 / 1300)


def test_links_that_do_not_bind_do_not_couple():
    s = LinkState([1000.0] * 4)
    s.add(1, [900, 900, 0, 0])
    s.add(2, [0, 900, 0, 0])  # link 1 binds: jobs 1 and 2 at 1000/1800
    assert s.fraction(1) == pytest.approx(1000 / 1800)
    # Job 3 shares link 0 with job 1, but link 0 (900 + 50) does not bind: only job 3 is
    # computed, at full speed, and nothing else is looked at.
    before = s.recomputed
    assert s.add(3, [50, 0, 0, 0]) == (3,) and s.last_scope == (3,)
    assert s.recomputed - before == 1 and s.fraction(3) == 1.0
    assert s.remove(3) == () and s.last_scope == ()
    # Job 4 makes link 0 bind: now jobs 1, 2 (through link 1) and 4 are coupled.
    s.add(4, [200, 0, 0, 0])
    assert set(s.last_scope) == {1, 2, 4}


def test_admission_uses_estimates_and_skips_saturated_links():
    s = LinkState([1000.0, 1000.0])
    # Estimated 500 each: both fit, but their true demand is 600 each.
    assert s.fits([500, 500])
    s.add(1, [600, 600], estimate=[500, 500])
    assert s.residual(0) == 500.0 and s.fits([500, 500]) and not s.fits([500.5, 0])
    s.add(2, [600, 600], estimate=[500, 500])
    assert s.saturated_links() == (0, 1)  # fits the estimates, saturates with the truth
    assert s.fraction(1) == pytest.approx(1000 / 1200)
    assert s.residual(0) == 0.0 and not s.fits([1, 0])
    assert s.fits([0, 0])  # a job on one cluster uses no link
    assert s.estimate(1) == (500.0, 500.0) and s.demand(1) == (600.0, 600.0)
    s.remove(1)
    assert s.fits([0, 0]) and not s.saturated_links()
    s.add(3, [100, 0], estimate=[0, 0])  # an estimate of 0 (error -100%) books nothing
    assert s.residual(0) == 500.0 and s.load(0) == 700.0


def test_errors():
    with pytest.raises(ConfigError, match="grid.capacity"):
        LinkState([1000.0, 0.0])
    with pytest.raises(ConfigError, match="grid.capacity"):
        LinkState([])
    s = LinkState([1000.0])
    s.add(1, [5.0])
    with pytest.raises(DecisionError, match="already"):
        s.add(1, [5.0])
    with pytest.raises(DecisionError, match="does not use"):
        s.remove(2)
    with pytest.raises(DecisionError, match="each of the 1 links"):
        s.add(3, [1.0, 2.0])
    with pytest.raises(DecisionError, match="finite"):
        s.add(4, [float("nan")])


def split_strategy() -> st.SearchStrategy:
    return st.tuples(st.lists(st.integers(0, 12), min_size=4, max_size=4)
                     .filter(lambda s: sum(s) >= 1), st.floats(10.0, 600.0))


ops = st.lists(st.tuples(st.booleans(), split_strategy(), st.floats(-1.0, 1.0),
                         st.integers(0, 10**6)), min_size=1, max_size=60)


@settings(max_examples=examples(100))
@given(ops)
def test_incremental_allotment_matches_a_full_recomputation(steps):
    s = LinkState([1000.0] * 4)
    demands: dict[int, tuple[float, ...]] = {}
    for i, (start, (split, ppbw), err, pick) in enumerate(steps):
        before = {j: s.fraction(j) for j in demands}
        if start or not demands:
            d = split_demand(split, ppbw)
            changed = s.add(i, d, estimate=split_demand(split, ppbw * (1 + err)))
            demands[i] = d
            assert i in changed
        else:
            gone = sorted(demands)[pick % len(demands)]
            changed = s.remove(gone)
            del demands[gone]
            del before[gone]
        ids = sorted(demands)
        full = allot(np.array([demands[j] for j in ids]).reshape(-1, 4), [1000.0] * 4)
        got = np.array([s.fraction(j) for j in ids])
        assert got == pytest.approx(full, rel=1e-9)
        moved = {j for j in before if s.fraction(j) != before[j]}
        assert moved <= set(changed) <= set(s.last_scope) | {i}
        for c in range(4):
            assert s.allotted(c) <= 1000.0 * (1 + 1e-9)
            assert s.load(c) == pytest.approx(sum(demands[j][c] for j in ids), abs=1e-6)


@settings(max_examples=examples(100))
@given(st.lists(st.tuples(st.booleans(), split_strategy(), st.integers(0, 10**6)),
                min_size=1, max_size=80))
def test_accurate_estimates_admitted_never_saturate(steps):
    s = LinkState([1000.0] * 4)
    running: list[int] = []
    for i, (start, (split, ppbw), pick) in enumerate(steps):
        if start or not running:
            d = split_demand(split, ppbw)
            if s.fits(d):
                s.add(i, d)
                running.append(i)
        else:
            s.remove(running.pop(pick % len(running)))
        assert not s.saturated_links()
        assert all(s.fraction(j) == 1.0 for j in running)
        for c in range(4):
            assert s.load(c) <= 1000.0 * (1 + 1e-9)
