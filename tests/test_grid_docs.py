"""The examples of docs/grid.md run as written and print what the text says."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from ckptsim.cli import main

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "grid.md"
SHARED = ROOT.parent / "shared"


def blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", DOC.read_text(), flags=re.S)


def test_python_examples_print_what_the_comments_say() -> None:
    code = blocks("python")
    assert len(code) == 2
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for block in code:
            exec(compile(block, str(DOC), "exec"), {})
    lines = out.getvalue().splitlines()
    assert lines[:5] == ["[678.4, 678.4, 0.0, 0.0] [339.2, 339.2, 0.0, 0.0]", "(1,) True",
                         "(1, 2) (0, 1)", "0.737 0.903", "(3,)"]
    assert lines[5] == "8000 400 ['cluster', 'kappa', 'ppbw', 'ppbw_estimate']"
    share, rms = map(float, lines[6].split())
    assert abs(share - 0.5) < 0.03 and abs(rms - 0.8 / 3 ** 0.5) < 0.02


@pytest.mark.parametrize("command", [c.strip() for b in blocks("bash") for c in b.splitlines()
                                     if c.startswith("ckptsim ")])
def test_commands_run(command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                      capsys: pytest.CaptureFixture[str]) -> None:
    if "../shared" in command and not SHARED.exists():
        pytest.skip("needs ../shared/data")
    args = shlex.split(command)[1:]
    args[args.index("--out") + 1] = str(tmp_path / "out")
    monkeypatch.chdir(ROOT)
    assert main(args) == 0, capsys.readouterr().err
    assert (tmp_path / "out" / "jobs.csv").exists()


def test_the_seed_size_span_is_what_the_text_says() -> None:
    """docs/grid.md's span of the default workload at the seed's 400,000 jobs per cluster:
    n / lambda = 400,000 x 2,571 s = 1.03e9 s, about 33 years (24 at load 0.95), within the
    10^10 s a trace's times may reach."""
    from ckptsim.limits import MAX_SECONDS
    from ckptsim.workload.grid import GridParams

    text = " ".join(DOC.read_text().split())
    said = re.search(r"defaults span about (\d+) years of simulated time", text)
    at_095 = re.search(r"(\d+) years at the results page's load 0\.95", text)
    assert said and at_095
    year = 365.25 * 86400
    span = 400_000 / GridParams().arrival_rate()
    assert abs(int(said.group(1)) - span / year) < 1
    assert abs(int(at_095.group(1)) - 400_000 / GridParams(load=0.95).arrival_rate() / year) < 1
    assert span < MAX_SECONDS and "within `read_swf`'s 10¹⁰ s" in text
