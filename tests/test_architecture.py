"""docs/architecture.md stays true: its priority table is the registry's, its verb and hook
tables name every verb and hook, its file list names every package and every module of the engine
and of the components; the engine and the platform import nothing of the layers above them;
checkpointing's private names and the plug-in registries stay in their modules."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

from ckptsim.components import component_names
from ckptsim.engine.components import HOOKS
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
    # The run's lifecycle and lookups, not verbs a policy acts through.
    not_verbs = {"run", "advance", "add_component", "component", "provider", "release_jobs",
                 "check_ready"}
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


def test_the_file_list_covers_every_package_and_the_engine_and_component_modules():
    files = section("Files")
    for path in sorted(SRC.iterdir()):
        if path.is_dir() and (path / "__init__.py").exists():
            assert f"  {path.name}/" in files, path.name
        elif path.suffix == ".py" and not path.name.startswith("__"):
            assert f"  {path.name}" in files, path.name
    for package in ("engine", "components"):
        entry = re.split(r"\n  (?! )", files.split(f"\n  {package}/", 1)[1], maxsplit=1)[0]
        for module in sorted((SRC / package).glob("*.py")):
            if module.stem != "__init__":
                assert module.stem in entry, module


#: What each layer may not import, at module level or inside functions (TYPE_CHECKING
#: blocks included): the engine is the kernel, below the policies, the components and
#: everything that runs experiments; the platform describes machines (data) and sits below it.
FORBIDDEN = {
    "engine": ("ckptsim.policies", "ckptsim.checkpointing", "ckptsim.components",
               "ckptsim.experiments", "ckptsim.cli", "ckptsim.metrics", "ckptsim.records",
               "ckptsim.plots", "ckptsim.runner"),
    "platform": ("ckptsim.engine", "ckptsim.policies", "ckptsim.checkpointing",
                 "ckptsim.components", "ckptsim.experiments", "ckptsim.cli", "ckptsim.metrics",
                 "ckptsim.records", "ckptsim.plots", "ckptsim.runner"),
}


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import in a file, wherever it is (functions, TYPE_CHECKING
    blocks); `from ckptsim import x` counts as `ckptsim.x`, a relative import as its
    absolute name."""
    package = ("ckptsim." + ".".join(path.relative_to(SRC).parent.parts)
               if path.is_relative_to(SRC) else "")
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            out += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return out


def test_the_engine_and_the_platform_import_nothing_above_them():
    bad = []
    for layer, forbidden in FORBIDDEN.items():
        for path in sorted((SRC / layer).rglob("*.py")):
            for line, module in imported_modules(path):
                if any(module == f or module.startswith(f + ".") for f in forbidden):
                    bad.append(f"{path.relative_to(SRC)}:{line}: {module}")
    assert not bad, "imports above the layer:\n" + "\n".join(bad)


def _module_name(path: Path) -> str:
    return "ckptsim." + ".".join(path.relative_to(SRC).with_suffix("").parts)


def private_imports(package: str) -> list[str]:
    """`file:line: module.name` of every import, anywhere in the package, of a private name
    of a module of `package` (``ckptsim.checkpointing``) by another module."""
    bad = []
    for path in sorted(SRC.rglob("*.py")):
        own = _module_name(path)
        for line, module in imported_modules(path):
            owner, _, name = module.rpartition(".")
            if (owner.startswith(package) and owner != own
                    and name.startswith("_") and not name.startswith("__")):
                bad.append(f"{path.relative_to(SRC)}:{line}: {module}")
    return bad


def test_checkpointing_s_private_names_stay_in_their_modules():
    """The package reads a plan string and finds a policy through checkpointing's public
    functions (`split_plan`, `split_name`, `get_policy`, `known_policy`, `policy_classes`,
    `structured_plan`), not a private name of another of its modules (the registry, the plan
    string's pattern)."""
    bad = private_imports("ckptsim.checkpointing")
    assert not bad, "private names of checkpointing imported:\n" + "\n".join(bad)


def test_the_records_private_names_stay_in_their_modules():
    """What the writers of records share (the rows written at once, `CHUNK_ROWS`) is public."""
    bad = private_imports("ckptsim.records")
    assert not bad, "private names of records imported:\n" + "\n".join(bad)


def test_the_registries_are_reached_through_their_public_functions():
    """No module of the package, nor a test, imports another module's registry: schedulers,
    components and checkpoint policies are looked up and listed through their public
    functions (`get_scheduler`, `scheduler_classes`, `get_component`, `component_classes`,
    `split_component_name`, `get_policy`, `policy_names`, `policy_classes`, ...)."""
    bad = []
    for path in sorted([*SRC.rglob("*.py"), *(ROOT / "tests").glob("*.py")]):
        own = _module_name(path) if path.is_relative_to(SRC) else ""
        for line, module in imported_modules(path):
            owner, _, name = module.rpartition(".")
            if name == "_registry" and owner != own:
                bad.append(f"{path.relative_to(ROOT)}:{line}: {module}")
    assert not bad, "registries imported:\n" + "\n".join(bad)


def test_the_import_check_sees_imports_inside_functions():
    module = SRC / "engine" / "simulator.py"
    found = {m for _, m in imported_modules(module)}
    assert "ckptsim.engine.invariants.InvariantChecker" in found  # imported inside __init__
    assert "ckptsim.engine.policy.Policy" in found  # a TYPE_CHECKING import


def _calls(path: Path) -> list[tuple[int, ast.Call]]:
    return [(node.lineno, node) for node in ast.walk(ast.parse(path.read_text(), str(path)))
            if isinstance(node, ast.Call)]


def test_no_component_is_looked_up_by_name_inside_the_package():
    """Components, policies and checkpoint policies find a component by what it provides
    (`sim.provider(Protocol)`, ckptsim.engine.provides); `sim.component(name)` is for users."""
    bad = []
    for path in sorted(SRC.rglob("*.py")):
        for line, call in _calls(path):
            func = call.func
            if isinstance(func, ast.Attribute) and func.attr == "component":
                bad.append(f"{path.relative_to(SRC)}:{line}")
    assert not bad, "component lookups by name:\n" + "\n".join(bad)


def test_only_the_engine_dispatches_before_eviction_and_before_unavailable():
    """Components call `sim.evict` and `sim.announce_unavailable`; the kernel's verbs walk
    the hook lists."""
    bad = []
    for path in sorted(SRC.rglob("*.py")):
        if path.relative_to(SRC).parts[0] == "engine":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            target = None
            if isinstance(node, (ast.For, ast.comprehension)):
                target = node.iter
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript):
                target = node.func.value
            if (isinstance(target, ast.Attribute)
                    and target.attr in ("before_eviction", "before_unavailable")
                    and isinstance(target.value, ast.Attribute)
                    and target.value.attr == "hooks"):
                bad.append(f"{path.relative_to(SRC)}:{getattr(node, 'lineno', '?')}")
    assert not bad, "hook dispatches outside the engine:\n" + "\n".join(bad)


def test_the_dispatch_check_sees_a_loop_over_the_hooks(tmp_path):
    sample = tmp_path / "x.py"
    sample.write_text("for hook in sim.hooks.before_eviction:\n    hook(now, job, 'x')\n")
    tree = ast.parse(sample.read_text())
    loops = [n.iter for n in ast.walk(tree) if isinstance(n, ast.For)]
    assert loops and loops[0].attr == "before_eviction" and loops[0].value.attr == "hooks"
