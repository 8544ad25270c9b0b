"""The availability component: hand-checked schedules (kill, suspend then resume, suspend then
kill, a reboot with the lead hook, maintenance), bad input, and a property: no job holding an
unavailable node makes progress."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import examples, jobs
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ckptsim.components.availability import Availability
from ckptsim.engine.components import Component
from ckptsim.engine.simulator import Simulator
from ckptsim.engine.state import RUNNING
from ckptsim.errors import ConfigError
from ckptsim.platform.description import resolve_platform
from ckptsim.policies.base import scheduler_factory


def sessions(tmp_path: Path, rows: list[tuple[str, float, float]]) -> str:
    path = tmp_path / "owners.csv"
    path.write_text("machine,login,logout\n" + "".join(f"{m},{a},{b}\n" for m, a, b in rows))
    return str(path)


def run(workload, values, *, platform=None, extra=(), scheduler="easy"):
    comp = Availability(Availability.make_params(values))
    sim = Simulator(workload, scheduler_factory(scheduler), platform=platform,
                    components=[comp, *extra], check=True)
    sim.run()
    return sim, comp


def one(sim):
    (job,) = sim.jobs
    return job


def test_an_owner_kills_the_job(tmp_path):
    # One machine, one 100 s job from 0.  The owner sits down at 30 and leaves at 50: the job
    # loses its 30 s, waits, restarts at 50 from scratch and ends at 150.
    w = jobs([(0.0, 100.0, 1, 100.0)], 1)
    sim, comp = run(w, {"owners": sessions(tmp_path, [("machine:0", 30, 50)]),
                        "on_unavailable": "kill"})
    job = one(sim)
    assert (job.start, job.end, job.lost_work, job.n_kills) == (0.0, 150.0, 30.0, 1)
    assert comp.counters()["jobs_killed_unavailable"] == 1


def test_an_owner_suspends_the_job_which_resumes_when_the_owner_leaves(tmp_path):
    # Frozen from 30 to 50 (20 s < max_suspend 600 s): nothing lost, it ends 20 s later, at 120.
    w = jobs([(0.0, 100.0, 1, 100.0)], 1)
    sim, comp = run(w, {"owners": sessions(tmp_path, [("machine:0", 30, 50)])})
    job = one(sim)
    assert (job.start, job.end, job.lost_work, job.n_kills) == (0.0, 120.0, 0.0, 0)
    c = comp.counters()
    assert (c["jobs_suspended"], c["jobs_resumed"], c["jobs_killed_after_suspend"]) == (1, 1, 0)


def test_a_suspended_job_is_killed_after_max_suspend(tmp_path):
    # The owner stays from 30 to 1000: the job waits suspended until 30 + 600 = 630, is killed
    # (30 s lost), and restarts when the owner leaves at 1000: it ends at 1100.
    w = jobs([(0.0, 100.0, 1, 100.0)], 1)
    sim, comp = run(w, {"owners": sessions(tmp_path, [("machine:0", 30, 1000)]),
                        "max_suspend": 600})
    job = one(sim)
    assert (job.end, job.lost_work, job.n_kills) == (1100.0, 30.0, 1)
    c = comp.counters()
    assert (c["jobs_suspended"], c["jobs_resumed"], c["jobs_killed_after_suspend"]) == (1, 0, 1)


def test_a_suspended_job_waits_for_every_one_of_its_machines(tmp_path):
    # A 2-node job; owners on node 0 (30-50) and node 1 (40-70): frozen from 30 to 70, ends at
    # 140.
    w = jobs([(0.0, 100.0, 2, 100.0)], 2)
    sim, _ = run(w, {"owners": sessions(tmp_path, [("machine:0", 30, 50),
                                                   ("machine:1", 40, 70)])})
    assert (one(sim).end, one(sim).lost_work) == (140.0, 0.0)


class Saver(Component):
    """Checkpoints (50 s, then continue) every running job on nodes a known interruption will
    take, when told."""

    name = "saver"

    def __init__(self) -> None:
        super().__init__()
        self.notices: list[tuple[float, int, float, str]] = []

    def before_unavailable(self, now, mask, at, reason):
        self.notices.append((now, mask, at, reason))
        sim = self.sim
        for job in sorted(sim.active.values(), key=lambda j: j.index):
            if job.mask & mask and job.state is RUNNING:
                sim.checkpoint(job, 50.0, then="continue")


def test_a_reboot_kills_the_job_and_the_lead_hook_lets_it_checkpoint_first():
    # Time 0 is midnight; the machine reboots daily at 00:10 (600 s) for 300 s.  A 1000 s job
    # starts at 0.  Without the hook: killed at 600 (600 s lost), restarts at 900, ends 1900.
    w = jobs([(0.0, 1000.0, 1, 1000.0)], 1)
    values = {"reboot": "00:10", "reboot_duration": 300, "days": 1}
    sim, comp = run(w, values)
    assert (one(sim).end, one(sim).lost_work) == (1900.0, 600.0)
    assert comp.counters()["unavailable_notices"] == 0  # nobody listens: no notice events
    # With lead 100 the hook is called at 500: a 50 s checkpoint saves 500 s of work at 550;
    # killed at 600, 50 s lost; restarts at 900 from 500 s: ends at 1400.
    saver = Saver()
    sim, comp = run(w, {**values, "lead": 100}, extra=[saver])
    assert saver.notices == [(500.0, 1, 600.0, "reboot")]
    assert (one(sim).end, one(sim).lost_work, one(sim).overhead) == (1400.0, 50.0, 50.0)
    assert comp.counters()["reboots"] == 1


def test_maintenance_of_one_group_and_reboots_from_the_platform_file(tmp_path):
    path = tmp_path / "two.toml"
    path.write_text('[types.n]\ncores = 2\n[[groups]]\nname = "a"\nmachines = 1\ntype = "n"\n'
                    '[[groups]]\nname = "b"\nmachines = 1\ntype = "n"\nreboot = "00:05"\n')
    # Group b (nodes 2-3) is down for maintenance over [10, 20) and reboots at 300 for 300 s;
    # group a never.  A 2-node job at 0 (on a) runs through.  One at 5 starts on b, is killed
    # by the maintenance at 10 (5 s lost), restarts on b at 20, is killed by b's reboot at 300
    # (280 s lost), and restarts on a at 400 when the first ends: it ends at 1400.
    w = jobs([(0.0, 400.0, 2, 400.0), (5.0, 1000.0, 2, 1000.0)], 4)
    p = resolve_platform(str(path), w)
    sim, comp = run(w, {"maintenance": "10-20@b", "days": 1}, platform=p)
    first, second = sim.jobs
    assert (first.start, first.end) == (0.0, 400.0)
    assert (second.end, second.lost_work, second.n_kills) == (1400.0, 285.0, 2)
    assert comp.counters()["reboots"] == 1


def test_an_avt_trace_on_machines(tmp_path):
    # Two trace nodes: a up over [0, 100) and [150, 400); b up throughout [0, 400).  Machine 0
    # replays a (map=first): down over [100, 150).  A 2-node 200 s job at 0 is killed at 100
    # and restarts at 150: it ends at 350.  A 1-node job (on node 0, the lowest) is killed at
    # 100 and restarts at once on node 1: it ends at 300.
    path = tmp_path / "t.avt"
    path.write_text("# two nodes\na 2 0 100 150 400\nb 1 0 400\n")
    values = {"trace": f"avt:path={path}", "on_unavailable": "kill"}
    sim, _ = run(jobs([(0.0, 200.0, 2, 200.0)], 2), values)
    assert (one(sim).end, one(sim).lost_work) == (350.0, 100.0)
    sim, _ = run(jobs([(0.0, 200.0, 1, 200.0)], 2), values)
    assert (one(sim).end, one(sim).lost_work) == (300.0, 100.0)


@pytest.mark.parametrize("values, key, accepted", [
    ({"on_unavailable": "pause"}, "availability.on_unavailable", "kill, suspend"),
    ({"max_suspend": -1}, "availability.max_suspend", ">= 0"),
    ({"reboot": "5am"}, "availability.reboot", "HH:MM"),
    ({"maintenance": "20-10"}, "availability.maintenance", "START-END"),
    ({"trace": "avt:path=/nonexistent.avt"}, "availability.trace", "no such file"),
    ({"trace": "avt:path=/dev/null,colour=red"}, "availability.trace",
     "accepted: path, map, start"),
    ({"trace": "csv:path=x"}, "availability.trace", "avt:path=FILE"),
    ({"owners": "/nonexistent.csv"}, "availability.owners", "'model' or a session CSV"),
    ({"epoch": "yesterday"}, "availability.epoch", "2010-01-01"),
    ({"lead": -5}, "availability.lead", ">= 0"),
    ({"colour": 1}, "availability", "colour"),
])
def test_bad_parameters_are_refused(values, key, accepted):
    with pytest.raises(ConfigError) as err:
        Availability.make_params(values)
    assert err.value.key.startswith(key) or str(err.value).startswith(key)
    assert accepted in str(err.value)


def test_an_unknown_maintenance_group_is_refused():
    w = jobs([(0.0, 1.0, 1, 1.0)], 2)
    with pytest.raises(ConfigError, match="unknown group 'x'; accepted: machine"):
        run(w, {"maintenance": "0-10@x"})


class NoProgressOnDownNodes(Component):
    """After every pass: a job holding a node out of service does not progress."""

    name = "watch"

    def __init__(self) -> None:
        super().__init__()
        self.checked = 0

    def after_pass(self, now):
        down = self.sim.platform.down_mask
        for job in self.sim.active.values():
            if job.mask & down:
                assert job.rate == 0.0, (now, job)
                self.checked += 1


@settings(max_examples=examples(40))
@given(rows=st.lists(st.tuples(st.integers(0, 200), st.integers(1, 150), st.integers(1, 3)),
                     min_size=1, max_size=8),
       owners=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 400), st.integers(0, 200)),
                       max_size=8),
       mode=st.sampled_from(["kill", "suspend"]), max_suspend=st.sampled_from([0, 30, 600]),
       scheduler=st.sampled_from(["fcfs", "easy", "conservative"]))
def test_no_job_progresses_on_an_unavailable_node(tmp_path_factory, rows, owners, mode,
                                                  max_suspend, scheduler):
    w = jobs([(float(s), float(r), n, float(r)) for s, r, n in rows], 4)
    # Sessions on one machine must not overlap: keep each machine's first of overlapping ones.
    kept: list[tuple[str, float, float]] = []
    for m, a, d in sorted(owners):
        if all(not (x == f"machine:{m}" and a < b) for x, _, b in kept):
            kept.append((f"machine:{m}", float(a), float(a + d)))
    path = sessions(tmp_path_factory.mktemp("o"), kept)
    watch = NoProgressOnDownNodes()
    sim, comp = run(w, {"owners": path, "on_unavailable": mode, "max_suspend": max_suspend},
                    extra=[watch], scheduler=scheduler)
    assert all(j.end is not None for j in sim.jobs)
    for job in sim.jobs:  # work done = the job's runtime, whatever it lost
        assert job.work_done == pytest.approx(job.runtime)
    if mode == "kill":
        assert comp.counters()["jobs_suspended"] == 0


# -- availability traces -----------------------------------------------------------------------
def test_avt_gaps_are_the_unavailability(tmp_path):
    from ckptsim.platform.avt import map_onto, read_avt

    path = tmp_path / "t.avt"
    path.write_text("# c\n\nx 2 10 20 30 50\ny 0\nz 1 0 40\n")
    t = read_avt(path)
    assert (t.names, t.span) == (("x", "y", "z"), 50.0)
    got = list(zip(t.node.tolist(), t.start.tolist(), t.end.tolist(), strict=True))
    # x: down before 10 and between 20 and 30; y: down throughout; z: down after 40.
    assert got == [(0, 0.0, 10.0), (0, 20.0, 30.0), (1, 0.0, 50.0), (2, 40.0, 50.0)]
    m, s, e = map_onto(t, 4, offset=100.0, skip=5.0)  # machine 3 replays x again
    assert list(zip(m.tolist(), s.tolist(), e.tolist(), strict=True)) == [
        (0, 100.0, 105.0), (1, 100.0, 145.0), (3, 100.0, 105.0), (0, 115.0, 125.0),
        (3, 115.0, 125.0), (2, 135.0, 145.0)]
    a = map_onto(t, 2, method="random", seed=7)
    b = map_onto(t, 2, method="random", seed=7)
    assert all((x == y).all() for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("line, field, message", [
    ("x 2 10 20 30", "n", "2 sessions need 4 times"),
    ("x -1", "n", "number of sessions >= 0"),
    ("x 1 10 5", "end_1", "ends before it starts"),
    ("x 2 10 20 15 30", "start_2", "starts before the previous ends"),
    ("x 1 a 5", "start_1", "expected a time >= 0"),
    ("y 1 10 20", "node", "node 'y' is already on line 2: a node's sessions are all on its "
                          "one line"),
    ("x \u0661 10 20", "n", "number of sessions >= 0"),
    ("x 1_0 " + "10 20 " * 10, "n", "number of sessions >= 0"),
])
def test_malformed_avt_lines_are_refused_naming_file_line_field(tmp_path, line, field,
                                                                 message):
    from ckptsim.errors import WorkloadError
    from ckptsim.platform.avt import read_avt

    path = tmp_path / "bad.avt"
    path.write_text(f"# ok\ny 1 0 5\n{line}\n", encoding="utf-8")
    with pytest.raises(WorkloadError) as err:
        read_avt(path)
    assert str(err.value).startswith(f"{path}, line 3, field {field}: ")
    assert message in str(err.value)


def test_the_microsoft_desktop_trace():
    from helpers import TRACES

    from ckptsim.platform.avt import read_avt

    path = TRACES.parent / "failures" / "availability_godfrey" / "microsoft.avt.gz"
    if not path.exists():
        pytest.skip(f"the Microsoft availability trace is not available ({path})")
    t = read_avt(path)
    # Bolosky et al.: 51,662 PCs pinged hourly for 35 days (3,024,000 s); the file lists 51,663.
    assert (t.n_nodes, t.span) == (51_663, 35 * 86_400.0)
    assert (t.end > t.start).all() and (t.end <= t.span).all()


def test_run_identity_names_trace_files_by_their_bytes(tmp_path):
    import hashlib

    path = tmp_path / "t.avt"
    path.write_text("a 1 0 10\n")
    other = tmp_path / "copy.avt"
    other.write_text("a 1 0 10\n")
    ids = [Availability.identity(Availability.make_params({"trace": f"avt:path={p}"}))
           for p in (path, other)]
    assert ids[0] == ids[1]
    assert ids[0]["trace"] == {"kind": "avt", "sha256": hashlib.sha256(b"a 1 0 10\n")
                               .hexdigest()}


@settings(max_examples=examples(30))
@given(rows=st.lists(st.tuples(st.integers(0, 3000), st.integers(1, 2000), st.integers(1, 6)),
                     min_size=1, max_size=8),
       owners=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 4000), st.integers(0, 900)),
                       max_size=6),
       windows=st.lists(st.tuples(st.integers(0, 4000), st.integers(1, 500),
                                  st.sampled_from(["", "@a", "@b"])), max_size=2),
       mode=st.sampled_from(["kill", "suspend"]), lead=st.sampled_from([0, 100]))
# A job suspended by an owner and checkpointed by the saver while suspended (maintenance notice
# at 748): its suspension still expires at 749 and kills it, rather than leaving it at rate 0.
@example(rows=[(0, 832, 5)], owners=[(2, 149, 654)], windows=[(848, 500, "@b")],
         mode="suspend", lead=100)
def test_no_job_progresses_on_an_unavailable_machine_of_a_pool(tmp_path_factory, rows, owners,
                                                               windows, mode, lead):
    """Two-core machines in two groups, one rebooting every day at 00:30 (1800 s) for 300 s,
    with owners and maintenance windows; the invariant checker is on, a saver checkpoints
    ahead of known interruptions."""
    folder = tmp_path_factory.mktemp("p")
    (folder / "p.toml").write_text(
        '[types.d]\ncores = 2\n[[groups]]\nname = "a"\nmachines = 2\ntype = "d"\n'
        '[[groups]]\nname = "b"\nmachines = 1\ntype = "d"\nreboot = "00:30"\n')
    w = jobs([(float(s), float(r), n, float(r)) for s, r, n in rows], 6)
    kept: list[tuple[str, float, float]] = []
    names = ["a:0", "a:1", "b:0"]
    for m, a, d in sorted(owners):
        if all(not (x == names[m] and a < b) for x, _, b in kept):
            kept.append((names[m], float(a), float(a + d)))
    values = {"owners": sessions(folder, kept), "on_unavailable": mode, "lead": lead,
              "maintenance": ";".join(f"{a}-{a + d}{g}" for a, d, g in windows), "days": 2}
    watch = NoProgressOnDownNodes()
    sim, comp = run(w, values, platform=resolve_platform(str(folder / "p.toml"), w),
                    extra=[watch, Saver()])
    for job in sim.jobs:
        assert job.end is not None and job.work_done == pytest.approx(job.runtime)
    # Group b reboots at 1800 and 88,200 (days=2), counted only while the run goes on.
    last = max(job.end for job in sim.jobs)
    assert comp.counters()["reboots"] == sum(t < last for t in (1800.0, 88_200.0))


def test_a_bad_failure_source_is_refused_as_this_component_parameter():
    with pytest.raises(ConfigError) as err:
        Availability.make_params({"failures": "lanl:path=/nonexistent.csv"})
    assert err.value.key == "availability.failures"
    assert "failures.path: no such file" in str(err.value)
    w = jobs([(0.0, 1.0, 1, 1.0)], 2)
    with pytest.raises(ConfigError) as err:  # found when the run loads it
        run(w, {"failures": "synthetic:mtbf=-1"})
    assert err.value.key == "availability.failures"
    assert "failures.mtbf: must be a positive" in str(err.value)


def test_same_seed_same_run():
    from ckptsim.runner import simulate
    from ckptsim.workload.lublin import generate_lublin

    w = generate_lublin(300, machine_size=64, seed=2)
    comps = {"availability": {"owners": "model", "reboot": "03:00-05:00"}}
    a, b = (simulate(w, "easy", platform="grid:clusters=2,nodes=32", components=comps,
                     seed=4, check=True) for _ in range(2))
    c = simulate(w, "easy", platform="grid:clusters=2,nodes=32", components=comps, seed=5)
    assert a.table["end"].tolist() == b.table["end"].tolist()
    assert a.summary == b.summary
    assert a.summary["unavailability_events"] != c.summary["unavailability_events"]


def test_the_policy_hears_of_a_maintenance_window_ahead():
    from ckptsim.policies.easy import Easy

    heard: list[tuple[float, int, float, str]] = []

    class Told(Easy):
        def before_unavailable(self, now, mask, at, reason):
            heard.append((now, mask, at, reason))

    # The job runs into the window (killed at 500, restarted at 600): the run hears of it.
    w = jobs([(0.0, 1000.0, 1, 1000.0)], 3)
    comp = Availability(Availability.make_params({"maintenance": "500-600", "lead": 50}))
    sim = Simulator(w, lambda s: Told(s), components=[comp], check=True)
    sim.run()
    assert heard == [(450.0, 0b111, 500.0, "maintenance")]
    assert comp.counters()["unavailable_notices"] == 1


def test_nothing_is_taken_announced_or_counted_after_the_last_job_ended(tmp_path):
    """The run ends when its last job ends: a reboot, a maintenance window (and its notice) or
    an owner after that is neither applied, nor logged (unavailability.csv), nor counted."""
    # Reboots daily at 00:10 for 300 s over 2 days (600 and 87,000).  The 1000 s job is killed
    # at 600, restarts at 900 and ends at 1900; the maintenance (3000-3100, announced at 2950),
    # the owner (5000-6000) and the second reboot come after that.
    w = jobs([(0.0, 1000.0, 1, 1000.0)], 1)
    values = {"reboot": "00:10", "reboot_duration": 300, "days": 2, "lead": 50,
              "maintenance": "3000-3100",
              "owners": sessions(tmp_path, [("machine:0", 5000, 6000)])}
    saver = Saver()
    comp = Availability(Availability.make_params(values))
    comp.log = []
    sim = Simulator(w, scheduler_factory("easy"), components=[comp, saver], check=True)
    sim.run()
    assert one(sim).end == 1900.0
    assert comp.log == [(600.0, "reboot", "down", 0), (900.0, "reboot", "up", 0)]
    assert saver.notices == [(550.0, 1, 600.0, "reboot")]
    c = comp.counters()
    assert (c["reboots"], c["unavailability_events"], c["unavailable_notices"]) == (1, 1, 1)


def test_a_run_that_outlives_the_owners_and_reboots_says_so(caplog):
    """After `days` the machines are always available: a job ending after it is noted (the
    CLI prints it), one ending within it is not."""
    import logging

    # Reboots daily at 00:10 for 300 s over 1 day; a 100,000 s job outlives the day.
    long = jobs([(0.0, 100_000.0, 1, 100_000.0)], 1)
    with caplog.at_level(logging.INFO, logger="ckptsim"):
        sim, _ = run(long, {"reboot": "00:10", "reboot_duration": 300, "days": 1})
    assert one(sim).end == 100_900.0  # restarted after the reboot, then never stopped
    (record,) = [r for r in caplog.records if r.name.startswith("ckptsim.components")]
    assert record.getMessage().startswith(
        "availability: the last job ended on day 2, after day 1, where the owners and reboots "
        "end")
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="ckptsim"):
        run(jobs([(0.0, 1000.0, 1, 1000.0)], 1), {"reboot": "00:10", "days": 1})
    assert not [r for r in caplog.records if r.name.startswith("ckptsim.components")]


@pytest.mark.parametrize("redraw", ["cluster", "day"])
def test_a_reboot_window_time_is_drawn_once_or_every_day(redraw):
    # One machine reboots in the window 00:10-00:20 (600-1200 s) for 300 s over 3 days; the
    # only job comes at the end of day 2, so every reboot happens.  Day k's reboot is at
    # k days + 600 + 600 u, u the stream `reboots.machine` of the run's seed: its first draw on
    # every day (cluster, the default), or its k-th draw on day k (day).
    from ckptsim.rng import RandomStreams

    day = 86_400.0
    w = jobs([(3 * day - 100.0, 10.0, 1, 10.0)], 1)
    values = {"reboot": "00:10-00:20", "days": 3}
    if redraw != "cluster":
        values["reboot_redraw"] = redraw
    comp = Availability(Availability.make_params(values))
    comp.log = []
    sim = Simulator(w, scheduler_factory("easy"), components=[comp], check=True)
    sim.run()
    u = RandomStreams(sim.seed).stream("reboots.machine").random(3).tolist()
    draws = u if redraw == "day" else [u[0]] * 3
    expected = [k * day + 600.0 + 600.0 * draws[k] for k in range(3)]
    assert [t for t, reason, what, _ in comp.log if what == "down"] == expected
    assert [t for t, reason, what, _ in comp.log if what == "up"] == [t + 300.0 for t in expected]
    assert comp.counters()["reboots"] == 3
    times_of_day = [t - k * day for k, t in enumerate(expected)]
    assert (max(times_of_day) - min(times_of_day) > 1.0) == (redraw == "day")


def test_owners_model_takes_the_user_model_parameters():
    # One machine, 2 days from Monday 4 January 2010 (term), one 100 s job at 20:00 of day 1.
    # With owners=model:peak_rate=0 no user ever comes: the job runs 72,000-72,100.  With all
    # arrivals in 06:00-07:00, none bunched before the hour and 600 s sessions, every owner
    # takes the machine within [6 h, 7 h) of a day and leaves 600 s later.
    w = jobs([(72_000.0, 100.0, 1, 100.0)], 1)
    base = {"epoch": "2010-01-04", "days": 2}
    sim, comp = run(w, {**base, "owners": "model:peak_rate=0"})
    assert (one(sim).start, one(sim).end) == (72_000.0, 72_100.0)
    assert comp.counters()["unavailability_events"] == 0
    hourly = "/".join("1" if h == 6 else "0" for h in range(24))
    values = {**base, "owners": f"model:peak_rate=2,hourly={hourly},boundary_share=0,"
                                f"session=fixed:value=600"}
    comp = Availability(Availability.make_params(values))
    comp.log = []
    sim = Simulator(w, scheduler_factory("easy"), components=[comp], check=True)
    sim.run()
    downs = [t for t, reason, what, _ in comp.log if reason == "owner" and what == "down"]
    ups = [t for t, reason, what, _ in comp.log if reason == "owner" and what == "up"]
    assert downs and all(6 * 3600 <= t % 86_400 < 7 * 3600 for t in downs)
    assert all(b - a == 600.0 for a, b in zip(downs, ups, strict=True))
    assert (one(sim).start, one(sim).end) == (72_000.0, 72_100.0)


def test_the_owners_model_is_keyed_by_the_parameters_that_differ_from_its_defaults():
    ident = [Availability.identity(Availability.make_params({"owners": o})) for o in
             ("model", "model:peak_rate=0.4,saturday=0.35", "model:saturday=0.3")]
    assert ident[0] == ident[1] == {**ident[0], "owners": "model"}
    assert ident[2]["owners"] == "model:saturday=0.3"
