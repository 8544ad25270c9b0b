"""Failure and availability inputs against their formats and the seeds, one record at a time.

Each case is small enough to work out by hand, the computation in the comment above it: which
node a record strikes, when (seconds from the run's start), for how long, whether it is dropped
and whether the drop is reported.  The real files in ../shared/data/failures are read where a
case picks records out of them (skipped when the folder is absent)."""

from __future__ import annotations

import datetime as dt
import json
import math
from pathlib import Path

import pytest
from helpers import FAILURES, LANL_CSV, LANL_HEADER, Spy, inject_failures, jobs, lanl_row, real

from ckptsim.cli import main
from ckptsim.components import build_components
from ckptsim.engine.simulator import Simulator
from ckptsim.failures import read_fta, read_lanl_cfdr, synthetic_failures
from ckptsim.failures.synthetic import weibull_scale
from ckptsim.platform.avt import map_onto, read_avt, read_fta_availability
from ckptsim.policies.base import scheduler_factory


def fcfs(rows, machine: int, components: dict | None = None,
         failures: tuple | None = None) -> tuple[Simulator, Spy]:
    spy = Spy()
    sim = Simulator(jobs(rows, machine), scheduler_factory("fcfs", {}),
                    components=[*build_components(components or {}), spy], check=True)
    if failures:
        inject_failures(sim, *failures)
    sim.run()
    return sim, spy


# --- Young's M counts the failures of the submit span -------------------------------------------
def test_young_m_counts_only_the_failures_of_the_submit_span():
    # One machine; jobs submitted at 0 (100 s) and 1000 (20000 s): a submit span of 1000 s.
    # Failures at 500 (in the span) and 50000 (a log keeping its own times runs on after the
    # last submission; the run is over by then and it never happens).  M = span x nodes /
    # (failures in the span x size) = 1000 x 1 / (1 x 1) = 1000 s; young:cost=50 gives
    # tau = sqrt(2 x 50 x 1000) = 316.23 s: job 2 starts at 1000, checkpoints at 1316.23 and
    # 1316.23 + 50 + 316.23.  (Counting the failure at 50000 too would halve M: tau = 223.6.)
    tau = math.sqrt(2 * 50 * 1000)
    sim, spy = fcfs([(0.0, 100.0, 1, 100.0), (1000.0, 20000.0, 1, 20000.0)], 1,
                    {"checkpoint": {"policy": "young:cost=50"}}, ([500.0, 50000.0], [0, 0]))
    assert spy.begins[:2] == pytest.approx([1000 + tau, 1000 + 2 * tau + 50])
    # The failure at 500 strikes the idle machine; the one at 50000 is withdrawn at the end.
    assert sim.component("failures").counters()["failures"] == 1  # type: ignore[union-attr]


# --- LANL: records that span a clock change ------------------------------------------------------
# Four records of the shared file, as they are there (file lines 954, 1198, 4627 and 20567).
# US Mountain time; 2004's daylight saving runs from Sunday 4 April 02:00 to Sunday 31 October
# 02:00 (first Sunday of April, last of October), the hour 01:00-01:59 on 31 October repeats.
CLOCK_CHANGES = [
    # 0:16 MDT = 23:16 MST the day before; 2:35 MST: 3 h 19 min = 199 min (Down Time 199).
    (2, 3, "10/31/2004 0:16", "10/31/2004 2:35", "199", 199),
    # 0:52 MDT to 2:18 MST: 86 + 60 = 146 min (Down Time 146).
    (2, 4, "10/31/2004 0:52", "10/31/2004 2:18", "146", 146),
    # 1:29 MST to 3:01 MDT = 2:01 MST: 32 min, not the 92 of the wall clock (Down Time 32).
    (2, 23, "4/4/2004 1:29", "4/4/2004 3:01", "32", 32),
    # 23:35 MDT to 1:02 in the repeated hour, read as MST: 87 + 60 = 147 min (Down Time 147).
    (20, 27, "10/30/2004 23:35", "10/31/2004 1:02", "147", 147),
]


def test_lanl_records_across_a_clock_change_read_their_down_time(tmp_path):
    path = tmp_path / "dst.csv"
    path.write_text("\n".join([LANL_HEADER, *(lanl_row(s, n, a, b, d)
                                              for s, n, a, b, d, _ in CLOCK_CHANGES)]) + "\n")
    trace = read_lanl_cfdr(path, system=None)
    by_node = dict(zip(trace.node.tolist(), trace.repair.tolist(), strict=True))
    assert by_node == {s * 100_000 + n: m * 60.0 for s, n, _, _, _, m in CLOCK_CHANGES}
    assert trace.counts["down_time_mismatch"] == 0
    # Wall-clock differences (dst=False): 139, 86, 92 and 87 min, each an hour off its Down Time.
    wall = read_lanl_cfdr(path, system=None, dst=False)
    assert sorted(wall.repair / 60) == [86, 87, 92, 139]
    assert wall.counts["down_time_mismatch"] == 4


