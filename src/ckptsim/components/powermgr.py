"""The power manager: machines idle longer than a timeout go to sleep (component "power").

Works with the energy meter (`ckptsim.components.energy`, component "energy"), which keeps the
machines' power states: a machine that has been idle for `idle_timeout` seconds while no
reason (failure, owner, reboot, ...) held any of its nodes goes to sleep (``state = "sleep"``)
or is switched off (``"off"``), through the profile's sleep transition.  A reason taking the
nodes of a sleeping machine wakes it (an owner sits down at it) and keeps it awake; when the
reason lets go, the machine's idle time counts from then.

Sleeping machines stay in the platform's free set: every scheduler sees them as available
(after a wake-up) and needs no change.  A job given a core of a sleeping machine wakes it; its
progress starts when all its machines are awake (`sim.delay`: the wake latency, plus the rest
of a sleep transition in progress, is charged as restart overhead on its nodes).  A restart
overhead given as an amount of work, or a move's new nodes, overlap the wake-up instead.

The moment an idle machine falls asleep is known when it becomes idle, so the meter applies
it lazily, the next time it looks at the machine: the manager schedules no events, and the
run ends with its last job as without it.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from ckptsim.engine.components import Component, register_component
from ckptsim.engine.provides import PowerManagement, PowerStates
from ckptsim.params import param

if TYPE_CHECKING:
    from ckptsim.engine.simulator import Simulator


@dataclasses.dataclass(frozen=True)
class PowerParams:
    idle_timeout: float = param(900.0, "seconds a machine stays idle before it sleeps",
                                low=0.0, seconds=1.0)
    state: str = param("sleep", "where idle machines go", choices=("sleep", "off"))


@register_component
class PowerManager(Component):
    """Puts machines idle longer than `idle_timeout` to sleep."""

    name = "power"
    description = "idle machines sleep after a timeout and wake for jobs (needs energy)"
    Params = PowerParams
    counter_names = ("machines_slept",)
    provides = (PowerManagement,)

    def __init__(self, params: Any = None) -> None:
        super().__init__(params)
        self.meter: PowerStates | None = None

    def attach(self, sim: Simulator) -> None:
        super().attach(sim)
        meter: PowerStates | None = sim.provider(PowerStates)
        if meter is not None:
            self.link(meter)

    def link(self, meter: PowerStates) -> None:
        """Called once the energy meter and the manager are both attached."""
        self.meter = meter
        meter.manager = self
        meter.set_sleep_after(float(self.params.idle_timeout))
        meter.until_state = self.params.state  # "sleep" or "off"

    def counters(self) -> dict[str, Any]:
        if self.meter is None:
            return {"machines_slept": 0}
        return {"machines_slept": self.meter.sleeps()}
