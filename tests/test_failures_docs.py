"""The Python examples of docs/failures.md run as written."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "failures.md"
FAILURES = ROOT.parent / "shared" / "data" / "failures"


def blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


def test_examples_without_data_run() -> None:
    standalone = [b for b in blocks() if "../shared" not in b and "LANL" not in b
                  and "FTA" not in b]
    assert len(standalone) >= 2
    for code in standalone:
        exec(compile(code, str(DOC), "exec"), {})


def test_all_examples_run_in_order() -> None:
    if not FAILURES.exists():
        pytest.skip(f"real failure data not available at {FAILURES} (../shared/data is not part "
                    f"of the repository)")
    namespace: dict[str, object] = {}
    cwd = os.getcwd()
    os.chdir(ROOT)  # the examples use paths relative to the repository
    try:
        for code in blocks():
            exec(compile(code, str(DOC), "exec"), namespace)
    finally:
        os.chdir(cwd)
