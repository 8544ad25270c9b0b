"""Stateful property test of the engine: random legal sequences of verbs, rate changes,
failures and availability holds, with the invariant checker on.

A passive policy does nothing by itself; the rules below act on the simulator between steps of
simulated time (`Simulator.advance`).  A rule is drawn only when it can apply (a waiting job
that fits for `start`, a running job for `checkpoint`, ...).  After every rule the checker's
occupancy checks run; at the end the policy starts whatever waits, every hold is released, and
the run must complete with every job's work, overhead, lost work and node-holding time agreeing
with the checker's own integration of its rate over time.
"""

from __future__ import annotations

from helpers import examples, jobs
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from ckptsim.engine.simulator import Simulator
from ckptsim.engine.state import DONE, HOLDS_NODES, KILLED, MIGRATING, QUEUED, RUNNING, SUSPENDED
from ckptsim.platform.base import FAILURE, OWNER
from ckptsim.platform.cluster import Cluster
from ckptsim.policies.base import Scheduler

MACHINE = 6
OVERHEAD = st.sampled_from([("none", 0.0), ("duration", 0.0), ("duration", 2.0),
                            ("duration", 5.0), ("amount", 0.0), ("amount", 3.0)])
RATES = st.sampled_from([0.0, 0.5, 1.0, 2.0])


class Passive(Scheduler):
    """Starts nothing until told to drain; then starts whatever waits and fits, at rate 1."""

    name = "passive"

    def __init__(self, sim: Simulator) -> None:
        super().__init__(sim)
        self.drain = False

    def schedule(self, now: float) -> None:
        if not self.drain:
            return
        for job in self.sim.jobs:
            if job.state in (QUEUED, SUSPENDED) and job.size <= self.sim.platform.n_free:
                self.sim.start(job)
                if job.rate != 1.0:
                    self.sim.set_rate(job, 1.0)


def _kw(choice: tuple[str, float]) -> dict[str, float]:
    kind, value = choice
    if kind == "none":
        return {}
    return {"amount": value} if kind == "amount" else {"duration": value}


