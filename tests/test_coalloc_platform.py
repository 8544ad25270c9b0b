"""`coalloc` on the run's platform: the grid's clusters, their sizes and their links come from
`--platform` (a `grid:` built-in or a file of groups with links) when one is given, from the
workload otherwise; mismatches are refused naming the key and the accepted values."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from coalloc_helpers import Checked, grid_jobs, metrics
from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from ckptsim.cli.common import write_outputs
from ckptsim.engine.simulator import Simulator
from ckptsim.errors import ConfigError
from ckptsim.platform.description import Description, Group, NodeType, load_description
from ckptsim.platform.gridlayout import GridLayout, grid_layout
from ckptsim.platform.groups import GroupedPlatform
from ckptsim.policies.base import make_params
from ckptsim.policies.coalloc import CoallocParams
from ckptsim.runner import simulate
from ckptsim.workload.grid import GridParams, generate_grid
from ckptsim.workload.source import load_workload

NAN = math.nan

UNEVEN = """\
name = "uneven"
[types.node]
cores = 1

[[groups]]
name = "big"
machines = 6
type = "node"
link = { capacity = 1e9 }

[[groups]]
name = "small"
machines = 3
type = "node"
link = { capacity = 2.5e8 }
"""


def uneven(tmp_path: Path) -> Path:
    path = tmp_path / "uneven.toml"
    path.write_text(UNEVEN)
    return path


def run_on(w, platform, **params):
    plat = GroupedPlatform(load_description(str(platform)))
    sim = Simulator(w, lambda s: Checked(s, make_params(CoallocParams, params)),
                    platform=plat, check=True)
    start, masks = sim.start, {}

    def start_(job, mask=None, **kw):  # the nodes of each start, by job id
        start(job, mask, **kw)
        masks[job.id] = job.mask

    sim.start = start_  # type: ignore[method-assign]
    sim.run()
    return sim, {j.id: j for j in sim.jobs}, masks


def test_the_layout_of_a_platform_file_and_of_the_grid_builtin(tmp_path):
    g = grid_layout(GroupedPlatform(load_description(str(uneven(tmp_path)))))
    assert g == GridLayout((6, 3), (1000.0, 250.0), source="uneven")  # bit/s -> Mbit/s
    assert g.offsets == (0, 6) and g.cluster_mask(1) == 0b111 << 6
    assert g.describe_size() == "6 + 3 = 9"
    b = grid_layout(GroupedPlatform(load_description("grid:clusters=3,nodes=5,link=2e9")))
    assert b == GridLayout((5, 5, 5), (2000.0,) * 3, source="grid")
    assert b.describe_size() == "3 x 5 = 15"


def test_a_job_wider_than_its_home_cluster_runs_whole_on_a_larger_one(tmp_path):
    # Five nodes, no PPBW estimate: on the workload's own grid (2 x 4) it could never run;
    # on the platform's clusters of 6 and 3 nodes it runs whole on the big one.
    w = grid_jobs([(0, 100, 5, 1, 100, NAN, 0.5)], clusters=2, nodes=4)
    with pytest.raises(ConfigError, match=r"grid.nodes.*more than one cluster's 4"):
        simulate(w, "coalloc")
    sim, job, mask = run_on(w, uneven(tmp_path))
    assert (job[1].start, job[1].end, mask[1]) == (0.0, 100.0, 0b11111)
    assert metrics(sim)["remote_starts"] == 1


def test_the_platforms_link_capacity_slows_a_coallocated_job(tmp_path):
    # Job 1 takes 4 of the big cluster's 6 nodes for 1000 s.  Job 2 (4 nodes, home the big
    # cluster, true PPBW 400, estimate 300, kappa 0.5) fits neither cluster whole (2 and 3
    # free): Module 1 on the 4-node mesh (2 wide: ranks 0 1 / 2 3) gives per unit of PPBW
    # u(1) = u(3) = 0.5 * 1 + 0.125 * 2 = 0.75 and u(2) = 0.5 * 4/3 + 0.125 * 4 = 7/6; the
    # small link's 250 Mbit/s takes 3 nodes (300 * 0.75 = 225), the big one the last node.
    # Its true traffic, 400 * 0.75 = 300 on each link, saturates the small link:
    # f = 250 / 300, rate = 1 / (0.5 + 0.5 * 1.2) = 1 / 1.1, so its 1100 s of work end at 1210.
    w = grid_jobs([(0, 1000, 4, 0, 100, 100, 0.5), (0, 1100, 4, 0, 400, 300, 0.5)],
                  clusters=2, nodes=4)
    sim, job, mask = run_on(w, uneven(tmp_path))
    assert mask[2] == (1 << 4) | (0b111 << 6)
    assert job[2].start == 0.0 and job[2].end == pytest.approx(1210.0)
    m = metrics(sim)
    assert m["coalloc_starts"] == 1 and m["coalloc_slowdown"] == pytest.approx(1.1)
    assert sim.policy.rates.options() == {"clusters": 2, "nodes": [6, 3],
                                          "capacity": [1000.0, 250.0], "source": "uneven"}
    # On the workload's own grid (2 x 4, 1000 Mbit/s) job 2 runs whole on cluster 1.
    own = simulate(w, "coalloc").table
    assert list(own["end"]) == [1000.0, 1100.0]


def test_naming_the_workloads_own_grid_changes_no_schedule(tmp_path):
    w = load_workload("grid:n=150,ppbw=400,error=1,load=0.95,seed=3")
    params = {"ctmr": True, "overhead": 600.0}
    plain = simulate(w, "coalloc", params)
    named = simulate(w, "coalloc", params, platform="grid:clusters=4,nodes=100")
    assert plain.summary["ctmr_checkpoints"] > 0  # the links saturate and the agent acts
    write_outputs(plain, tmp_path / "plain")
    write_outputs(named, tmp_path / "named")
    for name in ("jobs.csv", "schedule.swf"):
        assert (tmp_path / "plain" / name).read_bytes() == (tmp_path / "named" / name).read_bytes()
    assert named.options["links"] == {**plain.options["links"], "source": "grid"}
    # A slower link (500 Mbit/s) from the platform changes the schedule.
    slow = simulate(w, "coalloc", params, platform="grid:clusters=4,nodes=100,link=5e8")
    assert slow.options["links"]["capacity"] == [500.0] * 4
    assert slow.summary["mean_response"] != plain.summary["mean_response"]


def test_mismatches_name_the_key_and_the_accepted_values(tmp_path):
    w = load_workload("grid:n=20,seed=1")  # 4 clusters of 100
    with pytest.raises(ConfigError, match=r"grid.clusters: the workload is split across 4 "
                                          r"clusters but the platform grid has 3; accepted: a "
                                          r"platform of at least 4 groups"):
        simulate(w, "coalloc", platform="grid:clusters=3,nodes=100")
    small = grid_jobs([(0, 10, 7, 0, 100, 100, 0.5)], clusters=2, nodes=4)
    with pytest.raises(ConfigError, match=r"platform: job 1 needs 7 nodes but the platform "
                                          r"grid has 6 .*accepted: a platform of at least 7"):
        simulate(small, "coalloc", platform="grid:clusters=2,nodes=3")
    blind = grid_jobs([(0, 10, 5, 0, 100, NAN, 0.5)], clusters=2, nodes=6)
    simulate(blind, "coalloc")  # fits a cluster of its own grid
    with pytest.raises(ConfigError, match=r"grid.nodes: job 1 needs 5 nodes, more than one "
                                          r"cluster's 4, and it reveals no PPBW"):
        simulate(blind, "coalloc", platform="grid:clusters=2,nodes=4")
    with pytest.raises(ConfigError, match=r"grid.nodes: job 1 needs 5 nodes, more than the "
                                          r"largest cluster's 4.*coalloc=false"):
        simulate(blind, "coalloc", {"coalloc": False}, platform=str(
            _write(tmp_path, UNEVEN.replace("machines = 6", "machines = 4"))))
    with pytest.raises(ConfigError, match=r"platform: grid: groups\[0\] \(cluster0\) has no "
                                          r"link.*accepted: link = \{ capacity"):
        simulate(w, "coalloc", platform="grid:clusters=4,nodes=100,link=none")
    with pytest.raises(ConfigError, match=r"platform: the torus platform is not a grid; "
                                          r"accepted: grid:clusters=C,nodes=N"):
        simulate(grid_jobs([(0, 10, 2, 0, 100, 100, 0.5)], 2, 64), "coalloc", platform="bgl")
    with pytest.raises(ConfigError, match=r"grid.link: expected a capacity in bit/s > 0"):
        simulate(w, "coalloc", platform="grid:clusters=4,nodes=100,link=0")
    with pytest.raises(ConfigError, match=r"line 15: groups\[1\].link.capacity: expected a "
                                          r"finite number > 0, got -1"):
        simulate(w, "coalloc", platform=str(_write(tmp_path, UNEVEN.replace("2.5e8", "-1"))))
    with pytest.raises(ConfigError, match=r"grid.link: cluster 1's link capacity is 0.0; "
                                          r"accepted: a finite capacity > 0"):
        GridLayout((4, 4), (1000.0, 0.0))


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "p.toml"
    path.write_text(text)
    return path


@st.composite
def uneven_grids(draw):
    """A random platform of 2-4 clusters of different sizes and capacities, and a busy grid
    workload split over as many or fewer clusters, jobs up to the smallest cluster wide."""
    clusters = draw(st.integers(2, 4))
    sizes = draw(st.lists(st.integers(4, 16), min_size=clusters, max_size=clusters))
    caps = draw(st.lists(st.sampled_from([2e8, 4e8, 1e9]), min_size=clusters,
                         max_size=clusters))
    groups = tuple(Group(f"c{c}", k, "node", link=cap)
                   for c, (k, cap) in enumerate(zip(sizes, caps, strict=True)))
    desc = Description("rand", types=(NodeType("node"),), groups=groups)
    home = draw(st.integers(2, clusters))
    wmax = min(sizes)
    p = GridParams(clusters=home, nodes=wmax, n=draw(st.integers(5, 40)), load=1.2,
                   runtime=3600.0, width_min=2, width_max=wmax, ppbw=400.0,
                   error=draw(st.sampled_from([0.0, 1.0])), info=1.0)
    return desc, generate_grid(p, seed=draw(st.integers(0, 10_000)))


@settings(max_examples=examples(40), deadline=None)
@given(uneven_grids(), st.booleans())
def test_uneven_platforms_keep_every_invariant(grid, ctmr):
    desc, w = grid
    sim = Simulator(w, lambda s: Checked(s, make_params(CoallocParams, {"ctmr": ctmr})),
                    platform=GroupedPlatform(desc), check=True)
    sim.run()
    pol = sim.policy
    assert pol.max_allotted <= 1.0 + 1e-9  # no link beyond the platform's capacity
    assert list(pol.rates.links.capacity) == [g.link / 1e6 for g in desc.groups]
    for job in sim.jobs:
        assert job.status == "completed"
        assert pol.integrated(job.index) == pytest.approx(job.runtime, rel=1e-9, abs=1e-6)


def test_packed_values_are_read_in_place_as_python_floats():
    import numpy as np

    from ckptsim.components.gridrates import packed

    col = np.array([150.0, 300.0, np.nan])
    view = packed(col)
    assert isinstance(view, memoryview) and view.obj is col  # no copy
    assert type(view[1]) is float and view[1] == 300.0 and view[2] != view[2]
    with pytest.raises(TypeError):
        view[0] = 1.0  # read-only
    strided = packed(np.arange(6, dtype=float)[::2])  # not contiguous: copied
    assert list(strided) == [0.0, 2.0, 4.0]
