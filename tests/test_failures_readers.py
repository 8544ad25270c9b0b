"""Failure-log readers: LANL CFDR CSV and Failure Trace Archive event traces.

Small hand-written files check every rule and error; the real files in ../shared/data/failures
(skipped when absent) check counts verified independently with zcat and awk.
"""

from __future__ import annotations

import datetime as dt
import gzip
from pathlib import Path

import numpy as np
import pytest
from helpers import FAILURES, LANL_CSV, LANL_HEADER, lanl_row, real

import ckptsim.failures.readers as readers
from ckptsim.errors import ConfigError, WorkloadError
from ckptsim.failures import fta_event_trace_path, lanl_systems, read_fta, read_lanl_cfdr


def write(tmp_path: Path, name: str, lines: list[str], gz: bool = False) -> Path:
    text = "\n".join(lines) + "\n"
    path = tmp_path / name
    if gz:
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return path


@pytest.fixture
def lanl(tmp_path: Path) -> Path:
    # System 2: three failures on nodes 0, 1, 0; system 3: one failure.  Times in January
    # (standard time), so wall-clock differences are elapsed times.
    return write(tmp_path, "lanl.csv", [
        LANL_HEADER,
        lanl_row(2, 0, "1/10/2004 10:00", "1/10/2004 11:30", "90"),
        lanl_row(2, 1, "1/10/2004 10:30", "1/10/2004 10:30", "0"),
        lanl_row(3, 5, "1/11/2004 0:00", "1/11/2004 0:10", "10", nodes="8"),
        lanl_row(2, 0, "1/12/2004 10:00", "1/12/2004 10:05", "5"),
    ])


# -- LANL: hand-written files ------------------------------------------------------------------


def test_lanl_system_times_repairs_and_nodes(lanl: Path) -> None:
    tr = read_lanl_cfdr(lanl, system=2)
    assert tr.time.tolist() == [0.0, 1800.0, 2 * 86400.0]
    assert tr.node.tolist() == [0, 1, 0]
    assert tr.repair.tolist() == [5400.0, 0.0, 300.0]
    assert tr.span == 2 * 86400.0
    assert tr.counts["records"] == 4 and tr.counts["other_systems"] == 1
    assert tr.counts["failures"] == 3 and tr.counts["zero_repair"] == 1


def test_lanl_gzip_reads_the_same(lanl: Path, tmp_path: Path) -> None:
    gz = tmp_path / "lanl.csv.gz"
    gz.write_bytes(gzip.compress(lanl.read_bytes()))
    a, b = read_lanl_cfdr(lanl, system=2), read_lanl_cfdr(gz, system=2)
    assert np.array_equal(a.time, b.time) and np.array_equal(a.repair, b.repair)


def test_lanl_all_systems_keep_nodes_apart(lanl: Path) -> None:
    tr = read_lanl_cfdr(lanl)
    assert len(tr) == 4
    assert sorted(set(tr.node.tolist())) == [200_000, 200_001, 300_005]


def test_lanl_window_in_seconds_and_dates(lanl: Path) -> None:
    by_offset = read_lanl_cfdr(lanl, system=2, start=600, end=86400)
    assert by_offset.time.tolist() == [1200.0] and by_offset.span == 86400 - 600
    assert by_offset.counts["before_window"] == 1 and by_offset.counts["after_window"] == 1
    by_date = read_lanl_cfdr(lanl, system=2, start="2004-01-10 10:10", end=dt.date(2004, 1, 11))
    assert by_date.time.tolist() == [1200.0]
    lanl_form = read_lanl_cfdr(lanl, system=2, start="1/10/2004 10:10",
                               end=dt.datetime(2004, 1, 11))
    assert lanl_form.time.tolist() == [1200.0]


def test_lanl_window_without_start_is_relative_to_first_failure(lanl: Path) -> None:
    tr = read_lanl_cfdr(lanl, system=2, end=86400)
    assert tr.time.tolist() == [0.0, 1800.0] and tr.span == 86400


