"""The examples of docs/energy.md run as written: Python blocks and `ckptsim` commands."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest

from ckptsim.cli import main

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "energy.md"
SHARED = ROOT.parent / "shared" / "data"


def blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", DOC.read_text(), flags=re.S)


def test_python_examples_run() -> None:
    codes = blocks("python")
    assert len(codes) >= 3
    for code in codes:
        exec(compile(code, str(DOC), "exec"), {})


def test_commands_run(capsys: pytest.CaptureFixture[str]) -> None:
    if not SHARED.exists():
        pytest.skip(f"real traces not available at {SHARED}")
    commands = [line for b in blocks("sh") for line in b.splitlines() if line.strip()]
    assert len(commands) >= 3
    cwd = os.getcwd()
    os.chdir(ROOT)  # the commands use paths relative to the repository
    try:
        for line in commands:
            argv = shlex.split(line)
            assert argv[0] == "ckptsim"
            assert main(argv[1:]) == 0, line
    finally:
        os.chdir(cwd)
    assert "energy (kWh)" in capsys.readouterr().out