def test_real_lanl_records_across_a_clock_change():
    # The same four records read from the shared file, every system, from 4/4/2004 1:29 (MST):
    # 2.23 at 0; 2.3 at 10/31 0:16 MDT = 10/30 23:16 MST, 209 days and 21 h 47 min later:
    # 18,057,600 + 78,420 = 18,136,020 s; 2.4 36 min after it, 18,138,180; 20.27 at 10/30
    # 23:35 MDT = 22:35 MST, 209 days and 21 h 6 min: 18,133,560.  Repairs: the Down Times.
    trace = read_lanl_cfdr(real(LANL_CSV), start="4/4/2004 1:29", end="11/1/2004 0:00")
    at = {200_023: 0.0, 200_003: 18_136_020.0, 200_004: 18_138_180.0, 2_000_027: 18_133_560.0}
    for system, node, _, _, _, minutes in CLOCK_CHANGES:
        hit = (trace.node == system * 100_000 + node) & (trace.time == at[system * 100_000 + node])
        assert trace.repair[hit].tolist() == [minutes * 60.0]


# --- LANL: system 17's empty node fields, a zero-length record, the window's edges --------------
def test_lanl_missing_node_zero_length_and_window_edges(tmp_path):
    path = tmp_path / "odd.csv"
    path.write_text("\n".join([
        LANL_HEADER,
        # System 17 as in the file (its first record): no node field at all.
        "17,,,,,,,,,,,,,,,,1/8/1997 8:40,1/8/1997 8:50,10,,Other,,,,,No",
        # Still down at the window's start (1/9 00:00): starts before it, so it is left out.
        lanl_row(17, 3, "1/8/1997 23:00", "1/9/1997 2:00", "180"),
        # Prob Fixed == Prob Started: a transient failure (repair 0).
        lanl_row(17, 2, "1/9/1997 6:00", "1/9/1997 6:00", "0"),
        # At the window's end (1/10 00:00): the window is [start, end), so it is left out too.
        lanl_row(17, 1, "1/10/1997 0:00", "1/10/1997 0:30", "30"),
    ]) + "\n")
    whole = read_lanl_cfdr(path, system=17)
    # The node-less record is node 0 at time 0 (the first failure), repair 10 min.
    assert (whole.node[0], whole.time[0], whole.repair[0]) == (0, 0.0, 600.0)
    assert whole.counts["missing_node"] == 1 and whole.counts["zero_repair"] == 1
    day = read_lanl_cfdr(path, system=17, start="1997-01-09", end="1997-01-10")
    # Only the 06:00 record: 6 h after the window's start, transient; the two dropped records
    # are reported in before_window and after_window; the span is the window's day.
    assert (day.time.tolist(), day.node.tolist(), day.repair.tolist()) == ([21600.0], [2], [0.0])
    assert (day.counts["before_window"], day.counts["after_window"], day.span) == (2, 1, 86400.0)


# --- a LANL log in a run: nodes, times, repairs, what is dropped --------------------------------
TINY_SWF = """; MaxProcs: 4
1 0 -1 1000 2 -1 -1 2 1000 -1 1 1 1 1 1 1 -1 -1
2 100 -1 500 2 -1 -1 2 500 -1 1 1 1 1 1 1 -1 -1
3 3600 -1 100 1 -1 -1 1 100 -1 1 1 1 1 1 1 -1 -1
"""


def run_out(tmp_path: Path, swf: str, *args: str) -> tuple[Path, dict]:
    (tmp_path / "w.swf").write_text(swf)
    out = tmp_path / "out"
    assert main(["run", "--workload", str(tmp_path / "w.swf"), "--scheduler", "fcfs",
                 "--out", str(out), *args]) == 0
    return out, json.loads((out / "summary.json").read_text())


