"""The power manager: machines idle longer than a timeout go to sleep (component "power").

Works with the energy meter (`ckptsim.engine.energy`, component "energy"), which keeps the
machines' power states: the meter tells the manager when a machine becomes idle, and the
manager puts it to sleep (or switches it off) once it has stayed idle for `idle_timeout`
seconds and no reason (failure, owner, reboot, ...) holds any of its nodes.

Sleeping machines stay in the platform's free set: every scheduler sees them as available
(after a wake-up) and needs no change.  A job given a core of a sleeping machine wakes it; its
progress starts when all its machines are awake (`sim.delay`: the wake latency, plus the rest
of a sleep transition in progress, is charged as restart overhead on its nodes).  A restart
overhead given as an amount of work, or a move's new nodes, overlap the wake-up instead.

The timeouts need one pending event at a time: machines become idle in time order, so their
deadlines are in that order too (a queue checked lazily: a machine that was used in between
is skipped).  The events are of the kind "power" (priority 4.5: after the policy's timers,
before the scheduling pass that may wake the machine again).  After the last job ends no
event is left pending, so the run ends with its last job.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from typing import TYPE_CHECKING, Any

from ckptsim.engine.components import Component, register_component
from ckptsim.engine.events import register_event_kind
from ckptsim.params import param

if TYPE_CHECKING:
    from ckptsim.engine.energy import EnergyMeter
    from ckptsim.engine.simulator import Simulator
    from ckptsim.engine.state import Job

register_event_kind("power", 4.5, "power manager: idle machines go to sleep",
                    "after timers, before the pass that may give the machine a job")


@dataclasses.dataclass(frozen=True)
class PowerParams:
    idle_timeout: float = param(900.0, "seconds a machine stays idle before it sleeps",
                                low=0.0)
    state: str = param("sleep", "where idle machines go", choices=("sleep", "off"))


@register_component
class PowerManager(Component):
    """Puts machines idle longer than `idle_timeout` to sleep."""

    name = "power"
    description = "idle machines sleep after a timeout and wake for jobs (needs energy)"
    Params = PowerParams
    counter_names = ("machines_slept",)

    def __init__(self, params: Any = None) -> None:
        super().__init__(params)
        self.meter: EnergyMeter | None = None
        self.queue: deque[tuple[float, int, float]] = deque()  # (deadline, machine, since)
        self.pending: int | None = None  # handle of the next timeout event
        self.pending_at = 0.0
        self.slept = 0
        self.done = False
        self.masks: list[int] = []

    def attach(self, sim: Simulator) -> None:
        super().attach(sim)
        meter = sim.component("energy")
        if meter is not None:
            self.link(meter)  # type: ignore[arg-type]

    def link(self, meter: EnergyMeter) -> None:
        """Called once the energy meter and the manager are both attached."""
        from ckptsim.engine.energy import OFF, SLEEP
        from ckptsim.platform.power import machine_blocks

        self.masks = [((1 << cores) - 1) << first
                      for first, cores in machine_blocks(self.sim.platform)]  # type: ignore
        self.meter = meter
        meter.manager = self
        meter.until_state = SLEEP if self.params.state == "sleep" else OFF
        if len(self.sim.jobs) == 0:  # type: ignore[union-attr]
            return
        for m in range(meter.n_machines):
            self.idle(m, meter.start)

    def idle(self, m: int, t: float) -> None:
        """Machine m became idle at t (the meter calls this)."""
        if self.done:
            return
        deadline = t + self.params.idle_timeout
        self.queue.append((deadline, m, t))
        if self.pending is None:
            self._arm(deadline)

    def _arm(self, at: float) -> None:
        sim = self.sim
        assert sim is not None
        self.pending = sim.at(max(at, sim.now), self._fire, kind="power")
        self.pending_at = at

    def _fire(self, now: float) -> None:
        from ckptsim.engine.energy import IDLE

        self.pending = None
        meter = self.meter
        sim = self.sim
        assert meter is not None and sim is not None
        q = self.queue
        down = sim.platform.down_mask
        timeout = self.params.idle_timeout
        retry = []
        while q and q[0][0] <= now:
            _, m, since = q.popleft()
            if meter.state[m] != IDLE or meter.since[m] != since:  # used since
                continue
            if down and self.masks[m] & down:
                retry.append((now + timeout, m, since))
                continue
            if meter.sleep(m, now):
                self.slept += 1
        q.extend(retry)  # deadlines now + timeout: after every queued one, before any new one
        if q:
            self._arm(q[0][0])

    def on_end(self, job: Job) -> None:
        sim = self.sim
        assert sim is not None
        if sim.n_ended == len(sim.jobs):  # the last job: no timeout may outlive the run
            self.done = True
            self.queue.clear()
            if self.pending is not None:
                sim.cancel(self.pending)
                self.pending = None

    def counters(self) -> dict[str, Any]:
        return {"machines_slept": self.slept}
