"""The parsed-trace cache of sweeps: the same workload as parsing, served from disk the second
time, rebuilt when damaged, never stale, safe when processes fill it at once, and sweeps give
the same rows with and without it."""

from __future__ import annotations

import dataclasses
import multiprocessing
from pathlib import Path

import numpy as np
import pytest

from ckptsim.workload import cache
from ckptsim.workload.cache import read_swf_cached
from ckptsim.workload.swf import read_swf

HEADER = "; MaxProcs: 16\n; Note: a hand-written trace\n"


def swf(path: Path, n: int = 40, seed: int = 1) -> Path:
    rng = np.random.default_rng(seed)
    lines = [HEADER]
    t = 0
    for k in range(1, n + 1):
        t += int(rng.integers(0, 600))
        run = int(rng.integers(1, 3600))
        size = int(rng.integers(1, 17))
        lines.append(f"{k} {t} -1 {run} {size} -1 -1 {size} {run * 2} -1 1 1 1 -1 1 -1 -1 -1\n")
    path.write_text("".join(lines))
    return path


def same(a, b) -> None:
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and np.array_equal(x, y), f.name
        else:
            assert x == y and type(x) is type(y), f.name


@pytest.fixture
def folder(tmp_path, monkeypatch) -> Path:
    where = tmp_path / "cache"
    monkeypatch.setenv("CKPTSIM_TRACE_CACHE", str(where))
    return where


def test_cached_equals_parsed_and_is_served_from_disk(tmp_path, folder, monkeypatch):
    trace = swf(tmp_path / "t.swf")
    first = read_swf_cached(str(trace), machine_size=None, oversize="clamp")
    same(first, read_swf(str(trace), machine_size=None, oversize="clamp"))
    assert len(list(folder.glob("*.npz"))) == 1

    def parse(*args, **kwargs):
        raise AssertionError("parsed again")

    monkeypatch.setattr("ckptsim.workload.swf.read_swf", parse)
    same(read_swf_cached(str(trace), machine_size=None, oversize="clamp"), first)


@pytest.mark.skipif(not Path("../shared/data/traces/SDSC-SP2-1998-4.2-cln.swf.gz").exists(),
                    reason="needs ../shared/data/traces (the real SDSC-SP2 trace)")
def test_a_real_trace_round_trips(folder):
    path = "../shared/data/traces/SDSC-SP2-1998-4.2-cln.swf.gz"
    read_swf_cached(path)
    same(read_swf_cached(path), read_swf(path))


def test_other_options_or_a_changed_file_get_their_own_entry(tmp_path, folder):
    trace = swf(tmp_path / "t.swf")
    a = read_swf_cached(str(trace))
    b = read_swf_cached(str(trace), size_from="allocated")
    assert len(list(folder.glob("*.npz"))) == 2
    same(a, read_swf(str(trace)))
    same(b, read_swf(str(trace), size_from="allocated"))
    swf(trace, n=30, seed=2)  # the trace changes under the same name
    changed = read_swf_cached(str(trace))
    assert changed.n_jobs == 30
    same(changed, read_swf(str(trace)))


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty", "format"])
def test_a_damaged_entry_is_parsed_again_and_replaced(tmp_path, folder, damage):
    trace = swf(tmp_path / "t.swf")
    read_swf_cached(str(trace))
    (entry,) = folder.glob("*.npz")
    data = entry.read_bytes()
    if damage == "truncate":
        entry.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        entry.write_bytes(data[:200] + bytes(reversed(data[200:400])) + data[400:])
    elif damage == "empty":
        entry.write_bytes(b"")
    else:
        w = read_swf(str(trace))
        np.savez(entry, meta=np.frombuffer(b'{"format": 0}', dtype=np.uint8),
                 **{k: getattr(w, k) for k in cache._ARRAYS})
    same(read_swf_cached(str(trace)), read_swf(str(trace)))
    same(cache._load(entry), read_swf(str(trace)))  # rewritten whole


def _fill(args: tuple[str, str]) -> int:
    import os

    path, where = args
    os.environ["CKPTSIM_TRACE_CACHE"] = where
    return read_swf_cached(path).n_jobs


def test_processes_filling_one_entry_at_once_do_not_clash(tmp_path, folder):
    trace = swf(tmp_path / "t.swf", n=3000)
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        counts = pool.map(_fill, [(str(trace), str(folder))] * 8)
    assert counts == [3000] * 8
    assert [p.name for p in folder.iterdir() if p.name.startswith(".tmp-")] == []
    (entry,) = folder.glob("*.npz")
    same(cache._load(entry), read_swf(str(trace)))


def test_off_and_unwritable(tmp_path, monkeypatch):
    trace = swf(tmp_path / "t.swf")
    monkeypatch.setenv("CKPTSIM_TRACE_CACHE", "off")
    assert cache.cache_dir() is None
    same(read_swf_cached(str(trace)), read_swf(str(trace)))
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("CKPTSIM_TRACE_CACHE", str(blocked / "cache"))
    same(read_swf_cached(str(trace)), read_swf(str(trace)))  # cannot write: parsed, no error
    monkeypatch.delenv("CKPTSIM_TRACE_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_dir() == tmp_path / "xdg" / "ckptsim" / "traces"


def test_a_sweep_gives_the_same_rows_with_and_without_the_cache(tmp_path, monkeypatch):
    from ckptsim.experiments.execute import SerialExecutor, clear_cache
    from ckptsim.experiments.store import load_results
    from ckptsim.experiments.sweep import plan_sweep, run_sweep

    swf(tmp_path / "t.swf", n=200)
    spec = tmp_path / "s.toml"
    spec.write_text('name = "s"\nmetrics = ["mean_wait", "mean_bsld"]\n\n'
                    '[workloads.t]\ntrace = "t.swf"\nfirst = [100, 200]\n\n'
                    '[[schedulers]]\nname = "easy"\n\n[[schedulers]]\nname = "fcfs"\n')
    rows = {}
    for mode in ("off", "cold", "warm"):
        monkeypatch.setenv("CKPTSIM_TRACE_CACHE", "off" if mode == "off"
                           else str(tmp_path / "cache"))
        clear_cache()  # the in-process copies too
        store = tmp_path / f"store-{mode}"
        run_sweep(plan_sweep(spec, store, trace_dir=tmp_path), store, SerialExecutor())
        got, _ = load_results(store)
        rows[mode] = [{k: v for k, v in r.items()
                       if k not in ("run_seconds", "sim_seconds", "finished_at", "host")}
                      for r in got]
    assert len(rows["off"]) == 4
    assert rows["off"] == rows["cold"] == rows["warm"]
    assert len(list((tmp_path / "cache").glob("*.npz"))) == 1
