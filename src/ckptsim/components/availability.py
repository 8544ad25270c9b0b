"""Node availability from outside the scheduler, as a component of a run ("availability").

The component takes machines (`ckptsim.platform.groups`: every core of a machine together) out
of service for a reason and hands them back, through the platform's hold-by-reason API, from
the timelines of `ckptsim.platform.availability`: owners (reason `owner`), daily reboots
(`reboot`), maintenance windows (`maintenance`), a real availability trace (`trace`), and node
failures (`failure`), which are one more kind of availability event.

What happens to a job whose machine becomes unavailable:

- reasons `reboot`, `maintenance` and `failure`: the job is killed (its unsaved work is lost)
  and requeued -- a reboot or a failure ends the job's processes;
- reasons `owner` and `trace`: `on_unavailable` decides.  `kill` as above; `suspend` (the
  default, HTCondor's): a RUNNING job is frozen in place (rate 0, it keeps its nodes) and
  resumes at its former rate when none of its nodes is out of service any more (and, with
  `resume_after`, none has been for that many seconds: HTCondor waits for its machine to be
  idle a while before resuming), if that is within `max_suspend` seconds (600, HTCondor's
  MaxSuspendTime); otherwise it is killed then.
  A job checkpointing or moving at that instant is killed (the checkpoint or move is lost).

Reboots and maintenance windows are known in advance: `lead` seconds before one, the hook
`before_unavailable(now, mask, at, reason)` of the components and of the policy is called
(counted when one of them overrides it), so that a policy may checkpoint or move the jobs on
those nodes before they go.

Failures (`failures`, a failure source string as `--failures` takes) are applied exactly as
the failures component applies them -- same events, same order, same kills, same counters,
those still queued when the last job ends withdrawn -- so a run gives byte-identical jobs.csv
and schedule.swf with either, and the same failure counters (tests prove it).
The run ends when its last job ends: nothing due after that instant is applied, announced
or counted (`run_over`).
Events: kind "availability" (priority 1.5: after failures at 1, before checkpoint completions
at 2, so an interruption at the instant a checkpoint completes loses it) and "notice" (1.4);
failures keep the kind "failure".
"""

from __future__ import annotations

import math
from bisect import bisect_right
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ckptsim.components.availability_params import (  # noqa: F401 (importable from here)
    MODES,
    AvailabilityParams,
    check_days,
    check_params,
    params_identity,
)
from ckptsim.components.failures import FAILURE_COUNTERS
from ckptsim.components.interruptions import KILLING, Interruptions
from ckptsim.engine.components import register_component
from ckptsim.engine.events import register_event_kind
from ckptsim.engine.provides import (
    Announcements,
    FailureTimes,
    OwnerArrivals,
    Progress,
    Suspensions,
    WorkCalendar,
)
from ckptsim.errors import ConfigError
from ckptsim.platform.base import MAINTENANCE, OWNER, REBOOT
from ckptsim.platform.usermodel import is_model

if TYPE_CHECKING:
    from ckptsim.calendar import Calendar
    from ckptsim.engine.simulator import Simulator
    from ckptsim.engine.state import Job

TRACE = "trace"
DAY = 86_400.0
CHUNK = 1 << 16  # changes of the static timelines turned into Python objects at a time

register_event_kind("notice", 1.4, "known interruption ahead (before_unavailable)",
                    "before the machines leave at that instant (a lead of 0)")
register_event_kind("availability", 1.5, "machines leave / rejoin service (owner, reboot, "
                    "maintenance, trace); a suspension's time limit",
                    "after failures, before checkpoint completions: an interruption at that "
                    "instant loses the checkpoint")

COUNTERS = ("unavailability_events", "jobs_killed_unavailable", "jobs_suspended",
            "jobs_resumed", "jobs_killed_after_suspend", "reboots", "unavailable_notices")


