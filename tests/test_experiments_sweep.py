"""Sweeps: executors agree, failures are recorded, the store resumes and detects damage."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
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
from ckptsim.experiments.storefmt import LOG_HEADER, log_record
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


def sweep(spec, out, executor, only=None, **kw):
    """Plan and run a sweep; with `only` (run ids), run just those of what is left (as if the
    sweep had been interrupted after them)."""
    plan = plan_sweep(spec, out, **kw)
    if only is not None:
        plan.todo = [r for r in plan.todo if r.run_id in only]
    return plan, run_sweep(plan, out, executor)


def test_serial_sweep_records_one_row_per_run(spec, tmp_path):
    out = tmp_path / "out"
    plan, result = sweep(spec, out, SerialExecutor())
    assert len(plan.runs) == 24 and (result.ok, result.failed, result.skipped) == (24, 0, 0)
    rows, manifest = load_results(out)
    assert [r["run_id"] for r in rows] == [r.run_id for r in plan.runs] == manifest["runs"]
    # The finished sweep's run log was compacted into one run table.
    assert [p.name for p in (out / "runs").iterdir()] == ["part-000002-0.parquet"]
    assert list((out / "log").iterdir()) == []
    assert pq.read_metadata(out / "runs" / "part-000002-0.parquet").num_rows == 24
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


def test_clear_cache_forgets_every_per_process_cache(tmp_path):
    """What a process keeps between runs and commands -- workloads, failure logs, the hashes
    of files, the pre-flight's memory -- is all forgotten by one call."""
    from helpers import LANL_HEADER, lanl_row

    from ckptsim import hashing
    from ckptsim.experiments import execute, preflight
    from ckptsim.experiments.matrix import build_matrix
    from ckptsim.experiments.spec import parse_spec
    from ckptsim.failures import source
    from ckptsim.failures.source import read_log

    (tmp_path / "fig3.swf").write_text(SWF)
    log = tmp_path / "lanl.csv"
    log.write_text("\n".join([LANL_HEADER, lanl_row(2, 0, "1/10/2004 10:00",
                                                     "1/10/2004 11:30", "90")]) + "\n")
    spec = parse_spec('[workloads.t]\ntrace = "fig3.swf"\n[workloads.t.components.failures]\n'
                      f'source = "lanl:path={log}"\n[[schedulers]]\nname = "easy"\n',
                      tmp_path / "s.toml")
    runs = build_matrix(spec)  # hashes the trace
    preflight.preflight(runs, "s.toml")  # reads the workload and the log, remembers both
    read_log(f"lanl:path={log}")
    assert execute._CACHE and source._READS and hashing._HASHES and preflight.memory.checked
    clear_cache()
    assert not execute._CACHE and not source._READS and not hashing._HASHES
    assert not preflight.memory.checked and not preflight.memory.read


def test_a_trace_edited_between_two_sweeps_of_one_process_is_read_again(tmp_path):
    """A notebook runs a sweep, edits the trace, runs it again: the second sweep simulates
    the file as it is now, not the copy the process kept of it."""
    from ckptsim.runner import simulate
    from ckptsim.workload.source import load_workload

    trace = tmp_path / "t.swf"
    trace.write_text(SWF)
    spec = tmp_path / "t.toml"
    spec.write_text('name = "t"\nmetrics = ["mean_wait"]\n[workloads.t]\ntrace = "t.swf"\n'
                    '[[schedulers]]\nname = "fcfs"\n')
    clear_cache()
    sweep(spec, tmp_path / "before", SerialExecutor())
    (before,) = load_results(tmp_path / "before")[0]
    assert before["jobs"] == 5
    edited = SWF.replace(" 8 -1 -1 8 20 ", " 8 -1 -1 8 90 ").replace(" 4 10 ", " 4 70 ")
    trace.write_text(edited + "6 3 -1 50 8 -1 -1 8 60 -1 1 1 1 -1 1 -1 -1 -1\n")
    sweep(spec, tmp_path / "after", SerialExecutor())
    (after,) = load_results(tmp_path / "after")[0]
    expected = simulate(load_workload(str(trace)), "fcfs", {}).summary
    assert after["jobs"] == expected["jobs"] == 6
    assert after["mean_wait"] == expected["mean_wait"] != before["mean_wait"]
    assert after["run_id"] != before["run_id"]  # the run id hashes the file's bytes


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
    reference = tmp_path / "reference"
    plan, _ = sweep(spec, reference, SerialExecutor())
    before = comparable(load_results(reference)[0])
    # A sweep that stopped before some runs ...
    out = tmp_path / "out"
    lost = {r.run_id for r in plan.runs[::5]}
    sweep(spec, out, SerialExecutor(), only={r.run_id for r in plan.runs} - lost)
    # ... and left a temporary file and a run log whose last record was cut short.
    (out / "runs" / ".tmp-part-000009-0.parquet.123.abcd").write_bytes(b"partial")
    record = log_record({"run_id": next(iter(lost)), "status": "ok", "workload": "model",
                         "scheduler": "fcfs", "seed": 1}, None)
    (out / "log" / "000007.log").write_bytes(LOG_HEADER + record[:-5])
    assert len(load_results(out)[0]) == 24 - len(lost)
    plan2, result = sweep(spec, out, PoolExecutor(2))
    assert plan2.done == 24 - len(lost) and plan2.corrupt == []
    assert {r.run_id for r in plan2.todo} == lost
    assert (result.ok, result.skipped) == (len(lost), 24 - len(lost))
    assert not [p for p in (out / "runs").iterdir() if p.name.startswith(".tmp-")]
    assert list((out / "log").iterdir()) == []
    assert comparable(load_results(out)[0]) == before
    # Every run is stored once, on disk too.
    ids = [rid for p in (out / "runs").iterdir()
           for rid in pq.read_table(p, columns=["run_id"]).column("run_id").to_pylist()]
    assert sorted(ids) == sorted(r.run_id for r in plan.runs)
    # Nothing left: a third sweep runs nothing.
    plan3 = plan_sweep(spec, out)
    assert plan3.todo == [] and plan3.done == 24


