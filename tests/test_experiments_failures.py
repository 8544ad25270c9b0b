"""Failures in experiment specs and failure sources: validation, run identity, the count as a
grid axis, and the same failures whether a run comes from a sweep, the CLI or Python.

A hand-written LANL log (12 failures of system 2 over January 2004, 6 nodes) stands in for the
real one, so nothing here needs ../shared.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from helpers import LANL_HEADER, lanl_row

from ckptsim.cli import main
from ckptsim.errors import ConfigError
from ckptsim.experiments.execute import SerialExecutor
from ckptsim.experiments.matrix import build_matrix
from ckptsim.experiments.spec import SpecError, load_spec
from ckptsim.experiments.store import load_results
from ckptsim.experiments.sweep import plan_sweep, run_sweep
from ckptsim.failures.source import check_failure_spec, load_failures, parse_failure_spec
from ckptsim.runner import simulate
from ckptsim.workload.lublin import generate_lublin


@pytest.fixture
def log(tmp_path):
    rows = [lanl_row(2, (3 * k) % 6, f"1/{2 + 2 * k}/2004 {k}:00", f"1/{2 + 2 * k}/2004 {k}:30",
                     "30") for k in range(12)]
    path = tmp_path / "logs" / "lanl.csv"
    path.parent.mkdir()
    path.write_text("\n".join([LANL_HEADER, *rows]) + "\n")
    return path


def source(log, extra=""):
    return f"lanl:path={log},system=2,transient=true{extra}"


def write_spec(tmp_path, body, name="spec.toml"):
    path = tmp_path / name
    path.write_text(body)
    return path


def spec_body(failures, counts, scheduler="bgl-fcfs", params=""):
    return f"""
metrics = ["mean_response_bsld", "failures", "jobs_killed_by_failures"]
[workloads.m]
generator = "lublin"
n = 150
machine = 128
failures = "{failures}"
failure_count = {counts}
[[schedulers]]
name = "{scheduler}"
{params}
"""


# -- validation --------------------------------------------------------------------------------

def test_every_failure_problem_is_listed_with_its_location(tmp_path, log):
    text = f"""