def test_a_lanl_log_in_a_run(tmp_path):
    # Four machines, jobs (submit, run, size): (0, 1000, 2), (100, 500, 2), (3600, 100, 1).
    # The log keeps its own times, from its first failure, moved to the first submission (0).
    # Its nodes 0, 1, 3, 5 are numbered densely 0..3 and mapped modulo 4: 3 -> 2, 5 -> 3.
    (tmp_path / "log.csv").write_text("\n".join([
        LANL_HEADER,
        lanl_row(20, 0, "1/1/2004 0:00", "1/1/2004 0:05", "5"),    # 0: node 0 down to 300
        lanl_row(20, 3, "1/1/2004 0:10", "1/1/2004 0:10", "0"),    # 600: node 2, transient
        lanl_row(20, 0, "1/1/2004 0:02", "1/1/2004 0:20", "18"),   # 120: node 0 down to 1200
        lanl_row(20, 5, "1/1/2004 0:30", "1/1/2004 1:00", "30"),   # 1800: node 3 to 3600
        lanl_row(20, 1, "1/1/2004 3:00", "1/1/2004 3:30", "30"),   # 10800: after the run
    ]) + "\n")
    out, summary = run_out(tmp_path, TINY_SWF, "--failures",
                           f"lanl:path={tmp_path / 'log.csv'},system=20")
    # Job 1 starts at 0 on nodes 1-2 (node 0 is down); the transient failure of node 2 at 600
    # kills it (600 s on 2 nodes lost) and it restarts at once on 1-2, ending at 1600.  Job 2
    # waits for node 0's repair (extended to 1200 by the overlapping record): 1200-1700 on 0
    # and 3.  Job 3 runs 3600-3700 on node 0, the run ends at 3700 and the failure at 10800
    # never happens: 4 of the log's 5 failures; the transient one holds no node.
    assert (out / "unavailability.csv").read_text().splitlines() == [
        "reason,start,end,nodes", "failure,0,1200,0", "failure,1800,3600,3"]
    assert (out / "allocations.csv").read_text().splitlines()[1:] == [
        "1,1,0,600,1-2,failure", "1,2,600,1600,1-2,completed", "2,1,1200,1700,0 3,completed",
        "3,1,3600,3700,0,completed"]
    metrics = summary["metrics"]
    assert (metrics["failures"], summary["options"]["failures"]["failures"]) == (4, 5)
    # Capacity lost: 600 s x 2 nodes / (4 nodes x 3700 s).
    assert metrics["lost_ratio"] == pytest.approx(1200 / (4 * 3700))


# --- FTA: event types, a zero-length interval, an open interval, platforms ----------------------
FTA_HEADER = ("# event_id component_id node_id platform_id node_name event_type event_start_time "
              "event_stop_time event_end_reason")


def test_fta_records_by_hand(tmp_path):
    path = tmp_path / "event_trace.tab"
    path.write_text("\n".join([
        FTA_HEADER,
        "0 0 7 5 a 0 1000 1600 NULL",   # unavailable 1000-1600: node 7 at 0, repair 600
        "1 0 7 5 a 1 1600 5000 NULL",   # available: no failure (available_events)
        "2 0 9 5 b 0 2000 2000 NULL",   # zero length: a transient failure at 1000
        "3 0 9 5 b 0 3000 NULL 4022",   # still open: until the file's latest time, 5000
        "4 0 4 6 c 0 900 950 NULL",     # platform 6, left out by platform=5
    ]) + "\n")
    trace = read_fta(path, platform=5)
    # Times from the first selected failure (1000); the span runs to the last one (3000).
    assert trace.time.tolist() == [0.0, 1000.0, 2000.0]
    assert trace.node.tolist() == [7, 9, 9] and trace.repair.tolist() == [600.0, 0.0, 2000.0]
    assert trace.span == 2000.0
    c = trace.counts
    assert (c["available_events"], c["zero_repair"], c["open_ended"], c["other_platforms"]) == (
        1, 1, 1, 1)
    # As an availability trace: nodes 7 and 9 are trace nodes 0 and 1; on 3 machines (map=first)
    # machine 2 replays node 7 again; the zero-length interval takes nothing; time 0 is the
    # first submission (here 100).
    machine, start, end = map_onto(read_fta_availability(path, 5), 3, offset=100.0)
    assert (machine.tolist(), start.tolist(), end.tolist()) == (
        [0, 2, 1], [100.0, 100.0, 2100.0], [700.0, 700.0, 4100.0])


