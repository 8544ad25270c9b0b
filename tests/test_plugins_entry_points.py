"""An installed entry point that does not load (its package imports a module that is not
there, or names a class of another kind) stops only what names it: runs with the built-ins,
sweeps and the checkpoint policies' lists go on, and `ckptsim schedulers` / `components`
list it with its error beside the others (docs/plugins.md#entry-points)."""

from __future__ import annotations

from pathlib import Path

import pytest

import ckptsim
from ckptsim import plugins
from ckptsim.cli import main
from ckptsim.experiments import specvalues
from ckptsim.experiments.spec import load_spec
from ckptsim.registry import REGISTRIES

WORKLOAD = "lublin:n=20,seed=3,machine=32"


@pytest.fixture
def broken(tmp_path: Path, monkeypatch):
    """A distribution installed by hand whose entry points do not load."""
    site = tmp_path / "site"
    info = site / "ckptsim_broken-1.0.dist-info"
    info.mkdir(parents=True)
    (site / "ckptsim_broken.py").write_text("class NotOne:\n    pass\n")
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: ckptsim-broken\n"
                                   "Version: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[ckptsim.schedulers]\nghost = ckptsim_broken_gone:Ghost\n"
        "stranger = ckptsim_broken:NotOne\n\n"
        "[ckptsim.components]\nghost-meter = ckptsim_broken_gone:Meter\n\n"
        "[ckptsim.checkpoint_policies]\nghost-policy = ckptsim_broken_gone:Policy\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(specvalues, "_METRICS", None)
    plugins.forget_entry_points()
    yield
    plugins.forget_entry_points()
    for registry in REGISTRIES.values():
        getattr(registry, "broken", {}).clear()


def test_runs_that_do_not_name_it_go_on(broken, tmp_path):
    w = ckptsim.workload(WORKLOAD)
    result = ckptsim.simulate(w, "easy", checkpoint="fixed:interval=3600,cost=60")
    assert result.summary["jobs"] == 20
    spec = tmp_path / "plain.toml"
    spec.write_text('name = "plain"\nmetrics = ["mean_wait"]\n[workloads.m]\n'
                    'generator = "lublin"\nn = 20\nmachine = 32\n'
                    '[workloads.m.components.checkpoint]\npolicy = "fixed:cost=60"\n'
                    '[[schedulers]]\nname = "easy"\n')
    assert load_spec(spec).name == "plain"


def test_naming_it_is_the_error(broken, capsys):
    for option, name in (("--scheduler", "ghost"), ("--component", "ghost-meter"),
                         ("--checkpoint", "ghost-policy:cost=60")):
        assert main(["run", "--workload", WORKLOAD, option, name]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"ckptsim: error: {option}: {name.partition(':')[0]} (entry "
                              "point ckptsim_broken_gone:")
        assert "No module named 'ckptsim_broken_gone'" in err


def test_the_lists_show_it_with_its_error(broken, capsys):
    assert main(["schedulers"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "ghost: cannot be loaded (ghost (entry point ckptsim_broken_gone:Ghost of " \
           "ckptsim.schedulers): " in "\n".join(out)
    assert any(line.startswith("stranger: cannot be loaded (stranger (entry point of "
                               "ckptsim.schedulers): NotOne is not a scheduler class")
               for line in out)
    assert any(line.startswith("easy: FCFS with EASY backfilling") for line in out)
    assert main(["components"]) == 0
    out = capsys.readouterr().out
    assert "\nghost-meter: cannot be loaded (ghost-meter (entry point" in out
    assert "\n      ghost-policy: cannot be loaded (ghost-policy (entry point" in out
    assert "\n      fixed [interval]: " in out


@pytest.mark.parametrize(("given", "said"), [
    ("ghost", "ghost (entry point ckptsim_broken_gone:Ghost of ckptsim.schedulers): "
              "ModuleNotFoundError: No module named 'ckptsim_broken_gone'"),
    ("ckptsim_broken_gone.sched:Mine", "ckptsim_broken_gone.sched:Mine: cannot import "
     "ckptsim_broken_gone.sched: ModuleNotFoundError: No module named 'ckptsim_broken_gone'"),
])
def test_a_module_that_is_not_there_is_named_without_pythons_own_lines(broken, capsys,
                                                                        given, said):
    """No file and line of importlib's (or ckptsim's) own code, which said nothing of it."""
    assert main(["run", "--workload", WORKLOAD, "--scheduler", given]) == 2
    assert capsys.readouterr().err == f"ckptsim: error: --scheduler: {said}\n"


def test_an_import_error_in_the_plugins_module_names_its_line(tmp_path, monkeypatch, capsys):
    (tmp_path / "ckptsim_needs.py").write_text("import os\nimport nmupy\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["run", "--workload", WORKLOAD, "--scheduler", "ckptsim_needs:Mine"]) == 2
    assert capsys.readouterr().err == (
        f"ckptsim: error: --scheduler: ckptsim_needs:Mine: cannot import ckptsim_needs: "
        f"{tmp_path / 'ckptsim_needs.py'}, line 2: ModuleNotFoundError: No module named "
        "'nmupy'\n")


@pytest.mark.parametrize("first", ["entry point", "module:Class"])
def test_a_nameless_class_is_named_alike_whichever_way_it_is_loaded_first(
        tmp_path: Path, monkeypatch, first: str):
    # Run ids hash a plug-in's name: a class without a `name` of its own, installed as the
    # entry point nl-ep and also reachable as module:Class, is nl-ep both ways, whichever
    # reference the process meets first (it took the first one's name).
    from ckptsim.policies.base import get_scheduler

    module = f"nameless_{first.replace(' ', '_').replace(':', '_')}"
    site = tmp_path / "site"
    info = site / f"{module}-1.0.dist-info"
    info.mkdir(parents=True)
    (site / f"{module}.py").write_text(
        "from ckptsim.policies.fcfs import FCFS\n\nclass Nameless(FCFS):\n    pass\n")
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[ckptsim.schedulers]\nnl-ep = {module}:Nameless\n")
    monkeypatch.syspath_prepend(str(site))
    plugins.forget_entry_points()
    try:
        refs = ["nl-ep", f"{module}:Nameless"]
        if first == "module:Class":
            refs.reverse()
        assert [get_scheduler(r).name for r in refs] == ["nl-ep", "nl-ep"]
    finally:
        plugins.forget_entry_points()
