"""The energy meter's HTC attribution (``energy:htc=true``; SPEC_ADDENDUM section 6.3): the
part of the pool's energy due to its HTC jobs, and total energy with interactive use counted
as active (``energy:owners=active``).

The meter's machine states (`ckptsim.components.machines`) tell, per machine, when it is active
(a job holds one of its cores), idle, asleep, waking.  The ledger here follows every closed
state interval (`closed`) and every change of the reasons holding machines (`nodes_changed`),
and charges the HTC jobs:

- ``energy_htc_active_j``: P_active over the intervals where an HTC job holds a core of the
  machine (execution, checkpoints, restarts, suspensions in place, work later lost) and no
  interactive user is there;
- ``energy_htc_shared_j``: the same intervals while an interactive user (reason ``owner`` or
  ``trace``) holds the machine: P_active - P_idle with ``htc_shared = "difference"`` (the
  user keeps it awake anyway), P_active with ``"active"``;
- ``energy_htc_idle_j``: P_idle over the idle time the machine is kept awake solely because
  of HTC work: after a job leaves it (no reason holding it), from the later of the job's
  departure and the moment the machine would have fallen asleep without any HTC job (the
  power manager's timeout after its last interactive session, or after the run's start) until
  it falls asleep or is used again.  Without a power manager machines never sleep, so there
  is none;
- ``energy_htc_wake_j``: the wake-ups of sleeping machines for a job (power while waking
  plus the wake-up energy); the later sleep transition is not charged;
- ``energy_htc_j`` (and ``energy_htc_kwh``): their sum.

With ``owners = "active"`` the meter counts a machine an interactive user holds as active
(P_active instead of P_idle while no job runs on it): ``energy_j``, ``energy_kwh``,
``mean_power_w``, ``energy_active_j`` and ``energy_idle_j`` change by
``energy_owner_active_j`` - ``energy_owner_idle_j`` (both reported).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ckptsim.components.machines import (
    ACTIVE,
    IDLE,
    OFF,
    SLEEP,
    TO_SLEEP,
    WAKING,
    machines_of,
)
from ckptsim.platform.base import OWNER

if TYPE_CHECKING:
    from ckptsim.components.energy import EnergyMeter

INF = math.inf
TRACE = "trace"  # the availability component's reason for availability traces
ASLEEP = (SLEEP, OFF, TO_SLEEP)

HTC_COUNTERS = ("energy_htc_j", "energy_htc_kwh", "energy_htc_active_j", "energy_htc_shared_j",
                "energy_htc_idle_j", "energy_htc_wake_j")
OWNER_COUNTERS = ("energy_owner_active_j", "energy_owner_idle_j")


class HtcLedger:
    """HTC-attributable energy and interactive use, per machine, from the meter's states."""

    def __init__(self, meter: EnergyMeter, shared: str) -> None:
        self.meter = meter
        n = meter.n_machines
        self.p_active = [p.active for p in meter.profiles]
        self.p_idle = [p.idle for p in meter.profiles]
        self.shared = (list(self.p_active) if shared == "active"
                       else [a - i for a, i in zip(self.p_active, self.p_idle, strict=True)])
        self.mark = [meter.start] * n  # the current state interval is charged up to here
        self.owner = [False] * n  # an interactive user holds the machine
        self.pinned = [False] * n  # any reason holds it
        self.after_job = [False] * n  # idle since a job left it (nothing else holding it)
        self.woken_for_job = [False] * n
        # When the machine would fall asleep without HTC work (None: the power manager's
        # timeout after the run's start, read late: the manager may attach after the meter).
        self.natural: list[float | None] = [None] * n
        self.down = 0
        self.interactive = 0
        self.active = self.shared_e = self.idle = self.wake = 0.0
        self.owner_active = self.owner_idle = 0.0

    # --- the meter's closed intervals ---------------------------------------------------------
    def closed(self, m: int, s: int, t0: float, t: float, new: int, e: float) -> None:
        """Machine m was in state s over [t0, t) (energy e, lumps included); it is now in
        `new`."""
        a = max(t0, self.mark[m])
        self._charge(m, s, a, t)
        if s == WAKING and self.woken_for_job[m]:
            self.wake += e
        if s == ACTIVE:
            self.after_job[m] = new == IDLE and not self.pinned[m]
        elif s == WAKING:
            self.after_job[m] = new == IDLE and self.woken_for_job[m] and not self.pinned[m]
            self.woken_for_job[m] = False
        elif s == IDLE:
            self.after_job[m] = False
        if new == WAKING and s in ASLEEP:
            self.woken_for_job[m] = not self.pinned[m]
        self.mark[m] = t

    def _charge(self, m: int, s: int, a: float, t: float) -> None:
        """Charge machine m's state s over [a, t) under the current flags."""
        dt = t - a
        if dt <= 0:
            return
        if s == ACTIVE:
            if self.owner[m]:
                self.shared_e += self.shared[m] * dt
            else:
                self.active += self.p_active[m] * dt
        elif s == IDLE:
            if self.after_job[m]:
                nat = self.natural[m]
                if nat is None:
                    nat = self.meter.start + self.meter.sleep_after
                lo = max(a, nat)
                if t > lo:
                    self.idle += self.p_idle[m] * (t - lo)
            if self.owner[m]:
                self.owner_active += self.p_active[m] * dt
                self.owner_idle += self.p_idle[m] * dt

    # --- reasons taking and giving back machines ----------------------------------------------
    def nodes_changed(self, now: float) -> None:
        meter = self.meter
        sim = meter.sim
        if sim.n_ended == len(sim.jobs):
            return  # past the last job end: the span is over
        platform = sim.platform
        down = platform.down_mask
        interactive = platform.held(OWNER) | platform.held(TRACE)
        changed = (down ^ self.down) | (interactive ^ self.interactive)
        self.down, self.interactive = down, interactive
        if not changed:
            return
        now = max(now, meter.start)
        masks = meter.masks
        seen = machines_of(changed, meter.node_machine, masks)
        state = meter.state
        since = meter.since
        mark = self.mark
        was_pinned = self.pinned
        for m in seen:
            s = state[m]
            if s == IDLE or s == WAKING or s == TO_SLEEP:  # else nothing is due
                meter._settle(m, now)  # lazy sleeps up to now, charged under the old flags
                s = state[m]
            a = since[m]
            self._charge(m, s, a if a > mark[m] else mark[m], now)
            mark[m] = now
            pinned = bool(masks[m] & down)
            if pinned:
                if not was_pinned[m]:
                    self.after_job[m] = False  # whatever holds it keeps it awake from now on
                    self.natural[m] = INF
                    was_pinned[m] = True
            elif was_pinned[m]:
                self.natural[m] = now + meter.sleep_after
                was_pinned[m] = False
            self.owner[m] = bool(masks[m] & interactive)

    def one_machine(self, now: float) -> bool:
        """The meter's `on_nodes_changed` when the reasons holding machines changed on one
        machine only (an owner arrives or leaves), with a power manager: this ledger's
        `nodes_changed` then the meter's own step, done as one.  False (nothing done) in
        any other case."""
        meter = self.meter
        sim = meter.sim
        if meter.sleep_after == INF or meter.bulk is not None or sim.n_ended == len(sim.jobs):
            return False
        platform = sim.platform
        down = platform.down_mask
        changed = down ^ meter.down
        if not changed or changed != down ^ self.down:
            return False
        m = meter.node_machine[(changed & -changed).bit_length() - 1]
        masks = meter.masks
        mask = masks[m]
        if changed & ~mask:
            return False
        interactive = platform.held(OWNER) | platform.held(TRACE)
        if (interactive ^ self.interactive) & ~mask:
            return False
        self.down = meter.down = down
        self.interactive = interactive
        if now < meter.start:
            now = meter.start
        # This ledger's step (as in nodes_changed) ...
        state = meter.state
        s = state[m]
        if s == IDLE or s == WAKING or s == TO_SLEEP:
            meter._settle(m, now)  # lazy sleeps up to now, charged under the old flags
            s = state[m]
        a = meter.since[m]
        mark = self.mark
        self._charge(m, s, a if a > mark[m] else mark[m], now)
        mark[m] = now
        pinned = bool(mask & down)
        if pinned:
            if not self.pinned[m]:
                self.after_job[m] = False
                self.natural[m] = INF
                self.pinned[m] = True
        elif self.pinned[m]:
            self.natural[m] = now + meter.sleep_after
            self.pinned[m] = False
        self.owner[m] = bool(mask & interactive)
        # ... then the meter's (machine m is settled at now already)
        if pinned:
            meter.pinned[m] = True
            if s != ACTIVE:
                meter._wake(m, now)
        else:
            meter.pinned[m] = False
            if s == IDLE:
                meter._close(m, now, IDLE)  # the idle timeout restarts now
        return True

    # --- outputs ------------------------------------------------------------------------------
    def counters(self, htc: bool) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if htc:
            total = self.active + self.shared_e + self.idle + self.wake
            out.update({"energy_htc_j": total, "energy_htc_kwh": total / 3.6e6,
                        "energy_htc_active_j": self.active,
                        "energy_htc_shared_j": self.shared_e,
                        "energy_htc_idle_j": self.idle, "energy_htc_wake_j": self.wake})
        return out

    def owner_counters(self) -> dict[str, float]:
        return {"energy_owner_active_j": self.owner_active,
                "energy_owner_idle_j": self.owner_idle}
