"""The command line's help and the README's option table of `run` say the same as the parser:
every option of every command has a help line naming its default, and the README lists every
option of `run` and nothing else."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from ckptsim.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]


def subparsers() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def options(parser: argparse.ArgumentParser) -> set[str]:
    return {s for a in parser._actions for s in a.option_strings
            if s.startswith("--") and s != "--help"}


def readme_run_options() -> set[str]:
    """The options named in the first cell of each row of the README's table of `run`."""
    text = (ROOT / "README.md").read_text()
    section = text.split("Options of `run`:", 1)[1].split("\n## ", 1)[0]
    found: set[str] = set()
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        first = re.split(r"(?<!\\)\|", line)[1]
        found |= set(re.findall(r"--[a-z][a-z-]*", first))
    return found


def test_readme_table_lists_every_option_of_run():
    parser, table = options(subparsers()["run"]), readme_run_options()
    assert parser - table == set(), "options of `run` missing from the README's table"
    assert table - parser == set(), "options in the README's table that `run` does not have"


ACTIONS = [pytest.param(name, action, id=f"{name} {action.dest}")
           for name, parser in subparsers().items() for action in parser._actions
           if not isinstance(action, argparse._HelpAction)]


@pytest.mark.parametrize(("command", "action"), ACTIONS)
def test_every_option_has_help_with_its_default(command, action):
    assert action.help and action.help.strip() and action.help != argparse.SUPPRESS
    default = action.default
    if default not in (None, False, argparse.SUPPRESS) and not action.required:
        assert "default" in action.help, (command, action.dest)
        assert str(default) in action.help, (command, action.dest, default)


def test_run_help_names_every_workload_form():
    from ckptsim.workload.source import GENERATORS

    workload = next(a for a in subparsers()["run"]._actions if a.dest == "workload")
    for form in ("builtin", *(f"{name}:" for name in GENERATORS)):
        assert form in workload.help, form


def test_run_help_names_every_scheduler():
    from ckptsim.policies.base import scheduler_names

    scheduler = next(a for a in subparsers()["run"]._actions if a.dest == "scheduler")
    for name in scheduler_names():
        assert re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", scheduler.help), name


def test_every_option_of_every_command_is_documented():
    """Each option of each command is named in the README or a page of docs/ (paper's
    --start and --system were in its help only)."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    text = "\n".join(p.read_text() for p in pages)
    missing = [f"{name} {option}" for name, parser in subparsers().items()
               for option in sorted(options(parser))
               if not re.search(re.escape(option) + r"(?![\w-])", text)]
    assert not missing, missing
