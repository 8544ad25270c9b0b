"""A plug-in file edited while its sweep runs: a run whose worker loads the edited file is
recorded as failed, saying so, not as the run of the file its id hashes (whose row the store
would then reuse once the file is back as it was; docs/plugins.md#sweeps)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ckptsim.experiments.execute import execute_run
from ckptsim.experiments.matrix import build_matrix
from ckptsim.experiments.spec import load_spec
from ckptsim.registry import REGISTRIES

PLUGINS = """
from ckptsim import QueueScheduler


class Mine(QueueScheduler):
    counter_names = ("version",)

    def schedule(self, now):
        q = self.queue
        while q and q[0].size <= self.platform.n_free:
            job = q.pop(0)
            self._removed(job)
            self.sim.start(job)

    def counters(self):
        return {"version": 1}
"""

METER = """
from ckptsim import Component


class Meter(Component):
    name = "meter"
    counter_names = ("meter_version",)

    def counters(self):
        return {"meter_version": 1}
"""

POLICY = """
from ckptsim import CheckpointPolicy


class Hourly(CheckpointPolicy):
    def interval(self, delta, mtbf, restart):
        return 3600.0
"""

SPEC = """
name = "edits"
[workloads.m]
generator = "lublin"
n = 20
machine = 32
[workloads.m.components."meter.py:Meter"]
[workloads.m.components.checkpoint]
policy = "policy.py:Hourly:cost=60"
[[schedulers]]
name = "mine.py:Mine"
"""


@pytest.fixture(autouse=True)
def _forget():
    yield
    for registry in REGISTRIES.values():
        registry.plugins.clear()


def _spec(tmp_path: Path) -> Path:
    (tmp_path / "mine.py").write_text(PLUGINS)
    (tmp_path / "meter.py").write_text(METER)
    (tmp_path / "policy.py").write_text(POLICY)
    spec = tmp_path / "edits.toml"
    spec.write_text(SPEC)
    return spec


@pytest.mark.parametrize("file", ["mine.py", "meter.py", "policy.py"])
def test_a_run_of_a_plugin_edited_since_the_spec_was_read_fails_saying_so(tmp_path, file):
    [run] = build_matrix(load_spec(_spec(tmp_path)))
    assert len(run.plugin_sha256) == 3
    assert execute_run(run).row["status"] == "ok"
    path = tmp_path / file
    before = path.read_text()
    path.write_text(before + "\n# edited while the sweep ran\n")
    row = execute_run(run).row
    assert row["status"] == "failed"
    assert row["error_message"] == (
        f"ConfigError: {path}: changed since the sweep read its spec (the run's id hashes "
        "the file as it was then); run the sweep again to run the file as it is now")
    path.write_text(before)  # as it was: the run is the run its id says again
    assert execute_run(run).row["status"] == "ok"
