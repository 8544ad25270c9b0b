"""`ckptsim sweep --dask ADDRESS` against a separately started Dask scheduler and worker, and
against an address where no scheduler answers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ckptsim.cli import main
from ckptsim.experiments.columns import TIMING_COLUMNS
from ckptsim.experiments.execute import SerialExecutor
from ckptsim.experiments.store import load_results
from ckptsim.experiments.sweep import plan_sweep, run_sweep

ROOT = Path(__file__).resolve().parents[1]

SWF = """; MaxProcs: 8
1 0 -1 10 4 -1 -1 4 10 -1 1 1 1 -1 1 -1 -1 -1
2 0 -1 30 4 -1 -1 4 30 -1 1 1 1 -1 1 -1 -1 -1
3 1 -1 20 8 -1 -1 8 20 -1 1 2 1 -1 1 -1 -1 -1
4 2 -1 15 2 -1 -1 2 40 -1 1 3 1 -1 1 -1 -1 -1
"""

SPEC = """name = "dask"
seeds = [1, 2]
keep_jobs = true
[workloads.model]
generator = "lublin"
n = [120, 200]
machine = 64
[workloads.trace]
trace = "small.swf"
alpha = [0.0, 1.0]
[[schedulers]]
name = "easy"
[[schedulers]]
name = "fcfs"
"""


def comparable(rows):
    return sorted(({k: v for k, v in r.items() if k not in TIMING_COLUMNS} for r in rows),
                  key=lambda r: r["run_id"])


@pytest.mark.slow  # 10 s: a scheduler and a worker started as separate processes
def test_sweep_on_a_separately_started_scheduler_and_worker(tmp_path, capsys):
    distributed = pytest.importorskip("distributed", reason="Dask's distributed is not "
                                                            "installed (pip install "
                                                            "'ckptsim[dask]')")
    spec = tmp_path / "dask.toml"
    spec.write_text(SPEC)
    # The worker reads the trace itself, at the path the sweep resolved (it sees the same
    # files); it never sees the results folder.
    (tmp_path / "small.swf").write_text(SWF)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    info = tmp_path / "scheduler.json"
    procs = []
    try:
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
             "--port", "0", "--no-dashboard", "--scheduler-file", str(info)],
            env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        deadline = time.monotonic() + 120
        while not info.is_file() and time.monotonic() < deadline:
            assert procs[0].poll() is None, "dask scheduler exited"
            time.sleep(0.1)
        address = json.loads(info.read_text())["address"]
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nworkers", "1",
             "--nthreads", "1", "--no-dashboard"],
            env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        with distributed.Client(address, timeout=60) as client:
            client.wait_for_workers(1, timeout=120)
        out = tmp_path / "out"
        assert main(["sweep", str(spec), "--out", str(out), "--dask", address]) == 0
        captured = capsys.readouterr()
        assert f"the Dask scheduler at {address}" in captured.err
        assert "16 succeeded, 0 failed" in captured.out
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
    reference = tmp_path / "reference"
    run_sweep(plan_sweep(spec, reference), reference, SerialExecutor())
    rows = load_results(out)[0]
    assert comparable(rows) == comparable(load_results(reference)[0])
    # The rows were computed by the worker process, not here.
    assert {r["pid"] for r in rows} != {os.getpid()}
    # Per-job records come back from the worker and are written here, intact.
    for r in rows:
        assert (out / "jobs" / f"{r['run_id']}.parquet").read_bytes() == (
            reference / "jobs" / f"{r['run_id']}.parquet").read_bytes()


def test_an_unreachable_scheduler_fails_fast_with_one_line(tmp_path, capsys):
    pytest.importorskip("distributed", reason="Dask's distributed is not installed")
    spec = tmp_path / "dask.toml"
    spec.write_text(SPEC)
    (tmp_path / "small.swf").write_text(SWF)
    t0 = time.monotonic()
    code = main(["sweep", str(spec), "--out", str(tmp_path / "out"), "--dask",
                 "tcp://127.0.0.1:1", "--dask-timeout", "1"])
    elapsed = time.monotonic() - t0
    err = capsys.readouterr().err
    assert code == 2
    lines = [line for line in err.splitlines() if line.startswith("ckptsim")]
    assert len(lines) == 1, err
    assert "tcp://127.0.0.1:1" in lines[0] and "within 1 s" in lines[0]
    assert "Traceback" not in err
    assert elapsed < 60  # the timeout is 1 s; generous for a loaded machine
    assert main(["sweep", str(spec), "--out", str(tmp_path / "o"), "--dask", "local",
                 "--dask-timeout", "0"]) == 2
    assert "--dask-timeout" in capsys.readouterr().err


def test_a_sweep_that_cannot_reach_its_scheduler_creates_no_new_store(tmp_path, capsys):
    """Neither the new --out folder (nor the folders above it) nor its .lock is left behind."""
    pytest.importorskip("distributed", reason="Dask's distributed is not installed")
    spec = tmp_path / "a.toml"
    spec.write_text('name = "a"\n[workloads.l]\ngenerator = "lublin"\nn = 40\n'
                    '[[schedulers]]\nname = "easy"\n')
    assert main(["sweep", str(spec), "--out", str(tmp_path / "new" / "out"), "--dask",
                 "tcp://127.0.0.1:1", "--dask-timeout", "1"]) == 2
    assert "no Dask scheduler answered within 1 s" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.toml"]


def test_a_sweep_that_cannot_reach_its_scheduler_leaves_the_store_as_it_was(tmp_path, capsys):
    """The spec and matrix of the store's latest sweep are kept: `results` still shows its
    runs, not the unreached sweep's runs as missing."""
    pytest.importorskip("distributed", reason="Dask's distributed is not installed")
    first, other, out = tmp_path / "a.toml", tmp_path / "b.toml", tmp_path / "out"
    first.write_text('name = "a"\n[workloads.l]\ngenerator = "lublin"\nn = 40\n'
                     '[[schedulers]]\nname = "easy"\n')
    other.write_text('name = "b"\n[workloads.l]\ngenerator = "lublin"\nn = 50\n'
                     '[[schedulers]]\nname = "fcfs"\n')
    assert main(["sweep", str(first), "--out", str(out), "--jobs", "0"]) == 0
    before = {name: (out / name).read_bytes() for name in ("spec.toml", "sweep.json")}
    files = sorted(p.relative_to(out) for p in out.rglob("*"))
    assert main(["sweep", str(other), "--out", str(out), "--dask", "tcp://127.0.0.1:1",
                 "--dask-timeout", "1"]) == 2
    assert "no Dask scheduler answered within 1 s" in capsys.readouterr().err
    assert {name: (out / name).read_bytes() for name in before} == before
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == files
    rows, manifest = load_results(out)
    assert manifest["experiment"] == "a" and [r["status"] for r in rows] == ["ok"]
