"""Built-ins are found by scanning their package: a module that registers a plug-in with its
registry's class decorator is imported, helpers are not, and a new module is one file."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from ckptsim.registry import Registry, package_loader, registering_modules


@pytest.fixture
def package(tmp_path, monkeypatch):
    """A package `scanpkg` on sys.path with a registering module, a helper and a subpackage."""
    root = tmp_path / "scanpkg"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "sub" / "__init__.py").write_text("")
    (root / "reg.py").write_text(textwrap.dedent("""
        from scanpkg.hub import register_thing

        @register_thing
        class A:
            name = "a"
    """))
    (root / "hub.py").write_text(textwrap.dedent("""
        from ckptsim.registry import Registry, package_loader

        REG = Registry("thing", "thing", lambda: LOAD(), base=None)
        LOAD = package_loader("scanpkg", "register_thing")

        def register_thing(cls):
            return REG.register(cls)
    """))
    (root / "helper.py").write_text('"""Mentions @register_thing in its text only."""\n'
                                    'raise AssertionError("a helper is never imported")\n')
    (root / "sub" / "deep.py").write_text(textwrap.dedent("""
        from scanpkg.hub import register_thing

        @register_thing
        class B:
            name = "b"
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield root
    for name in [m for m in sys.modules if m == "scanpkg" or m.startswith("scanpkg.")]:
        del sys.modules[name]


def test_scan_lists_the_registering_modules_only(package):
    assert registering_modules("scanpkg", "register_thing") == ["scanpkg.reg",
                                                                 "scanpkg.sub.deep"]
    assert "scanpkg.reg" not in sys.modules  # read, not imported
    assert registering_modules("scanpkg", "register") == []  # the whole decorator name


def test_a_module_dropped_into_the_package_is_registered(package):
    (package / "new.py").write_text(textwrap.dedent("""
        from scanpkg.hub import register_thing

        @register_thing
        class C:
            name = "c"
    """))
    from scanpkg.hub import REG

    assert isinstance(REG, Registry)
    assert REG.names() == ["a", "b", "c"]
    assert "scanpkg.helper" not in sys.modules


def test_package_loader_scans_once(package, monkeypatch):
    import ckptsim.registry as registry

    calls = []
    real = registry.registering_modules
    monkeypatch.setattr(registry, "registering_modules",
                        lambda *a: calls.append(a) or real(*a))
    load = package_loader("scanpkg", "register_thing")
    load()
    load()
    assert [c for c in calls if c[0] == "scanpkg"] == [("scanpkg", "register_thing")]


def test_builtin_packages_scan_to_their_plugins():
    assert registering_modules("ckptsim.policies", "register") == [
        f"ckptsim.policies.{m}" for m in ("bgl", "bgl_fault", "ckpt_backfill", "coalloc",
                                          "conservative", "easy", "fcfs", "htc",
                                          "scojo.scheduler")]
    assert "ckptsim.checkpointing.plan" not in registering_modules("ckptsim.checkpointing",
                                                                    "register_policy")
    assert registering_modules("ckptsim.components", "register_component") == [
        f"ckptsim.components.{m}" for m in ("availability", "bound", "checkpoint", "energy",
                                            "failures", "powermgr", "rounding", "speed")]


def test_listing_the_schedulers_loads_no_numba():
    """conservative's compiled kernels are imported when a run builds it, not by the scan."""
    code = ("import sys\n"
            "from ckptsim.policies.base import scheduler_names\n"
            "from ckptsim.checkpointing.base import policy_names\n"
            "from ckptsim.components import component_names\n"
            "print(len(scheduler_names()), len(policy_names()), len(component_names()))\n"
            "print('numba' in sys.modules, 'ckptsim.policies.reservations' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split("\n")
    assert out[1] == "False False"
