"""Every `ckptsim ...` command and Python snippet shown in the README runs (from the
repository root), and the README says how to install what a command needs before it."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import doc_commands, run_ckptsim

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


def readme_commands() -> list[str]:
    return doc_commands((ROOT / "README.md").read_text())


#: Commands that take more than ~10 s (a sweep with a failure log, a paper's figure family):
#: opt-in with `python -m pytest -m slow`.
SLOW = ("examples/failures.toml", "paper oliner", "paper jones", "paper forshaw")


def command_params() -> list[object]:
    return [pytest.param(c, marks=pytest.mark.slow) if any(s in c for s in SLOW) else c
            for c in readme_commands()]


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """One folder for the whole README: `results DIR` reads what `sweep --out DIR` wrote."""
    return tmp_path_factory.mktemp("readme")


@pytest.mark.parametrize("command", command_params())
def test_readme_command_runs(command, scratch):
    if "../shared" in command and not SHARED.exists():
        pytest.skip("needs ../shared/data")
    args = shlex.split(command)[1:]
    # Outputs go to a scratch folder, not into the working tree.
    for i, a in enumerate(args):
        if args[i - 1] in ("--out", "--plot", "--csv") and not a.startswith("-"):
            args[i] = str(scratch / Path(a).name)
    if args[0] in ("results", "report"):
        args[1] = str(scratch / Path(args[1]).name)
    if args[0] == "convert":  # the file written
        args[2] = str(scratch / Path(args[2]).name)
    if args[0] == "gantt":  # the run folder it reads
        args[1] = str(scratch / Path(args[1]).name)
    if args[0] == "demo":
        args += ["--jobs", "300"]
    # By the command line's entry point, in this process, from the root (test_cli checks
    # `python -m ckptsim` itself).
    status, _, err = run_ckptsim(args, ROOT)
    assert status == 0, err


def readme_python() -> list[str]:
    import re

    return re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)


def test_readme_python_runs_as_shown_from_the_root():
    blocks = readme_python()
    assert blocks
    for code in blocks:
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip(), code


def test_readme_says_how_to_install_dask_before_using_it():
    text = (ROOT / "README.md").read_text()
    install = text.find("pip install '.[dask]'")  # from a clone; 'ckptsim[dask]' needs ckptsim
    first_use = min(text.index(c) for c in readme_commands() if "--dask" in c)
    assert 0 <= install < first_use
    assert "'ckptsim[dask]'" not in text
