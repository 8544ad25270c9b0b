"""What the checkpoint component does beyond periodic checkpoints (`components.checkpoint`):
the skip decision, proactive checkpoints (scheduled, clusteropening), Opt's checkpoint just
before every eviction, and what skip and proactive policies ask of a job (its cluster, whether
it is open, its next opening, its last checkpoint).  A mixin of `Checkpointer`."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ckptsim.engine.provides import PowerStates, Progress, Suspensions, WorkCalendar
from ckptsim.engine.state import RUNNING
from ckptsim.platform.groups import GroupedPlatform
from ckptsim.platform.hours import OpeningHours

if TYPE_CHECKING:
    from ckptsim.checkpointing.base import CheckpointPolicy
    from ckptsim.checkpointing.plan import Plan, ProactivePolicy
    from ckptsim.engine.simulator import Simulator
    from ckptsim.engine.state import Job

#: Counters of a combination (only runs with skip or proactive policies report them).
PLAN_COUNTERS = ("checkpoints_skipped", "proactive_checkpoints", "proactive_migrations")


class PlanAgent:
    """Skip, proactive and Opt behaviour of the checkpoint component."""

    sim: Simulator | None
    plan: Plan
    policy: CheckpointPolicy
    token: dict[int, int]
    inflight: dict[int, float]
    recover: set[int]
    holding: dict[int, tuple[Job, float]]
    hours: dict[int, Any]
    started: int
    completed: int
    ckpt_seconds: float
    since: dict[int, int]

    def _init_plan(self) -> None:
        self.skipped = self.pro_started = self.migrations = 0
        self.pro_token: dict[tuple[int, int], int] = {}  # (job, policy) -> handle
        self.pro_inflight: dict[int, tuple[ProactivePolicy, int]] = {}  # job -> (policy, n)
        self.moving: set[int] = set()  # jobs requeued after a proactive checkpoint
        self.last_done: dict[int, float] = {}  # job -> completion of its last checkpoint
        self.checked = False
        self.open_fns: dict[int, Callable[[float], bool]] = {}  # group -> `open_at`'s answer
        self.open_of: dict[int, tuple[int, Any]] = {}  # job -> (its nodes, `open_at`'s answer)
        for part in (*self.plan.skips, *self.plan.proactive):
            part.bind(self)

    def _late_checks(self) -> None:
        """Inputs the parts need, checked once every component is attached."""
        if not self.checked:
            self.checked = True
            for part in (*self.plan.skips, *self.plan.proactive):
                part.check()

    def _plan(self, job: Job) -> tuple[float, float]:
        raise NotImplementedError

    # --- what the parts ask ---------------------------------------------------------------------
    def cluster_of(self, job: Job) -> int:
        """The group of the job's first node (0 on a platform without groups)."""
        sim = self.sim
        assert sim is not None
        node = (job.mask & -job.mask).bit_length() - 1
        group = getattr(sim.platform, "node_group", None)
        return int(group(node)) if group is not None and job.mask else 0

    def _group_hours(self, job: Job) -> tuple[int, Any] | None:
        """The group of the job's first node and its opening hours (parsed once a group);
        None on a platform without groups or for a job holding no nodes."""
        sim = self.sim
        assert sim is not None
        if not job.mask or not isinstance(sim.platform, GroupedPlatform):
            return None
        g = self.cluster_of(job)
        hours = self.hours.get(g)
        if hours is None:
            text = sim.platform.description.groups[g].hours
            hours = self.hours[g] = OpeningHours.parse(text or "24h", key="hours")
        return g, hours

    def open_at(self, job: Job) -> Callable[[float], bool] | None:
        """Whether the cluster of the job's first node is open at a time (its group's opening
        hours on the availability epoch's calendar); None on a platform without groups.
        One function a group, made once, and kept for each job while its nodes stay the same
        (a dynamic policy is given it at every interval)."""
        kept = self.open_of.get(job.index)
        if kept is not None and kept[0] is job.mask:
            return kept[1]
        got = self._group_hours(job)
        fn = None
        if got is not None:
            g, hours = got
            fn = self.open_fns.get(g)
            if fn is None:
                calendar = calendar_of(self.sim)
                fn = self.open_fns[g] = lambda t: bool(hours.is_open(calendar, t))
        self.open_of[job.index] = (job.mask, fn)
        return fn

    def next_opening(self, job: Job, t: float) -> float | None:
        """The first instant after t at which the job's cluster opens; None if never."""
        group = self._group_hours(job)
        if group is None or group[1].always:
            return None
        got = group[1].next_opening(calendar_of(self.sim), t)
        return got if math.isfinite(got) else None

    def last_checkpoint(self, job: Job, none: float = 0.0) -> float:
        """When the job's last checkpoint completed (`none` when it has none: by default 0,
        time 0 of the run, as the seed's c_j)."""
        return self.last_done.get(job.index, none)

    # --- skip ------------------------------------------------------------------------------
    def _skips(self, job: Job, now: float) -> bool:
        """True when a skip policy defers this checkpoint (counted)."""
        for part in self.plan.skips:
            if part.skip(job, now):
                self.skipped += 1
                return True
        return False

    # --- proactive checkpoints ---------------------------------------------------------------
    def _schedule_proactive(self, job: Job) -> None:
        sim = self.sim
        assert sim is not None
        if job.state is not RUNNING:
            return
        delta, _ = self._plan(job)
        for k, part in enumerate(self.plan.proactive):
            old = self.pro_token.pop((job.index, k), None)
            if old is not None:
                sim.cancel(old)
            got = part.next_checkpoint(job, sim.now, delta)
            if got is not None:
                at, key = got
                self.pro_token[job.index, k] = sim.at(
                    at, self._make_proactive(job, k, key), kind="checkpoint")

    def _make_proactive(self, job: Job, k: int, key: Any):  # type: ignore[no-untyped-def]
        def fire(now: float) -> None:
            self._fire_proactive(job, k, key, now)

        return fire

    def _fire_proactive(self, job: Job, k: int, key: Any, now: float) -> None:
        self.pro_token.pop((job.index, k), None)
        if job.state is not RUNNING:
            return  # ended, or checkpointing: on_checkpointed plans again
        sim = self.sim
        assert sim is not None
        if job.anchor > now:  # paying a restart: plan again from its end
            self._schedule_proactive(job)
            return
        part = self.plan.proactive[k]
        self._as_proactive(job, part, key)
        delta, _ = self._plan(job)
        self.inflight[job.index] = now
        self.started += 1
        sim.checkpoint(job, delta, then=part.then)

    def _as_proactive(self, job: Job, part: ProactivePolicy, key: Any) -> None:
        """The checkpoint beginning now is `part`'s for `key` (counted, followed by `then`)."""
        sim = self.sim
        assert sim is not None
        part.taken(job, key)
        if part.then == "requeue" and job.rate == 0.0:
            # Suspended by its owner: it leaves the machine, so its suspension ends here.
            suspensions: Suspensions | None = sim.provider(Suspensions)
            if suspensions is not None:
                suspensions.release(job)
        self.pro_inflight[job.index] = (part, job.n_checkpoints)
        self.pro_started += 1

    def _adopted(self, job: Job, now: float, delta: float) -> str:
        """What follows the interval policy's checkpoint beginning now: `continue`, or the
        `then` of a proactive part whose pending checkpoint it stands for (`adopts`)."""
        for k, part in enumerate(self.plan.proactive):
            key = part.adopts(job, now, delta)
            if key is not None:
                old = self.pro_token.pop((job.index, k), None)
                if old is not None and self.sim is not None:
                    self.sim.cancel(old)
                self._as_proactive(job, part, key)
                return part.then
        return "continue"

    def _proactive_done(self, job: Job) -> None:
        """A checkpoint of the job completed: a proactive one requeued it (a migration)."""
        sim = self.sim
        assert sim is not None
        self.last_done[job.index] = sim.now
        got = self.pro_inflight.pop(job.index, None)
        if got is not None and got[0].then == "requeue":
            self.migrations += 1
            self.moving.add(job.index)

    def _proactive_release(self, job: Job) -> bool:
        """The job gave its nodes back: drop its proactive events; True when the release
        is a proactive checkpoint's completion (then=requeue), not a kill."""
        sim = self.sim
        assert sim is not None
        for k in range(len(self.plan.proactive)):
            old = self.pro_token.pop((job.index, k), None)
            if old is not None:
                sim.cancel(old)
        got = self.pro_inflight.get(job.index)
        if got is not None and job.n_checkpoints > got[1]:
            return True
        self.pro_inflight.pop(job.index, None)
        return False

    def before_unavailable(self, now: float, mask: int, at: float, reason: str) -> None:
        sim = self.sim
        assert sim is not None
        self._late_checks()
        for part in self.plan.proactive:
            if part.listens:
                part.notice(now, mask, at, reason)
        for job in sorted(sim.active.values(), key=lambda j: j.index):
            if job.mask & mask and job.state is RUNNING:
                self._schedule_proactive(job)

    # --- Opt: a checkpoint just before every eviction ---------------------------------------
    def before_eviction(self, now: float, job: Job, reason: str) -> None:
        """Opt: checkpoint over [now - delta, now] a running job about to be evicted that has
        run at least delta since its allocation."""
        sim = self.sim
        assert sim is not None
        entry = self.holding.get(job.index)
        if entry is None or job.state is not RUNNING:
            return
        _, start_work = entry
        delta, _ = self._plan(job)
        done = job.progress(now)
        if done - start_work < delta or done <= job.work_saved:
            return
        if self.policy.params.save == "end":
            saved = done
        else:
            progress: Progress | None = sim.provider(Progress)
            saved = progress.work_at(job, now - delta) if progress is not None \
                else job.progress(now - delta)
        sim.save_progress(job, min(saved, done))
        meter: PowerStates | None = sim.provider(PowerStates)
        saved_at = getattr(meter, "progress_saved", None)
        if saved_at is not None:  # the node time since now - delta is what the kill loses
            saved_at(job, now - delta)
        self.started += 1
        self.completed += 1
        self.since[job.index] = self.since.get(job.index, 0) + 1
        self.ckpt_seconds += delta

    def plan_counters(self) -> dict[str, Any]:
        if not self.plan.combined:
            return {}
        return {"checkpoints_skipped": self.skipped, "proactive_checkpoints": self.pro_started,
                "proactive_migrations": self.migrations}


def calendar_of(sim: Simulator | None) -> Any:
    """The calendar of the run's machines (`WorkCalendar`: the availability component's, its
    epoch), else the default one."""
    from ckptsim.calendar import Calendar

    clock: WorkCalendar | None = sim.provider(WorkCalendar) if sim is not None else None
    if clock is None:
        return Calendar()
    return clock.work_calendar()
