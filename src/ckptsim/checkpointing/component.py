"""The checkpoint component ("checkpoint", `--checkpoint NAME:key=value,...`): periodic
checkpoints of running jobs under any scheduler, at the interval a policy gives.

When a job starts (or restarts, or resumes) and whenever a checkpoint of it completes, the
component schedules its next checkpoint `tau` seconds after the job's progress (re)starts,
tau = policy.interval(delta, M, R) for the job's checkpoint cost delta, MTBF M and restart
cost R.  At that time, if the job is still RUNNING, it calls ``sim.checkpoint(job, delta,
then="continue")``: the job pauses holding its nodes for delta seconds and its progress at
the checkpoint's start is saved when it completes.  A job the scheduler itself is
checkpointing or moving at that time is skipped (the hooks of that operation reschedule it).

A failure or an eviction during the checkpoint loses it (counted interrupted).  A job killed
after it saved progress restarts from its checkpoint and pays the restart cost R on its nodes
(`sim.delay`; a kill during the restart loses it, and the next start pays again); that
checkpoint is counted as used (utilisation = used / completed).  Restarts after a
scheduler's own checkpoint (ckpt-backfill's preemptions) pay what the scheduler charges.

Checkpoint events are of the kind "checkpoint" (priority 2.6: after failures and overhead
completions at the same instant, so a job that a failure kills or that ends then is not
checkpointed; before submissions).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ckptsim.checkpointing.base import CheckpointPolicy, IntervalContext, parse_policy
from ckptsim.engine.components import Component, register_component
from ckptsim.engine.events import register_event_kind
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
    policy: str = param("none", "interval policy and its options: none, fixed:interval=S,"
                                "cost=S, young:cost=S[,mtbf=S], daly:cost=S[,mtbf=S], opt, "
                                "ratio, startdelay, geometric, minuteinhour, multi (see "
                                "docs/energy.md)")


@register_component
class Checkpointer(Component):
    """Writes periodic checkpoints of running jobs at a policy's interval."""

    name = "checkpoint"
    description = "periodic checkpoints at a policy's interval (none, fixed, young, daly, ...)"
    Params = CheckpointParams
    counter_names = CHECKPOINT_COUNTERS
    aliases = {"checkpoint": "policy"}
    rows = (("checkpoints_started", "periodic checkpoints started"),
            ("checkpoints_completed", "periodic checkpoints completed"),
            ("checkpoints_interrupted", "periodic checkpoints interrupted"),
            ("checkpoint_utilisation", "checkpoint utilisation (used / completed)"),
            ("checkpoint_overhead_s", "checkpoint overhead (s)"),
            ("lost_work_s", "lost work (s)"))

    @classmethod
    def make_params(cls, values: Any, *, base: Path | None = None) -> CheckpointParams:
        prm: CheckpointParams = make_params(CheckpointParams, values, where=cls.name)
        parse_policy(prm.policy)  # refused now, naming the key and the accepted values
        return prm

    @classmethod
    def check_value(cls, param: str, value: Any, *, base: Path | None = None) -> Any:
        value = super().check_value(param, value, base=base)
        if param == "policy":
            parse_policy(value)
        return value

    def __init__(self, params: Any = None) -> None:
        super().__init__(params)
        self.policy: CheckpointPolicy = parse_policy(self.params.policy)
        # Only Opt listens to notices (a listener changes the availability's counters).
        self.unused_hooks = () if self.policy.before_eviction else ("before_unavailable",)
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
        self.since: dict[int, int] = {}  # job index -> checkpoints since its last allocation
        self.hour_offset: float | None = None  # seconds past the hour at time 0
        self.hours: dict[int, Any] = {}  # group index -> its OpeningHours
        self.holding: dict[int, tuple[Job, float]] = {}  # opt: job -> (job, work at start)

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
        failures = sim.component("failures")
        if failures is None:
            raise ConfigError("checkpoint.mtbf", f"{self.policy.name} needs the mean time "
                                                 "between failures: give mtbf=S or run with "
                                                 "failures")
        n_failures = len(failures.times)  # type: ignore[attr-defined]
        submit = sim.workload.submit
        span = float(submit[-1] - submit[0]) if len(submit) else 0.0
        if n_failures == 0 or span <= 0:
            return INF
        return span * sim.platform.n_nodes / (n_failures * job.size)

    def _plan(self, job: Job) -> tuple[float, float]:
        got = self.per_job.get(job.index)
        if got is None:
            sim = self.sim
            assert sim is not None
            memory = -1.0
            if self.policy.params.bandwidth is not None and self.policy.params.memory is None:
                memory = _memory_kb(sim.workload, job.index)
            delta = self.policy.cost(job.size, memory)
            mtbf = self._mtbf(job) if self.policy.uses_mtbf() else INF
            tau = self.policy.interval(delta, mtbf, self.policy.restart_cost(delta))
            if not tau > 0:
                tau = INF  # nothing to save at no cost: no checkpoints
            got = self.per_job[job.index] = (delta, tau)
        return got

    def _schedule(self, job: Job) -> None:
        sim = self.sim
        assert sim is not None
        old = self.token.pop(job.index, None)
        if old is not None:
            sim.cancel(old)
        delta, tau = self._plan(job)
        base = max(job.anchor, sim.now)
        if self.policy.dynamic:
            if self.hour_offset is None:
                self.hour_offset = _hour_offset(sim)
            ctx = IntervalContext(job.index, self.since.get(job.index, 0), base,
                                  (base + self.hour_offset) % 3600.0, sim.seed,
                                  self._open_at(job))
            tau = self.policy.next_interval(delta, self._mtbf(job) if self.policy.needs_mtbf
                                            else INF, self.policy.restart_cost(delta), ctx)
            if not tau > 0:
                tau = INF
        if tau == INF:
            return
        at = base + tau
        if at < INF:
            self.token[job.index] = sim.at(at, self._make_fire(job), kind="checkpoint")

    def _open_at(self, job: Job) -> Callable[[float], bool] | None:
        """Whether the cluster of the job's first node is open at a time (its group's opening
        hours on the availability epoch's calendar); None on a platform without groups."""
        from ckptsim.platform.groups import GroupedPlatform
        from ckptsim.platform.hours import OpeningHours

        sim = self.sim
        assert sim is not None
        platform = sim.platform
        if not isinstance(platform, GroupedPlatform) or not job.mask:
            return None
        g = platform.node_group((job.mask & -job.mask).bit_length() - 1)
        hours = self.hours.get(g)
        if hours is None:
            text = platform.description.groups[g].hours
            hours = self.hours[g] = OpeningHours.parse(text or "24h", key="hours")
        calendar = _calendar(sim)
        return lambda t: bool(hours.is_open(calendar, t))

    def _make_fire(self, job: Job):  # type: ignore[no-untyped-def]
        def fire(now: float) -> None:
            self._fire(job, now)

        return fire

    def _fire(self, job: Job, now: float) -> None:
        self.token.pop(job.index, None)
        if job.state is not RUNNING:
            return  # ended, killed, or the scheduler is checkpointing / moving it
        sim = self.sim
        assert sim is not None
        if job.anchor > now:  # still paying a restart or wake-up: count tau from its end
            self._schedule(job)
            return
        delta, _ = self._plan(job)
        self.inflight[job.index] = now
        self.started += 1
        sim.checkpoint(job, delta, then="continue")

    # --- hooks ----------------------------------------------------------------------------------
    def on_start(self, job: Job) -> None:
        if job.state is not RUNNING:
            return  # a move's new nodes: on_migrated reschedules
        idx = job.index
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

    def on_checkpointed(self, job: Job) -> None:
        begin = self.inflight.pop(job.index, None)
        if begin is not None:
            self.completed += 1
            self.since[job.index] = self.since.get(job.index, 0) + 1
            self.ckpt_seconds += self.sim.now - begin  # type: ignore[union-attr]
        if job.state is RUNNING:
            self._schedule(job)

    def on_migrated(self, job: Job) -> None:
        if job.state is RUNNING:
            self._schedule(job)

    def on_release(self, job: Job) -> None:
        if job.mask:
            return  # a move's source nodes
        sim = self.sim
        assert sim is not None
        now = sim.now
        idx = job.index
        self.holding.pop(idx, None)
        old = self.token.pop(idx, None)
        if old is not None:
            sim.cancel(old)
        begin = self.inflight.pop(idx, None)
        if begin is not None:  # our checkpoint ("continue") cut: a kill
            self.interrupted += 1
            self.ckpt_seconds += now - begin
            self.ckpt_cut_seconds += now - begin
        end = self.restarting.pop(idx, None)
        if end is not None and end > now:
            self.restarts_interrupted += 1
            self.restart_seconds -= end - now

    def before_unavailable(self, now: float, mask: int, at: float, reason: str) -> None:
        if not self.policy.before_eviction:
            return
        sim = self.sim
        assert sim is not None
        if at > now:
            sim.at(at, lambda t: self._save_before(t, mask), kind="notice")
        else:
            self._save_before(now, mask)

    def _save_before(self, now: float, mask: int) -> None:
        """Opt: checkpoint over [now - delta, now] each running job on `mask` that has run
        at least delta since its allocation (the eviction follows at this instant)."""
        sim = self.sim
        assert sim is not None
        for idx in sorted(self.holding):
            job, start_work = self.holding[idx]
            if job.state is not RUNNING or not job.mask & mask:
                continue
            delta, _ = self._plan(job)
            done = job.progress(now)
            if done - start_work < delta or done <= job.work_saved:
                continue
            saved = done if self.policy.params.save == "end" else job.progress(now - delta)
            job.work_saved = max(job.work_saved, saved)
            if sim.checker is not None:
                sim.checker.on_save(job, back=done - job.work_saved)
            job.n_checkpoints += 1
            self.started += 1
            self.completed += 1
            self.since[idx] = self.since.get(idx, 0) + 1
            self.ckpt_seconds += delta

    def on_requeue(self, job: Job, reason: str) -> None:
        self.since.pop(job.index, None)  # a new allocation counts its checkpoints afresh
        if reason != "checkpoint" and job.work_saved > 0 and job.n_checkpoints:
            self.recover.add(job.index)

    def on_end(self, job: Job) -> None:
        self.recover.discard(job.index)
        self.per_job.pop(job.index, None)
        self.since.pop(job.index, None)

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
                "checkpoint_interrupted_s": self.ckpt_cut_seconds}

    def options(self) -> dict[str, Any]:
        return {"policy": self.policy.name,
                **{k: v for k, v in dataclasses.asdict(self.policy.params).items()
                   if v is not None}}


def _calendar(sim: Simulator) -> Any:
    """The availability component's calendar (its epoch), else the default one."""
    from ckptsim.platform.calendar import Calendar

    avail = sim.component("availability")
    if avail is None:
        return Calendar()
    return getattr(avail, "calendar", None) or Calendar(avail.params.epoch)  # type: ignore


def _hour_offset(sim: Simulator) -> float:
    """Seconds past the wall-clock hour at time 0 (the availability component's epoch)."""
    return float(_calendar(sim).offset % 3600)


def _memory_kb(workload: Any, index: int) -> float:
    """The job's SWF memory per processor (KB): used, else requested; -1 when unknown."""
    from ckptsim.workload.model import SWF_INDEX

    row = workload.fields[index]
    for name in ("used_memory", "requested_memory"):
        value = float(row[SWF_INDEX[name]])
        if value >= 0:
            return value
    return -1.0
