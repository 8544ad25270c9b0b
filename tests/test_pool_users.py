"""Interactive user sessions: the CSV reader and writer, overlap checks, arrival counts."""

from __future__ import annotations

import gzip

import numpy as np
import pytest
from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from ckptsim.calendar import Calendar
from ckptsim.errors import ConfigError, WorkloadError
from ckptsim.platform.hours import OpeningHours
from ckptsim.platform.users import (
    ArrivalCounter,
    Sessions,
    UserCluster,
    cluster_of_machine,
    machine_names,
    read_sessions,
    write_sessions,
)

CLUSTERS = [UserCluster("lib", 3, OpeningHours.parse("24h")),
            UserCluster("lab", 2, OpeningHours.parse("mon-fri 08:00-18:00"))]
NAMES = machine_names(CLUSTERS)


def write(tmp_path, text, name="s.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_machine_names_and_clusters():
    assert NAMES == ["lib:0", "lib:1", "lib:2", "lab:0", "lab:1"]
    assert cluster_of_machine(CLUSTERS).tolist() == [0, 0, 0, 1, 1]


def test_read_names_indices_iso_times_comments_and_extra_columns(tmp_path):
    path = write(tmp_path, "# a comment\n"
                           "user,logout,machine,login\n"
                           "\n"
                           "alice,5400,lab:1,3600\n"
                           "bob,2010-01-01 02:30:00,0,2010-01-01 02:00\n"
                           "carol,100.5,lib:2,100.5\n")
    s = read_sessions(path, NAMES)
    assert s.machine.tolist() == [2, 4, 0]  # sorted by login
    assert s.login.tolist() == [100.5, 3600.0, 7200.0]
    assert s.logout.tolist() == [100.5, 5400.0, 9000.0]  # an empty session is kept
    assert s.n_machines == 5 and s.counts["sessions_read"] == 3


def test_iso_times_use_the_calendar_epoch(tmp_path):
    path = write(tmp_path, "machine,login,logout\n0,2010-06-03T09:55,2010-06-03T10:40\n")
    s = read_sessions(path, 5, calendar=Calendar("2010-06-03"))
    assert (s.login[0], s.logout[0]) == (9 * 3600 + 55 * 60, 10 * 3600 + 40 * 60)


def test_gzip_file(tmp_path):
    path = tmp_path / "s.csv.gz"
    path.write_bytes(gzip.compress(b"machine,login,logout\nlib:1,10,20\n"))
    assert read_sessions(path, NAMES).machine.tolist() == [1]


@pytest.mark.parametrize("line,field,message", [
    ("lib:0,500,400", "logout", "before login"),
    ("lib:9,1,2", "machine", "unknown machine"),
    ("7,1,2", "machine", "out of range"),
    ("lib:0,12x,20", "login", "expected seconds"),
    ("lib:0,10,nan", "logout", "not a finite"),
    ("lib:0,-5,20", "login", "before time 0"),
    ("lib:0,10", "logout", "missing value"),
    ("lib:0,,20", "login", "missing value"),
])
def test_bad_line_names_file_line_and_field(tmp_path, line, field, message):
    path = write(tmp_path, f"machine,login,logout\nlib:1,0,10\n{line}\n")
    with pytest.raises(WorkloadError) as err:
        read_sessions(path, NAMES)
    e = err.value
    assert (e.path, e.line, e.field) == (str(path), 3, field)
    assert message in str(e) and str(e).startswith(f"{path}, line 3, field {field}: ")


def test_header_must_name_the_columns(tmp_path):
    with pytest.raises(WorkloadError, match="line 1: .*missing: logout"):
        read_sessions(write(tmp_path, "machine,login,end\n0,1,2\n"), NAMES)
    with pytest.raises(WorkloadError, match="no header"):
        read_sessions(write(tmp_path, "# nothing\n"), NAMES)


def test_header_only_gives_no_sessions(tmp_path):
    s = read_sessions(write(tmp_path, "machine,login,logout\n"), NAMES)
    assert len(s) == 0 and s.login.dtype == np.float64


def test_missing_file_and_bad_option(tmp_path):
    with pytest.raises(WorkloadError, match="file not found"):
        read_sessions(tmp_path / "none.csv", NAMES)
    with pytest.raises(ConfigError, match="overlap"):
        read_sessions(write(tmp_path, "machine,login,logout\n"), NAMES, overlap="keep")


def test_overlap_is_refused_naming_both_lines(tmp_path):
    path = write(tmp_path, "machine,login,logout\nlab:0,100,200\nlib:0,150,160\n"
                           "lab:0,300,400\nlab:0,350,500\n")
    with pytest.raises(WorkloadError) as err:
        read_sessions(path, NAMES)
    assert err.value.line == 5 and "line 4" in str(err.value) and "lab:0" in str(err.value)


def test_overlap_merge_joins_sessions(tmp_path):
    path = write(tmp_path, "machine,login,logout\nlab:0,100,200\nlab:0,150,180\n"
                           "lab:0,190,300\nlab:0,300,310\n")
    s = read_sessions(path, NAMES, overlap="merge")
    # 150-180 and 190-300 start before 100-200 (then 100-300) ends; 300-310 only touches.
    assert list(zip(s.login.tolist(), s.logout.tolist(), strict=True)) == [(100, 300),
                                                                          (300, 310)]
    assert s.counts["merged_overlaps"] == 2


def test_overlapping_finds_nested_sessions():
    s = Sessions.build([0, 0, 0, 1], [0, 10, 50, 5], [100, 20, 60, 200], 2)
    # On machine 0, 10-20 and 50-60 lie inside 0-100.
    assert sorted(s.login[s.overlapping()].tolist()) == [10.0, 50.0]
    assert len(Sessions.build([0, 0], [0, 10], [10, 20], 1).overlapping()) == 0


_session_sets = st.lists(
    st.tuples(st.integers(0, 4), st.floats(0, 1e7, allow_nan=False),
              st.floats(0, 1e4, allow_nan=False)), max_size=30)


@settings(max_examples=examples(40))
@given(rows=_session_sets, by_name=st.booleans())
def test_property_write_then_read_gives_the_same_sessions(tmp_path_factory, rows, by_name):
    # Keep rows that do not overlap on their machine.
    kept: list[tuple[int, float, float]] = []
    for m, a, d in rows:
        if all(k[0] != m or a + d <= k[1] or a >= k[2] for k in kept):
            kept.append((m, a, a + d))
    s = Sessions.build([k[0] for k in kept], [k[1] for k in kept], [k[2] for k in kept], 5)
    path = tmp_path_factory.mktemp("rt") / "s.csv"
    write_sessions(path, s, NAMES if by_name else None)
    back = read_sessions(path, NAMES)
    for col in ("machine", "login", "logout"):
        assert getattr(back, col).tolist() == getattr(s, col).tolist()


# -- arrival counts ---------------------------------------------------------------------------

def test_arrival_counts_by_cluster_and_system_wide():
    s = Sessions.build([0, 1, 3, 2], [0, 60, 90, 120], [10, 70, 95, 130], 5)
    counter = ArrivalCounter(s, cluster_of_machine(CLUSTERS))
    assert counter.count(120, 60) == 3  # 60, 90, 120: both ends of [t - w, t] included
    assert counter.count(120, 60, cluster=0) == 2
    assert counter.count(120, 60, cluster=1) == 1
    assert counter.count(59.5, 60) == 1  # [-0.5, 59.5] holds login 0
    assert counter.count(119.9, 29.8) == 0  # [90.1, 119.9]
    assert counter.counts(np.array([0, 60, 1000]), 0).tolist() == [1, 1, 0]


@settings(max_examples=examples(40))
@given(logins=st.lists(st.integers(0, 500), max_size=40),
       machines=st.lists(st.integers(0, 4), min_size=40, max_size=40),
       t=st.integers(0, 600), w=st.integers(0, 200))
def test_property_arrival_counts_match_a_direct_count(logins, machines, t, w):
    m = machines[:len(logins)]
    s = Sessions.build(m, logins, [x + 1 for x in logins], 5)
    counter = ArrivalCounter(s, cluster_of_machine(CLUSTERS))
    assert counter.count(t, w) == sum(t - w <= x <= t for x in logins)
    for c in (0, 1):
        expected = sum(t - w <= x <= t and (mm >= 3) == c for x, mm in zip(logins, m,
                                                                          strict=True))
        assert counter.count(t, w, cluster=c) == expected