def test_real_fta_g5k06_first_node():
    # event_trace.tab of g5k06, node_id 0 (G1/site1/c1/node1), its first rows:
    #   0 unavailable 1115811139-1116857352 (down when monitoring began), 1 available,
    #   2 unavailable 1116857835-1116872164, 3 available, 4 unavailable 1116885794-1117149080.
    # Times from 1115811139: failures at 0, 1046696, 1074655; repairs 1046213, 14329, 263286.
    folder = real(FAILURES / "fta_g5k06")
    trace = read_fta(folder, nodes=[0])
    assert trace.time[:3].tolist() == [0.0, 1046696.0, 1074655.0]
    assert trace.repair[:3].tolist() == [1046213.0, 14329.0, 263286.0]
    # From 2005-05-20 00:00 UTC = 1116547200, 736061 s after the first: the first outage is
    # under way then and is left out (a window holds failures, not down states); the next
    # comes 1116857835 - 1116547200 = 310635 s after the window's start.
    may = trace.window(736061.0)
    assert may.time[0] == 310635.0 and len(may) == len(trace) - 1


def test_real_fta_lanl05_and_the_lanl_csv_agree_on_a_record():
    # LANL system 24's first record, 11/15/1996 7:00 to 16:55 (Down Time 595 min), is
    # 24.000's first row in lanl05: 848041200 to 848076900 (the wall clock read as UTC).
    # Both give a repair of 9 h 55 min = 35700 s.
    lanl = read_lanl_cfdr(real(LANL_CSV), system=24)
    fta = read_fta(real(FAILURES / "fta_lanl05"), nodes=["24.000"])
    assert lanl.repair[0] == fta.repair[0] == 35700.0
    assert dt.datetime.fromtimestamp(848041200, dt.UTC) == dt.datetime(
        1996, 11, 15, 7, 0, tzinfo=dt.UTC)
    # The last record, 12/10/2003 5:45, is 2580 days and 22 h 45 min (both MST, so the wall
    # clock read as UTC agrees) after the first: 222,912,000 + 81,900 = 222,993,900 s, the span
    # of both.  The CSV has 155 records of system 24; lanl05 has 151 intervals (it combined
    # some records, docs/failures.md).
    assert lanl.span == fta.span == 222_993_900.0
    assert (len(lanl), len(fta)) == (155, 151)


# --- .avt availability traces -------------------------------------------------------------------
def test_an_avt_trace_in_a_run(tmp_path):
    # Sessions (available): a 100-500; b 150-300 and 300-900 (touching); c none.  Time 0 is the
    # earliest session start, 100; the trace ends at the latest end, 900: span 800.
    # Unavailable: a (400, 800); b (0, 50) (the touching sessions leave a gap of 0: nothing);
    # c the whole span (0, 800), empty=down.
    (tmp_path / "t.avt").write_text("# three nodes\na 1 100 500\nb 2 150 300 300 900\nc 0\n")
    trace = read_avt(tmp_path / "t.avt")
    assert (trace.node.tolist(), trace.start.tolist(), trace.end.tolist(), trace.span) == (
        [0, 1, 2], [400.0, 0.0, 0.0], [800.0, 50.0, 800.0], 800.0)
    # start=500 skips the first 500 s: a (500, 800) -> (0, 300), c (0, 300); b has nothing left.
    machine, start, end = map_onto(trace, 3, skip=500.0)
    assert (machine.tolist(), start.tolist(), end.tolist()) == ([0, 2], [0, 0], [300, 300])
    # In a run on 3 one-node machines (map=first: machine m replays node m), the first
    # submission, 1000, is trace time 0.  Job 1 (2000 s) starts at 1000 on machine 0
    # and is killed at 1400 (on_unavailable=kill): 400 s wasted; job 2 starts on machine 1 when
    # b comes back at 1050; job 3 (1010) waits behind it; at 1800 (trace end) machines 0 and 2
    # are back: job 1 restarts on 0 (the queue's head), job 3 runs on 2.
    swf = """; MaxProcs: 3
1 1000 -1 2000 1 -1 -1 1 2000 -1 1 1 1 1 1 1 -1 -1
2 1000 -1 2000 1 -1 -1 1 2000 -1 1 1 1 1 1 1 -1 -1
3 1010 -1 100 1 -1 -1 1 100 -1 1 1 1 1 1 1 -1 -1
"""
    out, summary = run_out(tmp_path, swf, "--component",
                           f"availability:trace=avt:path={tmp_path / 't.avt'},on_unavailable=kill")
    assert (out / "unavailability.csv").read_text().splitlines() == [
        "reason,start,end,nodes", "trace,1000,1050,1", "trace,1000,1800,2", "trace,1400,1800,0"]
    assert (out / "allocations.csv").read_text().splitlines()[1:] == [
        "1,1,1000,1400,0,eviction", "2,1,1050,3050,1,completed", "1,2,1800,3800,0,completed",
        "3,1,1800,1900,2,completed"]
    assert summary["metrics"]["wasted_cpu_s"] == 400.0


