"""The invariant checker: on in tests and with `--check` on the command line.

After every scheduling pass it verifies that no node is used by two jobs, that the platform's
free set is exactly the nodes neither a job nor a reason holds, and that time never goes back;
at each start that the job was submitted; at the end of the run that every job of the workload
ended exactly once.

It also keeps its own ledger of every job, fed by the engine's notifications (nodes taken and
given back, overhead phases begun and completed, rate changes, saves, kills), and integrates the
job's rate over the time it progressed -- independently of the engine's bookkeeping.  When a
job ends it checks, for every job (rate-changed and migrated ones included), that the work the
ledger integrated is the work the job had to do, and that the engine's overhead seconds, lost
work and node-holding time agree with the ledger's.
"""

from __future__ import annotations

import math
import sys
from typing import TYPE_CHECKING

from ckptsim.engine.state import DONE, HOLDS_NODES, KILLED, WAITING, Job
from ckptsim.errors import InvariantError
from ckptsim.platform.cluster import Cluster

if TYPE_CHECKING:
    from ckptsim.engine.simulator import Simulator

_EPS = 1e-6
INF = math.inf


def unaccounted(sim: Simulator, used: int) -> str:
    """The error of nodes neither free, held by a job nor out of service: taken outside the
    verbs (a plug-in calling `platform.take` itself), with the run's plug-ins."""
    platform = sim.platform
    lost = platform.all_mask & ~(used | platform.free_mask | platform.down_mask)
    ids = Cluster.node_ids(lost)
    return outside(sim, f"{len(ids)} node(s) {ids[:8]} are neither free, held by a job nor "
                        "out of service: something took them outside the verbs "
                        "(platform.take or allocate called directly)")


def outside(sim: Simulator, what: str) -> str:
    """The error of a free set the verbs did not make (`what`: how it is wrong), with the
    time and the run's plug-ins, whose code may have called the platform itself."""
    plugins = []
    for obj in (sim.policy, *sim.components):
        cls = type(obj)
        if cls.__module__.partition(".")[0] != "ckptsim":
            file = getattr(sys.modules.get(cls.__module__), "__file__", None)
            plugins.append(f"{cls.__name__} ({file})" if file else cls.__name__)
    return (f"at t={sim.now:g}, after the scheduling pass: {what}"
            + (f"; the run's plug-ins: {', '.join(plugins)}" if plugins else ""))


class Ledger:
    """What the checker knows of one job."""

    __slots__ = ("rate", "since", "progress_from", "work", "saved", "pending", "lost", "ovh",
                 "held", "held_since", "restart_end", "phase", "phase_start", "duration",
                 "amount", "done_amount", "then", "rated")

    def __init__(self) -> None:
        self.rate = 1.0
        self.since = 0.0  # the last time the ledger was brought up to date
        self.progress_from = INF  # progress accrues from this time on (inf: it does not)
        self.work = 0.0  # useful work integrated (rolled back by kills)
        self.saved = 0.0
        self.pending = 0.0  # work captured by a checkpoint in flight
        self.lost = 0.0
        self.ovh = 0.0  # overhead seconds
        self.held = 0.0  # node-holding seconds
        self.held_since: float | None = None
        self.restart_end = -INF  # end of a fixed restart overhead (charged in advance)
        self.phase = ""  # overhead phase in progress: restart (amount), checkpoint, migration
        self.phase_start = 0.0
        self.duration = 0.0
        self.amount: float | None = None
        self.done_amount = 0.0  # overhead work done in a phase given as an amount
        self.then = ""
        self.rated = False  # the rate was ever other than 1


