"""A failure source's `span`: a log rescaled to a count is drawn over the workload's submit
span (`submit`, the default), or continued past the last submission, period after period at
the same rate, until the last job ends (`run`; ckptsim.failures.series, docs/failures.md)."""

from __future__ import annotations

import pytest
from helpers import LANL_HEADER, jobs, lanl_row

from ckptsim.errors import ConfigError
from ckptsim.failures.source import load_failures
from ckptsim.runner import simulate


@pytest.fixture
def one_failure(tmp_path):
    """One failure of node 0 half-way through a 4-day window: rescaled to 1 failure over a
    period, it falls at the period's middle."""
    path = tmp_path / "lanl.csv"
    path.write_text("\n".join([LANL_HEADER,
                               lanl_row(2, 0, "1/3/2004 0:00", "1/3/2004 0:10", "10")]) + "\n")
    return (f"lanl:path={path},system=2,start=2004-01-01,end=2004-01-05,count=1,"
            "transient=true")


def _run(source):
    # One node. Job 1 runs 0-10; job 2, the last arrival, comes at 100 and runs 80 s. The
    # submit span is [0, 100]: its one failure is at 50, when the node is free.
    w = jobs([(0, 10, 1, 10), (100, 80, 1, 80)], 1)
    return simulate(w, "fcfs", failures=source)


def test_submit_span_leaves_the_job_after_the_last_arrival_alone(one_failure):
    for source in (one_failure, one_failure + ",span=submit"):
        res = _run(source)
        assert res.summary["failures"] == 1 and res.summary["jobs_killed_by_failures"] == 0
        assert res.summary["makespan"] == 180


def test_run_span_keeps_failing_until_the_last_job_ends(one_failure):
    # Under span=run the next periods, [100, 200] and [200, 300], have their failure at 150
    # and 250: the one at 150 kills job 2 (started at 100), which restarts at once and ends at
    # 230; the one at 250 comes after the last job's end, so it never happens (nor moves the
    # clock).
    res = _run(one_failure + ",span=run")
    assert res.summary["failures"] == 2 and res.summary["jobs_killed_by_failures"] == 1
    assert res.summary["makespan"] == 230
    options = res.options["failures"]
    assert options["failures"] == 2
    assert "continued past the submit span: 3 period(s) of 100 s" in options["transforms"][-1]


def test_the_first_period_is_the_submit_spans_failures(tmp_path):
    path = tmp_path / "lanl.csv"
    rows = [lanl_row(2, n % 3, f"1/{1 + n % 9}/2004 {n % 24}:00", f"1/{1 + n % 9}/2004 23:00")
            for n in range(20)]
    path.write_text("\n".join([LANL_HEADER, *rows]) + "\n")
    from ckptsim.failures.series import FailureSeries

    spec = f"lanl:path={path},system=2,count=30,transient=true"
    submit = load_failures(spec, n_nodes=2, span=1000.0, offset=5.0, seed=3)
    series = FailureSeries(spec + ",span=run", n_nodes=2, span=1000.0, offset=5.0, seed=3)
    assert series.first.time.tolist() == submit.time.tolist()
    assert series.first.node.tolist() == submit.node.tolist()
    second = series.next()
    assert len(second) == 30 and second.time.min() >= 1005.0 and second.time.max() <= 2005.0
    assert second.time.tolist() != (submit.time + 1000.0).tolist()  # a new draw


def test_run_span_needs_a_count_and_the_failures_component(one_failure, tmp_path):
    no_count = one_failure.replace(",count=1", "") + ",span=run"
    with pytest.raises(ConfigError, match="count"):
        _run(no_count)
    with pytest.raises(ConfigError, match="span"):
        load_failures(one_failure + ",span=run", n_nodes=1, span=100.0)
    with pytest.raises(ConfigError, match="accepted: submit, run"):
        _run(one_failure + ",span=forever")


def test_the_failures_left_when_the_last_job_ends_do_not_move_the_clock(one_failure):
    from ckptsim.components.failures import Failures
    from ckptsim.engine.simulator import Simulator
    from ckptsim.policies.base import scheduler_factory

    w = jobs([(0, 10, 1, 10), (100, 80, 1, 80)], 1)
    failures = Failures(Failures.make_params({"source": one_failure + ",span=run"}))
    sim = Simulator(w, scheduler_factory("fcfs", None), components=[failures], check=True)
    sim.run()
    assert sim.now == 230 and failures.failures == 2
    # The predictor's view reaches past the periods drawn: they are drawn first.
    assert failures.failing_nodes(1000.0, 1100.0) == 1 and failures.series.periods == 11
    assert failures.failure_times() == [50.0]  # the submit span's: the rate M is read from
