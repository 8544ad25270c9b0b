"""Components: a counting component registered here reaches `simulate`, `ckptsim run
--component` and an experiment spec; hooks, counters, event kinds and their order."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from helpers import Scripted, jobs

from ckptsim.cli import main
from ckptsim.engine import components as registry
from ckptsim.engine import events
from ckptsim.engine.components import Component, register_component
from ckptsim.engine.provides import FailureTimes, Progress
from ckptsim.engine.simulator import Simulator
from ckptsim.errors import ConfigError, DecisionError
from ckptsim.experiments.execute import execute_run
from ckptsim.experiments.matrix import build_matrix
from ckptsim.experiments.spec import SpecError, parse_spec
from ckptsim.params import param
from ckptsim.policies.base import scheduler_factory
from ckptsim.runner import simulate
from ckptsim.workload.lublin import generate_lublin


@dataclasses.dataclass(frozen=True)
class CountingParams:
    step: int = param(1, "added to the count at each start", low=1)
    label: str = param("x", "a label")


class Counting(Component):
    """Counts starts (by `step`) and ends, and records the hooks it sees."""

    name = "counting"
    Params = CountingParams
    counter_names = ("counted_starts", "counted_ends")

    def attach(self, sim):
        super().attach(sim)
        self.starts = 0
        self.ends = 0
        self.seen: list[tuple[str, float]] = []

    def on_start(self, job):
        self.starts += self.params.step

    def on_end(self, job):
        self.ends += 1

    def after_pass(self, now):
        self.seen.append(("after_pass", now))

    def at_end(self, now):
        self.seen.append(("at_end", now))

    def counters(self):
        return {"counted_starts": self.starts, "counted_ends": self.ends}


@pytest.fixture
def counting():
    register_component(Counting)
    yield Counting
    registry._REGISTRY.pop("counting", None)


def workload():
    return generate_lublin(60, machine_size=32, seed=1)


def test_simulate_reaches_the_component(counting):
    r = simulate(workload(), "easy", components={"counting": {"step": "2"}})
    assert r.summary["counted_starts"] == 2 * 60 and r.summary["counted_ends"] == 60
    assert r.options["counting"] == {"step": 2, "label": "x"}
    assert r.components == ("counting",)
    # Without it the schedule is the same: the component only watches.
    plain = simulate(workload(), "easy")
    assert plain.table["end"].tolist() == r.table["end"].tolist()


def test_command_line_reaches_the_component(counting, tmp_path, capsys):
    w = "lublin:n=60,seed=1,machine=32"
    assert main(["run", "--workload", w, "--scheduler", "fcfs", "--component",
                 "counting:step=3,label=a,b", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "counted starts" in out
    doc = json.loads((tmp_path / "summary.json").read_text())
    assert doc["metrics"]["counted_starts"] == 180 and doc["metrics"]["counted_ends"] == 60
    assert doc["options"]["counting"] == {"step": 3, "label": "a,b"}
    assert main(["run", "--workload", w, "--component", "counting:step=0"]) == 2
    assert "--component counting:step: got 0" in capsys.readouterr().err
    assert main(["run", "--workload", w, "--component", "counting:steps=2"]) == 2
    assert ("--component counting: unknown parameter 'steps' in 'steps=2' (did you mean "
            "'step'?); accepted: label, step") in capsys.readouterr().err
    assert main(["run", "--workload", w, "--component", "counting:3"]) == 2
    assert "expected key=value with a key of label, step, got '3'" in capsys.readouterr().err


SPEC = """
name = "counting"
seeds = [1]
metrics = ["mean_wait", "counted_starts"]

[workloads.m]
generator = "lublin"
n = 60
machine = 32
{extra}

