"""The checkpoint plan as structured parameters: the string parsed once at the edge (the
command line, the spec reader), the plan passed inward; a spec may give it as a table whose
numbers are grid axes; a plan has the same run id whichever form it was written in."""

from __future__ import annotations

import json

import pytest

import ckptsim.checkpointing.plan as plan_module
from ckptsim.checkpointing.plan import (
    CheckpointPlan,
    parse_checkpoint,
    parse_plan,
)
from ckptsim.checkpointing.plan_table import plan_from_table
from ckptsim.cli import main
from ckptsim.errors import ConfigError
from ckptsim.experiments.execute import execute_run
from ckptsim.experiments.matrix import build_matrix
from ckptsim.experiments.spec import SpecError, load_spec
from ckptsim.experiments.store import load_results

HEAD = """name = "plan"
seeds = [1]

[workloads.m]
generator = "lublin"
n = 120
machine = 64
failures = "synthetic:mtbf=300000"
"""
TAIL = """
[[schedulers]]
name = "easy"
"""
STRINGS = HEAD + """checkpoint = ["young:cost=600,mtbf=86400+closedcluster",
              "fixed:interval=1800,cost=60"]
""" + TAIL
TABLE = HEAD + """
[workloads.m.components.checkpoint.policy]
interval = "young"
cost = [60, 600]
mtbf = 86400
skip = ["closedcluster"]
""" + TAIL


