"""Seed 003's pool where the seed leaves a reading open, worked out by hand on tiny pools: the
M of Young's interval when failures take whole machines.  The expected values come from the
arithmetic in the comment above each, not from the code.  Time 0 is Friday 2010-01-01 00:00."""

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
