"""Sweeps: executors agree, failures are recorded, the store resumes and detects damage."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ckptsim.experiments.columns import TIMING_COLUMNS
from ckptsim.experiments.execute import (
    DaskExecutor,
    PoolExecutor,
    SerialExecutor,
    clear_cache,
    execute_run,
    load_run_workload,
)
from ckptsim.experiments.store import Store, StoreError, load_results
from ckptsim.experiments.sweep import plan_sweep, run_sweep

ROOT = Path(__file__).resolve().parents[1]

SWF = """; MaxProcs: 8
1 0 -1 10 4 -1 -1 4 10 -1 1 1 1 -1 1 -1 -1 -1
2 0 -1 30 4 -1 -1 4 30 -1 1 1 1 -1 1 -1 -1 -1
3 1 -1 20 8 -1 -1 8 20 -1 1 2 1 -1 1 -1 -1 -1
4 2 -1 15 2 -1 -1 2 40 -1 1 3 1 -1 1 -1 -1 -1
5 3 -1 40 2 -1 -1 2 50 -1 1 3 1 -1 1 -1 -1 -1
"""

SPEC = """
name = "t"
seeds = [1, 2]
metrics = ["mean_wait", "mean_bsld"]

[workloads.model]
generator = "lublin"
n = [150, 250]
machine = 64

[workloads.fig3]
trace = "fig3.swf"
alpha = [0.0, 1.0]

[[schedulers]]
name = "fcfs"

[[schedulers]]
name = "easy"
params = { requeue = ["front", "order"] }

