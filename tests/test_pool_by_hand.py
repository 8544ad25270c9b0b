"""Seed 003's pool, step by step on tiny platforms: where the `htc` scheduler places a job and
a requeued one, Scheduled's migration before a reboot, ClusterOpening, ClosedCluster and
Interarrival over a day, the 24 h bound, and the seed's metrics (task overhead, evictions,
wasted CPU time, checkpoint utilisation, the benefit of eq. 5) of a tiny run.  Each expected
value is worked out by hand from the seed's rule in the comment above it (seed 003 sections
3.2, 3.3, 4.1, 4.3, 4.4 and 5.1; SPEC_ADDENDUM 6.3 where the seed is silent), not read off the
code.  Time 0 is Friday 2010-01-01 00:00; 03:00 = 10800, 08:00 = 28800, 18:00 = 64800."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from helpers import jobs

from ckptsim.cli import main
from ckptsim.components import Component
from ckptsim.metrics.htc import benefit
from ckptsim.rng import RandomStreams
from ckptsim.runner import simulate


class Starts(Component):
    """Notes (job id, time, node mask) at each start and the time each checkpoint begins."""

    name = "starts"

    def attach(self, sim):
        super().attach(sim)
        self.starts: list[tuple[int, float, int]] = []
        self.begins: list[tuple[int, float]] = []

    def on_start(self, job):
        self.starts.append((job.id, self.sim.now, job.mask))

    def on_checkpoint(self, job):
        self.begins.append((job.id, self.sim.now))


def platform(tmp_path: Path, groups: list[dict], types: dict | None = None) -> str:
    """A platform file: `types` {name: (cores, active, idle)} (default one 1-core `pc`),
    `groups` [{name, machines, type, hours?, reboot?}]."""
    types = types or {"pc": (1, 100, 40)}
    text = ""
    for name, (cores, active, idle) in types.items():
        text += (f"[types.{name}]\ncores = {cores}\n"
                 f"power = {{ active = {active}, idle = {idle}, sleep = 2 }}\n\n")
    for g in groups:
        text += "[[groups]]\n" + "".join(
            f"{k} = {json.dumps(v)}\n" for k, v in {"type": "pc", **g}.items()) + "\n"
    path = tmp_path / "pool.toml"
    path.write_text(text)
    return str(path)


def sessions(tmp_path: Path, rows: list[tuple[str, float, float]]) -> str:
    path = tmp_path / "owners.csv"
    path.write_text("machine,login,logout\n" + "".join(f"{m},{a},{b}\n" for m, a, b in rows))
    return str(path)


def run(rows, plat: str, *, params=None, comps=None, checkpoint=None, seed=0):
    spy = Starts()
    r = simulate(jobs(rows, 1), "htc", params or {}, platform=plat, check=True, seed=seed,
                 components=comps or {}, checkpoint=checkpoint, recorders=[spy])
    return r, spy


def nodes(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


# --- the htc scheduler (seed 3.2: "a random resource allocation strategy") --------------------

def test_first_placement_is_fcfs_with_ties_by_submission_order(tmp_path):
    # Two 1-core machines (nodes 0, 1), placement=first: the lowest free core.  Jobs 1, 2, 3
    # all at 0 (a tie: trace order), runtimes 100, 300, 50: 1 on node 0 [0, 100), 2 on node 1
    # [0, 300) (the machine exactly full), 3 waits for the first core free, node 0 at 100:
    # [100, 150).  Job 4 at 150, exactly when node 0 frees again: it starts at once, node 0.
    plat = platform(tmp_path, [{"name": "lab", "machines": 2}])
    r, spy = run([(0, 100, 1, 100), (0, 300, 1, 300), (0, 50, 1, 50), (150, 10, 1, 10)],
                 plat, params={"placement": "first"})
    assert [(j, t, nodes(m)) for j, t, m in spy.starts] == \
        [(1, 0, [0]), (2, 0, [1]), (3, 100, [0]), (4, 150, [0])]
    assert list(r.table["end"]) == [100, 300, 150, 160]


def test_random_placement_draws_uniformly_among_free_cores_and_again_on_requeue(tmp_path):
    # A 2-core machine `a` (nodes 0, 1) and a 1-core `b` (node 2).  Random placement: the
    # k-th free core, k = floor(u * n_free), u the next uniform of the stream
    # policy.placement of the run's seed (one draw per placed core, in placement order).
    # Job 1 at 0: 3 free cores, k = floor(u0 * 3).  Its machine's owner logs in at 1000 and
    # (on_unavailable = kill) evicts it; the requeued job draws again, u1, among the free
    # cores left: those of the other machine.
    plat = platform(tmp_path, [{"name": "a", "machines": 1, "type": "duo"},
                               {"name": "b", "machines": 1, "type": "pc"}],
                    types={"duo": (2, 100, 40), "pc": (1, 100, 40)})
    for seed in range(6):
        u = RandomStreams(seed).stream("policy.placement").random(2)
        first = int(u[0] * 3)
        machine = "a:0" if first < 2 else "b:0"
        free = [2] if first < 2 else [0, 1]
        second = free[int(u[1] * len(free))]
        r, spy = run([(0, 5000, 1, 5000)], plat, seed=seed, comps={
            "availability": {"owners": sessions(tmp_path, [(machine, 1000, 9000)]),
                             "on_unavailable": "kill"}})
        assert [(t, nodes(m)) for _, t, m in spy.starts] == [(0, [first]), (1000, [second])]
        # Evicted at 1000 with no checkpoint: 1000 s lost, 5000 s again from 1000.
        assert (r.table["end"][0], r.table["lost_work"][0]) == (6000, 1000)


def test_random_placement_over_machines_draws_a_machine_then_its_lowest_free_core(tmp_path):
    # random_over=machines: each core's machine uniformly among the machines with a free
    # core, m = floor(u * n_machines) in machine order, then that machine's lowest free core;
    # u the next uniform of the stream policy.placement of the run's seed, as for cores.
    # A 2-core machine `a` (nodes 0, 1), 1-core `b` (node 2) and `c` (node 3).  Jobs 1 and 2
    # at 0 (5000 s each): job 1 among a, b, c; job 2 among the three again when job 1 took
    # one of a's two cores (a still has one free: as likely as b or c, where over cores it
    # would be half as likely as a with two).  c's owner logs in at 1000 (kill): a job on c
    # loses its 1000 s and draws again among the machines with a free core, c held.
    plat = platform(tmp_path, [{"name": "a", "machines": 1, "type": "duo"},
                               {"name": "b", "machines": 1, "type": "pc"},
                               {"name": "c", "machines": 1, "type": "pc"}],
                    types={"duo": (2, 100, 40), "pc": (1, 100, 40)})
    owners = sessions(tmp_path, [("c:0", 1000, 9000)])
    seen = set()
    for seed in range(30):  # seed 29 puts both jobs on a
        u = iter(RandomStreams(seed).stream("policy.placement").random(3))
        free = {"a": [0, 1], "b": [2], "c": [3]}

        def place(free=free, u=u):
            machines = [m for m in free if free[m]]
            machine = machines[int(next(u) * len(machines))]
            return machine, free[machine].pop(0)

        (m1, c1), (m2, c2) = place(), place()
        expected = [(1, 0, [c1]), (2, 0, [c2])]
        free["c"] = []  # held by its owner from 1000
        for job, m in ((1, m1), (2, m2)):
            if m == "c":
                expected.append((job, 1000, [place()[1]]))
        seen.add((m1, m2))
        r, spy = run([(0, 5000, 1, 5000), (0, 5000, 1, 5000)], plat, seed=seed,
                     params={"random_over": "machines"},
                     comps={"availability": {"owners": owners, "on_unavailable": "kill"}})
        assert [(j, t, nodes(m)) for j, t, m in spy.starts] == expected
        assert sorted(r.table["lost_work"]) == ([0, 1000] if "c" in (m1, m2) else [0, 0])
    assert ("a", "a") in seen and "c" in {m for pair in seen for m in pair}


def test_efficient_placement_prefers_efficient_then_awake_machines(tmp_path):
    # placement=efficient (Newcastle: "prefers power-efficient, already-awake machines",
    # SPEC_ADDENDUM 6.2): classes by active watts per core, then idle per core.  `hog`
    # (nodes 0, 1): 100 W; `eco` (node 2): 50 W, the most efficient.  A power manager puts a
    # machine idle for 900 s to sleep; wake latency 0.
    # Job 1 at 0 (2000 s): eco, node 2.  Job 2 at 0 (5000 s): hog:0, node 0.  Job 3 at 0
    # (3100 s): hog:1, node 1.  eco idles from 2000, asleep at 2900; hog:1 idles from 3100.
    # Job 4 at 3500: eco is asleep, hog:1 awake and free: node 1.  Job 5 at 9000: every
    # machine asleep (hog:0 since 5900, hog:1 since 3600 + 900 = 4500): the best class, eco.
    plat = platform(tmp_path, [{"name": "h", "machines": 2, "type": "hog"},
                               {"name": "e", "machines": 1, "type": "eco"}],
                    types={"hog": (1, 100, 40), "eco": (1, 50, 30)})
    rows = [(0, 2000, 1, 2000), (0, 5000, 1, 5000), (0, 3100, 1, 3100), (3500, 100, 1, 100),
            (9000, 100, 1, 100)]
    _, spy = run(rows, plat, params={"placement": "efficient"},
                 comps={"energy": {}, "power": {"idle_timeout": 900}})
    assert [(j, t, nodes(m)) for j, t, m in spy.starts] == \
        [(1, 0, [2]), (2, 0, [0]), (3, 0, [1]), (4, 3500, [1]), (5, 9000, [2])]


# --- Scheduled (seed 4.4): checkpoint and move before an announced reboot --------------------

def test_scheduled_moves_a_job_to_the_cluster_not_rebooting_and_back(tmp_path):
    # Cluster `a` reboots at 03:00 (10800), `b` at 05:00 (18000), 300 s each, announced
    # lead = 600 s ahead.  Scheduled (cost = restart = 100, margin 1): the checkpoint ends
    # 1 s before the reboot, over [10699, 10799], 10699 s saved; `a` is drained from the
    # notice (10200), so the requeued job goes to `b` (node 1) at 10799, restarts (R = 100)
    # to 10899.  Before b's reboot: over [17899, 17999], saved 10699 + (17899 - 10899) =
    # 17699; at 17999 `a` is back (since 11100): node 0, R to 18099, 20000 - 17699 = 2301
    # left: the end at 20400.  Two proactive checkpoints, both used, nothing lost.
    plat = platform(tmp_path, [{"name": "a", "machines": 1, "reboot": "03:00"},
                               {"name": "b", "machines": 1, "reboot": "05:00"}])
    r, spy = run([(0, 20000, 1, 20000)], plat, comps={"availability": {"lead": 600}},
                 checkpoint="scheduled:cost=100")
    assert [t for _, t in spy.begins] == [10699, 17899]
    assert [(t, nodes(m)) for _, t, m in spy.starts] == [(0, [0]), (10799, [1]), (17999, [0])]
    assert (r.table["end"][0], r.table["lost_work"][0]) == (20400, 0)
    s = r.summary
    assert (s["proactive_checkpoints"], s["proactive_migrations"], s["checkpoints_used"]) == \
        (2, 2, 2)
    assert s["evictions"] == 0


def test_scheduled_a_job_starting_after_the_notice(tmp_path):
    # `a` (node 0) reboots at 03:00 (10800), `b` (node 1) at 05:00; notice 600 s ahead
    # (10200).  One job from 10750, 1000 s.  drain=true (the default): `a` is held out of
    # service since 10200: the job starts on b:0 at 10750 and ends at 11750, no checkpoint.
    # drain=false: it starts on a:0 (the lowest free core), after its checkpoint should
    # have begun (10699): it begins at once, over [10750, 10850), and the reboot at 10800
    # cuts it: 50 s of checkpoint wasted, no work done, nothing saved; requeued at 10800,
    # `a` is down: b:0 at 10800, from scratch: the end at 11800.
    plat = platform(tmp_path, [{"name": "a", "machines": 1, "reboot": "03:00"},
                               {"name": "b", "machines": 1, "reboot": "05:00"}])
    for drain, starts, end, cut in ((True, [(10750, [1])], 11750, 0),
                                    (False, [(10750, [0]), (10800, [1])], 11800, 50)):
        r, spy = run([(10750, 1000, 1, 1000)], plat, params={"placement": "first"},
                     comps={"availability": {"lead": 600}},
                     checkpoint=f"scheduled:cost=100,drain={str(drain).lower()}")
        assert [(t, nodes(m)) for _, t, m in spy.starts] == starts
        assert [t for _, t in spy.begins] == ([] if drain else [10750])
        assert (r.table["end"][0], r.table["lost_work"][0]) == (end, 0)
        assert r.summary["checkpoint_interrupted_s"] == cut


# --- ClusterOpening (seed 4.4) --------------------------------------------------------------

def test_clusteropening_checkpoints_just_before_opening_or_waits_a_day(tmp_path):
    # Lab open daily 08:00-18:00 (28800-64800), two 1-core machines, cost 100,
    # then=continue.  Job 1 from 07:00 (25200), 10000 s: checkpoint over [28700, 28800],
    # then on: the end at 25200 + 10000 + 100 = 35300.  Job 2 starts at 28750: a checkpoint
    # before 28800 cannot fit (28700 < 28750): the next opening, 08:00 the next day
    # (115200), is after its end (28750 + 3000): no checkpoint.
    plat = platform(tmp_path, [{"name": "lab", "machines": 2, "hours": "daily 08:00-18:00"}])
    r, spy = run([(25200, 10000, 1, 10000), (28750, 3000, 1, 3000)], plat,
                 checkpoint="clusteropening:cost=100")
    assert spy.begins == [(1, 28700)]
    assert list(r.table["end"]) == [35300, 31750]
    assert list(r.table["n_checkpoints"]) == [1, 0]


# --- ClosedCluster and Interarrival (seed 4.3) over a day -----------------------------------

def test_closedcluster_over_a_day_with_events_on_the_boundaries(tmp_path):
    # Lab open daily 08:00-18:00, [opening, closing).  C(3 h) + ClosedCluster, cost 100:
    # Job 1 from 00:00, 20 h of work: due 10800 (closed, skipped), 21600 (skipped), 32400
    # (09:00, taken [32400, 32500]), 43300, 54200 (taken), 65100 (18:05, skipped); the next
    # would be 75900, after the end 72000 + 3 x 100 = 72300.
    # Job 2 from 00:00, C(8 h): due 28800, exactly the opening: open, taken; 4000 s left
    # from 28900: the end at 32900.  Job 3 from 08:00, C(10 h): due 64800, exactly the
    # closing: skipped; the end at 28800 + 40000 = 68800.
    plat = platform(tmp_path, [{"name": "lab", "machines": 3, "hours": "daily 08:00-18:00"}])
    rows = [(0, 72000, 1, 72000), (0, 32800, 1, 32800), (28800, 40000, 1, 40000)]
    for policy, job in (("fixed:interval=10800,cost=100+closedcluster", 1),
                        ("fixed:interval=28800,cost=100+closedcluster", 2),
                        ("fixed:interval=36000,cost=100+closedcluster", 3)):
        r, spy = run([rows[job - 1]], plat, checkpoint=policy)
        assert (job, [t for _, t in spy.begins], r.table["end"][0],
                r.summary["checkpoints_skipped"]) == {
            1: (1, [32400, 43300, 54200], 72300, 3),
            2: (2, [28800], 32900, 0),
            3: (3, [], 68800, 1)}[job]


def test_interarrival_counts_arrivals_in_the_window_of_the_cluster_or_the_pool(tmp_path):
    # Clusters `lab` (lab:0 runs the job, lab:1) and `far` (far:0).  C(3600) + Interarrival
    # (w = 10 min, l = 1, d = 60 min), cost 60.  Users log in at lab:1 at 3000 and far:0 at
    # 7000 (neither on the job's machine).
    # t = 3600: window [3000, 3600] holds lab:1's arrival (on its edge, t - w): taken
    # (3600 - c_j = 3600 - 0 >= d); the checkpoint ends at 3660.  t = 7260: window [6660,
    # 7260]: only far:0's arrival; scope=cluster: skipped; scope=system: taken (7260 - 3660
    # = 3600 >= d).  The next evaluation (10860 or 10920) comes after the end: 10000 s of
    # work plus 60 s (cluster, one checkpoint) or 120 s (system, two).
    plat = platform(tmp_path, [{"name": "lab", "machines": 2}, {"name": "far", "machines": 1}])
    users = sessions(tmp_path, [("lab:1", 3000, 3100), ("far:0", 7000, 7100)])
    for scope, begins, end, skipped in (("cluster", [3600], 10060, 1),
                                        ("system", [3600, 7260], 10120, 0)):
        r, spy = run([(0, 10000, 1, 10000)], plat, params={"placement": "first"},
                     comps={"availability": {"owners": users}},
                     checkpoint=f"fixed:interval=3600,cost=60+interarrival:w=10,l=1,d=60,"
                                f"scope={scope}")
        assert [t for _, t in spy.begins] == begins
        assert r.table["end"][0] == end
        assert r.summary["checkpoints_skipped"] == skipped


# --- the 24 h bound (seed 3.2: "we bound execution time to a total of 24 hours") -------------

def test_the_bound_removes_a_job_at_24_h_of_execution_checkpoints_included(tmp_path):
    # One machine, htc, the bound (24 h in total).  A job of exactly 24 h of work completes
    # at 86400, the instant it reaches the bound; one of 24 h + 1 s is removed as bad at
    # 86400 with its 86400 s lost.  With C(3600), cost 100, the checkpoints count as
    # execution: checkpoint k ends at 3700 k; at 86400, 23 have ended (85100), 82800 s saved,
    # 1300 s of work since: removed at 86400 with 1300 s lost (its 24 h of work would need
    # 86400 + 23 x 100 s held).  A removal is not an eviction.
    plat = platform(tmp_path, [{"name": "lab", "machines": 1}])
    for runtime, policy, status, lost in ((86400, None, "completed", 0),
                                          (86401, None, "bad", 86400),
                                          (86400, "fixed:interval=3600,cost=100", "bad", 1300)):
        r, _ = run([(0, runtime, 1, runtime)], plat, comps={"bound": {}}, checkpoint=policy)
        assert (r.table["status"][0], r.table["end"][0], r.table["lost_work"][0]) == \
            (status, 86400, lost)
        assert (r.summary["jobs_bad"], r.summary["evictions"]) == (int(status == "bad"), 0)


# --- the seed's metrics of a tiny run (seed section 5) --------------------------------------

def test_task_overhead_evictions_and_waste_from_the_run_files(tmp_path):
    # One 1-core machine, htc.  Jobs 1 (0, 100 s), 2 (0, 50 s): 2 waits to 100, ends 150.
    # Job 3 (500, 10 s): its machine's user logs in at 505 (kill) and out at 605: 5 s lost,
    # requeued, ends 615.  Overheads (end - submit - runtime): 0, 100, 105 -> mean 68.333 s,
    # 1.1389 min; evictions 1; wasted CPU 5 s.
    plat = platform(tmp_path, [{"name": "lab", "machines": 1}])
    swf = tmp_path / "w.swf"
    swf.write_text("; MaxProcs: 1\n"
                   "1 0 -1 100 1 -1 -1 1 100 -1 1 1 1 1 1 1 -1 -1\n"
                   "2 0 -1 50 1 -1 -1 1 50 -1 1 1 1 1 1 1 -1 -1\n"
                   "3 500 -1 10 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1\n")
    owners = sessions(tmp_path, [("lab:0", 505, 605)])
    out = tmp_path / "out"
    assert main(["run", "--workload", str(swf), "--platform", plat, "--scheduler", "htc",
                 "--component", f"availability:owners={owners},on_unavailable=kill",
                 "--out", str(out)]) == 0
    with open(out / "jobs.csv") as f:
        rows = list(csv.DictReader(f))
    assert [(float(r["start"]), float(r["end"])) for r in rows] == \
        [(0, 100), (100, 150), (500, 615)]
    s = json.loads((out / "summary.json").read_text())["metrics"]
    assert s["mean_task_overhead"] == pytest.approx(205 / 3)
    assert s["mean_task_overhead_min"] == pytest.approx(205 / 3 / 60)
    assert (s["evictions"], s["wasted_cpu_s"]) == (1, 5)


def test_benefit_of_c_3600_against_none_and_opt_by_hand(tmp_path):
    # One machine rebooting at 03:00 (10800-11100); one 20000 s job from 0; cost = R = 100.
    # None: 10800 s lost, from scratch at 11100: end 31100, overhead 11100.
    # Opt: saves as of 10700, back at 11100 + R, 9300 left: end 20500, overhead 500.
    # C(3600): checkpoints end 3700, 7400 (7200 s saved); killed at 10800, 3400 s lost; back
    # at 11100 + R = 11200, 12800 left: checkpoints end 14900, 18600, 22300 (18000 saved),
    # the end 22300 + 2000 = 24300, overhead 4300.  Benefit (eq. 5) = 1 - (4300 - 500) /
    # (11100 - 500) = 1 - 3800/10600.  Utilisation: 5 completed, 1 used for the recovery: 0.2.
    plat = platform(tmp_path, [{"name": "lab", "machines": 1, "reboot": "03:00"}])
    over = {}
    for name, policy in (("none", "none"), ("opt", "opt:cost=100"),
                         ("c60", "fixed:interval=3600,cost=100")):
        r, _ = run([(0, 20000, 1, 20000)], plat, comps={"availability": {}}, checkpoint=policy)
        over[name] = r.summary["mean_task_overhead"]
        if name == "c60":
            s = r.summary
            assert (s["checkpoints_completed"], s["checkpoints_used"]) == (5, 1)
            assert s["checkpoint_utilisation"] == pytest.approx(0.2)
            assert (r.table["lost_work"][0], s["evictions"]) == (3400, 1)
    assert over == {"none": 11100, "opt": 500, "c60": 4300}
    assert benefit(over["c60"], over["none"], over["opt"]) == pytest.approx(1 - 3800 / 10600)


def test_estimates_do_not_move_an_htc_job(tmp_path):
    # The pool's trace has no estimates the scheduler uses (seed 3.2: submit time, duration,
    # memory): a job estimated at 10 s (too short) or 1000 s (too long) for 100 s of work runs
    # its 100 s; the job behind it starts at 100 either way.
    plat = platform(tmp_path, [{"name": "lab", "machines": 1}])
    for estimate in (10, 100, 1000):
        r, _ = run([(0, 100, 1, estimate), (0, 50, 1, 50)], plat)
        assert (list(r.table["start"]), list(r.table["end"])) == ([0, 100], [100, 150])
        assert list(r.table["status"]) == ["completed", "completed"]


@pytest.mark.parametrize("logout, resume_after, end, lost, kills", [
    # Seed 3.3: a job is "suspended for a period of time, after which [it is] evicted if the
    # interactive user has not departed"; HTCondor's MaxSuspendTime = 600 s (SPEC_ADDENDUM
    # 6.2).  A 5000 s job on the lab's machine; its user logs in at 1000.
    # Out at 1200: resumed at the logout, 4000 s left: the end at 5200, nothing lost.
    (1200, 0, 5200, 0, 0),
    # resume_after = 300 (HTCondor's 5 minutes of idle keyboard): resumed at 1500: 5500.
    (1200, 300, 5500, 0, 0),
    # Out at 1700: still there at 1600 (1000 + 600): evicted, 1000 s lost; the machine is
    # back at the logout: from scratch at 1700, the end at 6700.
    (1700, 0, 6700, 1000, 1),
])
def test_suspend_then_evict(tmp_path, logout, resume_after, end, lost, kills):
    plat = platform(tmp_path, [{"name": "lab", "machines": 1}])
    r, spy = run([(0, 5000, 1, 5000)], plat, comps={"availability": {
        "owners": sessions(tmp_path, [("lab:0", 1000, logout)]),
        "resume_after": resume_after}})
    assert (r.table["end"][0], r.table["lost_work"][0], r.summary["evictions"]) == \
        (end, lost, kills)
    assert r.summary["mean_task_overhead"] == end - 5000


def test_a_requeued_job_goes_back_in_submission_order(tmp_path):
    # Two 1-core machines, placement=first.  Jobs 1 (0, 3000 s) on node 0, 2 (0, 1000 s) on
    # node 1, 3 (100, 500 s) waits.  Node 0's user evicts job 1 at 500 (kill) and stays.  At
    # 1000 node 1 frees: job 1 (submitted at 0) is ahead of job 3 (submitted at 100) in the
    # FCFS queue, as a job keeps its place in an HTCondor queue: job 1 [1000, 4000), job 3
    # waits until 4000 (node 1 again; node 0's user stays to 9000): [4000, 4500).
    plat = platform(tmp_path, [{"name": "lab", "machines": 2}])
    r, spy = run([(0, 3000, 1, 3000), (0, 1000, 1, 1000), (100, 500, 1, 500)], plat,
                 params={"placement": "first"}, comps={"availability": {
                     "owners": sessions(tmp_path, [("lab:0", 500, 9000)]),
                     "on_unavailable": "kill"}})
    assert [(j, t, nodes(m)) for j, t, m in spy.starts] == \
        [(1, 0, [0]), (2, 0, [1]), (1, 1000, [1]), (3, 4000, [1])]


@pytest.mark.parametrize("requeue, order", [
    # The seed has evicted jobs rejoin the queue (Fig. 3) without saying where.  With one-core
    # jobs under FCFS a waiting job was always submitted before any running one, so the place
    # matters only between evicted jobs.  Two 1-core machines, placement=first: job 1 (0,
    # 5000 s) on node 0, job 2 (10, 3000 s) on node 1.  Node 0's user evicts job 1 at 1000
    # (and stays to 9000), node 1's user job 2 at 2000 (to 3000).  At 3000 node 1 frees.
    # requeue=front (the default): the last evicted is at the head: job 2 [3000, 6000),
    # then job 1 [6000, 11000).  requeue=order (submit order, as HTCondor's queue keeps a
    # job's place): job 1 [3000, 8000), job 2 [8000, 11000).
    ("front", [(2, 3000), (1, 6000)]),
    ("order", [(1, 3000), (2, 8000)]),
])
def test_where_an_evicted_job_waits_again(tmp_path, requeue, order):
    plat = platform(tmp_path, [{"name": "lab", "machines": 2}])
    users = sessions(tmp_path, [("lab:0", 1000, 9000), ("lab:1", 2000, 3000)])
    r, spy = run([(0, 5000, 1, 5000), (10, 3000, 1, 3000)], plat,
                 params={"placement": "first", "requeue": requeue},
                 comps={"availability": {"owners": users, "on_unavailable": "kill"}})
    assert [(j, t) for j, t, _ in spy.starts][2:] == order
    assert sorted(r.table["end"]) == [8000 if requeue == "order" else 6000, 11000]


def test_events_at_the_instant_of_a_reboot(tmp_path):
    # One machine rebooting at 03:00 (10800-11100).  A job of exactly 10800 s from 0 ends at
    # the reboot's instant: it completes (a job end comes before anything else at an
    # instant, docs/architecture.md).  A checkpoint that ends at that instant (C(10700),
    # cost 100: over [10700, 10800]) is lost (an interruption at the instant a checkpoint
    # ends loses it, same table): killed at 10800 with 10700 s lost, from scratch at 11100
    # with a checkpoint over [21800, 21900]: the end at 11100 + 10800 + 100 = 22000.
    plat = platform(tmp_path, [{"name": "lab", "machines": 1, "reboot": "03:00"}])
    for policy, end, lost in ((None, 10800, 0), ("fixed:interval=10700,cost=100", 22000, 10700)):
        r, _ = run([(0, 10800, 1, 10800)], plat, comps={"availability": {}}, checkpoint=policy)
        assert (r.table["end"][0], r.table["lost_work"][0], r.table["status"][0]) == \
            (end, lost, "completed")
    # ClusterOpening (lab open daily 08:00-18:00) for a job starting at 28700 = 08:00 - d:
    # its checkpoint fits exactly, over [28700, 28800], before any work: the end at 29800.
    plat = platform(tmp_path, [{"name": "lab", "machines": 1, "hours": "daily 08:00-18:00"}])
    r, spy = run([(28700, 1000, 1, 1000)], plat, checkpoint="clusteropening:cost=100")
    assert (spy.begins, r.table["end"][0]) == ([(1, 28700)], 29800)


def test_interarrival_remembers_the_last_checkpoint_across_an_eviction(tmp_path):
    # Seed eq. 4: c_j is "the time job j was last checkpointed", a property of the job, not
    # of its allocation.  Two 1-core machines of one cluster; C(3600) + Interarrival (w = 60
    # min, l = 1, d = 120 min), cost = R = 60, placement=first.  A user arrives on node 1 at
    # 3500 (window of t = 3600: [0, 3600]) and t - c_j = 3600 < d: skipped (the job's first
    # 120 minutes of the run, c_j = 0).  Next at 7200: the arrival at 6900 on node 0 evicts
    # the job (kill); 6900 s lost; it restarts at 6900 on node 1 (its user left at 3560),
    # from scratch, no restart cost; evaluations at 10500 (arrival at 9999 on node 0: in
    # the window; 10500 - 0 >= 7200: taken, ends at 10560), 14160 (arrival at 13000 on
    # node 0; 14160 - 10560 = 3600 < d: skipped).  Work 8000 s: the end at 6900 + 8000 + 60.
    plat = platform(tmp_path, [{"name": "lab", "machines": 2}])
    users = sessions(tmp_path, [("lab:1", 3500, 3560), ("lab:0", 6900, 6950),
                                ("lab:0", 9999, 10010), ("lab:0", 13000, 13010)])
    r, spy = run([(0, 8000, 1, 8000)], plat, params={"placement": "first"},
                 comps={"availability": {"owners": users, "on_unavailable": "kill"}},
                 checkpoint="fixed:interval=3600,cost=60+interarrival:w=60,l=1,d=120")
    assert [(t, nodes(m)) for _, t, m in spy.starts] == [(0, [0]), (6900, [1])]
    assert [t for _, t in spy.begins] == [10500]
    assert (r.table["end"][0], r.table["lost_work"][0]) == (6900 + 8060, 6900)
    assert r.summary["checkpoints_skipped"] == 2


def test_efficient_placement_ranks_the_seeds_machine_types_per_core(tmp_path):
    # The seed's Table 1: Normal 2 cores 57 / 40 W, High End 4 cores 114 / 67 W, Legacy 2
    # cores 140 / 65 W (midpoints).  Per core (the order `placement=efficient` documents):
    # active 28.5, 28.5, 70 W: Normal and High End tie, broken by idle per core, 20 against
    # 16.75 W: High End first, then Normal, then Legacy.  Groups in the order legacy (nodes
    # 0-1), normal (2-3), high (4-7); seven jobs at 0 fill high (4-7), then normal (2-3),
    # then legacy (node 0); no power manager: every machine awake.
    plat = platform(tmp_path, [{"name": "old", "machines": 1, "type": "legacy"},
                               {"name": "std", "machines": 1, "type": "normal"},
                               {"name": "cad", "machines": 1, "type": "high"}],
                    types={"legacy": (2, 140, 65), "normal": (2, 57, 40),
                           "high": (4, 114, 67)})
    _, spy = run([(0, 100, 1, 100)] * 7, plat, params={"placement": "efficient"})
    assert [nodes(m)[0] for _, _, m in spy.starts] == [4, 5, 6, 7, 2, 3, 0]


def test_scheduled_after_a_periodic_checkpoint_that_runs_into_its_window(tmp_path):
    # C(10600) + Scheduled (cost = R = 100, margin 1), `a` reboots at 10800 (notice 10200),
    # `b` at 18000.  The periodic checkpoint over [10600, 10700] saves 10600 s and runs over
    # the time Scheduled's should begin (10699): Scheduled's begins at once when it ends
    # (scheduled.py's reading), over [10700, 10800], ends at the reboot's instant and is lost
    # (100 s cut); the job is evicted by the reboot, not moved, and restarts from the
    # 10600 s checkpoint on `b` at 10800, R to 10900.  Before b's reboot: over [17899,
    # 17999], saved 10600 + 6999 = 17599; on `a` at 17999, R to 18099, 2401 left: 20500.
    plat = platform(tmp_path, [{"name": "a", "machines": 1, "reboot": "03:00"},
                               {"name": "b", "machines": 1, "reboot": "05:00"}])
    r, spy = run([(0, 20000, 1, 20000)], plat, comps={"availability": {"lead": 600}},
                 checkpoint="fixed:interval=10600,cost=100+scheduled")
    assert [t for _, t in spy.begins] == [10600, 10700, 17899]
    assert [(t, nodes(m)) for _, t, m in spy.starts] == [(0, [0]), (10800, [1]), (17999, [0])]
    assert (r.table["end"][0], r.table["lost_work"][0]) == (20500, 0)
    s = r.summary
    assert (s["evictions"], s["checkpoint_interrupted_s"], s["proactive_migrations"]) == \
        (1, 100, 1)
    assert s["wasted_cpu_s"] == 100
