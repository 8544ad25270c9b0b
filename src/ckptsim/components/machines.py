"""Per-machine power states of the energy meter (`ckptsim.components.energy`): one state per
machine, its transitions and the energy of every closed interval (and the state log).

A machine is ACTIVE, IDLE, SLEEP, OFF, WAKING or TO_SLEEP (`ckptsim.platform.power.STATES`).
`MachineStates` is the part of `EnergyMeter` that keeps them; the meter uses it whenever the
node-set accounting (`ckptsim.components.energybulk`) does not apply: a state log, machines of
several cores or profiles, timed transitions.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ckptsim.components.energywake import Window, correction, windows
from ckptsim.errors import ConfigError
from ckptsim.platform.power import STATES, PowerProfile

if TYPE_CHECKING:
    from ckptsim.components.energybulk import Bulk
    from ckptsim.engine.state import Job

ACTIVE, IDLE, SLEEP, OFF, WAKING, TO_SLEEP = range(6)  # indices into STATES
def machines_of(changed: int, node_machine: Any, masks: Any) -> list[int]:
    """The machines (ascending) holding the nodes of the bit mask `changed`, each once."""
    seen = []
    while changed:
        m = node_machine[(changed & -changed).bit_length() - 1]
        seen.append(m)
        changed ^= changed & masks[m]
    if len(seen) > 1:
        seen.sort()
    return seen


INF = math.inf
#: The states a sleep transition may lead to, by name (`PowerStates.until_state`).
UNTIL_STATES = {"sleep": SLEEP, "off": OFF}


def sleep_state(value: Any, manager: Any) -> int:
    """The state index of `until_state` given as "sleep" or "off" (or the index SLEEP or OFF
    of `ckptsim.components.energy`).

    Raises:
        ConfigError: any other value, keyed by the power manager's name.
    """
    if isinstance(value, str) and value in UNTIL_STATES:
        return UNTIL_STATES[value]
    if type(value) is int and value in (SLEEP, OFF):
        return value
    name = "power"
    if manager is not None:
        name = getattr(manager, "name", "") or type(manager).__name__
    raise ConfigError(f"components.{name}", f"until_state = {value!r}: a sleep transition "
                                            f"leads to 'sleep' or 'off' (PowerStates)")


class MachineStates:
    """One power state per machine (a part of `EnergyMeter`)."""

    sim: Any
    log: list[tuple[int, str, float, float]] | None
    profiles: list[PowerProfile]
    bulk: Bulk | None
    node_machine: list[int]
    node_watts: list[float]
    core_watts: float
    watts: list[list[float]]
    lumps: list[list[float]]
    wake_time: list[float]
    sleep_time: list[float]
    start: float
    busy: list[int]
    state: list[int]
    since: list[float]
    until: list[float]
    wake_after: list[bool]
    energy: list[list[float]]
    e_idle: list[float]
    e_active: list[float]
    w_idle: list[float]
    w_active: list[float]
    pinned: list[bool]
    masks: list[int]
    down: int
    wakeups: int
    slept: int
    jobs: dict[int, tuple[int, float, float, float]]
    job_energy: list[float]
    unsaved: dict[int, float]

    def _job_nodes(self, job: Job, new: int, w: float, now: float, mark: float,
                   w_old: float) -> None:
        raise NotImplementedError

    # --- machine states -----------------------------------------------------------------------
    # An idle machine that no reason holds (not `pinned`) goes to sleep `sleep_after` seconds
    # after it became idle (the power manager's timeout; inf without one).  That moment is
    # known when it becomes idle, so the sleep is applied lazily, the next time the machine is
    # looked at (a job takes it, a reason holds it, the run ends): no event per machine.
    sleep_after = INF
    #: Where a sleep transition leads, SLEEP or OFF: the power manager sets it by name
    #: through `until_state` (`PowerStates`).
    _until = SLEEP
    manager: Any = None

    @property
    def until_state(self) -> str:
        """Where a sleep transition leads: "sleep" or "off" (the power manager sets it)."""
        return STATES[self._until]

    @until_state.setter
    def until_state(self, value: str) -> None:
        self._until = sleep_state(value, self.manager)

    #: What a job is charged for a wake-up it waits out (`ckptsim.components.energywake`),
    #: and its windows per job index (None with the default, "active": nothing to correct).
    wake_charge = "active"
    wake_waits: dict[int, list[Window]] | None = None

    #: The HTC attribution (`ckptsim.components.energyhtc.HtcLedger`), told of every closed
    #: interval; None unless asked for.
    htc: Any = None

    def _close(self, m: int, t: float, new: int) -> None:
        """Machine m leaves its state at t for `new`: the interval's energy is added."""
        s = self.state[m]
        t0 = self.since[m]
        e = self.watts[s][m] * (t - t0) + self.lumps[s][m]
        self.energy[s][m] += e
        if self.htc is not None:
            self.htc.closed(m, s, t0, t, new, e)
        if self.log is not None and (t > t0 or e):
            self.log.append((m, STATES[s], t0, t))
        self.state[m] = new
        self.since[m] = t

    def _settle(self, m: int, t: float) -> None:
        """Apply the transitions of machine m due by t (wake-up and sleep completions, the
        idle timeout)."""
        s = self.state[m]
        while True:
            if s == IDLE:
                at = self.since[m] + self.sleep_after
                if at > t or self.pinned[m]:
                    return
                self.slept += 1
                self._close(m, at, TO_SLEEP)
                self.until[m] = at + self.sleep_time[m]
                s = TO_SLEEP
                continue
            if (s != WAKING and s != TO_SLEEP) or self.until[m] > t:
                return
            u = self.until[m]
            if s == WAKING:
                s = ACTIVE if self.busy[m] else IDLE
                self._close(m, u, s)
            elif self.wake_after[m]:
                self.wake_after[m] = False
                self._close(m, u, WAKING)
                self.until[m] = u + self.wake_time[m]
                s = WAKING
            else:
                s = self._until
                self._close(m, u, s)

    def _wake(self, m: int, now: float) -> float:
        """Machine m (settled at now) is needed: when it is awake."""
        s = self.state[m]
        if s == SLEEP or s == OFF:
            self.wakeups += 1
            self._close(m, now, WAKING)
            self.until[m] = now + self.wake_time[m]
            self._settle(m, now)
            return now + self.wake_time[m]
        if s == TO_SLEEP:
            if not self.wake_after[m]:
                self.wakeups += 1
                self.wake_after[m] = True
            return self.until[m] + self.wake_time[m]
        if s == WAKING:
            return self.until[m]
        return now

    def node_asleep(self, node: int, now: float) -> bool:
        """Whether the machine of `node` is asleep, off or going to sleep at `now` (read
        without changing any state: the lazy sleep is computed, not applied)."""
        if self.bulk is not None:
            bulk = self.bulk
            if (bulk.sleeping >> node) & 1:
                return True
            for t, mask in bulk.groups:  # idle nodes by when they became idle
                if t + self.sleep_after > now:  # type: ignore[operator]
                    return False
                if (mask >> node) & 1:  # type: ignore[operator]
                    return True
            return False
        m = self.node_machine[node]
        s = self.state[m]
        if s == IDLE:
            return not self.pinned[m] and self.since[m] + self.sleep_after <= now
        return s == SLEEP or s == OFF or s == TO_SLEEP

    def on_nodes_changed(self, now: float) -> None:
        """A reason took or gave back nodes: a held machine is awake and does not sleep (an
        owner at the keyboard); once free again its idle time counts from now."""
        sim = self.sim
        assert sim is not None
        if self.htc is not None:
            if self.htc.one_machine(now):  # one machine changed: done together there
                return
            self.htc.nodes_changed(now)
        if self.sleep_after == INF or sim.n_ended == len(sim.jobs):
            return  # no power manager, or past the last job end: the span is over
        now = max(now, self.start)
        down = sim.platform.down_mask
        if self.bulk is not None:
            self.bulk.nodes_changed(down, now)
            return
        changed = down ^ self.down
        self.down = down
        masks = self.masks
        seen = machines_of(changed, self.node_machine, masks)
        state = self.state
        pinned = self.pinned
        for m in seen:
            s = state[m]
            if s == IDLE or s == WAKING or s == TO_SLEEP:  # else nothing is due
                self._settle(m, now)
                s = state[m]
            if masks[m] & down:
                pinned[m] = True
                if s != ACTIVE:
                    self._wake(m, now)
            else:
                pinned[m] = False
                if s == IDLE:
                    self._close(m, now, IDLE)  # the idle timeout restarts now

    # --- occupancy ----------------------------------------------------------------------------
    def _occupancy(self, job: Job) -> float:
        """Account the job's change of nodes now; returns when its machines are all awake."""
        idx = job.index
        now = self.sim.now  # type: ignore[union-attr]
        rec = self.jobs.get(idx)
        new = job.mask
        if rec is not None:
            old, w, since, mark = rec
            self.job_energy[idx] += w * (now - since)
            waits = self.wake_waits
            if waits is not None and idx in waits:  # energywake: not at the active power
                self.job_energy[idx] += correction(waits, idx, old, since, now, new)
            w_old = w
        else:
            old = 0
            w = w_old = 0.0
            mark = now
        ready = now
        bulk = self.bulk
        if bulk is not None:
            if new & ~old:
                bulk.take(new & ~old, now)
            if old & ~new:
                bulk.give(old & ~new, now)
            w = self.core_watts * new.bit_count()
            self._job_nodes(job, new, w, now, mark, w_old)  # type: ignore[attr-defined]
            return now
        nm = self.node_machine
        nw = self.node_watts
        busy = self.busy
        state = self.state
        stamp = self.since
        log = self.log
        sleep_after = self.sleep_after
        plain = self.htc is None  # the inlined paths skip the HTC attribution
        bits = new & ~old
        while bits:
            low = bits & -bits
            node = low.bit_length() - 1
            bits ^= low
            m = nm[node]
            w += nw[node]
            b = busy[m]
            s = state[m]
            if s == IDLE and now < stamp[m] + sleep_after and plain:  # the common case
                t0 = stamp[m]
                self.e_idle[m] += self.w_idle[m] * (now - t0)
                if log is not None and now > t0:
                    log.append((m, "idle", t0, now))
                state[m] = ACTIVE
                stamp[m] = now
                busy[m] = b + 1
            elif s == ACTIVE:
                busy[m] = b + 1
            else:
                self._settle(m, now)
                busy[m] = b + 1
                if state[m] == IDLE:
                    self._close(m, now, ACTIVE)
                else:
                    s, u = state[m], self.until[m]
                    r = self._wake(m, now)
                    if r > ready:
                        ready = r
                    if r > now and self.wake_waits is not None:
                        self.wake_waits.setdefault(idx, []).extend(
                            windows(self, self.wake_charge, m, s, u, node, now, r))
        bits = old & ~new
        while bits:
            low = bits & -bits
            node = low.bit_length() - 1
            bits ^= low
            m = nm[node]
            w -= nw[node]
            b = busy[m] - 1
            if state[m] == ACTIVE and plain:
                busy[m] = b
                if b == 0:  # inlined _close(m, now, IDLE)
                    t0 = stamp[m]
                    self.e_active[m] += self.w_active[m] * (now - t0)
                    if log is not None and now > t0:
                        log.append((m, "active", t0, now))
                    state[m] = IDLE
                    stamp[m] = now
            else:
                self._settle(m, now)
                busy[m] = b
                if b == 0 and state[m] == ACTIVE:
                    self._close(m, now, IDLE)
        self._job_nodes(job, new, w, now, mark, w_old)  # type: ignore[attr-defined]
        return ready
