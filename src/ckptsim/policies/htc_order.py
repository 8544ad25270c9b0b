"""The `htc` scheduler's energy-aware matchmaking order (``placement = "efficient"``):
Newcastle's HTCondor "prefers power-efficient, already-awake machines and wakes machines only
when needed" (SPEC_ADDENDUM 6.2).

Machines are ranked in classes by node type, the most power-efficient first: by the type's
active watts per core, then idle watts per core (a range ``[lo, hi]`` counts as its
midpoint), then the type's first machine; with ``by = "machine"`` by the watts of the whole
machine (what a lone one-core job makes it draw), active then idle.  A core is chosen as

1. the lowest free core, in class order, of a machine that is awake (a job runs on it, or it
   is idle and has not yet fallen asleep);
2. else the lowest free core of the best class with a free core (its machine is woken).

Whether a machine is asleep is the energy meter's (`PowerStates.node_asleep`); without a power
manager nothing sleeps and the choice is the lowest free core of the best class.  A machine
seen asleep is remembered (its cores are skipped) until a job is placed on it or a reason
(owner, reboot) takes or gives it back, the only ways a sleeping machine wakes, so a pass
never re-examines the same sleeping machines: each falls asleep once and is looked at once.
"""

from __future__ import annotations

from typing import Any

from ckptsim.engine.provides import PowerStates
from ckptsim.platform.power import machine_blocks


def _watts(value: Any) -> float:
    if isinstance(value, (list, tuple)):
        return (float(value[0]) + float(value[-1])) / 2
    return float(value)


def efficiency_classes(platform: Any, by: str = "core") -> list[int]:
    """Node masks of the machine classes, the most power-efficient first (one class when the
    platform gives no power tables): watts per core, or per machine (`by`)."""
    machines = getattr(platform, "machines", None)
    table_of = getattr(platform, "power_table", None)
    if machines is None or table_of is None:
        return [platform.all_mask]
    keys: dict[str, tuple[float, float, int]] = {}
    masks: dict[str, int] = {}
    for m in machines:
        name = getattr(m, "type_name", "")
        if name not in keys:
            table = table_of(m.index) or {}
            cores = max(int(m.cores), 1) if by == "core" else 1
            keys[name] = (_watts(table.get("active", 0.0)) / cores,
                          _watts(table.get("idle", 0.0)) / cores, m.index)
        masks[name] = masks.get(name, 0) | (((1 << m.cores) - 1) << m.first_node)
    return [masks[n] for n in sorted(keys, key=keys.__getitem__)]


class EfficientOrder:
    """Chooses cores in the energy-aware order (see the module docstring)."""

    def __init__(self, sim: Any, by: str = "core") -> None:
        self.sim = sim
        platform = sim.platform
        self.classes = efficiency_classes(platform, by)
        self.machine_mask = [0] * platform.n_nodes
        for first, cores in machine_blocks(platform):
            mm = ((1 << cores) - 1) << first
            for node in range(first, first + cores):
                self.machine_mask[node] = mm
        self.asleep = 0  # cores of machines seen asleep, not woken since
        self.down = platform.down_mask
        self._meter: Any = False  # resolved at the first pick (components attach first)

    def meter(self) -> Any:
        if self._meter is False:
            meter: PowerStates | None = self.sim.provider(PowerStates)
            sleeps = meter is not None and meter.sleep_after != float("inf")
            self._meter = meter if sleeps else None
        return self._meter

    def nodes_changed(self) -> None:
        """A reason took or gave back machines: those are awake (or not free) now."""
        down = self.sim.platform.down_mask
        self.asleep &= ~(down ^ self.down)
        self.down = down

    def pick(self, size: int) -> int:
        free = self.sim.platform.free_mask
        mask = 0
        for _ in range(size):
            node = self._best(free)
            bit = 1 << node
            mask |= bit
            free ^= bit
            self.asleep &= ~self.machine_mask[node]  # placing a job wakes it
        return mask

    def _best(self, free: int) -> int:
        meter = self.meter()
        now = self.sim.now
        fallback = -1
        for cmask in self.classes:
            cand = free & cmask
            if not cand:
                continue
            low = (cand & -cand).bit_length() - 1
            if meter is None:
                return low
            if fallback < 0:
                fallback = low
            cand &= ~self.asleep
            while cand:
                node = (cand & -cand).bit_length() - 1
                if not meter.node_asleep(node, now):
                    return node
                mm = self.machine_mask[node]
                self.asleep |= mm
                cand &= ~mm
        return fallback
