"""Results as pandas DataFrames: `RunResult.to_pandas`, `ckptsim.load_run`,
`ckptsim.load_results`; the summaries shown in notebooks; the example notebook
(docs/examples/pandas.ipynb) and the pandas snippet of docs/outputs.md run as they are."""

from __future__ import annotations

import ast
import csv
import io
import json
import math
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from helpers import doc_commands, jobs, run_ckptsim

import ckptsim
from ckptsim.errors import ConfigError
from ckptsim.experiments.execute import SerialExecutor
from ckptsim.experiments.results import export_columns, to_csv
from ckptsim.experiments.store import StoreError, load_store
from ckptsim.experiments.sweep import plan_sweep, run_sweep
from ckptsim.frames import DamagedStoreWarning, allocations_frame, unavailability_frame
from ckptsim.records.allocations import AllocationLog, AllocationRecorder, write_records
from ckptsim.records.io import write_jobs_csv, write_schedule_swf, write_summary_json

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "docs" / "examples" / "pandas.ipynb"


def small():
    """Two nodes; EASY backfills job 3 (one node, ends at 30) before job 2 (two nodes) can
    start at 100, when job 1 ends."""
    return jobs([(0, 100, 1, 100), (0, 50, 2, 50), (10, 20, 1, 20)], 2)


def write_run(result, out: Path, log=None) -> Path:
    """What `ckptsim run --out` writes (`ckptsim.cli.common.write_outputs`)."""
    out.mkdir(parents=True, exist_ok=True)
    write_jobs_csv(result.table, out / "jobs.csv")
    write_summary_json(result.summary_document(), out / "summary.json")
    write_schedule_swf(result.workload, result.table, out / "schedule.swf",
                       scheduler=result.scheduler)
    if log is not None:
        write_records(log, result.table, out)
    return out


# --- RunResult.to_pandas --------------------------------------------------------------------
def test_to_pandas_of_the_readme_run_has_a_row_per_job():
    w = ckptsim.workload("lublin:n=300,seed=1")
    result = ckptsim.simulate(w, "easy")
    frame = result.to_pandas()
    assert isinstance(frame, pd.DataFrame) and frame.shape == (300, len(result.table.names))
    assert list(frame.columns) == list(result.table.names)
    assert frame["job_id"].tolist() == w.job_id.tolist()
    assert list(frame.index) == list(range(300))
    assert frame["wait"].mean() == pytest.approx(result.summary["mean_wait"])


def test_to_pandas_values_of_a_hand_checked_schedule():
    frame = ckptsim.simulate(small(), "easy").to_pandas()
    assert frame["job_id"].tolist() == [1, 2, 3]
    assert frame["start"].tolist() == [0.0, 100.0, 10.0]
    assert frame["end"].tolist() == [100.0, 150.0, 30.0]
    assert frame["wait"].tolist() == [0.0, 100.0, 0.0]
    assert frame["backfilled"].tolist() == [False, False, True]
    assert frame["status"].tolist() == ["completed"] * 3
    assert frame["bsld"].tolist() == [1.0, 3.0, 1.0]
    dtypes = {c: str(frame[c].dtype) for c in ("job_id", "size", "n_kills", "start", "bsld",
                                                 "backfilled")}
    assert dtypes == {"job_id": "int64", "size": "int64", "n_kills": "int64",
                      "start": "float64", "bsld": "float64", "backfilled": "bool"}


def test_to_pandas_keeps_a_components_column():
    result = ckptsim.simulate(small(), "easy",
                              components={"energy": {"active": 100, "idle": 10, "sleep": 1}})
    frame = result.to_pandas()
    assert frame.columns[-1] == "energy"
    # job 1: one node of two for 100 s at 100 W
    assert frame["energy"].tolist()[0] == pytest.approx(100 * 100)


# --- load_run -------------------------------------------------------------------------------
def recorded(workload, scheduler, **options):
    log = AllocationLog()  # the recorder is emptied after the run: its log is kept here
    result = ckptsim.simulate(workload, scheduler, recorders=[AllocationRecorder(log)],
                              **options)
    return result, log


