"""How a Dask sweep cuts runs into batches and feeds its workers (`daskexec._Feeder`): every
run once, a batch on one trace, workers kept on their trace, sizes from the runs' CPU time,
small batches at the start and the end.  Pure logic: Dask is not needed."""

from __future__ import annotations

import pytest
from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from ckptsim.experiments import daskexec
from ckptsim.experiments.daskexec import _Feeder
from ckptsim.experiments.execute import Outcome, load_key
from ckptsim.experiments.matrix import Run


@pytest.fixture(autouse=True)
def constants(monkeypatch):
    """The values the hand-checked example below is worked out with."""
    monkeypatch.setattr(daskexec, "BATCH_SECONDS", 0.5)
    monkeypatch.setattr(daskexec, "MAX_BATCH", 8)
    monkeypatch.setattr(daskexec, "QUEUE_PER_THREAD", 2)


def make_runs(counts: dict[str, int]) -> list[Run]:
    """`counts[trace]` runs on each trace ("" for a generated workload), in that order."""
    runs = []
    for trace, n in counts.items():
        for i in range(n):
            kind, path = ("trace", f"/traces/{trace}.swf") if trace else ("lublin", None)
            runs.append(Run(run_id=f"{trace or 'gen'}-{i}", experiment="t", workload=trace,
                            kind=kind, path=path, source={}, transforms={"alpha": i},
                            scheduler="easy", scheduler_name="easy", params={}, seed=i,
                            overrun="kill"))
    return runs


def finish(runs: list[Run], cpu: float) -> list[Outcome]:
    return [Outcome({"run_id": r.run_id, "pid": 1}, cpu=cpu) for r in runs]


def names(batch: list[Run]) -> list[str]:
    return [r.run_id for r in batch]


def test_hand_checked_feeding_of_two_workers_on_two_traces():
    feeder = _Feeder(make_runs({"A": 12, "B": 12}))
    feeder.workers({"w1": 1, "w2": 1})
    # Nothing finished yet: single runs, two per worker, each worker on its own trace.
    first = feeder.batches()
    assert [(w, names(b)) for w, b in first] == [
        ("w1", ["A-0"]), ("w1", ["A-1"]), ("w2", ["B-0"]), ("w2", ["B-1"])]
    assert feeder.batches() == []  # every queue is full

    def step(worker: str, batch: list[Run], cpu: float) -> list[tuple[str | None, list[str]]]:
        feeder.done(worker, finish(batch, cpu))
        return [(w, names(b)) for w, b in feeder.batches()]

    # Mean CPU 0.1 s: 0.5 s / 0.1 s = 5 runs; 20 runs left / (2 batches x 2 threads) = 5.
    assert step("w1", first[0][1], 0.1) == [("w1", ["A-2", "A-3", "A-4", "A-5", "A-6"])]
    # Mean 0.1 s again, but 15 left: 15 // 4 = 3.
    assert step("w2", first[2][1], 0.1) == [("w2", ["B-2", "B-3", "B-4"])]
    # Mean (0.1 + 0.1 + 0.4) / 3 = 0.2 s: 2 runs (12 left: 3).
    assert step("w1", first[1][1], 0.4) == [("w1", ["A-7", "A-8"])]
    # Five runs of 0.2 s: mean 1.6 / 8 = 0.2 s, 2 runs (10 left: 2).
    a2_6 = make_runs({"A": 7})[2:]
    assert step("w1", a2_6, 0.2) == [("w1", ["A-9", "A-10"])]
    # A batch never mixes traces: A's last run alone, not with one of B's.
    assert step("w1", make_runs({"A": 9})[7:], 0.2) == [("w1", ["A-11"])]
    # A is all handed out: w1 joins w2 on B, the only trace left (7 left: 7 // 4 = 1).
    assert step("w1", make_runs({"A": 11})[9:], 0.2) == [("w1", ["B-5"])]


def test_without_workers_batches_wait_for_any_worker_then_go_to_the_ones_that_join():
    feeder = _Feeder(make_runs({"A": 4, "B": 4}))
    feeder.workers({})
    first = feeder.batches()
    assert [w for w, _ in first] == [None, None]  # two batches for the first worker to come
    feeder.workers({"w1": 1, "w2": 1})
    feeder.done(None, finish(first[0][1], 0.1))  # a batch sent before the workers joined
    later = feeder.batches()
    assert {w for w, _ in later} == {"w1", "w2"} and len(later) == 4
    assert None not in feeder.slots
    # A worker that leaves frees its trace for the others.
    key = feeder.slots["w2"].key
    feeder.workers({"w1": 1})
    assert "w2" not in feeder.slots and not feeder.dispatch.busy.get(key)


@st.composite
def sweeps(draw):
    traces = draw(st.lists(st.integers(1, 30), min_size=1, max_size=5))
    counts = {f"T{i}": n for i, n in enumerate(traces)}
    if draw(st.booleans()):
        counts[""] = draw(st.integers(1, 20))  # generated workloads: no trace
    workers = {f"w{i}": draw(st.integers(1, 3)) for i in range(draw(st.integers(1, 4)))}
    return counts, workers


@settings(max_examples=examples(150))
@given(sweep=sweeps(), data=st.data())
def test_property_every_run_once_batches_on_one_trace_workers_keep_their_trace(sweep, data):
    counts, workers = sweep
    runs = make_runs(counts)
    feeder = _Feeder(runs)
    feeder.workers(workers)
    handed: list[tuple[str | None, list[Run]]] = []
    pending: list[tuple[str | None, list[Run]]] = []
    last_handed: dict[object, int] = {}  # trace -> index of its last batch handed out
    switches: list[tuple[object, int]] = []  # (trace left, index of the batch that left it)
    key_of: dict[str | None, object] = {}
    while True:
        for addr, batch in feeder.batches():
            keys = {load_key(r) for r in batch}
            assert len(keys) == 1, "a batch mixes traces"
            assert 1 <= len(batch) <= daskexec.MAX_BATCH
            if feeder.finished == 0:
                assert len(batch) == 1, "batches before any run finished hold one run"
            key = keys.pop()
            if addr in key_of and key_of[addr] != key:
                switches.append((key_of[addr], len(handed)))
            key_of[addr] = key
            last_handed[key] = len(handed)
            handed.append((addr, batch))
            pending.append((addr, batch))
        queued: dict[str | None, int] = {}
        for addr, _ in pending:
            queued[addr] = queued.get(addr, 0) + 1
        for addr, n in queued.items():
            assert n <= daskexec.QUEUE_PER_THREAD * workers[str(addr)]
        if not pending:
            break
        i = data.draw(st.integers(0, len(pending) - 1), label="finishes next")
        addr, batch = pending.pop(i)
        feeder.done(addr, finish(batch, data.draw(st.sampled_from([0.01, 0.1, 0.3, 2.0]))))
    got = sorted(r.run_id for _, b in handed for r in b)
    assert got == sorted(r.run_id for r in runs), "a run lost or handed out twice"
    # A worker leaves a trace only once every run on it has been handed out.
    for key, at in switches:
        assert last_handed[key] < at
    # The last batches shrink so that workers finish together: a batch of several runs
    # leaves at least two batches of its size per worker thread.
    threads = sum(workers.values())
    left = len(runs)
    for _, batch in handed:
        assert len(batch) == 1 or len(batch) <= left // (daskexec.QUEUE_PER_THREAD * threads)
        left -= len(batch)
