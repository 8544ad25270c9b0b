"""The platform: availability held by reason, the torus platform, platforms passed in."""

from __future__ import annotations

import pytest
from helpers import examples, inject_failures, jobs, starts
from hypothesis import given, settings
from hypothesis import strategies as st

from ckptsim.engine.components import Component
from ckptsim.engine.simulator import Simulator
from ckptsim.errors import ConfigError
from ckptsim.platform.base import FAILURE, OWNER, Platform, TorusPlatform
from ckptsim.platform.cluster import Cluster
from ckptsim.platform.description import load_description, resolve_platform
from ckptsim.platform.torus import Torus
from ckptsim.policies.base import scheduler_factory


def test_a_node_is_available_only_when_no_reason_holds_it():
    p = Platform(4)
    assert p.hold(FAILURE, 0b0011) == 0b0011
    assert p.hold(OWNER, 0b0110) == 0b0100  # node 1 was down already
    assert (p.free_mask, p.n_free, p.down_mask) == (0b1000, 1, 0b0111)
    assert p.release_hold(FAILURE, 0b0011) == 0b0001  # node 1 stays with the owner
    assert (p.free_mask, p.n_free, p.down_mask) == (0b1001, 2, 0b0110)
    assert p.held(OWNER) == 0b0110 and p.held(FAILURE) == 0
    assert p.release_hold(OWNER, 0b1111) == 0b0110  # only what it held
    assert (p.free_mask, p.n_free, p.down_mask, p.holds()) == (0b1111, 4, 0, {})


def test_a_node_a_job_holds_leaves_service_when_the_job_gives_it_back():
    p = Platform(4)
    p.take(0b0011, 2)
    assert p.hold(OWNER, 0b0010) == 0b0010 and p.n_free == 2
    p.give(0b0011, 2)  # node 1 goes out of service, idle
    assert (p.free_mask, p.n_free, p.down_idle) == (0b1101, 3, 0b0010)
    assert p.release_hold(OWNER, 0b0010) == 0b0010
    assert (p.free_mask, p.n_free, p.down_idle) == (0b1111, 4, 0)


def test_a_repaired_node_stays_down_while_its_owner_holds_it():
    # One job needs both nodes.  Node 0 fails at 5 (repaired at 25) while its owner holds it
    # from 10 to 40: the job, killed at 5, can only restart at 40 and ends at 50.
    class Owner(Component):
        name = "owner"

        def attach(self, sim):
            super().attach(sim)
            sim.at(10.0, lambda now: (sim.platform.hold(OWNER, 1), sim.nodes_changed()))
            sim.at(40.0, lambda now: (sim.platform.release_hold(OWNER, 1), sim.nodes_changed()))

    w = jobs([(0.0, 10.0, 2, 10.0)], 2)
    sim = Simulator(w, scheduler_factory("easy"), components=[Owner()], check=True)
    inject_failures(sim, [5.0], [0], [20.0])
    sim.run()
    assert starts(sim) == {1: (0.0, 50.0)}


@settings(max_examples=examples(60))
@given(n=st.sampled_from([5, 70, 2100]),
       ops=st.lists(st.tuples(st.sampled_from(["hold", "release", "take", "give"]),
                              st.sampled_from([FAILURE, OWNER, "reboot"]),
                              st.integers(0, 2**12 - 1), st.integers(0, 2)), max_size=30))
def test_holds_follow_a_model(n, ops):
    """Random holds, releases, allocations and returns against sets kept by hand, on machines
    of one block and of several (per-block free counts)."""
    p = Platform(n)
    holds: dict[str, set[int]] = {}
    jobs_: list[set[int]] = []
    for op, reason, bits, shift in ops:
        nodes = {(b * (n // 12 + 1) + shift) % n for b in range(12) if bits >> b & 1}
        mask = Cluster.mask_of(sorted(nodes))
        busy = set().union(*jobs_) if jobs_ else set()
        down = set().union(*holds.values()) if holds else set()
        if op == "hold":
            newly = p.hold(reason, mask)
            assert newly == Cluster.mask_of(sorted(nodes - down))
            holds.setdefault(reason, set()).update(nodes)
        elif op == "release":
            mine = nodes & holds.get(reason, set())
            holds[reason] = holds.get(reason, set()) - nodes
            rest = set().union(*holds.values())
            assert p.release_hold(reason, mask) == Cluster.mask_of(sorted(mine - rest))
        elif op == "take":
            want = nodes - busy - down
            p.take(Cluster.mask_of(sorted(want)), len(want))
            jobs_.append(want)
        elif jobs_:
            gone = jobs_.pop(0)
            p.give(Cluster.mask_of(sorted(gone)), len(gone))
        busy = set().union(*jobs_) if jobs_ else set()
        down = set().union(*holds.values()) if holds else set()
        free = set(range(n)) - busy - down
        assert p.free_mask == Cluster.mask_of(sorted(free)) and p.n_free == len(free)
        assert p.down_mask == Cluster.mask_of(sorted(down))
        assert p.down_idle == Cluster.mask_of(sorted(down - busy))
        assert p.block_counts_consistent()


def test_platforms_are_passed_in_or_asked_of_the_scheduler():
    w = jobs([(0.0, 10.0, 2, 10.0)], 8)
    sim = Simulator(w, scheduler_factory("fcfs"), platform=Platform(16))
    assert sim.platform.n_nodes == 16 and sim.cluster is sim.platform
    with pytest.raises(ConfigError, match="4 nodes asked for, but the platform given has 16"):
        Simulator(w, scheduler_factory("fcfs"), platform=Platform(16), machine_size=4)
    bgl = scheduler_factory("bgl-fcfs", {"x": 2, "y": 2, "z": 2})
    sim = Simulator(w, bgl)
    assert isinstance(sim.platform, TorusPlatform) and sim.platform.torus.dims == (2, 2, 2)
    assert sim.policy.torus is sim.platform.torus
    with pytest.raises(ConfigError, match="runs on the 2x2x2 torus, not on a cluster of 8"):
        Simulator(w, bgl, platform=Platform(8))
    with pytest.raises(ConfigError, match="runs on the 2x2x2 torus, not on another torus of 8"):
        Simulator(w, bgl, platform=TorusPlatform(Torus((2, 2, 2), wraparound=False)))
    with pytest.raises(ConfigError, match="2x2x2 torus, not on a platform of node groups of 26"):
        Simulator(w, bgl, platform=resolve_platform(load_description("smallpool"), w, None))
