"""Failures are one kind of availability event: given to the availability component they give
byte-identical jobs.csv and schedule.swf, and the same failure counters, as the failures
component, on a real-trace slice with a real failure log (repairs and transient) and with a
synthetic model, for every scheduler."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import trace

from ckptsim.cli.common import write_outputs
from ckptsim.components.failures import FAILURE_COUNTERS
from ckptsim.policies.base import scheduler_names
from ckptsim.runner import simulate
from ckptsim.workload.source import load_workload
from ckptsim.workload.swf import read_swf
from ckptsim.workload.transforms import first_n

ROOT = Path(__file__).resolve().parents[1]
LANL = ROOT.parent / "shared" / "data" / "failures" / "lanl_cfdr" / \
    "LA-UR-05-7318-failure-data-1996-2005.csv.gz"
SOURCES = {
    "lanl-repairs": f"lanl:path={LANL},system=20,count=300",
    "lanl-transient": f"lanl:path={LANL},system=20,count=300,transient=true",
    "synthetic": "synthetic:mtbf=2000000,repair_mean=86400",
}
PARAMS = {"ckpt-backfill": {"p": 0.2}, "bgl-tiebreak": {"accuracy": 0.5},
          "bgl-balancing": {"confidence": 0.1}}


@pytest.fixture(scope="module")
def workload():
    return first_n(read_swf(trace("NASA-iPSC-1993-3.1-cln.swf.gz")), 1500)


@pytest.mark.parametrize("source", list(SOURCES))
@pytest.mark.parametrize("scheduler", scheduler_names())
def test_failures_as_availability_events_give_identical_results(workload, scheduler, source,
                                                                tmp_path):
    if source.startswith("lanl") and not LANL.exists():
        pytest.skip("the LANL failure log is not available")
    spec = SOURCES[source]
    params = PARAMS.get(scheduler, {})
    if scheduler == "coalloc":  # it schedules grid workloads (a home cluster, a bandwidth)
        workload = load_workload("grid:n=400,seed=5")
    a = simulate(workload, scheduler, params, failures=spec, check=True)
    b = simulate(workload, scheduler, params, check=True,
                 components={"availability": {"failures": spec}})
    write_outputs(a, tmp_path / "a")
    write_outputs(b, tmp_path / "b")
    for name in ("jobs.csv", "schedule.swf"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    for key in FAILURE_COUNTERS:
        assert a.summary[key] == b.summary[key], key
    assert a.summary["failures"] > 0
    same = {k: v for k, v in a.summary.items() if k in b.summary}
    assert same == {k: b.summary[k] for k in same}
    # summary.json says where the failures came from, as with --failures.
    assert b.options["failures"] == a.options["failures"]
    assert a.options["failures"]["failures"] > 0
    # A failure with a repair that takes a machine in service out is an unavailability event.
    events = b.summary["unavailability_events"]
    if source == "synthetic":  # every failure has a repair; none strikes a node under repair
        assert events == b.summary["failures"]
    elif source == "lanl-transient":
        assert events == 0
    else:
        assert 0 < events <= b.summary["failures"]


def test_the_command_line_records_the_failures_of_the_availability_component(tmp_path):
    """summary.json of `--component availability:failures=S` holds options.failures as that of
    `--failures S` does, and counts the machines the failures took out of service."""
    import json

    from ckptsim.cli import main

    spec = "synthetic:mtbf=2e6,repair_mean=3600"
    common = ["run", "--workload", "lublin:n=300,seed=1"]
    assert main([*common, "--failures", spec, "--out", str(tmp_path / "a")]) == 0
    assert main([*common, "--component", f"availability:failures={spec}",
                 "--out", str(tmp_path / "b")]) == 0
    a, b = (json.loads((tmp_path / d / "summary.json").read_text()) for d in "ab")
    assert b["options"]["failures"] == a["options"]["failures"]
    assert a["options"]["failures"]["failures"] == a["metrics"]["failures"] > 0
    assert b["metrics"]["unavailability_events"] == b["metrics"]["failures"]
    for name in ("jobs.csv", "schedule.swf"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_core_failures_on_machines_of_several_cores_are_noted(monkeypatch, caplog):
    """--failures on smallpool fails single cores where availability:failures fails whole
    machines (the two differ there, as the docs say): the run says so; on a platform whose
    machines have one core, or with availability:failures, nothing is said."""
    import logging

    from ckptsim import runner
    from ckptsim import simulate as run

    monkeypatch.setattr(runner, "_NOTED", set())
    caplog.set_level(logging.INFO, logger="ckptsim")
    w = "lublin:n=100,seed=1,machine=26"
    run(w, "easy", platform="smallpool", failures="synthetic:mtbf=2e6,repair_mean=600")
    notes = [r.getMessage() for r in caplog.records if "fails one engine node" in
             r.getMessage()]
    assert len(notes) == 1 and "availability:failures=SOURCE fails whole machines" in notes[0]
    caplog.clear()
    monkeypatch.setattr(runner, "_NOTED", set())
    run(w, "easy", platform="smallpool",
        components=["availability:failures=synthetic:mtbf=2e6,repair_mean=600"])
    run(w, "easy", failures="synthetic:mtbf=2e6")
    assert not [r for r in caplog.records if "fails one engine node" in r.getMessage()]


def test_failure_kills_read_the_same_from_either_component(tmp_path):
    """With owners (suspensions and evictions), reboots and checkpoints on a pool of one-core
    machines, a failure kill is labelled `failure` in allocations.csv and unavailability.csv
    (and every other row the same) whichever component drew it."""
    from ckptsim.records.allocations import AllocationLog, AllocationRecorder

    platform = tmp_path / "one-core.toml"
    platform.write_text('[types.pc]\ncores = 1\npower = { active = 57, idle = 40, sleep = 2 }\n'
                        '[[groups]]\nname = "lab"\nmachines = 12\ntype = "pc"\n')
    w = load_workload("htc:days=1,seed=2")
    source = "synthetic:mtbf=100000,repair_mean=3600"
    avail = {"owners": "model", "reboot": "05:00", "max_suspend": 7200}
    outs = []
    for name, comps in (("core", {"availability": avail, "failures": {"source": source}}),
                        ("machine", {"availability": {**avail, "failures": source}})):
        log = AllocationLog()
        result = simulate(w, "htc", platform=platform, components=comps,
                          checkpoint="fixed:interval=1800,cost=60",
                          recorders=[AllocationRecorder(log)])
        write_outputs(result, tmp_path / name, log)
        outs.append({f: (tmp_path / name / f).read_text() for f in
                     ("jobs.csv", "allocations.csv", "unavailability.csv", "out_jobs.csv")})
    assert outs[0] == outs[1]
    assert ",failure\n" in outs[0]["allocations.csv"]
    assert "\nfailure," in outs[0]["unavailability.csv"]


def test_failures_after_the_last_job_are_withdrawn_by_either_component(tmp_path):
    """A log longer than the run: the failures due after the last job ends are neither
    applied nor counted, and the clock stops at the last end, with either component (the
    availability component counted them, and ran the clock on to the log's end)."""
    from helpers import LANL_HEADER, jobs, lanl_row

    from ckptsim.components.availability import Availability
    from ckptsim.components.failures import Failures
    from ckptsim.engine.simulator import Simulator
    from ckptsim.policies.base import scheduler_factory

    path = tmp_path / "lanl.csv"
    path.write_text("\n".join([LANL_HEADER,
                               lanl_row(2, 0, "1/1/2004 0:00", "1/1/2004 0:01", "1"),
                               lanl_row(2, 0, "1/1/2004 0:01", "1/1/2004 0:02", "1"),
                               lanl_row(2, 0, "1/1/2004 1:00", "1/1/2004 1:10", "10"),
                               lanl_row(2, 0, "1/2/2004 0:00", "1/2/2004 0:10", "10")]) + "\n")
    source = f"lanl:path={path},system=2,transient=true"
    # One node: job 1 runs 0-100 s (killed by the failures at 0 and 60 s, then 0 work
    # saved: it restarts at 60 and ends at 160); the failures at 3,600 s and a day come after.
    w = jobs([(0, 100, 1, 100)], 1)
    for component in (Failures(Failures.make_params({"source": source})),
                      Availability(Availability.make_params({"failures": source}))):
        sim = Simulator(w, scheduler_factory("fcfs", None), components=[component],
                        check=True)
        sim.run()
        counted = getattr(component, "counts", {"failures": getattr(component, "failures", 0)})
        assert (sim.now, counted["failures"]) == (160.0, 2), type(component).__name__
