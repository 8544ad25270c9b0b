"""docs/pool.md stays true: its example and commands run, every parameter is documented."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest

from ckptsim.platform.usermodel import UserModel
from ckptsim.workload.htc import OPTIONS, HTCParams

ROOT = Path(__file__).resolve().parents[1]
TEXT = (ROOT / "docs" / "pool.md").read_text()


def test_python_example_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", TEXT, flags=re.S)
    assert blocks
    for code in blocks:
        exec(compile(code, "docs/pool.md", "exec"), {})
    assert capsys.readouterr().out.strip()


@pytest.mark.parametrize("command", [ln.strip() for b in re.findall(r"```bash\n(.*?)```", TEXT,
                                                                   flags=re.S)
                                     for ln in b.splitlines() if ln.startswith("ckptsim ")])
def test_command_runs(command, tmp_path):
    args = shlex.split(command)[1:]
    args = [str(tmp_path / "out") if args[i - 1] == "--out" else a for i, a in enumerate(args)]
    done = subprocess.run([sys.executable, "-m", "ckptsim", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "summary.json").exists()


def test_every_parameter_is_documented():
    for f in (*fields(UserModel), *fields(HTCParams)):
        assert f"`{f.name}`" in TEXT, f.name
    for option in OPTIONS:
        assert f"`{option}`" in TEXT, option
