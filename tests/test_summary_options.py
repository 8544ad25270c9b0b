"""summary.json records every declared parameter of the run's scheduler, components and
checkpoint policies, with its value, defaults included, so that a run folder says which
reading produced it; a parameter declared later cannot be left out by mistake."""

from __future__ import annotations

import dataclasses
import json
import logging
from typing import Any

import pytest
from helpers import jobs

import ckptsim
from ckptsim.checkpointing.base import _registry as policies
from ckptsim.checkpointing.base import policy_names
from ckptsim.checkpointing.plan import COST_KEYS
from ckptsim.engine.components import component_classes
from ckptsim.platform.description import load_description
from ckptsim.policies.base import get_scheduler, scheduler_names
from ckptsim.runner import simulate

WORKLOAD = [(0, 300, 2, 400), (10, 200, 4, 300), (20, 500, 1, 600), (30, 100, 8, 200),
            (4000, 300, 2, 400)]
ENERGY = {"active": 100.0, "idle": 50.0, "sleep": 5.0}
#: The least each component needs to run.
NEEDS: dict[str, dict[str, dict[str, Any]]] = {
    "checkpoint": {"checkpoint": {"policy": "fixed:interval=3600,cost=60"}},
    "energy": {"energy": ENERGY},
    "failures": {"failures": {"source": "synthetic:mtbf=200000"}},
    "power": {"energy": ENERGY, "power": {}},
}


def written(result: Any) -> dict[str, Any]:
    """summary.json as `ckptsim run` writes it."""
    return json.loads(json.dumps(result.summary_document()))


def declared(cls: type) -> dict[str, Any]:
    return {f.name: f.default for f in dataclasses.fields(cls)}


def scheduler_workload(name: str) -> Any:
    if name == "coalloc":
        return ckptsim.workload("grid:clusters=2,nodes=16,n=20,seed=1")
    if name == "htc":
        return ckptsim.workload("htc:days=1,seed=1")
    return ckptsim.workload("lublin:n=20,seed=1")


@pytest.mark.parametrize("name", scheduler_names())
def test_every_scheduler_parameter_is_recorded(name):
    doc = written(simulate(scheduler_workload(name), name))
    assert doc["params"] == declared(get_scheduler(name).Params)


@pytest.mark.parametrize("name", sorted(component_classes()))
def test_every_component_parameter_is_recorded(name):
    cls = component_classes()[name]
    kw: dict[str, Any] = {}
    if name == "speed":
        kw["platform"] = load_description("smallpool")
    if name == "availability":
        w = scheduler_workload("lublin")
    else:
        w = jobs(WORKLOAD, 16)
    logging.disable(logging.WARNING)
    try:
        r = simulate(w, "easy", components=NEEDS.get(name, {name: {}}), **kw)
    finally:
        logging.disable(logging.NOTSET)
    recorded = written(r)["options"][name]
    missing = sorted(set(declared(cls.Params)) - set(recorded))
    assert not missing, f"{name}'s {missing} are not in summary.json"
    given = cls.make_params(NEEDS.get(name, {name: {}})[name])
    for key, value in dataclasses.asdict(given).items():
        if key not in ("source", "policy"):  # recorded as resolved: the trace's, the plan's
            assert recorded[key] == value, key


@pytest.mark.parametrize("name", policy_names())
def test_every_checkpoint_policy_parameter_is_recorded(name):
    cls = policies.loadable()[name]
    options = {"fixed": "interval=3600,", "ratio": "p=0.1,"}.get(name, "")
    cost = "" if name == "none" else "cost=60" + (",mtbf=86400" if name in ("young", "daly")
                                                   else "")
    own = f"{name}:{options}{cost}".rstrip(":,")
    plan = own if cls.kind == "interval" else f"fixed:interval=3600,{cost}+{name}"
    comps = {} if cls.kind == "interval" and name != "interarrival" else \
        {"availability": {"owners": "model"}}
    r = simulate(ckptsim.workload("lublin:n=20,seed=1"), "easy", checkpoint=plan,
                 components=comps)
    recorded = written(r)["options"]["checkpoint"]
    fields = declared(cls.Params)
    if cls.kind == "interval":
        assert set(fields) <= set(recorded), sorted(set(fields) - set(recorded))
    else:
        assert set(fields) - set(COST_KEYS) == set(recorded[name])
        assert set(COST_KEYS) <= set(recorded)
    # A default is recorded as the default, not left out.
    for key, default in fields.items():
        section = recorded if cls.kind == "interval" or key in COST_KEYS else recorded[name]
        if f"{key}=" not in plan:
            assert section[key] == default, key