[workloads.a]
generator = "lublin"
n = 50
failures = "weibull:mtbf=5"
[workloads.b]
generator = "lublin"
n = 50
failures = ["lanl:path=missing.csv,system=2", "lanl:path={log},sytem=2"]
[workloads.c]
generator = "lublin"
n = 50
failure_count = [0, 10]
[workloads.d]
generator = "lublin"
n = 50
failures = "synthetic:mtbf=86400"
failure_count = 10
[workloads.e]
generator = "lublin"
n = 50
failures = "{source(log, ',count=5')}"
failure_count = [-1, 10]
[workloads.f]
generator = "lublin"
n = 50
failures = "lanl:path={log},map=diagonal"
[[schedulers]]
name = "fcfs"
"""
    with pytest.raises(SpecError) as info:
        load_spec(write_spec(tmp_path, text))
    found = {loc.split(" (line")[0]: msg for loc, msg in info.value.problems}
    assert "unknown failure source 'weibull'" in found["workloads.a.failures"]
    assert "no such file" in found["workloads.b.failures[0]"]
    assert "unknown option of lanl" in found["workloads.b.failures[1]"]
    assert "needs failures" in found["workloads.c.failure_count"]
    assert "applies to failure logs" in found["workloads.d.failure_count"]
    assert "integer >= 0" in found["workloads.e.failure_count[0]"]
    assert "keep one of them" in found["workloads.e.failures"]
    assert "accepted: modulo, random" in found["workloads.f.failures"]


def test_relative_log_paths_resolve_against_the_trace_folder(tmp_path, log):
    rel = "../logs/lanl.csv"
    (tmp_path / "traces").mkdir()
    spec = load_spec(write_spec(tmp_path, spec_body(f"lanl:path={rel},system=2", "[1]")),
                     trace_dir=tmp_path / "traces")
    (value,) = spec.workloads["m"].options["failures"]
    assert parse_failure_spec(value)[1]["path"] == str(log.resolve())
    with pytest.raises(ConfigError, match="failures.path"):
        check_failure_spec("lanl:path=nowhere.csv", base=tmp_path)
    with pytest.raises(ConfigError, match="failures.seed"):
        check_failure_spec(f"lanl:path={log},seed=-2")


@pytest.mark.parametrize(("source", "key", "words"), [
    ("synthetic:mtbf=-1", "failures.mtbf", "positive finite number of seconds"),
    ("synthetic:mtbf=0", "failures.mtbf", "positive finite number of seconds"),
    ("synthetic:mtbf=3600,shape=0", "failures.shape", "Weibull shape in [0.05, 20.0]"),
    ("synthetic:mtbf=3600,repair_mean=-5", "failures.repair_mean", ">= 0"),
    ("synthetic:mtbf=3600,repair_cv=0", "failures.repair_cv", "(0, 100]"),
])
def test_a_synthetic_value_out_of_range_is_refused_with_the_spec(tmp_path, source, key, words):
    # Before any run: every run of the sweep would otherwise fail with it.
    with pytest.raises(ConfigError) as info:
        check_failure_spec(source)
    assert info.value.key == key and words in info.value.message
    text = spec_body(source, "[]").replace("failure_count = []\n", "")
    with pytest.raises(SpecError) as spec_info:
        load_spec(write_spec(tmp_path, text))
    assert any(key in msg and words in msg for _, msg in spec_info.value.problems)


# -- matrix --------------------------------------------------------------------------------------

def test_failure_count_is_an_axis_and_identity_follows_the_log_bytes(tmp_path, log):
    runs = build_matrix(load_spec(write_spec(tmp_path, spec_body(source(log), "[0, 4, 8]"))))
    assert [r.columns["workload.failure_count"] for r in runs] == [0, 4, 8]
    assert len({r.run_id for r in runs}) == 3
    # The same log elsewhere is the same run; another log is another run.
    moved = tmp_path / "moved.csv"
    shutil.copy(log, moved)
    again = build_matrix(load_spec(write_spec(tmp_path, spec_body(source(moved), "[0, 4, 8]"),
                                              "b.toml")))
    assert [r.run_id for r in again] == [r.run_id for r in runs]
    moved.write_text(log.read_text().replace("1/2/2004 0:00", "1/3/2004 0:00"))
    changed = build_matrix(load_spec(write_spec(tmp_path, spec_body(source(moved), "[0, 4, 8]"),
                                                "c.toml")))
    assert not {r.run_id for r in changed} & {r.run_id for r in runs}


# -- running -------------------------------------------------------------------------------------

def test_sweep_injects_the_count_and_zero_failures_is_the_plain_schedule(tmp_path, log):
    spec = write_spec(tmp_path, spec_body(source(log), "[0, 5, 20]", "bgl-balancing",
                                          "params = { confidence = [0.0, 0.5] }"))
    plan = plan_sweep(spec, tmp_path / "out")
    result = run_sweep(plan, tmp_path / "out", SerialExecutor())
    assert result.ok == 6 and result.failed == 0
    rows, _ = load_results(tmp_path / "out")
    for row in rows:
        assert row["failures"] == row["workload.failure_count"]
    plain = simulate(generate_lublin(150, machine_size=128, seed=1), "bgl-fcfs").summary
    for row in rows:
        if row["workload.failure_count"] == 0:
            assert row["mean_response_bsld"] == pytest.approx(plain["mean_response_bsld"])
            assert row["jobs_killed_by_failures"] == 0
    # 20 failures over a few days of jobs on 128 supernodes hit some of them.
    assert max(r["jobs_killed_by_failures"] for r in rows) > 0


def test_python_sweep_and_cli_see_the_same_failures(tmp_path, log, capsys):
    w = generate_lublin(150, machine_size=128, seed=1)
    spec = source(log, ",count=6")
    by_string = simulate(w, "bgl-fcfs", failures=spec, failure_seed=0)
    start, span = float(w.submit[0]), float(w.submit[-1] - w.submit[0])
    trace = load_failures(spec, n_nodes=128, span=span, offset=start)
    by_trace = simulate(w, "bgl-fcfs", failures=trace)
    assert np.array_equal(by_string.table["end"], by_trace.table["end"])
    assert by_string.summary["failures"] == 6
    assert main(["run", "--workload", "lublin:n=150,machine=128,seed=1", "--scheduler",
                 "bgl-fcfs", "--failures", spec]) == 0
    out = capsys.readouterr().out
    assert f"{by_string.summary['jobs_killed_by_failures']}" in out


def test_load_failures_offset_seed_count_and_window(log):
    base = load_failures(source(log), n_nodes=4, span=1000.0)
    assert len(base) == 12  # no count: the log as it is, 6 nodes folded onto 4
    assert set(base.node) <= {0, 1, 2, 3}
    seven = load_failures(source(log), n_nodes=4, span=1000.0, offset=50.0, seed=3, count=7)
    assert len(seven) == 7 and seven.time.min() >= 50.0 and seven.time.max() <= 1050.0
    again = load_failures(source(log), n_nodes=4, span=1000.0, offset=50.0, seed=3, count=7)
    assert np.array_equal(seven.time, again.time)
    other = load_failures(source(log), n_nodes=4, span=1000.0, offset=50.0, seed=4, count=7)
    assert not np.array_equal(seven.time, other.time)
    pinned = load_failures(source(log, ",seed=3"), n_nodes=4, span=1000.0, offset=50.0,
                           seed=4, count=7)
    assert np.array_equal(pinned.time, seven.time)  # a seed in the spec wins
    # A count argument overrides count= in the spec; a window cuts the log first.
    assert len(load_failures(source(log, ",count=2"), n_nodes=4, span=10.0, count=5)) == 5
    first_week = load_failures(source(log, ",start=0,end=604800"), n_nodes=4, span=10.0)
    assert len(first_week) == 4  # January 2, 4, 6 and 8 (the week after the first failure)
    with pytest.raises(ConfigError, match="window keeps no failure"):
        load_failures(source(log, ",start=2005-01-01"), n_nodes=4, span=10.0)
    with pytest.raises(ConfigError, match="failure_count"):
        load_failures("synthetic:mtbf=100", n_nodes=4, span=10.0, count=3)


def test_summary_says_where_the_failures_came_from(tmp_path, log):
    w = generate_lublin(150, machine_size=128, seed=1)
    doc = simulate(w, "bgl-fcfs", failures=source(log, ",count=6")).summary_document()
    origin = doc["options"]["failures"]
    assert origin["failures"] == 6 and "system=2" in origin["source"]
    assert origin["transforms"][0].startswith("rescale_count(6, span=")
    assert origin["transforms"][1:3] == ["map_nodes(modulo, n_nodes=128)", "transient"]
    assert "failures" not in simulate(w, "bgl-fcfs").summary_document()["options"]


def test_a_log_records_the_path_as_each_run_spells_it(log, monkeypatch):
    # Loaded once by its absolute path and then by a relative one in the same process (as a
    # sweep worker does), the second run's trace names the relative path: outputs do not
    # depend on what ran before.
    first = load_failures(source(log), n_nodes=6, span=1e7)
    monkeypatch.chdir(log.parent)
    second = load_failures(f"lanl:path={log.name},system=2,transient=true", n_nodes=6, span=1e7)
    assert str(log) in first.source
    assert second.source.startswith(f"lanl_cfdr:{log.name} ")
    np.testing.assert_array_equal(first.time, second.time)
