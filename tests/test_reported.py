"""What plug-ins report at the end of a run (counters, per-job columns, options): numpy
values become plain numbers, and what cannot be written is refused naming the plug-in,
before any file is written and without stopping a sweep."""

from __future__ import annotations

import json

import numpy as np
import pytest

import ckptsim
from ckptsim import Component
from ckptsim.cli import main
from ckptsim.errors import ConfigError
from ckptsim.experiments.store import load_results

W = "lublin:n=120,seed=2,machine=32"


def reporting(counters=None, columns=None, options=None):
    counted, made, opts = counters, columns, options

    class Reporting(Component):
        name = "reporting"
        counter_names = tuple(counted or ())

        def counters(self):
            return counted if counted is not None else {}

        def job_columns(self):
            return made(len(self.sim.jobs)) if made else {}

        def options(self):
            return opts if opts is not None else {}

    return Reporting


NP_COUNTS = """
import numpy as np
from ckptsim import Component


class NpCounts(Component):
    name = "np-counts"
    counter_names = ("n_int", "n_float")

    def counters(self):
        return {"n_int": np.int64(3), "n_float": np.float32(0.25)}

    def options(self):
        return {"width": np.int32(4)}

    def job_columns(self):
        return {"twice": np.arange(len(self.sim.jobs)) * 2}
"""


def run(cls):
    return ckptsim.simulate(ckptsim.workload(W), "easy", components=[cls])


def test_numpy_counters_and_options_become_plain_numbers(tmp_path):
    cls = reporting(counters={"n_int": np.int64(3), "n_float": np.float32(1.5),
                              "n_bool": np.bool_(True), "plain": 7},
                    options={"width": np.int32(4), "where": [np.float64(0.5), "a"],
                             "nested": {"k": (np.int16(2), None)}})
    result = run(cls)
    s = result.summary
    assert (s["n_int"], s["n_float"], s["n_bool"], s["plain"]) == (3, 1.5, True, 7)
    assert [type(s[k]) for k in ("n_int", "n_float", "n_bool")] == [int, float, bool]
    assert result.options["reporting"] == {"width": 4, "where": [0.5, "a"],
                                           "nested": {"k": (2, None)}}
    (tmp_path / "np_counts.py").write_text(NP_COUNTS)
    out = tmp_path / "out"
    assert main(["run", "--workload", W, "--component", f"{tmp_path}/np_counts.py:NpCounts",
                 "--out", str(out)]) == 0
    written = json.loads((out / "summary.json").read_text())
    assert (written["metrics"]["n_int"], written["metrics"]["n_float"]) == (3, 0.25)
    assert written["options"]["np-counts"] == {"width": 4}
    header = (out / "jobs.csv").read_text().splitlines()[0]
    assert header.endswith(",twice")


@pytest.mark.parametrize("counters, message", [
    (["not", "a", "dict"], "reporting.counters: returned ['not', 'a', 'dict']; expected a "
                           "dict of counter names to numbers"),
    ({"many": "lots"}, "reporting.counters: counter 'many' is 'lots' (str); a counter is a "
                       "number (int or float)"),
    ({"arr": np.arange(3)}, "reporting.counters: counter 'arr' is array([0, 1, 2]) "
                            "(ndarray); a counter is a number (int or float)"),
    ({"none": None}, "reporting.counters: counter 'none' is None (NoneType)"),
    ({3: 1}, "reporting.counters: a counter's name is 3; expected a string"),
])
def test_counters_that_are_not_numbers_name_the_component(counters, message):
    with pytest.raises(ConfigError) as info:
        run(reporting(counters=counters))
    assert str(info.value).startswith(message)


def test_options_summary_json_cannot_write_name_their_path():
    with pytest.raises(ConfigError) as info:
        run(reporting(options={"ok": 1, "deep": {"list": [1, object()]}}))
    assert str(info.value).startswith("reporting.options.deep.list[1]: <object object at")
    assert "cannot be written to summary.json" in str(info.value)
    with pytest.raises(ConfigError, match=r"reporting.options: key 5 is not a string"):
        run(reporting(options={5: "five"}))


