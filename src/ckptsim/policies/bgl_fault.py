"""The fault-aware BG/L schedulers of Oliner et al. (seed 004), on `bgl-fcfs`'s framework
(`ckptsim.policies.bgl`).

* `bgl-balancing`: the placement minimises E_loss = L_MFP + P_f * s_j, where p_n = `confidence`
  if the failure schedule has a failure of node n within the job's estimated run, else 0, and
  P_f = 1 - prod(1 - p_n) over the partition's nodes (section 5.2.1; `pf="product"`, default)
  or max p_n (section 4.1; `pf="max"`).  With `hold`, a job started in queue order is not
  placed on a partition with P_f >= hold; if every free partition has, it waits (and with it
  the queue: nothing is backfilled meanwhile) until one is stable enough, the seed's
  "balancing algorithm [that] makes the jobs wait longer in order to select stable
  partitions".  The hold looks at failures strictly after now (one at now has happened).
* Both predictors look at the failures in [now, now + estimate) (`at_now="ahead"`, default,
  as the committed figures were made); the engine has applied a failure at now before the
  pass, so `at_now="past"` looks strictly after now instead, as the hold does.  The window
  is open at the estimated end: the engine ends a job before a failure at the same instant.
* `bgl-tiebreak`: among the partitions with the best MFP, prefer the first one predicted not to
  fail; a real failure is predicted with probability `accuracy` (false negatives 1 - accuracy,
  no false positives; section 4.2 / 5.2.2).  With `draws="box"` (default) one draw is made per
  tied partition holding a failing node, in order; with `draws="node"` the predictor answers
  per node, as section 4.2 describes it: one draw per failing node of the tied partitions (in
  node order, shared by every partition holding the node), and a partition is predicted to
  fail when one of its nodes is.  The draws come from the stream `policy.tiebreak` of `seed`
  (default 0: the same draws in every replication of a sweep) or, with `seed=none`, of the
  run's seed (each replication its own).  `bgl-balancing`'s predictor draws nothing.

With `repack="policy"` (`ckptsim.policies.bgl`), a migration re-packs the running jobs with
these placements too, each looking at the failures between now and its estimated end.

Both predictors read the future failure schedule, as the seed does.  Without failures both
produce exactly the `bgl-fcfs` schedule.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any

from ckptsim.engine.provides import FailureTimes
from ckptsim.params import param
from ckptsim.policies.base import register
from ckptsim.policies.bgl import BglFcfs, BglParams

if TYPE_CHECKING:
    from ckptsim.engine.simulator import Simulator
    from ckptsim.engine.state import Job

INF = math.inf


@dataclasses.dataclass(frozen=True)
class FaultAwareParams(BglParams):
    at_now: str = param("ahead", "a failure at the scheduling instant, which the engine has "
                                 "already applied (a transient node is up again): counted by "
                                 "the predictor as one ahead of the job (ahead) or as past "
                                 "(past: failures strictly after now, as hold)",
                        choices=("ahead", "past"), added=True)


@dataclasses.dataclass(frozen=True)
class BalancingParams(FaultAwareParams):
    confidence: float = param(0.0, "balancing predictor confidence a", low=0.0, high=1.0)
    pf: str = param("product", "partition failure probability from the nodes' p_n: "
                               "1 - prod(1 - p_n) (product, section 5.2.1) or max p_n (max, "
                               "section 4.1)", choices=("product", "max"), added=True)
    hold: float | None = param(None, "the head waits rather than start on a partition whose "
                                     "P_f is at least this (none: never waits)",
                               low=0.0, low_open=True, high=1.0, added=True)


@dataclasses.dataclass(frozen=True)
class TiebreakParams(FaultAwareParams):
    accuracy: float = param(0.0, "tie-break predictor accuracy a", low=0.0, high=1.0)
    seed: int | None = param(0, "seed of the predictor's random draws (none: the run's seed, "
                                "each replication of a sweep its own)", low=0)
    draws: str = param("box", "the predictor's draws: one per tied partition with a failure "
                              "(box) or one per failing node, shared by the partitions "
                              "(node)", choices=("box", "node"), added=True)


def _failing(sim: Simulator, start: float, end: float) -> int:
    """The nodes with a failure in [start, end) (the failure schedule of the run's failures
    component, or of the availability component given failures; none without either).

    The window is open at `end`, the job's estimated end: the engine ends a job before a
    failure at the same instant, so a failure exactly then does not hit the job."""
    failures: FailureTimes | None = sim.provider(FailureTimes)
    if failures is None:
        return 0
    # A job of no length (end == start) keeps [start, start]: under at_now="ahead" a failure
    # at now still counts for it.
    return failures.failing_nodes(start, math.nextafter(end, -INF) if end > start else end)


class _FaultAware(BglFcfs):
    """What the two fault-aware schedulers share: a partition is chosen as under bgl-fcfs
    (the MFP heuristic) where none holds a node failing during the job's estimated run
    [now, `end`] (default now + `left(job)`) or the predictor is off, else by the policy's own
    `pick` among the partitions and their MFP losses."""

    def predicts(self) -> bool:
        """Whether the failure predictor is on (its confidence or accuracy above 0)."""
        raise NotImplementedError

    def pick(self, job: Job, parts: list[int], losses: list[int], failing: int) -> int:
        raise NotImplementedError

    def _from(self, now: float) -> float:
        """Where the predictor's window starts: at now (`at_now="ahead"`), or just after it
        (`"past"`: a failure at now has already been applied)."""
        return math.nextafter(now, INF) if self.params.at_now == "past" else now

    def choose(self, job: Job, free: int, now: float, avoid: int = 0,
               end: float | None = None) -> int | None:
        if end is None:
            end = now + self.left(job)
        failing = _failing(self.sim, self._from(now), end) if self.predicts() else 0
        if not failing:  # L_PF is 0 everywhere, no partition predicted to fail: MFP
            return self.torus.best_partition(free, job.size, avoid)
        parts, losses = self.torus.partition_losses(free, job.size, avoid)
        return self.pick(job, parts, losses, failing) if parts else None


@register
class BglBalancing(_FaultAware):
    name = "bgl-balancing"
    description = "BG/L: minimise L_MFP + P_f * size with the balancing predictor (seed 004)"
    Params = BalancingParams

    def __init__(self, sim: Simulator, params: Any = None) -> None:
        super().__init__(sim, params)
        self._max_form = self.params.pf == "max"

    def p_fail(self, k: int) -> float:
        """P_f of a partition holding `k` nodes that fail during the job's run."""
        a = self.params.confidence
        if not k:
            return 0.0
        return a if self._max_form else 1.0 - (1.0 - a) ** k

    def predicts(self) -> bool:
        return self.params.confidence > 0

    def pick(self, job: Job, parts: list[int], losses: list[int], failing: int) -> int:
        a = self.params.confidence
        if not failing or a <= 0:
            return parts[losses.index(min(losses))]
        best, best_e = parts[0], INF
        for mask, loss in zip(parts, losses, strict=True):
            e_loss = loss + self.p_fail((mask & failing).bit_count()) * job.size
            if e_loss < best_e:
                best, best_e = mask, e_loss
        return best

    def place_head(self, job: Job, free: int, now: float) -> int | None:
        hold = self.params.hold
        if hold is None or self.params.confidence <= 0:
            return self.choose(job, free, now)
        failing = _failing(self.sim, math.nextafter(now, INF), now + self.left(job))
        parts, losses = self.torus.partition_losses(free, job.size, 0)
        if not parts:
            return None
        stable = [(m, loss) for m, loss in zip(parts, losses, strict=True)
                  if self.p_fail((m & failing).bit_count()) < hold]
        if not stable:
            self.held = True
            return None
        return self.pick(job, [m for m, _ in stable], [loss for _, loss in stable], failing)


