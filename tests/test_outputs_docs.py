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
