"""Seed 003's pool where the seed leaves a reading open, worked out by hand on tiny pools: the
M of Young's interval when failures take whole machines, a Scheduled checkpoint that can no
longer end before its reboot, and what the efficient placement ranks machines by.  The
expected values come from the arithmetic in the comment above each, not from the code.
Time 0 is Friday 2010-01-01 00:00."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from helpers import LANL_HEADER, lanl_row
from test_pool_by_hand import nodes, platform, run

# --- Young's M when a failure takes a whole machine ------------------------------------------

def failure_log(tmp_path: Path) -> str:
    # Four transient failures (LANL records, repaired at once) of the two machines, at 0,
    # 60000, 70200 and 81000 s (the log's own times, its first failure moved to the first
    # submission, 0): nodes 0 and 1 of the log are the pool's machines 0 and 1.
    path = tmp_path / "log.csv"
    path.write_text("\n".join([
        LANL_HEADER,
        lanl_row(20, 0, "1/1/2004 0:00", "1/1/2004 0:00", "0"),
        lanl_row(20, 1, "1/1/2004 16:40", "1/1/2004 16:40", "0"),
        lanl_row(20, 0, "1/1/2004 19:30", "1/1/2004 19:30", "0"),
        lanl_row(20, 1, "1/1/2004 22:30", "1/1/2004 22:30", "0"),
    ]) + "\n")
    return f"lanl:path={path},system=20"


@pytest.mark.parametrize("size, tau", [
    # Two machines of 4 cores (nodes 0-3 and 4-7), placement=first.  The jobs: one of
    # `size` cores from 0 (20000 s, over before the failure at 60000 s), one of 10 s at
    # 100000: a submit span of 100000 s holding the 4 failures (the one at 0 strikes before
    # the job is there).  A failure takes its whole machine, evicting every job on it.
    # A one-core job (node 0) meets the failures of its machine: 4 failures over 2
    # machines in 100000 s, one per 100000 x 2 / 4 = 50000 s = M (the seed's "mean time to
    # failure of the resources on which they execute").  young:cost=100: tau = sqrt(2 x 100
    # x 50000) = sqrt(1e7) = 3162.28 s.  (Counted over cores, 100000 x 8 / 4 = 200000 s,
    # 4 times too long: tau = 6324.56 s.)
    (1, math.sqrt(2 * 100 * 50000)),
    # A 5-core job (nodes 0-4) holds a core of both machines: every failure strikes it,
    # M = 100000 x 2 / (4 x 2) = 25000 s, tau = sqrt(5e6) = 2236.07 s.  (Over cores:
    # 100000 x 8 / (4 x 5) = 40000 s.)
    (5, math.sqrt(2 * 100 * 25000)),
])
def test_young_m_counts_the_failures_of_the_jobs_machines(tmp_path, size, tau):
    plat = platform(tmp_path, [{"name": "lab", "machines": 2, "type": "quad"}],
                    types={"quad": (4, 100, 40)})
    r, spy = run([(0, 20000, size, 20000), (100000, 10, 1, 10)], plat,
                 params={"placement": "first"},
                 comps={"availability": {"failures": failure_log(tmp_path)}},
                 checkpoint="young:cost=100")
    assert nodes(spy.starts[0][2]) == list(range(size))
    # Checkpoint k begins at k x tau + (k - 1) x 100.
    assert [t for j, t in spy.begins if j == 1][:3] == \
        pytest.approx([tau, 2 * tau + 100, 3 * tau + 200])
    assert r.summary["failures"] == 4 and r.summary["evictions"] == 0
    # mtbf= still wins: 50000 s for any job.
    r, spy = run([(0, 20000, size, 20000), (100000, 10, 1, 10)], plat,
                 params={"placement": "first"},
                 comps={"availability": {"failures": failure_log(tmp_path)}},
                 checkpoint="young:cost=100,mtbf=50000")
    assert spy.begins[0][1] == pytest.approx(math.sqrt(1e7))


# --- Scheduled (seed 4.4) when a periodic checkpoint runs into its time ---------------------

@pytest.mark.parametrize("late, begins, starts, end, lost, cut, evictions, migrations", [
    # C(10600) + Scheduled (cost = R = 100, margin 1); `a` reboots at 03:00 (10800, notice
    # 10200, drained from then), `b` at 05:00 (18000).  One job of 20000 s from 0 on a:0.
    # The periodic checkpoint over [10600, 10700] saves 10600 s and runs over the time
    # Scheduled's should begin, 10800 - 1 - 100 = 10699.
    # cut (the default): Scheduled's begins when it ends, over [10700, 10800], and the
    # reboot cuts it (100 s); the job is evicted, restarts from 10600 s on b at 10800, R to
    # 10900.  Before b's reboot: over [17899, 17999], saved 10600 + 6999 = 17599; on a at
    # 17999, R to 18099, 2401 s left: the end at 20500.
    ("cut", [10600, 10700, 17899], [(0, [0]), (10800, [1]), (17999, [0])], 20500, 0, 100,
     1, 1),
    # skip: 10700 + 100 > 10799, so it does not begin; the job computes 100 s more on a,
    # which the reboot takes (100 s lost); the rest as under cut: the end at 20500.
    ("skip", [10600, 17899], [(0, [0]), (10800, [1]), (17999, [0])], 20500, 100, 0, 1, 1),
    # adopt: the periodic checkpoint ends at 10700 > 10699 and <= 10799: it is Scheduled's.
    # The job is requeued at 10700 (a drained): b at 10700, R to 10800, nothing lost.  Before
    # b's reboot: over [17899, 17999], saved 10600 + 7099 = 17699; on a at 17999, R to
    # 18099, 2301 s left: the end at 20400, no eviction, two migrations.
    ("adopt", [10600, 17899], [(0, [0]), (10700, [1]), (17999, [0])], 20400, 0, 0, 0, 2),
])
def test_scheduled_after_a_periodic_checkpoint_cut_skip_or_adopt(
        tmp_path, late, begins, starts, end, lost, cut, evictions, migrations):
    plat = platform(tmp_path, [{"name": "a", "machines": 1, "reboot": "03:00"},
                               {"name": "b", "machines": 1, "reboot": "05:00"}])
    r, spy = run([(0, 20000, 1, 20000)], plat, comps={"availability": {"lead": 600}},
                 checkpoint=f"fixed:interval=10600,cost=100+scheduled:late={late}")
    assert [t for _, t in spy.begins] == begins
    assert [(t, nodes(m)) for _, t, m in spy.starts] == starts
    assert (r.table["end"][0], r.table["lost_work"][0]) == (end, lost)
    s = r.summary
    assert (s["checkpoint_interrupted_s"], s["evictions"], s["proactive_migrations"]) == \
        (cut, evictions, migrations)
    assert s["wasted_cpu_s"] == lost + cut
    # Two restarts, each from a checkpoint; the adopted periodic one counts as proactive.
    assert s["checkpoints_used"] == 2
    assert s["proactive_checkpoints"] == {"cut": 2, "skip": 1, "adopt": 2}[late]


def test_scheduled_late_for_a_job_starting_after_its_time(tmp_path):
    # `a` (node 0) reboots at 03:00 (10800, notice 10200), `b` (node 1) at 05:00; drain=false,
    # placement=first.  One job of 1000 s starts on a:0 at 10750, after Scheduled's should
    # have begun (10699): 10750 + 100 > 10799.  cut: it begins at once, over [10750, 10850),
    # and the reboot cuts it (50 s); skip and adopt (no periodic checkpoint to adopt): none
    # begins, the job computes 50 s that the reboot takes.  Either way it restarts from
    # scratch on b:0 at 10800: the end at 11800.
    plat = platform(tmp_path, [{"name": "a", "machines": 1, "reboot": "03:00"},
                               {"name": "b", "machines": 1, "reboot": "05:00"}])
    for late, begins, lost, cut in (("cut", [10750], 0, 50), ("skip", [], 50, 0),
                                    ("adopt", [], 50, 0)):
        r, spy = run([(10750, 1000, 1, 1000)], plat, params={"placement": "first"},
                     comps={"availability": {"lead": 600}},
                     checkpoint=f"scheduled:cost=100,drain=false,late={late}")
        assert [t for _, t in spy.begins] == begins
        assert (r.table["end"][0], r.table["lost_work"][0]) == (11800, lost)
        assert r.summary["checkpoint_interrupted_s"] == cut


# --- placement=efficient: watts per core or per machine --------------------------------------

@pytest.mark.parametrize("by, order, alone, energy", [
    # The seed's Table 1 (Legacy at its ranges' midpoints): Normal 2 cores 57 / 40 W, High
    # End 4 cores 114 / 67 W, Legacy 2 cores 140 / 65 W (speed ~2 against ~3 GHz).  Groups
    # in the order legacy (nodes 0-1), normal (2-3), high (4-7); no power manager.
    # Per core (the default): active 28.5, 28.5, 70 W; Normal and High End tie, broken by
    # idle per core, 20 against 16.75 W: High End, Normal, Legacy.  (Per unit of work,
    # active per core over speed, 28.5, 28.5 and 70 / (2/3) = 105 W: the same order.)  Seven
    # jobs at 0 fill high (4-7), then normal (2-3), then legacy (node 0).  A lone one-core
    # job goes to High End, which it makes draw 114 W: 1000 s of it is 114,000 J of HTC
    # active energy (the whole machine's P_active, docs/energy.md).
    ("core", [4, 5, 6, 7, 2, 3, 0], 4, 114 * 1000),
    # Per machine (the seed calls the Normal computers "energy efficient" and the High End
    # ones of "higher energy requirements"): active 57, 114, 140 W: Normal, High End,
    # Legacy.  Seven jobs fill normal (2-3), then high (4-7), then legacy (node 0); a lone
    # job goes to Normal: 57 W x 1000 s = 57,000 J.
    ("machine", [2, 3, 4, 5, 6, 7, 0], 2, 57 * 1000),
])
def test_efficient_placement_ranks_per_core_or_per_machine(tmp_path, by, order, alone, energy):
    plat = platform(tmp_path, [{"name": "old", "machines": 1, "type": "legacy"},
                               {"name": "std", "machines": 1, "type": "normal"},
                               {"name": "cad", "machines": 1, "type": "high"}],
                    types={"legacy": (2, 140, 65), "normal": (2, 57, 40),
                           "high": (4, 114, 67)})
    params = {"placement": "efficient", "efficient_by": by}
    _, spy = run([(0, 100, 1, 100)] * 7, plat, params=params)
    assert [nodes(m)[0] for _, _, m in spy.starts] == order
    r, spy = run([(0, 1000, 1, 1000)], plat, params=params, comps={"energy": {"htc": True}})
    assert nodes(spy.starts[0][2]) == [alone]
    assert r.summary["energy_htc_active_j"] == pytest.approx(energy)
