"""The job state machine, transition by transition, on schedules small enough to check by hand."""

from __future__ import annotations

import pytest
from helpers import jobs, scripted

from ckptsim.engine.state import TRANSITIONS, JobState
from ckptsim.errors import DecisionError, InvariantError


def one_job(runtime: float = 100.0, estimate: float | None = None, size: int = 2,
            machine: int = 4):
    return jobs([(0.0, runtime, size, runtime if estimate is None else estimate)], machine)


def start_at(t, job_id=1, **kw):
    return (t, lambda sim, js: sim.start(js[job_id], **kw))


def test_queued_running_done():
    sim = scripted(one_job(), [start_at(0)]).run()
    j = sim.jobs[0]
    assert (j.state, j.status, j.start, j.end) == (JobState.DONE, "completed", 0.0, 100.0)
    assert j.work_done == 100.0 and j.wait == 0.0 and j.segments == [(0.0, 100.0)]
    assert sim.platform.n_free == 4


def test_start_later_counts_wait_and_uses_lowest_free_nodes():
    sim = scripted(one_job(), [start_at(7)])
    sim.run()
    j = sim.jobs[0]
    assert (j.start, j.end, j.wait) == (7.0, 107.0, 7.0)


def test_first_fit_lowest_ids():
    w = jobs([(0, 10, 1, 10), (0, 10, 2, 10)], 4)
    masks = {}

    def go(sim, js):
        sim.start(js[1])
        sim.start(js[2])
        masks.update({1: js[1].mask, 2: js[2].mask})

    scripted(w, [(0, go)]).run()
    assert masks == {1: 0b0001, 2: 0b0110}


def test_checkpoint_then_requeue_and_restart_with_overhead():
    def ckpt(sim, js):
        sim.checkpoint(js[1], 5.0, then="requeue")

    sim = scripted(one_job(), [start_at(0), (30, ckpt), start_at(40, overhead=3.0)])
    policy = sim.policy
    sim.run()
    j = sim.jobs[0]
    # 30 s of work saved; checkpoint holds the nodes 30-35; waits 35-40; restart overhead 40-43;
    # the remaining 70 s of work end at 113.
    assert j.end == 113.0 and j.state == JobState.DONE
    assert j.work_saved == 30.0 and j.n_checkpoints == 1 and j.n_preemptions == 1
    assert j.n_restarts == 1 and j.overhead == 8.0 and j.lost_work == 0.0
    assert j.wait == 5.0
    assert j.segments == [(0.0, 35.0), (40.0, 113.0)]
    assert ("checkpointed", 35.0, 1) in policy.log and ("requeue", 35.0, 1, "checkpoint") in \
        policy.log


def test_checkpoint_continue_keeps_nodes():
    def ckpt(sim, js):
        sim.checkpoint(js[1], 5.0, then="continue")

    sim = scripted(one_job(), [start_at(0), (30, ckpt)]).run()
    j = sim.jobs[0]
    assert j.end == 105.0 and j.segments == [(0.0, 105.0)] and j.work_saved == 30.0
    assert j.n_checkpoints == 1 and j.n_preemptions == 0


def test_checkpoint_suspend_then_resume():
    seen = {}

    def ckpt(sim, js):
        sim.checkpoint(js[1], 10.0, then="suspend")

    def look(sim, js):
        seen["state"] = js[1].state
        seen["free"] = sim.platform.n_free

    sim = scripted(one_job(), [start_at(0), (20, ckpt), (31, look), start_at(50)]).run()
    j = sim.jobs[0]
    assert seen == {"state": JobState.SUSPENDED, "free": 4}
    assert j.end == 130.0 and j.wait == 20.0 and j.overhead == 10.0


def test_failure_kill_loses_unsaved_work_and_requeues():
    def fail(sim, js):
        sim.kill(js[1], "failure")

    sim = scripted(one_job(), [start_at(0), (30, fail), start_at(30)])
    sim.run()
    j = sim.jobs[0]
    assert j.end == 130.0 and j.lost_work == 30.0 and j.n_kills == 1
    assert ("requeue", 30.0, 1, "failure") in sim.policy.log


