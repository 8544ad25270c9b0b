"""Migration: one verb moving jobs to new nodes, on schedules small enough to check by hand."""

from __future__ import annotations

import pytest
from helpers import inject_failures, jobs, scripted

from ckptsim.engine.state import JobState
from ckptsim.errors import DecisionError


def one_job(runtime: float = 100.0, size: int = 2, machine: int = 4):
    return jobs([(0.0, runtime, size, runtime)], machine)


def start_at(t, job_id=1, **kw):
    return (t, lambda sim, js: sim.start(js[job_id], **kw))


def test_kill_during_a_migration_frees_both_node_sets():
    # Job 1 runs on nodes 0-1 from 0; at 20 it starts moving to nodes 2-3 (4 s, holding both
    # sets; its 20 s of progress are saved); a failure kills it at 22.  Both node sets are free
    # again (4 nodes), the move was charged 2 s of overhead, nothing is lost, and it restarts
    # at 30 with 80 s of work left: it ends at 110.
    seen = {}

    def move(sim, js):
        sim.migrate((js[1], 0b1100), 4.0, hold_source=True)

    def fail(sim, js):
        sim.kill(js[1], "failure")
        seen.update(free=sim.platform.n_free, mask=sim.platform.free_mask,
                    state=js[1].state)

    sim = scripted(one_job(), [start_at(0), (20, move), (22, fail), start_at(30)]).run()
    j = sim.jobs[0]
    assert seen == {"free": 4, "mask": 0b1111, "state": JobState.QUEUED}
    assert j.lost_work == 0.0 and j.overhead == 2.0 and j.n_migrations == 1
    assert j.end == 110.0 and j.segments == [(0.0, 20.0), (20.0, 22.0), (30.0, 110.0)]
    assert sim.platform.n_free == 4


def test_failure_at_the_instant_a_move_completes_finds_it_still_moving():
    # A plain move (not holding the source) from 20 to 24; a failure of node 2 at 24 comes
    # before the move's completion (failures before overhead completions): the job is killed
    # while MIGRATING, the move is charged in full (4 s), nothing of the 20 s saved at the move
    # is lost, on_migrated never comes; restarted at 30 it ends at 110.
    sim = scripted(one_job(), [start_at(0),
                               (20, lambda s, js: s.migrate([(js[1], 0b1100)], 4.0)),
                               start_at(30)])
    inject_failures(sim, [24.0], [2])
    sim.run()
    j = sim.jobs[0]
    assert j.overhead == 4.0 and j.lost_work == 0.0 and j.n_kills == 1
    assert j.n_migrations == 1 and j.end == 110.0
    assert j.segments == [(0.0, 20.0), (20.0, 24.0), (30.0, 110.0)]
    assert not any(entry[0] == "migrated" for entry in sim.policy.log)


@pytest.mark.parametrize("duration", [0.0, 4.0])
def test_a_move_that_saves_nothing_leaves_the_saved_progress_as_it_was(duration):
    # save=False: the move at 20 keeps nothing of the job's 20 s.  Killed at 30 (after a 4 s
    # move, 26 s of work done, or 30 s without it), it loses all of it and restarts at 40
    # from the beginning: 100 s more, to 140 (save=True would keep the 20 s: to 120).
    sim = scripted(one_job(), [start_at(0),
                               (20, lambda s, js: s.migrate([(js[1], 0b1100)], duration,
                                                            save=False)),
                               (30, lambda s, js: s.kill(js[1], "failure")), start_at(40)])
    sim.run()
    j = sim.jobs[0]
    assert j.work_saved == 0.0 and j.n_migrations == 1 and j.n_kills == 1
    assert j.lost_work == 30.0 - duration and j.end == 140.0


def test_jobs_swap_places_and_a_move_in_flight_can_be_replaced():
    # Jobs 1 (nodes 0-1) and 2 (nodes 2-3) swap at 10 (5 s each); at 12 job 1 is moved again,
    # to nodes 4-5: its first move is cut (2 s charged), the new one takes 5 s.  Job 1 ends at
    # 12 + 5 + 90 = 107, job 2 at 15 + 90 = 105.
    w = jobs([(0.0, 100.0, 2, 100.0), (0.0, 100.0, 2, 100.0)], 6)
    sim = scripted(w, [
        (0, lambda s, js: (s.start(js[1]), s.start(js[2]))),
        (10, lambda s, js: s.migrate([(js[1], 0b001100), (js[2], 0b000011)], 5.0)),
        (12, lambda s, js: s.migrate([(js[1], 0b110000)], 5.0)),
    ]).run()
    j1, j2 = sim.jobs
    assert (j1.end, j1.overhead, j1.n_migrations) == (107.0, 7.0, 2)
    assert (j2.end, j2.overhead, j2.n_migrations) == (105.0, 5.0, 1)
    assert [e for e in sim.policy.log if e[0] == "migrated"] == [("migrated", 15.0, 2),
                                                                  ("migrated", 17.0, 1)]


def test_a_zero_length_move_is_done_before_migrate_returns():
    seen = {}

    def move(sim, js):
        sim.migrate((js[1], 0b1100))
        seen.update(state=js[1].state, log=list(sim.policy.log))

    sim = scripted(one_job(), [start_at(0), (20, move)]).run()
    assert seen == {"state": JobState.RUNNING, "log": [("migrated", 20.0, 1)]}
    assert sim.jobs[0].end == 100.0 and sim.jobs[0].segments == [(0.0, 20.0), (20.0, 100.0)]


def test_bad_moves_are_refused():
    w = jobs([(0.0, 100.0, 2, 100.0), (0.0, 100.0, 2, 100.0)], 4)

    def run(action):
        scripted(w, [(0, lambda s, js: (s.start(js[1]), s.start(js[2]))), (5, action)]).run()

    with pytest.raises(DecisionError, match="neither free nor vacated"):
        run(lambda s, js: s.migrate([(js[1], 0b1100)]))
    with pytest.raises(DecisionError, match="job 1 .*targets overlap"):
        run(lambda s, js: s.migrate([(js[2], 0b0011), (js[1], 0b0011)]))
    with pytest.raises(DecisionError, match="target has 1 nodes but the job needs 2"):
        run(lambda s, js: s.migrate([(js[1], 0b0001)]))
    with pytest.raises(DecisionError, match="target nodes are not free"):
        run(lambda s, js: s.migrate([(js[1], 0b0110)], 3.0, hold_source=True))
    with pytest.raises(DecisionError, match="moved twice"):
        run(lambda s, js: s.migrate([(js[1], 0b0011), (js[1], 0b0011)]))
