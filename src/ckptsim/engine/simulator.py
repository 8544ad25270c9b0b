"""The discrete-event engine: the only code that advances time or changes job state.

`Simulator(workload, scheduler, platform=..., components=...)` replays a workload on a
platform (`ckptsim.platform.base`) under one scheduling policy, with components
(`ckptsim.engine.components`: failures, ...) plugged in.  Policies and components act through
the verbs (`start`, `checkpoint`, `kill`, `evict`, `migrate`, `set_rate`, `wake_at` /
`cancel_timer`, `at` / `cancel`, `announce_unavailable`); each is validated and a bad decision
raises `DecisionError` naming the job and the reason.  Components find the services of others
with `provider(protocol)` (engine/provides.py).  This module holds the loop and the
wiring; the timers and component events (`wake_at`, `at`, `cancel`) are in engine/timers.py,
the verbs in engine/verbs.py, engine/migration.py and engine/notices.py, the events
that end a job's phases in engine/phases.py, the progress and overhead arithmetic in
engine/overheads.py, the rate model in engine/rates.py.
Submissions are merged from the workload's sorted columns instead of being pushed on the heap,
which keeps the heap small.
"""

from __future__ import annotations

import math
import time as _time
from collections.abc import Callable, Sequence
from heapq import heapify, heappop, heappush
from typing import TYPE_CHECKING, Any

from ckptsim.engine.components import Component, HookLists, check_fresh, two_rate_models
from ckptsim.engine.events import (
    PRIO_END,
    PRIO_OVERHEAD,
    PRIO_SUBMIT,
    PRIO_TIMER,
    SENTINEL,
    spinning,
)
from ckptsim.engine.migration import Migration
from ckptsim.engine.notices import Notices
from ckptsim.engine.rates import RateModel, apply_rates
from ckptsim.engine.state import (
    DONE,
    HOLDS_NODES,
    KILLED,
    PENDING,
    QUEUED,
    SUSPENDED,
    TO_QUEUED,
    Job,
    bad_transition,
)
from ckptsim.engine.timers import Timers
from ckptsim.errors import ConfigError, DecisionError, InvariantError
from ckptsim.platform.base import Platform

if TYPE_CHECKING:
    from ckptsim.engine.invariants import InvariantChecker
    from ckptsim.engine.policy import Policy
    from ckptsim.workload.model import Workload

OVERRUN_MODES = ("extend", "kill")
INF = math.inf
#: The heap is compacted (see `advance`) when it holds more events than this and twice as
#: many as after the last compaction.
COMPACT_MIN = 4096
#: Passes at one instant after which a run stops: something (a timer, a component's event, a
#: zero-length checkpoint) is set for the current time over and over, and time never moves.
MAX_PASSES_AT_ONE_INSTANT = 1_000_000


