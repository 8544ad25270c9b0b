"""The energy meter: power states of every machine, integrated into energy (component
"energy").

A machine (`ckptsim.platform.power.machine_blocks`: a block of consecutive engine nodes; one
node per machine on the homogeneous machine of a trace) is *active* while a job holds any of
its cores -- checkpoints, restarts and wake-up delays included --, *idle* when awake and
unused, *sleep* or *off* when the power manager (`ckptsim.components.powermgr`) put it there, and
*waking* / *to_sleep* during the transitions.  Nodes held out of service by a reason (failure,
owner, reboot, ...) keep the state their jobs give them: an owner's machine is idle unless a
job runs on it.  The meter follows occupancy through `on_start` / `on_release` and integrates
each machine's power per state from the workload's first submission to the last job end.

Profiles: one for every machine from the component's parameters (``--component
energy:active=200,idle=100,sleep=5``), otherwise the platform's per-machine profiles
(`ckptsim.platform.power.platform_profiles`).

Outputs (counters, merged into summary.json and sweep rows): total energy in J and kWh, energy
by state, mean power, the energy of the jobs, of work later lost (the node time since a job's
last save, thrown away by a kill or an eviction) and of checkpoints (written or interrupted);
in jobs.csv an ``energy`` column: each job's share of its machines' active power (its cores /
the machine's cores) over the time it held them (a wake-up it waits out as ``wake_charge``
says: `ckptsim.components.energywake`).  With ``log = true`` every closed state
interval is kept as ``(machine, state, start, end)`` in `log`: the energy of a machine is the
integral of its power over them (tests recompute it so).
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ckptsim.components.energybulk import Bulk
from ckptsim.components.energyhtc import HTC_COUNTERS, OWNER_COUNTERS
from ckptsim.components.energyparams import EnergyParams, without_default_options
from ckptsim.engine.components import Component, register_component
from ckptsim.engine.provides import PowerManagement, PowerStates
from ckptsim.engine.state import KILLED, QUEUED, RUNNING
from ckptsim.errors import ConfigError
from ckptsim.params import make_params
from ckptsim.platform.power import STATES, machine_blocks, platform_profiles

if TYPE_CHECKING:
    from ckptsim.engine.simulator import Simulator
    from ckptsim.engine.state import Job

from ckptsim.components.machines import (  # noqa: F401 - the states, for the power manager
    ACTIVE,
    IDLE,
    OFF,
    SLEEP,
    TO_SLEEP,
    WAKING,
    MachineStates,
)

INF = math.inf
JOULES_PER_KWH = 3.6e6

#: The counters of a run with the energy meter (the HTC and owner ones with htc = true and
#: owners = active).
ENERGY_COUNTERS = ("energy_j", "energy_kwh", "mean_power_w", *(f"energy_{s}_j" for s in STATES),
                   "energy_jobs_j", "energy_lost_j", "energy_checkpoint_j", "energy_wakeups",
                   "energy_sleeps", *HTC_COUNTERS, *OWNER_COUNTERS)


@register_component
class EnergyMeter(MachineStates, Component):
    """Integrates every machine's power over its power states."""

    name = "energy"
    description = "power states of every machine integrated into energy (J, kWh, by state)"
    Params = EnergyParams
    counter_names = ENERGY_COUNTERS
    provides = (PowerStates,)
    rows = (("energy_kwh", "energy (kWh)"), ("energy_htc_kwh", "HTC-attributable energy (kWh)"),
            ("mean_power_w", "mean power (W)"),
            ("energy_lost_j", "energy of lost work (J)"),
            ("energy_checkpoint_j", "energy of checkpoints (J)"))

    @classmethod
    def make_params(cls, values: Any, *, base: Path | None = None) -> EnergyParams:
        prm: EnergyParams = make_params(EnergyParams, values, where=cls.name)
        prm.profile()  # a partial profile is refused now, naming what is missing
        return prm

    def __init__(self, params: Any = None) -> None:
        super().__init__(params)
        self.manager: Any = None  # the power manager, when the run has one
        self.log: list[tuple[int, str, float, float]] | None = [] if self.params.log else None
        self.wakeups = 0
        self.slept = 0
        self.lost = 0.0
        self.checkpoint_energy = 0.0

    # --- set-up -------------------------------------------------------------------------------
    def attach(self, sim: Simulator) -> None:
        super().attach(sim)
        profile = self.params.profile()
        blocks = machine_blocks(sim.platform)
        if profile is not None:
            profiles = [profile] * len(blocks)
        else:
            added = self.params.added()
            found = platform_profiles(sim.platform, sim.seed, added,
                                      per=self.params.power_draw,
                                      checks_only=getattr(sim, "checks_only", False))
            if found is None:
                raise ConfigError("energy", "no power profile: give one (energy:active=W,"
                                            "idle=W,sleep=W) or a platform whose node types "
                                            "have power tables" + (
                                                f" ({', '.join(added)} add to such tables)"
                                                if added else ""))
            profiles = found
        self.profiles = profiles
        n = len(blocks)
        self.n_machines = n
        self.node_machine = [0] * sim.platform.n_nodes
        self.node_watts = [0.0] * sim.platform.n_nodes  # a core's share of active power
        for m, (first, cores) in enumerate(blocks):
            for node in range(first, first + cores):
                self.node_machine[node] = m
                self.node_watts[node] = profiles[m].active / cores
        self.watts = [[p.power(s) for p in profiles] for s in STATES]
        self.lumps = [[p.lump(s) for p in profiles] for s in STATES]
        self.wake_time = [p.wake_time for p in profiles]
        self.wake_charge = self.params.wake_charge
        self.wake_waits = {} if self.wake_charge != "active" else None
        self.sleep_time = [p.sleep_time for p in profiles]
        submit = sim.workload.submit
        self.start = float(submit[0]) if len(submit) else 0.0
        self.last_end = self.start
        self.busy = [0] * n
        self.state = [IDLE] * n
        self.since = [self.start] * n
        self.until = [0.0] * n  # end of a transition in progress
        self.wake_after = [False] * n  # wake up as soon as the sleep transition ends
        self.energy = [[0.0] * n for _ in STATES]
        self.job_energy = [0.0] * len(sim.jobs)
        # job index -> (node mask accounted, watts charged to it, since, start of its
        # unsaved node time)
        self.jobs: dict[int, tuple[int, float, float, float]] = {}
        self.ckpt: dict[int, tuple[float, float]] = {}  # checkpoint in flight: (begin, W)
        self.unsaved: dict[int, float] = {}  # energy of unsaved work at the last release
        self.e_active = self.energy[ACTIVE]
        self.e_idle = self.energy[IDLE]
        self.w_active = self.watts[ACTIVE]
        self.w_idle = self.watts[IDLE]
        self.pinned = [False] * n
        self.masks = [((1 << cores) - 1) << first for first, cores in blocks]
        self.down = 0
        # One-core machines of one profile, instantaneous transitions, no log: node sets
        # (`ckptsim.components.energybulk`) instead of one state per machine.
        p0 = profiles[0] if profiles else None
        attributed = self.params.htc or self.params.owners == "active"
        self.uniform = (not attributed and self.log is None and p0 is not None
                        and p0.wake_time == 0
                        and p0.sleep_time == 0 and blocks == [(i, 1) for i in range(n)]
                        and all(p == p0 for p in profiles))
        self.core_watts = p0.active if p0 is not None else 0.0
        self.bulk: Bulk | None = Bulk(n, self.start, INF) if self.uniform else None
        if attributed:
            from ckptsim.components.energyhtc import HtcLedger

            self.htc = HtcLedger(self, self.params.htc_shared)
        manager: PowerManagement | None = sim.provider(PowerManagement)
        if manager is not None:
            manager.link(self)

    def set_sleep_after(self, seconds: float) -> None:
        """The power manager's idle timeout (before the run)."""
        self.sleep_after = seconds
        if self.uniform:
            self.bulk = Bulk(self.n_machines, self.start, seconds)

    def _job_nodes(self, job: Job, new: int, w: float, now: float, mark: float,
                   w_old: float) -> None:
        """The job holds `new` from now, charged `w` watts (none: it let go of its nodes)."""
        idx = job.index
        if new:
            self.jobs[idx] = (new, w, now, mark)
        else:
            del self.jobs[idx]
            cut = now
            ck = self.ckpt.pop(idx, None)
            if ck is not None:
                self.checkpoint_energy += ck[1] * (now - ck[0])
                cut = ck[0]
            self._unsaved(job, w_old * (cut - mark))

    def _unsaved(self, job: Job, energy: float) -> None:
        """The energy of the job's unsaved node time when it let go of its nodes: lost if a
        kill ended it, decided by `on_requeue` if it waits again."""
        state = job.state
        if state is QUEUED:
            self.unsaved[job.index] = energy
        elif state is KILLED and job.status != "killed":  # a kill, not the run-time limit
            self.lost += energy

    def _bulk_change(self, job: Job) -> None:
        """`_occupancy` with node-set accounting (no wake latency: nothing to return)."""
        idx = job.index
        now = self.sim.now  # type: ignore[union-attr]
        new = job.mask
        jobs = self.jobs
        rec = jobs.get(idx)
        bulk = self.bulk
        assert bulk is not None
        if rec is None:  # the job takes nodes
            bulk.take(new, now)
            jobs[idx] = (new, self.core_watts * new.bit_count(), now, now)
            return
        old, w_old, since, mark = rec
        self.job_energy[idx] += w_old * (now - since)
        if not new:  # the job lets go of every node: _job_nodes(job, 0, ...), inlined
            bulk.give(old, now)
            del jobs[idx]
            cut = now
            if self.ckpt:
                ck = self.ckpt.pop(idx, None)
                if ck is not None:
                    self.checkpoint_energy += ck[1] * (now - ck[0])
                    cut = ck[0]
            state = job.state
            if state is QUEUED:
                self.unsaved[idx] = w_old * (cut - mark)
            elif state is KILLED and job.status != "killed":  # a kill, not the time limit
                self.lost += w_old * (cut - mark)
            return
        if new & ~old:
            bulk.take(new & ~old, now)
        if old & ~new:
            bulk.give(old & ~new, now)
        jobs[idx] = (new, self.core_watts * new.bit_count(), now, mark)

    def on_start(self, job: Job) -> None:
        if self.bulk is not None:
            self._bulk_change(job)
            return
        ready = self._occupancy(job)
        now = self.sim.now  # type: ignore[union-attr]
        if ready > now and job.mask and not job.ovh_rated and job.state is RUNNING:
            self.sim.delay(job, ready - now)  # type: ignore[union-attr]

    def on_release(self, job: Job) -> None:
        if self.bulk is not None:
            self._bulk_change(job)
            return
        self._occupancy(job)

    def on_checkpoint(self, job: Job) -> None:
        rec = self.jobs.get(job.index)
        self.ckpt[job.index] = (self.sim.now, rec[1] if rec else 0.0)  # type: ignore

    def _saved(self, job: Job) -> None:
        rec = self.jobs.get(job.index)
        if rec is not None:  # the unsaved node time starts again now
            self.jobs[job.index] = (*rec[:3], self.sim.now)  # type: ignore[union-attr]

    def progress_saved(self, job: Job, at: float) -> None:
        """Opt's checkpoint over [at, now], recorded at an eviction (`PowerStates`): the job's
        unsaved node time starts at `at`, so the kill that follows loses those d seconds."""
        rec = self.jobs.get(job.index)
        if rec is not None and at > rec[3]:
            self.jobs[job.index] = (*rec[:3], at)

    def on_checkpointed(self, job: Job) -> None:
        ck = self.ckpt.pop(job.index, None)
        if ck is not None:
            self.checkpoint_energy += ck[1] * (self.sim.now - ck[0])  # type: ignore
        self._saved(job)

    def on_migrated(self, job: Job) -> None:
        self._saved(job)  # a move saved the progress at its start

    def on_requeue(self, job: Job, reason: str) -> None:
        unsaved = self.unsaved.pop(job.index, 0.0)
        if reason != "checkpoint":
            self.lost += unsaved

    def at_end(self, now: float) -> None:
        ends = [j.end for j in self.sim.jobs if j.end is not None]  # type: ignore[union-attr]
        end = self.last_end = max(ends, default=self.start)
        if self.bulk is not None:
            self.bulk.advance(end)
            return
        for m in range(self.n_machines):
            self._settle(m, end)
            self._close(m, end, self.state[m])

    # --- outputs ------------------------------------------------------------------------------
    def machine_energy(self, m: int) -> float:
        """Machine m's energy (per machine only without the bulk accounting: with a log,
        several cores per machine, several profiles or timed transitions)."""
        if self.bulk is not None:
            raise ValueError("per-machine energy needs log = true")
        return sum(e[m] for e in self.energy)

    def _state_totals(self) -> list[float]:
        bulk = self.bulk
        if bulk is None:
            return [sum(e) for e in self.energy]
        p = self.profiles[0]
        asleep = p.sleep if self._until == SLEEP else p.off
        return [p.active * bulk.active_time, p.idle * bulk.idle_time,
                asleep * bulk.sleep_time if self._until == SLEEP else 0.0,
                asleep * bulk.sleep_time if self._until == OFF else 0.0,
                p.wake_energy * bulk.wakeups, p.sleep_energy * bulk.sleeps]

    def sleeps(self) -> int:
        """Machines put to sleep so far."""
        bulk = self.bulk
        return bulk.sleeps if bulk is not None else self.slept

    def counters(self) -> dict[str, Any]:
        if self.bulk is not None:
            self.wakeups, self.slept = self.bulk.wakeups, self.bulk.sleeps
        by_state = {f"energy_{s}_j": e for s, e in zip(STATES, self._state_totals(),
                                                        strict=True)}
        ledger = self.htc
        owners = ledger.owner_counters() if ledger is not None else {}
        if self.params.owners == "active":  # interactive use counted as active
            by_state["energy_active_j"] += owners["energy_owner_active_j"]
            by_state["energy_idle_j"] -= owners["energy_owner_idle_j"]
        total = sum(by_state.values())
        span = self.last_end - self.start
        out = {"energy_j": total, "energy_kwh": total / JOULES_PER_KWH,
               "mean_power_w": total / span if span > 0 else 0.0, **by_state,
               "energy_jobs_j": sum(self.job_energy), "energy_lost_j": self.lost,
               "energy_checkpoint_j": self.checkpoint_energy,
               "energy_wakeups": self.wakeups, "energy_sleeps": self.slept}
        if ledger is not None:
            out.update(ledger.counters(self.params.htc))
            if self.params.owners == "active":
                out.update(owners)
        return out

    @classmethod
    def identity(cls, params: EnergyParams) -> dict[str, Any]:
        """The parameters, without the attribution options left at their defaults (runs
        without them keep the run ids they had before they existed)."""
        return without_default_options(dataclasses.asdict(params))

    def options(self) -> dict[str, Any]:
        """Every declared parameter with its value (defaults and None included), the
        machines metered and where their power profiles came from."""
        doc = dataclasses.asdict(self.params)
        doc["machines"] = getattr(self, "n_machines", 0)
        doc["profiles"] = "parameters" if self.params.profile() is not None else "platform"
        return doc

    def job_columns(self) -> dict[str, Any]:
        import numpy as np

        return {"energy": np.array(self.job_energy, dtype=np.float64)}