def test_load_run_reads_back_the_run_in_memory(tmp_path):
    result, log = recorded(small(), "easy")
    run = ckptsim.load_run(write_run(result, tmp_path / "run", log))
    pd.testing.assert_frame_equal(run.jobs, result.to_pandas())
    assert run.summary == json.loads((tmp_path / "run" / "summary.json").read_text())
    assert run.summary["scheduler"] == "easy"
    pd.testing.assert_frame_equal(run.allocations, allocations_frame(log))
    assert run.allocations.to_dict("list") == {
        "job_id": [1, 3, 2], "attempt": [1, 1, 1], "start": [0.0, 10.0, 100.0],
        "end": [100.0, 30.0, 150.0], "nodes": ["0", "1", "0-1"],
        "ended": ["completed"] * 3}
    assert list(run.unavailability.columns) == ["reason", "start", "end", "nodes"]
    assert len(run.unavailability) == 0  # no node left service
    assert run.out_jobs["job_id"].tolist() == [1, 2, 3]
    assert run.out_jobs["allocated_resources"].tolist() == ["0", "0-1", "1"]
    assert run.out_jobs["profile"].tolist() == [""] * 3


def test_a_plugins_text_columns_are_written_and_read_back(tmp_path):
    """A component's per-job texts (docs/plugins.md: numbers or strings): one text for every
    job (numpy's `<U` arrays stopped `ckptsim run --out` with a ufunc error), and texts with
    a comma, a quote or a space, which CSV quotes; `load_run` gives what `to_pandas` gave."""
    from ckptsim.engine.components import Component

    class Tags(Component):
        name = "tags"

        def job_columns(self):
            return {"same": ["x", "x", "x"], "parity": ["even", "odd", "even"],
                    "note": ["a,b", 'say "hi"', "two words"]}

    result = ckptsim.simulate(small(), "easy", components=[Tags()])
    run = ckptsim.load_run(write_run(result, tmp_path / "run"))
    pd.testing.assert_frame_equal(run.jobs, result.to_pandas())
    assert run.jobs["note"].tolist() == ["a,b", 'say "hi"', "two words"]
    assert run.jobs["same"].tolist() == ["x"] * 3


def test_load_run_summary_has_the_numbers_of_the_run_in_memory(tmp_path):
    """A metric NaN in memory (no job of a class) is NaN read back, not None (JSON's null);
    an infinite one infinite; a param that is None stays None."""
    result = ckptsim.simulate("lublin:n=200,seed=1", "scojo-pect")
    metrics = dict(result.summary, inf_metric=math.inf)
    nan = [k for k, v in metrics.items() if isinstance(v, float) and math.isnan(v)]
    assert nan  # the run has NaN metrics (scojo-pect's short wide jobs: none)
    out = tmp_path / "run"
    out.mkdir()
    document = dict(result.summary_document(), metrics=metrics)
    write_summary_json(document, out / "summary.json")
    write_jobs_csv(result.table, out / "jobs.csv")
    run = ckptsim.load_run(out)
    read = run.summary["metrics"]
    assert set(read) == set(metrics)
    for key, value in metrics.items():
        assert read[key] == value or math.isnan(read[key]) and math.isnan(value), key
    assert read["inf_metric"] == math.inf
    assert [k for k in result.params if result.params[k] is None] == [
        k for k in run.summary["params"] if run.summary["params"][k] is None] != []