class EngineMachine(RuleBasedStateMachine):
    sim: Simulator

    @initialize(rows=st.lists(st.tuples(st.integers(0, 12), st.integers(0, 40),
                                        st.integers(1, MACHINE)), min_size=1, max_size=6))
    def setup(self, rows):
        rows = sorted(rows)
        w = jobs([(float(s), float(r), size, float(r)) for s, r, size in rows], MACHINE)
        self.sim = Simulator(w, Passive, check=True)
        self.sim.advance(0.0)

    # --- helpers -----------------------------------------------------------------------------
    def _jobs(self, *states):
        return [j for j in self.sim.jobs if j.state in states]

    def _startable(self):
        return [j for j in self._jobs(QUEUED, SUSPENDED) if j.size <= self.sim.platform.n_free]

    def _movable(self, hold_source):
        p = self.sim.platform
        out = []
        for j in self._jobs(RUNNING, MIGRATING):
            if j.state is MIGRATING and (j.new_mask or hold_source):
                continue
            own = j.mask if hold_source else j.mask & ~p.down_mask
            if (p.free_mask | own).bit_count() >= j.size:
                out.append(j)
        return out

    # --- time ----------------------------------------------------------------------------
    @rule(dt=st.sampled_from([0.0, 0.5, 1.0, 3.0, 7.0, 20.0]))
    def advance(self, dt):
        self.sim.advance(self.sim.now + dt)

    # --- verbs ---------------------------------------------------------------------------
    @precondition(lambda self: self._startable())
    @rule(data=st.data(), overhead=OVERHEAD)
    def start(self, data, overhead):
        job = data.draw(st.sampled_from(self._startable()))
        kw = _kw(overhead)
        if "duration" in kw:
            kw = {"overhead": kw["duration"]}
        self.sim.start(job, **kw)

    @precondition(lambda self: self._jobs(RUNNING))
    @rule(data=st.data(), then=st.sampled_from(["requeue", "suspend", "continue"]),
          overhead=OVERHEAD)
    def checkpoint(self, data, then, overhead):
        job = data.draw(st.sampled_from(self._jobs(RUNNING)))
        self.sim.checkpoint(job, then=then, **_kw(overhead))

    @precondition(lambda self: self._jobs(*HOLDS_NODES))
    @rule(data=st.data(), reason=st.sampled_from(["preempt", "failure", "eviction"]),
          requeue=st.booleans())
    def kill(self, data, reason, requeue):
        job = data.draw(st.sampled_from(self._jobs(*HOLDS_NODES)))
        self.sim.kill(job, reason, requeue=requeue)

    @precondition(lambda self: self._jobs(*HOLDS_NODES))
    @rule(data=st.data(), rate=RATES)
    def set_rate(self, data, rate):
        job = data.draw(st.sampled_from(self._jobs(*HOLDS_NODES)))
        self.sim.set_rate(job, rate)

    @precondition(lambda self: self._movable(False) or self._movable(True))
    @rule(data=st.data(), hold_source=st.booleans(), overhead=OVERHEAD)
    def migrate(self, data, hold_source, overhead):
        candidates = self._movable(hold_source) or self._movable(not hold_source)
        hold_source = bool(self._movable(hold_source)) == hold_source
        job = data.draw(st.sampled_from(candidates))
        p = self.sim.platform
        nodes = Cluster.node_ids(p.free_mask | (job.mask if hold_source else
                                                job.mask & ~p.down_mask))
        target = data.draw(st.permutations(nodes))[: job.size]
        kw = _kw(overhead)
        self.sim.migrate((job, Cluster.mask_of(target)), kw.get("duration", 0.0),
                         amount=kw.get("amount"), hold_source=hold_source)

    def _swappable(self):
        """Pairs of running jobs of one size on nodes in service."""
        down = self.sim.platform.down_mask
        running = [j for j in self._jobs(RUNNING) if not j.mask & down]
        return [(a, b) for a in running for b in running if a.index < b.index and
                a.size == b.size]

    @precondition(lambda self: self._swappable())
    @rule(data=st.data(), overhead=OVERHEAD)
    def swap(self, data, overhead):
        """Two running jobs of one size trade places (a re-packing)."""
        a, b = data.draw(st.sampled_from(self._swappable()))
        kw = _kw(overhead)
        self.sim.migrate([(a, b.mask), (b, a.mask)], kw.get("duration", 0.0),
                         amount=kw.get("amount"))

    # --- the platform --------------------------------------------------------------------
    @rule(node=st.integers(0, MACHINE - 1), repair=st.booleans())
    def fail(self, node, repair):
        """A node failure, as the failures component applies it."""
        sim = self.sim
        if repair:
            sim.platform.hold(FAILURE, 1 << node)
        for job in sorted(sim.active.values(), key=lambda j: j.index):
            if job.mask >> node & 1:
                sim.kill(job, "failure")
        sim.nodes_changed()

    @rule(node=st.integers(0, MACHINE - 1), reason=st.sampled_from([FAILURE, OWNER]))
    def release(self, node, reason):
        self.sim.platform.release_hold(reason, 1 << node)
        self.sim.nodes_changed()

    @rule(node=st.integers(0, MACHINE - 1))
    def owner_arrives(self, node):
        self.sim.platform.hold(OWNER, 1 << node)
        self.sim.nodes_changed()

    # --- checks --------------------------------------------------------------------------
    @invariant()
    def occupancy(self):
        if hasattr(self, "sim"):
            self.sim.checker.after_pass()
            for job in self.sim.jobs:
                assert (job.index in self.sim.active) == (job.state in HOLDS_NODES)

    def teardown(self):
        if not hasattr(self, "sim"):
            return
        sim = self.sim
        for reason, mask in sim.platform.holds().items():
            sim.platform.release_hold(reason, mask)
        for job in self._jobs(*HOLDS_NODES):
            if job.rate != 1.0:
                sim.set_rate(job, 1.0)
        sim.policy.drain = True
        sim.policy.schedule(sim.now)
        sim.run()
        assert all(j.state in (DONE, KILLED) for j in sim.jobs)


EngineMachine.TestCase.settings = settings(max_examples=examples(150), stateful_step_count=30)
TestEngine = EngineMachine.TestCase