def _flip(path, offset, mask=0x01):
    data = bytearray(path.read_bytes())
    data[offset] ^= mask
    path.write_bytes(bytes(data))


def test_damaged_files_are_reported_not_read_and_recomputed(spec, tmp_path):
    reference = tmp_path / "reference"
    plan, _ = sweep(spec, reference, SerialExecutor())
    before = comparable(load_results(reference)[0])
    # A store of four run tables (four interrupted sweeps) and a run log.
    out = tmp_path / "out"
    chunks = [{r.run_id for r in plan.runs[i::5]} for i in range(5)]
    for chunk in chunks[:4]:
        sweep(spec, out, SerialExecutor(), only=chunk)
    parts = sorted((out / "runs").iterdir())
    assert len(parts) == 4
    rows = {r["run_id"]: r for r in load_results(reference)[0]}
    log = out / "log" / "000099.log"
    log.write_bytes(LOG_HEADER + b"".join(log_record(rows[rid], None)
                                          for rid in sorted(chunks[4])))
    assert len(load_results(out)[0]) == 24

    parts[0].write_bytes(parts[0].read_bytes()[:200])  # truncated
    _flip(parts[1], 40)  # inside the first data page: caught by the page checksums
    # A column renamed in the footer's schema (its first mention): mean_wait -> mean_waiu.
    data = parts[2].read_bytes()
    footer = len(data) - 8 - int.from_bytes(data[-8:-4], "little")
    _flip(parts[2], data.index(b"mean_wait", footer) + 8)
    _flip(log, len(LOG_HEADER) + 20)  # inside the first record
    with pytest.raises(StoreError) as info:
        load_results(out)
    assert "4 damaged" in str(info.value)
    for p in (parts[0], parts[1], parts[2], log):
        assert p.name in str(info.value)

    plan2 = plan_sweep(spec, out)
    assert sorted(Path(f).name for f, _ in plan2.corrupt) == sorted(
        p.name for p in (parts[0], parts[1], parts[2], log))
    # The log loses its damaged first record only: the records after it are intact.
    lost = chunks[0] | chunks[1] | chunks[2] | {sorted(chunks[4])[0]}
    assert {r.run_id for r in plan2.todo} == lost
    run_sweep(plan2, out, SerialExecutor())
    assert comparable(load_results(out)[0]) == before
    # The damaged files are kept aside, never read again.
    assert sorted(p.name for p in (out / "damaged").iterdir()) == sorted(
        p.name for p in (parts[0], parts[1], parts[2], log))
    assert plan_sweep(spec, out).todo == []


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


def test_the_pool_servers_imports_leave_pyarrow_out():
    # Every worker forks from the server once it has imported the preload module, so the
    # sweep's start waits for it; pyarrow (about 0.2 s) serves only the per-job records, which
    # a worker of a keep_jobs sweep imports at its first run (tested above).
    import ckptsim

    code = "import sys, ckptsim.experiments.preload; print(sorted(m for m in sys.modules " \
           "if m.split('.')[0] in ('pyarrow', 'pandas', 'matplotlib', 'distributed')))"
    env = {**os.environ, "PYTHONPATH": str(Path(ckptsim.__file__).parents[1])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=env)
    assert out.stdout.strip() == "[]"


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


def test_a_worker_that_dies_fails_its_runs_and_is_replaced(spec, tmp_path):
    import os
    import signal

    from ckptsim.experiments.pool import DIED

    reference = tmp_path / "reference"
    sweep(spec, reference, SerialExecutor())
    out = tmp_path / "out"
    plan = plan_sweep(spec, out)
    killed = []

    def on_row(row):
        if not killed and row["status"] == "ok":  # kill the worker that ran the first run
            killed.append(row["pid"])
            os.kill(row["pid"], signal.SIGKILL)

    result = run_sweep(plan, out, PoolExecutor(2), on_row=on_row)
    assert killed and result.ok + result.failed == 24
    assert 1 <= result.failed <= 2  # the runs queued on that worker
    assert all(r["error_message"] == DIED for r in result.failures)
    assert len(load_results(out)[0]) == 24
    # The next sweep runs them again; the store then equals an uninterrupted sweep.
    plan2, result2 = sweep(spec, out, PoolExecutor(2))
    assert plan2.retry == result.failed and result2.ok == result.failed
    assert comparable(load_results(out)[0]) == comparable(load_results(reference)[0])
