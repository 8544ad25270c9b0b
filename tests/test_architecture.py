"""docs/architecture.md stays true: its priority table is the registry's, its verb and hook
tables name every verb and hook, its file list names every package and engine module."""

from __future__ import annotations

import inspect
from pathlib import Path

from ckptsim.engine.components import HOOKS, component_names
from ckptsim.engine.events import priority_table
from ckptsim.engine.simulator import Simulator
from ckptsim.policies.base import Scheduler

ROOT = Path(__file__).resolve().parents[1]
TEXT = (ROOT / "docs" / "architecture.md").read_text()
SRC = ROOT / "src" / "ckptsim"


def section(title: str) -> str:
    return TEXT.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_priority_table_is_the_registry():
    rows = [line for line in section("The engine").splitlines() if line.startswith("| ")]
    documented = [tuple(c.strip() for c in row.strip("|").split("|")) for row in rows[1:]]
    component_names()  # the built-in components register their event kinds
    assert documented == priority_table()


def test_every_verb_is_in_the_verb_table():
    not_verbs = {"run", "advance", "add_component", "component", "release_jobs"}
    verbs = [name for name, _ in inspect.getmembers(Simulator, inspect.isfunction)
             if not name.startswith("_") and name not in not_verbs]
    table = section("Verbs")
    assert {"start", "checkpoint", "kill", "migrate", "set_rate", "at"} <= set(verbs)
    for verb in verbs:
        assert f"`sim.{verb}(" in table, verb


def test_every_hook_is_in_the_hook_table():
    policy_hooks = [name for name, _ in inspect.getmembers(Scheduler, inspect.isfunction)
                    if name.startswith("on_") or name == "schedule"]
    table = section("Hooks")
    for hook in [*policy_hooks, *HOOKS]:
        assert f"| `{hook}(" in table, hook


def test_the_file_list_covers_every_package_and_engine_module():
    files = section("Files")
    for path in sorted(SRC.iterdir()):
        if path.is_dir() and (path / "__init__.py").exists():
            assert f"  {path.name}/" in files, path.name
        elif path.suffix == ".py" and not path.name.startswith("__"):
            assert f"  {path.name}" in files, path.name
    for module in sorted((SRC / "engine").glob("*.py")):
        if module.stem != "__init__":
            assert module.stem in files.split("engine/", 1)[1].split("failures/", 1)[0], module
