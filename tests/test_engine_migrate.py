"""Migration: one verb moving jobs to new nodes, on schedules small enough to check by hand."""

from __future__ import annotations

from helpers import jobs, scripted

from ckptsim.engine.state import JobState


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
        seen.update(free=sim.cluster.n_free, mask=sim.cluster.free_mask,
                    state=js[1].state)

    sim = scripted(one_job(), [start_at(0), (20, move), (22, fail), start_at(30)]).run()
    j = sim.jobs[0]
    assert seen == {"free": 4, "mask": 0b1111, "state": JobState.QUEUED}
    assert j.lost_work == 0.0 and j.overhead == 2.0 and j.n_migrations == 1
    assert j.end == 110.0 and j.segments == [(0.0, 20.0), (20.0, 22.0), (30.0, 110.0)]
    assert sim.cluster.n_free == 4
