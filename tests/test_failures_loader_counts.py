"""What the failure and availability readers read, skipped and changed, in summary.json.

`options.failures.loader` (a LANL or FTA log, given to the failures component or to the
availability component) and `options.availability.trace_loader` (an `.avt` or FTA
availability trace, with what the replay onto the machines dropped or changed) hold one
count per rule, as `workload.loader` does for a workload; the `failures loader:` and
`availability trace loader:` lines of `ckptsim run` are their console counterparts.  What the
failure transforms counted (trace nodes mapped, failures rescaled, merged or dropped) is
`options.failures.transform_counts`, one entry per transform, and the `failures
transforms:` line.  Small
hand-written files hit every rule at least once, each count worked out by hand; a real LANL
log and a real `.avt` trace (skipped without ../shared/data) are checked against counts made
here independently of the readers.
"""

from __future__ import annotations

import csv
import datetime as dt
import gzip
import io
import json
from pathlib import Path

import pytest
from helpers import FAILURES, LANL_CSV, LANL_HEADER, jobs, lanl_row, real

from ckptsim.cli import main
from ckptsim.failures import read_fta, read_lanl_cfdr
from ckptsim.runner import simulate

FTA_HEADER = ("# event_id component_id node_id platform_id node_name event_type "
              "event_start_time event_stop_time event_end_reason")


def fta_row(event: int, node: int, platform: int, etype: int, start: object, stop: object,
            component: int = 0) -> str:
    return "\t".join(str(v) for v in (event, component, node, platform, f"n{node}", etype,
                                      start, stop, "NULL"))