def test_real_microsoft_avt_records():
    # microsoft.avt file lines 29 and 340: node 28 is first up at 302400 ("28 20 302400 518400
    # 536400 ..."): down (0, 302400) and (518400, 536400) first; node 339 has no session
    # ("339 0"): down for the whole 35 days, 3,024,000 s.  Line 1, node 0, is up throughout
    # ("0 1 0 3024000"): no interval.
    trace = read_avt(real(FAILURES / "availability_godfrey" / "microsoft.avt.gz"))
    assert trace.span == 3_024_000.0 and trace.n_nodes == 51_663
    assert not (trace.node == 0).any()
    first = (trace.node == 28)
    assert trace.start[first][:2].tolist() == [0.0, 518400.0]
    assert trace.end[first][:2].tolist() == [302400.0, 536400.0]
    assert (trace.start[trace.node == 339].tolist(), trace.end[trace.node == 339].tolist()) == (
        [0.0], [3_024_000.0])
    assert int((~trace.measured).sum()) == 116


# --- synthetic failures: parameters and units ---------------------------------------------------
def test_synthetic_weibull_scale_and_a_fixed_repair():
    # SPEC_ADDENDUM 8.4: scale = MTBF / Gamma(1 + 1/k), Gamma(1 + 1/k) = 1.2658 (k = 0.7),
    # 1.1906 (0.75), 1.1330 (0.8): an MTBF of 1 day (86400 s) gives 68257, 72568, 76258 s.
    for shape, gamma in ((0.7, 1.2658), (0.75, 1.1906), (0.8, 1.1330)):
        assert weibull_scale(86400.0, shape) == pytest.approx(86400.0 / gamma, rel=1e-4)
    # A lognormal repair with sigma 0 is exp(mu): mu = ln 600 gives 600 s every time.  One node
    # alternates up and down, so each failure starts at least 600 s after the one before.
    trace = synthetic_failures(1, 1e6, mtbf=5000.0, repair_mu=math.log(600.0),
                               repair_sigma=0.0, seed=4)
    assert trace.repair == pytest.approx(600.0) and (trace.time < 1e6).all()
    assert (trace.time[1:] - trace.time[:-1] > 600.0).all()
    # Mean cycle 5000 + 600 s over 10^6 s: about 1e6 / 5600 = 178.6 failures (184 drawn).
    assert 0.8 * 178.6 < len(trace) < 1.2 * 178.6


def test_a_synthetic_source_is_drawn_in_seconds_over_the_submit_span(tmp_path):
    # 4 nodes, jobs submitted at 1000 and 21000: a submit span of 20000 s.  mtbf=2000 s
    # (seconds, not hours) and exponential up times: about 4 x 20000 / 2000 = 40 failures,
    # every one inside [1000, 21000) (times moved to the first submission).
    from ckptsim.failures.source import load_failures

    trace = load_failures("synthetic:mtbf=2000,dist=exponential", n_nodes=4, span=20000.0,
                          offset=1000.0, seed=3, jobs=2)
    assert ((trace.time >= 1000.0) & (trace.time < 21000.0)).all()
    assert abs(len(trace) - 40) <= 3 * math.sqrt(40)
    assert trace.transient and set(trace.node.tolist()) <= {0, 1, 2, 3}


# --- seed 004's transient failures: the job restarts from scratch, the node is free at once -----
def test_a_transient_failure_restarts_the_job_from_scratch(tmp_path):
    # Two machines; job 1 (0, 1000 s, 2 nodes), job 2 (100, 10 s, 1 node).  transient=true sets
    # the log's 30-minute repair to 0: the failure at 500 (node 1) kills job 1, whose 500 s are
    # lost (no checkpoint), and job 1, at the queue's head (requeue=front), starts again at once
    # on the same nodes: 500-1500; job 2 then runs 1500-1510.  No node left service: no
    # unavailability.csv.
    (tmp_path / "log.csv").write_text("\n".join([
        LANL_HEADER, lanl_row(20, 0, "1/1/2004 0:00", "1/1/2004 0:30", "30"),
        lanl_row(20, 1, "1/1/2004 0:08:20", "1/1/2004 0:38:20", "30")]) + "\n")
    swf = """; MaxProcs: 2
1 0 -1 1000 2 -1 -1 2 1000 -1 1 1 1 1 1 1 -1 -1
2 100 -1 10 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1
"""
    out, summary = run_out(tmp_path, swf, "--failures",
                           f"lanl:path={tmp_path / 'log.csv'},system=20,transient=true")
    # The first record (node 0, time 0) strikes before job 1 starts: nothing to kill.
    assert (out / "allocations.csv").read_text().splitlines()[1:] == [
        "1,1,0,500,0-1,failure", "1,2,500,1500,0-1,completed", "2,1,1500,1510,0,completed"]
    assert not (out / "unavailability.csv").exists()
    m = summary["metrics"]
    assert (m["failures"], m["jobs_killed_by_failures"]) == (2, 1)


