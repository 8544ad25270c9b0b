"""Golden test: the first 2,000 jobs of SDSC-SP2-1998-4.2-cln under each scheduler.

The expected values in golden/sdsc_sp2_2000.json were produced by this simulator and checked
for consistency (invariants on, every job ended once); any change to a schedule shows up here.
Regenerate deliberately with `CKPTSIM_REGEN_GOLDEN=1 python -m pytest tests/test_golden.py`.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from pathlib import Path

import pytest
from helpers import trace

from ckptsim.records.io import write_jobs_csv
from ckptsim.runner import simulate
from ckptsim.workload.swf import read_swf
from ckptsim.workload.transforms import first_n

GOLDEN = Path(__file__).resolve().parent / "golden" / "sdsc_sp2_2000.json"
KEYS = ("jobs", "mean_wait", "max_wait", "mean_bsld", "mean_queue_length", "utilization",
        "makespan", "backfill_ratio")


def compute(tmp_path: Path) -> dict[str, dict[str, object]]:
    w = first_n(read_swf(trace("SDSC-SP2-1998-4.2-cln.swf.gz")), 2000)
    out: dict[str, dict[str, object]] = {}
    for name in ("fcfs", "easy", "conservative"):
        result = simulate(w, name, check=True)
        path = tmp_path / f"{name}.csv"
        write_jobs_csv(result.table, path)
        out[name] = {k: result.summary[k] for k in KEYS}
        out[name]["jobs_csv_sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def test_sdsc_sp2_first_2000_jobs(tmp_path):
    got = compute(tmp_path)
    if os.environ.get("CKPTSIM_REGEN_GOLDEN"):
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps(got, indent=2, sort_keys=True) + "\n")
        pytest.skip("golden file regenerated")
    expected = json.loads(GOLDEN.read_text())
    for name, metrics in expected.items():
        for key, value in metrics.items():
            if isinstance(value, float):
                assert math.isclose(got[name][key], value, rel_tol=1e-12), (name, key)
            else:
                assert got[name][key] == value, (name, key)
    # Sanity beyond regression: backfilling beats FCFS on this slice.
    assert got["easy"]["mean_wait"] < got["fcfs"]["mean_wait"]
    assert got["conservative"]["mean_wait"] < got["fcfs"]["mean_wait"]
