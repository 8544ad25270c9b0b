"""The docs stay true: every jobs.csv column is documented, every summary metric too."""

from __future__ import annotations

from pathlib import Path

from helpers import jobs

from ckptsim.records.jobs import ALL_COLUMNS
from ckptsim.runner import simulate

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_every_jobs_csv_column_is_documented():
    text = (DOCS / "outputs.md").read_text()
    for column in ALL_COLUMNS:
        assert f"| `{column}` |" in text, column


def test_every_summary_metric_is_documented():
    text = (DOCS / "metrics.md").read_text()
    summary = simulate(jobs([(0, 10, 1, 10)], 2), "easy").summary
    for key in summary:
        if key in ("first_submit", "last_end", "machine_size"):
            continue
        assert f"`{key}`" in text, key


def test_the_complete_example_spec_of_experiments_md_is_valid(tmp_path):
    """docs/experiments.md's "complete example" (every key shown) loads as written, with the
    traces where they are (its figure averaged runs of several failure counts)."""
    import re

    import pytest
    from helpers import TRACES

    from ckptsim.experiments.matrix import build_matrix
    from ckptsim.experiments.spec import load_spec

    if not TRACES.is_dir():
        pytest.skip(f"the traces of ../shared/data are absent ({TRACES})")
    text = (DOCS / "experiments.md").read_text()
    block = re.search(r"A complete example.*?```toml\n(.*?)```", text, re.S).group(1)
    spec = tmp_path / "alpha-study.toml"
    spec.write_text(block)
    loaded = load_spec(spec, trace_dir=TRACES)
    assert loaded.name == "alpha-study" and len(build_matrix(loaded)) == 168
