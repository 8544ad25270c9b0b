"""The HTC pool's scheduler (seed 003): a first-come-first-served queue of jobs placed on free
cores, by default uniformly at random.

Each pass starts the jobs at the head of the queue while enough cores are free (a job that
does not fit blocks the ones behind it, as in `fcfs`; HTC jobs are single-core, so this only
happens when no core is free).  `placement` chooses the cores:

- ``random`` (the default; seed 003: "a random resource allocation strategy as most
  representative of default policies in many HTC systems"): each of the job's cores uniformly
  at random among the free cores (not among machines: a 4-core machine with 4 free cores is
  four times as likely as a 2-core machine with one), drawn from the stream
  ``policy.placement`` of the run's seed, or of `seed` when given.  A requeued job (evicted,
  killed by a reboot) draws again.  ``random_over = "machines"``: each core's machine
  uniformly among the machines with a free core, then its lowest free core (one draw per
  core either way).
- ``first``: the lowest free core ids (HTCondor's matchmaking order left at the machines'
  order; the placement `fcfs` makes).
- ``efficient``: Newcastle's energy-aware matchmaking, awake and power-efficient machines
  first (`ckptsim.policies.htc_order`), ranked by watts per core (``efficient_by = "core"``)
  or per machine (``"machine"``).

A core is free when no job holds it and no reason (owner, reboot, failure, maintenance...)
holds its machine: the platform's availability by reason already removes them.  Sleeping
machines stay free: a job placed there wakes its machine and starts after the wake latency
(the power manager, docs/energy.md).

Cost: a random pick is one draw and a search for the k-th free core through the platform's
per-block free counts (blocks of 1,024 cores), so a pass costs O(jobs started), not a scan of
every core.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ckptsim.platform.cluster import _nth_bit
from ckptsim.platform.power import machine_blocks
from ckptsim.policies.base import param, register
from ckptsim.policies.fcfs import FCFS
from ckptsim.policies.queue import QueueParams

if TYPE_CHECKING:
    from ckptsim.engine.simulator import Simulator

PLACEMENTS = ("random", "first", "efficient")
RANDOM_OVER = ("cores", "machines")
EFFICIENT_BY = ("core", "machine")


@dataclasses.dataclass(frozen=True)
class HTCParams(QueueParams):
    placement: str = param("random", "cores for a job: uniformly at random among the free "
                                     "cores, the lowest free core ids, or awake and "
                                     "power-efficient machines first", choices=PLACEMENTS)
    seed: int | None = param(None, "seed of the random placement (default: the run's seed)",
                             low=0)
    random_over: str = param("cores", "what the random placement draws uniformly among: the "
                                      "free cores (a machine with four free cores four times "
                                      "as likely as one with one) or the machines with a free "
                                      "core (then its lowest free core)",
                             choices=RANDOM_OVER, added=True)
    efficient_by: str = param("core", "what placement=efficient ranks machine types by: "
                                      "active then idle watts per core, or per machine",
                              choices=EFFICIENT_BY, added=True)


def machine_heads(platform: Any) -> list[tuple[int, int]]:
    """(cores, mask of the first cores of the machines of that many cores), by core count."""
    firsts: dict[int, int] = {}
    for first, cores in machine_blocks(platform):
        firsts[cores] = firsts.get(cores, 0) | 1 << first
    return sorted(firsts.items())


@register
class HTC(FCFS):
    """fcfs's queue and passes (skipping idle passes too), with its own placement."""

    name = "htc"
    description = ("HTC pool: FCFS queue, each job on free cores chosen at random (or lowest "
                   "ids, or awake power-efficient machines first)")
    Params = HTCParams
    #: A run of the pool reports the HTC metrics (`ckptsim.metrics.htc`).
    htc_metrics = True

    def __init__(self, sim: Simulator, params: Any = None) -> None:
        super().__init__(sim, params)
        self.random = self.params.placement == "random"
        if self.random:
            from ckptsim.rng import RandomStreams

            seed = self.params.seed if self.params.seed is not None else sim.seed
            self.rng = RandomStreams(int(seed)).stream("policy.placement")
            # Draws in batches: one numpy call per 4,096 uniform numbers, not per job.
            self._draws: list[float] = []
            self._heads: list[tuple[int, int]] | None = (
                machine_heads(self.platform)
                if self.params.random_over == "machines" else None)
        self.order: Any = None
        if self.params.placement == "efficient":
            from ckptsim.policies.htc_order import EfficientOrder

            self.order = EfficientOrder(sim, self.params.efficient_by)

    def on_nodes_changed(self, now: float) -> None:
        if self.order is not None:
            self.order.nodes_changed()

    def _uniform(self) -> float:
        draws = self._draws
        if not draws:
            draws.extend(self.rng.random(4096).tolist()[::-1])
        return draws.pop()

    def _pick(self, size: int) -> int:
        """`size` distinct free cores, each uniformly among the free cores left."""
        if self._heads is not None:
            return self._pick_machines(size)
        platform = self.platform
        n_free = platform.n_free
        if size == 1:  # HTC jobs
            k = int(self._uniform() * n_free)
            return 1 << platform.kth_free(k if k < n_free else n_free - 1)
        mask = 0
        free = platform.free_mask
        for _ in range(size):
            k = int(self._uniform() * n_free)
            if k >= n_free:  # guard against rounding up to n_free
                k = n_free - 1
            bit = 1 << _nth_bit(free, k + 1)  # the free set without the cores picked so far
            mask |= bit
            free ^= bit
            n_free -= 1
        return mask

    def _pick_machines(self, size: int) -> int:
        """`size` distinct free cores, each the lowest free core of a machine drawn uniformly
        among the machines with a free core left."""
        mask = 0
        free = self.platform.free_mask
        for _ in range(size):
            heads = 0  # the first core of each machine with a free core
            for width, firsts in self._heads or ():
                cover = free
                span = 1
                while span < width:  # any free core among the machine's `width`
                    step = min(span, width - span)
                    cover |= cover >> step
                    span += step
                heads |= cover & firsts
            n = heads.bit_count()
            k = int(self._uniform() * n)
            first = _nth_bit(heads, (k if k < n else n - 1) + 1)
            rest = free >> first
            bit = (rest & -rest) << first
            mask |= bit
            free ^= bit
        return mask

    def placer(self) -> Callable[[int], int] | None:
        if self.random:
            return self._pick
        return self.order.pick if self.order is not None else None