def test_lanl_dst_makes_differences_elapsed_time(tmp_path: Path) -> None:
    # 4 April 2004 was the spring change: 1:29 MST to 3:01 MDT is 32 minutes (the trace's own
    # Down Time), not 92; the repeated hour of 31 October 2004 is read as standard time.
    path = write(tmp_path, "dst.csv", [
        LANL_HEADER,
        lanl_row(20, 1, "4/4/2004 1:29", "4/4/2004 3:01", "32"),
        lanl_row(20, 2, "10/30/2004 23:35", "10/31/2004 1:02", "147"),
    ])
    tr = read_lanl_cfdr(path)
    assert tr.repair.tolist() == [32 * 60.0, 147 * 60.0]
    assert tr.counts["down_time_mismatch"] == 0
    wall = read_lanl_cfdr(path, dst=False)
    assert wall.repair.tolist() == [92 * 60.0, 87 * 60.0]
    assert wall.counts["down_time_mismatch"] == 2


def test_lanl_dst_rules() -> None:
    def offset(*args: int) -> float:
        return readers._lanl_seconds(*args, 0, dst=False) - readers._lanl_seconds(*args, 0,
                                                                                   dst=True)
    assert offset(2004, 4, 4, 1, 59) == 0 and offset(2004, 4, 4, 3, 0) == 3600
    assert offset(2004, 10, 31, 0, 59) == 3600 and offset(2004, 10, 31, 1, 0) == 0
    assert offset(2007, 3, 11, 3, 0) == 3600 and offset(2007, 4, 1, 1, 0) == 3600
    assert offset(2007, 11, 4, 2, 0) == 0 and offset(1986, 4, 27, 3, 0) == 3600
    assert offset(1986, 4, 20, 3, 0) == 0


def test_lanl_missing_node_number_is_node_zero(tmp_path: Path) -> None:
    path = write(tmp_path, "s17.csv", [
        LANL_HEADER,
        "17,,,,,,,,,,,,,,,,1/8/1997 8:40,1/8/1997 8:50,10,,Other,,,,,No",
    ])
    tr = read_lanl_cfdr(path, system=17)
    assert tr.node.tolist() == [0] and tr.counts["missing_node"] == 1
    assert lanl_systems(path) == {17: (None, 1)}


def test_lanl_quoted_fields_and_duplicates_and_overlaps(tmp_path: Path) -> None:
    row = lanl_row(2, 4, "4/19/2001 3:27", "4/19/2001 3:48", "21").replace(
        "CPU", '"MPI, PVM, Array services"')
    path = write(tmp_path, "q.csv", [
        LANL_HEADER, row, row,
        lanl_row(2, 4, "4/19/2001 3:30", "4/19/2001 3:35", "5"),
    ])
    tr = read_lanl_cfdr(path, system=2)
    assert len(tr) == 3 and tr.counts["duplicates"] == 1 and tr.counts["overlapping"] == 2


def test_lanl_repair_without_fix_time(tmp_path: Path) -> None:
    # An empty Prob Fixed takes the Down Time as the repair; with neither the failure is
    # transient.  Both are counted.
    path = write(tmp_path, "nofix.csv", [
        LANL_HEADER,
        lanl_row(2, 0, "1/1/2004 0:00", "", "30"),
        lanl_row(2, 1, "1/1/2004 1:00", "", ""),
    ])
    tr = read_lanl_cfdr(path)
    assert tr.repair.tolist() == [1800.0, 0.0]
    assert tr.counts["repair_from_down_time"] == 1 and tr.counts["no_repair_time"] == 1
    no_column = write(tmp_path, "nocol.csv", ["System,nodenumz,Prob Started",
                                              "2,3,1/1/2004 0:00"])
    assert read_lanl_cfdr(no_column).repair.tolist() == [0.0]


def test_lanl_node_column_choice(tmp_path: Path) -> None:
    line = lanl_row(19, 0, "1/1/2004 0:00", "1/1/2004 1:00", "60").replace(",0,0,5-Apr",
                                                                           ",1024,0,5-Apr")
    path = write(tmp_path, "n.csv", [LANL_HEADER, line])
    assert read_lanl_cfdr(path).node.tolist() == [1_900_000]
    assert read_lanl_cfdr(path, system=19, node_column="nodenum").node.tolist() == [1024]
    with pytest.raises(ConfigError, match="node_column"):
        read_lanl_cfdr(path, node_column="node")


