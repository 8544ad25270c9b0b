"""docs/pool.md stays true: its example and commands run, every parameter is documented."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

import pytest
from helpers import doc_commands, run_doc_command

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


@pytest.mark.parametrize("command", doc_commands(TEXT))
def test_command_runs(command, tmp_path):
    run_doc_command(command, tmp_path)


def test_every_parameter_is_documented():
    for f in (*fields(UserModel), *fields(HTCParams)):
        assert f"`{f.name}`" in TEXT, f.name
    for option in OPTIONS:
        assert f"`{option}`" in TEXT, option
