"""The htc scheduler: random placement (deterministic per seed, uniform over the free cores,
never on a core in use or held), `first` placement as fcfs, sleeping machines woken; a
property: no core runs two jobs and every completed job did exactly its work."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from helpers import doc_commands, examples, jobs, run_doc_command
from hypothesis import given, settings
from hypothesis import strategies as st

from ckptsim.components import Component, build_components
from ckptsim.engine.simulator import Simulator
from ckptsim.errors import ConfigError
from ckptsim.platform.description import load_description, resolve_platform
from ckptsim.policies.base import scheduler_factory
from ckptsim.runner import simulate
from ckptsim.workload.lublin import generate_lublin

H = 3600.0


class Placements(Component):
    """Records every job's nodes as it takes them, and checks no node is taken twice."""

    name = "placements"

    def __init__(self) -> None:
        super().__init__()
        self.starts: list[tuple[int, float, int]] = []  # (job index, time, mask)
        self.holding: dict[int, int] = {}

    def on_start(self, job):
        assert self.sim is not None
        taken = 0
        for idx, mask in self.holding.items():
            if idx != job.index:
                taken |= mask
        assert not taken & job.mask, f"job {job.id} placed on a node in use"
        self.holding[job.index] = job.mask
        self.starts.append((job.index, self.sim.now, job.mask))

    def on_release(self, job):
        if job.mask:
            self.holding[job.index] = job.mask
        else:
            self.holding.pop(job.index, None)


def run(w, params=None, *, seed=0, platform=None, comps=None, extra=()):
    rec = Placements()
    sim = Simulator(w, scheduler_factory("htc", params or {}), platform=platform, seed=seed,
                    components=[*build_components(comps or {}), rec, *extra], check=True)
    sim.run()
    return sim, rec


def serial(n: int, *, first_long: bool = False) -> list[tuple[float, float, int, float]]:
    """n jobs of 5 s, one every 10 s (each finds every core free but a long job's)."""
    rows = [(0.0, 1e6, 1, 1e6)] if first_long else []
    return rows + [(1.0 + 10.0 * i, 5.0, 1, 5.0) for i in range(n)]


def test_random_placement_is_deterministic_per_seed_and_changes_with_it():
    w = jobs(serial(200), 8)
    a = run(w, seed=3)[1].starts
    b = run(w, seed=3)[1].starts
    c = run(w, seed=4)[1].starts
    assert a == b
    assert [m for _, _, m in a] != [m for _, _, m in c]
    # The scheduler's own seed overrides the run's.
    d = run(w, {"seed": 3}, seed=99)[1].starts
    assert d == a


def test_random_placement_is_uniform_over_the_free_cores():
    # Core of job 0 is busy all along: the 3,000 short jobs never land there, and spread
    # evenly over the three other cores (each 1,000 expected, sd sqrt(3000 * 1/3 * 2/3) =
    # 25.8; 5 sd = 129).
    sim, rec = run(jobs(serial(3000, first_long=True), 4), seed=11)
    long_mask = rec.starts[0][2]
    counts = Counter(m for idx, _, m in rec.starts if idx != 0)
    assert long_mask not in counts
    assert sorted(counts) == sorted({1, 2, 4, 8} - {long_mask})
    assert all(abs(c - 1000) < 129 for c in counts.values()), counts
    # A chi-square statistic with 2 degrees of freedom below 13.8 (p = 0.001).
    assert sum((c - 1000) ** 2 / 1000 for c in counts.values()) < 13.8


def test_random_placement_over_machines_is_uniform_over_the_machines():
    # smallpool: library (4 x 2 cores, nodes 0-7), cad-lab (3 x 4 cores, nodes 8-19),
    # old-lab (3 x 2 cores, nodes 20-25).  3,000 short jobs one at a time, every core free at
    # each: over machines each of the 10 machines 300 expected, always its lowest core
    # (over cores a cad-lab machine would get twice a library one).
    w = jobs(serial(3000), 26)
    platform = resolve_platform(load_description("smallpool"), w, None)
    counts = Counter(m for _, _, m in run(w, {"random_over": "machines"}, seed=5,
                                          platform=platform)[1].starts)
    assert sorted(counts) == [1 << f for f in (0, 2, 4, 6, 8, 12, 16, 20, 22, 24)]
    # A chi-square statistic with 9 degrees of freedom below 27.9 (p = 0.001).
    assert sum((c - 300) ** 2 / 300 for c in counts.values()) < 27.9


