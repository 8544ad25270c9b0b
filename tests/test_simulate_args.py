"""`ckptsim.simulate` and `ckptsim.workload` from Python: an argument of the wrong kind is a
ConfigError naming it and what it takes (it was an AttributeError or a TypeError from deep
inside the run, or read in a way nobody meant), and a workload may be named as the command
line names it."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import ckptsim
from ckptsim.errors import ConfigError

W = "lublin:n=100,seed=1,machine=32"


def test_a_workload_may_be_given_as_its_text_or_path(tmp_path):
    made = ckptsim.simulate(ckptsim.workload(W), "easy").summary
    assert ckptsim.simulate(W, "easy").summary == made
    trace = tmp_path / "t.swf"
    from ckptsim.cli import main

    assert main(["convert", W, str(trace)]) == 0
    by_path = ckptsim.simulate(Path(trace), "easy").summary
    assert by_path["mean_wait"] == ckptsim.simulate(ckptsim.workload(Path(trace)),
                                                    "easy").summary["mean_wait"]


@pytest.mark.parametrize(("options", "message"), [
    ({"workload": 5}, "workload: expected a Workload"),
    ({"params": [("requeue", "front")]}, "params: expected a mapping"),
    ({"params": "requeue=front"}, "params: expected a mapping"),
    ({"components": None}, "components: expected a list of components"),
    ({"components": "energy:active=1,idle=1,sleep=1"}, "components: expected a list"),
    ({"failures": 5}, "failures: expected a source string"),
    ({"failures": pd.DataFrame({"time": [1.0], "node": [0], "repair": [9.0]}),
      "failure_count": 10}, "failure_count: takes failures from a source string"),
    ({"platform": 5}, "platform: expected a Platform"),
    ({"progress": 5}, "progress: expected a function"),
    ({"check": "no"}, "check: expected True or False, got 'no'"),
    ({"machine_size": 64.5}, "machine_size: expected an integer"),
    ({"seed": 1.5}, "seed: expected an integer"),
    ({"recorders": None}, "recorders: expected a list of components"),
])
def test_an_argument_of_the_wrong_kind_is_named(options, message):
    workload = options.pop("workload", W)
    with pytest.raises(ConfigError) as info:
        ckptsim.simulate(workload, "easy", **options)
    assert str(info.value).startswith(message)


@pytest.mark.parametrize(("options", "message"), [
    ({"first": "10"}, "first: must be an integer >= 1"),
    ({"load_scale": 0}, "load_scale: must be a number > 0"),
    ({"window": "0 1000"}, "window: expected (start, end) in seconds"),
    ({"window": (0, 1, 2)}, "window: expected (start, end) in seconds"),
    ({"window": (5, 1)}, "window: must be a number > start = 5"),
])
def test_workload_options_are_named_as_given(options, message):
    with pytest.raises(ConfigError) as info:
        ckptsim.workload(W, **options)
    assert str(info.value).startswith(message)


def test_a_results_repr_reads_as_its_fields_and_dir_lists_each_name_once():
    r = ckptsim.simulate("lublin:n=2000,seed=1", "easy")
    assert r.summary["mean_wait"] > 1000
    shown = repr(r).rsplit("jobs=", 1)[1]  # after the workload's own text
    assert shown.count(",") == 2, repr(r)  # jobs=2000, mean_wait=23_786, mean_bsld=...
    names = dir(ckptsim)
    assert len(names) == len(set(names)) and "simulate" in names
