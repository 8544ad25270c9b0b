"""Plug-in components in an experiment spec go by their names: two workloads naming
different classes under one name are refused where the spec is read, since every run would
otherwise build the class loaded last (docs/plugins.md#sweeps)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ckptsim.experiments.execute import execute_run
from ckptsim.experiments.matrix import build_matrix
from ckptsim.experiments.spec import SpecError, load_spec
from ckptsim.registry import REGISTRIES

METER = """
import dataclasses
from ckptsim import Component, param


@dataclasses.dataclass(frozen=True)
class MeterParams:
    k: int = param(1, "a parameter", low=0)


class Meter(Component):
    name = "meter"
    Params = MeterParams
    counter_names = ("which",)

    def counters(self):
        return {{"which": {which}}}
"""

SPEC = """
name = "two"
[workloads.wa]
generator = "lublin"
n = 20
machine = 32
[workloads.wa.components."{a}"]
k = 1
[workloads.wb]
generator = "lublin"
n = 20
machine = 32
[workloads.wb.components."{b}"]
k = 2
[[schedulers]]
name = "easy"
"""


@pytest.fixture(autouse=True)
def _forget():
    yield
    REGISTRIES["component"].plugins.clear()


def _meters(tmp_path: Path) -> None:
    for folder, which in (("a", 1), ("b", 2)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "meter.py").write_text(METER.format(which=which))


def test_two_classes_under_one_component_name_are_refused(tmp_path):
    _meters(tmp_path)
    spec = tmp_path / "two.toml"
    spec.write_text(SPEC.format(a="a/meter.py:Meter", b="b/meter.py:Meter"))
    with pytest.raises(SpecError) as info:
        load_spec(spec)
    [(loc, message)] = info.value.problems
    assert loc.startswith("workloads.wb.components.b/meter.py:Meter")
    assert "names the component 'meter', as workloads.wa.components.a/meter.py:Meter does " \
           f"with another class (Meter of {tmp_path / 'a' / 'meter.py'})" in message
    assert "give one of them another name" in message


def test_one_file_named_by_two_workloads_runs_its_own_code(tmp_path):
    _meters(tmp_path)
    spec = tmp_path / "two.toml"
    spec.write_text(SPEC.format(a="b/meter.py:Meter", b="./b/meter.py:Meter"))
    runs = build_matrix(load_spec(spec))
    assert [execute_run(r).row["which"] for r in runs] == [2, 2]