@pytest.mark.parametrize("columns, message", [
    (lambda n: {"short": np.zeros(n - 1)}, "column 'short' has shape (119,); expected one "
                                           "value per job (120,)"),
    (lambda n: {"flat": np.zeros((n, 2))}, "column 'flat' has shape (120, 2)"),
    (lambda n: {"objects": np.array([object()] * n)},
     "column 'objects' holds values other than numbers"),
    (lambda n: [1, 2], "returned [1, 2]; expected a dict of column names to arrays"),
])
def test_bad_job_columns_name_the_component(columns, message):
    with pytest.raises(ConfigError) as info:
        run(reporting(columns=columns))
    assert str(info.value).startswith("reporting.job_columns: ")
    assert message in str(info.value)


def test_good_job_columns_are_kept():
    result = run(reporting(columns=lambda n: {"twice": np.arange(n) * 2,
                                              "label": ["x"] * n}))
    assert list(result.table["twice"][:3]) == [0, 2, 4]
    assert list(result.table["label"][:2]) == ["x", "x"]


def test_a_column_name_already_taken_is_refused_naming_both():
    """Two components' columns of one name: jobs.csv held the second only, without a word; a
    standard column's name, or a scheduler's column's, failed after the run with a bare
    ValueError."""
    other = reporting(columns=lambda n: {"dup": np.ones(n)})
    other.name = "other"
    with pytest.raises(ConfigError, match=r"^reporting.job_columns: column 'dup' is other's "
                                          r"column already; give it another name"):
        ckptsim.simulate(ckptsim.workload(W), "easy",
                         components=[other, reporting(columns=lambda n: {"dup": np.ones(n)})])
    for name in ("wait", "energy"):
        with pytest.raises(ConfigError, match=f"column '{name}' is (a standard column|energy's "
                                              "column) already"):
            ckptsim.simulate(ckptsim.workload(W), "easy", components=[
                "energy:active=100,idle=10,sleep=1",
                reporting(columns=lambda n, name=name: {name: np.ones(n)})])

    from ckptsim.policies.fcfs import FCFS

    class Labelled(FCFS):
        name = "labelled"

        def job_columns(self):
            return {"status": ["x"] * len(self.sim.jobs), "mine": np.zeros(len(self.sim.jobs))}

    with pytest.raises(ConfigError, match=r"^labelled.job_columns: column 'status' is a "
                                          "standard column already"):
        ckptsim.simulate(ckptsim.workload(W), Labelled)


COUNTING = """
import numpy as np
from ckptsim import Component


class Counting(Component):
    name = "counting"
    counter_names = ("starts_seen",)

    def attach(self, sim):
        super().attach(sim)
        self.n = 0

    def on_start(self, job):
        self.n += 1

    def counters(self):
        value = np.int64(self.n) if self.sim.workload.n_jobs != 77 else np.arange(2)
        return {"starts_seen": value}
"""


def test_a_bad_counter_fails_its_run_not_the_sweep(tmp_path):
    """One workload's component returns a numpy integer (stored as a number), another's an
    array (that run fails with the component named); every other run is recorded."""
    (tmp_path / "counting.py").write_text(COUNTING)
    spec = tmp_path / "s.toml"
    spec.write_text(
        'name = "s"\nseeds = [1, 2]\nmetrics = ["mean_wait", "starts_seen"]\n'
        '[workloads.good]\ngenerator = "lublin"\nn = 60\nmachine = 32\n'
        '[workloads.good.components."counting.py:Counting"]\n'
        '[workloads.bad]\ngenerator = "lublin"\nn = 77\nmachine = 32\n'
        '[workloads.bad.components."counting.py:Counting"]\n'
        '[[schedulers]]\nname = "easy"\n[[schedulers]]\nname = "fcfs"\n')
    assert main(["sweep", str(spec), "--out", str(tmp_path / "st"), "--jobs", "0"]) == 1
    rows, _ = load_results(tmp_path / "st")
    assert len(rows) == 8
    good = [r for r in rows if r["workload"] == "good"]
    bad = [r for r in rows if r["workload"] == "bad"]
    assert {r["status"] for r in good} == {"ok"} and all(r["starts_seen"] == 60 for r in good)
    assert {r["status"] for r in bad} == {"failed"}
    assert all(r["error_message"].startswith("ConfigError: counting.counters: counter "
                                             "'starts_seen' is array([0, 1])") for r in bad)
