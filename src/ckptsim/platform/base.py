"""The platform a simulation runs on: nodes, their free set, and their availability by reason.

The engine receives a `Platform` (`Simulator(..., platform=...)`); without one it builds the
homogeneous cluster of the workload's (or `machine_size`) nodes, or the platform the scheduler
asks for (`Scheduler.default_platform`: the BG/L schedulers ask for a `TorusPlatform`).

A node is *free* when no job holds it and no reason holds it.  Reasons are free strings; the
well-known ones are the constants below.  Several reasons may hold the same node at once (a
failed node whose owner is at the keyboard): it becomes available again only when the last one
lets it go, so a repair never hands back a machine that an owner or a reboot still holds.
`down_mask` is the union of every reason's nodes, kept up to date so that allocation never
has to recompute it.  Nodes a job holds when a reason takes them stay with the job (the
component that took them decides whether to kill it); they go out of service when the job
gives them back.

Node groups (clusters of a grid), node types (cores, speed, power profile) and links are the
data of a `ckptsim.platform.groups.GroupedPlatform`, read from a platform file or a built-in
name (`ckptsim.platform.description`); `groups` and `node_group` answer on every platform.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from ckptsim.errors import DecisionError
from ckptsim.platform.cluster import Cluster, bad_mask

if TYPE_CHECKING:
    from ckptsim.platform.torus import Torus

#: Well-known reasons for a node to be out of service.
FAILURE = "failure"
OWNER = "owner"
REBOOT = "reboot"
MAINTENANCE = "maintenance"
POWER = "power"
REASONS = (FAILURE, OWNER, REBOOT, MAINTENANCE, POWER)


class Platform(Cluster):
    """A homogeneous cluster of N nodes (ids 0..N-1) with availability held by reason.

    Allocation (`first_fit`, `take`, `give`) is the cluster's; `hold` / `release_hold` take
    nodes out of service and hand them back.
    """

    __slots__ = ("_holds", "hold_observer", "clock")

    kind: ClassVar[str] = "cluster"
    #: Node groups (e.g. the clusters of a grid): none on a single homogeneous machine.
    groups: ClassVar[tuple[Any, ...]] = ()

    def __init__(self, n_nodes: int) -> None:
        super().__init__(n_nodes)
        self._holds: dict[str, int] = {}
        #: Called as ``observer(reason, mask, held)`` when `reason` takes the nodes of `mask`
        #: (``held`` True: only those it did not hold yet) or gives them back (False); None,
        #: the default, costs one test per change.  A run's records set it
        #: (`ckptsim.records.allocations`) to write when machines were out of service.
        self.hold_observer: Any = None
        #: What tells the simulated time (its `now`): the simulator running on the platform
        #: sets itself, so that `hold` / `release_hold` errors say when; None outside a run.
        self.clock: Any = None

    def node_group(self, node: int) -> int:
        """The group a node belongs to (0 on a single machine)."""
        return 0

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "nodes": self.n_nodes}

    # --- availability by reason ------------------------------------------------------------
    def held(self, reason: str) -> int:
        """The nodes `reason` holds out of service."""
        return self._holds.get(reason, 0)

    def holds(self) -> dict[str, int]:
        """Every reason holding nodes, with its nodes."""
        return dict(self._holds)

    def hold(self, reason: str, mask: int) -> int:
        """Take the nodes of `mask` out of service for `reason`.  Returns the nodes that were
        available until now (no other reason held them).  Free ones leave the free set at once;
        ones a job holds leave service when the job gives them back.

        Raises:
            DecisionError: `mask` is not an int, is negative or holds nodes beyond the
                machine's, naming the reason (and the time, in a run).
        """
        if not isinstance(mask, int) or mask < 0 or mask > self.all_mask:
            raise _bad_hold(self, "hold", reason, mask)
        if not mask:
            return 0
        holds = self._holds
        if self.hold_observer is not None:
            added = mask & ~holds.get(reason, 0)
            if added:
                self.hold_observer(reason, added, True)
        holds[reason] = holds.get(reason, 0) | mask
        newly = mask & ~self.down_mask
        if newly:
            self.down_mask |= newly
            idle = newly & self._free
            if idle:
                k = idle.bit_count()
                self._free ^= idle
                self.n_free -= k
                self.down_idle |= idle
                if self._counts is not None:
                    self._count_blocks(idle, k, -1)
        return newly

    def release_hold(self, reason: str, mask: int) -> int:
        """Let `reason` give back the nodes of `mask` (those it holds).  Returns the nodes
        available again (no other reason holds them); the idle ones rejoin the free set.

        Raises:
            DecisionError: `mask` is not an int, is negative or holds nodes beyond the
                machine's (with the time, in a run).
        """
        if not isinstance(mask, int) or mask < 0 or mask > self.all_mask:
            raise _bad_hold(self, "release_hold", reason, mask)
        holds = self._holds
        held = holds.get(reason, 0)
        mask &= held
        if not mask:
            return 0
        if self.hold_observer is not None:
            self.hold_observer(reason, mask, False)
        rest = held & ~mask
        if rest:
            holds[reason] = rest
        else:
            del holds[reason]
        others = 0
        for m in holds.values():
            others |= m
        newly = mask & ~others
        self.down_mask = others
        back = newly & self.down_idle
        if back:
            k = back.bit_count()
            self.down_idle ^= back
            self._free |= back
            self.n_free += k
            if self._counts is not None:
                self._count_blocks(back, k, 1)
        return newly


def _bad_hold(platform: Platform, verb: str, reason: str, mask: Any) -> DecisionError:
    why = bad_mask(mask, platform.n_nodes)
    clock = platform.clock
    return DecisionError(None, f"platform.{verb}({reason!r}, mask): {why}",
                         clock.now if clock is not None else None)


class TorusPlatform(Platform):
    """The BlueGene/L machine: a `Torus` of supernodes, one node per supernode."""

    __slots__ = ("torus",)

    kind: ClassVar[str] = "torus"

    def __init__(self, torus: Torus) -> None:
        super().__init__(torus.n_nodes)
        self.torus = torus

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "nodes": self.n_nodes, "dims": list(self.torus.dims),
                "wraparound": self.torus.wraparound}