def run_cli(args: list[str], out: Path, capsys: pytest.CaptureFixture[str]
            ) -> tuple[dict, str]:
    assert main(["run", *args, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    return json.loads((out / "summary.json").read_text()), printed


def workload():
    return jobs([(0.0, 500.0, 1, 600.0), (100.0, 300.0, 2, 400.0), (20000.0, 50.0, 1, 60.0)],
                machine=5)


# -- LANL ----------------------------------------------------------------------------------------
@pytest.fixture
def lanl(tmp_path: Path) -> Path:
    rows = [
        LANL_HEADER,
        "",                                                                   # blank_lines
        lanl_row(3, 5, "1/10/2004 10:00", "1/10/2004 10:10", "10"),           # other_systems
        lanl_row(2, 0, "1/5/2004 10:00", "1/5/2004 11:00", "60"),             # before_window
        lanl_row(2, 0, "1/10/2004 10:00", "1/10/2004 11:30", "90"),           # kept
        lanl_row(2, 0, "1/10/2004 10:00", "1/10/2004 11:30", "90"),           # duplicate
        lanl_row(2, "", "1/11/2004 0:00", "1/11/2004 0:10", "10"),            # missing_node
        lanl_row(2, 1, "1/12/2004 10:00", "", "30"),                          # from Down Time
        lanl_row(2, 1, "1/13/2004 10:00", "", ""),                            # no_repair_time
        lanl_row(2, 2, "1/14/2004 10:00", "1/14/2004 10:00", "0"),            # zero_repair
        lanl_row(2, 3, "1/15/2004 10:00", "1/15/2004 12:00", "60"),           # mismatch
        lanl_row(2, 3, "2/20/2004 10:00", "2/20/2004 11:00", "60"),           # after_window
    ]
    path = tmp_path / "lanl.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


#: By hand: 10 records (the blank line is none); 1 of system 3, 1 before 10 January, 1 after
#: 1 February, 7 kept: 1 without a node (node 0), 1 repaired after its Down Time, 1 without
#: any repair time (transient), which with the one fixed when it started makes 2 of repair 0;
#: the repeated record is a duplicate and starts while its node is down (overlapping); one
#: record's Down Time (60 min) disagrees with its times (2 h).
LANL_COUNTS = {"records": 10, "blank_lines": 1, "other_systems": 1, "before_window": 1,
               "after_window": 1, "failures": 7, "missing_node": 1,
               "repair_from_down_time": 1, "no_repair_time": 1, "zero_repair": 2,
               "duplicates": 1, "overlapping": 1, "down_time_mismatch": 1}


def test_lanl_counts_by_hand_reach_summary_and_console(lanl: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]):
    tr = read_lanl_cfdr(lanl, system=2, start="2004-01-10", end="2004-02-01")
    assert tr.loader == LANL_COUNTS
    assert len(tr) == 7
    spec = f"lanl:path={lanl},system=2,start=2004-01-10,end=2004-02-01,count=3"
    doc, printed = run_cli(["--workload", "lublin:n=40,seed=1", "--failures", spec],
                           tmp_path / "out", capsys)
    section = doc["options"]["failures"]
    # The rescaling to 3 failures leaves the reader's counts as they were.
    assert section["loader"] == dict(sorted(LANL_COUNTS.items()))
    assert section["failures"] == 3
    assert list(doc["options"]["failures"]) == ["count", "failures", "loader", "source",
                                                "spec", "transform_counts", "transforms"]
    assert ("failures loader: 10 records read; after_window=1, before_window=1, "
            "blank_lines=1, missing_node=1, no_repair_time=1, other_systems=1, "
            "repair_from_down_time=1; 7 failures kept") in printed.splitlines()


def test_failures_given_to_the_availability_component_count_the_same(lanl: Path):
    spec = f"lanl:path={lanl},system=2,start=2004-01-10,end=2004-02-01"
    via_failures = simulate(workload(), "easy", failures=spec)
    via_availability = simulate(workload(), "easy",
                                components={"availability": {"failures": spec}})
    for result in (via_failures, via_availability):
        loader = result.summary_document()["options"]["failures"]["loader"]
        assert loader == dict(sorted(LANL_COUNTS.items()))


def test_synthetic_failures_and_given_lists_have_no_loader():
    result = simulate(workload(), "easy", failures="synthetic:mtbf=100000")
    assert "loader" not in result.summary_document()["options"]["failures"]


# -- FTA -----------------------------------------------------------------------------------------
@pytest.fixture
def fta(tmp_path: Path) -> Path:
    rows = [
        "",                                   # blank_lines (before the header)
        FTA_HEADER,
        "# a comment",                        # comment_lines
        "",                                   # blank_lines
        fta_row(0, 10, 5, 1, 0, 400),         # available_events
        fta_row(1, 10, 5, 2, 50, 60),         # other_event_types
        fta_row(2, 10, 6, 0, 700, 800),       # other_platforms
        fta_row(3, 12, 5, 0, 500, 600),       # the first failure; before_window (start=400)
        fta_row(4, 10, 5, 0, 1000, 1100),     # kept
        fta_row(5, 10, 5, 0, 1000, 1100),     # duplicate, overlapping
        fta_row(6, 11, 5, 0, 2000, "NULL"),   # open_ended: until 9500
        fta_row(7, 12, 5, 0, 3000, 3000),     # zero_repair
        fta_row(8, 13, 5, 0, 9000, 9500),     # after_window (end=8000: 8500)
    ]
    path = tmp_path / "event_trace.tab"
    path.write_text("\n".join(rows) + "\n")
    return path


#: By hand: 9 records; 1 available, 1 of type 2, 1 of platform 6, 1 before the window
#: [500 + 400, 500 + 8000), 1 after it, 4 kept (1 repeated: a duplicate and overlapping; 1 of
#: repair 0; 1 without a stop time); 2 blank lines, 1 comment line.
FTA_COUNTS = {"records": 9, "blank_lines": 2, "comment_lines": 1, "available_events": 1,
              "other_event_types": 1, "other_platforms": 1, "other_components": 0,
              "other_nodes": 0, "before_window": 1, "after_window": 1, "failures": 4,
              "open_ended": 1, "zero_repair": 1, "duplicates": 1, "overlapping": 1}


def test_fta_counts_by_hand_reach_summary_and_console(fta: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]):
    tr = read_fta(fta, platform=5, start=400, end=8000)
    assert tr.loader == FTA_COUNTS
    assert tr.repair.tolist() == [100.0, 100.0, 7500.0, 0.0]
    # The node and component filters, which a source string does not offer.
    assert read_fta(fta, nodes=[10]).loader["other_nodes"] == 4
    two = fta.with_name("two.tab")
    two.write_text("\n".join([FTA_HEADER, fta_row(0, 1, 5, 0, 0, 10),
                               fta_row(1, 2, 5, 0, 5, 10, component=1)]) + "\n")
    assert read_fta(two, component=0).loader["other_components"] == 1
    spec = f"fta:path={fta},platform=5,start=400,end=8000"
    doc, printed = run_cli(["--workload", "lublin:n=40,seed=1", "--failures", spec],
                           tmp_path / "out", capsys)
    assert doc["options"]["failures"]["loader"] == dict(sorted(FTA_COUNTS.items()))
    assert ("failures loader: 9 records read; after_window=1, available_events=1, "
            "before_window=1, blank_lines=2, comment_lines=1, open_ended=1, "
            "other_event_types=1, other_platforms=1; 4 failures kept") in printed.splitlines()


