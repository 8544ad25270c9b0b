"""summary.json records every declared parameter of the run's scheduler, components and
checkpoint policies, and every option of the generator that made its workload, with its value,
defaults included, so that a run folder says which reading produced it; a parameter declared
later cannot be left out by mistake."""

from __future__ import annotations

import dataclasses
import json
import logging
from typing import Any

import pytest
from helpers import jobs

import ckptsim
from ckptsim.checkpointing.base import policy_classes, policy_names
from ckptsim.checkpointing.plan import COST_KEYS
from ckptsim.engine.components import component_classes
from ckptsim.errors import ConfigError
from ckptsim.platform.description import load_description
from ckptsim.policies.base import get_scheduler, scheduler_names
from ckptsim.runner import simulate
from ckptsim.workload.source import GENERATORS

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
    cls = policy_classes()[name]
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


#: Every option of every generator, each given a value other than its default (a generator or
#: an option added later fails `test_every_generator_option_is_recorded` until it has one).
GIVEN: dict[str, dict[str, Any]] = {
    "lublin": {"n": 30, "seed": 2, "machine": 64, "typed": True, "estimates": "tsafrir",
               "start_hour": 8, "max_est": 36000},
    "htc": {"days": 2, "seed": 3, "mean": 500.0, "machine": 64, "estimates": "exact",
            "anchor": False, "duration_median": 600.0, "memory_median": 64.0,
            "burst_prob": 0.5, "weekend": 0.25, "background_median": 30.0,
            "background_sigma": 0.5, "burst_sigma": 1.0, "anchor_day": 1, "anchor_jobs": 10,
            "extra_batches": 1.0, "submit_rate": 5.0, "hourly": [1.0] * 12 + [2.0] * 12,
            "duration_batch_sigma": 0.5, "duration_job_sigma": 0.5, "memory_batch_sigma": 0.4,
            "memory_job_sigma": 0.3, "memory_min": 2.0, "memory_max": 1024.0},
    "grid": {"clusters": 2, "nodes": 16, "capacity": 500.0, "n": 20, "load": 0.5,
             "runtime": 3600.0, "width_min": 2, "width_max": 8, "ppbw": 200.0, "spread": 0.25,
             "kappa": 0.3, "error": 0.2, "error_mode": "fixed", "info": 0.5,
             "estimates": "tsafrir", "seed": 4},
}
#: The options a grid workload read from a trace takes, besides the bandwidth model's.
GRID_TRACE = ("trace", "split")
#: A small workload of each generator, its other options at their defaults (lublin's
#: max_est is recorded with estimates=tsafrir only).
SMALL: dict[str, dict[str, Any]] = {"lublin": {"n": 5, "estimates": "exact"},
                                    "htc": {"days": 1}, "grid": {"n": 5}}


def accepted(name: str) -> set[str]:
    """The options the workload parser accepts, as its error for an unknown one lists them."""
    with pytest.raises(ConfigError) as info:
        ckptsim.workload(f"{name}:not_an_option=1")
    return set(info.value.message.split("accepted: ")[1].split(", "))


def spec(name: str, options: dict[str, Any]) -> str:
    def text(value: Any) -> str:
        if isinstance(value, bool):
            return str(value).lower()
        return "/".join(map(str, value)) if isinstance(value, list) else str(value)

    return f"{name}:" + ",".join(f"{k}={text(v)}" for k, v in options.items() if v is not None)


def generator_section(w: Any) -> Any:
    return written(simulate(w, "easy"))["workload"].get("generator")