def test_wide_jobs_get_distinct_random_cores():
    w = jobs([(0.0, 10.0, 3, 10.0), (0.0, 10.0, 2, 10.0), (0.0, 10.0, 3, 10.0)], 6)
    sim, rec = run(w, seed=2)
    masks = {idx: m for idx, t, m in rec.starts}
    assert masks[0].bit_count() == 3 and masks[1].bit_count() == 2
    assert not masks[0] & masks[1]
    # Job 3 needs 3 cores, only 1 is free: it waits for the first end (fcfs order).
    assert sim.jobs[2].start == 10.0


def test_first_placement_is_fcfs():
    w = generate_lublin(300, machine_size=64, seed=7)
    a = simulate(w, "htc", {"placement": "first"}, check=True)
    b = simulate(w, "fcfs", check=True)
    for col in ("start", "end", "wait"):
        assert a.table[col].tolist() == b.table[col].tolist()


def test_held_machines_are_not_chosen_and_sleeping_ones_are_woken(tmp_path: Path):
    # smallpool: 4 two-core "library" machines (nodes 0-7) first.  An owner holds library:0
    # (nodes 0, 1) over [0, 10 h); 400 jobs of 60 s one every 100 s never land there.
    (tmp_path / "s.csv").write_text("machine,login,logout\nlibrary:0,0,36000\n")
    w = jobs([(1.0 + 100.0 * i, 60.0, 1, 60.0) for i in range(300)], 26)
    platform = resolve_platform(load_description("smallpool"), w, None)
    sim, rec = run(w, seed=1, platform=platform,
                   comps={"availability": {"owners": str(tmp_path / "s.csv")}})
    assert all(not m & 0b11 for _, _, m in rec.starts)
    assert len({m for _, _, m in rec.starts}) == 24  # every other core was drawn


def test_a_job_on_a_sleeping_machine_waits_for_the_wake_up():
    # One machine asleep after its 1 h idle timeout: a job at 2 h starts its work 120 s later.
    w = jobs([(0.0, 10.0, 1, 10.0), (2 * H, 100.0, 1, 100.0)], 1)
    sim, _ = run(w, comps={"energy": {"active": 100, "idle": 40, "sleep": 2, "wake_time": 120},
                           "power": {"idle_timeout": 3600}})
    job = sim.jobs[1]
    assert (job.start, job.end, job.overhead) == (2 * H, 2 * H + 220.0, 120.0)


@pytest.mark.parametrize("command", [c for c in doc_commands(
    (Path(__file__).resolve().parents[1] / "docs" / "schedulers.md").read_text())
    if "--scheduler htc" in c])
def test_the_htc_commands_of_schedulers_md_run(command, tmp_path):
    run_doc_command(command, tmp_path)


def test_every_parameter_is_documented():
    from dataclasses import fields

    from ckptsim.policies.htc import HTCParams

    text = (Path(__file__).resolve().parents[1] / "docs" / "schedulers.md").read_text()
    section = text.split("## `htc`", 1)[1].split("\n## ", 1)[0]
    for f in fields(HTCParams):
        assert f"`{f.name}`" in section, f.name


def test_bad_parameters_are_refused_naming_the_key():
    with pytest.raises(ConfigError, match="placement"):
        scheduler_factory("htc", {"placement": "best"})
    with pytest.raises(ConfigError, match="seed"):
        scheduler_factory("htc", {"seed": -1})
    with pytest.raises(ConfigError, match=r"htc\.random_over: got 'nodes'; accepted: one of "
                                          r"cores, machines"):
        scheduler_factory("htc", {"random_over": "nodes"})


@settings(max_examples=examples(25), deadline=None)
@given(rows=st.lists(st.tuples(st.floats(0, 20 * H), st.floats(1, 6 * H)), min_size=1,
                     max_size=25),
       sessions=st.lists(st.tuples(st.integers(0, 9), st.floats(0, 20 * H),
                                   st.floats(60, 3 * H)), max_size=12),
       mode=st.sampled_from(["kill", "suspend"]), interval=st.sampled_from([0, 1800]),
       seed=st.integers(0, 5), placement=st.sampled_from(["random", "first", "efficient"]),
       over=st.sampled_from(["cores", "machines"]), power=st.booleans())
