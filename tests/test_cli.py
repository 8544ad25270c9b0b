"""The command line, end to end (in-process through `ckptsim.cli.main`)."""

from __future__ import annotations

import csv
import gzip
import json
import re
import subprocess
import sys

import numpy as np
import pytest

from ckptsim.cli import main
from ckptsim.records.jobs import ALL_COLUMNS, JOB_COLUMNS

SWF = """; Version: 2.2
; MaxProcs: 8
; UnixStartTime: 0
1 0 -1 10 4 -1 -1 4 10 -1 1 1 1 -1 1 -1 -1 -1
2 0 -1 30 4 -1 -1 4 30 -1 1 1 1 -1 1 -1 -1 -1
3 1 -1 20 8 -1 -1 8 20 -1 1 2 1 -1 1 -1 -1 -1
4 2 -1 15 2 -1 -1 2 40 -1 1 3 1 -1 1 -1 -1 -1
5 3 -1 40 2 -1 -1 2 50 -1 1 3 1 -1 1 -1 -1 -1
"""


@pytest.fixture
def swf(tmp_path):
    path = tmp_path / "fig3.swf"
    path.write_text(SWF)
    return path


def test_run_writes_outputs(swf, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", "--workload", str(swf), "--scheduler", "easy", "--out", str(out),
                 "--check"]) == 0
    text = capsys.readouterr().out
    assert "mean bounded slowdown" in text and "5 jobs" in text
    rows = list(csv.DictReader(open(out / "jobs.csv")))
    assert tuple(rows[0]) == ALL_COLUMNS and tuple(rows[0])[:len(JOB_COLUMNS)] == JOB_COLUMNS
    assert [(r["job_id"], r["start"], r["end"]) for r in rows] == [
        ("1", "0", "10"), ("2", "0", "30"), ("3", "30", "50"), ("4", "50", "65"),
        ("5", "50", "90")]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["scheduler"] == "easy" and summary["metrics"]["jobs"] == 5
    assert summary["workload"]["machine_size"] == 8
    from ckptsim.workload.swf import read_swf

    back = read_swf(out / "schedule.swf")
    assert list(back.job_id) == [1, 2, 3, 4, 5]
    assert list(back.fields[:, 2]) == [0, 0, 29, 48, 47]  # simulated waits