def _spec(tmp_path, text, name="spec.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.fixture
def parses(monkeypatch):
    """Counts the calls of the string parser (`parse_plan`)."""
    calls: list[str] = []
    real = plan_module.parse_plan

    def counted(spec):
        calls.append(spec)
        return real(spec)

    monkeypatch.setattr(plan_module, "parse_plan", counted)
    return calls


def test_run_parses_the_string_once(parses, tmp_path, capsys):
    text = "fixed:interval=1800,cost=60+closedcluster"
    assert main(["run", "--workload", "lublin:n=100,seed=1,machine=64", "--failures",
                 "synthetic:mtbf=300000", "--checkpoint", text, "--out",
                 str(tmp_path / "o")]) == 0
    assert parses == [text]
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["options"]["checkpoint"]["policy"] == "fixed+closedcluster"


@pytest.mark.parametrize("plan", [
    "fixed:interval=1800,cost=60+closedcluster",
    {"interval": "fixed", "fixed": {"interval": 1800}, "cost": 60, "skip": "closedcluster"},
])
def test_simulate_checkpoint_is_the_run_flag(plan, tmp_path, capsys):
    # `simulate(checkpoint=...)` is `ckptsim run --checkpoint`: the same summary.json, the
    # component after those named (energy here), a table the same plan as its string.
    import ckptsim
    from ckptsim.cli.common import write_outputs

    w = "lublin:n=100,seed=1,machine=64"
    assert main(["run", "--workload", w, "--failures", "synthetic:mtbf=300000",
                 "--component", "energy:active=100,idle=40,sleep=2", "--checkpoint",
                 "fixed:interval=1800,cost=60+closedcluster", "--out",
                 str(tmp_path / "cli")]) == 0
    result = ckptsim.simulate(ckptsim.workload(w), "easy", failures="synthetic:mtbf=300000",
                              components={"energy": {"active": 100, "idle": 40, "sleep": 2}},
                              checkpoint=plan)
    assert result.summary["checkpoints"] > 0
    write_outputs(result, tmp_path / "py", None)
    assert ((tmp_path / "py" / "summary.json").read_bytes()
            == (tmp_path / "cli" / "summary.json").read_bytes())
    with pytest.raises(ConfigError, match="checkpoint: given both as a component and as "
                                          "checkpoint="):
        ckptsim.simulate(ckptsim.workload(w), "easy", checkpoint=plan,
                         components={"checkpoint": {"policy": "none"}})
    with pytest.raises(ConfigError, match="checkpoint: unknown checkpoint policy 'yung'"):
        ckptsim.simulate(ckptsim.workload(w), "easy", checkpoint="yung:cost=1")


def test_component_flag_parses_the_string_once(parses, tmp_path, capsys):
    assert main(["run", "--workload", "lublin:n=100,seed=1,machine=64", "--component",
                 "checkpoint:policy=young:cost=60,mtbf=86400"]) == 0
    assert parses == ["young:cost=60,mtbf=86400"]


def test_sweep_parses_each_string_once(parses, tmp_path, capsys):
    out = tmp_path / "store"
    assert main(["sweep", str(_spec(tmp_path, STRINGS)), "--out", str(out), "--jobs",
                 "0"]) == 0
    assert sorted(parses) == ["fixed:interval=1800,cost=60",
                              "young:cost=600,mtbf=86400+closedcluster"]
    rows, _ = load_results(out)
    assert {r["status"] for r in rows} == {"ok"}
    assert sorted(r["workload.checkpoint"] for r in rows) == [
        "fixed:interval=1800,cost=60", "young:cost=600,mtbf=86400+closedcluster"]


def test_table_and_string_give_the_same_run_id_and_outputs(parses, tmp_path):
    strings = {r.columns["workload.checkpoint"]: r
               for r in build_matrix(load_spec(_spec(tmp_path, STRINGS, "s.toml")))}
    tables = build_matrix(load_spec(_spec(tmp_path, TABLE, "t.toml")))
    assert not [p for p in parses if "cost=60," in p]  # the table is never a string
    young = {r.columns["workload.checkpoint.policy.cost"]: r for r in tables}
    same = strings["young:cost=600,mtbf=86400+closedcluster"]
    assert young[600].run_id == same.run_id
    assert young[60].run_id != same.run_id
    assert str(young[600].components["checkpoint"]["policy"]) == \
        "young:cost=600,mtbf=86400+closedcluster"

    rows = [execute_run(r).row for r in (same, young[600])]
    assert rows[0]["status"] == "ok" and rows[0]["checkpoints"] > 0
    drop = ("run_id", "workload.checkpoint", "pid", "finished_at", "run_seconds",
            "sim_seconds")
    assert {k: v for k, v in rows[0].items() if k not in drop and "policy" not in k} == \
        {k: v for k, v in rows[1].items() if k not in drop and "policy" not in k}


def test_a_grid_over_cost_gives_numeric_columns(tmp_path, capsys):
    out = tmp_path / "store"
    assert main(["sweep", str(_spec(tmp_path, TABLE)), "--out", str(out), "--jobs",
                 "0"]) == 0
    rows, _ = load_results(out)
    assert sorted(r["workload.checkpoint.policy.cost"] for r in rows) == [60, 600]
    assert all(type(r["workload.checkpoint.policy.cost"]) is int for r in rows)
    assert {r["workload.checkpoint.policy.mtbf"] for r in rows} == {86400}
    assert {r["workload.checkpoint.policy.skip"] for r in rows} == {"closedcluster"}
    assert {r["checkpoint_overhead_s"] > 0 for r in rows} == {True}


def test_a_part_s_own_options_and_lists_of_names(tmp_path):
    text = HEAD + """
[workloads.m.components.checkpoint.policy]
interval = "fixed"
cost = 60
skip = [[], ["closedcluster"]]

[workloads.m.components.checkpoint.policy.fixed]
interval = [900, 1800]
""" + TAIL
    runs = build_matrix(load_spec(_spec(tmp_path, text)))
    assert sorted(str(r.components["checkpoint"]["policy"]) for r in runs) == [
        "fixed:interval=1800,cost=60", "fixed:interval=1800,cost=60+closedcluster",
        "fixed:interval=900,cost=60", "fixed:interval=900,cost=60+closedcluster"]
    same = build_matrix(load_spec(_spec(tmp_path, HEAD + 'checkpoint = '
                                        '"fixed:interval=900,cost=60+closedcluster"\n' + TAIL,
                                        "s.toml")))
    assert same[0].run_id in {r.run_id for r in runs}


@pytest.mark.parametrize(("table", "where", "says"), [
    ('cost = -1\ninterval = "young"', "policy.cost", ">= 0"),
    ('interval = "young"\ncost = 60\ncolour = 1', "policy.colour", "unknown key"),
    ('interval = "closedcluster"\ncost = 60', "policy.interval", "not an interval policy"),
    ('interval = "fixed"\ncost = 60\n[workloads.m.components.checkpoint.policy.fixed]\n'
     'interval = [900, -1]', "policy.fixed.interval[1]", "> 0"),
    ('interval = "young"\nmtbf = 86400', "policy.cost", "give the checkpoint cost"),
    ('skip = "closedcluster"\ncost = 60', "policy", "add one"),
])
def test_bad_values_name_the_key_and_line(tmp_path, table, where, says):
    text = HEAD + "\n[workloads.m.components.checkpoint.policy]\n" + table + "\n" + TAIL
    with pytest.raises(SpecError) as info:
        load_spec(_spec(tmp_path, text))
    message = str(info.value)
    loc = f"workloads.m.components.checkpoint.{where}"
    key = where.split(".")[-1].split("[")[0]
    lines = text.splitlines()
    if key == "policy":
        line = lines.index("[workloads.m.components.checkpoint.policy]") + 1
    else:
        start = max(i for i, t in enumerate(lines) if t.startswith("[") and
                    where.rsplit(".", 1)[0].split("[")[0] in t.replace(
                        "workloads.m.components.checkpoint.", ""))
        line = next((i + 1 for i in range(start, len(lines))
                     if lines[i].startswith(f"{key} =")), start + 1)
    assert f"{loc} (line {line})" in message, message
    assert says in message, message


def test_structured_value_and_equivalent_string():
    table = {"interval": "fixed", "cost": 60, "skip": "closedcluster",
             "proactive": ["scheduled"], "fixed": {"interval": 1800},
             "scheduled": {"then": "continue"}}
    plan = plan_from_table(table)
    assert isinstance(plan, CheckpointPlan)
    assert plan.text == "fixed:interval=1800,cost=60+closedcluster+scheduled:then=continue"
    assert plan == parse_plan(plan.text)
    assert plan.interval.name == "fixed" and dict(plan.interval.options) == {"interval": 1800}
    assert [p.name for p in plan.skip] == ["closedcluster"]
    assert dict(plan.cost) == {"cost": 60.0}
    assert plan.build().options() == parse_checkpoint(plan.text).options()
    with pytest.raises(ConfigError) as info:
        plan_from_table({"interval": "young", "cost": 60, "daly": {"x": 1}})
    assert info.value.key == "checkpoint.policy.daly"


def test_the_plan_string_stays_as_given():
    """Run ids hash the string as given (spaces, number spellings), as before."""
    text = " daly:cost=1e+2,mtbf=86400 "
    plan = parse_plan(text)
    assert str(plan) == text
    assert dict(plan.cost) == {"cost": 100.0, "mtbf": 86400.0}


def test_a_tables_key_order_does_not_change_the_plan_or_the_run_id(tmp_path):
    """TOML tables have no key order: a plan table written in another order is the same plan
    (the same text, which run ids hash), its part's options and its cost options alike."""
    a = plan_from_table({"interval": "geometric", "cost": 60, "mtbf": 86400,
                         "geometric": {"a": 600, "r": 2}})
    b = plan_from_table({"mtbf": 86400, "geometric": {"r": 2, "a": 600}, "cost": 60,
                         "interval": "geometric"})
    assert str(a) == str(b) == "geometric:a=600,r=2,cost=60,mtbf=86400"
    ids = []
    for policy in ('{ interval = "young", cost = 600, mtbf = 86400 }',
                   '{ interval = "young", mtbf = 86400, cost = 600 }'):
        spec = tmp_path / "s.toml"
        spec.write_text('name = "s"\n[workloads.m]\ngenerator = "lublin"\nn = 50\n'
                        f'[workloads.m.components.checkpoint]\npolicy = {policy}\n'
                        '[[schedulers]]\nname = "easy"\n')
        ids.append([r.run_id for r in build_matrix(load_spec(spec))])
    assert ids[0] == ids[1]


def test_the_public_lookups_of_a_plan_string_s_parts():
    """What code outside the plan's modules uses to read a plan string: its parts as written
    (`split_plan`), a part's name and options (`split_name`), a policy's class
    (`get_policy`, `known_policy`, `policy_classes`)."""
    from ckptsim.checkpointing.base import get_policy, known_policy, policy_classes, split_name
    from ckptsim.checkpointing.plan import split_plan

    text = "fixed:interval=1800,cost=1e+2 + closedcluster+scheduled:margin=300"
    assert split_plan(text) == ["fixed:interval=1800,cost=1e+2 ", " closedcluster",
                                "scheduled:margin=300"]
    assert "+".join(split_plan(text)) == text
    assert split_name("scheduled:margin=300") == ("scheduled", "margin=300")
    assert split_name(" closedcluster") == ("closedcluster", "")
    assert get_policy("scheduled").name == "scheduled" and known_policy("scheduled")
    assert not known_policy("nosuchpolicy")
    assert policy_classes()["fixed"] is get_policy("fixed")