def test_kill_after_checkpoint_rolls_back_to_saved_work():
    def ckpt(sim, js):
        sim.checkpoint(js[1], 0.0, then="continue")

    def fail(sim, js):
        sim.kill(js[1], "eviction")

    sim = scripted(one_job(), [start_at(0), (30, ckpt), (50, fail), start_at(60)]).run()
    j = sim.jobs[0]
    # Saved 30 s; lost 20 s; resumes at 60 with 70 s left.
    assert j.lost_work == 20.0 and j.work_saved == 30.0 and j.end == 130.0


def test_save_progress_records_a_save_without_an_overhead_and_a_kill_rolls_back_to_it():
    def save(sim, js):
        sim.save_progress(js[1], 25.0)
        sim.save_progress(js[1], 10.0)  # below the progress saved: that one stays

    def too_much(sim, js):
        with pytest.raises(DecisionError, match=r"job 1 .*at most its progress now \(40\)"):
            sim.save_progress(js[1], 41.0)

    def fail(sim, js):
        sim.kill(js[1], "eviction")

    sim = scripted(one_job(), [start_at(0), (30, save), (40, too_much), (50, fail),
                               start_at(60)]).run()
    j = sim.jobs[0]
    # Saved 25 s at 30 with no pause (two checkpoints counted); lost 25 s at 50; resumes at 60
    # with 75 s left.
    assert (j.work_saved, j.lost_work, j.overhead, j.end) == (25.0, 25.0, 0.0, 135.0)
    assert j.n_checkpoints == 2


def test_kill_during_checkpoint_loses_it_and_charges_elapsed_overhead_only():
    def ckpt(sim, js):
        sim.checkpoint(js[1], 10.0, then="requeue")

    def fail(sim, js):
        sim.kill(js[1], "failure")

    sim = scripted(one_job(), [start_at(0), (30, ckpt), (34, fail), start_at(40)]).run()
    j = sim.jobs[0]
    assert j.work_saved == 0.0 and j.n_checkpoints == 0
    assert j.overhead == 4.0 and j.lost_work == 30.0 and j.end == 140.0


def test_kill_during_restart_overhead_charges_elapsed_part():
    def fail(sim, js):
        sim.kill(js[1], "failure")

    sim = scripted(one_job(), [start_at(0, overhead=10.0), (4, fail), start_at(4)]).run()
    j = sim.jobs[0]
    assert j.overhead == 4.0 and j.lost_work == 0.0 and j.end == 104.0


def test_kill_without_requeue_is_terminal():
    def fail(sim, js):
        sim.kill(js[1], "failure", requeue=False)

    sim = scripted(one_job(), [start_at(0), (30, fail)]).run()
    j = sim.jobs[0]
    assert (j.state, j.status, j.end) == (JobState.KILLED, "failure", 30.0)
    assert sim.n_ended == 1


def test_migration_holds_both_node_sets_then_moves():
    seen = {}

    def move(sim, js):
        sim.migrate((js[1], 0b1100), 4.0, hold_source=True)

    def look(sim, js):
        seen["mask"] = js[1].mask
        seen["free"] = sim.platform.n_free

    sim = scripted(one_job(), [start_at(0), (20, move), (22, look)]).run()
    j = sim.jobs[0]
    assert seen == {"mask": 0b1111, "free": 0}
    assert j.mask == 0 and j.n_migrations == 1 and j.work_saved == 20.0
    assert j.end == 104.0 and j.segments == [(0.0, 20.0), (20.0, 104.0)]
    assert ("migrated", 24.0, 1) in sim.policy.log


def test_rate_change_moves_the_end():
    def slow(sim, js):
        sim.set_rate(js[1], 0.5)

    def freeze(sim, js):
        sim.set_rate(js[1], 0.0)

    def thaw(sim, js):
        sim.set_rate(js[1], 1.0)

    # 10 s at rate 1, 20 s at 0.5 (10 s of work), frozen 30-50, then 80 s left at rate 1.
    sim = scripted(one_job(), [start_at(0), (10, slow), (30, freeze), (50, thaw)]).run()
    assert sim.jobs[0].end == 130.0


def test_overrun_extend_and_kill():
    w = one_job(runtime=20, estimate=10)
    ext = scripted(w, [start_at(0)]).run().jobs[0]
    assert (ext.end, ext.status) == (20.0, "completed")
    kill = scripted(w, [start_at(0)], overrun="kill").run().jobs[0]
    assert (kill.end, kill.status, kill.state, kill.work_done) == (10.0, "killed",
                                                                   JobState.KILLED, 10.0)


