"""Which runs a worker gets next (`Dispatch`): its own trace while runs on it are left, else
the largest trace no worker is on, else the trace with the most runs left; every run once."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ckptsim.experiments.dispatch import Dispatch
from ckptsim.experiments.execute import load_key
from ckptsim.experiments.matrix import Run


def make_runs(counts: dict[str, int], folder=None) -> list[Run]:
    runs = []
    for trace, n in counts.items():
        path = f"/traces/{trace}.swf" if folder is None else str(folder / f"{trace}.swf")
        for i in range(n):
            runs.append(Run(run_id=f"{trace}-{i}", experiment="t", workload=trace,
                            kind="trace", path=path, source={}, transforms={"alpha": i},
                            scheduler="easy", scheduler_name="easy", params={}, seed=i,
                            overrun="kill"))
    return runs


def trace_of(run: Run) -> str:
    return run.run_id.split("-")[0]


def test_idle_traces_go_largest_first_and_the_last_one_is_shared(tmp_path):
    sizes = {"small": 10, "big": 300, "mid": 200, "tiny": 1}
    for name, size in sizes.items():
        (tmp_path / f"{name}.swf").write_bytes(b";" * size)
    d = Dispatch(make_runs({"small": 2, "big": 2, "mid": 2, "tiny": 3}, tmp_path))
    key = {}  # worker -> trace key it is on

    def take(worker: str) -> str:
        run = d.next(key.get(worker))
        new = load_key(run)
        d.move(key.get(worker), new)
        key[worker] = new
        return run.run_id

    # Two workers: the two largest traces first, one each.
    assert [take("w1"), take("w2")] == ["big-0", "mid-0"]
    # Each keeps its own trace while runs on it are left.
    assert [take("w1"), take("w2")] == ["big-1", "mid-1"]
    # Then the largest trace nobody is on: small (10 bytes) before tiny (1 byte).
    assert take("w1") == "small-0"
    assert take("w2") == "tiny-0"
    assert take("w1") == "small-1"
    # Nothing idle is left: w1 joins the trace with the most runs left (tiny, 2).
    assert take("w1") == "tiny-1"
    assert take("w2") == "tiny-2"
    assert not d and d.left == 0


def test_missing_files_keep_the_runs_order():
    d = Dispatch(make_runs({"A": 1, "B": 1, "C": 1}))
    first = [d.next(None).run_id for _ in range(3)]
    assert first == ["A-0", "B-0", "C-0"]


@given(counts=st.dictionaries(st.sampled_from("ABCDE"), st.integers(1, 6), min_size=1),
       workers=st.integers(1, 4), batch=st.integers(1, 4), data=st.data())
def test_every_run_once_and_each_take_on_one_trace(counts, workers, batch, data):
    runs = make_runs(counts)
    d = Dispatch(runs)
    key: dict[int, object] = {}
    given_out = []
    while d:
        w = data.draw(st.integers(0, workers - 1))
        got = d.take(key.get(w), batch)
        assert 1 <= len(got) <= batch
        assert len({trace_of(r) for r in got}) == 1
        new = load_key(got[0])
        if key.get(w) is not None and key[w] != new:
            # Left its trace only when no run on it was left.
            assert all(load_key(r) != key[w] for r in runs if r not in given_out + got)
        d.move(key.get(w), new)
        key[w] = new
        given_out += got
    assert sorted(r.run_id for r in given_out) == sorted(r.run_id for r in runs)
    assert d.left == 0


def test_each_trace_gives_its_longest_runs_first():
    """Runs cut to their first N jobs go out longest first (ties and uncut runs in order),
    so that a sweep ends on its shortest runs."""
    runs = make_runs({"A": 5})
    cuts = [1000, None, 4000, 1000, 200]
    runs = [Run(**{**r.__dict__, "transforms": {} if c is None else {"first": c}})
            for r, c in zip(runs, cuts, strict=True)]
    d = Dispatch(runs)
    order = [d.next(None).run_id for _ in range(5)]
    assert order == ["A-1", "A-2", "A-0", "A-3", "A-4"]
