"""Experiment run ids stay what they were: a store written before a change of the engine is
still recognised after it (runs are not redone, results are not mixed up).

golden/run_ids.json holds the run ids of the example specs and of a spec with synthetic
failures and a failure-count axis, recorded before the engine's seams were reworked.  Regenerate
deliberately with `CKPTSIM_REGEN_GOLDEN=1 python -m pytest tests/test_golden_run_ids.py`.  The
ckpt-backfill runs of the synthetic spec were recorded again when `replan=full` became the
default (another schedule, so other runs); the ids they had before are kept as
"synthetic-incremental", which the spec gives again with `replan = "incremental"`, the reading
of the runs recorded before the option existed.  They were recorded again when `rejoin=head`
became the default; the ids they had before are kept as "synthetic-second", which the spec
gives again with `rejoin = "second"` (and "synthetic-incremental" names it too).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers import TRACES, trace

from ckptsim.experiments.matrix import build_matrix
from ckptsim.experiments.spec import load_spec

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).resolve().parent / "golden" / "run_ids.json"

SYNTHETIC_SPEC = """
name = "synthetic-failures"
seeds = [1, 2]

[workloads.sdsc]
trace = "SDSC-SP2-1998-4.2-cln.swf.gz"
first = 500
failures = ["synthetic:mtbf=2000000,repair_mean=86400", "synthetic:mtbf=500000"]

[workloads.model]
generator = "lublin"
n = 200
machine = 64
failures = "synthetic:mtbf=1000000,dist=exponential"

[workloads.plain]
trace = "SDSC-SP2-1998-4.2-cln.swf.gz"
first = 500

[[schedulers]]
name = "easy"

[[schedulers]]
name = "ckpt-backfill"
params = { p = [0.2, 0.5] }
"""

#: Checkpoint plans in their string forms (the alias, the component's table, combinations,
#: spaces and a number's +): their ids stay those the strings always had.
CHECKPOINT_SPEC = """
name = "checkpoint-plans"
seeds = [1]

[workloads.sdsc]
trace = "SDSC-SP2-1998-4.2-cln.swf.gz"
first = 500
failures = "synthetic:mtbf=500000"
checkpoint = ["none", "young:cost=600", "young:cost=600,mtbf=86400+closedcluster",
              "fixed:interval=1800,cost=60+closedcluster+scheduled", " daly:cost=1e+2 ",
              "fixed:interval=1800+closedcluster+scheduled:cost=60", "opt:cost=60",
              "interarrival:w=10,m=5,l=3,d=60,cost=60", "scheduled:cost=120,then=continue"]

[workloads.model]
generator = "lublin"
n = 200
machine = 64

[workloads.model.components.checkpoint]
policy = ["fixed:interval=3600,bandwidth=2,memory=0.5", "ratio:cost=30"]

[[schedulers]]
name = "easy"
"""

#: The synthetic spec at the reading its ckpt-backfill runs had before `replan` existed
#: (and `rejoin`).
SYNTHETIC_INCREMENTAL_SPEC = SYNTHETIC_SPEC.replace(
    "params = { p = [0.2, 0.5] }",
    'params = { p = [0.2, 0.5], replan = "incremental", rejoin = "second" }')
#: The synthetic spec at the reading its ckpt-backfill runs had before `rejoin` existed.
SYNTHETIC_SECOND_SPEC = SYNTHETIC_SPEC.replace(
    "params = { p = [0.2, 0.5] }", 'params = { p = [0.2, 0.5], rejoin = "second" }')
SPECS = {"synthetic": SYNTHETIC_SPEC, "checkpoint": CHECKPOINT_SPEC,
         "synthetic-incremental": SYNTHETIC_INCREMENTAL_SPEC,
         "synthetic-second": SYNTHETIC_SECOND_SPEC}


def spec_run_ids(name: str, tmp_path: Path) -> dict[str, list[str]]:
    trace("SDSC-SP2-1998-4.2-cln.swf.gz")  # skip when the traces are absent
    if name in SPECS:
        path = tmp_path / f"{name}.toml"
        path.write_text(SPECS[name])
        spec = load_spec(path, trace_dir=TRACES)
    else:
        spec = load_spec(ROOT / "examples" / f"{name}.toml", trace_dir=TRACES)
    return {"run_ids": [r.run_id for r in build_matrix(spec)]}


@pytest.mark.parametrize("name", ["failures", "traces", "backfilling", "synthetic",
                                  "checkpoint", "synthetic-incremental", "synthetic-second"])
def test_run_ids_unchanged(name, tmp_path):
    if name == "failures" and not (TRACES.parent / "failures" / "lanl_cfdr").is_dir():
        pytest.skip("the LANL failure log is not available")
    got = spec_run_ids(name, tmp_path)
    if os.environ.get("CKPTSIM_REGEN_GOLDEN"):
        saved = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}
        saved[name] = got
        GOLDEN.write_text(json.dumps(saved, indent=2, sort_keys=True) + "\n")
        pytest.skip("golden run ids regenerated")
    assert got == json.loads(GOLDEN.read_text())[name]


@pytest.mark.parametrize("earlier", ["synthetic-incremental", "synthetic-second"])
def test_default_ckpt_backfill_runs_are_not_the_earlier_ones(earlier, tmp_path):
    # The defaults (replan=full, rejoin=head) are other schedules: their runs must not take the
    # ids of the runs recorded before the options; the easy runs of the spec keep theirs.
    default = spec_run_ids("synthetic", tmp_path)["run_ids"]
    recorded = spec_run_ids(earlier, tmp_path)["run_ids"]
    assert len(default) == len(recorded)
    spec_path = tmp_path / "synthetic.toml"
    spec_path.write_text(SYNTHETIC_SPEC)
    names = [r.scheduler_name for r in build_matrix(load_spec(spec_path, trace_dir=TRACES))]
    assert "ckpt-backfill" in names and "easy" in names
    for name, a, b in zip(names, default, recorded, strict=True):
        assert (a == b) == (name == "easy"), name