# --- seed 003: owners suspend then evict, reboots -----------------------------------------------
def test_owner_suspension_limit_and_a_reboot_on_one_machine(tmp_path):
    # One machine, time 0 = Friday 2010-01-01 00:00.  Owner sessions 500-800 and 3000-4000;
    # a daily reboot at 05:00 (18000 s) for 300 s (the defaults: suspend, max_suspend 600).
    # Job 1 (0, 2000 s): suspended 500-800 (300 s < 600), resumes, ends 2300.
    # Job 2 (2400, 1000 s): suspended at 3000, still occupied at 3600 = 3000 + 600: evicted
    # (600 s lost), the owner leaves at 4000, it runs again 4000-5000.
    # Job 3 (17000, 2000 s): the reboot at 18000 kills it (1000 s lost); the machine is back
    # at 18300, job 3 runs 18300-20300.  The next reboot (day 1, 104400) is after the run.
    (tmp_path / "own.csv").write_text("machine,login,logout\n0,500,800\n0,3000,4000\n")
    swf = """; MaxProcs: 1
1 0 -1 2000 1 -1 -1 1 2000 -1 1 1 1 1 1 1 -1 -1
2 2400 -1 1000 1 -1 -1 1 1000 -1 1 1 1 1 1 1 -1 -1
3 17000 -1 2000 1 -1 -1 1 2000 -1 1 1 1 1 1 1 -1 -1
"""
    out, summary = run_out(tmp_path, swf, "--component",
                           f"availability:owners={tmp_path / 'own.csv'},reboot=05:00")
    assert (out / "unavailability.csv").read_text().splitlines() == [
        "reason,start,end,nodes", "owner,500,800,0", "owner,3000,4000,0", "reboot,18000,18300,0"]
    assert (out / "allocations.csv").read_text().splitlines()[1:] == [
        "1,1,0,2300,0,completed", "2,1,2400,3600,0,eviction", "2,2,4000,5000,0,completed",
        "3,1,17000,18000,0,eviction", "3,2,18300,20300,0,completed"]
    m = summary["metrics"]
    assert (m["jobs_suspended"], m["jobs_resumed"], m["jobs_killed_after_suspend"]) == (2, 1, 1)
    assert (m["reboots"], m["evictions"], m["wasted_cpu_s"]) == (1, 2, 1600.0)