def test_outputs_are_byte_identical(swf, tmp_path):
    for d in ("a", "b"):
        assert main(["run", "--workload", str(swf), "--scheduler", "conservative", "--out",
                     str(tmp_path / d)]) == 0
    for name in ("jobs.csv", "summary.json", "schedule.swf"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_set_and_transforms(swf, tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["run", "--workload", str(swf), "--scheduler", "easy", "--set",
                 "requeue=order", "--alpha", "0", "--load-scale", "2", "--first", "4",
                 "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["params"] == {"requeue": "order", "shadow_ties": "first"}
    assert summary["metrics"]["jobs"] == 4
    rows = list(csv.DictReader(open(out / "jobs.csv")))
    # alpha = 0: estimates are the runtimes; then load scale 2 doubles both.
    assert [r["estimate"] for r in rows] == ["20", "60", "40", "30"]


def test_bad_parameter_names_key_and_accepted_values(swf, capsys):
    assert main(["run", "--workload", str(swf), "--set", "p=0.2"]) == 2
    err = capsys.readouterr().err
    assert "--set p: unknown parameter; accepted: requeue" in err
    assert main(["run", "--workload", str(swf), "--scheduler", "nope"]) == 2
    assert "unknown scheduler 'nope'" in capsys.readouterr().err
    assert main(["run", "--workload", str(swf), "--set", "noequals"]) == 2
    assert "expected key=value" in capsys.readouterr().err


def test_malformed_trace_names_file_line_and_field(tmp_path, capsys):
    bad = tmp_path / "bad.swf"
    bad.write_text(SWF.replace("3 1 -1 20 8", "3 1 -1 x20 8"))
    assert main(["run", "--workload", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.swf" in err and "line 6" in err and "run_time" in err
    assert main(["run", "--workload", str(bad), "--skip-bad-lines"]) == 0
    assert "skipped_bad_lines=1" in capsys.readouterr().out


def test_inspect_with_plot(tmp_path, capsys):
    path = tmp_path / "t.swf.gz"
    with gzip.open(path, "wt") as fh:
        fh.write(SWF)
    png = tmp_path / "ratio.png"
    assert main(["inspect", str(path), "--plot", str(png)]) == 0
    text = capsys.readouterr().out
    assert "offered_load" in text and "runtime / estimate" in text
    assert png.stat().st_size > 1000


def test_inspect_takes_what_run_takes(tmp_path, capsys):
    """A Batsim JSON workload, a generator, and the transforms (it read SWF only, and a JSON
    file failed as a malformed SWF line)."""
    import re

    def jobs(argv):
        assert main(["inspect", *argv]) == 0
        return int(re.search(r"│ jobs\s+│\s+(\d+) │", capsys.readouterr().out).group(1))

    json_path = tmp_path / "w.json"
    assert main(["convert", "lublin:n=300,seed=3,machine=64", str(json_path)]) == 0
    capsys.readouterr()
    assert jobs([str(json_path)]) == 300
    assert jobs(["lublin:n=300,seed=3,machine=64", "--first", "120"]) == 120
    path = tmp_path / "t.swf"
    path.write_text(SWF)
    assert jobs([str(path), "--window", "0", "1"]) < jobs([str(path)])


def test_demo_small(capsys, tmp_path):
    assert main(["demo", "--jobs", "300", "--out", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert "fcfs" in text and "easy" in text and "conservative" in text
    assert (tmp_path / "easy" / "jobs.csv").exists()


def test_builtin_and_lublin_workloads(capsys):
    assert main(["run", "--workload", "lublin:n=200,seed=3", "--scheduler", "fcfs",
                 "--check"]) == 0
    assert "200 jobs" in capsys.readouterr().out
    assert main(["run", "--workload", "lublin:n=200,sed=3"]) == 2
    err = capsys.readouterr().err
    assert "--workload lublin.sed: unknown option (did you mean 'seed'?); accepted" in err


def test_schedulers_listing(capsys):
    assert main(["schedulers"]) == 0
    text = capsys.readouterr().out
    assert "easy:" in text and "conservative:" in text and "requeue" in text


def test_python_dash_m_entry_point(swf):
    done = subprocess.run([sys.executable, "-m", "ckptsim", "run", "--workload", str(swf)],
                          capture_output=True, text=True)
    assert done.returncode == 0 and "jobs" in done.stdout


def test_run_with_synthetic_failures(swf, tmp_path, capsys):
    out = tmp_path / "f"
    assert main(["run", "--workload", str(swf), "--failures", "synthetic:mtbf=20,seed=3",
                 "--check", "--out", str(out)]) == 0
    assert "failures hitting jobs" in capsys.readouterr().out
    summary = json.loads((out / "summary.json").read_text())["metrics"]
    assert summary["failures"] > 0 and summary["jobs_killed_by_failures"] > 0


def test_failure_source_errors(swf, capsys):
    assert main(["run", "--workload", str(swf), "--failures", "lanl:system=3"]) == 2
    assert "--failures path: lanl failures need path=FILE" in capsys.readouterr().err
    assert main(["run", "--workload", str(swf), "--failures", "synthetic:mtbf=5,bogus=1"]) == 2
    assert "--failures bogus: unknown option of synthetic; accepted" in capsys.readouterr().err


def test_run_with_lanl_failures_on_the_torus(tmp_path, capsys):
    from helpers import TRACES

    lanl = TRACES.parent / "failures" / "lanl_cfdr" / \
        "LA-UR-05-7318-failure-data-1996-2005.csv.gz"
    if not lanl.exists():
        pytest.skip(f"LANL failure records not available at {lanl}")
    out = tmp_path / "t"
    assert main(["run", "--workload", str(TRACES / "NASA-iPSC-1993-3.1-cln.swf.gz"),
                 "--first", "2000", "--scheduler", "bgl-balancing", "--set", "confidence=0.5",
                 "--failures", f"lanl:path={lanl},system=20,count=200,transient=true",
                 "--check", "--out", str(out)]) == 0
    metrics = json.loads((out / "summary.json").read_text())["metrics"]
    assert metrics["failures"] == 200 and metrics["machine_size"] == 128


def test_a_closed_pipe_stops_a_command_quietly(tmp_path):
    """`ckptsim ... | head`: no "Broken pipe" error, the status of a command SIGPIPE stops."""
    import subprocess
    import sys
    from pathlib import Path

    spec = Path(__file__).resolve().parents[1] / "examples" / "backfilling.toml"
    proc = subprocess.Popen([sys.executable, "-m", "ckptsim", "sweep", str(spec), "--dry-run"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader is gone before the command writes anything
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141 and err == ""


@pytest.mark.parametrize("spec", ["lublin:n=200", "builtin", "htc:days=2,seed=1"])
def test_machine_size_and_oversize_apply_to_generated_workloads(spec, tmp_path):
    # They were ignored: inspect showed the generator's machine, and run failed ("job 2
    # needs 128 nodes but the machine has 64") where a trace's jobs are skipped or clamped.
    from ckptsim.workload.source import load_workload

    full = load_workload(spec)
    machine = 64 if spec != "htc:days=2,seed=1" else 1
    wide = int((full.size > machine).sum())
    skipped = load_workload(spec, machine_size=machine)
    assert skipped.machine_size == machine and len(skipped) == len(full) - wide
    assert skipped.counts["skipped_too_large"] == wide and (skipped.size <= machine).all()
    clamped = load_workload(spec, machine_size=machine, oversize="clamp")
    assert clamped.machine_size == machine and len(clamped) == len(full)
    assert clamped.counts["clamped_too_large"] == wide
    assert clamped.size.tolist() == np.minimum(full.size, machine).tolist()
    out = tmp_path / "o"
    assert main(["run", "--workload", spec, "--machine-size", str(machine), "--oversize",
                 "clamp", "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["workload"]["machine_size"] == machine
    assert summary["workload"]["jobs"] == len(full)


def test_inspect_a_generator_on_a_smaller_machine(capsys):
    assert main(["inspect", "lublin:n=200", "--machine-size", "64"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"machine_size +│ +64 ", out), out
    assert "skipped_too_large=5" in out


def test_offered_load_of_a_zero_submit_span_is_undefined(capsys):
    # It was printed as inf: one job (or jobs all submitted at once) spans no time.
    assert main(["inspect", "lublin:n=1"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"offered_load +│ +- +│", out), out
    assert "inf" not in out


def test_loader_line_shows_what_a_generator_changed(capsys):
    # It said "no records dropped or changed" although 7 runtimes were truncated.
    assert main(["inspect", "lublin:n=2000,seed=5"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "loader: estimate_runtime_truncated=7"
    assert main(["inspect", "lublin:n=2000,seed=5,estimates=exact"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "loader: no records dropped or changed"


def test_the_estimate_model_changes_only_the_runtimes_it_truncates():
    from ckptsim.workload.source import load_workload

    tsafrir = load_workload("lublin:n=2000,seed=5")
    exact = load_workload("lublin:n=2000,seed=5,estimates=exact")
    assert np.array_equal(tsafrir.submit, exact.submit)
    assert np.array_equal(tsafrir.size, exact.size)
    changed = tsafrir.runtime != exact.runtime
    assert changed.sum() == tsafrir.counts["estimate_runtime_truncated"] == 7
    assert (tsafrir.runtime[changed] == 18 * 3600).all()


def test_run_seed_reruns_a_sweep_replication(tmp_path, capsys):
    """`run --seed S` gives the run the seed a sweep gives its replication S (owners' sessions,
    power draws, htc's random placement): with the generator's seed=S too, its metrics are the
    sweep's row.  Without it (seed 0) the owners and the machines' power differ."""
    import json

    import ckptsim

    spec = tmp_path / "s.toml"
    spec.write_text('name = "s"\nseeds = [3]\nmetrics = ["energy_kwh", "unavailability_events"]\n'
                    '[workloads.pool]\ngenerator = "htc"\ndays = 2\nplatform = "smallpool"\n'
                    '[workloads.pool.components.availability]\nowners = "model"\n'
                    '[[schedulers]]\nname = "htc"\n')
    assert main(["sweep", str(spec), "--out", str(tmp_path / "store"), "--jobs", "1"]) == 0
    (row,) = ckptsim.load_results(tmp_path / "store").to_dict("records")
    got = {}
    for seed in (3, 0):
        out = tmp_path / f"run{seed}"
        assert main(["run", "--workload", "htc:days=2,seed=3", "--platform", "smallpool",
                     "--scheduler", "htc", "--component", "availability:owners=model",
                     "--seed", str(seed), "--out", str(out)]) == 0
        doc = json.loads((out / "summary.json").read_text())
        assert doc["options"]["seed"] == seed
        got[seed] = doc["metrics"]
    capsys.readouterr()
    keys = ("energy_kwh", "unavailability_events")
    assert [got[3][k] for k in keys] == [row[k] for k in keys]
    assert [got[0][k] for k in keys] != [row[k] for k in keys]
    assert main(["run", "--workload", "builtin", "--seed", "-1"]) == 2
    assert "--seed: expected an integer >= 0, got -1" in capsys.readouterr().err
