"""docs/outputs.md lists everything summary.json holds, and the README's test lines work."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from helpers import jobs

from ckptsim.runner import simulate

ROOT = Path(__file__).resolve().parents[1]
OUTPUTS = (ROOT / "docs" / "outputs.md").read_text()


def full_run():  # type: ignore[no-untyped-def]
    """A run with every optional metric: failures and checkpoints."""
    w = jobs([(0, 100, 2, 100), (500, 50, 2, 60), (1000, 400, 4, 500)], 4)
    return simulate(w, "ckpt-backfill", failures="synthetic:mtbf=50,seed=1")


def test_every_metric_is_listed_in_outputs_md():
    result = full_run()
    assert result.summary["failures"] > 0 and "p95_wait" in result.summary
    missing = [key for key in result.summary if f"`{key}`" not in OUTPUTS]
    assert not missing, f"docs/outputs.md does not list {missing}"


def test_every_summary_json_entry_is_in_outputs_md():
    document = full_run().summary_document()
    block = re.search(r"## `summary.json`\n\n```\n(.*?)```", OUTPUTS, flags=re.S)
    assert block is not None
    described = {line.split()[0] for line in block.group(1).splitlines()
                 if line and not line.startswith(" ")}
    assert set(document) | {"plugins"} == described  # plugins: only runs with plug-ins
    for key in document["daily"]:
        assert key in block.group(1), key
    for key in document["workload"]:
        assert key in block.group(1) or f"`{key}`" in OUTPUTS, key
    for key in document["options"]["failures"]:  # transform_counts, count, ...
        assert re.search(rf"\b{key}\b", block.group(1)), key


def test_generator_section_is_in_outputs_md_and_workloads_md():
    """A generated workload's summary.json has `workload.generator`; both pages describe it,
    and the example of docs/workloads.md is what the run writes."""
    import json

    import ckptsim

    document = simulate(ckptsim.workload("lublin:n=500,seed=3,start_hour=8"),
                        "easy").summary_document()
    block = re.search(r"## `summary.json`\n\n```\n(.*?)```", OUTPUTS, flags=re.S)
    assert block is not None
    for key in document["workload"]:
        assert key in block.group(1) or f"`{key}`" in OUTPUTS, key
    workloads = (ROOT / "docs" / "workloads.md").read_text()
    example = re.search(r"```json\n(\"generator\": .*?)```", workloads, flags=re.S)
    assert example is not None
    assert json.loads("{" + example.group(1) + "}")["generator"] == \
        document["workload"]["generator"]


def test_readme_slow_line_selects_tests():
    readme = (ROOT / "README.md").read_text()
    assert "`python -m pytest -m slow`" in readme
    # Collecting the whole suite in a second process costs 5-14 s; two of the files that mark
    # tests slow show that the marker selects them (the rest of the line is pytest's own).
    marked = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").glob("test_*.py")
                    if "pytest.mark.slow" in p.read_text())
    assert len(marked) >= 2, marked
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", "slow",
                           "-p", "no:cacheprovider", *marked[:2]], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr  # 5 would mean: no test selected
    assert re.search(r"^(\d+)/\d+ tests collected", done.stdout, flags=re.M), done.stdout


def test_wait_and_waiting_time_are_documented_as_they_differ(tmp_path: Path):
    """jobs.csv's `wait` is the time off nodes, out_jobs.csv's `waiting_time` the first start
    minus the submit: equal for a job that ran once, not for one requeued or set aside.  The
    docs said they carried the same information; they say how to get one from the other."""
    import csv
    from collections import defaultdict

    from ckptsim.cli import main

    out = tmp_path / "run"
    assert main(["run", "--workload", "lublin:n=300,seed=71,estimates=exact", "--scheduler",
                 "scojo-pect", "--set", "checkpoint=alc", "--out", str(out),
                 "--out-jobs", "attempt"]) == 0
    with open(out / "jobs.csv", newline="") as f:
        table = {int(r["job_id"]): r for r in csv.DictReader(f)}
    off = defaultdict(float)
    with open(out / "out_jobs.csv", newline="") as f:
        for r in csv.DictReader(f):
            off[int(r["job_id"].split("#")[0])] += (float(r["starting_time"])
                                                    - float(r["submission_time"]))
    differ = 0
    for job_id, r in table.items():
        first = float(r["start"]) - float(r["submit"])
        assert float(r["wait"]) >= first - 1e-6
        assert abs(float(r["wait"]) - off[job_id]) < 1e-6
        differ += float(r["wait"]) > first + 1e-6
    assert differ > 0
    text = " ".join(OUTPUTS.split())
    assert "`wait` (`waiting_time`)" not in text
    assert ("`wait` is the sum of `starting_time − submission_time` over the job's rows of "
            "`--out-jobs attempt`") in text
    assert "`waiting_time` is its first start minus its submit (`start − submit` in" in text


def test_a_bgl_runs_workload_machine_size_is_the_traces(tmp_path: Path):
    """summary.json: `options.machine_size` the simulated machine (128 supernodes),
    `workload.machine_size` the trace's (1024 here; it was the simulated 128)."""
    import json

    from ckptsim.cli import main

    swf = tmp_path / "big.swf"
    swf.write_text("; MaxProcs: 1024\n"
                   "1 0 -1 100 512 -1 -1 512 200 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
                   "2 10 -1 100 64 -1 -1 64 200 -1 1 -1 -1 -1 -1 -1 -1 -1\n")
    out = tmp_path / "run"
    assert main(["run", "--workload", str(swf), "--scheduler", "bgl-fcfs",
                 "--out", str(out)]) == 0
    doc = json.loads((out / "summary.json").read_text())
    assert (doc["workload"]["machine_size"], doc["options"]["machine_size"]) == (1024, 128)
    assert doc["workload"]["loader"]["sizes_scaled"] == 2
    assert "`options.machine_size` is the simulated machine, `workload.machine_size`" in OUTPUTS


def test_every_status_a_job_can_end_with_is_in_the_status_row():
    """jobs.csv's `status`: completed, killed (--overrun kill), or the reason a job was ended
    for good with (`sim.kill(job, reason, requeue=False)`: the bound's `bad`, a plug-in's
    `preempt`, `failure`, `eviction`)."""
    from ckptsim.engine.verbs import KILL_REASONS
    from ckptsim.records.jobs import COLUMN_DOCS

    row = next(line for line in OUTPUTS.splitlines() if line.startswith("| `status` |"))
    for status in ("completed", "killed", *KILL_REASONS):
        assert re.search(rf"`{status}`", row), status
        assert re.search(rf"\b{status}\b", COLUMN_DOCS["status"]), status