@register
class BglTiebreak(_FaultAware):
    name = "bgl-tiebreak"
    description = "BG/L: among best-MFP partitions prefer one predicted not to fail (seed 004)"
    Params = TiebreakParams

    def __init__(self, sim: Simulator, params: Any = None) -> None:
        super().__init__(sim, params)
        from ckptsim.rng import RandomStreams

        seed = sim.seed if self.params.seed is None else self.params.seed
        self.rng = RandomStreams(seed).stream("policy.tiebreak")
        self._per_node = self.params.draws == "node"

    def predicts(self) -> bool:
        return self.params.accuracy > 0

    def pick(self, job: Job, parts: list[int], losses: list[int], failing: int) -> int:
        low = min(losses)
        ties = [m for m, loss in zip(parts, losses, strict=True) if loss == low]
        a = self.params.accuracy
        if len(ties) == 1 or a <= 0 or not failing:
            return ties[0]
        if self._per_node:
            return self._pick_per_node(ties, failing, a)
        for mask in ties:
            # A real failure is predicted with probability a; no false positives.
            if not (mask & failing and self.rng.random() < a):
                return mask
        return ties[0]

    def _pick_per_node(self, ties: list[int], failing: int, a: float) -> int:
        """One draw per failing node of the tied partitions, in node order."""
        union = 0
        for mask in ties:
            union |= mask
        nodes = union & failing
        predicted = 0
        while nodes:
            bit = nodes & -nodes
            if self.rng.random() < a:
                predicted |= bit
            nodes ^= bit
        for mask in ties:
            if not mask & predicted:
                return mask
        return ties[0]