[[figures]]
name = "wait"
x = "scheduler"
y = "mean_wait"
kind = "bar"
where = { workload = "model", n = 150, requeue = "front" }
"""


@pytest.fixture
def spec(tmp_path):
    (tmp_path / "fig3.swf").write_text(SWF)
    path = tmp_path / "t.toml"
    path.write_text(SPEC)
    return path


def comparable(rows):
    """Rows without what legitimately differs between executions (timing, placement)."""
    return sorted(({k: v for k, v in r.items() if k not in TIMING_COLUMNS} for r in rows),
                  key=lambda r: r["run_id"])


def sweep(spec, out, executor, **kw):
    plan = plan_sweep(spec, out, **kw)
    return plan, run_sweep(plan, out, executor)


def test_serial_sweep_writes_one_row_per_run(spec, tmp_path):
    out = tmp_path / "out"
    plan, result = sweep(spec, out, SerialExecutor())
    assert len(plan.runs) == 24 and (result.ok, result.failed, result.skipped) == (24, 0, 0)
    rows, manifest = load_results(out)
    assert [r["run_id"] for r in rows] == [r.run_id for r in plan.runs] == manifest["runs"]
    assert len(list((out / "runs").iterdir())) == 24
    row = rows[0]
    assert row["status"] == "ok" and row["error"] is None and row["seed"] == 1
    assert row["workload"] == "model" and row["workload.n"] == 150
    assert row["jobs"] == 150 and row["mean_wait"] >= 0 and row["ckptsim_version"]
    assert (out / "spec.toml").read_text() == SPEC
    assert manifest["metrics"] == ["mean_wait", "mean_bsld"]
    # Replications of a trace workload are identical: the seed only reaches generators.
    trace = [r for r in rows if r["workload"] == "fig3" and r["scheduler"] == "fcfs"
             and r["workload.alpha"] == 0.0]
    assert len(trace) == 2 and trace[0]["mean_wait"] == trace[1]["mean_wait"]
    # Generator workloads differ by seed.
    model = [r for r in rows if r["workload"] == "model" and r["scheduler"] == "fcfs"
             and r["workload.n"] == 150]
    assert model[0]["mean_wait"] != model[1]["mean_wait"]


def test_pool_and_dask_give_the_serial_results(spec, tmp_path):
    pytest.importorskip("distributed")
    sweep(spec, tmp_path / "serial", SerialExecutor())
    sweep(spec, tmp_path / "pool", PoolExecutor(2))
    sweep(spec, tmp_path / "dask", DaskExecutor("local", 2))
    serial = comparable(load_results(tmp_path / "serial")[0])
    assert len(serial) == 24
    assert comparable(load_results(tmp_path / "pool")[0]) == serial
    assert comparable(load_results(tmp_path / "dask")[0]) == serial


def test_results_equal_a_direct_run(spec, tmp_path):
    """A sweep row holds exactly what `simulate` gives for the same inputs."""
    from ckptsim.runner import simulate
    from ckptsim.workload.source import load_workload

    plan, _ = sweep(spec, tmp_path / "out", SerialExecutor())
    rows = {r["run_id"]: r for r in load_results(tmp_path / "out")[0]}
    run = next(r for r in plan.runs if r.workload == "fig3" and r.transforms["alpha"] == 1.0
               and r.params["requeue"] == "order")
    w = load_workload(str(tmp_path / "fig3.swf"), alpha=1.0)
    expected = simulate(w, "easy", {"requeue": "order"}).summary
    assert {k: rows[run.run_id][k] for k in expected} == expected


def test_workload_loading_matches_load_workload_and_is_cached(tmp_path):
    from ckptsim.experiments.matrix import build_matrix
    from ckptsim.experiments.spec import parse_spec
    from ckptsim.workload.source import load_workload

    (tmp_path / "fig3.swf").write_text(SWF)
    spec = parse_spec('[workloads.t]\ntrace = "fig3.swf"\nwindow = [1, inf]\nfirst = 3\n'
                      'alpha = 0.5\nload_scale = 2.0\n[[schedulers]]\nname = "easy"\n',
                      tmp_path / "s.toml")
    (run,) = build_matrix(spec)
    clear_cache()
    w = load_run_workload(run)
    ref = load_workload(str(tmp_path / "fig3.swf"), window=(1, float("inf")), first=3,
                        alpha=0.5, load_scale=2.0)
    assert w.transforms == ref.transforms and w.header == ref.header
    assert w.counts == ref.counts and w.machine_size == ref.machine_size
    for col in ("job_id", "submit", "runtime", "estimate", "size", "fields"):
        assert getattr(w, col).tolist() == getattr(ref, col).tolist()
    from ckptsim.experiments import execute

    assert len(execute._CACHE) == 1
    load_run_workload(run)
    assert len(execute._CACHE) == 1


def test_failing_run_is_recorded_and_the_sweep_goes_on(spec, tmp_path):
    (tmp_path / "broken.swf").write_text("; MaxProcs: 8\n1 0 -1 10 not-a-number\n")
    spec.write_text(SPEC + '\n[workloads.broken]\ntrace = "broken.swf"\n')
    out = tmp_path / "out"
    plan, result = sweep(spec, out, PoolExecutor(2))
    broken = [r for r in plan.runs if r.workload == "broken"]
    assert len(broken) == 6
    assert (result.ok, result.failed) == (24, 6)
    rows, _ = load_results(out)
    failed = [r for r in rows if r["status"] == "failed"]
    assert {r["run_id"] for r in failed} == {r.run_id for r in broken}
    assert all("WorkloadError" in r["error"] and "Traceback" in r["error"] for r in failed)
    assert all(r["error_message"].startswith("WorkloadError") for r in failed)
    assert all(r.get("mean_wait") is None for r in failed)
    # Failed runs are run again on resume (and fail again here); nothing is duplicated.
    plan2 = plan_sweep(spec, out)
    assert (plan2.done, plan2.retry, len(plan2.todo)) == (24, 6, 6)
    run_sweep(plan2, out, SerialExecutor())
    assert len(load_results(out)[0]) == 30


def test_execute_run_never_raises(tmp_path):
    from ckptsim.experiments.matrix import Run

    run = Run(run_id="x" * 64, experiment="e", workload="w", kind="trace",
              path=str(tmp_path / "absent.swf"), source={}, transforms={}, scheduler="easy",
              scheduler_name="easy", params={}, seed=1, overrun="extend")
    outcome = execute_run(run)
    assert outcome.row["status"] == "failed"
    assert "FileNotFoundError" in outcome.row["error_message"]


def test_resume_skips_finished_runs_and_never_duplicates(spec, tmp_path):
    out = tmp_path / "out"
    plan, _ = sweep(spec, out, SerialExecutor())
    before = comparable(load_results(out)[0])
    # Lose some runs as if the sweep had been killed before them.
    lost = [r.run_id for r in plan.runs[::5]]
    for rid in lost:
        (out / "runs" / f"{rid}.parquet").unlink()
    # A killed writer leaves a temporary file at most: it is ignored, then cleaned up.
    (out / "runs" / f".tmp-{lost[0]}.parquet.123.abcd").write_bytes(b"partial")
    assert len(load_results(out)[0]) == 24 - len(lost)
    plan2, result = sweep(spec, out, PoolExecutor(2))
    assert plan2.done == 24 - len(lost)
    assert sorted(r.run_id for r in plan2.todo) == sorted(lost)
    assert (result.ok, result.skipped) == (len(lost), 24 - len(lost))
    assert not [p for p in (out / "runs").iterdir() if p.name.startswith(".tmp-")]
    assert comparable(load_results(out)[0]) == before
    # Nothing left: a third sweep runs nothing.
    plan3 = plan_sweep(spec, out)
    assert plan3.todo == [] and plan3.done == 24


def test_damaged_file_is_reported_not_read_and_recomputed(spec, tmp_path):
    out = tmp_path / "out"
    plan, _ = sweep(spec, out, SerialExecutor())
    before = comparable(load_results(out)[0])
    victim = out / "runs" / f"{plan.runs[3].run_id}.parquet"
    data = bytearray(victim.read_bytes())
    victim.write_bytes(bytes(data[: len(data) // 2]))  # a truncated file
    with pytest.raises(StoreError) as info:
        load_results(out)
    assert victim.name in str(info.value) and "damaged" in str(info.value)
    # Flipped bytes inside a data page are caught by the page checksums.
    other = out / "runs" / f"{plan.runs[4].run_id}.parquet"
    data = bytearray(other.read_bytes())
    data[40] ^= 0xFF
    other.write_bytes(bytes(data))
    # A file whose content is another run's is refused too.
    third = out / "runs" / f"{plan.runs[5].run_id}.parquet"
    third.write_bytes((out / "runs" / f"{plan.runs[6].run_id}.parquet").read_bytes())
    plan2 = plan_sweep(spec, out)
    assert sorted(Path(f).name for f, _ in plan2.corrupt) == sorted(
        [victim.name, other.name, third.name])
    assert len(plan2.todo) == 3
    run_sweep(plan2, out, SerialExecutor())
    assert comparable(load_results(out)[0]) == before


def test_a_second_concurrent_sweep_is_refused(spec, tmp_path):
    out = tmp_path / "out"
    store = Store(out)
    with store.lock():
        plan = plan_sweep(spec, out)
        with pytest.raises(StoreError, match="another sweep"):
            run_sweep(plan, out, SerialExecutor())
    run_sweep(plan, out, SerialExecutor())  # released: fine now


def test_keep_jobs_writes_per_job_records(spec, tmp_path):
    out = tmp_path / "out"
    plan, _ = sweep(spec, out, SerialExecutor())
    assert not any((out / "jobs").iterdir())
    # Asking for the records later runs again exactly the runs that lack them.
    plan2, result = sweep(spec, out, PoolExecutor(2), keep_jobs=True)
    assert len(plan2.todo) == 24 and result.ok == 24
    store = Store(out)
    run = plan.runs[0]
    jobs = store.read_jobs(run.run_id)
    assert jobs.num_rows == 150 and "bsld" in jobs.column_names
    assert plan_sweep(spec, out, keep_jobs=True).todo == []


def test_changed_spec_reuses_shared_runs(spec, tmp_path):
    out = tmp_path / "out"
    sweep(spec, out, SerialExecutor())
    spec.write_text(SPEC.replace("seeds = [1, 2]", "seeds = [1, 2, 3]"))
    plan, result = sweep(spec, out, SerialExecutor())
    assert (plan.done, result.ok) == (24, 12)
    rows, _ = load_results(out)
    assert len(rows) == 36
    spec.write_text(SPEC.replace("seeds = [1, 2]", "seeds = [2]"))
    plan, result = sweep(spec, out, SerialExecutor())
    assert (plan.done, result.ok) == (12, 0)
    assert len(load_results(out)[0]) == 12  # the latest matrix
    assert len(load_results(out, all_runs=True)[0]) == 36


def _session_processes(sid):
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            pids.append(int(entry))
    return pids


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to find the workers")
def test_sigkill_mid_sweep_then_resume(tmp_path):
    """Kill a real `ckptsim sweep` with SIGKILL after some runs: no file is damaged, no
    worker is left behind, and a second sweep completes the store with exactly the rows an
    uninterrupted sweep gives."""
    spec = tmp_path / "kill.toml"
    spec.write_text('name = "kill"\nreplications = 20\n[workloads.model]\n'
                    'generator = "lublin"\nn = 2000\n'
                    '[[schedulers]]\nname = "easy"\n[[schedulers]]\nname = "fcfs"\n')
    total = 40
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "ckptsim", "sweep", str(spec), "--out", str(out),
           "--jobs", "2"]
    proc = subprocess.Popen(cmd, cwd=ROOT, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        runs = out / "runs"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            done = [p for p in runs.iterdir() if not p.name.startswith(".")] \
                if runs.is_dir() else []
            if len(done) >= 6 or proc.poll() is not None:
                break
            time.sleep(0.005)
        assert proc.poll() is None, "the sweep ended before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        # The workers notice their parent is gone and exit.
        deadline = time.monotonic() + 10
        while _session_processes(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _session_processes(proc.pid) == []
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    rows, _ = load_results(out)  # raises if any file were damaged
    assert 6 <= len(rows) < total
    assert len({r["run_id"] for r in rows}) == len(rows)
    partial = comparable(rows)

    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"{len(rows)} already done" in done.stdout
    resumed = comparable(load_results(out)[0])
    assert len(resumed) == total
    assert all(r in resumed for r in partial)

    reference = tmp_path / "reference"
    sweep(spec, reference, SerialExecutor())
    assert resumed == comparable(load_results(reference)[0])
