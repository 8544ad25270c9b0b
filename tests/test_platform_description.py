"""Platform descriptions: the TOML format, built-ins, the machine <-> engine-node mapping,
bad input, and identical outputs on the default platform for every scheduler."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import examples, jobs, trace
from hypothesis import given, settings
from hypothesis import strategies as st

from ckptsim.cli.common import write_outputs
from ckptsim.errors import ConfigError
from ckptsim.platform.base import Platform, TorusPlatform
from ckptsim.platform.description import (
    DEFAULT_LINK,
    load_description,
    parse_description,
    read_description,
    resolve_platform,
)
from ckptsim.platform.groups import GroupedPlatform, machines_of
from ckptsim.policies.base import scheduler_names
from ckptsim.runner import simulate
from ckptsim.workload.lublin import generate_lublin
from ckptsim.workload.source import load_workload

POOL = """\
name = "pool"
[types.normal]
cores = 2
power = { active = 57, idle = 40, sleep = 2 }
[types.big]
cores = 4
speed = 0.5
[[groups]]
name = "library"
machines = 3
type = "normal"
hours = "mon-fri 08:00-20:00"
link = { capacity = 1e9 }
[[groups]]
name = "lab"
machines = 2
type = "big"
reboot = "05:00"
"""


def write(tmp_path: Path, text: str, name: str = "p.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_platform_file_maps_machines_onto_consecutive_engine_nodes(tmp_path):
    desc = read_description(write(tmp_path, POOL))
    assert (desc.name, desc.n_machines, desc.n_nodes) == ("pool", 5, 3 * 2 + 2 * 4)
    p = GroupedPlatform(desc)
    assert p.n_nodes == 14
    # library: machines 0-2 on nodes 0-1, 2-3, 4-5; lab: machines 3-4 on nodes 6-9, 10-13.
    assert [(m.first_node, m.cores, m.group, m.type_name) for m in p.machines] == [
        (0, 2, 0, "normal"), (2, 2, 0, "normal"), (4, 2, 0, "normal"),
        (6, 4, 1, "big"), (10, 4, 1, "big")]
    assert p.machine_mask(3) == 0b1111 << 6
    assert p.group_mask("library") == 0b111111 and p.group_mask(1) == 0b11111111 << 6
    assert [p.node_group(n) for n in (0, 5, 6, 13)] == [0, 0, 1, 1]
    assert [p.machine_of(n) for n in (0, 1, 2, 9, 10, 13)] == [0, 0, 1, 3, 4, 4]
    assert p.machines_in(0b11 << 5) == [2, 3]
    assert p.power_table(0) == {"active": 57, "idle": 40, "sleep": 2}
    assert p.power_table(3) is None
    assert desc.groups[0].link == 1e9 and desc.groups[1].link is None
    assert desc.groups[1].reboot == "05:00" and desc.type_of("big").speed == 0.5


def test_builtins():
    assert load_description("machine").kind == "machine"
    bgl = resolve_platform("bgl", jobs([(0, 1, 128, 1)], 128))
    assert isinstance(bgl, TorusPlatform) and bgl.torus.dims == (4, 4, 8)
    grid = load_description("grid:clusters=4,nodes=100")
    assert [(g.machines, g.link) for g in grid.groups] == [(100, DEFAULT_LINK)] * 4
    assert grid.n_nodes == 400
    assert all(g.link is None for g in load_description("grid:clusters=2,nodes=3,link=none")
               .groups)
    assert load_description("grid:clusters=3,nodes=5,link=2e9").groups[2].link == 2e9
    # The shipped default pool: 1,359 computers in 35 clusters (seed 003); 925 two-core
    # normal, 150 four-core high-end and 284 two-core legacy computers.
    pool = load_description("newcastle")
    assert (len(pool.groups), pool.n_machines, pool.n_nodes) == (35, 1359, 925 * 2 + 150 * 4
                                                                 + 284 * 2)
    machine = resolve_platform("machine", jobs([(0, 1, 3, 1)], 7))
    assert type(machine) is Platform and machine.n_nodes == 7
    assert len(machines_of(machine)) == 7


@pytest.mark.parametrize("text, where, accepted", [
    (POOL.replace("cores = 4", "cores = 4\ncolour = 1"), "line 7: types.big.colour",
     "accepted: cores, speed, power"),
    (POOL.replace("machines = 2", "machines = -2"), "line 16: groups[1].machines",
     "integer >= 1"),
    (POOL.replace('type = "big"', 'type = "huge"'), "line 17: groups[1].type",
     "accepted: normal, big"),
    (POOL.replace("mon-fri 08:00-20:00", "mon-fri 8-20"), "line 12: groups[0].hours",
     "HH:MM"),
    (POOL.replace("capacity = 1e9", "capacity = 0"), "line 13: groups[0].link.capacity",
     "> 0"),
    (POOL.replace('name = "lab"', 'name = "library"'), "line 15: groups[1].name",
     "used twice"),
    (POOL.replace('reboot = "05:00"', 'reboot = "5am"'), "line 18: groups[1].reboot",
     "HH:MM"),
    (POOL.replace("speed = 0.5", "speed = 0"), "line 7: types.big.speed", "> 0"),
    ("extra = 1\n" + POOL, "line 1: extra", "accepted: name, description, types, groups"),
    (POOL.replace("power = { active = 57, idle = 40, sleep = 2 }", "power = 57"),
     "line 4: types.normal.power", "expected a table"),
    (POOL.replace("active = 57", "active = 30"), "line 4: types.normal.power.active",
     "active = 30 W is below idle = 40 W"),
    (POOL.replace("sleep = 2", "sleep = [2, 41]"), "line 4: types.normal.power.sleep",
     "the lowest idle >= the highest sleep"),
])
def test_bad_files_are_refused_naming_file_line_key_and_accepted(tmp_path, text, where,
                                                                  accepted):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as err:
        read_description(path)
    assert str(err.value).startswith(f"{path}, {where}:")
    assert accepted in str(err.value)


def test_bad_names_and_options_are_refused():
    with pytest.raises(ConfigError, match="unknown platform 'nope'; accepted"):
        load_description("nope")
    with pytest.raises(ConfigError, match=r"grid.nodes: expected an integer >= 1, got '-3'"):
        load_description("grid:clusters=2,nodes=-3")
    with pytest.raises(ConfigError, match="accepted keys: clusters, nodes, link"):
        load_description("grid:cluster=2")
    with pytest.raises(ConfigError, match="no such file"):
        load_description("/nonexistent/p.toml")
    with pytest.raises(ConfigError, match="not valid TOML"):
        read_description(_bad_toml())


def test_a_platform_file_nested_too_deep_is_refused(tmp_path):
    path = tmp_path / "deep.toml"
    path.write_text("name = " + "[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(ConfigError, match="not valid TOML: arrays or tables nested too deep"):
        read_description(path)


def _bad_toml() -> Path:
    import tempfile

    path = Path(tempfile.mkdtemp()) / "bad.toml"
    path.write_text("name = \n")
    return path


def test_a_job_wider_than_the_platform_is_refused():
    w = jobs([(0, 10, 2, 10), (0, 10, 401, 10)], 500)
    with pytest.raises(ConfigError, match="job 2 needs 401 nodes but the platform grid has "
                                          "400"):
        simulate(w, "easy", platform="grid:clusters=4,nodes=100")


def test_a_grid_allocates_like_a_cluster_of_its_size():
    """Allocation on a grid platform is by lowest free engine node, as on a homogeneous
    machine of the same size: the schedules agree, the grid is recorded in the options."""
    w = generate_lublin(400, machine_size=400, seed=3)
    a = simulate(w, "easy", check=True, platform="grid:clusters=4,nodes=100")
    b = simulate(w, "easy", check=True)
    for col in ("start", "end", "wait"):
        assert a.table[col].tolist() == b.table[col].tolist()
    assert a.options["platform"] == {"name": "grid", "source": "grid:clusters=4,nodes=100",
                                     "groups": 4, "machines": 400, "nodes": 400}
    assert "platform" not in b.options


def _outputs(result, folder: Path) -> dict[str, bytes]:
    write_outputs(result, folder)
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.mark.parametrize("scheduler", scheduler_names())
def test_the_default_platform_gives_identical_outputs_for_every_scheduler(scheduler,
                                                                           tmp_path):
    """Naming the default platform (machine, or bgl for the BG/L schedulers) changes no byte
    of jobs.csv, summary.json or schedule.swf."""
    # coalloc schedules grid workloads (jobs with a home cluster and a bandwidth)
    w = (load_workload("grid:n=200,seed=5") if scheduler == "coalloc"
         else generate_lublin(600, machine_size=128, seed=5))
    name = "bgl" if scheduler.startswith("bgl") else "machine"
    before = _outputs(simulate(w, scheduler, check=True), tmp_path / "a")
    after = _outputs(simulate(w, scheduler, check=True, platform=name), tmp_path / "b")
    assert before == after


def test_the_command_line_takes_a_platform(tmp_path, capsys):
    from ckptsim.cli import main

    path = trace("SDSC-SP2-1998-4.2-cln.swf.gz")
    base = ["run", "--workload", str(path), "--first", "500"]
    assert main([*base, "--out", str(tmp_path / "a")]) == 0
    assert main([*base, "--platform", "machine", "--out", str(tmp_path / "b")]) == 0
    for name in ("jobs.csv", "summary.json", "schedule.swf"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert main([*base, "--platform", "grid:clusters=2,nodes=64", "--out",
                 str(tmp_path / "c")]) == 0
    doc = json.loads((tmp_path / "c" / "summary.json").read_text())
    assert doc["options"]["platform"]["nodes"] == 128
    bad = write(tmp_path, POOL.replace('type = "big"', 'type = "huge"'))
    assert main([*base, "--platform", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}, line 17: groups[1].type: unknown type 'huge'" in err


@settings(max_examples=examples(40))
@given(groups=st.lists(st.tuples(st.integers(1, 5), st.sampled_from(["a", "b", "c"])),
                       min_size=1, max_size=6))
def test_machine_blocks_tile_the_engine_nodes(groups):
    doc = {"types": {"a": {"cores": 1}, "b": {"cores": 2}, "c": {"cores": 3}},
           "groups": [{"name": f"g{i}", "machines": n, "type": t}
                      for i, (n, t) in enumerate(groups)]}
    p = GroupedPlatform(parse_description(doc))
    node = 0
    for m in p.machines:
        assert m.first_node == node
        assert m.cores == {"a": 1, "b": 2, "c": 3}[groups[m.group][1]]
        for k in range(m.cores):
            assert p.machine_of(node + k) == m.index
            assert p.node_group(node + k) == m.group
        node += m.cores
    assert node == p.n_nodes
    assert sum(p.group_mask(g) for g in range(len(groups))) == p.all_mask


def test_platform_in_a_spec_is_an_axis_hashed_only_when_given(tmp_path):
    from ckptsim.experiments.matrix import build_matrix
    from ckptsim.experiments.spec import parse_spec

    (tmp_path / "t.swf").write_text("1 0 0 10 2 -1 -1 2 10 -1 1 1 1 1 1 1 -1 -1\n")
    (tmp_path / "lab.toml").write_text(POOL)
    base = '[workloads.w]\ntrace = "t.swf"\n{}\n[[schedulers]]\nname = "easy"\n'
    plain = build_matrix(parse_spec(base.format(""), tmp_path / "s.toml"))
    runs = build_matrix(parse_spec(base.format(
        'platform = ["machine", "grid:clusters=2,nodes=4", "lab.toml"]'), tmp_path / "s.toml"))
    assert "workload.platform" not in plain[0].columns and plain[0].platform is None
    assert [r.columns["workload.platform"] for r in runs] == [
        "machine", "grid:clusters=2,nodes=4", "lab.toml"]
    assert runs[2].platform == str(tmp_path / "lab.toml")
    assert len({r.run_id for r in [*plain, *runs]}) == 4
    # The file is hashed by its text: moving it keeps the run id.
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "lab.toml").write_text(POOL)
    moved = build_matrix(parse_spec(base.format('platform = "sub/lab.toml"'),
                                    tmp_path / "s.toml"))
    assert moved[0].run_id == runs[2].run_id
    with pytest.raises(ConfigError, match=r"workloads.w.platform .*unknown platform 'nope'"):
        parse_spec(base.format('platform = "nope"'), tmp_path / "s.toml")
