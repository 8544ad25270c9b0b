"""Hand-checkable schedules for fcfs, easy and conservative."""

from __future__ import annotations

import pytest
from helpers import jobs, starts

from ckptsim.engine.simulator import Simulator
from ckptsim.errors import ConfigError
from ckptsim.policies.base import get_scheduler, scheduler_factory, scheduler_names
from ckptsim.runner import simulate


def run(w, name, **kw):
    return Simulator(w, scheduler_factory(name, kw.pop("params", None)), check=True,
                     **kw).run()


# Seed 000 Fig. 3: A and B run, C waits for both, D (overestimated) and E wait behind C.
# Machine of 8 nodes: A 4 nodes ends at 10; B 4 nodes ends at 30; C needs 8; D and E 2 each.
FIG3 = [
    (0.0, 10.0, 4, 10.0),   # A
    (0.0, 30.0, 4, 30.0),   # B
    (1.0, 20.0, 8, 20.0),   # C
    (2.0, 15.0, 2, 40.0),   # D: runs 15 s but asks for 40
    (3.0, 40.0, 2, 50.0),   # E
]


def test_fig3_under_easy():
    sim = run(jobs(FIG3, 8), "easy")
    # At t=10 (A ends) C is blocked; its reservation is B's end (30) with no extra nodes.
    # D would end at 10 + 40 = 50 > 30 and E at 60 > 30: neither is backfilled (Fig. 3b).
    assert starts(sim) == {1: (0, 10), 2: (0, 30), 3: (30, 50), 4: (50, 65), 5: (50, 90)}
    assert not any(j.backfilled for j in sim.jobs)


def test_fig3_under_fcfs_and_conservative():
    assert starts(run(jobs(FIG3, 8), "fcfs"))[3] == (30, 50)
    sim = run(jobs(FIG3, 8), "conservative")
    assert starts(sim) == {1: (0, 10), 2: (0, 30), 3: (30, 50), 4: (50, 65), 5: (50, 90)}


def test_easy_backfills_by_time_and_by_extra_nodes():
    w = jobs([
        (0, 10, 2, 10),    # 1: 2 of 4 nodes until 10
        (1, 10, 3, 10),    # 2: head, needs 3: reservation at 10, extra = 2 + 2 - 3 = 1
        (2, 5, 2, 5),      # 3: ends at 7 <= 10 -> backfilled by time (takes both free nodes)
        (3, 100, 1, 100),  # 4: does not fit now (0 free)
    ], 4)
    sim = run(w, "easy")
    assert starts(sim)[3] == (2, 7) and sim.jobs[2].backfilled
    # At 7 job 3 ends: free 2, head still needs 3 at 10; job 4 (1 node, long) uses the one
    # extra node.
    assert starts(sim)[4] == (7, 107) and sim.jobs[3].backfilled
    assert starts(sim)[2] == (10, 20)


def test_easy_extra_nodes_are_consumed():
    w = jobs([
        (0, 10, 2, 10),    # 1
        (1, 10, 3, 10),    # 2: head: shadow 10, extra 1
        (2, 100, 1, 100),  # 3: uses the extra node
        (3, 100, 1, 100),  # 4: no extra left, too long: waits
    ], 4)
    sim = run(w, "easy")
    assert starts(sim)[3] == (2, 102)
    assert starts(sim)[2] == (10, 20)
    # At 10 job 2 takes the 3 free nodes (job 3 holds the fourth); job 4 waits for job 2.
    assert starts(sim)[4] == (20, 120) and not sim.jobs[3].backfilled


def test_conservative_protects_every_reservation_easy_only_the_head():
    w = jobs([
        (0, 10, 2, 10),    # 1
        (1, 10, 3, 10),    # 2: head: reserved at 10
        (2, 10, 4, 10),    # 3: reserved at 20 under conservative
        (3, 100, 1, 100),  # 4: long, 1 node
    ], 4)
    easy = starts(run(w, "easy"))
    cons = starts(run(w, "conservative"))
    # EASY: job 4 takes the head's extra node and delays job 3 until it ends at 103.
    assert easy == {1: (0, 10), 2: (10, 20), 3: (103, 113), 4: (3, 103)}
    # Conservative: job 4 would overlap job 3's reservation [20, 30), so it waits until 30.
    assert cons == {1: (0, 10), 2: (10, 20), 3: (20, 30), 4: (30, 130)}


