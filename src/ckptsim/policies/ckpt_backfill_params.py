"""The parameters of `ckpt-backfill` (seed 000; ckpt_backfill.py, docs/schedulers.md)."""

from __future__ import annotations

import dataclasses

from ckptsim.errors import ConfigError
from ckptsim.policies.base import param, validate_params
from ckptsim.policies.easy import EasyParams

NAME = "ckpt-backfill"
#: The parameters of the checkpoint / restart cost, unused under overhead=false.
COSTS = ("t_checkpoint", "t_extend", "t_restart", "memory_per_node", "nodes_per_io_node",
         "io_bandwidth", "io_fraction")

@dataclasses.dataclass(frozen=True)
class CkptBackfillParams(EasyParams):
    p: float = param(0.2, "scale-down factor of estimates >= t_thr (Algorithm 2)",
                     low=0.0, low_open=True, high=1.0)
    t_thr: float = param(1800.0, "estimates below this (s) are not scaled", low=0.0,
                         infinite="no estimate is scaled and p is unused (easy's schedule "
                                  "while no job runs past its estimate)", seconds=1.0)
    overhead: bool = param(True, "charge checkpoint and restart costs (false: the "
                                 "zero-overhead runs of seed 000 section 4)")
    t_checkpoint: float | None = param(
        None, "checkpoint duration, s (default: memory_per_node * nodes_per_io_node / "
              "(io_bandwidth * io_fraction))", low=0.0, seconds=1.0)
    t_extend: float | None = param(None, "added to a restarted job's predicted remaining "
                                         "time, s (default 2 * t_checkpoint)", low=0.0, seconds=1.0)
    t_restart: float | None = param(None, "restart overhead on the resumed job's nodes, s "
                                          "(default t_extend - t_checkpoint)",
                                    low=0.0, seconds=1.0)
    memory_per_node: float = param(2.0, "GB of memory checkpointed per node", low=0.0,
                                   low_open=True)
    nodes_per_io_node: float = param(64.0, "compute nodes sharing one I/O node", low=0.0,
                                     low_open=True)
    io_bandwidth: float = param(0.85, "GB/s of one I/O node", low=0.0, low_open=True)
    io_fraction: float = param(0.7, "usable fraction of the I/O bandwidth", low=0.0,
                               low_open=True, high=1.0)
    max_checkpoints: int | None = param(None, "per-job cap on checkpoints (none: unlimited)",
                                        low=0)
    overdue: str = param("estimate", "predicted end of a job past its scaled prediction",
                         choices=("estimate", "now", "reservation"))
    overdue_at: str = param("after", "when a job counts as past its scaled prediction under "
                                     "overdue=estimate or reservation: after (strictly after "
                                     "its predicted end) or at (at its predicted end already, "
                                     "in the passes; the reservation timer still finds it at "
                                     "its prediction, so that Algorithm 3 can checkpoint it)",
                            choices=("after", "at"), added=True)
    preempt: str = param("backfilled", "which running jobs may be checkpointed",
                         choices=("backfilled", "any"))
    scaled: str = param("all", "which running jobs use scaled predictions in the reservation "
                               "(all: an interpretation; backfilled: Algorithm 1 as written, "
                               "its line 6 planning jobs started in queue order with their "
                               "estimate)",
                        choices=("all", "backfilled"))
    partial: bool = param(False, "preempt even if checkpointing every candidate would not "
                                 "free enough nodes for the head")
    freeze: bool = param(True, "no backfilling while Algorithm 3's checkpoints are written "
                               "(false: EASY's pass goes on, the jobs being checkpointed "
                               "ending when their checkpoints do)", added=True)
    retry: bool = param(False, "run Algorithm 3 again at an instant where it already ran, "
                               "for another queue head (false: at the next event)",
                        added=True)
    rejoin: str = param("head", "where the jobs Algorithm 3 checkpointed rejoin the queue "
                                "once their checkpoints are written: head (the seed's "
                                "Algorithm 3: at the head, behind the reserved job only while "
                                "it waits) or second (behind the job then at its head: the "
                                "reserved job while it waits, the next job if the reserved "
                                "one started meanwhile; runs recorded before this option)",
                        choices=("second", "head"), added=True, was="second")
    rejoin_order: str = param("submit", "order among themselves of the jobs Algorithm 3 "
                                        "checkpointed at once as they rejoin the queue: submit "
                                        "(submit order) or size (largest first, the order in "
                                        "which Algorithm 3's loop, lines 3-7, checkpoints them "
                                        "and pushes them on the queue; equal sizes in submit "
                                        "order)",
                              choices=("submit", "size"), added=True)
    replan: str = param("full", "full (seed's Algorithm 1): the passes after arrivals and "
                                "ends and the reservation timer re-plan overdue jobs and "
                                "recompute the reservation; "
                                "incremental: arrival-only passes examine the new jobs against "
                                "the last reservation and the timer uses it (runs recorded "
                                "before this option)",
                        choices=("incremental", "full"), added=True, was="incremental")

    def __post_init__(self) -> None:
        validate_params(self, where=NAME)  # each value's own range first
        if self.t_checkpoint is not None:
            # With the default t_checkpoint the check waits for the scheduler (`check_costs`):
            # an experiment spec checks each swept value alone, t_extend = 120 among them.
            self.check_costs()

    def check_costs(self) -> None:
        """Refuse a t_extend below t_checkpoint when t_restart is left to its default,
        t_extend - t_checkpoint, which would be negative (seed 000 section 5.1: T_extend =
        T_chkpnt + T_restart)."""
        if not self.overhead or self.t_restart is not None or self.t_extend is None:
            return
        t_ckpt = self.costs()[0]
        if self.t_extend < t_ckpt:
            how = "" if self.t_checkpoint is not None else " (its default)"
            raise ConfigError(
                f"{NAME}.t_extend", f"got {self.t_extend:g} with t_checkpoint = {t_ckpt:g}"
                f"{how}; accepted: at least t_checkpoint, since t_extend = t_checkpoint + "
                "t_restart (seed 000 section 5.1); set t_checkpoint lower, or t_restart "
                "to choose the restart overhead yourself")

    def ignored_costs(self) -> list[str]:
        """The cost parameters given a value that `overhead=false` does not charge."""
        if self.overhead:
            return []
        out = []
        for f in dataclasses.fields(self):
            if f.name in COSTS and getattr(self, f.name) != f.default:
                out.append(f"{f.name}={getattr(self, f.name):g}")
        return out

    def costs(self) -> tuple[float, float, float]:
        """(t_checkpoint, t_extend, t_restart) with the defaults resolved."""
        if not self.overhead:
            return 0.0, 0.0, 0.0
        t_ckpt = self.t_checkpoint
        if t_ckpt is None:
            t_ckpt = (self.memory_per_node * self.nodes_per_io_node
                      / (self.io_bandwidth * self.io_fraction))
        t_ext = self.t_extend if self.t_extend is not None else 2.0 * t_ckpt
        t_rst = self.t_restart if self.t_restart is not None else max(t_ext - t_ckpt, 0.0)
        return t_ckpt, t_ext, t_rst