# -- availability traces -------------------------------------------------------------------------
def trace_loader(spec: str, machines: int) -> dict[str, int]:
    w = jobs([(0.0, 50.0, 1, 60.0), (10.0, 30.0, 1, 40.0)], machine=machines)
    result = simulate(w, "easy", components={"availability": {"trace": spec}})
    return result.summary_document()["options"]["availability"]["trace_loader"]


def test_avt_counts_by_hand(tmp_path: Path):
    path = tmp_path / "t.avt"
    path.write_text("# a comment\n\na 2 0 10 10 50\nb 0\nc 1 20 100\nd 2 5 30 60 90\n")
    # By hand: 4 node lines, 5 sessions, b without one; the trace runs over [0, 100).  Gaps:
    # a (0,0) (10,10) (50,100), b (0,100), c (0,20) (100,100), d (0,5) (30,60) (90,100): 6
    # intervals, 3 gaps of no length.  On 3 machines (map=first) under empty=skip machine 1
    # replays d instead of b (b is not replayed, nor its interval); start=40 drops c's (0,20)
    # and d's (0,5), cuts d's (30,60) at 40, keeps a's (50,100) and d's (90,100).
    got = trace_loader(f"avt:path={path},map=first,empty=skip,start=40", 3)
    assert got == {"records": 4, "blank_lines": 1, "comment_lines": 1, "sessions": 5,
                   "nodes_without_session": 1, "intervals": 6, "zero_length_gaps": 3,
                   "nodes_not_replayed": 1, "intervals_not_replayed": 1,
                   "machines_reusing_nodes": 0, "unmeasured_replaced": 1, "before_start": 2,
                   "cut_at_start": 1, "zero_length": 0, "replayed_intervals": 3,
                   "overlapping_replayed": 0}
    assert list(got) == sorted(got)


def test_fta_availability_counts_by_hand(fta: Path, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]):
    # Platform 5's unavailability (no window): nodes 10, 11, 12, 13, times from 500.  On 5
    # machines, machine 4 replays node 10 again: its two repeated intervals overlap on
    # machines 0 and 4; node 12's interval of no length is dropped.
    got = trace_loader(f"fta:path={fta},platform=5", 5)
    reader = {**FTA_COUNTS, "before_window": 0, "after_window": 0, "failures": 6}
    replay = {"nodes_not_replayed": 0, "intervals_not_replayed": 0, "machines_reusing_nodes": 1,
              "unmeasured_replaced": 0, "before_start": 0, "cut_at_start": 0, "zero_length": 1,
              "replayed_intervals": 7, "overlapping_replayed": 2}
    assert got == dict(sorted({**reader, **replay}.items()))
    spec = f"availability:trace=fta:path={fta},platform=5"
    _, printed = run_cli(["--workload", "lublin:n=20,seed=1", "--machine-size", "5",
                          "--component", spec], tmp_path / "out", capsys)
    assert ("availability trace loader: 9 records read; available_events=1, blank_lines=2, "
            "comment_lines=1, machines_reusing_nodes=1, open_ended=1, other_event_types=1, "
            "other_platforms=1, overlapping_replayed=2, zero_length=1; 7 intervals replayed"
            ) in printed.splitlines()


def test_runs_without_a_trace_keep_their_options():
    w = jobs([(0.0, 50.0, 1, 60.0)], machine=2)
    result = simulate(w, "easy", components={"availability": {"maintenance": "10-20"}})
    assert "trace_loader" not in result.summary_document()["options"]["availability"]


# -- real files ----------------------------------------------------------------------------------
def overlapping(failures: list[tuple[int, dt.datetime, dt.datetime]]) -> int:
    """Failures starting while their node is down from an earlier one, counted one by one."""
    count, down_until = 0, {}
    for node, began, fixed in sorted(failures):
        if node in down_until and began < down_until[node]:
            count += 1
        down_until[node] = max(down_until.get(node, fixed), fixed)
    return count


