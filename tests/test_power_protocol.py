"""A power manager of one's own, written to the `PowerStates` / `PowerManagement` protocols
(engine/provides.py), drives the energy meter as the built-in one does."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from ckptsim import Component, param
from ckptsim.cli import main
from ckptsim.engine.provides import PowerManagement, PowerStates
from ckptsim.errors import ConfigError
from ckptsim.runner import simulate
from ckptsim.workload.lublin import generate_lublin


@dataclasses.dataclass(frozen=True)
class AfterParams:
    timeout: float = param(600.0, "idle seconds before a machine sleeps", low=0.0)
    state: Any = param("off", "until_state given to the meter")


class After(Component):
    """Puts idle machines to `state` after `timeout` seconds, through the protocol only."""

    name = "after"
    Params = AfterParams
    provides = (PowerManagement,)

    def attach(self, sim):
        super().attach(sim)
        meter = sim.provider(PowerStates)
        if meter is not None:
            self.link(meter)

    def link(self, meter):
        meter.manager = self
        meter.set_sleep_after(float(self.params.timeout))
        meter.until_state = self.params.state


PROFILE = {"active": 57.0, "idle": 40.0, "sleep": 2.0, "off": 0.5}


@pytest.mark.parametrize("state", ["sleep", "off"])
@pytest.mark.parametrize("timed", [False, True])  # node sets, or per machine (wake-ups)
def test_a_protocol_manager_gives_the_built_in_managers_energy(state, timed):
    w = generate_lublin(300, machine_size=32, seed=3)
    energy = {**PROFILE, **({"wake_time": 30.0} if timed else {})}
    builtin = simulate(w, "easy", components={"energy": energy,
                                              "power": {"idle_timeout": 600, "state": state}})
    mine = simulate(w, "easy", components=[
        "energy:" + ",".join(f"{k}={v}" for k, v in energy.items()),
        After(After.make_params({"timeout": 600, "state": state}))])
    for key in ("energy_j", "energy_sleep_j", "energy_off_j", "energy_wakeups"):
        assert mine.summary[key] == builtin.summary[key], key
    assert mine.summary[f"energy_{state}_j"] > 0


@pytest.mark.parametrize("bad", ["Off", "hibernate", None, True, 7])
def test_a_wrong_until_state_is_refused_naming_the_manager(bad):
    w = generate_lublin(50, machine_size=16, seed=3)
    with pytest.raises(ConfigError, match=r"components.after: until_state = .*'sleep' or"):
        simulate(w, "easy", components=["energy:active=57,idle=40,sleep=2",
                                        After(After.make_params({"state": bad}))])


def test_the_meter_reads_back_the_state_name():
    from ckptsim.components.energy import EnergyMeter

    w = generate_lublin(50, machine_size=16, seed=3)
    meter = EnergyMeter(EnergyMeter.make_params(PROFILE))
    assert meter.until_state == "sleep"
    result = simulate(w, "easy", components=[meter, "power:state=off"])
    assert meter.until_state == "off" and result.summary["energy_off_j"] > 0


def test_the_command_line_names_the_plugins_line(tmp_path, capsys):
    (tmp_path / "mgr.py").write_text(
        "from ckptsim import Component\nfrom ckptsim.engine.provides import PowerManagement, "
        "PowerStates\n\n\nclass Mgr(Component):\n    name = 'mgr'\n"
        "    provides = (PowerManagement,)\n\n    def attach(self, sim):\n"
        "        super().attach(sim)\n        meter = sim.provider(PowerStates)\n"
        "        if meter is not None:\n            self.link(meter)\n\n"
        "    def link(self, meter):\n        meter.manager = self\n"
        "        meter.until_state = 'of'\n")
    assert main(["run", "--workload", "lublin:n=50,seed=3,machine=16", "--component",
                 "energy:active=57,idle=40,sleep=2", "--component",
                 f"{tmp_path}/mgr.py:Mgr"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ckptsim: error: components.mgr: until_state = 'of'")
    assert err.endswith(f"(from {tmp_path}/mgr.py, line 17, a plug-in's code)\n")
