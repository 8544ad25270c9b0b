"""What a sweep refuses before it starts, and how it stops when the disk fills: a matrix too
large to expand (counted, not built), a store another sweep is writing (refused before any
planning or printing), a full disk while the run log is written (one line naming the file
and the store, no traceback, the runs recorded before kept)."""

from __future__ import annotations

import builtins
import errno
import os
import time

import pytest

from ckptsim.cli import main
from ckptsim.experiments import matrix
from ckptsim.experiments.spec import load_spec
from ckptsim.experiments.store import Store, load_results
from ckptsim.experiments.writer import StoreWriter

SMALL = """
name = "small"
seeds = [1, 2, 3]
[workloads.model]
generator = "lublin"
n = [40, 60]
machine = 32
[[schedulers]]
name = "fcfs"
[[schedulers]]
name = "easy"
"""


def huge(tmp_path):
    """A parameter of 2,000 values x 500 replications: a million runs."""
    values = ", ".join(str(100 + i) for i in range(2000))
    path = tmp_path / "huge.toml"
    path.write_text(f'name = "huge"\nreplications = 500\n[workloads.model]\n'
                    f'generator = "lublin"\nn = [{values}]\nmachine = 64\n'
                    '[[schedulers]]\nname = "fcfs"\n')
    return path


@pytest.fixture
def small(tmp_path):
    path = tmp_path / "small.toml"
    path.write_text(SMALL)
    return path


# ----------------------------------------------------------------------------- matrix size
def test_a_million_runs_are_counted_and_refused_at_once(tmp_path, capsys):
    spec = huge(tmp_path)
    t0 = time.perf_counter()
    assert main(["sweep", str(spec), "--out", str(tmp_path / "out")]) == 2
    refused = time.perf_counter() - t0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("ckptsim: error: ")
    assert "1,000,000 runs" in err and "limit of 100,000" in err
    assert "--max-runs 1000000" in err
    assert not (tmp_path / "out").exists()
    t0 = time.perf_counter()
    assert main(["sweep", str(spec), "--dry-run"]) == 2
    dry = time.perf_counter() - t0
    captured = capsys.readouterr()
    assert captured.out.startswith("1000000 runs (1 workload(s), 1 scheduler entry, "
                                   "500 seed(s))")
    assert "--max-runs 1000000" in captured.err
    assert refused < 10 and dry < 10  # about 0.5 s each here; building it took minutes


def test_the_count_is_the_size_of_the_matrix(small, tmp_path):
    spec = load_spec(small)
    assert matrix.matrix_size(spec) == len(matrix.build_matrix(spec)) == 12
    zipped = tmp_path / "zip.toml"
    zipped.write_text(SMALL.replace("n = [40, 60]", "n = [40, 60, 80]\nfirst = [10, 20, 30]\n"
                                    "alpha = [0.0, 1.0]\nzip = [['n', 'first']]"))
    spec = load_spec(zipped)
    assert matrix.matrix_size(spec) == len(matrix.build_matrix(spec)) == 36


def test_max_runs_lifts_the_limit(small, tmp_path, capsys):
    assert main(["sweep", str(small), "--dry-run", "--max-runs", "11"]) == 2
    captured = capsys.readouterr()
    assert "12 runs" in captured.out and "limit of 11 runs" in captured.err
    assert main(["sweep", str(small), "--dry-run", "--max-runs", "12"]) == 0
    assert "Run matrix of small" in capsys.readouterr().out
    out = tmp_path / "out"
    assert main(["sweep", str(small), "--out", str(out), "--jobs", "0",
                 "--max-runs", "11"]) == 2
    assert not out.exists()
    assert main(["sweep", str(small), "--out", str(out), "--jobs", "0",
                 "--max-runs", "12"]) == 0
    assert "12 succeeded" in capsys.readouterr().out
    assert main(["sweep", str(small), "--dry-run", "--max-runs", "0"]) == 2
    assert "--max-runs" in capsys.readouterr().err


