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
