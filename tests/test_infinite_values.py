"""An infinite number is written one way per format and read back as math.inf.

Energies overflow to infinity with power values near the largest float (the meter refuses
infinite watts, not huge ones): jobs.csv, out_jobs.csv and `ckptsim results --csv` write
`inf`, summary.json (JSON has no infinity) the text "inf", and `load_run` gives math.inf for
all of them.  NaN stays empty in the CSVs and null in summary.json.
"""

from __future__ import annotations

import json
import math

import numpy as np

import ckptsim
from ckptsim.cli.common import write_outputs
from ckptsim.records.allocations import AllocationLog, AllocationRecorder
from ckptsim.records.io import read_summary_json, write_summary_json
from ckptsim.workload.model import from_columns

HUGE = {"active": 1e308, "idle": 1e308, "sleep": 2}


def test_an_infinite_energy_is_written_inf_and_read_back(tmp_path):
    w = from_columns(submit=[0, 10], runtime=[100, 50], size=[1, 1], estimate=[100, 50],
                     machine_size=2)
    log = AllocationLog()
    result = ckptsim.simulate(w, "fcfs", components={"energy": HUGE},
                              recorders=[AllocationRecorder(log)])
    assert math.isinf(result.summary["energy_j"])
    write_outputs(result, tmp_path, log)
    header, first, _ = (tmp_path / "jobs.csv").read_text().split("\n", 2)
    assert header.endswith(",energy") and first.endswith(",inf")
    doc = json.loads((tmp_path / "summary.json").read_text())
    assert doc["metrics"]["energy_j"] == "inf" and doc["metrics"]["energy_kwh"] == "inf"
    run = ckptsim.load_run(tmp_path)
    assert run.jobs["energy"].tolist() == [math.inf, math.inf]
    assert run.summary["metrics"]["energy_j"] == math.inf
    assert run.summary["metrics"]["mean_power_w"] == math.inf
    assert run.summary["metrics"]["energy_sleep_j"] == 0.0  # finite numbers unchanged
    assert run.out_jobs["consumed_energy"].tolist() == [math.inf, math.inf]


def test_summary_json_round_trips_non_finite_numbers(tmp_path):
    doc = {"metrics": {"a": math.inf, "b": -math.inf, "c": math.nan, "d": 1.5,
                       "e": [math.inf, 2.0], "f": np.float64(math.inf)}, "name": "x"}
    write_summary_json(doc, tmp_path / "summary.json")
    text = (tmp_path / "summary.json").read_text()
    assert '"a": "inf"' in text and '"b": "-inf"' in text and '"c": null' in text
    back = read_summary_json(tmp_path / "summary.json")
    assert back["metrics"]["a"] == math.inf and back["metrics"]["b"] == -math.inf
    assert back["metrics"]["c"] is None and back["metrics"]["e"] == [math.inf, 2.0]
    assert back["metrics"]["f"] == math.inf and back["name"] == "x"