def test_lanl_log_counts_match_an_independent_count(tmp_path: Path):
    """System 20 in 2002-2004, counted here from the CSV with the csv module and naive dates."""
    path = real(LANL_CSV)
    rows = list(csv.DictReader(io.StringIO(gzip.decompress(path.read_bytes()).decode())))

    def when(text: str) -> dt.datetime:
        return dt.datetime.strptime(text.strip(), "%m/%d/%Y %H:%M")

    start, end = dt.datetime(2002, 1, 1), dt.datetime(2005, 1, 1)
    mine = [r for r in rows if r["System"].strip() == "20"]
    kept = [r for r in mine if start <= when(r["Prob Started"]) < end]
    keys = [(r["nodenumz"], r["Prob Started"], r["Prob Fixed"]) for r in kept]
    expected = {
        "records": len(rows), "blank_lines": 0, "other_systems": len(rows) - len(mine),
        "before_window": sum(when(r["Prob Started"]) < start for r in mine),
        "after_window": sum(when(r["Prob Started"]) >= end for r in mine),
        "failures": len(kept),
        "missing_node": sum(not r["nodenumz"].strip() for r in kept),
        "repair_from_down_time": sum(not r["Prob Fixed"].strip() for r in kept),
        "no_repair_time": sum(not (r["Prob Fixed"].strip() or r["Down Time"].strip())
                              for r in kept),
        "zero_repair": sum(r["Prob Fixed"] == r["Prob Started"] for r in kept),
        "duplicates": len(keys) - len(set(keys)),
        "overlapping": overlapping([(int(r["nodenumz"]), when(r["Prob Started"]),
                                     when(r["Prob Fixed"])) for r in kept]),
    }
    got = read_lanl_cfdr(path, system=20, start="2002-01-01", end="2005-01-01").loader
    assert {k: got[k] for k in expected} == expected
    assert (got["records"], got["other_systems"], got["failures"]) == (23739, 21261, 2239)
    assert (got["before_window"], got["after_window"], got["duplicates"],
            got["overlapping"]) == (49, 190, 2, 13)
    spec = f"lanl:path={path},system=20,start=2002-01-01,end=2005-01-01"
    result = simulate(workload(), "easy", failures=spec)
    assert result.summary_document()["options"]["failures"]["loader"] == dict(
        sorted(got.items()))


