"""A plug-in installed as a package (in site-packages, named by module or entry point) is a
plug-in as a file is: an exception its code raises during a run, or a decision ckptsim
refuses, ends with the line naming the plug-in's file and line (docs/plugins.md)."""

from __future__ import annotations

import sys
import sysconfig

import pytest

from ckptsim.cli import main

WORKLOAD = "lublin:n=20,seed=3,machine=32"

PACKAGE = """from ckptsim import Component, QueueScheduler


class Broken(Component):
    def on_start(self, job):
        raise RuntimeError(f"broken on job {job.id}")


class Greedy(QueueScheduler):
    def schedule(self, now):
        for job in list(self.queue):
            self.sim.start(job)
"""


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """A package in a folder taken for this Python's site-packages."""
    site = tmp_path / "site"
    (site / "ckptsim_lab").mkdir(parents=True)
    (site / "ckptsim_lab" / "__init__.py").write_text("")
    (site / "ckptsim_lab" / "meters.py").write_text(PACKAGE)
    paths = sysconfig.get_paths()
    monkeypatch.setattr(sysconfig, "get_paths",
                        lambda *a, **k: {**paths, "purelib": str(site), "platlib": str(site)})
    monkeypatch.syspath_prepend(str(site))
    yield site / "ckptsim_lab" / "meters.py"
    for name in [n for n in sys.modules if n.partition(".")[0] == "ckptsim_lab"]:
        del sys.modules[name]


def test_an_exception_of_an_installed_plugin_is_said_to_be_its(installed, capsys):
    assert main(["run", "--workload", WORKLOAD, "--component",
                 "ckptsim_lab.meters:Broken"]) == 1
    err = capsys.readouterr().err
    assert f'File "{installed}", line 6, in on_start' in err  # its traceback
    assert err.endswith(f"ckptsim: error: RuntimeError: broken on job 1 (from {installed}, "
                        "line 6, a plug-in's code; the traceback is above)\n")


def test_a_refused_decision_of_an_installed_plugin_names_its_line(installed, capsys):
    assert main(["run", "--workload", WORKLOAD, "--scheduler",
                 "ckptsim_lab.meters:Greedy"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ckptsim: error: job ")
    assert err.endswith(f"(from {installed}, line 12, a plug-in's code)\n")