[[schedulers]]
name = "fcfs"
"""


def test_spec_reaches_the_component_and_run_ids_follow_its_parameters(counting, tmp_path):
    spec = parse_spec(SPEC.format(extra="[workloads.m.components.counting]\nstep = [1, 2]"),
                      tmp_path / "s.toml")
    runs = build_matrix(spec)
    assert [r.columns["workload.counting.step"] for r in runs] == [1, 2]
    assert [r.components for r in runs] == [{"counting": {"step": 1}},
                                            {"counting": {"step": 2}}]
    plain = build_matrix(parse_spec(SPEC.format(extra=""), tmp_path / "p.toml"))
    ids = {r.run_id for r in runs} | {plain[0].run_id}
    assert len(ids) == 3
    row = execute_run(runs[1]).row
    assert row["status"] == "ok", row["error"]
    assert row["counted_starts"] == 120 and row["counted_ends"] == 60
    assert spec.metrics == ("mean_wait", "counted_starts")  # counters are metrics to name


def test_an_empty_component_table_runs_the_component_with_its_defaults(counting, tmp_path):
    """`[workloads.m.components.counting]` alone is the component at its defaults: the same
    runs (and run ids) as giving its first parameter at its default (it was left out)."""
    empty = build_matrix(parse_spec(SPEC.format(extra="[workloads.m.components.counting]"),
                                    tmp_path / "e.toml"))
    given = build_matrix(parse_spec(SPEC.format(
        extra="[workloads.m.components.counting]\nstep = 1"), tmp_path / "g.toml"))
    assert [r.components for r in empty] == [{"counting": {"step": 1}}]
    assert [r.run_id for r in empty] == [r.run_id for r in given]
    row = execute_run(empty[0]).row
    assert row["status"] == "ok" and row["counted_starts"] == 60


@pytest.mark.parametrize("extra, where, says", [
    ("[workloads.m.components.failures]", "workloads.m.components.failures (line 10)",
     "an empty table runs failures at its defaults, which it refuses (unknown failure source "
     "''"),
    ('failures = ""', "workloads.m.failures (line 10)", "unknown failure source ''"),
])
def test_a_component_that_refuses_its_values_is_a_problem_of_the_spec(tmp_path, extra, where,
                                                                      says):
    """Refused where the spec is read, at its line (a failures component without a source
    passed, then stopped the matrix with a bare error)."""
    with pytest.raises(SpecError) as info:
        parse_spec(SPEC.format(extra=extra).replace('"counted_starts"', '"failures"'),
                   tmp_path / "s.toml")
    ((loc, message),) = info.value.problems
    assert loc == where and says in message


def test_spec_problems_name_the_component(counting, tmp_path):
    text = SPEC.format(extra="[workloads.m.components.counting]\nstep = 0\nsteps = 2\n\n"
                             "[workloads.m.components.nothing]\nx = 1")
    with pytest.raises(SpecError) as info:
        parse_spec(text, tmp_path / "s.toml")
    found = dict(info.value.problems)
    assert "integer >= 1" in found["workloads.m.components.counting.step (line 11)"]
    assert "accepted: step, label" in found["workloads.m.components.counting.steps (line 12)"]
    assert "unknown component 'nothing'" in found["workloads.m.components.nothing (line 14)"]


def test_counters_of_two_components_may_not_clash(counting):
    class Again(Counting):
        name = "again"

    with pytest.raises(ConfigError, match="again and counting both count 'counted_starts'"):
        simulate(workload(), "fcfs", components=[Counting(), Again()])


def test_hooks_reach_components_before_the_policy():
    order = []

    class Watch(Component):
        name = "watch"

        def on_start(self, job):
            order.append(("component start", job.id))

        def on_release(self, job):
            order.append(("component release", job.id))

        def on_end(self, job):
            order.append(("component end", job.id))

    class Policy(Scripted):
        def on_end(self, job):
            order.append(("policy end", job.id))

    w = jobs([(0.0, 5.0, 1, 5.0)], 2)
    sim = Simulator(w, lambda s: Policy(s, [(0.0, lambda s, js: s.start(js[1]))]),
                    components=[Watch()], check=True).run()
    assert order == [("component start", 1), ("component release", 1), ("component end", 1),
                     ("policy end", 1)]
    assert sim.component("watch") is not None and sim.component("nothing") is None


@pytest.fixture
def slice_kind():
    kind = events.register_event_kind("slice", 2.5, "time-slice boundary",
                                      "after overhead completions, before submissions")
    yield kind
    events._KINDS.pop("slice", None)


def test_a_kind_at_2_5_fires_after_overheads_and_before_submissions(slice_kind):
    # At 10: a checkpoint completes (overhead, 2), a slice boundary (2.5), job 2 arrives (3).
    order = []

    class Policy(Scripted):
        def on_submit(self, job):
            order.append(("submit", job.id))

        def on_checkpointed(self, job):
            order.append(("checkpointed", job.id))

    class Slices(Component):
        name = "slices"

        def attach(self, sim):
            super().attach(sim)
            sim.at(10.0, lambda now: order.append(("slice", now)), kind="slice")

    w = jobs([(0.0, 20.0, 1, 20.0), (10.0, 1.0, 1, 1.0)], 2)
    actions = [(0.0, lambda s, js: s.start(js[1])),
               (5.0, lambda s, js: s.checkpoint(js[1], 5.0, then="continue")),
               (10.0, lambda s, js: s.start(js[2]))]
    Simulator(w, lambda s: Policy(s, actions), components=[Slices()], check=True).run()
    assert order == [("submit", 1), ("checkpointed", 1), ("slice", 10.0), ("submit", 2)]


def test_event_kinds_are_checked(slice_kind):
    with pytest.raises(ConfigError, match="priority 2.5 of 'other' is taken by 'slice'"):
        events.register_event_kind("other", 2.5, "x", "y")
    with pytest.raises(ConfigError, match="already registered with priority 1"):
        events.register_event_kind("failure", 1.5, "x", "y")
    sim = Simulator(jobs([(0.0, 1.0, 1, 1.0)], 1), scheduler_factory("fcfs"))
    with pytest.raises(ConfigError, match="unknown event kind 'nope'") as bad:
        sim.at(1.0, print, kind="nope")
    _accepts_what_at_takes(str(bad.value))
    with pytest.raises(ConfigError, match="'end' events are the engine's own") as bad:
        sim.at(1.0, print, kind="end")
    _accepts_what_at_takes(str(bad.value))
    with pytest.raises(DecisionError, match="in the past"):
        sim.at(-1.0, print)


def _accepts_what_at_takes(message):
    """The accepted kinds are those `sim.at` takes (not the engine's own: the error listed
    end, overhead, submit and timer, which it then refused), and how to add one."""
    assert message.startswith("sim.at: ")
    listed, _, how = message.partition("; accepted: ")[2].partition(", or a kind of your own")
    assert {"failure", "slice"} <= set(listed.split(", "))
    assert not {"end", "overhead", "submit", "timer"} & set(listed.split(", "))
    assert how.startswith(" registered first with ckptsim.engine.events.register_event_kind(")


def test_cancelled_component_events_do_not_fire():
    fired = []
    sim = Simulator(jobs([(0.0, 10.0, 1, 10.0)], 1), scheduler_factory("fcfs"))
    keep = sim.at(3.0, fired.append)
    drop = sim.at(4.0, fired.append)
    sim.cancel(drop)
    sim.run()
    assert fired == [3.0] and keep != drop


def test_the_failures_table_is_the_failures_key(counting, tmp_path):
    source = "synthetic:mtbf=2000000,repair_mean=86400"
    table = parse_spec(SPEC.format(extra=f'[workloads.m.components.failures]\nsource = '
                                         f'"{source}"'), tmp_path / "t.toml")
    alias = parse_spec(SPEC.format(extra=f'failures = "{source}"'), tmp_path / "a.toml")
    a, b = build_matrix(table), build_matrix(alias)
    assert [r.run_id for r in a] == [r.run_id for r in b]
    assert a[0].columns == b[0].columns and a[0].columns["workload.failures"] == source
    with pytest.raises(SpecError, match="given twice"):
        parse_spec(SPEC.format(extra=f'failures = "{source}"\n[workloads.m.components.failures]'
                                     f'\nsource = "{source}"'), tmp_path / "b.toml")


def test_every_hook_has_a_list():
    from ckptsim.engine.components import HOOKS, HookLists

    assert HookLists.__slots__ == HOOKS
    assert all(hasattr(Component, hook) for hook in HOOKS)


# --- what components provide each other (ckptsim.engine.provides) -----------------------------
class Oracle(Component):
    """A plug-in failure predictor: provides `FailureTimes` from a list of its own."""

    name = "oracle"
    provides = (FailureTimes,)
    times = (5.0, 7.0)

    def failure_times(self):
        return list(self.times)

    def failing_nodes(self, start, end):
        return 0b10 if any(start <= t <= end for t in self.times) else 0


class Watcher(Component):
    """A plug-in that consumes `FailureTimes` through `sim.provider`, never by name."""

    name = "watcher"

    def at_end(self, now):
        failures = self.sim.provider(FailureTimes)
        self.seen = failures.failure_times() if failures is not None else None


def test_a_component_provides_a_protocol_and_another_consumes_it():
    from ckptsim.components.availability import Availability, AvailabilityParams
    from ckptsim.components.failures import Failures
    from ckptsim.policies.bgl_fault import _failing

    w = jobs([(0.0, 10.0, 1, 10.0)], 2)
    oracle, watcher = Oracle(), Watcher()
    sim = Simulator(w, scheduler_factory("fcfs"), components=[watcher, oracle])
    assert sim.provider(FailureTimes) is oracle and sim.provider(Progress) is None
    assert _failing(sim, 4.0, 6.0) == 0b10 and _failing(sim, 8.0, 9.0) == 0  # a built-in reads it
    sim.run()
    assert watcher.seen == [5.0, 7.0]
    alone = Simulator(w, scheduler_factory("fcfs"), components=[Watcher()]).run()
    assert alone.provider(FailureTimes) is None and alone.components[0].seen is None
    # The built-ins declare theirs; the availability component's failures only when given some.
    assert FailureTimes in Failures.provides
    assert FailureTimes not in Availability().provides
    given = Availability(AvailabilityParams(failures="synthetic:mtbf=2000000"))
    assert FailureTimes in given.provides and Progress in given.provides


class Evicting(Component):
    """Evicts job 1 at t=2 and records what `before_eviction` saw."""

    name = "evicting"

    def attach(self, sim):
        super().attach(sim)
        self.seen = []
        sim.at(2.0, lambda now: sim.evict(sim.jobs[0], "eviction",
                                          before_kill=lambda: self.seen.append("before_kill")))

    def before_eviction(self, now, job, reason):
        self.seen.append((now, job.id, reason, job.state.name))


def test_evict_tells_before_eviction_then_kills_and_requeues():
    w = jobs([(0.0, 10.0, 1, 10.0)], 2)
    comp = Evicting()
    sim = Simulator(w, lambda s: Scripted(s, [(0.0, lambda s, js: s.start(js[1]))]),
                    components=[comp], check=True)
    sim.advance(3.0)
    job = sim.jobs[0]
    assert comp.seen == [(2.0, 1, "eviction", "RUNNING"), "before_kill"]
    assert job.state.name == "QUEUED" and job.n_kills == 1 and job.lost_work == 2.0
    assert sim.policy.log == [("requeue", 2.0, 1, "eviction")]


def test_evict_refuses_a_job_that_holds_no_nodes():
    w = jobs([(0.0, 10.0, 1, 10.0)], 2)
    comp = Evicting()
    sim = Simulator(w, lambda s: Scripted(s, []), components=[comp], check=True)
    with pytest.raises(DecisionError, match="cannot evict a job that is QUEUED"):
        sim.advance(3.0)
    assert comp.seen == []  # refused before any listener was told


def test_announce_unavailable_tells_the_components_then_the_policy():
    order = []

    class Listener(Component):
        name = "listener"

        def before_unavailable(self, now, mask, at, reason):
            order.append(("component", now, mask, at, reason))

    class Policy(Scripted):
        def before_unavailable(self, now, mask, at, reason):
            order.append(("policy", now, mask, at, reason))

    w = jobs([(0.0, 10.0, 1, 10.0)], 2)
    sim = Simulator(w, lambda s: Policy(s, [(1.0, lambda s, js: s.announce_unavailable(
        0b1, 5.0, "reboot"))]), components=[Listener()])
    sim.advance(2.0)
    assert order == [("component", 1.0, 1, 5.0, "reboot"), ("policy", 1.0, 1, 5.0, "reboot")]


def test_the_engine_refuses_what_is_not_a_component():
    w = jobs([(0.0, 10.0, 1, 10.0)], 1)

    class Mine(Component):
        name = "mine"

    for given, said in ((Mine, "a class: build it"), ("mine", "got 'mine'")):
        with pytest.raises(ConfigError, match=said):
            Simulator(w, scheduler_factory("fcfs"), components=[given])
    sim = Simulator(w, scheduler_factory("fcfs"), components=[Mine()])
    sim.run()
    assert sim.component("mine") is not None and sim.jobs[0].end == 10.0


def test_a_nested_source_keeps_its_options_around_the_component_parameters():
    """A part named like a parameter of the component sets it wherever it stands; the other
    `key=value` parts after a plain parameter continue the nested string before it."""
    from ckptsim.components import split_component

    split = {"source": "lanl:path=F,system=20", "count": "100"}
    for text in ("failures:source=lanl:path=F,count=100,system=20",
                 "failures:source=lanl:path=F,system=20,count=100",
                 "failures:count=100,source=lanl:path=F,system=20"):
        assert split_component(text) == ("failures", split), text
    # The strings that worked keep their meaning: a part with no `=` continues the previous
    # value (a reboot on several days), options after a nested string stay in it.
    assert split_component("availability:failures=synthetic:mtbf=1e6,reboot=mon,wed 05:00,"
                           "lead=60") == (
        "availability", {"failures": "synthetic:mtbf=1e6", "reboot": "mon,wed 05:00",
                         "lead": "60"})
    assert split_component("availability:trace=avt:path=F,lead=600,map=random") == (
        "availability", {"trace": "avt:path=F,map=random", "lead": "600"})
    assert split_component("checkpoint:policy=fixed:interval=1800,cost=120+scheduled") == (
        "checkpoint", {"policy": "fixed:interval=1800,cost=120+scheduled"})
    name, values = split_component("failures:count=100,system=20")  # no source to continue
    with pytest.raises(ConfigError, match="expected an integer, got '100,system=20'"):
        registry.get_component(name).make_params(values)


def test_the_command_line_reads_a_log_count_inside_the_source(tmp_path):
    lanl = (Path(__file__).resolve().parents[2] / "shared" / "data" / "failures" / "lanl_cfdr"
            / "LA-UR-05-7318-failure-data-1996-2005.csv.gz")
    if not lanl.exists():
        pytest.skip("the shared LANL log is not here")
    out = {}
    for options in ("count=100,system=20", "system=20,count=100"):
        assert main(["run", "--workload", "lublin:n=60,seed=1", "--component",
                     f"failures:source=lanl:path={lanl},{options}",
                     "--out", str(tmp_path / options)]) == 0
        out[options] = json.loads((tmp_path / options / "summary.json").read_text())
    a, b = out.values()
    assert a["metrics"]["failures"] == b["metrics"]["failures"] == 100
    assert a == b


def test_an_empty_part_after_a_number_is_called_out():
    from ckptsim.components import split_component

    for text in ("energy:active=100,,idle=40", "energy:active=100,"):
        with pytest.raises(ConfigError) as err:
            split_component(text, where="--component")
        assert str(err.value) == ("--component energy: an empty part (two commas in a row, or "
                                  "one at the end) after active=100; give key=value parts "
                                  "separated by single commas")
    # A text value keeps its comma for its own parser, and a nested source ignores the gap.
    assert split_component("failures:source=synthetic:mtbf=1e6,,repair_mean=5") == (
        "failures", {"source": "synthetic:mtbf=1e6,,repair_mean=5"})