@register_component
class Availability(Interruptions):
    """Applies availability timelines to the platform's machines (see the module docstring)."""

    name = "availability"
    description = ("machines unavailable by reason (owners, reboots, maintenance, traces, "
                   "failures): kill or suspend the jobs on them")
    Params = AvailabilityParams
    counter_names = COUNTERS + FAILURE_COUNTERS
    htc_metrics = True
    #: `FailureTimes` only when given failures (see __init__).
    provides = (Progress, Suspensions, OwnerArrivals, Announcements, WorkCalendar, FailureTimes)

    # --- configuration -------------------------------------------------------------------
    @classmethod
    def make_params(cls, values: Any, *, base: Path | None = None) -> AvailabilityParams:
        return check_params(values, base=base, where=cls.name)

    @classmethod
    def check_value(cls, param: str, value: Any, *, base: Path | None = None) -> Any:
        return getattr(cls.make_params({param: value}, base=base), param)

    @classmethod
    def identity(cls, params: AvailabilityParams) -> dict[str, Any]:
        """See `availability_params.params_identity`."""
        return params_identity(params)

    def __init__(self, params: Any = None) -> None:
        super().__init__(params)
        self.counts: dict[str, int] = dict.fromkeys(COUNTERS + FAILURE_COUNTERS, 0)
        if not self.params.failures:
            self.provides = tuple(p for p in type(self).provides if p is not FailureTimes)
            self.unused_hooks = ("on_end",)  # it withdraws the failures left at the end
        self.suspended: dict[int, tuple[Job, float, int, int]] = {}
        self.frozen: dict[int, tuple[float, float]] = {}
        # (time, reason, down|up, machine) of every change when set to a list (for checks;
        # a year of the desktop pool makes millions of them, so none are kept by default).
        self.log: list[tuple[float, str, str, int]] | None = None

    # --- the run -------------------------------------------------------------------------
    def attach(self, sim: Simulator) -> None:
        from ckptsim.calendar import Calendar
        from ckptsim.platform.groups import machines_of

        super().attach(sim)
        prm: AvailabilityParams = self.params
        first_failures = sim.provider(FailureTimes)
        if prm.failures and first_failures is not None and first_failures is not self:
            raise ConfigError("availability.failures", "the failures component is in the run "
                                                       "too; give the failures once")
        machines = machines_of(sim.platform)
        self.masks = [m.mask for m in machines]
        self.owner = [None] * sim.platform.n_nodes
        self.n_machines = len(machines)
        self.held: dict[str, list[int]] = {}
        self.calendar = Calendar(prm.epoch)
        submit = sim.workload.submit
        first = float(submit[0]) if len(submit) else 0.0
        last = float(submit[-1]) if len(submit) else 0.0
        self.days = prm.days if prm.days is not None else int(math.ceil(last / DAY)) + 30
        if prm.days is None and (is_model(prm.owners) or prm.reboot or any(
                getattr(g, "reboot", None) for g in getattr(sim.platform, "groups", ()))):
            check_days(self.days, f"the last submission's day {int(math.ceil(last / DAY))} "
                                  f"+ 30 (the default; give availability:days=N)")
        self.horizon = self.days * DAY
        self.reboot_plan: list[tuple[str, list[int], Any]] = []
        self.reboot_times: dict[int, list[float]] = {}
        if getattr(sim, "checks_only", False):  # built to be checked: no timelines drawn
            return
        self._static(sim, first)
        if prm.failures:
            self._failures(sim, first, last)
        if prm.reboot or any(getattr(g, "reboot", None)
                             for g in getattr(sim.platform, "groups", ())):
            from ckptsim.platform.availability import reboot_schedules

            for name, members, schedule in reboot_schedules(sim.platform, prm.reboot,
                                                            prm.reboot_duration,
                                                            prm.reboot_redraw):
                self.reboot_plan.append((name, members, schedule))
                self._next_reboot(len(self.reboot_plan) - 1, -math.inf)

    def _static(self, sim: Simulator, first: float) -> None:
        """Owners, maintenance and the trace: one sorted array of changes, replayed lazily."""
        from ckptsim.platform.availability import (
            maintenance_intervals,
            owner_intervals,
            parse_maintenance,
        )

        prm: AvailabilityParams = self.params
        parts: list[tuple[str, np.ndarray, np.ndarray, np.ndarray]] = []
        if prm.owners:
            self.owner_counts: dict[str, int] = {}  # a session CSV's reader's
            parts.append((OWNER, *owner_intervals(prm.owners, sim.platform,
                                                  calendar=self.calendar, seed=sim.seed,
                                                  days=self.days, counts=self.owner_counts)))
        windows = parse_maintenance(prm.maintenance)
        if windows:
            parts.append((MAINTENANCE, *maintenance_intervals(windows, sim.platform)))
            for w in windows:
                mask = 0
                for m in maintenance_intervals([w], sim.platform)[0].tolist():
                    mask |= self.masks[m]
                self._notice(w.start, mask, MAINTENANCE)
        if prm.trace:
            from ckptsim.platform.avt import load_source, map_onto, parse_source

            _, opt = parse_source(prm.trace)
            trace = load_source(prm.trace)
            self.trace_counts = dict(trace.counts)  # the reader's, then the replay's
            parts.append((TRACE, *map_onto(trace, self.n_machines,
                                           method=opt.get("map", "first"), seed=sim.seed,
                                           offset=first, skip=float(opt.get("start", 0)),
                                           empty=opt.get("empty", "down"),
                                           counts=self.trace_counts)))
        self.reasons = [p[0] for p in parts]
        # User arrivals (the Interarrival skip policy): owners' logins, a trace's departures.
        self.arrival_parts = [(p[1], p[2]) for p in parts if p[0] in (OWNER, TRACE)]
        self.n_ev = 0
        if not parts:
            return
        t, delta, machine, code = [], [], [], []
        for i, (_, m, a, b) in enumerate(parts):
            keep = b > a  # an empty interval takes nothing
            m, a, b = m[keep], a[keep], b[keep]
            t += [a, b]
            delta += [np.ones(len(a), np.int8), -np.ones(len(a), np.int8)]
            machine += [m, m]
            code += [np.full(2 * len(a), i, np.int8)]
        times = np.concatenate(t)
        deltas = np.concatenate(delta)
        order = np.lexsort((-deltas, times))  # at one instant, machines leave before others return
        # The changes stay numpy arrays, turned into Python objects a chunk at a time as the
        # replay reaches them (a year of the desktop pool has two million of them).
        self._ev = (times[order], np.concatenate(code)[order], np.concatenate(machine)[order],
                    deltas[order])
        self.n_ev = len(times)
        self.cursor = 0
        self._load(0)
        if self.n_ev:
            sim.at(self._ev_time[0], self._replay, kind="availability")

    def _load(self, start: int) -> None:
        """Make the changes from `start` on (a chunk of them) the ones `_replay` reads."""
        end = min(start + CHUNK, self.n_ev)
        times, codes, machines, deltas = self._ev
        reasons = self.reasons
        self._base = start
        self._ev_time = times[start:end].tolist()
        self._ev_change = [(reasons[c], m, d) for c, m, d in
                           zip(codes[start:end].tolist(), machines[start:end].tolist(),
                               deltas[start:end].tolist(), strict=True)]

    def _replay(self, now: float) -> None:
        """Apply every change of the static timelines at `now`, then wait for the next."""
        sim = self.sim
        assert sim is not None
        if run_over(sim):  # the last job ended before this change: the timelines end there
            return
        times = self._ev_time
        i = self.cursor - self._base
        j = bisect_right(times, now, i)
        changes = self._ev_change[i:j]
        while j == len(times) and self._base + j < self.n_ev:  # on into the next chunk
            self._load(self._base + j)
            times = self._ev_time
            j = bisect_right(times, now)
            changes += self._ev_change[:j]
        self.cursor = self._base + j
        self._apply(now, changes)
        # Once every job has ended nothing is left to interrupt: the replay stops there.
        if self.cursor < self.n_ev and not run_over(sim):
            sim.at(times[j], self._replay, kind="availability")

    # --- known interruptions ---------------------------------------------------------------
    def _notice(self, at: float, mask: int, reason: str) -> None:
        if not mask:
            return
        sim = self.sim
        assert sim is not None
        when = max(sim.now, at - self.params.lead)

        def notice(now: float) -> None:
            if run_over(sim):  # the run ended before: nothing is left to announce to
                return
            # Components attached after this one are known only now.
            if not sim.hooks.before_unavailable and not overridden_policy(sim):
                return
            self.counts["unavailable_notices"] += 1
            sim.announce_unavailable(mask, at, reason)

        sim.at(when, notice, kind="notice")

    def _next_reboot(self, g: int, after: float) -> None:
        """Schedule group g's first reboot after `after` (within the horizon)."""
        sim = self.sim
        assert sim is not None
        name, members, schedule = self.reboot_plan[g]
        t0 = max(after, sim.now, 0.0)
        times = self.reboot_times.get(g)
        if times is None:  # every reboot of the group to the horizon, drawn once
            times = self.reboot_times[g] = schedule.times(
                self.calendar, t0, self.horizon, cluster=name, seed=sim.seed).tolist()
        k = bisect_right(times, after)
        while k < len(times) and times[k] < t0:
            k += 1
        if k == len(times) or not times[k] < min(t0 + 8 * DAY, self.horizon):
            return  # none within 8 days: the group reboots no more
        at = times[k]
        mask = 0
        for m in members:
            mask |= self.masks[m]
        self._notice(at, mask, REBOOT)
        duration = self.params.reboot_duration

        def reboot(now: float) -> None:
            if run_over(sim):  # the last job ended before it: the run is over, no reboot
                return
            self.counts["reboots"] += 1
            self._apply(now, [(REBOOT, m, 1) for m in members])
            sim.at(now + duration, lambda t: self._apply(t, [(REBOOT, m, -1) for m in members]),
                   kind="availability")
            if not run_over(sim):  # else nothing is left to interrupt
                self._next_reboot(g, now)

        sim.at(at, reboot, kind="availability")

    def arrivals(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(machine, time) of every user arrival: the owners' logins and the starts of the
        trace's unavailability; None when the run has neither owners nor a trace."""
        parts = getattr(self, "arrival_parts", None)
        if not parts:
            return None
        return (np.concatenate([m for m, _ in parts]).astype(np.int64),
                np.concatenate([t for _, t in parts]).astype(np.float64))

    # --- what the component provides (ckptsim.engine.provides) -----------------------------
    def knows_arrivals(self) -> bool:
        """True when the run has owners or a trace, whose arrivals `arrivals` gives."""
        return bool(self.params.owners or self.params.trace)

    def announces(self) -> bool:
        """True when reboots or maintenance are configured here (a platform file's groups
        may add reboots of their own)."""
        return bool(self.params.reboot or self.params.maintenance)

    def notice_lead(self) -> float:
        """Seconds between an announcement (`before_unavailable`) and its interruption."""
        return float(self.params.lead)

    def work_calendar(self) -> Calendar:
        """The calendar of the run (before the run: the one of the epoch given)."""
        from ckptsim.calendar import Calendar

        got: Calendar | None = getattr(self, "calendar", None)
        return got or Calendar(self.params.epoch)

    def at_end(self, now: float) -> None:
        """Say so when the run outlived the owners' and reboots' timelines: after their
        horizon every machine was available."""
        sim = self.sim
        if sim is None or not (self.params.owners or self.reboot_plan):
            return
        last = max((j.end for j in sim.jobs if j.end is not None), default=0.0)
        if last > self.horizon:
            import logging

            logging.getLogger(__name__).warning(
                f"availability: the last job ended on day {math.ceil(last / DAY)}, after day "
                f"{self.days}, where the owners and reboots end (availability:days, by default "
                f"the last submission + 30 days): from then on every machine was available")

    # --- outputs ---------------------------------------------------------------------------
    def options(self) -> dict[str, Any]:
        """The parameters; with a trace also `trace_loader`: what its reader read, skipped and
        built, and what the replay onto the machines dropped or changed (`read_avt`,
        `map_onto`); with a session CSV `owners_loader` (`owner_intervals`)."""
        out = super().options()
        for key, attr in (("trace_loader", "trace_counts"), ("owners_loader", "owner_counts")):
            counts = getattr(self, attr, None)
            if counts:
                out[key] = dict(sorted(counts.items()))
        return out

    def counters(self) -> dict[str, int]:
        keys = COUNTERS + (FAILURE_COUNTERS if self.params.failures else ())
        return {k: self.counts[k] for k in keys}


def run_over(sim: Simulator) -> bool:
    """True once every job has ended: the run's end (its metrics, the energy meter's
    accounting and the note of `at_end` stop at the last job's end), after which the
    timelines neither take machines nor announce nor count anything."""
    return sim.n_ended == len(sim.jobs)


def overridden_policy(sim: Simulator) -> bool:
    """True when the run's policy overrides `before_unavailable`."""
    from ckptsim.policies.base import Scheduler

    return type(sim.policy).before_unavailable is not Scheduler.before_unavailable


__all__ = ["KILLING", "MODES", "TRACE", "Availability", "AvailabilityParams", "overridden_policy",
           "run_over"]
