"""Failure and availability inputs against their formats and the seeds, one record at a time.

Each case is small enough to work out by hand, the computation in the comment above it: which
node a record strikes, when (seconds from the run's start), for how long, whether it is dropped
and whether the drop is reported.  The real files in ../shared/data/failures are read where a
case picks records out of them (skipped when the folder is absent)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from helpers import Spy, inject_failures, jobs

from ckptsim.components import build_components
from ckptsim.engine.simulator import Simulator
from ckptsim.policies.base import scheduler_factory

FAILURES = Path(__file__).resolve().parents[2] / "shared" / "data" / "failures"
LANL_CSV = FAILURES / "lanl_cfdr" / "LA-UR-05-7318-failure-data-1996-2005.csv.gz"


def real(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"real failure data not available: {path} is missing (../shared/data is not "
                    f"part of the repository)")
    return path


def fcfs(rows, machine: int, components: dict | None = None,
         failures: tuple | None = None) -> tuple[Simulator, Spy]:
    spy = Spy()
    sim = Simulator(jobs(rows, machine), scheduler_factory("fcfs", {}),
                    components=[*build_components(components or {}), spy], check=True)
    if failures:
        inject_failures(sim, *failures)
    sim.run()
    return sim, spy


# --- Young's M counts the failures of the submit span -------------------------------------------
def test_young_m_counts_only_the_failures_of_the_submit_span():
    # One machine; jobs submitted at 0 (100 s) and 1000 (20000 s): a submit span of 1000 s.
    # Failures at 500 (in the span) and 50000 (a log keeping its own times runs on after the
    # last submission; the run is over by then and it never happens).  M = span x nodes /
    # (failures in the span x size) = 1000 x 1 / (1 x 1) = 1000 s; young:cost=50 gives
    # tau = sqrt(2 x 50 x 1000) = 316.23 s: job 2 starts at 1000, checkpoints at 1316.23 and
    # 1316.23 + 50 + 316.23.  (Counting the failure at 50000 too would halve M: tau = 223.6.)
    tau = math.sqrt(2 * 50 * 1000)
    sim, spy = fcfs([(0.0, 100.0, 1, 100.0), (1000.0, 20000.0, 1, 20000.0)], 1,
                    {"checkpoint": {"policy": "young:cost=50"}}, ([500.0, 50000.0], [0, 0]))
    assert spy.begins[:2] == pytest.approx([1000 + tau, 1000 + 2 * tau + 50])
    # The failure at 500 strikes the idle machine; the one at 50000 is withdrawn at the end.
    assert sim.component("failures").counters()["failures"] == 1  # type: ignore[union-attr]