@pytest.mark.parametrize(("line", "field", "message"), [
    (lanl_row(2, 0, "13/1/2004 0:00", "1/1/2004 0:00"), "Prob Started", "no such date"),
    (lanl_row(2, 0, "1/1/2004", "1/1/2004 0:00"), "Prob Started", "M/D/YYYY H:MM"),
    (lanl_row(2, 0, "1/1/2004 0:00", "1/1/2004 25:00"), "Prob Fixed", "out of range"),
    (lanl_row(2, 0, "1/2/2004 0:00", "1/1/2004 0:00"), "Prob Fixed", "before it started"),
    (lanl_row(2, "x", "1/1/2004 0:00", "1/1/2004 0:00"), "nodenumz", "whole number"),
    (lanl_row(2, -1, "1/1/2004 0:00", "1/1/2004 0:00"), "nodenumz", ">= 0"),
    (lanl_row(2, 0, "1/1/2004 0:00", "1/1/2004 0:00").replace("2,", "two,", 1), "System",
     "whole number"),
    (lanl_row(2, 0, "1/1/2004 0:00", "1/1/2004 0:00", down="ten"), "Down Time", "minutes"),
    (lanl_row(2, 10**25, "1/1/2004 0:00", "1/1/2004 0:00"), "nodenumz", "below 100000"),
    (lanl_row(2, 100_000, "1/1/2004 0:00", "1/1/2004 0:00"), "nodenumz", "below 100000"),
    (lanl_row(2, "\u0661\u0662", "1/1/2004 0:00", "1/1/2004 0:00"), "nodenumz", "whole number"),
    (lanl_row(2, 0, "1/1/2004 0:00", "1/1/2004 0:00").replace("2,", f"{10**25},", 1),
     "System", "below 100000"),
    ("2,cluster,4", "procstot", "3 fields"),
])
def test_lanl_malformed_record_names_file_line_field(tmp_path: Path, line: str, field: str,
                                                     message: str) -> None:
    good = lanl_row(2, 0, "1/1/2004 0:00", "1/1/2004 0:10", "10")
    path = write(tmp_path, "bad.csv", [LANL_HEADER, good, line])
    with pytest.raises(WorkloadError, match=message) as info:
        read_lanl_cfdr(path)
    err = info.value
    assert err.path == str(path) and err.line == 3 and err.field == field
    assert str(path) in str(err) and "line 3" in str(err)


def test_lanl_too_many_fields(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.csv", [LANL_HEADER, lanl_row(2, 0, "1/1/2004 0:00",
                                                             "1/1/2004 0:10") + ",extra"])
    with pytest.raises(WorkloadError, match="27 fields") as info:
        read_lanl_cfdr(path)
    assert info.value.line == 2


def test_lanl_empty_files(tmp_path: Path) -> None:
    with pytest.raises(WorkloadError, match="empty"):
        read_lanl_cfdr(write(tmp_path, "empty.csv", [""]))
    with pytest.raises(WorkloadError, match="no failure records") as info:
        read_lanl_cfdr(write(tmp_path, "header.csv", [LANL_HEADER]))
    assert info.value.line == 1
    with pytest.raises(WorkloadError, match="no System, Prob Started, nodenumz column"):
        read_lanl_cfdr(write(tmp_path, "other.csv", ["a,b,c", "1,2,3"]))
    with pytest.raises(WorkloadError, match="file not found"):
        read_lanl_cfdr(tmp_path / "nothing.csv")
    with pytest.raises(WorkloadError, match="corrupt or truncated"):
        (tmp_path / "cut.csv.gz").write_bytes(gzip.compress(b"x" * 1000)[:20])
        read_lanl_cfdr(tmp_path / "cut.csv.gz")


def test_lanl_unknown_system_lists_the_systems(lanl: Path) -> None:
    with pytest.raises(ConfigError, match="no system 7") as info:
        read_lanl_cfdr(lanl, system=7)
    assert "2 (4 nodes, 3 records), 3 (8 nodes, 1 records)" in str(info.value)
    assert info.value.key == "system"
    with pytest.raises(ConfigError, match="system"):
        read_lanl_cfdr(lanl, system="2")  # type: ignore[arg-type]