@pytest.mark.parametrize("verb", ["checkpoint", "kill", "migrate", "set_rate", "save_progress"])
def test_verbs_on_a_queued_job_are_refused(verb):
    def act(sim, js):
        if verb == "migrate":
            sim.migrate([(js[1], 0b11)])
            return
        args = {"checkpoint": (1.0,), "kill": (), "set_rate": (0.5,), "save_progress": (0.0,)}[verb]
        getattr(sim, verb)(js[1], *args)

    with pytest.raises(DecisionError, match=r"job 1 .*QUEUED"):
        scripted(one_job(), [(0, act)]).run()


def test_start_errors_name_the_job_and_reason():
    w = jobs([(0, 10, 3, 10), (5, 10, 2, 10)], 4)
    with pytest.raises(DecisionError, match="job 2 at t=0: start at 0 before its submission"):
        scripted(w, [start_at(0, job_id=2)]).run()
    with pytest.raises(DecisionError, match="job 1 .*needs 3 nodes but only"):
        scripted(w, [start_at(5, job_id=2), start_at(6, job_id=1)]).run()
    with pytest.raises(DecisionError, match="job 1 .*given 2 nodes but needs 3"):
        scripted(w, [start_at(0, mask=0b11)]).run()

    def twice(sim, js):
        sim.start(js[1])
        sim.start(js[1])

    with pytest.raises(DecisionError, match="job 1 .*cannot start a job that is RUNNING"):
        scripted(w, [(0, twice)]).run()

    def busy(sim, js):
        sim.start(js[1])
        sim.start(js[2], mask=0b0011)

    with pytest.raises(DecisionError, match=r"job 2 .*nodes \[0, 1\] are not free"):
        scripted(w, [(5, busy)]).run()


def test_timers_in_the_past_and_cancelled():
    fired = []

    def past(sim, js):
        sim.wake_at(sim.now - 1, None)

    with pytest.raises(DecisionError, match="in the past"):
        scripted(one_job(), [(5, past), start_at(5)]).run()

    def plan(sim, js):
        handle = sim.wake_at(50, lambda s, j: fired.append("x"))
        sim.cancel_timer(handle)

    scripted(one_job(), [(1, plan), start_at(1)]).run()
    assert fired == []


def test_stalled_run_is_an_error():
    with pytest.raises(InvariantError, match="1 job\\(s\\) unfinished"):
        scripted(one_job(), []).run()


def test_transition_table_covers_the_verbs():
    assert JobState.RUNNING in TRANSITIONS[JobState.QUEUED]
    assert JobState.RUNNING in TRANSITIONS[JobState.SUSPENDED]
    assert {JobState.QUEUED, JobState.SUSPENDED, JobState.RUNNING} <= \
        TRANSITIONS[JobState.CHECKPOINTING]
    assert TRANSITIONS[JobState.DONE] == frozenset() == TRANSITIONS[JobState.KILLED]


def test_every_state_change_is_checked_against_the_transitions(monkeypatch):
    from ckptsim.engine import phases, simulator, state, verbs

    for target in ("QUEUED", "RUNNING", "DONE", "KILLED"):
        table = getattr(state, f"TO_{target}")
        assert table == tuple(JobState[target] in TRANSITIONS[s] for s in JobState)
    job = one_job()
    sim = scripted(job, [start_at(0)])
    with pytest.raises(InvariantError, match="DONE -> RUNNING is not a transition"):
        object.__setattr__(sim.jobs[0], "state", JobState.DONE)  # as the engine's code would
        state.move(sim.jobs[0], JobState.RUNNING)
    # The inlined tests of the hot paths use the same tables.
    for module, name, match in ((verbs, "TO_RUNNING", "QUEUED -> RUNNING"),
                                (phases, "TO_DONE", "RUNNING -> DONE"),
                                (simulator, "TO_QUEUED", "PENDING -> QUEUED")):
        with monkeypatch.context() as m:
            m.setattr(module, name, (False,) * len(JobState))
            with pytest.raises(InvariantError, match=match):
                scripted(one_job(), [start_at(0)]).run()