class Simulator(Migration, Notices, Timers):
    """Replays a workload on a platform under one scheduling policy, with components."""

    def __init__(
        self,
        workload: Workload,
        scheduler: Callable[[Simulator], Policy],
        *,
        platform: Platform | None = None,
        components: Sequence[Component] = (),
        machine_size: int | None = None,
        overrun: str = "extend",
        check: bool = False,
        progress: Callable[[int, int, float], None] | None = None,
        seed: int = 0,
        checks_only: bool = False,
    ) -> None:
        if overrun not in OVERRUN_MODES:
            raise ConfigError("overrun", f"unknown value {overrun!r}; accepted: "
                                         f"{', '.join(OVERRUN_MODES)}")
        if platform is None:
            make = getattr(scheduler, "default_platform", None)
            if make is not None:
                platform = make(workload, machine_size)
            else:
                platform = Platform(int(machine_size if machine_size is not None
                                        else workload.machine_size))
        elif machine_size is not None and machine_size != platform.n_nodes:
            raise ConfigError("machine_size", f"{machine_size} nodes asked for, but the "
                                              f"platform given has {platform.n_nodes}")
        n_nodes = platform.n_nodes
        self.workload = workload
        self.platform = platform
        platform.clock = self  # its hold errors say when
        self.overrun = overrun
        self.seed = seed
        # Built to be checked, never run (a sweep's pre-flight): components may leave out
        # what only running needs (the availability component's timelines).
        self.checks_only = checks_only
        self.now = 0.0
        self._heap: list[tuple[Any, ...]] = []
        self._seq = 0
        self._cancelled: set[int] = set()
        self._kind_prio: dict[str, float] = {}  # kinds `at` was given, checked
        self.n_ended = 0
        self.n_events = 0
        self._next_submit = 0  # index of the next job to submit
        self.active: dict[int, Job] = {}  # jobs holding nodes, by workload index
        # Indices of the jobs that were restarted, checkpointed, killed, migrated or had their
        # rate changed: only those hold values other than the defaults in their rarely used
        # fields and more than one node-holding segment (`ckptsim.records` reads them).
        self.marked: set[int] = set()
        self.jobs = self._make_jobs(workload, n_nodes, check)
        self._progress = progress
        self.checker: InvariantChecker | None = None
        if check:
            from ckptsim.engine.invariants import InvariantChecker

            self.checker = InvariantChecker(self)
        self.wall_seconds = 0.0
        self.components: list[Component] = []
        self.rate_model: RateModel | None = None
        self._bind_hooks()
        self._policy_adds = True  # components added now are the policy's own (messages)
        self._by_policy: set[str] = set()
        self.policy: Policy = scheduler(self)
        self._policy_adds = False
        for c in components:
            self.add_component(c)

    # ------------------------------------------------------------------ components
    def add_component(self, component: Component) -> None:
        """Attach a component (before the run); its hooks are called from now on."""
        if not isinstance(component, Component):
            raise ConfigError("components", f"expected a Component object, got {component!r}"
                              + (" (a class: build it, e.g. Class(Class.make_params({})))"
                                 if isinstance(component, type) else ""))
        if any(c.name == component.name for c in self.components):
            raise ConfigError("components", f"{component.name!r} is given twice")
        check_fresh(component)
        if getattr(self, "_policy_adds", False):
            self._by_policy.add(component.name)
        if isinstance(component, RateModel):
            if self.rate_model is not None:
                raise two_rate_models(self.rate_model, component, self._by_policy,
                                      getattr(getattr(self, "policy", None), "name", None))
            self.rate_model = component
        self.components.append(component)
        self._bind_hooks()
        component.attach(self)

    def check_ready(self) -> None:
        """The checks the components make once every one is attached (`Component.ready`: a
        checkpoint plan's part that needs the availability component, ...), before any event;
        `simulate` calls it, and a sweep's pre-flight on each of its configurations."""
        for c in self.components:
            c.ready()

    def component(self, name: str) -> Component | None:
        """The attached component of that name, or None (for users: inside the package,
        components find each other by what they provide, `provider`)."""
        for c in self.components:
            if c.name == name:
                return c
        return None

    def _bind_hooks(self) -> None:
        """Per hook, the components that override it: an unused hook costs one test."""
        h = self.hooks = HookLists(self.components)
        self._watch_start = self.checker is not None or bool(h.on_start)
        self._watch_end = self.checker is not None or bool(h.on_release or h.on_end)

    @property
    def cluster(self) -> Platform:
        """Deprecated alias of `platform` (the whole machine: a cluster, a grid or a torus)."""
        return self.platform

    def _post_pass(self, now: float) -> None:
        model = self.rate_model
        if model is not None:
            apply_rates(self, model, now)
        after = self.hooks.after_pass
        if after:
            for hook in after:
                hook(now)
            # A component that changed occupancies after the pass (e.g. a checkpoint agent)
            # has the rates of this instant applied before time moves on.
            if model is not None and model.changed:
                apply_rates(self, model, now)

    def nodes_changed(self) -> None:
        """Tell the components and the policy that nodes left or rejoined service."""
        now = self.now
        for hook in self.hooks.on_nodes_changed:
            hook(now)
        self.policy.on_nodes_changed(now)

    def _make_jobs(self, w: Workload, n_nodes: int, check: bool) -> list[Job]:
        sizes = w.size.tolist()
        if sizes and max(sizes) > n_nodes:
            i = max(range(len(sizes)), key=sizes.__getitem__)
            raise ConfigError("machine_size", f"job {int(w.job_id[i])} needs {sizes[i]} nodes but "
                                              f"the machine has {n_nodes}")
        runtime = w.runtime.tolist()
        estimate = w.estimate.tolist()
        # The work after which a job ends: its runtime, or at most its estimate when the
        # run-time limit is enforced.
        target = list(map(min, runtime, estimate)) if self.overrun == "kill" else runtime
        self._submits = w.submit.tolist()  # the jobs' submit times, in order, for `run`
        # Checked, a job refuses its engine fields written outside ckptsim (engine/owned.py).
        make = Job
        if check:
            from ckptsim.engine.owned import GuardedJob as make
        return list(map(make, range(len(sizes)), w.job_id.tolist(), self._submits, runtime,
                        estimate, sizes, target))

    # ------------------------------------------------------------------ main loop
    def run(self) -> Simulator:
        """Run until every job has ended. Returns self (records via `ckptsim.records`)."""
        self.advance(INF)
        n = len(self.jobs)
        if self.n_ended != n:
            stuck = [j for j in self.jobs if j.state not in (DONE, KILLED)]
            raise InvariantError(
                f"the simulation stopped with {len(stuck)} job(s) unfinished (first: "
                f"{stuck[0]!r}); the policy {type(self.policy).__name__} left them waiting "
                f"with nothing scheduled to happen{self._held_for_ever()}"
                f"{self._started_outside(stuck)}")
        if self.checker is not None:
            self.checker.at_end()
        for hook in self.hooks.at_end:
            hook(self.now)
        if self._progress is not None:
            self._progress(self.n_ended, n, self.now)
        return self

    def _started_outside(self, stuck: list[Job]) -> str:
        """A job that holds nodes by its state but not by the engine's count: a plug-in
        wrote `job.state` itself (under --check, `GuardedJob` names the line that did)."""
        active = self.active
        odd = next((j for j in stuck if j.state in HOLDS_NODES and j.index not in active), None)
        if odd is None:
            return ""
        return (f"; job {odd.id} is {odd.state.name} but was never given nodes by the engine: "
                f"its state was written outside the verbs (job.state = ...); a job is started "
                f"with sim.start(job) (run with --check, or simulate(..., check=True), to be "
                f"told the line that wrote it)")

    def _held_for_ever(self) -> str:
        """What of the machine is out of service at a run's stop, by reason (a component
        that holds nodes and never gives them back leaves jobs waiting for ever)."""
        platform = self.platform
        if not platform.down_mask:
            return ""
        holds = ", ".join(f"{r!r} {m.bit_count()}" for r, m in sorted(platform.holds().items())
                          if m)
        return (f"; {platform.down_mask.bit_count()} of its {platform.n_nodes} nodes are out of "
                f"service, nothing scheduled to give them back (nodes held by reason: {holds})")

    def advance(self, until: float) -> None:
        """Process every timestamp up to `until` (each with its scheduling pass), then stand
        at `until` (verbs called now act then).  `run` is `advance(inf)` and the final checks;
        stepping is for tests and interactive use."""
        t0 = _time.perf_counter()
        jobs = self.jobs
        submits = self._submits
        n = len(jobs)
        i = self._next_submit
        heap = self._heap
        policy = self.policy
        on_submit = policy.on_submit
        schedule = policy.schedule
        finish = self._finish
        checker = self.checker
        progress = self._progress
        cancelled = self._cancelled
        # After each pass: the rate model, then the components' after_pass (None: nothing).
        post = self._post_pass if self.rate_model is not None or self.hooks.after_pass else None
        events = self.n_events
        tick = 0
        # A policy whose passes change nothing when nothing happened (`idle_pass_noop`) gets
        # no pass at an instant of superseded or cancelled events only, and those events are
        # dropped from the heap when it has grown past `compact_at` (checkpoints and
        # suspensions move job ends: the old ends would otherwise stay until their time).
        skip_idle = post is None and policy.idle_pass_noop
        compact_at = max(COMPACT_MIN, 2 * len(heap)) if skip_idle else INF
        passed = False  # the first instant of each call always gets its pass
        last, same = self.now, 0  # passes at one instant, against a run that never moves on
        # A sentinel at infinity, after everything, keeps the heap from ever being empty.
        heappush(heap, SENTINEL)
        try:
            while True:
                top = heap[0]
                t = top[0]
                if i < n:
                    if submits[i] < t:
                        t = submits[i]
                elif top is SENTINEL:
                    break
                if t > until:
                    break
                if t == last:
                    same += 1
                    if same >= MAX_PASSES_AT_ONE_INSTANT:
                        raise DecisionError(None, spinning(same, policy, heap), t)
                else:
                    last, same = t, 0
                if checker is not None:
                    checker.on_time(t)
                self.now = t
                before = events
                # Ends, overhead completions and the kinds before submissions (failures...).
                while top[0] == t and top[1] < PRIO_SUBMIT:
                    heappop(heap)
                    job = top[3]
                    if job.version == top[4]:  # else superseded (rate change, kill, ...)
                        prio = top[1]
                        if prio == PRIO_END:
                            finish(job, t)
                            events += 1
                        elif prio == PRIO_OVERHEAD:
                            self._overhead_done(job, t)
                            events += 1
                        elif top[2] in cancelled:
                            cancelled.discard(top[2])
                        else:  # a component's callback
                            try:
                                top[5](t)
                            except TypeError:
                                self._check_callback(top[5])
                                raise
                            events += 1
                    top = heap[0]
                # Submissions at t (a job's `queued_since` is its submit time from the start).
                while i < n and submits[i] == t:
                    job = jobs[i]
                    if not TO_QUEUED[job.state]:  # state.move, inlined
                        bad_transition(job, QUEUED)
                    job.state = QUEUED
                    i += 1
                    events += 1
                    on_submit(job)
                # Policy timers and the kinds after submissions.
                top = heap[0]
                while top[0] == t and top[1] > PRIO_SUBMIT:
                    heappop(heap)
                    if top[2] in cancelled:
                        cancelled.discard(top[2])
                    else:
                        events += 1
                        if top[1] == PRIO_TIMER:
                            policy.on_timer(t, top[5])
                        else:
                            try:
                                top[5](t)
                            except TypeError:
                                self._check_callback(top[5])
                                raise
                    top = heap[0]
                if skip_idle:
                    if len(heap) > compact_at:
                        self._compact(heap)
                        compact_at = max(COMPACT_MIN, 2 * len(heap))
                    if events == before and passed:
                        continue  # superseded or cancelled events only: nothing to decide
                    passed = True
                schedule(t)
                if post is not None:
                    post(t)
                if checker is not None:
                    checker.after_pass()
                if progress is not None:
                    tick += 1
                    if tick & 1023 == 0:
                        self.n_events = events
                        progress(self.n_ended, n, t)
        finally:
            heap.remove(SENTINEL)
            heapify(heap)
        self.n_events = events
        self._next_submit = i
        self.wall_seconds += _time.perf_counter() - t0
        if self.now < until < INF:
            self.now = until

    def release_jobs(self) -> None:
        """After the run and its records: drop the job objects, so that the metrics of a
        large run are computed without them (the simulator cannot run any further)."""
        self.jobs = []
        self.active = {}


__all__ = ["Simulator", "OVERRUN_MODES", "PENDING", "SUSPENDED"]
