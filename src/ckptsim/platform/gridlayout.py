"""The shape of a multi-cluster grid as the engine sees it: clusters as consecutive blocks of
engine nodes, each with one link to the central switch.

`GridLayout(sizes, capacities)`: cluster c holds the `sizes[c]` engine nodes from
`offsets[c]` (clusters in order, tiling the nodes), and its link carries `capacities[c]`
Mbit/s.  Two sources give one:

* a grid workload's own shape (`GridShape`: C clusters of N nodes, one capacity), the
  default when the run names no platform (`GridLayout.from_shape`);
* the run's platform (`grid_layout(platform)`): every group of a platform of groups is a
  cluster of its engine nodes (cores), and its `link` capacity (bit/s in platform files and
  the `grid:` built-in) is converted to Mbit/s.  Clusters may differ in size and capacity.

`check_workload(layout, workload, ...)` refuses a workload that does not fit the layout,
naming the key and the accepted values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ckptsim.errors import ConfigError
from ckptsim.platform.links import GridShape

if TYPE_CHECKING:
    from ckptsim.platform.base import Platform

#: Platform capacities are bit/s; the grid's bandwidth model works in Mbit/s.
BITS_PER_MBIT = 1e6


@dataclass(frozen=True)
class GridLayout:
    """Clusters of `sizes[c]` engine nodes (in order) with links of `capacities[c]` Mbit/s;
    `source` says where the shape came from ("workload" or the platform's name)."""

    sizes: tuple[int, ...]
    capacities: tuple[float, ...]
    source: str = "workload"

    def __post_init__(self) -> None:
        if len(self.sizes) != len(self.capacities) or not self.sizes:
            raise ConfigError("grid.clusters", f"{len(self.sizes)} cluster sizes and "
                                               f"{len(self.capacities)} link capacities; "
                                               "accepted: one of each per cluster, at least one")
        for c, k in enumerate(self.sizes):
            if int(k) != k or k < 1:
                raise ConfigError("grid.nodes", f"cluster {c} has {k!r} nodes; accepted: an "
                                                "integer >= 1")
        for c, cap in enumerate(self.capacities):
            if not cap > 0 or cap == float("inf"):
                raise ConfigError("grid.link", f"cluster {c}'s link capacity is {cap!r}; "
                                               "accepted: a finite capacity > 0")

    @classmethod
    def from_shape(cls, shape: GridShape) -> GridLayout:
        return cls((int(shape.nodes),) * int(shape.clusters), tuple(shape.capacities()))

    @property
    def clusters(self) -> int:
        return len(self.sizes)

    @property
    def total_nodes(self) -> int:
        return sum(self.sizes)

    @property
    def largest(self) -> int:
        return max(self.sizes)

    @property
    def uniform(self) -> bool:
        """Every cluster has as many nodes."""
        return len(set(self.sizes)) == 1

    @property
    def offsets(self) -> tuple[int, ...]:
        out, node = [], 0
        for k in self.sizes:
            out.append(node)
            node += k
        return tuple(out)

    def cluster_mask(self, c: int) -> int:
        """Cluster c's engine nodes as a bitmask."""
        return ((1 << self.sizes[c]) - 1) << self.offsets[c]

    def describe_size(self) -> str:
        """The grid's size as text: `3 x 100 = 300` or `100 + 50 = 150`."""
        if self.uniform:
            return f"{self.clusters} x {self.sizes[0]} = {self.total_nodes}"
        return f"{' + '.join(map(str, self.sizes))} = {self.total_nodes}"


def grid_layout(platform: Platform) -> GridLayout | None:
    """The grid a run's platform describes, or None when it describes none (the homogeneous
    machine: the workload's own shape applies).

    Raises:
        ConfigError: a platform that cannot be a grid (the BG/L torus), or a group without a
            link.
    """
    groups = getattr(platform, "groups", None)
    if not groups:
        if getattr(platform, "kind", "cluster") == "cluster":
            return None
        raise ConfigError("platform", f"the {platform.kind} platform is not a grid; accepted: "
                                      "grid:clusters=C,nodes=N[,link=B], a platform file whose "
                                      "groups all have a link, or none (the workload's grid)")
    sizes = []
    caps = []
    name = platform.description.name  # type: ignore[attr-defined]
    for g_index, g in enumerate(groups):
        if g.link is None:
            raise ConfigError("platform", f"{name}: groups[{g_index}] ({g.name}) has no link; "
                                          "the grid needs every group's link capacity; "
                                          "accepted: link = { capacity = BITS_PER_S } on every "
                                          "group, or grid:...,link=B (not link=none)")
        sizes.append(platform.group_mask(g_index).bit_count())  # type: ignore[attr-defined]
        caps.append(float(g.link) / BITS_PER_MBIT)
    return GridLayout(tuple(sizes), tuple(caps), source=name)


def check_width(layout: GridLayout, workload: Any) -> None:
    """Refuse a job wider than the whole grid."""
    sizes = workload.size
    total = layout.total_nodes
    if len(sizes) and int(sizes.max()) > total:
        i = int(sizes.argmax())
        raise ConfigError("grid.nodes", f"job {int(workload.job_id[i])} needs "
                                        f"{int(sizes[i])} nodes, more than the grid's "
                                        f"{layout.describe_size()}; accepted: jobs of at most "
                                        f"{total} nodes")


def check_workload(layout: GridLayout, workload: Any, clusters: int, *, coalloc: bool) -> None:
    """Refuse a grid workload the layout cannot run: its jobs' home clusters beyond the
    layout's (`clusters`: how many the workload is split across), a job wider than the grid,
    or wider than its largest cluster and never co-allocated (no co-allocation, or no
    PPBW estimate)."""
    where = "the workload's grid" if layout.source == "workload" else \
        f"the platform {layout.source}"
    if clusters > layout.clusters:
        raise ConfigError("grid.clusters", f"the workload is split across {clusters} clusters "
                                           f"but {where} has {layout.clusters}; accepted: a "
                                           f"platform of at least {clusters} groups (clusters), "
                                           f"or a workload of at most {layout.clusters} clusters")
    check_width(layout, workload)
    sizes = workload.size
    n = layout.largest
    wide = sizes > n
    if wide.any():
        told = workload.extra["ppbw_estimate"]
        stuck = wide if not coalloc else wide & (told != told)
        if stuck.any():
            i = int(stuck.argmax())
            why = ("co-allocation is off (coalloc=false)" if not coalloc
                   else "it reveals no PPBW estimate, so it is never co-allocated")
            one = "one cluster's" if layout.uniform else "the largest cluster's"
            raise ConfigError("grid.nodes", f"job {int(workload.job_id[i])} needs "
                                            f"{int(sizes[i])} nodes, more than {one} {n}, "
                                            f"and {why}; accepted: jobs of at most {n} nodes, "
                                            "or co-allocated ones (coalloc=true, grid info=1)")


__all__ = ["BITS_PER_MBIT", "GridLayout", "check_width", "check_workload", "grid_layout"]