def test_owner_model_sessions_on_one_machine():
    # One machine open mon-fri 08:00-18:00, arrivals only in the 17:00 hour (hourly), 7200 s
    # sessions.  2010-01-01 is a Friday out of term; days 0-3 are Fri, Sat, Sun, Mon.  Every
    # session starts in [17:00, 18:00) of a weekday (weekend arrivals: the lab is closed) and
    # is cut at the closing, 18:00; with one machine the first arrival of the day takes it
    # until then and every later one that day is turned away.
    from ckptsim.platform.hours import OpeningHours
    from ckptsim.platform.usermodel import UserModel, generate_sessions
    from ckptsim.platform.users import UserCluster

    hourly = [0.0] * 24
    hourly[17] = 1.0
    model = UserModel(peak_rate=5.0, hourly=tuple(hourly), session="fixed:value=7200")
    s = generate_sessions([UserCluster("lab", 1, OpeningHours.parse("mon-fri 08:00-18:00"))],
                          days=4, seed=3, model=model)
    day = (s.login // 86400).astype(int)
    assert set(day.tolist()) <= {0, 3} and len(set(day.tolist())) == len(day)
    assert ((s.login - day * 86400 >= 17 * 3600) & (s.logout == day * 86400 + 18 * 3600)).all()
    assert s.counts["sessions"] + s.counts["turned_away"] == s.counts["arrivals"]
    assert s.counts["turned_away"] >= 1


def test_a_reboot_window_draws_one_time_per_cluster_or_per_day():
    # "03:00-05:00": uniform in [10800, 18000) after midnight.  redraw=cluster keeps one time of
    # day for a cluster every day; redraw=day draws anew each day.  Days 0-2 of 2010.
    from ckptsim.calendar import Calendar
    from ckptsim.platform.reboots import RebootSchedule

    cal = Calendar()
    kept = RebootSchedule.parse("03:00-05:00").times(cal, 0, 3 * 86400, cluster="lab", seed=1)
    offsets = kept - 86400 * (kept // 86400)
    assert len(kept) == 3 and ((offsets >= 10800) & (offsets < 18000)).all()
    assert offsets.tolist() == pytest.approx([offsets[0]] * 3)
    daily = RebootSchedule.parse("03:00-05:00", redraw="day").times(cal, 0, 3 * 86400,
                                                                      cluster="lab", seed=1)
    offsets = daily - 86400 * (daily // 86400)
    assert ((offsets >= 10800) & (offsets < 18000)).all() and len(set(offsets.tolist())) == 3
    # The fixed 05:00 of the addendum (Newcastle's practice): 18000, 104400, 190800.
    assert RebootSchedule.parse("05:00").times(cal, 0, 3 * 86400, cluster="lab").tolist() == [
        18000.0, 104400.0, 190800.0]


def test_resume_after_delays_a_resumption_not_a_new_start(tmp_path):
    # A 2-machine job (0, 1000 s); owners on machine 0 over 100-400 and on machine 1 over
    # 300-650.  Suspended at 100 (100 s done); both machines free at 650 < 100 + 600: it resumes
    # then, 550 s later than planned: ends 1550.
    swf = "; MaxProcs: 2\n1 0 -1 1000 2 -1 -1 2 1000 -1 1 1 1 1 1 1 -1 -1\n"
    (tmp_path / "own.csv").write_text("machine,login,logout\n0,100,400\n1,300,650\n")
    out, _ = run_out(tmp_path, swf, "--component",
                     f"availability:owners={tmp_path / 'own.csv'}")
    assert (out / "allocations.csv").read_text().splitlines()[1:] == ["1,1,0,1550,0-1,completed"]
    # Machine 1's owner stays to 750 and resume_after=100: the job could resume at 850 at the
    # earliest, after its limit, 700: evicted then (its 100 s lost).  The new start waits for
    # no idle period: at 750, the logout, it runs again from scratch, to 1750.
    (tmp_path / "own.csv").write_text("machine,login,logout\n0,100,400\n1,300,750\n")
    out, summary = run_out(tmp_path, swf, "--component",
                           f"availability:owners={tmp_path / 'own.csv'},resume_after=100")
    assert (out / "allocations.csv").read_text().splitlines()[1:] == [
        "1,1,0,700,0-1,eviction", "1,2,750,1750,0-1,completed"]
    m = summary["metrics"]
    assert (m["jobs_suspended"], m["jobs_resumed"], m["jobs_killed_after_suspend"]) == (1, 0, 1)


# --- what a failure does to a running job -------------------------------------------------------
def test_a_failure_loses_the_work_since_the_last_checkpoint():
    # One machine, a 1000 s job, fixed:interval=300,cost=10,restart=20.  Checkpoints begin at
    # 300 (saves 300, ends 310) and 610 (saves 600, ends 620).  A transient failure at 700,
    # 80 s into the next interval: rolled back to 600 (80 s lost), requeued and restarted at
    # once, paying the 20 s restart: progress resumes at 720 from 600; the next checkpoint at
    # 1020 (saves 900), the end at 1030 + 100 = 1130.
    sim, spy = fcfs([(0.0, 1000.0, 1, 1000.0)], 1,
                    {"checkpoint": {"policy": "fixed:interval=300,cost=10,restart=20"}},
                    ([700.0], [0]))
    assert spy.begins == [300.0, 610.0, 1020.0]
    assert (sim.jobs[0].end, sim.jobs[0].lost_work) == (1130.0, 80.0)
    c = sim.component("checkpoint").counters()  # type: ignore[union-attr]
    assert (c["checkpoints_used"], c["restart_overhead_s"]) == (1, 20.0)


@pytest.mark.parametrize("requeue, rows", [
    # front: job 3 heads the queue and restarts at once, 300-1100; job 2 waits for it.
    ("front", ["3,2,300,1100,1,completed", "2,1,1100,2100,0-1,completed"]),
    # order: job 3 goes back behind job 2 (submit order); restarting it now would end at
    # 1100, after job 2's reservation at 1000, with no spare node then: it waits, 2000-2800.
    ("order", ["2,1,1000,2000,0-1,completed", "3,2,2000,2800,0,completed"]),
])
def test_where_a_killed_job_waits_again(tmp_path, requeue, rows):
    # Two nodes under easy: job 1 (0, 1000 s, 1 node) on node 0; job 2 (10, 1000 s, 2 nodes)
    # waits, reserved at 1000; job 3 (20, 800 s, 1 node) is backfilled on node 1 (ends 820 <=
    # 1000).  A transient failure of node 1 at 300 (the log's second record, 5 min after its
    # first, which strikes node 0 at 0 before anything runs) kills job 3.
    (tmp_path / "log.csv").write_text("\n".join([
        LANL_HEADER, lanl_row(20, 0, "1/1/2004 0:00", "1/1/2004 0:00", "0"),
        lanl_row(20, 1, "1/1/2004 0:05", "1/1/2004 0:05", "0")]) + "\n")
    swf = """; MaxProcs: 2
1 0 -1 1000 1 -1 -1 1 1000 -1 1 1 1 1 1 1 -1 -1
2 10 -1 1000 2 -1 -1 2 1000 -1 1 1 1 1 1 1 -1 -1
3 20 -1 800 1 -1 -1 1 800 -1 1 1 1 1 1 1 -1 -1
"""
    (tmp_path / "w.swf").write_text(swf)
    out = tmp_path / "out"
    assert main(["run", "--workload", str(tmp_path / "w.swf"), "--scheduler", "easy",
                 "--set", f"requeue={requeue}", "--failures",
                 f"lanl:path={tmp_path / 'log.csv'},system=20", "--out", str(out)]) == 0
    assert (out / "allocations.csv").read_text().splitlines()[1:] == [
        "1,1,0,1000,0,completed", "3,1,20,300,1,failure", *rows]


# --- a hold still in place when the run ends ----------------------------------------------------
def test_an_owner_session_open_at_the_end_of_the_run_ends_its_row_there(tmp_path):
    # Two machines; one job (0, 1000 s) on machine 0.  Machine 1's owner logs in at 100 and
    # out at 10000, after the run's end (1000), when nothing is applied any more: the row ends
    # at the run's end, whatever else was due after it (here an owner of machine 0 over
    # 5000-6000, never applied).
    swf = "; MaxProcs: 2\n1 0 -1 1000 1 -1 -1 1 1000 -1 1 1 1 1 1 1 -1 -1\n"
    for sessions in ("1,100,10000\n", "1,100,10000\n0,5000,6000\n"):
        (tmp_path / "own.csv").write_text("machine,login,logout\n" + sessions)
        out, _ = run_out(tmp_path, swf, "--component",
                         f"availability:owners={tmp_path / 'own.csv'}")
        assert (out / "unavailability.csv").read_text().splitlines() == [
            "reason,start,end,nodes", "owner,100,1000,1"]


def test_young_m_on_a_pool_counts_the_failures_of_the_jobs_machine():
    # smallpool: 10 machines, 26 cores (4 x 2 + 3 x 4 + 3 x 2).  A one-core job (0, 50000 s)
    # and one at 100000: a submit span of 100000 s.  availability:failures=synthetic draws
    # failures of the 10 machines (4 here), each taking its whole machine: the job's machine
    # fails once per 100000 x 10 / 4 = 250000 s = M; young with cost 60: tau = sqrt(2 x 60 x
    # 250000) = 5477.2 s.  (Over the 26 cores, 100000 x 26 / 4 = 650000 s, 2.6 times too
    # long: tau = 8831.8 s.)
    import tomllib

    from ckptsim.platform.description import parse_description
    from ckptsim.platform.groups import GroupedPlatform
    from ckptsim.platform.pools import pool_file

    platform = GroupedPlatform(parse_description(tomllib.loads(
        pool_file("smallpool").read_text())))
    assert platform.n_nodes == 26
    spy = Spy()
    sim = Simulator(jobs([(0.0, 50000.0, 1, 50000.0), (100000.0, 10.0, 1, 10.0)], 26),
                    scheduler_factory("fcfs", {}), platform=platform,
                    components=[*build_components({
                        "availability": {"failures": "synthetic:mtbf=500000"},
                        "checkpoint": {"policy": "young:cost=60"}}), spy])
    sim.run()
    failures = sim.component("availability").counters()["failures"]  # type: ignore[union-attr]
    assert len(sim.component("availability").fail_times) == 4  # type: ignore[union-attr]
    assert spy.begins[0] == pytest.approx(math.sqrt(2 * 60 * 100000 * 10 / 4))
    assert failures <= 4