def test_load_run_values_equal_jobs_csv(tmp_path):
    result = ckptsim.simulate(ckptsim.workload("lublin:n=200,seed=2,machine=32"), "fcfs")
    run = ckptsim.load_run(write_run(result, tmp_path / "run"))
    with open(tmp_path / "run" / "jobs.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(run.jobs) == 200
    for column in run.jobs.columns:
        for text, value in zip((r[column] for r in rows), run.jobs[column].tolist(),
                               strict=True):
            if column == "status":
                assert value == text
            elif text == "":
                assert math.isnan(value)
            else:
                assert float(value) == float(text), column


def test_load_run_of_a_run_with_failures_has_down_time(tmp_path):
    w = jobs([(0, 400, 2, 500), (100, 300, 2, 400), (200, 50, 1, 60)], 4)
    result, log = recorded(w, "ckpt-backfill", failures="synthetic:mtbf=100,repair_mean=30,seed=3")
    run = ckptsim.load_run(write_run(result, tmp_path / "run", log))
    pd.testing.assert_frame_equal(run.unavailability, unavailability_frame(log))
    assert len(run.unavailability) == len(log.down) > 0
    assert set(run.unavailability["reason"]) == {"failure"}
    assert (run.unavailability["end"] >= run.unavailability["start"]).all()
    assert len(run.allocations) == len(log.ended)
    # every attempt of a job ends where its next begins or later, the last at the job's end
    last = run.allocations.groupby("job_id")["end"].max()
    ends = run.jobs.set_index("job_id")["end"]
    assert (last == ends.loc[last.index]).all()


def test_load_run_without_recorded_allocations(tmp_path):
    result = ckptsim.simulate(small(), "fcfs")
    run = ckptsim.load_run(write_run(result, tmp_path / "run"))  # as `ckptsim demo --out`
    assert (run.allocations, run.unavailability, run.out_jobs) == (None, None, None)
    assert len(run.jobs) == 3 and "not recorded" in run._repr_html_()
    assert repr(run).startswith("RunFolder(") and "jobs=3" in repr(run)


def test_load_run_names_what_is_missing(tmp_path):
    with pytest.raises(ConfigError, match=r"run_dir: .*nowhere: no such folder"):
        ckptsim.load_run(tmp_path / "nowhere")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ConfigError, match=r"not a run folder: no jobs.csv or summary.json"):
        ckptsim.load_run(empty)
    (empty / "jobs.csv").write_text("job_id\n1\n")
    with pytest.raises(ConfigError, match=r"not a run folder: no summary.json \("):
        ckptsim.load_run(empty)
    (empty / "summary.json").write_text("{}")
    with pytest.raises(ConfigError, match=r"jobs.csv: unreadable \(no column submit, start"):
        ckptsim.load_run(empty)


def test_load_run_names_a_damaged_file(tmp_path):
    result, log = recorded(small(), "easy")
    out = write_run(result, tmp_path / "run", log)
    (out / "summary.json").write_text("{not json")
    with pytest.raises(ConfigError, match=r"summary.json: unreadable"):
        ckptsim.load_run(out)
    write_run(result, out, log)
    (out / "allocations.csv").write_text("job_id,attempt\n1,x\n")
    with pytest.raises(ConfigError, match=r"allocations.csv: unreadable \(no column start"):
        ckptsim.load_run(out)


# --- load_results ---------------------------------------------------------------------------
SPEC = """
name = "t"
seeds = [{seeds}]
metrics = ["mean_wait", "mean_bsld"]

[workloads.model]
generator = "lublin"
n = [100, 150]
machine = 32

[[schedulers]]
name = "fcfs"

[[schedulers]]
name = "easy"
"""


def sweep(tmp_path: Path, seeds: str) -> Path:
    spec = tmp_path / "t.toml"
    spec.write_text(SPEC.format(seeds=seeds))
    out = tmp_path / "store"
    run_sweep(plan_sweep(spec, out), out, SerialExecutor())
    return out


def test_load_results_has_a_row_per_run_as_results_csv(tmp_path):
    store = sweep(tmp_path, "1, 2")
    frame = ckptsim.load_results(store)
    assert len(frame) == 2 * 2 * 2
    rows = load_store(store).rows
    assert frame["run_id"].tolist() == [r["run_id"] for r in rows]  # the matrix order
    assert list(frame.columns) == export_columns(rows)
    assert {"scheduler", "workload.n", "seed", "status", "mean_wait"} <= set(frame.columns)
    assert sorted(frame.groupby("scheduler").size().items()) == [("easy", 4), ("fcfs", 4)]
    # the values `ckptsim results DIR --csv` writes
    text = to_csv(export_columns(rows), rows)
    exported = pd.read_csv(io.StringIO(text))
    for column in ("workload.n", "seed", "mean_wait", "mean_bsld", "utilization"):
        assert frame[column].tolist() == exported[column].tolist(), column
    assert frame.attrs["damaged_runs"] == [] and frame.attrs["damaged_jobs"] == []