class InvariantChecker:
    def __init__(self, sim: Simulator) -> None:
        self.sim = sim
        self.last_time = float("-inf")
        self.ends: dict[int, int] = {}
        self.ledgers: dict[int, Ledger] = {}

    # --- the ledger ----------------------------------------------------------------------
    def _ledger(self, job: Job) -> Ledger:
        """The job's ledger, brought up to now."""
        led = self.ledgers.get(job.index)
        if led is None:
            led = self.ledgers[job.index] = Ledger()
        now = self.sim.now
        if led.progress_from < now:
            frm = led.since if led.since > led.progress_from else led.progress_from
            led.work += led.rate * (now - frm)
        if led.amount is not None and led.phase:
            led.done_amount += led.rate * (now - led.since)
        led.since = now
        return led

    def _cut(self, job: Job, led: Ledger) -> None:
        """An overhead in progress (restart, checkpoint or migration) stops now."""
        now = self.sim.now
        if led.restart_end > now:
            led.ovh -= led.restart_end - now
            led.progress_from = now
        led.restart_end = -INF
        if led.phase:
            self._phase_over(job, led, completed=False)

    def _phase_over(self, job: Job, led: Ledger, *, completed: bool) -> None:
        now = self.sim.now
        spent = now - led.phase_start
        if led.amount is None:
            if spent > led.duration + _EPS * max(1.0, led.duration) or (
                    completed and abs(spent - led.duration) > _EPS * max(1.0, led.duration)):
                raise InvariantError(f"job {job.id}: a {led.phase} of {led.duration:g} s "
                                     f"lasted {spent:g} s")
        elif completed and abs(led.done_amount - led.amount) > _EPS * max(1.0, led.amount):
            raise InvariantError(f"job {job.id}: a {led.phase} of {led.amount:g} s of work "
                                 f"completed after {led.done_amount:g} s of it")
        led.ovh += spent
        led.phase = ""
        led.amount = None

    def _begin(self, led: Ledger, phase: str, duration: float, amount: float | None) -> None:
        led.phase = phase
        led.phase_start = self.sim.now
        led.duration = duration
        led.amount = amount if amount else None
        led.done_amount = 0.0
        led.progress_from = INF

    # --- notifications from the engine -----------------------------------------------------
    def on_time(self, t: float) -> None:
        if t < self.last_time:
            raise InvariantError(f"time went back from {self.last_time:g} to {t:g}")
        self.last_time = t

    def on_start(self, job: Job, overhead: float = 0.0, amount: float | None = None) -> None:
        now = self.sim.now
        if now < job.submit:
            raise InvariantError(f"job {job.id} started at {now:g} before its "
                                 f"submission at {job.submit:g}")
        led = self._ledger(job)
        if led.held_since is not None or led.phase:
            raise InvariantError(f"job {job.id} started while holding nodes")
        led.held_since = now
        if amount:
            self._begin(led, "restart", 0.0, amount)
        else:
            led.restart_end = now + overhead
            led.ovh += overhead
            led.progress_from = now + overhead

    def on_delay(self, job: Job, seconds: float) -> None:
        """The job's progress starts `seconds` later than planned (`sim.delay`)."""
        led = self._ledger(job)
        now = self.sim.now
        led.progress_from = max(led.progress_from, now) + seconds
        led.restart_end = led.progress_from
        led.ovh += seconds

    def on_phase(self, job: Job, phase: str, duration: float, amount: float | None) -> None:
        """A checkpoint or a migration begins now."""
        led = self._ledger(job)
        self._cut(job, led)
        if phase == "checkpoint":
            led.pending = led.work
            led.then = job.then
        self._begin(led, phase, duration, amount)

    def on_save(self, job: Job, back: float = 0.0) -> None:
        """A move saved the job's progress now (a checkpoint commits at its end); `back`:
        the progress saved is that of `back` seconds of work ago."""
        led = self._ledger(job)
        self._cut(job, led)
        led.saved = max(led.saved, led.work - back)
        if not led.phase:
            led.progress_from = self.sim.now

    def on_phase_done(self, job: Job) -> None:
        led = self._ledger(job)
        phase = led.phase
        if not phase:
            raise InvariantError(f"job {job.id}: an overhead completed but none was begun")
        self._phase_over(job, led, completed=True)
        now = self.sim.now
        if phase == "checkpoint":
            led.saved = led.pending
            if led.then != "continue":
                self._released(job, led)
                return
        led.progress_from = now

    def on_rate(self, job: Job) -> None:
        led = self._ledger(job)
        led.rate = job.rate
        led.rated = led.rated or job.rate != 1.0

    def on_kill(self, job: Job) -> None:
        led = self._ledger(job)
        self._cut(job, led)
        led.lost += led.work - led.saved
        led.work = led.saved
        self._released(job, led)

    def _released(self, job: Job, led: Ledger) -> None:
        if led.held_since is None:
            raise InvariantError(f"job {job.id} gave back nodes it did not hold")
        led.held += self.sim.now - led.held_since
        led.held_since = None
        led.progress_from = INF
        led.restart_end = -INF

    def on_end(self, job: Job) -> None:
        self.ends[job.index] = self.ends.get(job.index, 0) + 1
        if self.ends[job.index] > 1:
            raise InvariantError(f"job {job.id} ended twice")
        if job.state == DONE and abs(job.work_done - job.runtime) > _EPS * max(1.0, job.runtime):
            raise InvariantError(f"job {job.id} finished with {job.work_done:g} s of work, "
                                 f"runtime {job.runtime:g}")
        led = self._ledger(job)
        if led.held_since is not None:  # an end event (a kill released the nodes already)
            self._cut(job, led)
            self._released(job, led)
        if job.state == DONE:
            expected = job.runtime
        elif job.status == "killed":
            expected = job.work_target
        else:
            expected = job.work_done
        held = sum(e - s for s, e in job.segments)
        tol = _EPS * max(1.0, held, expected)
        checks = (("useful work", led.work, expected), ("overhead", led.ovh, job.overhead),
                  ("lost work", led.lost, job.lost_work), ("node-holding time", led.held, held))
        for what, mine, engine in checks:
            if abs(mine - engine) > tol:
                raise InvariantError(f"job {job.id}: {what} {engine:g} s, but integrating its "
                                     f"rate over time gives {mine:g} s")
        if not led.rated:
            # At rate 1 throughout: time on nodes = useful work + overhead + lost work.
            useful = held - job.overhead - job.lost_work
            if abs(useful - expected) > tol:
                raise InvariantError(
                    f"job {job.id}: {held:g} s on nodes - {job.overhead:g} s overhead - "
                    f"{job.lost_work:g} s lost = {useful:g} s of useful work, expected "
                    f"{expected:g}")

    def after_pass(self) -> None:
        sim = self.sim
        used = 0
        count = 0
        for job in sim.active.values():
            if job.state not in HOLDS_NODES:
                raise InvariantError(f"job {job.id} is listed as holding nodes but is "
                                     f"{job.state.name}")
            if used & job.mask:
                raise InvariantError(f"job {job.id} uses a node another job holds")
            used |= job.mask
            count += job.mask.bit_count()
        platform = sim.platform
        if used & platform.free_mask:
            ids = Cluster.node_ids(used & platform.free_mask)
            raise InvariantError(outside(sim, f"node(s) {ids[:8]} held by a job are also in the "
                                              "free set: something gave them back outside the "
                                              "verbs (platform.give called directly)"))
        if platform.free_mask & platform.down_mask:
            raise InvariantError("a node out of service is in the free set")
        if (used | platform.free_mask | platform.down_mask) != platform.all_mask:
            raise InvariantError(unaccounted(sim, used))
        if platform.down_idle != platform.down_mask & ~used:
            raise InvariantError("the idle nodes out of service are not the nodes out of "
                                 "service no job holds")
        if platform.n_free != platform.free_mask.bit_count():
            raise InvariantError(outside(sim, f"the free-node count {platform.n_free} does not "
                                              "match the free set "
                                              f"({platform.free_mask.bit_count()}): something "
                                              "took or gave nodes outside the verbs "
                                              "(platform.take, give or allocate called "
                                              "directly)"))
        if not platform.block_counts_consistent():
            raise InvariantError("the per-block free counts do not match the free set")

    def at_end(self) -> None:
        sim = self.sim
        for job in sim.jobs:
            if self.ends.get(job.index, 0) != 1:
                raise InvariantError(f"job {job.id} ended {self.ends.get(job.index, 0)} times")
            if job.state not in (DONE, KILLED) or job.state in WAITING:
                raise InvariantError(f"job {job.id} is {job.state.name} at the end")
        if sim.active:
            raise InvariantError(f"{len(sim.active)} job(s) still hold nodes at the end")