def test_avt_trace_counts_match_an_independent_count():
    path = real(FAILURES / "availability_godfrey" / "web_sites.avt.gz")
    lines = gzip.decompress(path.read_bytes()).decode().splitlines()
    nodes = [ln.split() for ln in lines if ln.strip() and not ln.startswith("#")]
    sessions = [[float(x) for x in parts[2:]] for parts in nodes]
    origin = min(s[0] for s in sessions if s)
    last = max(s[-1] for s in sessions if s)
    gaps = 0
    for s in sessions:
        edges = [origin, *s, last]
        gaps += sum(b > a for a, b in zip(edges[::2], edges[1::2], strict=True))
    got = trace_loader(f"avt:path={path}", 128)
    n_sessions = sum(len(s) // 2 for s in sessions)
    assert (got["records"], got["sessions"], got["intervals"]) == (len(nodes), n_sessions, gaps)
    assert got["zero_length_gaps"] == len(nodes) + n_sessions - gaps
    assert got["nodes_without_session"] == sum(not s for s in sessions) == 2
    assert got["blank_lines"] + got["comment_lines"] == len(lines) - len(nodes)
    assert got["nodes_not_replayed"] == len(nodes) - 128


def test_owner_session_csv_counts_by_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = tmp_path / "s.csv"
    # By hand: 3 sessions read (a comment line and a blank one skipped), one of them of no
    # length (it takes the machine for no time: dropped), 2 kept.
    path.write_text("# sessions\nmachine,login,logout\n\n0,100,200\nmachine:1,150,150\n"
                    "1,300,400\n")
    w = jobs([(0.0, 50.0, 1, 60.0), (10.0, 30.0, 1, 40.0)], machine=2)
    result = simulate(w, "easy", components={"availability": {"owners": str(path)}})
    expected = {"blank_lines": 1, "comment_lines": 1, "records": 3, "sessions": 2,
                "zero_length": 1}
    assert result.summary_document()["options"]["availability"]["owners_loader"] == expected
    _, printed = run_cli(["--workload", "lublin:n=20,seed=1", "--machine-size", "2",
                          "--component", f"availability:owners={path}"], tmp_path / "out",
                         capsys)
    assert ("availability owners loader: 3 records read; blank_lines=1, comment_lines=1, "
            "zero_length=1; 2 sessions kept") in printed.splitlines()
    model = simulate(w, "easy", components={"availability": {"owners": "model", "days": 2}})
    assert "owners_loader" not in model.summary_document()["options"]["availability"]


def test_the_transforms_counts_by_hand_reach_summary_and_console(lanl: Path, tmp_path: Path,
                                                                 capsys):
    # The 7 failures kept (LANL_COUNTS) are on trace nodes 0, 1, 2 and 3 (the one without a
    # node on 0).  Rescaled to 10: the 7 once, then 3 of a second copy (2 copies); mapped
    # modulo onto the 128 nodes of the workload: 4 trace nodes on 4 simulated nodes; made
    # transient and moved to the first submission, which count nothing.
    spec = (f"lanl:path={lanl},system=2,start=2004-01-10,end=2004-02-01,count=10,"
            "transient=true")
    doc, printed = run_cli(["--workload", "lublin:n=40,seed=1", "--failures", spec],
                           tmp_path / "out", capsys)
    section = doc["options"]["failures"]
    assert [t.partition("(")[0] for t in section["transforms"]] == [
        "rescale_count", "map_nodes", "transient", "shifted"]
    assert section["transform_counts"] == [
        {"transform": "rescale_count", "failures": 10, "rescale_copies": 2,
         "rescale_source_failures": 7},
        {"transform": "map_nodes", "simulated_nodes_hit": 4, "trace_nodes": 4},
        {"transform": "transient"}, {"transform": "shifted"}]
    assert section["loader"]["failures"] == 7  # the reader's, as the transforms left it
    lines = printed.splitlines()
    at = lines.index("failures transforms: rescale_count: failures=10, rescale_copies=2, "
                     "rescale_source_failures=7; map_nodes: simulated_nodes_hit=4, "
                     "trace_nodes=4")
    assert lines[at - 1].startswith("failures loader: 10 records read;")


def test_each_transform_keeps_its_own_counts():
    from ckptsim.failures import FailureTrace
    from ckptsim.failures.transforms import map_nodes, merge_overlaps

    # Six trace nodes (ids 7..12) onto 4 simulated nodes; node 7 fails twice while down.
    tr = FailureTrace(time=[0, 10, 20, 30, 40, 50, 60], node=[7, 7, 8, 9, 10, 11, 12],
                      repair=[100, 5, 1, 1, 1, 1, 1], span=100)
    out = merge_overlaps(map_nodes(tr, 4)).window(15, 55)
    assert out.notes == ("map_nodes(modulo, n_nodes=4)", "merge_overlaps", "window(15, 55)")
    # Trace nodes 7..12 are 0..5, modulo 4: simulated 0, 1, 2, 3, 0, 1.  Simulated node 0 is
    # down from 0 to 100: node 7's failure at 10 and node 11's at 50 are merged into it,
    # leaving 0, 20, 30, 40 and 60; the window [15, 55) keeps 20, 30 and 40 (2 dropped).
    assert out.steps == ({"trace_nodes": 6, "simulated_nodes_hit": 4},
                         {"merged_failures": 2, "failures": 5}, {"window_dropped": 2})
    assert out.time.tolist() == [5.0, 15.0, 25.0]
    # The trace's counts hold the last word of each (the window's are only its own).
    assert out.counts == {"trace_nodes": 6, "simulated_nodes_hit": 4, "merged_failures": 2,
                          "failures": 5}
    from ckptsim.components.failures import failure_options

    assert failure_options(out)["transform_counts"] == [
        {"transform": "map_nodes", "simulated_nodes_hit": 4, "trace_nodes": 6},
        {"transform": "merge_overlaps", "failures": 5, "merged_failures": 2},
        {"transform": "window", "window_dropped": 2}]


# -- the source string's options -----------------------------------------------------------
def _written_out(spec: dict) -> str:
    """The source string with every recorded option written out (None: left out)."""
    return spec["kind"] + ":" + ",".join(f"{k}={v}" for k, v in spec["options"].items()
                                         if v is not None)


@pytest.mark.parametrize("given", ["synthetic:mtbf=20000,repair_mean=300",
                                   "LANL,system=2,start=2004-01-10,count=3"])
def test_the_source_options_are_recorded_with_what_left_out_ones_mean(given, lanl: Path):
    """`options.failures.spec` holds every option of the source's kind, a left-out one
    recorded as what it means; the string with all of them written out gives the same run
    (so the recorded defaults are the ones the run used)."""
    from ckptsim.failures.source import _KEYS

    source = given.replace("LANL", f"lanl:path={lanl}")
    first = simulate(workload(), "easy", failures=source, seed=5)
    spec = first.options["failures"]["spec"]
    assert first.options["failures"]["failures"] > 0
    kind = source.partition(":")[0]
    assert spec["kind"] == kind and sorted(spec["options"]) == sorted(_KEYS[kind])
    assert spec["options"]["seed"] == "5"  # the run's, as none was given
    if kind == "synthetic":
        assert spec["options"]["repair_mean"] == "300" and spec["options"]["shape"] == "0.7"
    else:
        assert spec["options"]["span"] == "submit" and spec["options"]["end"] is None
    again = simulate(workload(), "easy", failures=_written_out(spec), seed=6)
    assert again.to_pandas().equals(first.to_pandas()) and again.summary == first.summary
    for key in ("spec", "source", "transforms", "transform_counts", "failures"):
        assert again.options["failures"][key] == first.options["failures"][key], key