def test_lanl_window_errors(lanl: Path) -> None:
    with pytest.raises(ConfigError, match="keeps no failure of system 3") as info:
        read_lanl_cfdr(lanl, system=3, start="2005-01-01")
    assert info.value.key == "start"
    with pytest.raises(ConfigError, match="keeps no failure"):
        read_lanl_cfdr(lanl, system=2, start=100, end=200)
    with pytest.raises(ConfigError, match="must be after its start"):
        read_lanl_cfdr(lanl, system=2, start=200, end=100)
    with pytest.raises(ConfigError, match="cannot read 'soon'"):
        read_lanl_cfdr(lanl, start="soon")
    with pytest.raises(ConfigError, match="finite"):
        read_lanl_cfdr(lanl, end=float("inf"))
    with pytest.raises(ConfigError, match="without a timezone") as info:
        read_lanl_cfdr(lanl, end=dt.datetime(2004, 1, 1, tzinfo=dt.UTC))
    assert info.value.key == "end"


# -- FTA: hand-written files ----------------------------------------------------------------------

FTA_HEADER = ("# event_id component_id node_id platform_id node_name event_type "
              "event_start_time event_stop_time event_end_reason")


def fta_row(event: int, node: object, platform: int, name: str, etype: object, start: object,
            stop: object, component: int = 0) -> str:
    return "\t".join(f"{v:>6}" for v in (event, component, node, platform, name, etype, start,
                                         stop, "NULL"))


@pytest.fixture
def fta(tmp_path: Path) -> Path:
    folder = tmp_path / "fta"
    folder.mkdir()
    write(folder, "event_trace.tab.gz", [
        FTA_HEADER,
        fta_row(0, 10, 5, "G1/site1/c1/node1", 0, 1000, 1100),
        fta_row(1, 10, 5, "G1/site1/c1/node1", 1, 1100, 5000),
        fta_row(2, 10, 5, "G1/site1/c1/node1", 0, 5000, 5000),
        fta_row(3, 11, 5, "G1/site2/c1/node1", 0, 2000, 2600),
        fta_row(4, 12, 6, "other/node", 0, 3000, 3010, component=1),
        fta_row(5, 12, 6, "other/node", 1, 3010, 9000, component=1),
    ], gz=True)
    return folder


def test_fta_unavailability_intervals(fta: Path) -> None:
    tr = read_fta(fta)
    assert tr.time.tolist() == [0.0, 1000.0, 2000.0, 4000.0]
    assert tr.node.tolist() == [10, 11, 12, 10]
    assert tr.repair.tolist() == [100.0, 600.0, 10.0, 0.0]
    c = tr.counts
    assert c["records"] == 6 and c["available_events"] == 2 and c["failures"] == 4
    assert c["zero_repair"] == 1 and c["other_event_types"] == 0


def test_fta_filters(fta: Path) -> None:
    assert read_fta(fta, platform=6).node.tolist() == [12]
    assert read_fta(fta, platform=[5]).counts["other_platforms"] == 1
    assert read_fta(fta, nodes=[11, 12]).node.tolist() == [11, 12]
    site1 = read_fta(fta, nodes=["G1/site1/*"])
    assert site1.node.tolist() == [10, 10] and site1.time.tolist() == [0.0, 4000.0]
    assert site1.counts["other_nodes"] == 2
    assert read_fta(fta, component=1).node.tolist() == [12]


def test_fta_windows(fta: Path) -> None:
    tr = read_fta(fta, start=500, end=3000)
    assert tr.time.tolist() == [500.0, 1500.0] and tr.span == 2500.0
    assert tr.counts["before_window"] == 1 and tr.counts["after_window"] == 1
    utc = dt.datetime.fromtimestamp(2000, tz=dt.UTC)
    assert read_fta(fta, start=utc).time.tolist() == [0.0, 1000.0, 3000.0]
    assert read_fta(fta, start="1970-01-01 00:33:20").time.tolist() == [0.0, 1000.0, 3000.0]


def test_fta_folder_file_and_edited_copy(fta: Path, tmp_path: Path) -> None:
    assert fta_event_trace_path(fta) == fta / "event_trace.tab.gz"
    direct = read_fta(fta / "event_trace.tab.gz")
    # The ReliableCloudSim copy of lanl05: header without '#', doubled tabs, 8000 for NULL.
    edited = write(tmp_path, "edited.tab", [
        "event_id  component_id node_id  platform_id   node_name     event_type   "
        "event_start_time     event_stop_time  event_end_reason",
        "0\t0\t10\t5\tG1/site1/c1/node1\t0\t\t\t1000\t\t\t1100\t\t8000",
        "",
        "1\t0\t11\t5\tG1/site2/c1/node1\t0\t\t\t2000\t\t\t2600\t\t8000",
    ])
    tr = read_fta(edited)
    assert tr.time.tolist() == [0.0, 1000.0] and tr.counts["blank_lines"] == 1
    assert direct.time.tolist()[:2] == [0.0, 1000.0]


