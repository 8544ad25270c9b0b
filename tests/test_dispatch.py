"""Which runs a worker gets next (`Dispatch`): the run expected to take longest, learned from
finished runs per group (trace, scheduler, parameters); among runs expected alike (nothing
learned yet) its own trace, else the largest trace no worker is on; every run once."""

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
        d.move(key.get(w), new)
        key[w] = new
        given_out += got
        for run in got:
            if data.draw(st.booleans()):
                d.done(run, data.draw(st.floats(0.0, 10.0)))
    assert sorted(r.run_id for r in given_out) == sorted(r.run_id for r in runs)
    assert d.left == 0


def test_unmeasured_groups_go_first_then_the_longest_expected():
    """Once a run of each group finished, the group whose next run is expected to take
    longest (seconds per job learned x its jobs) goes first, whatever the trace."""
    runs = make_runs({"A": 3, "B": 3})
    runs = [Run(**{**r.__dict__, "transforms": {"first": 1000}}) for r in runs]
    d = Dispatch(runs)
    a0 = d.next(None)
    d.move(None, load_key(a0))
    b0 = d.next(None)  # nothing learned: the trace no worker is on
    assert (a0.run_id, b0.run_id) == ("A-0", "B-0")
    d.done(a0, 1.0)
    assert trace_of(d.next(load_key(a0))) == "B"  # B not measured yet: it goes first
    d.done(b0, 4.0)  # B takes four times as long per job
    assert [trace_of(d.next(load_key(a0))) for _ in range(3)] == ["B", "A", "A"]
    assert not d


def test_a_longer_cut_of_a_cheaper_group_goes_before_a_short_cut():
    runs = make_runs({"A": 2, "B": 2})
    cuts = {"A-0": 100, "A-1": 10_000, "B-0": 100, "B-1": 1_000}
    runs = [Run(**{**r.__dict__, "transforms": {"first": cuts[r.run_id]}}) for r in runs]
    d = Dispatch(runs)
    first = [d.next(None), d.next(None)]  # each group's longest cut
    assert sorted(r.run_id for r in first) == ["A-1", "B-1"]
    d.done(first[0], 1.0)  # A: 1e-4 s a job -> A-0 expected 0.01 s
    d.done(first[1], 1.0)  # B: 1e-3 s a job -> B-0 expected 0.1 s
    assert [d.next(None).run_id for _ in range(2)] == ["B-0", "A-0"]


def test_schedulers_on_one_trace_are_groups_of_their_own():
    runs = make_runs({"A": 2})
    slow = [Run(**{**r.__dict__, "run_id": f"A-s{i}", "scheduler_name": "conservative"})
            for i, r in enumerate(runs)]
    d = Dispatch(runs + slow)
    x = d.next(None)
    assert x.scheduler_name == "easy"
    d.done(x, 0.1)  # easy measured, conservative not: conservative goes first
    y = d.next(None)
    assert y.scheduler_name == "conservative"
    d.done(y, 5.0)  # and stays first: 5 s expected against 0.1 s
    assert d.next(None).scheduler_name == "conservative"
    assert d.next(None).scheduler_name == "easy"


def test_a_run_that_did_not_run_teaches_nothing():
    runs = make_runs({"A": 2, "B": 2})
    d = Dispatch(runs)
    a = d.next(None)
    d.done(a, None)
    d.done(a, float("nan"))
    assert not d.learned


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


class _Plan:
    """An option value JSON does not know (as a checkpoint policy's plan is)."""

    def __init__(self, every: int) -> None:
        self.every = every

    def __repr__(self) -> str:
        return f"_Plan({self.every})"


def test_parameters_json_does_not_know_group_by_their_repr():
    runs = make_runs({"A": 4})
    runs = [Run(**{**r.__dict__, "params": {"plan": _Plan(i % 2), "bad": {1: {2}}}})
            for i, r in enumerate(runs)]
    d = Dispatch(runs)
    assert len(d.groups) == 2
    assert sorted(d.next(None).run_id for _ in range(4)) == ["A-0", "A-1", "A-2", "A-3"]
