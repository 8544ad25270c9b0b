"""`Simulator.check_ready`: what the components check once all are attached (a checkpoint
plan's part that needs another component, a policy's M without failures, suspensions a
component cannot tell) is refused before the first event, and `simulate` calls it."""

from __future__ import annotations

import pytest

from ckptsim.components import build_components
from ckptsim.engine.simulator import Simulator
from ckptsim.errors import ConfigError
from ckptsim.policies.base import scheduler_factory
from ckptsim.runner import simulate
from ckptsim.workload.source import load_workload

W = "lublin:n=40,seed=1,machine=16"


@pytest.mark.parametrize(("components", "key", "text"), [
    ({"checkpoint": {"policy": "fixed:interval=600,cost=60+scheduled"}}, "checkpoint",
     "scheduled acts on announced reboots and maintenance: run the availability component"),
    ({"availability": {"reboot": "03:00-05:00", "lead": 600},
      "checkpoint": {"policy": "fixed:interval=600,cost=60+scheduled:margin=900"}},
     "availability.lead", "got 600; scheduled needs lead >= cost + margin = 960 s"),
    ({"checkpoint": {"policy": "fixed:interval=600,cost=60+interarrival"}}, "checkpoint",
     "interarrival counts user arrivals"),
    ({"checkpoint": {"policy": "young:cost=60"}}, "checkpoint.mtbf",
     "young needs the mean time between failures"),
])
def test_refused_before_the_first_event(components, key, text):
    w = load_workload(W)
    sim = Simulator(w, scheduler_factory("easy", {}), components=build_components(components))
    with pytest.raises(ConfigError) as err:
        sim.check_ready()
    assert err.value.key == key and text in err.value.message
    assert sim.n_events == 0 and sim.now == 0.0
    # simulate refuses it with the same error.
    with pytest.raises(ConfigError) as run:
        simulate(W, "easy", components=components)
    assert (run.value.key, run.value.message) == (err.value.key, err.value.message)


def test_a_valid_run_passes():
    sim = Simulator(load_workload(W), scheduler_factory("easy", {}), components=build_components(
        {"availability": {"reboot": "03:00-05:00", "lead": 1200},
         "checkpoint": {"policy": "fixed:interval=600,cost=60+scheduled:margin=900"}}))
    sim.check_ready()
    sim.run()
    assert sim.n_ended == 40