def test_fta_null_stop_is_open_until_the_end(tmp_path: Path) -> None:
    path = write(tmp_path, "e.tab", [
        FTA_HEADER,
        fta_row(0, 1, 5, "a", 0, 100, "NULL"),
        fta_row(1, 2, 5, "b", 1, 100, 900),
    ])
    tr = read_fta(path)
    assert tr.repair.tolist() == [800.0] and tr.counts["open_ended"] == 1


def test_fta_fast_and_line_by_line_readers_agree(fta: Path) -> None:
    text, where = readers._read_text(fta / "event_trace.tab.gz")
    header = readers._fta_header(text.splitlines()[0], where, 1)
    body = text.split("\n", 1)[1]
    fast = readers._fast_fta_columns(body, header, 1)
    slow = readers._slow_fta_columns(text, header, 1, where)
    assert fast is not None
    assert fast.values == slow.values and fast.lines == slow.lines
    assert fast.blank == slow.blank


@pytest.mark.parametrize(("line", "field", "message"), [
    (fta_row(9, "x", 5, "a", 0, 1, 2), "node_id", "whole number"),
    (fta_row(9, 1, 5, "a", "zero", 1, 2), "event_type", "whole number"),
    (fta_row(9, 1, 5, "a", 0, "soon", 2), "event_start_time", "Unix seconds"),
    (fta_row(9, 1, 5, "a", 0, "NULL", 2), "event_start_time", "Unix seconds"),
    (fta_row(9, 1, 5, "a", 0, 1, "nan"), "event_stop_time", "Unix seconds"),
    (fta_row(9, 1, 5, "a", 0, 5, 2), "event_stop_time", "before it starts"),
    ("9\t0\t1\t5\ta\t0\t1", "event_stop_time", "7 fields"),
])
def test_fta_malformed_record_names_file_line_field(tmp_path: Path, line: str, field: str,
                                                    message: str) -> None:
    path = write(tmp_path, "event_trace.tab", [
        FTA_HEADER, fta_row(0, 1, 5, "a", 0, 100, 200), fta_row(1, 1, 5, "a", 1, 200, 300), line,
    ])
    with pytest.raises(WorkloadError, match=message) as info:
        read_fta(path)
    err = info.value
    assert err.path == str(path) and err.line == 4 and err.field == field


def test_fta_empty_and_wrong_files(tmp_path: Path) -> None:
    with pytest.raises(WorkloadError, match="empty"):
        read_fta(write(tmp_path, "a.tab", ["", "  "]))
    with pytest.raises(WorkloadError, match="no events") as info:
        read_fta(write(tmp_path, "b.tab", ["", FTA_HEADER]))
    assert info.value.line == 2
    with pytest.raises(WorkloadError, match="event_type"):
        read_fta(write(tmp_path, "c.tab", ["# node_id platform_id", "1 2"]))
    folder = tmp_path / "nothing"
    folder.mkdir()
    (folder / "node.tab").write_text("x")
    with pytest.raises(WorkloadError, match="holds node.tab"):
        read_fta(folder)


def test_fta_selection_errors(fta: Path) -> None:
    with pytest.raises(ConfigError, match=r"platforms are 5 \(2 nodes, 3 failures\), "
                                          r"6 \(1 nodes, 1 failures\)"):
        read_fta(fta, platform=7)
    with pytest.raises(ConfigError, match="chosen nodes"):
        read_fta(fta, nodes=["G9/*"])
    with pytest.raises(ConfigError, match="component"):
        read_fta(fta, component=4)
    with pytest.raises(ConfigError, match="keeps no failure"):
        read_fta(fta, start=10_000)
    with pytest.raises(ConfigError, match="types are"):
        read_fta(fta, event_types=[3])
    with pytest.raises(ConfigError, match="nodes"):
        read_fta(fta, nodes=[1.5])  # type: ignore[list-item]


# -- the real files ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def lanl_all():
    return read_lanl_cfdr(real(LANL_CSV))