@pytest.mark.parametrize("broken", [False, True], ids=["all-ok", "with-a-failed-run"])
def test_load_results_equals_results_csv_read_back(tmp_path, broken):
    """Missing values are NaN, as pandas reads them from `results --csv`: an ok run's error
    columns, a failed run's metrics; a column of nothing else is float64."""
    spec = tmp_path / "t.toml"
    text = SPEC.format(seeds="1")
    if broken:
        (tmp_path / "broken.swf").write_text("; MaxProcs: 8\n1 0 -1 10 not-a-number\n")
        text += '\n[workloads.broken]\ntrace = "broken.swf"\n'
    spec.write_text(text)
    store = tmp_path / "store"
    run_sweep(plan_sweep(spec, store), store, SerialExecutor())
    frame = ckptsim.load_results(store)
    rows = load_store(store).rows
    exported = pd.read_csv(io.StringIO(to_csv(export_columns(rows), rows)))
    pd.testing.assert_frame_equal(frame, exported)
    assert frame["error_message"].isna().sum() == 4
    assert all(v is not None for v in frame["error_message"])


def test_load_results_leaves_out_a_damaged_run_file_and_names_it(tmp_path):
    sweep(tmp_path, "1")
    store = sweep(tmp_path, "1, 2")  # a second run table: the seed-2 runs
    tables = sorted((store / "runs").glob("part-*.parquet"))
    assert len(tables) == 2
    data = bytearray(tables[0].read_bytes())
    data[len(data) // 2] ^= 0xFF
    tables[0].write_bytes(bytes(data))
    with pytest.warns(DamagedStoreWarning, match=re.escape(tables[0].name)):
        frame = ckptsim.load_results(store)
    assert frame["seed"].tolist() == [2, 2, 2, 2]  # the runs of the sound file
    assert [Path(f).name for f, _ in frame.attrs["damaged_runs"]] == [tables[0].name]


def test_load_results_of_the_latest_matrix_or_of_every_run(tmp_path):
    sweep(tmp_path, "1, 2")
    store = sweep(tmp_path, "1")  # the spec shrank: the seed-2 runs stay in the store
    assert ckptsim.load_results(store)["seed"].tolist() == [1, 1, 1, 1]
    assert sorted(ckptsim.load_results(store, all_runs=True)["seed"]) == [1] * 4 + [2] * 4


def test_load_results_of_what_is_not_a_store(tmp_path):
    with pytest.raises(StoreError, match="not a results store"):
        ckptsim.load_results(tmp_path)


# --- import cost and display ----------------------------------------------------------------
def test_import_ckptsim_does_not_import_pandas():
    code = ("import sys, ckptsim\n"
            "ckptsim.load_run, ckptsim.load_results, ckptsim.simulate\n"
            "r = ckptsim.simulate(ckptsim.workload('lublin:n=50,seed=1'), 'easy')\n"
            "repr(r), r._repr_html_(), r.workload._repr_html_()\n"
            "assert 'pandas' not in sys.modules, 'pandas imported'\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr


def test_exports_are_listed_and_documented():
    for name in ("load_run", "load_results", "simulate", "workload"):
        assert name in ckptsim.__all__ and name in dir(ckptsim)
        assert f"ckptsim.{name}(" in ckptsim.__doc__
    from ckptsim import frames

    assert (ckptsim.load_run, ckptsim.load_results) == (frames.load_run, frames.load_results)


def test_summaries_are_short_tables_not_arrays():
    w = ckptsim.workload("lublin:n=300,seed=1,machine=64", first=200)
    result = ckptsim.simulate(w, "easy")
    for text in (repr(w), repr(result)):
        assert len(text) < 300 and "array" not in text and "\n" not in text
    assert repr(w) == ("Workload(source='lublin(n=300, P=64, typed=False, seed=1, "
                       "estimates=tsafrir)', jobs=200, machine_size=64, transforms=1)")
    page = result._repr_html_()
    assert page.startswith("<table>") and "array" not in page and len(page) < 3000
    for shown in ("<td style=\"text-align:left\">easy</td>", ">200<", ">64<", ">mean_wait<",
                  "requeue=front"):
        assert shown in page, shown
    page = w._repr_html_()
    assert ">200<" in page and "first_n(200)" in page and "offered load" in page


def test_numbers_in_summaries():
    import numpy as np

    from ckptsim.display import number

    assert [number(v) for v in (3, np.int64(12345), 2.5, np.float64(12929.8), 275922.0,
                                0.56211, float("nan"), 1e20, "x")] == [
        "3", "12,345", "2.5", "12,930", "275,922", "0.5621", "nan", "1e+20", "x"]


def test_html_is_escaped():
    w = jobs([(0, 10, 1, 10)], 1)
    w = type(w)(**{**w.__dict__, "source": "<b>x</b> & y"})
    page = w._repr_html_()
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt; &amp; y" in page


# --- the notebook and the docs run as they are ----------------------------------------------
def run_cells(cells: list[str], namespace: dict) -> None:
    """Run code cells in order, as a notebook does: a cell's last expression is shown (its
    HTML, when it has some)."""
    for source in cells:
        tree = ast.parse(source)
        last = tree.body[-1] if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        body = ast.Module(body=tree.body[:-1] if last else tree.body, type_ignores=[])
        exec(compile(body, "<cell>", "exec"), namespace)
        if last is not None:
            value = eval(compile(ast.Expression(last.value), "<cell>", "eval"), namespace)
            if hasattr(value, "_repr_html_"):
                assert value._repr_html_()
            repr(value)


def test_notebook_is_valid_nbformat_4():
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    assert nb["nbformat"] == 4 and nb["cells"]
    for cell in nb["cells"]:
        assert cell["cell_type"] in ("markdown", "code") and isinstance(cell["source"], list)
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None
    try:
        import nbformat
    except ImportError:
        return
    nbformat.validate(nbformat.reads(NOTEBOOK.read_text(encoding="utf-8"), as_version=4))


def test_notebook_code_runs(tmp_path, monkeypatch):
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    cells = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__main__"}
    run_cells(cells, namespace)
    assert len(namespace["jobs"]) == 2 * 500
    assert len(namespace["runs"]) == 12 and set(namespace["runs"]["status"]) == {"ok"}
    assert not Path(namespace["scratch"].name).exists()  # cleaned up
    assert list(tmp_path.iterdir()) == []  # nothing written where it ran


def pandas_section() -> str:
    text = (ROOT / "docs" / "outputs.md").read_text(encoding="utf-8")
    return text[text.index("## pandas"):]


def run_outputs_md_pandas(tmp_path: Path, *, real_sweep: bool) -> None:
    """The section's commands (from the repository root, their --out under `tmp_path`; the
    sweep of a smaller spec of the same shape unless `real_sweep`), then its Python from
    `tmp_path`, where those folders are."""
    section = pandas_section()
    commands = doc_commands(section)
    assert [c.split()[1] for c in commands] == ["run", "sweep"]
    for command in commands:
        args = shlex.split(command)[1:]
        if args[0] == "sweep" and not real_sweep:
            small_spec = tmp_path / "small.toml"
            small_spec.write_text(SPEC.format(seeds="1"))
            args[1] = str(small_spec)
        args = [str(tmp_path / a) if args[i - 1] == "--out" else a for i, a in enumerate(args)]
        status, _, err = run_ckptsim(args, ROOT)  # the entry point, in this process
        assert status == 0, err
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert len(blocks) == 2
    cwd = Path.cwd()
    try:
        os.chdir(tmp_path)
        run_cells(blocks, {"__name__": "__main__"})
    finally:
        os.chdir(cwd)


def test_outputs_md_pandas_snippets_run(tmp_path):
    run_outputs_md_pandas(tmp_path, real_sweep=False)


@pytest.mark.slow
def test_outputs_md_pandas_snippets_run_with_the_sweep_shown(tmp_path):
    run_outputs_md_pandas(tmp_path, real_sweep=True)
