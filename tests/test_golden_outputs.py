"""Byte-identity of `ckptsim run` outputs on real-trace slices, every scheduler, with and
without failures.

golden/outputs.json holds the SHA-256 of jobs.csv, summary.json and schedule.swf of each case,
recorded from the engine as it was before its seams were reworked (platform passed in,
components, rate model, event kinds, enforced state machine): a restructuring of the engine
must leave every one of them unchanged.  The summary.json hashes were recorded again when
metrics (maximum and percentile waits, waits and slowdowns by size class, node-checkpoints per
node-day) and the fault-aware BG/L options joined summary.json, and again when ckpt-backfill's
`freeze` and `retry` options did (and its `rejoin`), and again when the BG/L schedulers'
`repack` option did, and again when the fault-aware ones' `at_now` did, and again when
`easy`'s and ckpt-backfill's `shadow_ties` did, and ckpt-backfill's `rejoin_order` and
`overdue_at`, and again when summary.json came to record the run's seed (`options.seed`), and
the BG/L summaries again when the BG/L schedulers' `front_order` joined them;
jobs.csv and schedule.swf kept theirs, and the summaries differed only by the added keys.  The
ckpt-backfill cases were recorded again, all three files, when its `replan` default became
`full` (Algorithm 1 on every arrival: another schedule; on the NASA slices only summary.json,
which names the option's value, changed), and again when its `rejoin` default became `head`
(the seed's Algorithm 3: all three files on the SDSC-SP2 slice, on the CTC-SP2 slice except
with transient LANL failures and on the NASA slice with them; summary.json alone elsewhere).  The
BG/L summaries of the CTC-SP2 cases (a 338-processor trace on 128 supernodes) were recorded
again when `workload.machine_size` became the trace's machine (it was the simulated 128), and
the schedule.swf of every case on the first 5,000 jobs of a trace when a cut trace's header
came to count the jobs kept (`MaxJobs`, `MaxRecords`), drop the source's `EndTime` and name the
cut in a `Note` line (jobs.csv and summary.json unchanged).  The summaries of the cases with
LANL failures were recorded again when summary.json came to record the failure log reader's
counts (`options.failures.loader`; jobs.csv and schedule.swf unchanged, the summaries
differing only by the added key), and the BG/L summaries again when the BG/L schedulers'
`restart` joined them (jobs.csv and schedule.swf unchanged).  The summaries of every case
with failures were recorded again when summary.json came to record every declared parameter
and what each failure transform counted (`options.failures.count`,
`options.failures.transform_counts`; jobs.csv and schedule.swf unchanged, the summaries
differing only by the added keys), and again for the source string's options
(`options.failures.spec`; jobs.csv and schedule.swf unchanged).  The
cases run through the command line in this process, from the repository root with trace and log
paths written as ../shared/... (as summary.json records them).  The whole matrix is opt-in
(`-m slow`); the default run checks one case per scheduler and failure source.  Regenerate
deliberately with `CKPTSIM_REGEN_GOLDEN=1 python -m pytest -m slow tests/test_golden_outputs.py`
(and once more without `-m slow` for the default cases).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from helpers import trace

from ckptsim.cli import main

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).resolve().parent / "golden" / "outputs.json"
OUTPUTS = ("jobs.csv", "summary.json", "schedule.swf")

LANL = ("lanl:path=../shared/data/failures/lanl_cfdr/LA-UR-05-7318-failure-data-1996-2005.csv.gz,"
        "system=20,count=500")
SYNTHETIC = "synthetic:mtbf=2000000,repair_mean=86400"
TRACES = {
    "sdsc5000": ("SDSC-SP2-1998-4.2-cln.swf.gz", ("--first", "5000")),
    "ctc5000": ("CTC-SP2-1996-3.1-cln.swf.gz", ("--first", "5000")),
    "nasa": ("NASA-iPSC-1993-3.1-cln.swf.gz", ()),
}
SCHEDULERS: dict[str, tuple[str, ...]] = {
    "fcfs": ("--scheduler", "fcfs"),
    "easy": ("--scheduler", "easy"),
    "conservative": ("--scheduler", "conservative"),
    "ckpt-backfill": ("--scheduler", "ckpt-backfill", "--set", "p=0.2"),
    "bgl-fcfs": ("--scheduler", "bgl-fcfs"),
    "bgl-fcfs-cost": ("--scheduler", "bgl-fcfs", "--set", "migration_cost=60"),
    "bgl-balancing": ("--scheduler", "bgl-balancing", "--set", "confidence=0.1"),
    "bgl-tiebreak": ("--scheduler", "bgl-tiebreak", "--set", "accuracy=0.5"),
}
FAILURES: dict[str, tuple[str, ...]] = {
    "none": (),
    "lanl": ("--failures", LANL + ",transient=true"),
    "lanl-repairs": ("--failures", LANL),
    "synthetic": ("--failures", SYNTHETIC),
}
CASES = [f"{t}/{s}/{f}" for t in TRACES for s in SCHEDULERS for f in FAILURES]
#: The cases of the default run: every scheduler and failure source once, on small slices.
QUICK = {f"sdsc5000/{s}/{f}" for s in SCHEDULERS for f in FAILURES
         if s not in ("conservative", "bgl-fcfs-cost")} | {
    "ctc5000/conservative/synthetic", "nasa/bgl-fcfs-cost/synthetic", "nasa/easy/lanl",
    "ctc5000/bgl-fcfs/none"} - {f"sdsc5000/{s}/lanl-repairs" for s in ("fcfs", "bgl-fcfs")}


def run_case(case: str, out: Path) -> dict[str, str]:
    tname, sname, fname = case.split("/")
    name, extra = TRACES[tname]
    trace(name)  # skip when the traces are absent
    if fname == "lanl" and not (ROOT.parent / "shared" / "data" / "failures").is_dir():
        pytest.skip("the LANL failure log is not available")
    argv = ["run", "--workload", f"../shared/data/traces/{name}", *extra, *SCHEDULERS[sname],
            *FAILURES[fname], "--out", str(out)]
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        assert main(argv) == 0
    finally:
        os.chdir(cwd)
    return {o: hashlib.sha256((out / o).read_bytes()).hexdigest() for o in OUTPUTS}


def _check(case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    got = run_case(case, tmp_path)
    capsys.readouterr()
    if os.environ.get("CKPTSIM_REGEN_GOLDEN"):
        saved = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}
        saved[case] = got
        GOLDEN.write_text(json.dumps(saved, indent=2, sort_keys=True) + "\n")
        pytest.skip("golden hashes regenerated")
    expected = json.loads(GOLDEN.read_text())[case]
    assert got == expected, case


@pytest.mark.parametrize("case", sorted(QUICK))
def test_outputs_unchanged(case, tmp_path, capsys):
    _check(case, tmp_path, capsys)


@pytest.mark.slow
@pytest.mark.parametrize("case", [c for c in CASES if c not in QUICK])
def test_outputs_unchanged_all(case, tmp_path, capsys):
    _check(case, tmp_path, capsys)