def test_real_lanl_whole_file(lanl_all) -> None:
    # zcat | awk: 23,739 records, 122 with Prob Fixed == Prob Started, 126 of system 17 without
    # node numbers, 3,577 distinct (system, nodenumz) pairs.
    c = lanl_all.counts
    assert len(lanl_all) == c["records"] == 23_739
    assert c["zero_repair"] == 122 and c["missing_node"] == 126
    assert len(lanl_all.nodes) == 3_577
    # With daylight saving taken into account every repair agrees with the Down Time column.
    assert c["down_time_mismatch"] == 0


def test_real_lanl_systems() -> None:
    systems = lanl_systems(real(LANL_CSV))
    assert sorted(systems) == list(range(2, 25))
    assert systems[2] == (49, 7104) and systems[18] == (1024, 3997)
    assert systems[20] == (512, 2478) and systems[17] == (None, 126)
    assert sum(n for _, n in systems.values()) == 23_739


def test_real_lanl_system_20() -> None:
    tr = read_lanl_cfdr(real(LANL_CSV), system=20)
    assert len(tr) == 2478 and len(tr.nodes) == 400
    # Down Time column sum for system 20 is 520,493 minutes; two records are a minute longer
    # from their times (the column drops seconds).
    assert tr.repair.sum() / 60 == pytest.approx(520_493, abs=2)
    year = read_lanl_cfdr(LANL_CSV, system=20, start="2004-01-01", end="2005-01-01")
    assert len(year) == 440 and year.span == 366 * 86400
    january = read_lanl_cfdr(LANL_CSV, system=20, start=dt.date(2004, 1, 1),
                             end=dt.date(2004, 2, 1))
    assert len(january) == 32


def test_real_lanl_unknown_system() -> None:
    with pytest.raises(ConfigError, match=r"20 \(512 nodes, 2478 records\)"):
        read_lanl_cfdr(real(LANL_CSV), system=1)


def test_real_lanl_without_dst() -> None:
    tr = read_lanl_cfdr(real(LANL_CSV), dst=False)
    assert tr.counts["down_time_mismatch"] == 24  # the records spanning a clock change


def test_real_fta_lanl05_both_copies() -> None:
    folder = real(FAILURES / "fta_lanl05")
    edited = read_fta(folder)
    original = read_fta(folder / "event_trace1.tab.gz")
    # awk: 23,451 rows of event_type 0 on 3,577 node ids, 122 of them zero-length.
    for tr in (edited, original):
        assert len(tr) == 23_451 and len(tr.nodes) == 3_577 and tr.counts["zero_repair"] == 122
        assert tr.counts["available_events"] == 19_874
    assert np.array_equal(edited.time, original.time)
    assert np.array_equal(edited.node, original.node)
    assert np.array_equal(edited.repair, original.repair)
    system19 = read_fta(folder, nodes=["19.*"])
    assert len(system19) == 3271 and len(system19.nodes) == 928


@pytest.fixture(scope="module")
def g5k():
    return read_fta(real(FAILURES / "fta_g5k06"))


def test_real_fta_g5k06(g5k) -> None:
    # awk: 294,145 unavailability and 294,318 availability rows on 1,288 nodes, 18 zero-length;
    # each node's intervals alternate and never overlap.
    c = g5k.counts
    assert len(g5k) == 294_145 and c["available_events"] == 294_318
    assert len(g5k.nodes) == 1288 and c["zero_repair"] == 18
    assert c["overlapping"] == 0 and c["duplicates"] == 0
    # The first unavailability starts at the trace start, 1115811139 (2005-05-11 UTC); awk
    # counts 15,673 starting in January 2006 (UTC).
    assert g5k.time[0] == 0 and g5k.span == g5k.time[-1]
    first = 1115811139
    january = g5k.window(1136073600 - first, 1138752000 - first)
    assert len(january) == 15_673


def test_fta_header_of_another_format_is_shown_cut(tmp_path: Path) -> None:
    """A file of another format (an .avt trace: a node's name and hundreds of times on its
    first line) is refused showing the first fields of that line, not all of it."""
    first = " ".join(["x" * 60, *map(str, range(1000, 1900))])
    with pytest.raises(WorkloadError) as info:
        read_fta(write(tmp_path, "web.avt", [first, "b 0"]))
    text = str(info.value)
    assert len(text) < 400, text
    assert ("(found " + "x" * 37 + "..., 1000, 1001, 1002, 1003, 1004, 1005, 1006, ... (901 "
            "fields)); is this an FTA event_trace file?") in text
