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


def test_the_log_longer_than_the_run_counts_what_the_quoted_run_met() -> None:
    """The page's run of the whole of LANL system 20 under a 300-job workload meets 180 of
    the log's 2,478 failures."""
    import ckptsim

    log = FAILURES / "lanl_cfdr" / "LA-UR-05-7318-failure-data-1996-2005.csv.gz"
    if not log.exists():
        pytest.skip(f"real failure data not available at {log}")
    text = " ".join(DOC.read_text().split())
    quoted = re.search(r"300-job workload: (\d+) of its ([\d,]+) failures fall in the run of "
                       r"`ckptsim run --workload (\S+) --failures lanl:path=\S+?,system=(\d+)`",
                       text)
    assert quoted, "the run is not quoted"
    met, held, workload, system = quoted.groups()
    run = ckptsim.simulate(workload, "easy", failures=f"lanl:path={log},system={system}")
    assert run.summary["jobs"] == 300
    assert (run.summary["failures"], run.options["failures"]["failures"]) == (
        int(met), int(held.replace(",", "")))


def test_the_reader_and_transform_lines_are_what_the_quoted_command_prints(
        capsys: pytest.CaptureFixture[str]) -> None:
    if not FAILURES.exists():
        pytest.skip(f"real failure data not available at {FAILURES}")
    from ckptsim.cli import main

    text = DOC.read_text()
    at = text.index("**What the reader did, in the run's outputs.**")
    block = re.search(r"```\n(failures loader:.*?)```", text[at:], flags=re.S)
    assert block is not None
    log = "../shared/data/failures/lanl_cfdr/LA-UR-05-7318-failure-data-1996-2005.csv.gz"
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        assert main(["run", "--workload", "lublin:n=300", "--failures",
                     f"lanl:path={log},system=20"]) == 0
        printed = capsys.readouterr().out.splitlines()
        assert main(["run", "--workload", "lublin:n=300", "--failures",
                     f"lanl:path={log},system=20,count=4000"]) == 0
        counted = capsys.readouterr().out.splitlines()
    finally:
        os.chdir(cwd)
    for line in block.group(1).splitlines():
        assert line in printed
    line = next(x for x in counted if x.startswith("failures transforms: "))
    assert " ".join(line.removeprefix("failures transforms: ").split()) in " ".join(
        text[at:].split())
