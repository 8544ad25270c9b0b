"""Every registered scheduler under every registered checkpoint policy (`--checkpoint`, the
checkpoint component), with and without failures and the availability component: the run
passes the invariant checker and every job completes its work, or the combination is refused
with a ConfigError naming the option.  Schedulers that keep their own per-job checkpoint state
(scojo-pect's slice-end suspensions and ALC checkpoints, ckpt-backfill's Algorithm 3, CTMR)
see the component's checkpoints through the same hooks as their own.

Each scheduler runs on a workload it accepts: a grid workload for coalloc, the HTC pool's
workload and platform for htc, a small Lublin workload for the others (the BG/L schedulers
shape it onto their torus)."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest
from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from ckptsim.checkpointing.base import get_policy, policy_names
from ckptsim.errors import ConfigError
from ckptsim.policies.base import scheduler_names
from ckptsim.records.jobs import ALL_COLUMNS
from ckptsim.runner import simulate
from ckptsim.workload.source import load_workload

#: Workloads (and platforms) of the schedulers that need their own; the others run Lublin's.
WORKLOADS: dict[str, tuple[str, str | None]] = {
    "coalloc": ("grid:n=30,load=0.95,seed={seed}", None),
    "htc": ("htc:days=1,seed={seed}", "smallpool"),
}
LUBLIN = ("lublin:n=30,machine=64,seed={seed}", None)
JOBS = 30  # the first jobs of each workload
AVAILABILITY = {"owners": "model", "reboot": "03:00-05:00", "lead": 600, "days": 2,
                "on_unavailable": "kill"}


def scheduler_params(name: str, draw: Any) -> dict[str, Any]:
    """Options that exercise a scheduler's own checkpoints."""
    if name == "scojo-pect":
        return {"checkpoint": draw(st.sampled_from(["off", "alc"])),
                "cycle": float(draw(st.sampled_from([600, 3600]))),
                "migration": draw(st.booleans())}
    if name == "coalloc":
        return {"ctmr": draw(st.booleans()), "overhead": 120}
    if name == "ckpt-backfill":
        return {"t_checkpoint": float(draw(st.sampled_from([0, 60]))),
                "max_checkpoints": draw(st.sampled_from([None, 1]))}
    return {}


@st.composite
def checkpoint_policies(draw: Any) -> str:
    """A policy string for any registered policy: an interval policy alone, a skip policy
    after an interval policy, a proactive one alone or after one; options drawn."""
    name = draw(st.sampled_from(policy_names()))
    cls = get_policy(name)
    own = {f.name: f for f in dataclasses.fields(cls.Params)}
    cost = draw(st.sampled_from([5, 20, 60]))
    interval = draw(st.sampled_from([300, 900, 2400]))
    fixed = f"fixed:interval={interval}+"
    options = [f"cost={cost}"]
    if "mtbf" in own:
        options.append(f"mtbf={draw(st.sampled_from([20000, 200000]))}")
    if "interval" in own:
        options.append(f"interval={interval}")
    choices = own["then"].metadata.get("choices") if "then" in own else None
    if choices:
        options.append(f"then={draw(st.sampled_from(list(choices)))}")
    text = f"{name}:{','.join(options)}"
    if cls.kind == "skip" or (cls.kind == "proactive" and draw(st.booleans())):
        return fixed + text
    return text


@st.composite
def cases(draw: Any) -> dict[str, Any]:
    scheduler = draw(st.sampled_from(scheduler_names()))
    seed = draw(st.integers(1, 5))
    failures = draw(st.sampled_from([None, "synthetic:mtbf=40000", "synthetic:mtbf=200000"]))
    # Owners evict (kill) or suspend: a job suspended by its owner may also leave its nodes
    # another way (a slice end, a migration, a failure) and must then run again.
    avail = ({**AVAILABILITY, "on_unavailable": draw(st.sampled_from(["kill", "suspend"]))}
             if draw(st.booleans()) else None)
    return {"scheduler": scheduler, "seed": seed, "policy": draw(checkpoint_policies()),
            "params": scheduler_params(scheduler, draw), "failures": failures,
            "availability": avail}


def run(case: dict[str, Any]) -> Any:
    source, platform = WORKLOADS.get(case["scheduler"], LUBLIN)
    components: dict[str, Any] = {"checkpoint": {"policy": case["policy"]}}
    if case["availability"] is not None:
        components["availability"] = case["availability"]
    workload = load_workload(source.format(seed=case["seed"]), first=JOBS)
    return simulate(workload, case["scheduler"],
                    case["params"], platform=platform, components=components,
                    failures=case["failures"], seed=case["seed"], check=True, daily=False)


@settings(max_examples=examples(100))
@given(case=cases())
def test_every_scheduler_runs_under_every_checkpoint_policy(case):
    try:
        result = run(case)
    except ConfigError as err:
        # Only a policy that acts on the availability component's events may be refused, and
        # only without that component; the error names the option.
        assert case["availability"] is None, err
        assert err.key.split(".")[0] == "checkpoint" and "availability" in err.message, err
        return
    table = result.table
    assert set(table["status"]) == {"completed"}
    np.testing.assert_allclose(table["useful_work"], result.workload.runtime)
    counters = result.summary
    assert counters["checkpoints_completed"] <= counters["checkpoints_started"]


@settings(max_examples=examples(40))
@given(scheduler=st.sampled_from(scheduler_names()), seed=st.integers(1, 5), data=st.data())
def test_free_checkpoints_change_no_schedule(scheduler, seed, data):
    # Checkpoints of no cost, without failures, save progress and nothing else: a scheduler's
    # own decisions, slices, suspensions, ALC checkpoints and migrations are those without
    # the component.
    case = {"scheduler": scheduler, "seed": seed, "failures": None, "availability": None,
            "params": scheduler_params(scheduler, data.draw),
            "policy": "fixed:interval=300,cost=0"}
    with_ckpt = run(case)
    plain = run({**case, "policy": "none"})
    assert with_ckpt.summary["checkpoints_completed"] > 0
    own = [c for c in plain.table.columns if c not in ALL_COLUMNS]
    for column in ("start", "end", "overhead", *own):
        got, want = with_ckpt.table[column], plain.table[column]
        if want.dtype.kind in "fi":
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-6, err_msg=column)
        else:
            assert list(got) == list(want), column


@pytest.mark.parametrize(("scheduler", "params", "seed"), [
    ("bgl-balancing", {}, 1), ("bgl-balancing", {}, 5), ("easy", {}, 1),
    ("scojo-pect", {"checkpoint": "alc", "migration": True}, 2), ("scojo-pect", {}, 3)])
def test_a_job_suspended_by_its_owner_that_leaves_its_nodes_otherwise_runs_again(
        scheduler, params, seed):
    """Owners suspend; failures (of the failures component), migrations and time slices take
    suspended jobs off their nodes: each runs again at its rate and the run completes."""
    workload = load_workload(f"lublin:n=30,machine=64,seed={seed}", first=JOBS)
    result = simulate(workload, scheduler, params,
                      components={"availability": {**AVAILABILITY, "on_unavailable": "suspend"}},
                      failures="synthetic:mtbf=40000", seed=seed, check=True, daily=False)
    assert result.summary["jobs"] == JOBS and result.summary["jobs_killed"] == 0
