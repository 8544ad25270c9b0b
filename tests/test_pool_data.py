"""The shipped pools: counts, types with the seed's Table 1 power values, parseable hours."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from ckptsim.errors import ConfigError
from ckptsim.platform.hours import WeeklyHours
from ckptsim.platform.pools import POOLS, pool_file, user_clusters
from ckptsim.platform.usermodel import generate_sessions
from ckptsim.workload.htc import NEWCASTLE_CORES

#: Seed 003, Table 1 (nameplate power, W): active, idle, sleep; and cores.
TABLE_1 = {
    "normal": (2, 57, 40, 2),
    "high_end": (4, 114, 67, 3),
    "legacy": (2, [100, 180], [50, 80], 4),
}


def load(name):
    return tomllib.loads(pool_file(name).read_text())


@pytest.mark.parametrize("name", POOLS)
def test_types_carry_table_1(name):
    doc = load(name)
    assert set(doc["types"]) == set(TABLE_1)
    for tname, (cores, active, idle, sleep) in TABLE_1.items():
        t = doc["types"][tname]
        assert t["cores"] == cores
        assert (t["power"]["active"], t["power"]["idle"], t["power"]["sleep"]) == (active, idle,
                                                                                   sleep)


@pytest.mark.parametrize("name", POOLS)
def test_groups_are_well_formed(name):
    doc = load(name)
    names = [g["name"] for g in doc["groups"]]
    assert len(set(names)) == len(names)
    for g in doc["groups"]:
        assert set(g) <= {"name", "machines", "type", "hours", "link"}
        assert g["type"] in doc["types"] and g["machines"] >= 1
        WeeklyHours.parse(g["hours"], key=g["name"])
    assert doc["name"] == name


def test_newcastle_pool_is_the_seeds_size():
    doc = load("newcastle")
    groups = doc["groups"]
    assert len(groups) == 35
    assert sum(g["machines"] for g in groups) == 1359
    cores = sum(g["machines"] * doc["types"][g["type"]]["cores"] for g in groups)
    assert cores == NEWCASTLE_CORES  # the HTC generator's default machine size
    always = [g for g in groups if WeeklyHours.parse(g["hours"]).always]
    assert 0 < len(always) < len(groups)  # some 24 h, some office hours (seed, section 3.1)
    assert {g["type"] for g in groups} == set(TABLE_1)


def test_small_pool():
    groups = load("smallpool")["groups"]
    assert [g["machines"] for g in groups] == [4, 3, 3]


def test_pools_feed_the_session_generator():
    clusters = user_clusters(load("smallpool"))
    s = generate_sessions(clusters, days=7, seed=1)
    assert s.n_machines == 10 and len(s) > 0 and len(s.overlapping()) == 0


def test_unknown_pool_name():
    with pytest.raises(ConfigError, match="accepted: newcastle, smallpool"):
        pool_file("oxford")


def test_pool_files_are_package_data():
    pyproject = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    assert "data/*.toml" in pyproject["tool"]["setuptools"]["package-data"]["ckptsim.platform"]