def test_property_no_core_runs_two_jobs_and_work_is_exact(tmp_path_factory, rows, sessions,
                                                          mode, interval, seed, placement,
                                                          over, power):
    rows = sorted(rows)
    w = jobs([(s, r, 1, r) for s, r in rows], 26)
    path = tmp_path_factory.mktemp("own") / "s.csv"
    names = ["library:0", "library:1", "library:2", "library:3", "cad-lab:0", "cad-lab:1",
             "cad-lab:2", "old-lab:0", "old-lab:1", "old-lab:2"]
    # Sessions of one machine must not overlap: keep them apart, in start order.
    last: dict[int, float] = {}
    lines = []
    for m, a, d in sorted(sessions, key=lambda s: s[1]):
        if a < last.get(m, -1.0):
            continue
        lines.append(f"{names[m]},{a},{a + d}\n")
        last[m] = a + d
    path.write_text("machine,login,logout\n" + "".join(lines))
    comps = {"availability": {"owners": str(path), "on_unavailable": mode,
                              "reboot": "05:00"},
             "bound": {"limit": 12 * H}}
    if interval:
        comps["checkpoint"] = {"policy": f"fixed:interval={interval},cost=60"}
    if power:
        comps["energy"] = {"htc": True}
        comps["power"] = {"idle_timeout": 600}
    platform = resolve_platform(load_description("smallpool"), w, None)
    sim, rec = run(w, {"placement": placement, "random_over": over}, seed=seed,
                   platform=platform, comps=comps)
    for job in sim.jobs:
        assert job.status in ("completed", "bad")
        if job.status == "completed":
            assert job.work_done == pytest.approx(job.runtime, abs=1e-6)


@settings(max_examples=examples(40), deadline=None)
@given(n=st.integers(1, 3100), taken=st.lists(st.integers(0, 3099), max_size=200),
       data=st.data())
def test_kth_free_is_the_kth_lowest_free_id(n, taken, data):
    from ckptsim.platform.cluster import Cluster

    c = Cluster(n)
    for node in sorted({t for t in taken if t < n}):
        c.take(1 << node, 1)
    ids = Cluster.node_ids(c.free_mask)
    if ids:
        k = data.draw(st.integers(0, len(ids) - 1))
        assert c.kth_free(k) == ids[k]
        assert c.kth_free(len(ids) - 1) == ids[-1] and c.kth_free(0) == ids[0]


# --- the energy-aware order ----------------------------------------------------------------------
TWO_MACHINES = """
[types.hog]
cores = 2
power = { active = 100, idle = 60, sleep = 4 }
[types.eco]
cores = 2
power = { active = 40, idle = 30, sleep = 2 }
[[groups]]
name = "hogs"
machines = 1
type = "hog"
[[groups]]
name = "ecos"
machines = 1
type = "eco"
"""


def test_efficient_prefers_the_power_efficient_machine(tmp_path):
    # The hog is nodes 0-1, the eco machine (20 W per core active against 50) nodes 2-3.
    # Without power management all are awake: three jobs at 0 take 2, 3, then 0.
    (tmp_path / "p.toml").write_text(TWO_MACHINES)
    platform = resolve_platform(load_description(str(tmp_path / "p.toml")), jobs([], 4), None)
    w = jobs([(0.0, 10.0, 1, 10.0)] * 3, 4)
    sim, rec = run(w, {"placement": "efficient"}, platform=platform)
    assert [m for _, _, m in rec.starts] == [0b0100, 0b1000, 0b0001]


def test_efficient_prefers_awake_machines_and_wakes_the_best_one(tmp_path):
    (tmp_path / "p.toml").write_text(TWO_MACHINES)
    w = jobs([(0.0, 10.0, 1, 10.0), (0.0, 10.0, 1, 10.0), (0.0, 500.0, 1, 500.0),
              (520.0, 10.0, 1, 10.0), (2000.0, 10.0, 1, 10.0)], 4)
    platform = resolve_platform(load_description(str(tmp_path / "p.toml")), w, None)
    sim, rec = run(w, {"placement": "efficient"}, platform=platform,
                   comps={"energy": {"log": True}, "power": {"idle_timeout": 60}})
    masks = [m for _, _, m in rec.starts]
    # Jobs 1-2 fill the eco machine (asleep from 70 s), job 3 the hog (idle from 500 s).  At
    # 520 s the hog is awake and the eco machine asleep: job 4 goes to the hog.  At 2,000 s
    # both sleep: job 5 wakes the efficient one.
    assert masks == [0b0100, 0b1000, 0b0001, 0b0001, 0b0100]