@pytest.mark.parametrize("name", [*sorted(GENERATORS), "grid-trace"])
def test_every_generator_option_is_recorded(name, tmp_path):
    """Every option, defaults included, is in summary.json with the value used, and the
    options recorded generate the very same workload again."""
    gen = name.partition("-")[0]
    assert gen in GIVEN, f"give every option of the generator {gen!r} a value in GIVEN"
    given = dict(GIVEN[gen])
    unused: tuple[str, ...] = GRID_TRACE if gen == "grid" else ()
    if name == "grid-trace":
        from ckptsim.workload.grid import SYNTHETIC_ONLY

        (tmp_path / "t.swf").write_text("".join(
            f"{k} {60 * k} -1 {100 + k} {1 + k % 4} -1 -1 {1 + k % 4} 600 -1 1 1 1 -1 1 -1 -1 "
            "-1\n" for k in range(1, 21)))
        given = {k: v for k, v in given.items() if k not in SYNTHETIC_ONLY}
        given.update(trace=str(tmp_path / "t.swf"), split="random")
        unused = SYNTHETIC_ONLY
    options = accepted(gen)
    assert set(given) | set(unused) == options, "give every option a value in GIVEN"
    default = ckptsim.workload(spec(gen, SMALL[gen])).generator
    assert default is not None and set(default["options"]) == options
    same = [k for k in given if k not in SMALL[gen] and given[k] == default["options"][k]]
    assert not same, f"GIVEN gives {same} their default values"
    w = ckptsim.workload(spec(gen, given))
    recorded = generator_section(w)
    assert recorded == {"name": gen, "options": {**given, **dict.fromkeys(unused)}}
    again = ckptsim.workload(spec(gen, recorded["options"]))
    assert again.generator == w.generator and again.source == w.source
    for column in ("submit", "runtime", "estimate", "size", "fields"):
        assert (getattr(again, column) == getattr(w, column)).all(), column


def test_builtin_records_lublin_at_its_defaults():
    recorded = generator_section(ckptsim.workload("builtin"))
    assert recorded == {"name": "lublin", "options": {
        "n": 3000, "seed": 1, "machine": 128, "typed": False, "estimates": "tsafrir",
        "start_hour": 0, "max_est": 18 * 3600}}
    assert ckptsim.workload("lublin:").generator == recorded
    # max_est is the 'tsafrir' model's: None with another estimate model.
    assert ckptsim.workload("lublin:n=5,estimates=exact").generator["options"]["max_est"] \
        is None


def test_generated_workloads_differing_in_an_option_have_different_summaries():
    """The source names only days, mean and seed: the summaries of these two used to be the
    same, with 315,461 s of work against 11,684 s."""
    docs = [written(simulate(ckptsim.workload(s), "easy"))
            for s in ("htc:days=1,seed=1", "htc:days=1,seed=1,duration_median=100")]
    assert docs[0]["workload"]["source"] == docs[1]["workload"]["source"]
    assert docs[0]["workload"] != docs[1]["workload"]
    options = [d["workload"]["generator"]["options"] for d in docs]
    assert [o["duration_median"] for o in options] == [2700.0, 100.0]
    assert {k for k in options[0] if options[0][k] != options[1][k]} == {"duration_median"}


def test_traces_and_transforms():
    """A trace has no generator section; a transformed generated workload keeps its own."""
    assert "generator" not in written(simulate(jobs(WORKLOAD, 16), "easy"))["workload"]
    plain = ckptsim.workload("lublin:n=50,seed=1").generator
    cut = ckptsim.workload("lublin:n=50,seed=1", first=20, alpha=0.5, load_scale=2.0,
                           machine_size=64)
    assert cut.generator == plain and cut.n_jobs <= 20


def test_sweeps_record_the_generator_as_the_command_line(tmp_path):
    """A sweep's workload (generated by its run's kind and options, kept in a per-process
    cache, pickled to a worker) records what `--workload` does."""
    import pickle

    from ckptsim.experiments.execute import clear_cache, load_run_workload
    from ckptsim.experiments.matrix import build_matrix
    from ckptsim.experiments.spec import load_spec

    path = tmp_path / "s.toml"
    path.write_text('name = "s"\nseeds = [1]\n[workloads.h]\ngenerator = "htc"\ndays = 1\n'
                    'duration_median = 100\nfirst = 300\n[[schedulers]]\nname = "easy"\n')
    (run,) = build_matrix(load_spec(path))
    clear_cache()
    fresh = load_run_workload(run)
    cached = load_run_workload(run)
    given = ckptsim.workload("htc:days=1,seed=1,duration_median=100", first=300)
    expected = written(simulate(given, "easy"))
    assert expected["workload"]["generator"]["options"]["duration_median"] == 100.0
    for w in (fresh, cached, pickle.loads(pickle.dumps(fresh))):
        assert written(simulate(w, "easy"))["workload"] == expected["workload"]
    clear_cache()
