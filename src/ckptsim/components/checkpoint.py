"""The checkpoint component ("checkpoint", `--checkpoint NAME:key=value,...`): periodic
checkpoints of running jobs under any scheduler, at the interval a policy gives.

When a job starts (or restarts, or resumes) and whenever a checkpoint of it completes, the
component schedules its next checkpoint `tau` seconds after the job's progress (re)starts,
tau = policy.interval(delta, M, R) for the job's checkpoint cost delta, MTBF M and restart
cost R.  At that time, if the job is still RUNNING, it calls ``sim.checkpoint(job, delta,
then="continue")``: the job pauses holding its nodes for delta seconds and its progress at
the checkpoint's start is saved when it completes.  A job the scheduler itself is
checkpointing or moving at that time is skipped (the hooks of that operation reschedule it).
A job suspended in place by its machine's owner is checkpointed then too (`suspended=take`,
the default); `suspended=defer` holds the checkpoint until it resumes (`checkpointsuspend`).

A failure or an eviction during the checkpoint loses it (counted interrupted).  A job killed
after it saved progress restarts from its checkpoint and pays the restart cost R on its nodes
(`sim.delay`; a kill during the restart loses it, and the next start pays again); that
checkpoint is counted as used (utilisation = used / completed).  Restarts after a
scheduler's own checkpoint (ckpt-backfill's preemptions) pay what the scheduler charges.

Checkpoint events are of the kind "checkpoint" (priority 2.6: after failures and overhead
completions at the same instant, so a job a failure kills or that ends then is not checkpointed).

The policy string may combine an interval policy with skip and proactive policies
(`checkpointing.plan`, e.g. ``fixed:interval=1800,cost=60+closedcluster+scheduled``); the
mixin `components.checkpointagent.PlanAgent` runs them, and Opt's checkpoint before every eviction.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ckptsim.checkpointing.base import CheckpointPolicy, IntervalContext, job_memory_kb
from ckptsim.checkpointing.intervals import MIN_INTERVAL, checked_interval, failures_mtbf, too_short
from ckptsim.checkpointing.plan_table import plan_value, table_value
from ckptsim.components.checkpointagent import PLAN_COUNTERS, PlanAgent, calendar_of
from ckptsim.components.checkpointsuspend import DeferAgent
from ckptsim.engine.components import Component, register_component
from ckptsim.engine.events import register_event_kind
from ckptsim.engine.provides import FailureTimes
from ckptsim.engine.state import RUNNING
from ckptsim.errors import ConfigError
from ckptsim.params import make_params, param

if TYPE_CHECKING:
    from ckptsim.engine.simulator import Simulator
    from ckptsim.engine.state import Job

INF = math.inf
register_event_kind("checkpoint", 2.6, "periodic checkpoint begins",
                    "after failures and completions at that instant, before submissions")

CHECKPOINT_COUNTERS = ("checkpoints_started", "checkpoints_completed",
                       "checkpoints_interrupted", "checkpoints_used", "checkpoint_utilisation",
                       "checkpoint_overhead_s", "restart_overhead_s", "restarts_interrupted",
                       "lost_work_s", "checkpoint_interrupted_s")


@dataclasses.dataclass(frozen=True)
class CheckpointParams:
    # A `CheckpointPlan` once made (`Checkpointer.make_params`: from the string, or a table).
    policy: Any = param("none", "policies and their options, parts joined by +: one "
                                "interval policy (none, fixed:interval=S,cost=S, young:cost=S"
                                "[,mtbf=S], daly, ratio, startdelay, geometric, minuteinhour, "
                                "multi), skip policies (closedcluster, interarrival:w=,m=,l=,"
                                "d=,scope=) and proactive ones (scheduled, clusteropening); "
                                "or opt alone. E.g. fixed:interval=1800,cost=60+closedcluster"
                                "+scheduled (see docs/energy.md)")


@register_component
class Checkpointer(DeferAgent, PlanAgent, Component):
    """Writes periodic checkpoints of running jobs at a policy's interval."""

    name = "checkpoint"
    description = ("checkpoints of running jobs: an interval policy (none, fixed, young, "
                   "daly, ...), skip and proactive policies, or opt")
    Params = CheckpointParams
    counter_names = CHECKPOINT_COUNTERS + PLAN_COUNTERS
    aliases = {"checkpoint": "policy"}
    rows = (("checkpoints_started", "checkpoints started"),
            ("checkpoints_completed", "checkpoints completed"),
            ("checkpoints_interrupted", "checkpoints interrupted"),
            ("checkpoint_utilisation", "checkpoint utilisation (used / completed)"),
            ("checkpoint_overhead_s", "checkpoint overhead (s)"),
            ("checkpoints_skipped", "checkpoints skipped"),
            ("proactive_checkpoints", "proactive checkpoints started"),
            ("proactive_migrations", "jobs requeued after a proactive checkpoint"),
            ("lost_work_s", "lost work (s)"))

    #: Parameters whose made value (the plan) is passed inward instead of the text given.
    parsed_params = ("policy",)
    #: Parameters a spec may give as a table, grid axes inside (`table_value` checks a key);
    #: the keys whose list of names is one value.
    table_params = {"policy": ("skip", "proactive")}

    @classmethod
    def make_params(cls, values: Any, *, base: Path | None = None) -> CheckpointParams:
        """The plan parsed here, once (refused now, naming the key and the accepted values):
        a string, a table (`plan_from_table`) or a `CheckpointPlan` made before."""
        values = dict(values)
        if "policy" in values:
            values["policy"] = plan_value(values["policy"], f"{cls.name}.policy")
        return make_params(CheckpointParams, values, where=cls.name)

    @classmethod
    def table_value(cls, param: str, path: tuple[str, ...], value: Any) -> Any:
        """One value of the `policy` table checked alone (`checkpointing.plan.table_value`)."""
        return table_value(path, value, where=f"{cls.name}.{param}")

    @classmethod
    def identity(cls, params: Any) -> dict[str, Any]:
        """The plan's string form (a table's equivalent string), as run ids always hashed."""
        return {"policy": str(params.policy)}

    @classmethod
    def help_lines(cls) -> list[str]:
        """The policies of a `policy` string, by kind, with their own options."""
        from ckptsim.checkpointing.base import help_lines

        return help_lines()

    @classmethod
    def check_value(cls, param: str, value: Any, *, base: Path | None = None) -> Any:
        if param == "policy":
            return cls.make_params({"policy": value}, base=base).policy
        return super().check_value(param, value, base=base)

    def uses(self) -> tuple[type, ...]:
        """This component and the policies of its plan."""
        return (type(self), *dict.fromkeys(
            type(p) for p in (self.plan.interval, *self.plan.skips, *self.plan.proactive)
            if p is not None))

    def __init__(self, params: Any = None) -> None:
        super().__init__(params)
        self.plan = plan_value(self.params.policy, "checkpoint.policy").build()
        self.policy: CheckpointPolicy = self.plan.interval
        # Only Scheduled listens to notices (a listener changes the availability's counters),
        # only Opt to evictions.
        self.unused_hooks = tuple(
            hook for hook, used in (
                ("before_unavailable", any(p.listens for p in self.plan.proactive)),
                ("before_eviction", self.policy.before_eviction)) if not used)
        self.started = self.completed = self.interrupted = 0
        self.restarts_interrupted = 0
        self.ckpt_seconds = 0.0
        self.ckpt_cut_seconds = 0.0  # of checkpoints cut by a kill
        self.restart_seconds = 0.0
        self.used: set[tuple[int, int]] = set()  # (job, checkpoint number) used to recover
        self.token: dict[int, int] = {}  # job index -> handle of its pending checkpoint
        self.inflight: dict[int, float] = {}  # job index -> begin of our checkpoint
        self.recover: set[int] = set()  # jobs killed after a save: their restart pays R
        self.restarting: dict[int, float] = {}  # job index -> end of the restart it pays
        self.per_job: dict[int, tuple[float, float]] = {}  # job index -> (delta, tau)
        # job index -> (the time its next checkpoint is counted from, its overhead then)
        self.counted: dict[int, tuple[float, float]] = {}
        self.since: dict[int, int] = {}  # job index -> intervals ended since its allocation
        self.hour_offset: float | None = None  # seconds past the hour at time 0
        self.hours: dict[int, Any] = {}  # group index -> its OpeningHours
        self.holding: dict[int, tuple[Job, float]] = {}  # opt: job -> (job, work at start)
        self._init_plan()
        self._init_defer()

    def attach(self, sim: Simulator) -> None:
        super().attach(sim)
        if self.policy.name in ("young", "daly") and self.policy.params.cost == 0:
            raise ConfigError("checkpoint.cost", "must be > 0 for young and daly (their "
                                                 "interval is 0 for a free checkpoint)")

    # --- the interval of a job ----------------------------------------------------------------
    def _mtbf(self, job: Job) -> float:
        m = self.policy.params.mtbf
        if m is not None:
            return float(m)
        sim = self.sim
        assert sim is not None
        return failures_mtbf(self._failure_times(), sim.workload.submit, sim.platform.n_nodes,
                             job)

    def _failure_times(self) -> FailureTimes:
        """The run's failure schedule, which M is derived from when mtbf is not given."""
        assert self.sim is not None
        failures: FailureTimes | None = self.sim.provider(FailureTimes)
        if failures is None:
            raise ConfigError("checkpoint.mtbf", f"{self.policy.name} needs the mean time "
                                                 "between failures: give mtbf=S or run with "
                                                 "failures")
        return failures

    def ready(self) -> None:
        """Before the run, what a job's first checkpoint would find missing."""
        self._late_checks()
        self._check_listen()
        if self._reads_mtbf() and self.policy.params.mtbf is None:
            self._failure_times()

    def _reads_mtbf(self) -> bool:
        """Whether the policy is given M: when it reads it, or when the user gave mtbf=."""
        return self.policy.uses_mtbf() or self.policy.params.mtbf is not None

    def _plan(self, job: Job) -> tuple[float, float]:
        got = self.per_job.get(job.index)
        if got is None:
            sim = self.sim
            assert sim is not None
            memory = -1.0
            if self.policy.params.bandwidth is not None and self.policy.params.memory is None:
                memory = job_memory_kb(sim.workload, job.index)
            delta = self.policy.cost(job.size, memory)
            if self.policy.dynamic:  # next_interval answers before every checkpoint
                got = self.per_job[job.index] = (delta, INF)
                return got
            mtbf = self._mtbf(job) if self._reads_mtbf() else INF
            tau = checked_interval(self.policy, "interval", job, self.policy.interval(
                delta, mtbf, self.policy.restart_cost(delta)))
            if not tau > 0:
                tau = INF  # nothing to save at no cost: no checkpoints
            elif tau < MIN_INTERVAL:
                raise too_short(self.policy, job, tau, delta, mtbf)
            got = self.per_job[job.index] = (delta, tau)
        return got

    def _schedule(self, job: Job, base: float | None = None) -> None:
        """The job's next checkpoint, tau after `base` (default: its progress start)."""
        sim = self.sim
        assert sim is not None
        old = self.token.pop(job.index, None)
        if old is not None:
            sim.cancel(old)
        delta, tau = self._plan(job)
        if base is None:
            base = max(job.anchor, sim.now)
        if self.policy.dynamic:
            if self.hour_offset is None:
                self.hour_offset = _hour_offset(sim)
            ctx = IntervalContext(job.index, self.since.get(job.index, 0), base,
                                  (base + self.hour_offset) % 3600.0, sim.seed,
                                  self.open_at(job))
            tau = checked_interval(self.policy, "next_interval", job, self.policy.next_interval(
                delta, self._mtbf(job) if self._reads_mtbf() else INF,
                self.policy.restart_cost(delta), ctx))
            if not tau > 0:
                tau = INF
        if tau == INF:
            return
        at = base + tau
        if at < INF:
            self.token[job.index] = sim.at(at, self._make_fire(job), kind="checkpoint")
            self.counted[job.index] = (base, -1.0 if job.ovh_rated else job.overhead)
            if self.defer:
                self.due[job.index] = (base, at)

    def _make_fire(self, job: Job):  # type: ignore[no-untyped-def]
        def fire(now: float) -> None:
            self._fire(job, now)

        return fire

    def _fire(self, job: Job, now: float) -> None:
        self.token.pop(job.index, None)
        base, overhead = self.counted.pop(job.index, (now, -1.0))
        if job.state is not RUNNING:
            return  # ended, killed, or the scheduler is checkpointing / moving it
        if 0 <= overhead < job.overhead:  # held since tau was counted from base (a wake-up
            self._schedule(job, base + job.overhead - overhead)  # after our on_start): later
            return
        if self.defer and self._holds(job, now):
            return  # suspended by its owner: at the resume (`checkpointsuspend`)
        sim = self.sim
        assert sim is not None
        if job.anchor > now:  # still paying a restart or wake-up: count tau from its end
            self._schedule(job)
            return
        if self.plan.skips and self._skips(job, now):
            # Deferred to the next interval: this one has ended (StartDelay's delay is over,
            # Geometric's n moves on).
            self.since[job.index] = self.since.get(job.index, 0) + 1
            self._schedule(job)
            return
        delta, _ = self._plan(job)
        self.inflight[job.index] = now
        self.started += 1
        sim.checkpoint(job, delta, then=self._adopted(job, now, delta)
                       if self.plan.proactive else "continue")

    # --- hooks ----------------------------------------------------------------------------------
    def on_start(self, job: Job) -> None:
        if job.state is not RUNNING:
            return  # a move's new nodes: on_migrated reschedules
        idx = job.index
        if self.plan.combined:
            self._late_checks()
        if self.defer and not self.listening:
            self._listen()
        if self.policy.before_eviction and idx not in self.holding:
            self.holding[idx] = (job, job.work_done)
        if idx in self.recover:
            self.recover.discard(idx)
            sim = self.sim
            assert sim is not None
            self.used.add((idx, job.n_checkpoints))
            delta, _ = self._plan(job)
            r = self.policy.restart_cost(delta)
            if r > 0 and not job.ovh_rated:
                sim.delay(job, r)
                self.restarting[idx] = sim.now + r
                self.restart_seconds += r
        self._schedule(job)
        if self.plan.proactive:
            self._schedule_proactive(job)

    def on_checkpointed(self, job: Job) -> None:
        begin = self.inflight.pop(job.index, None)
        if begin is not None:
            self.completed += 1
            self.since[job.index] = self.since.get(job.index, 0) + 1
            self.ckpt_seconds += self.sim.now - begin  # type: ignore[union-attr]
        if self.plan.combined:
            self._proactive_done(job)
        if job.state is RUNNING:
            self._schedule(job)
            if self.plan.proactive:
                self._schedule_proactive(job)

    def on_migrated(self, job: Job) -> None:
        if job.state is RUNNING:
            self._schedule(job)
            if self.plan.proactive:
                self._schedule_proactive(job)

    def on_release(self, job: Job) -> None:
        if self.defer:
            self._forget(job)
        if job.mask:
            return  # a move's source nodes
        sim = self.sim
        assert sim is not None
        now = sim.now
        idx = job.index
        self.holding.pop(idx, None)
        self.counted.pop(idx, None)
        old = self.token.pop(idx, None)
        if old is not None:
            sim.cancel(old)
        if self.plan.proactive and self._proactive_release(job):
            return  # a proactive checkpoint completed and requeued it: on_checkpointed counts
        begin = self.inflight.pop(idx, None)
        if begin is not None:  # our checkpoint cut: a kill
            self.interrupted += 1
            self.ckpt_seconds += now - begin
            self.ckpt_cut_seconds += now - begin
        end = self.restarting.pop(idx, None)
        if end is not None and end > now:
            self.restarts_interrupted += 1
            self.restart_seconds -= end - now

    def on_requeue(self, job: Job, reason: str) -> None:
        self.since.pop(job.index, None)  # a new allocation counts its checkpoints afresh
        moved = job.index in self.moving  # a proactive checkpoint's requeue: the restart pays R
        self.moving.discard(job.index)
        if (reason != "checkpoint" or moved) and job.work_saved > 0 and job.n_checkpoints:
            self.recover.add(job.index)

    def on_end(self, job: Job) -> None:
        self.recover.discard(job.index)
        self.per_job.pop(job.index, None)
        self.since.pop(job.index, None)
        self.last_done.pop(job.index, None)
        self.open_of.pop(job.index, None)

    def counters(self) -> dict[str, Any]:
        sim = self.sim
        lost = sum(j.lost_work for j in sim.jobs) if sim is not None else 0.0
        used = len(self.used)
        return {"checkpoints_started": self.started, "checkpoints_completed": self.completed,
                "checkpoints_interrupted": self.interrupted, "checkpoints_used": used,
                "checkpoint_utilisation": used / self.completed if self.completed else 0.0,
                "checkpoint_overhead_s": self.ckpt_seconds,
                "restart_overhead_s": self.restart_seconds,
                "restarts_interrupted": self.restarts_interrupted, "lost_work_s": lost,
                "checkpoint_interrupted_s": self.ckpt_cut_seconds, **self.plan_counters()}

    def options(self) -> dict[str, Any]:
        return self.plan.options()


def _hour_offset(sim: Simulator) -> float:
    """Seconds past the wall-clock hour at time 0 (the availability component's epoch)."""
    return float(calendar_of(sim).offset % 3600)
