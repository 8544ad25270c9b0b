"""A policy's own metrics join the run's beside its components' counters and never replace
one of them: a plug-in scheduler counting `utilization` is refused, naming it, as a
component counting a metric of the run is (docs/plugins.md)."""

from __future__ import annotations

import pytest

import ckptsim
from ckptsim import Component, QueueScheduler
from ckptsim.errors import ConfigError

WORKLOAD = "lublin:n=20,seed=3,machine=32"


def _counting(**values):
    class Counts(QueueScheduler):
        name = "tally"
        counter_names = tuple(values)

        def schedule(self, now):
            q = self.queue
            while q and q[0].size <= self.platform.n_free:
                job = q.pop(0)
                self._removed(job)
                self.sim.start(job)

        def counters(self):
            return dict(values)

    return Counts


class Meter(Component):
    name = "meter"
    counter_names = ("meter_starts",)

    def counters(self):
        return {"meter_starts": 20}


@pytest.mark.parametrize(("key", "said"), [
    ("utilization", "counts 'utilization', a metric of the run"),
    ("checkpoints", "counts 'checkpoints', a metric of the run"),
    ("meter_starts", "counts 'meter_starts', a metric of the run (a counter of meter)"),
])
def test_a_policy_counter_named_like_a_metric_is_refused(key, said):
    with pytest.raises(ConfigError) as refused:
        ckptsim.simulate(ckptsim.workload(WORKLOAD), _counting(**{key: 2.0}),
                         components=[Meter])
    assert refused.value.key == "scheduler"
    assert refused.value.message == f"tally {said}"


def test_a_policy_counter_of_its_own_is_a_metric():
    result = ckptsim.simulate(ckptsim.workload(WORKLOAD), _counting(mine=2.0),
                              components=[Meter])
    assert result.summary["mine"] == 2.0 and result.summary["meter_starts"] == 20
    assert 0 < result.summary["utilization"] <= 1