def test_the_default_limit_applies_to_every_expansion(small, monkeypatch):
    from ckptsim.experiments.sweep import plan_sweep

    with pytest.raises(matrix.MatrixTooLarge, match="limit of 5 runs"):
        plan_sweep(small, max_runs=5)
    assert len(plan_sweep(small, max_runs=None).runs) == 12


# ----------------------------------------------------------------------------- the lock
def test_a_second_sweep_is_refused_before_it_plans_or_prints(small, tmp_path, capsys,
                                                             monkeypatch):
    out = tmp_path / "out"
    assert main(["sweep", str(small), "--out", str(out), "--jobs", "0"]) == 0
    capsys.readouterr()
    planned = []
    from ckptsim.experiments import sweep

    real = sweep.plan_sweep
    monkeypatch.setattr(sweep, "plan_sweep", lambda *a, **k: planned.append(1) or real(*a, **k))
    with Store(out).lock():
        assert main(["sweep", str(small), "--out", str(out), "--jobs", "0"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and planned == []
    assert captured.err.count("\n") == 1 and "another sweep is writing" in captured.err
    # Released: the same command goes on (and finds everything done).
    assert main(["sweep", str(small), "--out", str(out), "--jobs", "0"]) == 0
    assert "12 already done" in capsys.readouterr().out


# ----------------------------------------------------------------------------- a full disk
def full_after(monkeypatch, records: int) -> None:
    """The run log's writes fail with ENOSPC after the header and `records` records."""
    real = StoreWriter._write
    count = [0]

    def write(self, data):
        count[0] += 1
        if count[0] > records + 1:
            # A write cut short, as a full disk leaves it, then the error.
            real(self, data[: len(data) // 2])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(self, data)

    monkeypatch.setattr(StoreWriter, "_write", write)


@pytest.mark.parametrize("jobs", ["0", "2"])
def test_a_full_disk_names_the_file_and_keeps_the_recorded_runs(small, tmp_path, capfd,
                                                                monkeypatch, jobs):
    out = tmp_path / "out"
    full_after(monkeypatch, 3)
    assert main(["sweep", str(small), "--out", str(out), "--jobs", jobs]) == 2
    time.sleep(0.3)  # a worker's traceback would come after the sweep's message
    err = capfd.readouterr().err
    assert "Traceback" not in err and "BrokenPipeError" not in err
    (line,) = [x for x in err.splitlines() if x.startswith("ckptsim: error: ")]
    assert str(out / "log" / "000001.log") in line and "No space left on device" in line
    assert f"results store {out}" in line and "the 3 run(s)" in line
    monkeypatch.undo()
    rows, _ = load_results(out)
    assert len(rows) == 3 and all(r["status"] == "ok" for r in rows)
    # Room again: the same command runs the rest.
    assert main(["sweep", str(small), "--out", str(out), "--jobs", "0"]) == 0
    assert "9 succeeded, 0 failed, 3 already done" in capfd.readouterr().out


def test_a_full_disk_before_the_runs_names_the_store(small, tmp_path, capsys, monkeypatch):
    out = tmp_path / "out"
    assert main(["sweep", str(small), "--out", str(out), "--jobs", "0"]) == 0
    capsys.readouterr()

    def full(self, spec_text, manifest):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(Store, "prepare", full)
    assert main(["sweep", str(small), "--out", str(out), "--jobs", "0"]) == 2
    *_, last = capsys.readouterr().err.splitlines()
    assert last.startswith("ckptsim: error: ") and "No space left on device" in last
    assert f"results store {out}" in last
    monkeypatch.undo()
    assert len(load_results(out)[0]) == 12


def test_a_worker_whose_sweep_is_gone_ends_quietly(tmp_path, capfd):
    """A pool worker that finds its pipe to the sweep broken (the sweep stopped on an error,
    or was killed) ends without a traceback on the terminal."""
    import multiprocessing

    from ckptsim.experiments.pool import worker_main

    ctx = multiprocessing.get_context("spawn")  # inherits the captured stderr, no other fd
    ours, theirs = ctx.Pipe()
    life_r, life_w = ctx.Pipe(duplex=False)
    ours.close()  # the sweep's end is gone before the worker says it is ready
    p = ctx.Process(target=worker_main, args=(theirs, life_r, str(tmp_path)))
    p.start()
    theirs.close()
    p.join(60)
    life_w.close()
    assert p.exitcode == 1
    err = capfd.readouterr().err
    assert "Traceback" not in err and "BrokenPipeError" not in err


def test_a_full_disk_while_writing_a_run_table_keeps_the_run_log(small, tmp_path, capsys,
                                                                 monkeypatch):
    """The run log is compacted into a run table (Parquet) when a sweep ends: when that
    fails, the log stays and holds the runs; the next sweep compacts it first, and names
    the file it cannot write."""
    from ckptsim.experiments import storesums

    out = tmp_path / "out"

    class Full:
        """A file on a full disk: the first bytes of a write get there, then ENOSPC."""

        def __init__(self, f):
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

        def write(self, data):
            self.f.write(data[:10])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def full_open(path, mode="r", *args, **kwargs):
        f = builtins.open(path, mode, *args, **kwargs)
        return Full(f) if "w" in mode else f

    monkeypatch.setattr(storesums, "open", full_open, raising=False)
    assert main(["sweep", str(small), "--out", str(out), "--jobs", "0"]) == 0
    assert "12 succeeded" in capsys.readouterr().out
    assert [p.name for p in (out / "log").iterdir()] == ["000001.log"]
    assert len(load_results(out)[0]) == 12  # read from the run log
    assert main(["sweep", str(small), "--out", str(out), "--jobs", "0"]) == 2
    *_, last = capsys.readouterr().err.splitlines()
    assert last.startswith("ckptsim: error: ") and "No space left on device" in last
    assert "part-000002-0.parquet" in last and f"results store {out}" in last
    monkeypatch.undo()
    assert main(["sweep", str(small), "--out", str(out), "--jobs", "0"]) == 0
    assert "12 already done" in capsys.readouterr().out
    assert not any((out / "log").iterdir()) and len(load_results(out)[0]) == 12


def test_a_large_matrix_is_listed_as_plain_columns(small, capsys, monkeypatch):
    from ckptsim.cli import campaign

    assert main(["sweep", str(small), "--dry-run"]) == 0
    table = capsys.readouterr().out
    monkeypatch.setattr(campaign, "PLAIN_ABOVE", 11)
    assert main(["sweep", str(small), "--dry-run"]) == 0
    plain = capsys.readouterr().out.splitlines()
    assert plain[0] == "Run matrix of small" and plain[1].split() == [
        "#", "run", "n", "scheduler", "shadow_ties", "seed"]
    assert len(plain) == 3 + 12 + 1 and plain[-1] == table.splitlines()[-1]
    ids = [line.split()[1] for line in plain[3:15]]
    assert all(i in table for i in ids)


def test_absurd_replications_are_refused_before_the_seeds_are_built(tmp_path, capsys):
    spec = tmp_path / "s.toml"
    spec.write_text('name = "r"\nreplications = 1000000000\n[workloads.model]\n'
                    'generator = "lublin"\nn = 10\n[[schedulers]]\nname = "easy"\n')
    assert main(["sweep", str(spec), "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert "replications (line 2): 1000000000 is more than the limit" in err


def test_a_seed_listed_twice_in_a_long_list(tmp_path):
    seeds = list(range(200_000)) + [5]
    spec = tmp_path / "s.toml"
    spec.write_text(f'name = "r"\nseeds = {seeds}\n[workloads.model]\n'
                    'generator = "lublin"\nn = 10\n[[schedulers]]\nname = "easy"\n')
    from ckptsim.errors import CkptsimError

    with pytest.raises(CkptsimError, match=r"seeds\[200000\].*seed 5 is listed twice"):
        load_spec(spec)