def test_conservative_compresses_when_a_job_ends_early():
    w = jobs([
        (0, 5, 4, 20),     # 1: predicted to end at 20, ends at 5
        (1, 10, 4, 10),    # 2: reserved at 20, starts at 5 after compression
        (2, 10, 2, 10),    # 3: reserved at 30, moves to 15
    ], 4)
    sim = run(w, "conservative")
    assert starts(sim) == {1: (0, 5), 2: (5, 15), 3: (15, 25)}
    policy = sim.policy
    assert policy.first_resv[1] == 20 and policy.first_resv[2] == 30


def test_simultaneous_end_and_arrival_see_the_freed_nodes():
    w = jobs([(0, 10, 4, 10), (10, 5, 4, 5), (10, 5, 1, 5)], 4)
    for name in ("fcfs", "easy", "conservative"):
        sim = run(w, name)
        assert starts(sim) == {1: (0, 10), 2: (10, 15), 3: (15, 20)}, name


def test_two_ends_at_one_time_give_one_pass():
    w = jobs([(0, 10, 2, 10), (0, 10, 2, 10), (1, 5, 4, 5)], 4)
    for name in ("fcfs", "easy", "conservative"):
        assert starts(run(w, name))[3] == (10, 15), name


def test_zero_runtime_jobs():
    w = jobs([(0, 0, 4, 0), (0, 0, 4, 10), (0, 3, 4, 3)], 4)
    for name in ("fcfs", "easy", "conservative"):
        assert starts(run(w, name)) == {1: (0, 0), 2: (0, 0), 3: (0, 3)}, name


def test_easy_overrunning_job_is_predicted_to_end_now():
    w = jobs([
        (0, 50, 2, 10),    # 1: asks 10, runs 50 (overrun): predicted end 10, then "now"
        (1, 10, 4, 10),    # 2: head, needs all 4 nodes
        (20, 5, 2, 5),     # 3: at 20 the shadow is now (20): 25 > 20 and extra = 0 -> waits
    ], 4)
    sim = run(w, "easy")
    assert starts(sim) == {1: (0, 50), 2: (50, 60), 3: (60, 65)}


def test_overrun_kill_terminates_at_the_estimate():
    w = jobs([(0, 50, 2, 10), (1, 10, 4, 10)], 4)
    sim = run(w, "easy", overrun="kill")
    assert starts(sim) == {1: (0, 10), 2: (10, 20)}
    assert sim.jobs[0].status == "killed" and sim.jobs[1].status == "completed"
    result = simulate(w, "easy", overrun="kill")
    assert result.summary["jobs_killed"] == 1
    assert list(result.table["useful_work"]) == [10.0, 10.0]


def test_fcfs_never_overtakes():
    w = jobs([(0, 10, 3, 10), (1, 10, 2, 10), (2, 1, 1, 1)], 4)
    assert starts(run(w, "fcfs")) == {1: (0, 10), 2: (10, 20), 3: (10, 11)}


def test_registry_and_parameter_errors():
    assert {"fcfs", "easy", "conservative"} <= set(scheduler_names())
    with pytest.raises(ConfigError, match="unknown scheduler 'nope'; accepted: .*easy"):
        get_scheduler("nope")
    with pytest.raises(ConfigError, match=r"easy\.bogus: unknown parameter; accepted: requeue"):
        scheduler_factory("easy", {"bogus": "1"})
    with pytest.raises(ConfigError, match=r"easy\.requeue: got 'middle'; accepted: one of "
                                          r"front, order"):
        scheduler_factory("easy", {"requeue": "middle"})


def test_machine_smaller_than_a_job_is_refused():
    with pytest.raises(ConfigError, match="machine_size: job 1 needs 8 nodes"):
        run(jobs([(0, 1, 8, 1)], 8), "easy", machine_size=4)


def test_easy_backfill_ending_exactly_at_the_shadow_time_uses_up_the_extra_nodes():
    # Algorithm 1 recomputed at job 4's arrival sorts job 3 (predicted end 10, started after
    # job 1) behind job 1: the reservation then has no extra node left for job 4.
    w = jobs([
        (0, 10, 2, 10),    # 1
        (1, 10, 3, 10),    # 2: head: shadow 10, extra 1
        (2, 8, 1, 8),      # 3: ends exactly at the shadow time -> backfilled by time
        (3, 100, 1, 100),  # 4: long; no extra node is left once job 3 runs
    ], 4)
    sim = run(w, "easy")
    assert starts(sim) == {1: (0, 10), 2: (10, 20), 3: (2, 10), 4: (10, 110)}
