"""Machines, groups and engine nodes: the mapping between a platform's description and the
engine's nodes.

An **engine node is one core** (a "processor" in SWF terms).  The machines of a platform are
numbered 0..M-1 in description order (groups in order, a group's machines consecutive); machine
m of a type with c cores owns the c consecutive engine nodes `first_node .. first_node + c - 1`,
so machine blocks tile the engine nodes in order.  Power states and availability (owners,
reboots) are per machine, i.e. per block of engine nodes.  The homogeneous machine of a trace
is N machines of one core each (machine i = engine node i).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from ckptsim.platform.base import Platform

if TYPE_CHECKING:
    from ckptsim.platform.description import Description, Group


@dataclass(frozen=True, slots=True)
class Machine:
    """One machine: its index, its first engine node, its cores, its group's index and its
    type's name."""

    index: int
    first_node: int
    cores: int
    group: int
    type_name: str

    @property
    def mask(self) -> int:
        """Its engine nodes as a bitmask."""
        return ((1 << self.cores) - 1) << self.first_node


def layout(desc: Description) -> tuple[Machine, ...]:
    """Every machine of a description, in order."""
    out: list[Machine] = []
    node = 0
    for g_index, g in enumerate(desc.groups):
        cores = desc.type_of(g.type).cores
        for _ in range(g.machines):
            out.append(Machine(len(out), node, cores, g_index, g.type))
            node += cores
    return tuple(out)


def single_core_machines(n_nodes: int) -> tuple[Machine, ...]:
    """The machines of a homogeneous machine of n one-core nodes."""
    return tuple(Machine(i, i, 1, 0, "node") for i in range(n_nodes))


class GroupedPlatform(Platform):
    """A platform of groups of machines, from a `Description` (docs/platforms.md)."""

    __slots__ = ("description", "_machines", "_firsts", "_group_first", "_group_masks")

    kind: ClassVar[str] = "groups"

    def __init__(self, description: Description) -> None:
        machines = layout(description)
        n = sum(m.cores for m in machines)
        super().__init__(n)
        self.description = description
        self._machines = machines
        self._firsts = [m.first_node for m in machines]
        firsts = []
        masks = []
        for g_index in range(len(description.groups)):
            mine = [m for m in machines if m.group == g_index]
            firsts.append(mine[0].first_node)
            masks.append(sum(m.mask for m in mine))
        self._group_first = firsts
        self._group_masks = masks

    # --- the platform's data -------------------------------------------------------------
    @property
    def groups(self) -> tuple[Group, ...]:  # type: ignore[override]
        return self.description.groups

    @property
    def machines(self) -> tuple[Machine, ...]:
        return self._machines

    def power_table(self, machine: int) -> Mapping[str, Any] | None:
        """The raw power table of a machine's type (None when the type gives none)."""
        m = self._machines[machine]
        return self.description.type_of(m.type_name).power

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "nodes": self.n_nodes, **self.description.summary()}

    # --- mapping -------------------------------------------------------------------------
    def machine_of(self, node: int) -> int:
        """The machine holding an engine node."""
        if not 0 <= node < self.n_nodes:
            raise IndexError(f"node {node} is not on the platform (0..{self.n_nodes - 1})")
        return bisect_right(self._firsts, node) - 1

    def node_group(self, node: int) -> int:
        """The group (index) an engine node belongs to."""
        if not 0 <= node < self.n_nodes:
            raise IndexError(f"node {node} is not on the platform (0..{self.n_nodes - 1})")
        return bisect_right(self._group_first, node) - 1

    def machine_mask(self, machine: int) -> int:
        return self._machines[machine].mask

    def group_mask(self, group: int | str) -> int:
        """The engine nodes of a group, by index or name."""
        if isinstance(group, str):
            names = [g.name for g in self.description.groups]
            group = names.index(group)
        return self._group_masks[group]

    def machines_in(self, mask: int) -> list[int]:
        """The machines with at least one engine node in `mask`, ascending."""
        out: list[int] = []
        for node in self.node_ids(mask):
            m = self.machine_of(node)
            if not out or out[-1] != m:
                out.append(m)
        return out


def machines_of(platform: Platform) -> tuple[Machine, ...]:
    """The machines of any platform: its own, or one per engine node."""
    own = getattr(platform, "machines", None)
    if own is not None:
        return tuple(own)
    return single_core_machines(platform.n_nodes)


def group_names(platform: Platform) -> list[str]:
    """The names of a platform's groups (one group, "machine", on a homogeneous machine;
    "torus" on the BG/L one)."""
    groups = getattr(platform, "groups", ())
    if groups:
        return [g.name for g in groups]
    return ["machine" if platform.kind == "cluster" else platform.kind]


__all__ = ["GroupedPlatform", "Machine", "group_names", "layout", "machines_of",
           "single_core_machines"]
